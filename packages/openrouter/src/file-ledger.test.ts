import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ledgerContract } from '../test/ledger-contract';
import { createFileLedger, type FileLedger, LedgerFileError } from './file-ledger';

const folder = await mkdtemp(join(tmpdir(), 'chi-ledger-'));
let counter = 0;
const nextPath = () => join(folder, `run-${counter++}`, 'ledger.jsonl');
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

ledgerContract('createFileLedger', (options) => createFileLedger({ ...options, path: nextPath() }));

const now = () => new Date('2026-09-01T10:00:00.000Z');
const opened: FileLedger[] = [];
async function open(options: Parameters<typeof createFileLedger>[0]): Promise<FileLedger> {
  const ledger = await createFileLedger({ now, ...options });
  opened.push(ledger);
  return ledger;
}
afterEach(async () => {
  for (const ledger of opened.splice(0)) await ledger.close();
});

async function lines(path: string): Promise<unknown[]> {
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

describe('createFileLedger', () => {
  it('has each entry on disk by the time its operation resolves', async () => {
    const path = nextPath();
    const ledger = await open({ path, ceilingUsd: 1 });
    expect(await lines(path)).toEqual([
      { kind: 'open', seq: 0, at: '2026-09-01T10:00:00.000Z', ceilingUsd: 1 },
    ]);
    await ledger.reserve({ attemptId: 'a#0', amountUsd: 0.25 });
    expect(await lines(path)).toHaveLength(2);
    await ledger.settle('res-1', { chargedUsd: 0.01, source: 'usage.cost' });
    expect(await lines(path)).toEqual(await ledger.entries());
  });

  it('survives a restart: reopening folds the same state, and seq continues', async () => {
    const path = nextPath();
    const first = await open({ path, ceilingUsd: 1 });
    await first.reserve({ attemptId: 'a', amountUsd: 0.2 });
    await first.settle('res-1', { chargedUsd: 0.15, source: 'usage.cost' });
    await first.reserve({ attemptId: 'b', amountUsd: 0.3 });
    await first.retain('res-3', 'timeout');
    const before = await first.state();
    await first.close();
    const second = await open({ path });
    expect(await second.state()).toEqual(before);
    expect(second.recovery).toEqual({ tornTail: null, retainedOrphans: [] });
    expect(await second.reserve({ attemptId: 'c', amountUsd: 0.1 })).toMatchObject({
      ok: true,
      reservationId: 'res-5',
    });
  });

  it('retains reservations left open by a process that stopped mid-attempt', async () => {
    const path = nextPath();
    const first = await open({ path, ceilingUsd: 1 });
    await first.reserve({ attemptId: 'a', amountUsd: 0.2 });
    await first.close();
    const second = await open({ path });
    expect(second.recovery.retainedOrphans).toEqual(['res-1']);
    expect(await second.state()).toMatchObject({ retainedUsd: 0.2, openReservations: 0 });
    expect((await lines(path)).at(-1)).toEqual({
      kind: 'retain',
      seq: 2,
      at: '2026-09-01T10:00:00.000Z',
      reservationId: 'res-1',
      reason: 'still open when the ledger was reopened: the outcome of its attempt is unknown',
    });
  });

  it('detects a torn last line and refuses to merge it; repair drops it and reports it', async () => {
    const path = nextPath();
    const first = await open({ path, ceilingUsd: 1 });
    await first.reserve({ attemptId: 'a', amountUsd: 0.2 });
    await first.settle('res-1', { chargedUsd: 0.1, source: 'usage.cost' });
    await first.close();
    // A crash while appending the next reservation leaves half a line.
    await appendFile(path, '{"kind":"reserve","seq":3,"at":"2026-09-01T10:00:00.000Z","reser');
    let caught: unknown;
    try {
      await createFileLedger({ path });
    } catch (error) {
      caught = error;
    }
    expect(LedgerFileError.isInstance(caught)).toBe(true);
    expect((caught as LedgerFileError).line).toBe(4);
    expect((caught as Error).message).toBe(
      `ledger file ${path} line 4: incomplete last line (64 bytes without a final newline): the process probably stopped while writing it; nothing it describes took effect. Reopen with repairTornTail: true to drop it (it is reported in ledger.recovery)`,
    );
    const repaired = await open({ path, repairTornTail: true });
    expect(repaired.recovery).toEqual({ tornTail: { line: 4, bytes: 64 }, retainedOrphans: [] });
    expect(await repaired.state()).toMatchObject({ settledUsd: 0.1, openReservations: 0 });
    await repaired.reserve({ attemptId: 'b', amountUsd: 0.1 });
    expect(await lines(path)).toHaveLength(4);
  });

  it('refuses a file altered in the middle, naming the line', async () => {
    const path = nextPath();
    const first = await open({ path, ceilingUsd: 1 });
    await first.reserve({ attemptId: 'a', amountUsd: 0.2 });
    await first.close();
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('"amountUsd":0.2', '"amountUsd":"0.2"'));
    await expect(createFileLedger({ path })).rejects.toThrow(
      `ledger file ${path} line 2: not a ledger entry: amountUsd: expected a finite USD amount`,
    );
    await writeFile(
      path,
      `${text}${JSON.stringify({ kind: 'settle', seq: 5, at: '2026-09-01T10:00:00.000Z', reservationId: 'res-1', chargedUsd: 0, source: 'x' })}\n`,
    );
    await expect(createFileLedger({ path, repairTornTail: true })).rejects.toThrow(
      `line 3: seq 5 is out of order: expected 2`,
    );
    // A torn tail after an altered line: the open fails and the file is left as it was.
    await writeFile(path, `${text}not json\n{"kind":"re`);
    await expect(createFileLedger({ path, repairTornTail: true })).rejects.toThrow(
      'line 3: not valid JSON (8 bytes)',
    );
    expect(await readFile(path, 'utf8')).toBe(`${text}not json\n{"kind":"re`);
    await writeFile(path, `${text}not json\n`);
    await expect(createFileLedger({ path })).rejects.toThrow('line 3: not valid JSON (8 bytes)');
  });

  it('needs a ceiling for a new file and refuses a different ceiling for an existing one', async () => {
    const path = nextPath();
    await expect(createFileLedger({ path })).rejects.toThrow(
      'ceilingUsd: required to create the new ledger file',
    );
    const first = await open({ path, ceilingUsd: 40 });
    await first.close();
    await expect(createFileLedger({ path, ceilingUsd: 50 })).rejects.toThrow(
      `records a ceiling of 40 USD, found 50 USD`,
    );
    expect((await (await open({ path, ceilingUsd: 40 })).state()).ceilingUsd).toBe(40);
  });

  it('refuses to open one file twice in a process, and rejects operations after close', async () => {
    const path = nextPath();
    const ledger = await open({ path, ceilingUsd: 1 });
    await expect(createFileLedger({ path })).rejects.toThrow('already open in this process');
    await ledger.close();
    await expect(ledger.reserve({ attemptId: 'a', amountUsd: 0.1 })).rejects.toThrow(
      'the ledger is closed',
    );
    const reopened = await open({ path });
    expect((await reopened.entries()).length).toBe(1);
  });
});
