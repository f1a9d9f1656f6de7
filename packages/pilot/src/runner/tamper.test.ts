import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { canonicalJson, sha256Hex } from '@chi/run';
import type { AttemptRecord, ChatModel, RunStatus } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { toLegacyLayout } from '../__fixtures__/legacy-layout';
import { runCli } from '../cli/cli-main';
import { modelsForManifest } from '../endpoints/system-models';
import { createRun } from '../run-folder/run-create';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { executeRun } from './run-execute';

const root = mkdtempSync(join(tmpdir(), 'chi-tamper-'));
const pristine = join(root, 'pristine');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const io = () => captureIo({ cwd: root });

beforeAll(async () => {
  const cli = io();
  const code = await runCli(
    [
      'pilot',
      '--systems',
      'perfect,abstainer',
      '--replicates',
      '1',
      '--loads',
      '32',
      '--no-controls',
      '--no-history',
      '--no-behavior',
      '--resamples',
      '20',
      '--out',
      pristine,
    ],
    cli.io,
  );
  expect(code, cli.err()).toBe(0);
});

let copies = 0;
/** A fresh copy of the finished run folder, without its release. */
function copy(): string {
  copies += 1;
  const dir = join(root, `copy-${copies}`);
  cpSync(pristine, dir, { recursive: true });
  rmSync(join(dir, 'release'), { recursive: true, force: true });
  return dir;
}

function attempts(dir: string): AttemptRecord[] {
  return readFileSync(join(dir, 'attempts.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as AttemptRecord);
}

function writeAttempts(dir: string, records: readonly AttemptRecord[]): void {
  writeFileSync(join(dir, 'attempts.jsonl'), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

/** `chi pilot --resume` and `chi score` both refuse with exit 5, naming the damaged file. */
async function expectRefused(dir: string, file: string, problem: RegExp): Promise<void> {
  const resumed = io();
  expect(await runCli(['pilot', '--resume', dir], resumed.io)).toBe(5);
  expect(resumed.err()).toContain(`damaged run folder: ${join(dir, file)}`);
  expect(resumed.err()).toMatch(problem);
  const scored = io();
  expect(await runCli(['score', dir], scored.io)).toBe(5);
  expect(scored.err()).toContain(`damaged run folder: ${join(dir, file)}`);
}

describe('a tampered run folder is refused by resume and by chi score (exit 5)', () => {
  it('the untouched folder resumes and scores', async () => {
    const dir = copy();
    expect(await runCli(['pilot', '--resume', dir, '--no-release'], io().io)).toBe(0);
    expect(await runCli(['score', dir], io().io)).toBe(0);
  });

  it('an edited answer text', async () => {
    const dir = copy();
    const records = attempts(dir);
    const index = records.findIndex(
      (r) => r.phase === 'after_response' && r.systemId === 'abstainer',
    );
    const record = records[index] as AttemptRecord;
    records[index] = {
      ...record,
      result: { ...(record.result as NonNullable<AttemptRecord['result']>), text: '[]' },
    };
    writeAttempts(dir, records);
    await expectRefused(
      dir,
      'attempts.jsonl',
      /does not follow the record before it|does not hash to the head/,
    );
  });

  it('a record carrying another manifest hash', async () => {
    const dir = copy();
    const records = attempts(dir);
    records[0] = { ...(records[0] as AttemptRecord), manifestSha256: 'f'.repeat(64) };
    writeAttempts(dir, records);
    await expectRefused(dir, 'attempts.jsonl', /line 1 carries manifest hash f{64}/);
  });

  it('an emptied attempts.jsonl', async () => {
    const dir = copy();
    writeFileSync(join(dir, 'attempts.jsonl'), '');
    await expectRefused(dir, 'attempts.jsonl', /records were removed \(emptied or cut\)/);
  });

  it('manifest.json edited with manifest.sha256 rewritten', async () => {
    const dir = copy();
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      ceilingUsd: number;
    };
    manifest.ceilingUsd = 1000;
    const text = canonicalJson(manifest);
    writeFileSync(join(dir, 'manifest.json'), text);
    writeFileSync(join(dir, 'manifest.sha256'), `${sha256Hex(text)}  manifest.json\n`);
    const resumed = io();
    expect(await runCli(['pilot', '--resume', dir], resumed.io)).toBe(5);
    expect(resumed.err()).toMatch(
      /the manifest was changed after the run started|carries manifest hash/,
    );
    expect(await runCli(['score', dir], io().io)).toBe(5);
  });

  it('a missing payload: never silently rescored', async () => {
    const dir = copy();
    const record = attempts(dir).find(
      (r) => r.phase === 'after_response' && r.systemId === 'perfect',
    ) as AttemptRecord;
    rmSync(join(dir, 'payloads', `${record.requestSha256}.json.gz`));
    const scored = io();
    expect(await runCli(['score', dir], scored.io)).toBe(5);
    expect(scored.err()).toContain(join(dir, 'payloads', `${record.requestSha256}.json.gz`));
    expect(scored.err()).toContain('missing, but requests.jsonl names it');
  });

  it('an altered payload (other messages under the same name): refused by its hash', async () => {
    const dir = copy();
    const record = attempts(dir).find(
      (r) => r.phase === 'after_response' && r.systemId === 'perfect',
    ) as AttemptRecord;
    const file = join(dir, 'payloads', `${record.requestSha256}.json.gz`);
    const messages = JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as {
      content: string;
    }[];
    const altered = messages.map((m, i) => (i === 0 ? { ...m, content: `${m.content} ` } : m));
    writeFileSync(file, gzipSync(canonicalJson(altered)));
    const scored = io();
    expect(await runCli(['score', dir], scored.io)).toBe(5);
    expect(scored.err()).toContain(file);
    expect(scored.err()).toContain(
      `not to its name ${record.requestSha256}: the payload was altered`,
    );
  });

  it('a world whose answer key no longer follows from its records: its gzip file is named', async () => {
    const dir = copy();
    const [name] = readdirSync(join(dir, 'worlds', 'memory'));
    const file = join(dir, 'worlds', 'memory', name as string);
    const world = JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as {
      answerKey: { expectedValue: string | null }[];
    };
    const entry = world.answerKey.find((e) => e.expectedValue !== null) as {
      expectedValue: string;
    };
    entry.expectedValue = entry.expectedValue === '00000000' ? '11111111' : '00000000';
    writeFileSync(file, gzipSync(canonicalJson(world)));
    const scored = io();
    expect(await runCli(['score', dir], scored.io)).not.toBe(0);
    expect(scored.err()).toContain(`worlds/memory/${name}`);
    expect(name).toMatch(/\.json\.gz$/);
  });

  it('a payload that is not gzip: damaged, named', async () => {
    const dir = copy();
    const record = attempts(dir).find((r) => r.phase === 'after_response') as AttemptRecord;
    const file = join(dir, 'payloads', `${record.requestSha256}.json.gz`);
    writeFileSync(file, 'not gzip');
    const scored = io();
    expect(await runCli(['score', dir], scored.io)).toBe(5);
    expect(scored.err()).toContain(`${file}: not gzip`);
  });

  it('a request whose line was removed from requests.jsonl: never silently rescored', async () => {
    const dir = copy();
    const record = attempts(dir).find(
      (r) => r.phase === 'after_response' && r.systemId === 'perfect',
    ) as AttemptRecord;
    const index = join(dir, 'requests.jsonl');
    const kept = readFileSync(index, 'utf8')
      .split('\n')
      .filter((line) => !line.includes(`"requestId":"${record.requestId}"`));
    writeFileSync(index, kept.join('\n'));
    const scored = io();
    expect(await runCli(['score', dir], scored.io)).toBe(5);
    expect(scored.err()).toContain(join(dir, 'requests.jsonl'));
    expect(scored.err()).toContain(`no line for ${record.requestId}, but attempts.jsonl resolved`);
  });

  it('a layout-0.1 folder (requests/<id>.json) still scores the same; a missing file is damage', async () => {
    const dir = copy();
    await toLegacyLayout(dir);
    const scored = io();
    expect(await runCli(['score', dir], scored.io), scored.err()).toBe(0);
    const record = attempts(dir).find(
      (r) => r.phase === 'after_response' && r.systemId === 'perfect',
    ) as AttemptRecord;
    rmSync(join(dir, 'requests', `${record.requestId}.json`));
    const damaged = io();
    expect(await runCli(['score', dir], damaged.io)).toBe(5);
    expect(damaged.err()).toContain(join(dir, `requests/${record.requestId}.json`));
    expect(damaged.err()).toContain('scores need what was asked');
  });

  it('status.json records the chain head and counts a resume as soon as it starts', async () => {
    const dir = copy();
    const status = JSON.parse(readFileSync(join(dir, 'status.json'), 'utf8')) as RunStatus;
    expect(status.attemptLog?.records).toBe(attempts(dir).length);
    const settings = defaultOfflineSettings({
      systems: [scriptedSystemSpec('capacity-keeper')],
      replicates: 1,
      loads: [32],
      controlsAtLoad: null,
      history: false,
      behavior: false,
    });
    const run = await createRun({ settings, runDir: join(root, 'killed-resume') });
    const scripted = modelsForManifest(run.frozen.manifest).get('capacity-keeper') as ChatModel;
    // first session: stopped after its first request
    const stop = new AbortController();
    await executeRun({
      runDir: run.runDir,
      models: new Map([
        [
          'capacity-keeper',
          {
            ...scripted,
            generate: async (request) => {
              const result = await scripted.generate(request);
              stop.abort();
              return result;
            },
          },
        ],
      ]),
      concurrency: 1,
      signal: stop.signal,
    });
    // second session: its first request is held in flight; a kill now would leave status.json as it is
    let inFlight!: () => void;
    const called = new Promise<void>((resolve) => {
      inFlight = resolve;
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const session = executeRun({
      runDir: run.runDir,
      models: new Map([
        [
          'capacity-keeper',
          {
            ...scripted,
            generate: async (request) => {
              inFlight();
              await held;
              return scripted.generate(request);
            },
          },
        ],
      ]),
      concurrency: 1,
    });
    await called;
    const during = JSON.parse(readFileSync(join(run.runDir, 'status.json'), 'utf8')) as RunStatus;
    expect(during).toMatchObject({ state: 'running', resumes: 1 });
    release();
    await session;
    const after = JSON.parse(readFileSync(join(run.runDir, 'status.json'), 'utf8')) as RunStatus;
    expect(after).toMatchObject({ state: 'completed', resumes: 1 });
  });
});
