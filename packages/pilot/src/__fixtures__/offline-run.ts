import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRunFolder } from '@chi/run';
import type { RenderedRequest } from '@chi/spec';
import { sharedFolder } from '../../../../tooling/vitest/shared-folder';
import { createRun } from '../run-folder/run-create';
import { executeRun } from '../runner/run-execute';
import { defaultOfflineSettings } from '../settings';
import type { PilotSettings } from '../pilot-settings';
import { modelsForManifest } from '../endpoints/system-models';

/** A finished offline run: its folder and every rendered request it sent, by request ID. */
export interface FinishedRun {
  readonly runDir: string;
  readonly requests: ReadonlyMap<string, RenderedRequest>;
}

/**
 * Creates and executes a small offline run of every scripted system (two worlds, load 32, the
 * controls, history and behavior; `overrides` adds opt-in conditions) in a fresh temporary folder
 * and reads back every rendered request. The caller removes `runDir`; when the run fails, the
 * folder is removed here before the error is thrown.
 */
export async function finishedOfflineRun(
  overrides: Partial<PilotSettings> = {},
): Promise<FinishedRun> {
  const runDir = mkdtempSync(join(tmpdir(), 'chi-offline-run-'));
  try {
    return await runInto(runDir, overrides);
  } catch (error) {
    rmSync(runDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The default {@link finishedOfflineRun} (no overrides), made once per vitest run for every test
 * file that asks for it (manifest.test.ts, same-history-control.test.ts, prompt-vocabulary.test.ts:
 * one run where there were three; docs/benchmarks/ci.md, "Fifth pass"), in a shared folder that
 * the global teardown removes. Nothing may write into `runDir` and no caller removes it: a test
 * that changes the run copies it first ({@link copyOfSharedOfflineRun}).
 */
export async function sharedOfflineRun(): Promise<FinishedRun> {
  const runDir = await sharedFolder('finishedOfflineRun {}', async (made) => {
    await runInto(made, {});
  });
  return { runDir, requests: await requestsOf(runDir) };
}

/**
 * A copy of {@link sharedOfflineRun}'s folder in a fresh temporary folder, the caller's to change
 * and to remove, with the same requests: what {@link finishedOfflineRun} with no overrides gives.
 */
export async function copyOfSharedOfflineRun(): Promise<FinishedRun> {
  const shared = await sharedOfflineRun();
  const runDir = mkdtempSync(join(tmpdir(), 'chi-offline-run-'));
  cpSync(shared.runDir, runDir, { recursive: true });
  return { runDir, requests: shared.requests };
}

async function requestsOf(runDir: string): Promise<Map<string, RenderedRequest>> {
  const requests = new Map<string, RenderedRequest>();
  for await (const request of openRunFolder(runDir).readRequests())
    requests.set(request.requestId, request);
  return requests;
}

async function runInto(runDir: string, overrides: Partial<PilotSettings>): Promise<FinishedRun> {
  const run = await createRun({
    settings: defaultOfflineSettings({ replicates: 2, loads: [32], ...overrides }),
    runDir,
    now: () => new Date('2026-09-01T00:00:00.000Z'),
  });
  const outcome = await executeRun({ runDir: run.runDir, models: modelsForManifest(run.frozen.manifest) });
  if (outcome.state !== 'completed') throw new Error(`offline run ended ${outcome.state}`);
  return { runDir, requests: await requestsOf(runDir) };
}
