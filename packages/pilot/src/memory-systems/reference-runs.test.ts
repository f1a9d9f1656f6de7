import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryScoresOf } from '../__fixtures__/memory-scores';
import { servedScriptedModels, withServedDeclarations } from '../endpoints/endpoint-models';
import { type ScriptedServer, serveScriptedSystem } from '../endpoints/serve';
import { runPilot } from '../pilot';
import type { PilotSettings } from '../pilot-settings';
import { defaultOfflineSettings, openAiCompatibleSystemSpec } from '../settings';
import { memoryReferenceSpec } from './reference-systems';
import { DEFAULT_WINDOW_RECORDS } from './window-store';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-memsys-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Records of a memory world at load N: N targets, N distractors, floor(N/4) updates and conflicts. */
const recordsAt = (load: number) => 2 * load + 2 * Math.floor(load / 4);

/** The window's derived EIMC on a grid: the largest load whose records all fit in K. */
const derivedWindowEimc = (loads: readonly number[], windowRecords: number) =>
  Math.max(...loads.filter((load) => recordsAt(load) <= windowRecords));

const LOADS = [32, 64, 128];
const common: Partial<PilotSettings> = {
  replicates: 3,
  loads: LOADS,
  history: false,
  behavior: false,
  resamples: 200,
};

interface EimcRow {
  readonly systemId: string;
  readonly tau: number;
  readonly value: number | null;
  readonly status: string;
}

function chartData(releaseDir: string): { eimc: EimcRow[]; bytesStored?: unknown[] } {
  return JSON.parse(readFileSync(join(releaseDir, 'chart-data', 'chart-data.json'), 'utf8'));
}

describe('reference memory systems in process', () => {
  let runDir: string;
  let releaseDir: string;
  beforeAll(async () => {
    runDir = join(root, 'in-process');
    const outcome = await runPilot({
      settings: defaultOfflineSettings({
        ...common,
        systems: ['window', 'keyword-store', 'leaky-store'].map((name) =>
          memoryReferenceSpec(name),
        ),
      }),
      runDir,
    });
    expect(outcome.execution.state).toBe('completed');
    releaseDir = outcome.releaseDir as string;
  }, 300_000);

  it('the window lands on its derived EIMC at every tau', () => {
    const derived = derivedWindowEimc(LOADS, DEFAULT_WINDOW_RECORDS);
    expect(derived).toBe(64);
    const rows = chartData(releaseDir).eimc.filter((row) => row.systemId === 'window');
    expect(rows.map((row) => row.tau).sort()).toEqual([0.7, 0.8, 0.9]);
    for (const row of rows) expect(row).toMatchObject({ value: derived, status: 'capacity' });
    const scores = memoryScoresOf(runDir);
    // every record fits: Q_M is exactly 1 up to the capacity
    expect(scores.get('window notebook 32')?.qualityScore).toBe(1);
    expect(scores.get('window notebook 64')?.qualityScore).toBe(1);
    // half the records fit at N = 128: each factor near K / R(N) = 0.5, far below 0.7
    expect(scores.get('window notebook 128')?.qualityScore ?? 1).toBeLessThan(0.7);
  });

  it('the keyword store fails every interference probe at every load', () => {
    const scores = memoryScoresOf(runDir);
    for (const load of LOADS) {
      const factors = scores.get(`keyword-store notebook ${load}`)?.factors;
      // a later lower-authority record always wins its reader: i = 0, so Q_M = 0
      expect(factors?.i).toBe(0);
      expect(scores.get(`keyword-store notebook ${load}`)?.qualityScore).toBe(0);
      // the authoritative update is also the latest record: its reader gets it right
      expect(factors?.u).toBe(1);
    }
  });

  it('a correct system abstains in the blank-memory control; the leaky reference does not', () => {
    const scores = memoryScoresOf(runDir);
    // r, s, u and i always expect a recorded value: a blank memory passes them with probability
    // 2^-32 per probe (t may expect "unknown", which an abstention gets right)
    for (const name of ['window', 'keyword-store']) {
      const blank = scores.get(`${name} blank 32`)?.factors;
      expect(blank).toMatchObject({ r: 0, s: 0, u: 0, i: 0 });
    }
    const leaky = scores.get('leaky-store blank 32')?.factors;
    expect(leaky?.r ?? 0).toBeGreaterThan(0.5);
    // the report flags the leak, names the system only, and says who held the memory
    const report = readFileSync(join(releaseDir, 'report.md'), 'utf8');
    const leakLine = report.split('\n').find((line) => line.startsWith('STATE LEAK')) ?? '';
    expect(leakLine).toContain('leaky-store (memory policy system) at N = 32');
    expect(leakLine).not.toContain('window (');
    expect(leakLine).not.toContain('keyword-store (');
    expect(report).toContain(
      'System boundary: window, keyword-store, leaky-store held their own memory',
    );
    // every system label carries its policy (markdown escapes the brackets)
    expect(report).toContain('window \\[memory: system\\]');
  });
});

/**
 * The keyword store's derived lure pass rate at load N: near-miss lures (half) share a key term
 * and always retrieve; a random lure retrieves nothing only when no stored term (4N of them: two
 * per key, 2N keys) is within one edit of either of its two terms (125 of the 32^4 terms each).
 */
const derivedLurePass = (load: number) => 0.5 * (1 - 125 / 32 ** 4) ** (8 * load);

describe('the keyword store as the load grows', () => {
  const loads = [64, 1024, 4096];
  let runDir: string;
  beforeAll(async () => {
    runDir = join(root, 'keyword-growth');
    const outcome = await runPilot({
      settings: defaultOfflineSettings({
        ...common,
        systems: [memoryReferenceSpec('keyword-store')],
        loads,
        probesPerStratum: 16,
        controlsAtLoad: null,
      }),
      runDir,
      release: false,
    });
    expect(outcome.execution.state).toBe('completed');
  }, 300_000);

  it('affirms more absent-key lures, as derived', () => {
    const scores = memoryScoresOf(runDir);
    const observed = loads.map(
      (load) => scores.get(`keyword-store notebook ${load}`)?.factors.oneMinusF ?? 1,
    );
    // derived: 0.470, 0.188, 0.010; 48 lures per load (3 worlds x 16)
    for (const [index, load] of loads.entries())
      expect(Math.abs((observed[index] as number) - derivedLurePass(load))).toBeLessThan(0.15);
    expect(observed[0]).toBeGreaterThan(observed[1] as number);
    expect(observed[1]).toBeGreaterThan(observed[2] as number);
  });
});

describe('reference memory systems over HTTP (chi serve --system NAME)', () => {
  const servers: ScriptedServer[] = [];
  afterAll(async () => Promise.all(servers.map((server) => server.close())));

  it('give the same replies and scores as in process', async () => {
    const names = ['window', 'keyword-store'];
    const systems = [];
    for (const name of names) {
      const server = await serveScriptedSystem({ system: name });
      servers.push(server);
      const declared = servedScriptedModels(await (await fetch(`${server.baseUrl}/models`)).json());
      systems.push(
        ...withServedDeclarations(
          [openAiCompatibleSystemSpec({ id: name, model: server.model, baseUrl: server.baseUrl })],
          declared,
        ),
      );
    }
    for (const system of systems) expect(system.memory).toBe('system');
    const settings = { ...common, replicates: 2, loads: [32, 64] };
    const overHttp = await runPilot({
      settings: defaultOfflineSettings({ ...settings, systems }),
      runDir: join(root, 'served'),
      env: {},
    });
    const inProcess = await runPilot({
      settings: defaultOfflineSettings({
        ...settings,
        systems: names.map((name) => memoryReferenceSpec(name)),
      }),
      runDir: join(root, 'in-process-pair'),
    });
    expect(overHttp.execution.state).toBe('completed');
    expect(overHttp.execution.incompleteBlocks).toBe(0);
    expect(memoryScoresOf(overHttp.runDir)).toEqual(memoryScoresOf(inProcess.runDir));
    const eimcOf = (outcome: typeof overHttp) =>
      chartData(outcome.releaseDir as string).eimc.map(({ systemId, tau, value, status }) => ({
        systemId,
        tau,
        value,
        status,
      }));
    expect(eimcOf(overHttp)).toEqual(eimcOf(inProcess));
    // bytes stored, exported in process and over POST .../chi/instances/{id}/export alike
    const storedOf = (outcome: typeof overHttp) =>
      chartData(outcome.releaseDir as string).bytesStored;
    expect(storedOf(overHttp)?.length).toBeGreaterThan(0);
    expect(storedOf(overHttp)).toEqual(storedOf(inProcess));
  }, 300_000);
});
