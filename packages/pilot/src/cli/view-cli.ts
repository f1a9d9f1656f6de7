import { resolve } from 'node:path';
import {
  startViewServer,
  writeCompareBundle,
  writeStudyViewBundle,
  writeViewBundle,
} from '@chi/report/viewer';
import { ChiError, InvalidArgumentError, RunFolderDamagedError, ValidationError } from '@chi/spec';
import { DIVERGENCE_VIEW_KIND } from '../divergence/view';
import { studyPaths } from '../study/study-folder';
import { startStudyView, studySessionRuns, studyViewSource } from '../study/study-view';
import type { ViewCommand } from './cli-args';
import type { CliIo } from './cli-io';
import { EXIT_CODES } from './exit-codes';
import { testClockFrom } from './test-clock';
import { UsageError } from './usage-error';

// `chi view` on its own module graph: the `chi` executable (chi-entry.ts) loads this file, not
// cli-main, for `chi view`, so browsing a run never loads the release writer's chart libraries (vega, about a
// third of the first paint; docs/benchmarks/view.md). view-imports.test.ts keeps it that way.

/**
 * The view kinds of the protocols other than the default pilot's: `@chi/report/viewer` picks one
 * by the release's manifest `protocol` (a divergence release, or a run folder holding one).
 */
const VIEW_KINDS = [DIVERGENCE_VIEW_KIND];

/**
 * `chi view STUDY_DIR`: the study page (served, or bundled with every session's viewer). Its
 * "now" (what is due) is the clock's: `CHI_TEST_CLOCK` in tests, real time otherwise.
 */
async function viewStudy(dir: string, command: ViewCommand, io: CliIo): Promise<number> {
  const now = testClockFrom(io.env) ?? (() => new Date());
  const report = `chi study report ${command.dir}`;
  if (command.bundle !== null) {
    const [index] = await writeStudyViewBundle(
      studyViewSource(dir, now, report),
      resolve(io.cwd ?? process.cwd(), command.bundle),
    );
    io.stderr.write(
      'chi: study bundle written (the study page and every session); open it in a browser, no server needed\n',
    );
    io.stdout.write(`${index}\n`);
    return EXIT_CODES.ok;
  }
  const server = await startStudyView(dir, now, command.port, report);
  io.stderr.write(
    `chi: viewing the study ${dir} (${studySessionRuns(dir)?.length ?? 0} session(s); its report: ${studyPaths(dir).reportMarkdown}) at ${server.url} (127.0.0.1 only): sessions on a time axis, completeness and spend, the CHIS trajectory; each session under run/s<k>/; Ctrl-C stops\n`,
  );
  io.stdout.write(`${server.url}\n`);
  await (io.untilStopped ?? new Promise<void>(() => {}));
  await server.close();
  return EXIT_CODES.ok;
}

/** `chi view [DIR] [--port P] [--bundle OUT]`: serves (or bundles) a run folder or release. */
export async function viewCommand(command: ViewCommand, io: CliIo): Promise<number> {
  if (command.compare !== null) return await viewComparison(command, command.compare, io);
  const dir = resolve(io.cwd ?? process.cwd(), command.dir);
  if (studySessionRuns(dir) !== null) return await viewStudy(dir, command, io);
  if (command.bundle !== null) {
    const [index] = await writeViewBundle(dir, resolve(io.cwd ?? process.cwd(), command.bundle), {
      kinds: VIEW_KINDS,
    });
    io.stderr.write('chi: viewer bundle written; open it in a browser, no server needed\n');
    io.stdout.write(`${index}\n`);
    return EXIT_CODES.ok;
  }
  const server = await startViewServer({ dir, port: command.port, kinds: VIEW_KINDS });
  const { viewed } = server;
  io.stderr.write(
    viewed === undefined
      ? `chi: viewing ${dir} at ${server.url} (127.0.0.1 only); Ctrl-C stops\n`
      : `chi: viewing the ${viewed.kind.name} ${viewed.release} at ${server.url} (127.0.0.1 only): ${viewed.kind.shows}; Ctrl-C stops\n`,
  );
  io.stdout.write(`${server.url}\n`);
  await (io.untilStopped ?? new Promise<void>(() => {}));
  await server.close();
  return EXIT_CODES.ok;
}

/**
 * `chi view RUN_A RUN_B`: both runs served side by side, the comparison page's URL printed; with
 * `--bundle OUT`, the comparison written as static pages, `OUT/index.html` printed.
 */
async function viewComparison(command: ViewCommand, other: string, io: CliIo): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  if (command.bundle !== null) {
    const [index] = await writeCompareBundle(
      resolve(cwd, command.dir),
      resolve(cwd, other),
      resolve(cwd, command.bundle),
    );
    io.stderr.write('chi: comparison bundle written; open it in a browser, no server needed\n');
    io.stdout.write(`${index}\n`);
    return EXIT_CODES.ok;
  }
  const server = await startViewServer({
    dir: cwd,
    runs: [command.dir, other],
    port: command.port,
  });
  const url = `${server.url}compare`;
  io.stderr.write(
    `chi: comparing ${command.dir} and ${other} at ${url} (127.0.0.1 only); Ctrl-C stops\n`,
  );
  io.stdout.write(`${url}\n`);
  await (io.untilStopped ?? new Promise<void>(() => {}));
  await server.close();
  return EXIT_CODES.ok;
}

/**
 * The exit code of a failed `chi view`. The viewer validates nothing but the run's own files (a
 * bad query is an HTTP 400, never an exit), so a `ValidationError` (a manifest that breaks its
 * schema, a torn line inside the attempt log while bundling) is a damaged run folder, as
 * `RunFolderDamagedError` is: exit 5 with the file named, not a runtime failure.
 */
function exitCodeOf(error: unknown): number {
  if (RunFolderDamagedError.isInstance(error) || ValidationError.isInstance(error))
    return EXIT_CODES.damagedRun;
  if (UsageError.isInstance(error) || InvalidArgumentError.isInstance(error))
    return EXIT_CODES.usage;
  return EXIT_CODES.runtimeFailure;
}

/**
 * Runs a parsed `chi view` command as the `chi` executable does (`runChi` hands it one): the same
 * exit codes and messages as `runCli`.
 */
export async function runViewCommand(command: ViewCommand, io: CliIo): Promise<number> {
  try {
    return await viewCommand(command, io);
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).replace(
      /\s*\n\s*/g,
      ' ',
    );
    io.stderr.write(`${/^chi[ :]/.test(message) ? message : `chi: ${message}`}\n`);
    if (!ChiError.isInstance(error) && error instanceof Error && io.env.CHI_DEBUG === '1')
      io.stderr.write(`${error.stack ?? ''}\n`);
    return exitCodeOf(error);
  }
}
