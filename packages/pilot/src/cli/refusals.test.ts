import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { canonicalJson, sha256Hex } from '@chi/run';
import type { AttemptRecord, RunManifest, RunStatus } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { toLegacyLayout } from '../__fixtures__/legacy-layout';
import { serveScriptedSystem } from '../endpoints/serve';
import { runCli } from './cli-main';

// Issue #33 items 8 and 9: damaged folders and ambiguous options, each refused with the exit code
// of the one table and a message naming the file or the flag.

const root = mkdtempSync(join(tmpdir(), 'chi-refusals-'));
const pristine = join(root, 'pristine');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const io = (env: Record<string, string> = {}) => captureIo({ cwd: root, env });

beforeAll(async () => {
  const cli = io();
  const small = ['--replicates', '1', '--loads', '32', '--no-controls', '--no-history'];
  const args = ['pilot', '--systems', 'perfect,abstainer', ...small, '--no-behavior'];
  expect(await runCli([...args, '--no-release', '--out', pristine], cli.io), cli.err()).toBe(0);
});

let copies = 0;
function copy(): string {
  copies += 1;
  const dir = join(root, `copy-${copies}`);
  cpSync(pristine, dir, { recursive: true });
  return dir;
}

async function run(argv: readonly string[], env: Record<string, string> = {}) {
  const cli = io(env);
  const code = await runCli(argv, cli.io);
  return { code, err: cli.err() };
}

function answered(dir: string): AttemptRecord {
  return readFileSync(join(dir, 'attempts.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as AttemptRecord)
    .find((record) => record.phase === 'after_response') as AttemptRecord;
}

describe('damaged run folders: exit 5 naming the file (item 8)', () => {
  for (const file of ['manifest.sha256', 'plan.json']) {
    it(`a deleted ${file}`, async () => {
      const dir = copy();
      rmSync(join(dir, file));
      for (const argv of [
        ['pilot', '--resume', dir],
        ['score', dir, '--no-release'],
      ]) {
        const result = await run(argv);
        expect(result.code, result.err).toBe(5);
        expect(result.err).toContain(`damaged run folder: ${join(dir, file)}: it is missing`);
      }
    });
  }

  it('an edited answer key', async () => {
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
    // (scored when the release is written: `--no-release` scores nothing)
    for (const argv of [
      ['pilot', '--resume', dir],
      ['score', dir],
    ]) {
      const result = await run(argv);
      expect(result.code, result.err).toBe(5);
      expect(result.err).toContain(`worlds/memory/${name}`);
    }
  });

  it('a raised ceiling with the manifest hash rewritten names the manifest, not the ledger', async () => {
    // a live endpoint run, so that the folder has a ledger that records the first ceiling
    const server = await serveScriptedSystem({ system: 'capacity-keeper' });
    try {
      const dir = join(root, 'ceiling');
      const created = await run([
        'pilot',
        '--base-url',
        server.baseUrl,
        '--models',
        server.model,
        '--ceiling-usd',
        '1',
        '--replicates',
        '1',
        '--loads',
        '32',
        '--no-history',
        '--no-behavior',
        '--no-release',
        '--out',
        dir,
      ]);
      expect(created.code, created.err).toBe(0);
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as RunManifest;
      const text = canonicalJson({ ...manifest, ceilingUsd: 1000 });
      writeFileSync(join(dir, 'manifest.json'), text);
      writeFileSync(join(dir, 'manifest.sha256'), `${sha256Hex(text)}  manifest.json\n`);
      const result = await run(['pilot', '--resume', dir]);
      expect(result.code, result.err).toBe(5);
      expect(result.err).toContain(`damaged run folder: ${join(dir, 'manifest.json')}`);
      expect(result.err).toContain('ceiling');
      expect(result.err).not.toContain('ledger');
    } finally {
      await server.close();
    }
  });

  it('an unreadable world file is reported as unreadable, not missing', async () => {
    const dir = copy();
    const [name] = readdirSync(join(dir, 'worlds', 'memory'));
    const file = join(dir, 'worlds', 'memory', name as string);
    rmSync(file);
    symlinkSync(file, file); // a link to itself: there, but it cannot be opened (ELOOP)
    const result = await run(['pilot', '--resume', dir]);
    expect(result.code, result.err).toBe(5);
    expect(result.err).toContain(`${file}: the world file is unreadable`);
    expect(result.err).not.toContain('missing');
  });

  it('an edited inputBytes in requests.jsonl is refused by resume and score', async () => {
    const dir = copy();
    const record = answered(dir);
    const index = join(dir, 'requests.jsonl');
    const edited = readFileSync(index, 'utf8').replace(
      new RegExp(`("requestId":"${record.requestId}"[^\\n]*"inputBytes":)(\\d+)`),
      (_all, head: string, bytes: string) => `${head}${Number(bytes) - 1000}`,
    );
    expect(edited).not.toBe(readFileSync(index, 'utf8'));
    writeFileSync(index, edited);
    for (const argv of [
      ['pilot', '--resume', dir],
      ['score', dir, '--no-release'],
    ]) {
      const result = await run(argv);
      expect(result.code, result.err).toBe(5);
      expect(result.err).toContain(`${index}: the line of ${record.requestId}: its inputBytes`);
    }
  });

  it('an edited layout-0.1 requests/<id>.json is refused by resume and score', async () => {
    const dir = copy();
    await toLegacyLayout(dir);
    const record = answered(dir);
    const file = join(dir, 'requests', `${record.requestId}.json`);
    const request = JSON.parse(readFileSync(file, 'utf8')) as {
      messages: { content: string }[];
    };
    const first = request.messages[0] as { content: string };
    first.content = `${first.content} (edited)`;
    writeFileSync(file, JSON.stringify(request, null, 2));
    for (const argv of [
      ['pilot', '--resume', dir],
      ['score', dir, '--no-release'],
    ]) {
      const result = await run(argv);
      expect(result.code, result.err).toBe(5);
      expect(result.err).toContain(`${file}: its messages hash to`);
    }
  });
});

describe('ambiguous options are refused, naming the flag (items 8 and 9)', () => {
  const endpoint = ['--base-url', 'http://127.0.0.1:9/v1', '--models', 'm', '--ceiling-usd', '1'];

  it('--prices naming a folder', async () => {
    const folder = join(root, 'prices-folder');
    mkdirSync(folder, { recursive: true });
    const result = await run(['pilot', ...endpoint, '--prices', folder]);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`--prices: Invalid ${folder}`);
    expect(result.err).toContain('is a folder');
  });

  it('--price with an amount that is not finite names the flag', async () => {
    const result = await run(['pilot', ...endpoint, '--price', 'm=1e400,1']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('--price: expected finite USD amounts');
    expect(result.err).not.toContain('safetyPrice');
  });

  it('two --price for one model', async () => {
    const result = await run(['pilot', ...endpoint, '--price', 'm=1,1', '--price', 'm=0,0']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('--price: m is priced twice');
  });

  it('--price for a model not in --models', async () => {
    const result = await run(['pilot', ...endpoint, '--price', 'other=1,1']);
    expect(result.code).toBe(2);
    expect(result.err).toContain('--price: other is not a model of this run (m)');
  });

  it('--price or --prices on an offline run', async () => {
    for (const flag of [
      ['--price', 'm=1,1'],
      ['--prices', 'prices.json'],
    ]) {
      const result = await run(['pilot', '--systems', 'perfect', ...flag]);
      expect(result.code).toBe(2);
      expect(result.err).toContain(`${flag[0]}: declared prices apply to live models`);
    }
  });
});

describe('a resume never runs without what the run started with (item 9)', () => {
  it('a --base-url resume whose key variable is unset is refused before anything is sent', async () => {
    const server = await serveScriptedSystem({ system: 'capacity-keeper' });
    try {
      const dir = join(root, 'keyed');
      const key = { OPENAI_API_KEY: 'sk-test-endpoint-key-0123456789' };
      const args = ['--replicates', '1', '--loads', '32', '--no-history', '--no-behavior'];
      const created = await run(
        [
          'pilot',
          '--base-url',
          server.baseUrl,
          '--models',
          server.model,
          '--ceiling-usd',
          '1',
          ...args,
          '--no-release',
          '--out',
          dir,
        ],
        key,
      );
      expect(created.code, created.err).toBe(0);
      const before = readFileSync(join(dir, 'attempts.jsonl'), 'utf8');
      const result = await run(['pilot', '--resume', dir]);
      expect(result.code).toBe(2);
      expect(result.err).toContain('OPENAI_API_KEY is not set');
      expect(readFileSync(join(dir, 'attempts.jsonl'), 'utf8')).toBe(before);
      expect((await run(['pilot', '--resume', dir, '--no-release'], key)).code).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('counts the resumes of a run killed in its smoke checks', async () => {
    const server = await serveScriptedSystem({ system: 'capacity-keeper' });
    try {
      const dir = join(root, 'smoke-killed');
      const args = ['--replicates', '1', '--loads', '32', '--no-history', '--no-behavior'];
      const base = ['pilot', '--base-url', server.baseUrl, '--models', server.model];
      const first = await run([
        ...base,
        '--ceiling-usd',
        '1',
        ...args,
        '--no-release',
        '--out',
        dir,
      ]);
      expect(first.code, first.err).toBe(0);
      // As a run killed in its smoke checks leaves it: created, no attempt, no smoke result.
      writeFileSync(join(dir, 'attempts.jsonl'), '');
      rmSync(join(dir, 'smoke.jsonl'), { force: true });
      rmSync(join(dir, 'smoke-ledger.jsonl'), { force: true });
      rmSync(join(dir, 'ledger.jsonl'), { force: true });
      const status = JSON.parse(readFileSync(join(dir, 'status.json'), 'utf8')) as RunStatus;
      const { attemptLog: _anchor, ...fresh } = status;
      writeFileSync(
        join(dir, 'status.json'),
        JSON.stringify({ ...fresh, state: 'running', resumes: 0, exitCode: null }),
      );
      for (const file of readdirSync(join(dir, 'payloads'))) rmSync(join(dir, 'payloads', file));
      writeFileSync(join(dir, 'requests.jsonl'), '');
      // each resume is counted, although the log had no record when it started
      for (let resume = 1; resume <= 2; resume += 1) {
        const result = await run(['pilot', '--resume', dir, '--no-release']);
        const after = JSON.parse(readFileSync(join(dir, 'status.json'), 'utf8')) as RunStatus;
        expect(after.resumes, result.err).toBe(resume);
      }
    } finally {
      await server.close();
    }
  });
});

describe('every manifest input that sets spend is frozen (docs/run-folder-integrity.md)', () => {
  // Each field changes what a request reserves or may be charged; each edit is refused on resume,
  // with the manifest hash rewritten (exit 5 naming manifest.json) or not (naming the mismatch).
  const edits: readonly [string, (manifest: RunManifest) => RunManifest][] = [
    ['ceilingUsd', (m) => ({ ...m, ceilingUsd: m.ceilingUsd * 10 })],
    ['reservationMargin', (m) => ({ ...m, reservationMargin: 0 })],
    ['deadlineMs', (m) => ({ ...m, deadlineMs: m.deadlineMs * 2 })],
    ['retry', (m) => ({ ...m, retry: { ...m.retry, maxRetries: m.retry.maxRetries + 5 } })],
    ['maxOutputTokens', (m) => ({ ...m, maxOutputTokens: m.maxOutputTokens * 2 })],
    [
      'systems[].maxOutputTokens',
      (m) => ({ ...m, systems: m.systems.map((s) => ({ ...s, maxOutputTokens: 1 })) }),
    ],
    [
      'systems[].safetyPrice (declared prices)',
      (m) => ({
        ...m,
        systems: m.systems.map((s) => ({
          ...s,
          safetyPrice: { inputUsdPerToken: 0, outputUsdPerToken: 0, requestUsd: 0 },
        })),
      }),
    ],
    [
      'systems[].baseUrl',
      (m) => ({
        ...m,
        systems: m.systems.map((s) => ({ ...s, baseUrl: 'http://127.0.0.1:9/v1' })),
      }),
    ],
  ];
  let live: string;
  let server: Awaited<ReturnType<typeof serveScriptedSystem>>;

  beforeAll(async () => {
    server = await serveScriptedSystem({ system: 'capacity-keeper' });
    live = join(root, 'priced');
    const args = ['--replicates', '1', '--loads', '32', '--no-history', '--no-behavior'];
    const created = await run([
      'pilot',
      '--base-url',
      server.baseUrl,
      '--models',
      server.model,
      '--price',
      `${server.model}=0.2,0.6`,
      '--ceiling-usd',
      '1',
      ...args,
      '--no-release',
      '--out',
      live,
    ]);
    expect(created.code, created.err).toBe(0);
  });
  afterAll(() => server.close());

  for (const [field, edit] of edits) {
    it(`manifest ${field}`, async () => {
      for (const rewriteHash of [true, false]) {
        copies += 1;
        const dir = join(root, `spend-${copies}`);
        cpSync(live, dir, { recursive: true });
        const manifest = JSON.parse(
          readFileSync(join(dir, 'manifest.json'), 'utf8'),
        ) as RunManifest;
        const text = canonicalJson(edit(manifest));
        writeFileSync(join(dir, 'manifest.json'), text);
        if (rewriteHash)
          writeFileSync(join(dir, 'manifest.sha256'), `${sha256Hex(text)}  manifest.json\n`);
        const result = await run(['pilot', '--resume', dir]);
        expect(result.code, result.err).toBe(5);
        expect(result.err).toContain(
          rewriteHash
            ? `damaged run folder: ${join(dir, 'manifest.json')}`
            : `manifest.json in ${dir} hashes to`,
        );
      }
    });
  }
});
