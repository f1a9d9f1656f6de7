import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliIo } from '../cli/cli-io';
import { EXIT_CODES } from '../cli/exit-codes';
import { createProgressRenderer } from '../cli/progress';
import { testClockFrom } from '../cli/test-clock';
import type { StudyCommand } from './study-args';
import { writeStudyRelease } from './study-code';
import { addStudyCohort } from './study-cohort';
import { readStudyFile, writeStudyFile } from './study-file';
import { studyPaths } from './study-folder';
import { freezeStudy } from './study-manifest';
import { runStudySession } from './study-run';
import { mergeStudySession, runStudyShard } from './study-shard';
import { studyStatusLines } from './study-status';

/** What freezing a live study reads from the process: its fetch and where a warning goes. */
function liveContext(io: CliIo) {
  return {
    ...(io.fetch === undefined ? {} : { fetch: io.fetch }),
    warn: (line: string) => io.stderr.write(`${line}\n`),
  };
}

/** `chi study run DIR [--now] [--shard i/n] [--concurrency N]`; resolves to the exit code. */
async function studyRun(
  command: Extract<StudyCommand, { action: 'run' }>,
  dir: string,
  now: () => Date,
  io: CliIo,
): Promise<number> {
  const clock = testClockFrom(io.env);
  const options = {
    dir,
    now,
    early: command.early,
    env: io.env,
    ...liveContext(io),
    ...(command.concurrency === undefined ? {} : { concurrency: command.concurrency }),
    onEvent: createProgressRenderer(io.stderr),
    ...(io.signal === undefined ? {} : { signal: io.signal }),
    ...(clock === undefined ? {} : { modelClock: clock }),
  };
  const outcome =
    command.shard === undefined
      ? await runStudySession(options)
      : await runStudyShard(options, command.shard);
  for (const line of outcome.lines) io.stdout.write(`${line}\n`);
  return outcome.exitCode;
}

/** `chi study init|run|status|report|freeze|merge|add DIR`; resolves to the exit code. */
export async function studyCommand(command: StudyCommand, io: CliIo): Promise<number> {
  const dir = resolve(io.cwd ?? process.cwd(), command.dir);
  const now = testClockFrom(io.env) ?? (() => new Date());
  switch (command.action) {
    case 'init': {
      mkdirSync(dir, { recursive: true });
      const path = studyPaths(dir).study;
      writeStudyFile(path, command.init, command.force);
      io.stderr.write(`chi: wrote a study; edit it, then run: chi study run ${command.dir}\n`);
      io.stdout.write(`${path}\n`);
      return EXIT_CODES.ok;
    }
    case 'run':
      return await studyRun(command, dir, now, io);
    case 'merge': {
      const outcome = await mergeStudySession({
        dir,
        now,
        onEvent: createProgressRenderer(io.stderr),
      });
      for (const line of outcome.lines) io.stdout.write(`${line}\n`);
      return outcome.exitCode;
    }
    case 'add': {
      const written = addStudyCohort(dir, command.systems);
      io.stderr.write(
        `chi: the study gains ${command.systems.join(', ')} from its own day 0; run: chi study run ${written.replace(/[/\\]study\.json$/, '')}\n`,
      );
      io.stdout.write(`${written}\n`);
      return EXIT_CODES.ok;
    }
    case 'freeze': {
      const frozen = await freezeStudy(
        studyPaths(dir),
        readStudyFile(studyPaths(dir).study),
        now(),
        { env: io.env, ...liveContext(io) },
      );
      io.stdout.write(
        `chi study: ${studyPaths(dir).manifest} frozen ${frozen.manifest.frozenAt} (${frozen.sha256.slice(0, 12)})\n`,
      );
      return EXIT_CODES.ok;
    }
    case 'status':
      io.stdout.write(`${(await studyStatusLines(dir, now())).join('\n')}\n`);
      return EXIT_CODES.ok;
    case 'report': {
      const written = await writeStudyRelease(dir);
      io.stdout.write(`${written}\n`);
      return EXIT_CODES.ok;
    }
  }
}
