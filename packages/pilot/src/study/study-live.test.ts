import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunManifest, type StudySessionRecord, StudySessionRecordSchema } from '@chi/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { fakeOpenRouter } from '../__fixtures__/fake-openrouter';
import { runCli } from '../cli/cli-main';
import { type ScriptedServer, serveScriptedSystem } from '../endpoints/serve';
import { type RewritingProxy, rewritingProxy } from './__fixtures__/rewriting-proxy';
import { studyPaths } from './study-folder';

const DAY0 = '2026-09-01T00:00:00.000Z';
const at = (day: number) => new Date(Date.parse(DAY0) + day * 86_400_000).toISOString();
/** A key in the environment: it must reach the endpoint and never a file of the study. */
const SECRET = 'sk-study-live-test-0123456789';

let root: string;
let server: ScriptedServer;
let proxy: RewritingProxy;
beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-study-live-'));
  // what `chi serve --system perfect` runs, on 127.0.0.1 port 0, behind a proxy that can change
  // the provider and model ID the replies name
  server = await serveScriptedSystem({ system: 'perfect' });
  proxy = await rewritingProxy(server.baseUrl);
});
afterEach(async () => {
  await proxy.close();
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

async function chi(args: readonly string[], clock: string) {
  const captured = captureIo({ cwd: root, env: { CHI_TEST_CLOCK: clock, OPENAI_API_KEY: SECRET } });
  const code = await runCli(args, captured.io);
  return { code, out: captured.out(), err: captured.err() };
}

const paths = () => studyPaths(join(root, 'st'));
const json = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;
const record = (k: number) =>
  StudySessionRecordSchema.parse(json<StudySessionRecord>(paths().sessionRecord(k)));

/** A study of the served system as a live endpoint model with a declared price. */
function writeStudy(ceilings: { perSessionUsd: number; totalUsd: number }, sessions = 3): void {
  mkdirSync(join(root, 'st'), { recursive: true });
  writeFileSync(
    paths().study,
    JSON.stringify({
      studyId: 'live',
      protocol: 'chi-pilot',
      systems: [
        {
          id: 'served',
          model: server.model,
          baseUrl: proxy.baseUrl,
          price: { inputUsdPerMillionTokens: 1, outputUsdPerMillionTokens: 2 },
        },
      ],
      experiments: { memory: { loads: [32] } },
      worldSeeds: { rootSeed: 20260901, replicates: 2 },
      schedule: [0, 1, 6].slice(0, sessions).map((afterPreviousDays) => ({ afterPreviousDays })),
      ceilings,
      primary: { session: 1, checkpoint: { experiment: 'memory', load: 32 } },
    }),
  );
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('a study of a live endpoint model (chi serve behind a loopback proxy)', () => {
  it('runs three sessions within the ceilings, records the returned models and flags a change', async () => {
    writeStudy({ perSessionUsd: 2, totalUsd: 5 });
    proxy.set({ provider: 'Alpha Cloud', costUsd: 0.0001 });
    const s0 = await chi(['study', 'run', 'st'], DAY0);
    expect(s0.code, s0.err).toBe(0);
    const s1 = await chi(['study', 'run', 'st'], at(1));
    expect(s1.code, s1.err).toBe(0);
    // the same model now served by another provider, then under another model ID
    proxy.set({ provider: 'Beta Cloud', model: `${server.model}-2026-10`, costUsd: 0.0001 });
    const s2 = await chi(['study', 'run', 'st'], at(7));
    expect(s2.out).toMatch(/WARNING: returned model or provider changed since s1 for served/);
    // another model ID than the requested one is never scored as the model: each such reply is a
    // model_mismatch failure (the session is recorded, incomplete, exit 3)
    expect(s2.code).toBe(3);
    const failures = readFileSync(join(paths().sessionRun(2), 'attempts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { result: { failure: string | null } | null })
      .flatMap((entry) => (entry.result === null ? [] : [entry.result.failure]));
    expect(new Set(failures)).toEqual(new Set(['model_mismatch']));

    // the frozen study manifest froze the system as the pilot resolves it (price, label)
    const frozen = json<{ systems: RunManifest['systems'] }>(paths().manifest);
    expect(frozen.systems[0]).toMatchObject({
      id: 'served',
      kind: 'openai-compatible',
      evidenceClass: 'scripted_baseline',
      safetyPrice: { inputUsdPerToken: 1e-6, outputUsdPerToken: 2e-6, requestUsd: 0 },
    });
    // spend: each session under min(perSessionUsd, totalUsd - spent), charged within it
    expect(record(0).ceilingUsd).toBe(2);
    expect(record(0).chargedUsd).toBeGreaterThan(0);
    expect(record(1).ceilingUsd).toBeCloseTo(Math.min(2, 5 - record(0).chargedUsd), 9);
    for (const k of [0, 1, 2])
      expect(record(k).chargedUsd).toBeLessThanOrEqual(record(k).ceilingUsd);
    // the returned model IDs and providers of every session, a change flagged
    expect(record(0).models).toEqual([
      { systemId: 'served', models: [server.model], providers: ['Alpha Cloud'] },
    ]);
    expect(record(1).modelChanges).toEqual([]);
    expect(record(2).models).toEqual([
      { systemId: 'served', models: [`${server.model}-2026-10`], providers: ['Beta Cloud'] },
    ]);
    expect(record(2).modelChanges).toEqual(['served']);
    const report = readFileSync(paths().reportMarkdown, 'utf8');
    expect(report).toContain('POSSIBLE PROVIDER-SIDE CHANGE: s2 (served)');
    // the key was read from the environment and reached no file of the study
    for (const file of filesUnder(paths().dir))
      expect(readFileSync(file, 'utf8').includes(SECRET), file).toBe(false);
    // the whole live study recomputes from its folder
    const verified = await chi(['verify', 'st'], at(8));
    expect(verified.code, verified.err).toBe(0);
  });

  it('refuses spend over the study ceiling before any request is sent', async () => {
    // a ceiling below one block's worst case: no block may start, nothing is sent
    writeStudy({ perSessionUsd: 0.001, totalUsd: 0.001 });
    const s0 = await chi(['study', 'run', 'st'], DAY0);
    expect(s0.code).toBe(3);
    expect(proxy.completions()).toBe(0);
    expect(server.requestCount()).toBe(0);
    expect(s0.err).toMatch(/ceiling of 0\.001000 USD allowed 0 of 2 block/);
    expect(existsSync(paths().sessionRecord(0))).toBe(false);
  });

  it('refuses a live study with a $0 ceiling, naming the field (exit 2)', async () => {
    writeStudy({ perSessionUsd: 0, totalUsd: 0 });
    const refused = await chi(['study', 'run', 'st'], DAY0);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('ceilings.perSessionUsd: expected a USD ceiling > 0');
    expect(refused.err).not.toMatch(/\n\s+at /);
    expect(existsSync(paths().manifest)).toBe(false);
    expect(proxy.completions()).toBe(0);
  });
});

describe('a study of an OpenRouter model (a fake OpenRouter behind an injected fetch)', () => {
  const OPENROUTER_KEY = 'sk-or-study-live-test-abcdef';
  async function chiOr(
    args: readonly string[],
    clock: string,
    fake: ReturnType<typeof fakeOpenRouter>,
    key = true,
  ) {
    const env = { CHI_TEST_CLOCK: clock, ...(key ? { OPENROUTER_API_KEY: OPENROUTER_KEY } : {}) };
    const captured = captureIo({ cwd: root, env, fetch: fake.fetch });
    const code = await runCli(args, captured.io);
    return { code, out: captured.out(), err: captured.err() };
  }
  function writeOpenRouterStudy(): void {
    mkdirSync(join(root, 'st'), { recursive: true });
    writeFileSync(
      paths().study,
      JSON.stringify({
        studyId: 'openrouter',
        protocol: 'chi-pilot',
        systems: [{ model: 'moonshotai/kimi-k3@moonshotai/mxfp4' }],
        experiments: { memory: { loads: [32] } },
        worldSeeds: { rootSeed: 20260901, replicates: 2 },
        schedule: [{ afterPreviousDays: 0 }, { afterPreviousDays: 1 }],
        ceilings: { perSessionUsd: 2, totalUsd: 4 },
        primary: { session: 1, checkpoint: { experiment: 'memory', load: 32 } },
      }),
    );
  }

  it('freezes the catalog once, runs every session under it, verifies, and refuses it edited', async () => {
    writeOpenRouterStudy();
    const fake = fakeOpenRouter({ answerWith: 'perfect' });
    // without the key nothing is frozen: it is read from the environment only
    const keyless = await chiOr(['study', 'run', 'st'], DAY0, fake, false);
    expect(keyless.code).toBe(2);
    expect(keyless.err).toContain('OPENROUTER_API_KEY');
    expect(existsSync(paths().manifest)).toBe(false);

    for (const [k, day] of [
      [0, 0],
      [1, 1],
    ] as const) {
      const session = await chiOr(['study', 'run', 'st'], at(day), fake);
      expect(session.code, session.err).toBe(0);
      expect(record(k).models).toEqual([
        { systemId: 'kimi-k3', models: ['moonshotai/kimi-k3'], providers: ['moonshotai/mxfp4'] },
      ]);
    }
    const frozen = json<{ catalogSha256: string }>(paths().manifest);
    for (const k of [0, 1])
      expect(json<RunManifest>(join(paths().sessionRun(k), 'manifest.json')).catalogSha256).toBe(
        frozen.catalogSha256,
      );
    expect(fake.authorizations.every((header) => header === `Bearer ${OPENROUTER_KEY}`)).toBe(true);
    for (const file of filesUnder(paths().dir))
      expect(readFileSync(file, 'utf8').includes(OPENROUTER_KEY), file).toBe(false);
    const verified = await chiOr(['verify', 'st'], at(2), fake);
    expect(verified.code, verified.err).toBe(0);

    const catalog = readFileSync(paths().catalog, 'utf8');
    // the catalog edited after the study froze it: its hash no longer matches
    writeFileSync(paths().catalog, catalog.replace('"source":"', '"source":"edited '));
    expect(readFileSync(paths().catalog, 'utf8')).not.toBe(catalog);
    const refused = await chiOr(['verify', 'st'], at(2), fake);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('study-catalog.json');
  });
});
