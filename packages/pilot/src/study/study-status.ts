import { existsSync } from 'node:fs';
import { RunStatusSchema } from '@chi/spec/internal';
import { readJsonFile, runPaths } from '../run-folder/run-folder';
import { readStudyFile } from './study-file';
import { studyPaths } from './study-folder';
import { readFrozenStudy } from './study-manifest';
import { finishedSessions } from './study-records';
import { studyCalendar } from './study-schedule';

const usd = (amount: number) => `$${amount.toFixed(4)}`;

/** `chi study status DIR`: the sessions done and due, and the spend against the ceilings. */
export async function studyStatusLines(dir: string, now: Date): Promise<string[]> {
  const paths = studyPaths(dir);
  const file = readStudyFile(paths.study);
  const frozen = readFrozenStudy(paths);
  const records = finishedSessions(paths, file.schedule.length);
  const spent = records.reduce((sum, record) => sum + record.chargedUsd, 0);
  const lines = [
    `study ${file.studyId}: ${records.length} of ${file.schedule.length} sessions done; ${frozen === null ? 'not frozen yet' : `frozen ${frozen.manifest.frozenAt} (${frozen.sha256.slice(0, 12)})`}`,
    `spend ${usd(spent)} of the total ceiling ${usd(file.ceilings.totalUsd)} (per session ${usd(file.ceilings.perSessionUsd)})`,
  ];
  for (const record of records)
    lines.push(
      `  s${record.sessionIndex}  done ${record.finishedAt}${record.early ? ' (early, --now)' : ''}  spend ${usd(record.chargedUsd)} of ${usd(record.ceilingUsd)}${record.modelChanges.length > 0 ? `  MODEL CHANGE: ${record.modelChanges.join(', ')}` : ''}`,
    );
  const start = frozen === null ? now : new Date(frozen.manifest.frozenAt);
  const calendar = studyCalendar(
    file.schedule,
    records.map((record) => new Date(record.finishedAt)),
    now,
    start,
  );
  if (calendar.kind === 'complete') lines.push('every session is done');
  else {
    const inProgress = existsSync(runPaths(paths.sessionRun(calendar.index)).status);
    const state = inProgress
      ? (await readJsonFile(runPaths(paths.sessionRun(calendar.index)).status, RunStatusSchema))
          .state
      : null;
    lines.push(
      `  s${calendar.index}  ${calendar.kind === 'due' ? 'due now' : 'due'} ${calendar.dueAt.toISOString()}${state === null ? '' : ` (started: ${state}; chi study run resumes it)`}`,
    );
  }
  return lines;
}
