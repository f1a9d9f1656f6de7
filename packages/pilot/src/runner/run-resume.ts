import { sha256Hex } from '@chi/run';
import type { RequestLogState } from '@chi/run/internal';
import type { PlannedRequest, SystemSpec } from '@chi/spec';
import { memoryPolicyOf } from '../memory-systems/instance-identity';
import { resendsUncertain, uncertainAttemptText } from '../memory-systems/resume-rule';
import { writeJsonFile } from '../run-folder/run-folder';
import { recordOutcome } from './run-held-state';
import { keepNotebook } from './run-notebooks';
import type { RunSession } from './run-session';

/** Whether a possibly-sent attempt of this system may be sent again on resume. */
export function mayResendUncertain(system: SystemSpec): boolean {
  // Free and deterministic: re-sending costs nothing and yields the same reply; never into a
  // memory that outlived the interruption (`resume-rule.ts`).
  return resendsUncertain(system);
}

/** What the resume found, for the `run-resumed` event. */
interface ResumeCounts {
  resolved: number;
  abandoned: number;
  resent: number;
}

/**
 * An attempt with `before_send` but no `after_response` was possibly sent: an `abandoned` record
 * closes it and a failure line says whether it is sent again.
 */
async function closeOpenAttempt(
  session: RunSession,
  request: PlannedRequest,
  state: RequestLogState,
  openAttemptId: string,
  system: SystemSpec,
): Promise<void> {
  const text = uncertainAttemptText(system);
  await session.attemptWriter.append({
    kind: 'attempt',
    manifestSha256: session.run.frozen.sha256,
    attemptId: openAttemptId,
    requestId: request.requestId,
    systemId: request.systemId,
    blockId: request.blockId,
    phase: 'abandoned',
    at: session.now().toISOString(),
    requestSha256: state.openRequestSha256 ?? sha256Hex(''),
    inputBytes: state.openInputBytes,
    result: null,
    reason: text.reason,
  });
  await session.failureWriter.append({
    kind: 'failure',
    at: session.now().toISOString(),
    requestId: request.requestId,
    attemptId: openAttemptId,
    systemId: request.systemId,
    blockId: request.blockId,
    category: 'abandoned',
    failure: null,
    detail: text.detail,
    retryWaitsMs: [],
  });
  session.emit({
    type: 'request-abandoned',
    requestId: request.requestId,
    systemId: request.systemId,
  });
}

/** One request as the attempt log left it: resolved (notebook restored), re-sent or abandoned. */
async function resumeRequest(
  session: RunSession,
  ordinal: number,
  request: PlannedRequest,
  state: RequestLogState,
  counts: ResumeCounts,
): Promise<void> {
  if (state.result !== null) {
    recordOutcome(session, ordinal, { kind: 'resolved', result: state.result });
    counts.resolved += 1;
    await keepNotebook(session, ordinal, request, state.result);
    return;
  }
  const system = session.run.systems.get(request.systemId) as SystemSpec;
  if (state.openAttemptId !== null)
    await closeOpenAttempt(session, request, state, state.openAttemptId, system);
  if (mayResendUncertain(system)) {
    counts.resent += 1;
  } else {
    recordOutcome(session, ordinal, {
      kind: 'abandoned',
      reason:
        memoryPolicyOf(system) === 'system'
          ? 'possibly sent before an interruption; never re-sent (stateful system)'
          : 'possibly sent before an interruption; never re-sent (paid system)',
    });
    counts.abandoned += 1;
  }
}

/**
 * Resume rule: takes over what the attempt log of earlier sessions resolved, closes attempts that
 * were possibly sent, marks the status as running again and announces the session (created or
 * resumed). Returns the number of resumes, this one included.
 */
export async function resumeSession(
  session: RunSession,
  logStates: ReadonlyMap<string, RequestLogState>,
): Promise<number> {
  const { run } = session;
  const counts: ResumeCounts = { resolved: 0, abandoned: 0, resent: 0 };
  for (let ordinal = 0; ordinal < run.plan.requestCount && logStates.size > 0; ordinal += 1) {
    const request = run.plan.requestAt(ordinal);
    const state = logStates.get(request.requestId);
    session.attemptsSoFar[ordinal] = state?.attempts ?? 0;
    if (state !== undefined) await resumeRequest(session, ordinal, request, state, counts);
  }
  // Counted as soon as the session starts, so a resume that is itself killed still counts
  // (`runPilot` counts its resumes before their smoke checks: `resumeCounted`).
  const counted = session.options.resumeCounted === true;
  const resumed = logStates.size > 0 || counted;
  const resumes = (run.previousStatus?.resumes ?? 0) + (logStates.size > 0 && !counted ? 1 : 0);
  if (run.previousStatus !== null && resumed) {
    await writeJsonFile(
      run.paths.status,
      { ...run.previousStatus, state: 'running', resumes, updatedAt: session.now().toISOString() },
      { durable: true },
    );
  }
  session.emit(
    resumed
      ? { type: 'run-resumed', runDir: session.options.runDir, runId: run.runId, ...counts }
      : {
          type: 'run-created',
          runDir: session.options.runDir,
          runId: run.runId,
          manifestSha256: run.frozen.sha256,
          totalRequests: run.plan.requestCount,
        },
  );
  return resumes;
}
