import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSha256Sums } from '@chi/report';
import type { AttemptRecord } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { fakeOpenRouter } from '../__fixtures__/fake-openrouter';
import { runCli } from './cli-main';

// The table of docs/run-folder-integrity.md ("Edits and which command detects them"): one row per
// file and kind of edit, each run through every command that reads the file. A row lists the
// commands that must refuse (resume and score: exit 5 naming the file; verify, on a release with
// the same edit and its SHA256SUMS rewritten to match: exit 1 naming it); a command not listed
// must accept the folder (the edit is harmless: another anchor still holds).

const root = mkdtempSync(join(tmpdir(), 'chi-integrity-table-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Command = 'resume' | 'score' | 'verify';
type Edit = 'edit' | 'delete' | 'truncate' | 'roll back' | 'swap';
type Tampered = 'run folder' | 'release';

interface Row {
  readonly file: string;
  readonly edit: Edit;
  readonly how: string;
  /** A live run (a ledger) instead of a scripted one. */
  readonly live?: boolean;
  readonly tamper: (dir: string, where: Tampered) => void;
  /** The commands that must refuse, and the file each names (default: the row's file). */
  readonly refusedBy: Partial<Record<Command, string | RegExp>>;
  /** Commands that must accept the edited folder (exit 0). */
  readonly acceptedBy?: readonly Command[];
}

const lines = (dir: string, file: string) =>
  readFileSync(join(dir, file), 'utf8').trimEnd().split('\n');
const writeLines = (dir: string, file: string, kept: readonly string[]) =>
  writeFileSync(join(dir, file), kept.map((line) => `${line}\n`).join(''));

function editAnswer(line: string): string {
  const record = JSON.parse(line) as AttemptRecord;
  if (record.phase !== 'after_response' || record.result === null)
    throw new Error('expected an answered record');
  return JSON.stringify({ ...record, result: { ...record.result, text: '[]' } });
}

function firstPrompt(dir: string): string {
  const [name] = readdirSync(join(dir, 'prompts')).sort();
  return `prompts/${name as string}`;
}

/** The ledger lines before its last reservation (a copy taken before the last requests). */
function rollBackLedger(dir: string): void {
  const entries = lines(dir, 'ledger.jsonl');
  const last = entries.findLastIndex((line) => line.includes('"kind":"reserve"'));
  writeLines(dir, 'ledger.jsonl', entries.slice(0, last));
}

const ROWS: readonly Row[] = [
  {
    file: 'attempts.jsonl',
    edit: 'edit',
    how: "the last record's answer, status.json deleted",
    tamper: (dir) => {
      const log = lines(dir, 'attempts.jsonl');
      log[log.length - 1] = editAnswer(log[log.length - 1] as string);
      writeLines(dir, 'attempts.jsonl', log);
      rmSync(join(dir, 'status.json'));
    },
    // a release has no private anchor: verify names the scores the recomputation contradicts
    refusedBy: { resume: 'attempts.jsonl', score: 'attempts.jsonl', verify: /scores\// },
  },
  {
    file: 'attempts.jsonl',
    edit: 'edit',
    how: 'an answer in the middle',
    tamper: (dir) => {
      const log = lines(dir, 'attempts.jsonl');
      const index = log.findIndex((line) => line.includes('"phase":"after_response"'));
      log[index] = editAnswer(log[index] as string);
      writeLines(dir, 'attempts.jsonl', log);
    },
    refusedBy: { resume: 'attempts.jsonl', score: 'attempts.jsonl', verify: 'attempts.jsonl' },
  },
  {
    file: 'attempts.jsonl',
    edit: 'truncate',
    how: 'the last two records cut',
    tamper: (dir) => writeLines(dir, 'attempts.jsonl', lines(dir, 'attempts.jsonl').slice(0, -2)),
    refusedBy: { resume: 'attempts.jsonl', score: 'attempts.jsonl', verify: 'attempts.jsonl' },
  },
  {
    file: 'attempts.jsonl',
    edit: 'delete',
    how: 'removed, status.json deleted too',
    tamper: (dir) => {
      rmSync(join(dir, 'attempts.jsonl'));
      rmSync(join(dir, 'status.json'));
    },
    refusedBy: { resume: 'attempts.jsonl', score: 'attempts.jsonl' },
  },
  {
    file: 'attempts.jsonl',
    edit: 'roll back',
    how: 'an earlier copy (the first half of the log), status.json deleted',
    tamper: (dir) => {
      const log = lines(dir, 'attempts.jsonl');
      writeLines(dir, 'attempts.jsonl', log.slice(0, Math.floor(log.length / 2)));
      rmSync(join(dir, 'status.json'), { force: true });
    },
    refusedBy: { resume: 'attempts.jsonl', score: 'attempts.jsonl' },
  },
  {
    file: 'attempts.jsonl',
    edit: 'swap',
    how: 'two records exchanged',
    tamper: (dir) => {
      const log = lines(dir, 'attempts.jsonl');
      [log[1], log[2]] = [log[2] as string, log[1] as string];
      writeLines(dir, 'attempts.jsonl', log);
    },
    refusedBy: { resume: 'attempts.jsonl', score: 'attempts.jsonl', verify: 'attempts.jsonl' },
  },
  {
    file: 'attempts.head.json',
    edit: 'delete',
    how: 'with status.json (to hide an edit of the last record)',
    tamper: (dir) => {
      rmSync(join(dir, 'attempts.head.json'));
      rmSync(join(dir, 'status.json'));
    },
    refusedBy: { resume: 'attempts.head.json', score: 'attempts.head.json' },
  },
  {
    file: 'attempts.head.json',
    edit: 'delete',
    how: 'alone (status.json still anchors the whole log)',
    tamper: (dir) => rmSync(join(dir, 'attempts.head.json')),
    refusedBy: {},
    acceptedBy: ['resume', 'score'],
  },
  {
    file: 'attempts.head.json',
    edit: 'truncate',
    how: 'cut mid-way (not JSON)',
    tamper: (dir) => {
      const text = readFileSync(join(dir, 'attempts.head.json'), 'utf8');
      writeFileSync(join(dir, 'attempts.head.json'), text.slice(0, 20));
    },
    refusedBy: { resume: 'attempts.head.json', score: 'attempts.head.json' },
  },
  {
    file: 'attempts.head.json',
    edit: 'roll back',
    how: 'an earlier head (fewer records), with status.json deleted',
    tamper: (dir) => {
      const log = lines(dir, 'attempts.jsonl');
      const head = JSON.parse(readFileSync(join(dir, 'attempts.head.json'), 'utf8')) as {
        records: number;
      };
      expect(head.records).toBe(log.length);
      // an earlier head claims a record that is now the one before the last: it hashes otherwise
      writeFileSync(
        join(dir, 'attempts.head.json'),
        JSON.stringify({ records: log.length - 1, headSha256: 'e'.repeat(64) }),
      );
      rmSync(join(dir, 'status.json'));
    },
    refusedBy: { resume: 'attempts.jsonl', score: 'attempts.jsonl' },
  },
  {
    file: 'status.json',
    edit: 'delete',
    how: 'alone (attempts.head.json still anchors the log)',
    tamper: (dir) => rmSync(join(dir, 'status.json')),
    refusedBy: {},
    acceptedBy: ['resume', 'score'],
  },
  {
    file: 'prompts/<name>@<version>.txt',
    edit: 'edit',
    how: 'one character added',
    tamper: (dir) => {
      const file = join(dir, firstPrompt(dir));
      writeFileSync(file, `${readFileSync(file, 'utf8')} `);
    },
    refusedBy: { resume: /prompts\//, score: /prompts\//, verify: /prompts\// },
  },
  {
    file: 'prompts/<name>@<version>.txt',
    edit: 'truncate',
    how: 'cut to half its bytes',
    tamper: (dir) => {
      const file = join(dir, firstPrompt(dir));
      const text = readFileSync(file, 'utf8');
      writeFileSync(file, text.slice(0, Math.floor(text.length / 2)));
    },
    refusedBy: { resume: /prompts\//, score: /prompts\//, verify: /prompts\// },
  },
  {
    file: 'prompts/<name>@<version>.txt',
    edit: 'delete',
    how: 'removed',
    tamper: (dir) => rmSync(join(dir, firstPrompt(dir))),
    refusedBy: { resume: /prompts\//, score: /prompts\//, verify: /prompts\// },
  },
  {
    file: 'ledger.jsonl',
    edit: 'delete',
    how: 'removed (live run)',
    live: true,
    tamper: (dir) => rmSync(join(dir, 'ledger.jsonl')),
    refusedBy: { resume: 'ledger.jsonl', score: 'ledger.jsonl', verify: 'ledger.jsonl' },
  },
  {
    file: 'ledger.jsonl',
    edit: 'roll back',
    how: 'the lines before its last reservation (live run)',
    live: true,
    tamper: rollBackLedger,
    refusedBy: { resume: 'ledger.jsonl', score: 'ledger.jsonl', verify: 'ledger.jsonl' },
  },
  {
    file: 'ledger.jsonl',
    edit: 'truncate',
    how: 'cut to its first third (live run)',
    live: true,
    tamper: (dir) => {
      const entries = lines(dir, 'ledger.jsonl');
      writeLines(dir, 'ledger.jsonl', entries.slice(0, Math.ceil(entries.length / 3)));
    },
    refusedBy: { resume: 'ledger.jsonl', score: 'ledger.jsonl', verify: 'ledger.jsonl' },
  },
];

const KEY = 'sk-or-v1-integrity-table-0123456789';
const fake = fakeOpenRouter({ answerWith: 'capacity-keeper', costUsd: 0.01 });
const io = () => captureIo({ cwd: root, env: { OPENROUTER_API_KEY: KEY }, fetch: fake.fetch });
const pristine = { scripted: join(root, 'scripted'), live: join(root, 'live') };
const SMALL = ['--replicates', '1', '--loads', '32', '--no-controls', '--no-history'];

beforeAll(async () => {
  const scripted = io();
  const args = [...SMALL, '--no-behavior', '--resamples', '20'];
  expect(
    await runCli(
      ['pilot', '--systems', 'perfect,abstainer', ...args, '--out', pristine.scripted],
      scripted.io,
    ),
    scripted.err(),
  ).toBe(0);
  const live = io();
  expect(
    await runCli(
      [
        'pilot',
        '--models',
        'moonshotai/kimi-k3@moonshotai/mxfp4',
        ...args,
        '--ceiling-usd',
        '5',
        '--out',
        pristine.live,
      ],
      live.io,
    ),
    live.err(),
  ).toBe(0);
});

let copies = 0;
function copyOf(row: Row): { folder: string; release: string } {
  copies += 1;
  const folder = join(root, `copy-${copies}`);
  cpSync(row.live === true ? pristine.live : pristine.scripted, folder, { recursive: true });
  const release = join(root, `release-${copies}`);
  cpSync(join(folder, 'release'), release, { recursive: true });
  rmSync(join(folder, 'release'), { recursive: true });
  return { folder, release };
}

function expectNamed(output: string, dir: string, named: string | RegExp): void {
  if (typeof named === 'string') expect(output).toContain(join(dir, named));
  else expect(output).toMatch(named);
}

async function run(command: Command, dir: string): Promise<{ code: number; output: string }> {
  const cli = io();
  const argv =
    command === 'resume'
      ? ['pilot', '--resume', dir, '--no-release']
      : command === 'score'
        ? ['score', dir, '--no-release']
        : ['verify', dir];
  const code = await runCli(argv, cli.io);
  return { code, output: `${cli.out()}${cli.err()}` };
}

describe('every edit of the integrity table is named by every command that reads the file', () => {
  it.each(ROWS.map((row) => [`${row.file}: ${row.edit}, ${row.how}`, row] as const))(
    '%s',
    async (_name, row) => {
      const { folder, release } = copyOf(row);
      row.tamper(folder, 'run folder');
      const sentBefore = fake.completions();
      for (const command of ['resume', 'score'] as const) {
        const named = row.refusedBy[command];
        const result = await run(command, folder);
        if (named !== undefined) {
          expect(result.code, result.output).toBe(5);
          expect(result.output).toContain('damaged run folder');
          expectNamed(result.output, folder, named);
          expect(result.output).not.toMatch(/\n\s+at /);
        } else if (row.acceptedBy?.includes(command)) {
          expect(result.code, result.output).toBe(0);
        }
      }
      // nothing is paid again by a refused resume
      if (row.refusedBy.resume !== undefined) expect(fake.completions()).toBe(sentBefore);
      const named = row.refusedBy.verify;
      if (named !== undefined) {
        row.tamper(release, 'release');
        await writeSha256Sums(release);
        const result = await run('verify', release);
        expect(result.code, result.output).toBe(1);
        if (typeof named === 'string') expect(result.output).toContain(named);
        else expect(result.output).toMatch(named);
      }
    },
  );

  it('the untouched folders resume, score and verify', async () => {
    for (const live of [false, true]) {
      const { folder, release } = copyOf({
        file: '',
        edit: 'edit',
        how: '',
        live,
        tamper: () => {},
        refusedBy: {},
      });
      for (const command of ['resume', 'score'] as const)
        expect((await run(command, folder)).code).toBe(0);
      expect((await run('verify', release)).code).toBe(0);
    }
  });
});
