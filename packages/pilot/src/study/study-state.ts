import { existsSync, readFileSync } from 'node:fs';
import { applyNotebookCap, memoryNotebookKey } from '@chi/experiments/internal';
import { canonicalJson, outcomesFromAttemptLog, parseRunJsonl, sha256Hex } from '@chi/run';
import { checkAttemptChain } from '@chi/run/internal';
import {
  AttemptRecordSchema,
  RunFolderDamagedError,
  RunManifestSchema,
  type StudyState,
  StudyStateSchema,
} from '@chi/spec';
import { isInfrastructureFailure, RunPlanSchema } from '@chi/spec/internal';
import { runPaths, writeFileAtomic } from '../run-folder/run-folder';

/** The key of a carried notebook: `<systemId>|memory|<worldSeed>|<load>`. */
export function carriedNotebookKey(
  systemId: string,
  request: { readonly worldSeed: number; readonly load: number | null },
): string {
  return `${systemId}|${memoryNotebookKey(request)}`;
}

/** The canonical text and SHA-256 of a study state (what the next session is linked to). */
export function studyStateSha256(state: StudyState): string {
  return sha256Hex(canonicalJson(state));
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new RunFolderDamagedError(path, 'missing or unreadable');
  }
}

/**
 * The memory notebooks a session's run folder ended with, rebuilt from its hash-chained attempt
 * log (the chain checked against the manifest's hash: an edited log is a damaged folder): each
 * resolved encode's reply under the notebook cap, as the runner kept it; the carried notebooks
 * (`carried`) for the keys the session did not write. A system that keeps its own memory (memory
 * policy `system`) has no notebook: the state carries its instances instead.
 */
export function rebuildSessionNotebooks(
  runDir: string,
  carried: Readonly<Record<string, string>>,
): Record<string, string> {
  const paths = runPaths(runDir);
  const manifestText = readText(paths.manifest);
  const manifest = RunManifestSchema.parse(JSON.parse(manifestText));
  const manifestSha256 = sha256Hex(manifestText);
  const logText = existsSync(paths.attempts) ? readText(paths.attempts) : '';
  const chain = checkAttemptChain(logText, manifestSha256);
  if (chain.problems.length > 0)
    throw new RunFolderDamagedError(
      paths.attempts,
      `its hash chain is broken: ${chain.problems[0]}`,
    );
  const records = parseRunJsonl(logText, AttemptRecordSchema, paths.attempts).records;
  const outcomes = outcomesFromAttemptLog(records);
  const plan = RunPlanSchema.parse(JSON.parse(readText(paths.plan)));
  const notebooks: Record<string, string> = { ...carried };
  for (const request of plan.requests) {
    if (!request.writesNotebook || request.experiment !== 'memory') continue;
    const outcome = outcomes.get(request.requestId);
    if (outcome?.kind !== 'resolved' || isInfrastructureFailure(outcome.result)) continue;
    const system = manifest.systems.find((entry) => entry.id === request.systemId);
    // a system that keeps its own memory is sent no notes: the study carries its instances
    if (system?.memory === 'system') continue;
    const cap = system?.uncappedNotebook === true ? null : manifest.notebookCapBytes;
    notebooks[carriedNotebookKey(request.systemId, request)] = applyNotebookCap(
      outcome.result.text ?? '',
      cap,
    ).text;
  }
  return Object.fromEntries(Object.entries(notebooks).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Writes a session's end state (canonical JSON) and returns its SHA-256. */
export async function writeStudyState(path: string, state: StudyState): Promise<string> {
  await writeFileAtomic(path, canonicalJson(state), { durable: true });
  return studyStateSha256(state);
}

/**
 * Reads the state a session ended with and checks it against the hash recorded for it
 * (`expectedSha256`): a missing, swapped or edited state is a damaged study (exit 5), named.
 */
export function readStudyState(path: string, expectedSha256: string): StudyState {
  const state = StudyStateSchema.safeParse(JSON.parse(readText(path)));
  if (!state.success) throw new RunFolderDamagedError(path, 'not a study state');
  const sha256 = studyStateSha256(state.data);
  if (sha256 !== expectedSha256)
    throw new RunFolderDamagedError(
      path,
      `its SHA-256 is ${sha256}, the study recorded ${expectedSha256}: the carried state was edited or swapped`,
    );
  return state.data;
}
