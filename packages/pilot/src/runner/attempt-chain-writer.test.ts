import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJsonlWriter, type JsonlWriter } from '@chi/run';
import { type AttemptLogAnchor, attemptRecordSha256 } from '@chi/run/internal';
import { type AttemptRecord, AttemptRecordSchema } from '@chi/spec';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chainAttemptWriter } from './attempt-chain-writer';

const K = 8;
const START = { records: 0, headSha256: null, chained: true };

function beforeSend(index: number): Omit<AttemptRecord, 'previousSha256'> {
  return {
    kind: 'attempt',
    manifestSha256: 'a'.repeat(64),
    attemptId: `r${index}#1`,
    requestId: `r${index}`,
    systemId: 'scripted',
    blockId: 'b',
    phase: 'before_send',
    at: '2026-12-03T18:00:00.000Z',
    requestSha256: 'b'.repeat(64),
    inputBytes: 10,
    result: null,
  };
}

/** A JSONL writer whose appends resolve only when the test commits them (one "fsync" each call). */
function gatedWriter() {
  const pending: Array<() => void> = [];
  const written: AttemptRecord[] = [];
  const writer: JsonlWriter<AttemptRecord> = {
    path: '/gated',
    fsync: 'every-line',
    recoveredTornTail: null,
    append(record) {
      written.push(record);
      return new Promise<void>((resolve) => pending.push(resolve));
    },
    flush: async () => {},
    close: async () => {},
  };
  const commit = () => {
    for (const resolve of pending.splice(0)) resolve();
  };
  return { writer, written, commit };
}

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-chain-writer-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(root, { recursive: true, force: true });
});

describe('the attempts.head.json anchor is a group commit', () => {
  it('K appends made durable together share one anchor write, written only after they are durable', async () => {
    const { writer, written, commit } = gatedWriter();
    const anchors: Array<{ records: number; headSha256: string | null }> = [];
    const chain = await chainAttemptWriter(writer, START, '/anchor', async (_path, anchor) => {
      anchors.push(anchor);
    });
    const appends = Array.from({ length: K }, (_, index) => chain.append(beforeSend(index)));
    await new Promise((resolve) => setImmediate(resolve));
    // Nothing is durable yet: the anchor is still the session's first one, never ahead of the log.
    expect(anchors).toEqual([{ records: 0, headSha256: null }]);
    commit();
    await Promise.all(appends);
    const last = written[K - 1] as AttemptRecord;
    expect(anchors).toEqual([
      { records: 0, headSha256: null },
      { records: K, headSha256: attemptRecordSha256(last) },
    ]);
  });

  it('appends that become durable while an anchor is written share the next one', async () => {
    const { writer, commit } = gatedWriter();
    const anchors: number[] = [];
    let releaseFirst: () => void = () => {};
    const chain = await chainAttemptWriter(writer, START, '/anchor', async (_path, anchor) => {
      anchors.push(anchor.records);
      if (anchor.records === 1) await new Promise<void>((resolve) => (releaseFirst = resolve));
    });
    const first = chain.append(beforeSend(0));
    commit();
    await new Promise((resolve) => setImmediate(resolve));
    expect(anchors).toEqual([0, 1]);
    // While anchor 1 is being written, K more records become durable (two commits).
    const more = Array.from({ length: K }, (_, index) => chain.append(beforeSend(index + 1)));
    commit();
    await new Promise((resolve) => setImmediate(resolve));
    expect(anchors).toEqual([0, 1]);
    releaseFirst();
    await Promise.all([first, ...more]);
    expect(anchors).toEqual([0, 1, K + 1]);
  });

  it("a failed anchor rejects the appends of its group only; the next group's anchor follows", async () => {
    const { writer, commit } = gatedWriter();
    let fail = true;
    const chain = await chainAttemptWriter(writer, START, '/anchor', async (_path, anchor) => {
      if (anchor.records > 0 && fail) throw new Error('disk full');
    });
    const group = [chain.append(beforeSend(0)), chain.append(beforeSend(1))];
    commit();
    await expect(Promise.all(group)).rejects.toThrow('disk full');
    fail = false;
    const next = chain.append(beforeSend(2));
    commit();
    await expect(next).resolves.toBeUndefined();
  });

  it('appendDurable resolves once its record is durable, with its anchor still being written', async () => {
    const { writer, commit } = gatedWriter();
    const anchors: number[] = [];
    let release: () => void = () => {};
    const chain = await chainAttemptWriter(writer, START, '/anchor', async (_path, anchor) => {
      anchors.push(anchor.records);
      if (anchor.records === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const durable = chain.appendDurable(beforeSend(0));
    commit();
    await durable;
    // The anchor of record 1 is being written (held) and not yet covering it.
    expect(anchors).toEqual([0, 1]);
    let closed = false;
    const closing = chain.close().then(() => (closed = true));
    await new Promise((resolve) => setImmediate(resolve));
    // close waits for the anchor that covers the last record.
    expect(closed).toBe(false);
    release();
    await closing;
    expect(closed).toBe(true);
  });

  it('a failed anchor of durable-only records is covered by the next group, else close rejects', async () => {
    const { writer, commit } = gatedWriter();
    let fail = true;
    const chain = await chainAttemptWriter(writer, START, '/anchor', async (_path, anchor) => {
      if (anchor.records > 0 && fail) throw new Error('disk full');
    });
    const first = chain.appendDurable(beforeSend(0));
    commit();
    await expect(first).resolves.toBeUndefined();
    fail = false;
    const second = chain.append(beforeSend(1));
    commit();
    await expect(second).resolves.toBeUndefined();
    await expect(chain.close()).resolves.toBeUndefined();

    const gated = gatedWriter();
    const last = await chainAttemptWriter(gated.writer, START, '/anchor', async (_path, anchor) => {
      if (anchor.records > 0) throw new Error('disk full');
    });
    const only = last.appendDurable(beforeSend(0));
    gated.commit();
    await only;
    await expect(last.close()).rejects.toThrow('disk full');
  });

  it('on real files, K concurrent before_send records take one fdatasync and one anchor fsync', async () => {
    const logPath = join(root, 'attempts.jsonl');
    const anchorPath = join(root, 'attempts.head.json');
    const log = await createJsonlWriter({
      path: logPath,
      schema: AttemptRecordSchema,
      fsync: 'every-line',
    });
    const chain = await chainAttemptWriter(log, START, anchorPath);
    // Counts every sync of the process from here on (the injected counter): FileHandle's own.
    const probe = await open(logPath, 'r');
    const prototype = Object.getPrototypeOf(probe) as {
      sync: () => Promise<void>;
      datasync: () => Promise<void>;
    };
    await probe.close();
    const sync = vi.spyOn(prototype, 'sync');
    const datasync = vi.spyOn(prototype, 'datasync');
    await Promise.all(Array.from({ length: K }, (_, index) => chain.append(beforeSend(index))));
    expect(datasync).toHaveBeenCalledTimes(1);
    expect(sync).toHaveBeenCalledTimes(1);
    await chain.close();
    const lines = readFileSync(logPath, 'utf8').trim().split('\n');
    const anchor = JSON.parse(readFileSync(anchorPath, 'utf8')) as Omit<AttemptLogAnchor, 'file'>;
    expect(anchor).toEqual({
      records: K,
      headSha256: attemptRecordSha256(JSON.parse(lines[K - 1] as string) as AttemptRecord),
    });
  });
});
