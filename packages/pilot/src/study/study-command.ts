import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliIo } from '../cli-main';
import { EXIT_CODES } from '../exit-codes';
import { createProgressRenderer } from '../progress';
import { testClockFrom } from '../test-clock';
import type { StudyCommand } from './study-args';
import { writeStudyFile } from './study-file';
import { studyPaths } from './study-folder';
import { writeStudyReport } from './study-report';
import { runStudySession } from './study-run';
import { studyStatusLines } from './study-status';

/** `chi study init|run|status|report DIR`; resolves to the exit code. */
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
    case 'run': {
      const clock = testClockFrom(io.env);
      const outcome = await runStudySession({
        dir,
        now,
        early: command.early,
        env: io.env,
        onEvent: createProgressRenderer(io.stderr),
        ...(io.signal === undefined ? {} : { signal: io.signal }),
        ...(clock === undefined ? {} : { modelClock: clock }),
      });
      for (const line of outcome.lines) io.stdout.write(`${line}\n`);
      return outcome.exitCode;
    }
    case 'status':
      io.stdout.write(`${(await studyStatusLines(dir, now())).join('\n')}\n`);
      return EXIT_CODES.ok;
    case 'report': {
      const written = await writeStudyReport(dir);
      io.stdout.write(`${written}\n`);
      return EXIT_CODES.ok;
    }
  }
}
