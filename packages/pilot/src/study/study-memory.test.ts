import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StudyChisEntry, StudyState } from '@chi/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { runCli } from '../cli/cli-main';
import { type ScriptedServer, serveScriptedSystem } from '../endpoints/serve';
import { studyPaths } from './study-folder';

const DAY0 = '2026-09-01T00:00:00.000Z';
const at = (day: number) => new Date(Date.parse(DAY0) + day * 86_400_000).toISOString();

let root: string;
let window: ScriptedServer;
let keyword: ScriptedServer;
let leaky: ScriptedServer;
beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-study-memory-'));
  // what `chi serve --system window` and `--system leaky-store` run, on 127.0.0.1 port 0
  window = await serveScriptedSystem({ system: 'window' });
  keyword = await serveScriptedSystem({ system: 'keyword-store' });
  leaky = await serveScriptedSystem({ system: 'leaky-store' });
});
afterEach(async () => {
  await window.close();
  await keyword.close();
  await leaky.close();
  rmSync(root, { recursive: true, force: true });
});

async function chi(args: readonly string[], clock: string, signal?: AbortSignal) {
  const captured = captureIo({
    cwd: root,
    env: { CHI_TEST_CLOCK: clock },
    ...(signal === undefined ? {} : { signal }),
  });
  const code = await runCli(args, captured.io);
  return { code, out: captured.out(), err: captured.err() };
}

const paths = () => studyPaths(join(root, 'st'));
const json = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;

/**
 * Systems that keep their own memory: window and keyword-store in process and served over HTTP
 * (all offer instance control), leaky-store served (no instance control: identity only).
 */
function writeStudy(): void {
  mkdirSync(join(root, 'st'), { recursive: true });
  writeFileSync(
    paths().study,
    JSON.stringify({
      studyId: 'own-memory',
      protocol: 'chi-pilot',
      systems: [
        'keyword-store',
        'window',
        { id: 'window-http', model: window.model, baseUrl: window.baseUrl, memory: 'system' },
        { id: 'keyword-http', model: keyword.model, baseUrl: keyword.baseUrl },
        { id: 'leaky-http', model: leaky.model, baseUrl: leaky.baseUrl },
      ],
      experiments: { memory: { loads: [32] } },
      worldSeeds: { rootSeed: 20260901, replicates: 2 },
      schedule: [{ afterPreviousDays: 0 }, { afterPreviousDays: 1 }],
      ceilings: { perSessionUsd: 1, totalUsd: 2 },
      primary: { session: 1, checkpoint: { experiment: 'memory', load: 32 } },
    }),
  );
}

/** Retrieval r of each (system, world) at session `k`, from the study's CHIS entries. */
function retrieval(k: number): Map<string, number | null> {
  const entries = readFileSync(paths().chis, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as StudyChisEntry)
    .filter((entry) => entry.sessionIndex === k);
  return new Map(entries.map((entry) => [`${entry.systemId}|${entry.worldSeed}`, entry.retrieval]));
}

/** Fresh servers on the same ports: the study moved, or the servers restarted empty. */
async function restartServers(): Promise<void> {
  const [windowPort, keywordPort] = [window.port, keyword.port];
  await window.close();
  await keyword.close();
  window = await serveScriptedSystem({ system: 'window', port: windowPort });
  keyword = await serveScriptedSystem({ system: 'keyword-store', port: keywordPort });
}

describe('a study of systems that keep their own memory (memory policy system)', () => {
  it('continues each instance under the same ID, carrying exported state across a restart', async () => {
    writeStudy();
    const s0 = await chi(['study', 'run', 'st'], DAY0);
    expect(s0.code, s0.err).toBe(0);
    const state0 = json<StudyState>(paths().sessionState(0));
    const studySha = readFileSync(paths().manifestSha256, 'utf8').slice(0, 12);
    // no notes are carried for them; their instances are, rooted in the study manifest's hash
    expect(state0.notebooks).toEqual({});
    for (const system of ['keyword-store', 'window', 'window-http', 'keyword-http'])
      expect(state0.instances?.[system]?.carry, system).toBe('exported');
    expect(state0.instances?.['leaky-http']?.carry).toBe('identity');
    const windowIds = Object.keys(state0.instances?.['window-http']?.states ?? {});
    expect(windowIds).toHaveLength(2);
    for (const id of windowIds) {
      expect(id).toMatch(new RegExp(`^chi-${studySha}/window-http/memory\\.w\\d+\\.n32$`));
      expect(state0.instances?.['window-http']?.states[id]?.bytesStored).toBeGreaterThan(0);
    }
    expect(Object.values(state0.instances?.['leaky-http']?.states ?? {})).toEqual([null, null]);

    // the servers restart empty (a study moved to another machine): their state is imported
    await restartServers();
    // s1 is interrupted before its first request, then resumed: an in-process memory imports
    // again (it died with the process), a served one keeps what its session start imported
    const stopped = new AbortController();
    stopped.abort();
    const interrupted = await chi(['study', 'run', 'st'], at(1), stopped.signal);
    expect(interrupted.code).toBe(3);
    const s1 = await chi(['study', 'run', 'st'], at(1));
    expect(s1.code, s1.err).toBe(0);
    const state1 = json<StudyState>(paths().sessionState(1));
    expect(Object.keys(state1.instances?.['window-http']?.states ?? {})).toEqual(windowIds);
    for (const system of ['keyword-store', 'window', 'window-http', 'keyword-http'])
      expect(state1.instances?.[system], system).toEqual(state0.instances?.[system]);
    // what the systems recalled a day later equals what they recalled right after encoding
    const before = retrieval(0);
    const after = retrieval(1);
    for (const [key, value] of before) {
      if (key.startsWith('leaky-http')) continue;
      expect(value, key).toBeGreaterThan(0);
      expect(after.get(key), key).toBe(value);
    }
    const report = readFileSync(paths().reportMarkdown, 'utf8');
    expect(report).toMatch(/- leaky-http: the state lives in the system .* instance identity only/);
    expect(report).toMatch(/- window-http: state exported after each session/);
  });

  it('refuses a carried instance state edited after its session (exit 5), naming the file', async () => {
    writeStudy();
    expect((await chi(['study', 'run', 'st'], DAY0)).code).toBe(0);
    const state = json<StudyState>(paths().sessionState(0));
    const carried = state.instances?.['keyword-store'] as NonNullable<
      StudyState['instances']
    >[string];
    const [id] = Object.keys(carried.states) as [string];
    carried.states[id] = { state: { records: [] }, bytesStored: 0 };
    writeFileSync(paths().sessionState(0), JSON.stringify(state));
    const refused = await chi(['study', 'run', 'st'], at(1));
    expect(refused.code).toBe(5);
    expect(refused.err).toContain('s0.state.json');
  });

  it('runs a session of such a system unsharded only (a usage error names them)', async () => {
    writeStudy();
    expect((await chi(['study', 'freeze', 'st'], DAY0)).code).toBe(0);
    const refused = await chi(['study', 'run', 'st', '--shard', '1/2'], DAY0);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(
      'keyword-store, window, window-http, keyword-http, leaky-http keep their own memory',
    );
  });
});
