import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isHistoryObservation, observationsOf } from '@chi/analysis';
import { extractJsonBlock } from '@chi/experiment';
import { verifyRelease } from '@chi/report';
import { readRunFolder, scoreRun } from '@chi/report/internal';
import { readAttemptLog } from '@chi/run';
import { attemptRecordSha256 } from '@chi/run/internal';
import type { AttemptRecord, BlockStatus, ChatResult, RenderedRequest, RunStatus } from '@chi/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toLegacyLayout } from '../__fixtures__/legacy-layout';
import { modelsForManifest } from '../endpoints/system-models';
import { finishRun } from '../pilot';
import { createRun } from '../run-folder/run-create';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { executeRun } from './run-execute';

// Issue 14 item 7: the runner (resume fold, blocks.json), the report's scorer and `chi verify` (which
// recomputes through the same scorer) are fed the same damaged run folder and must read it alike.

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-outcomes-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const jsonLines = (path: string): AttemptRecord[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AttemptRecord);

interface FinishedRun {
  readonly runDir: string;
  /** A history probe of history A at checkpoint 2, and its block. */
  readonly probe: string;
  readonly block: string;
  readonly models: ReturnType<typeof modelsForManifest>;
}

async function finishedRun(): Promise<FinishedRun> {
  const run = await createRun({
    settings: defaultOfflineSettings({
      systems: [scriptedSystemSpec('capacity-keeper')],
      replicates: 1,
      loads: [32],
    }),
    runDir: join(root, 'run'),
  });
  const models = modelsForManifest(run.frozen.manifest);
  await executeRun({ runDir: run.runDir, models });
  const probe = run.plan.requests.find(
    (request) =>
      request.task === 'history_probe' && request.history === 'A' && request.checkpoint === 2,
  );
  if (probe === undefined) throw new Error('the plan has no history probe');
  return { runDir: run.runDir, probe: probe.requestId, block: probe.blockId, models };
}

/**
 * Rewrites the `after_response` of `requestId` with `change` applied to its result, as if the run
 * had received that result: the attempt log's hash chain and its anchors in status.json and
 * attempts.head.json are recomputed (an edit that does not recompute them is refused as tampering).
 */
function damageResult(runDir: string, requestId: string, change: (r: ChatResult) => ChatResult) {
  const path = join(runDir, 'attempts.jsonl');
  let previous: string | null = null;
  const records = jsonLines(path).map((record) => {
    const changed: AttemptRecord = {
      ...(record.requestId === requestId &&
      record.phase === 'after_response' &&
      record.result !== null
        ? { ...record, result: change(record.result) }
        : record),
      previousSha256: previous,
    };
    previous = attemptRecordSha256(changed);
    return changed;
  });
  writeFileSync(path, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
  const statusPath = join(runDir, 'status.json');
  const status = JSON.parse(readFileSync(statusPath, 'utf8')) as RunStatus;
  writeFileSync(
    statusPath,
    JSON.stringify({ ...status, attemptLog: { records: records.length, headSha256: previous } }),
  );
  // and the second anchor, rewritten after every append (a consistent rewrite of every anchor)
  writeFileSync(
    join(runDir, 'attempts.head.json'),
    JSON.stringify({ records: records.length, headSha256: previous }),
  );
}

const unauthorized = (result: ChatResult): ChatResult => ({
  ...result,
  text: null,
  failure: 'http_fatal',
  failureDetail: 'HTTP 401: invalid API key',
  tries: [
    { ...(result.tries[0] as ChatResult['tries'][number]), status: 401, failure: 'http_fatal' },
  ],
});

/** A configuration failure: the response came back, but not from the registered setup. */
const misrouted =
  (failure: 'provider_not_allowed' | 'model_mismatch') =>
  (result: ChatResult): ChatResult => ({
    ...result,
    failure,
    failureDetail: `simulated ${failure}`,
  });

const notFound =
  (failure: 'no_route' | 'http_fatal') =>
  (result: ChatResult): ChatResult => ({
    ...result,
    text: null,
    failure,
    failureDetail: 'HTTP 404: No endpoints found matching your data policy',
    tries: [{ ...(result.tries[0] as ChatResult['tries'][number]), status: 404, failure }],
  });

describe('one definition of an outcome (runner, report, verify)', () => {
  it.each([
    [
      'provider_not_allowed',
      misrouted('provider_not_allowed'),
      'infrastructure failure: provider_not_allowed',
    ],
    ['model_mismatch', misrouted('model_mismatch'), 'infrastructure failure: model_mismatch'],
    ['no_route', notFound('no_route'), 'infrastructure failure: no_route'],
    [
      'http_fatal 404 (an older log)',
      notFound('http_fatal'),
      'infrastructure failure: no_route (HTTP 404)',
    ],
  ] as const)(
    'never scores a reply that failed as %s and makes its block incomplete everywhere',
    async (_name, change, reason) => {
      const { runDir, probe, block, models } = await finishedRun();
      damageResult(runDir, probe, change);
      await executeRun({ runDir, models });
      const pilotBlocks = JSON.parse(
        readFileSync(join(runDir, 'blocks.json'), 'utf8'),
      ) as BlockStatus[];
      const scores = scoreRun(await readRunFolder(runDir));
      expect(pilotBlocks.find((row) => row.blockId === block)).toMatchObject({
        status: 'incomplete',
        reasons: [`1 x ${reason}`],
      });
      expect(scores.blocks.find((row) => row.blockId === block)).toMatchObject({
        status: 'incomplete',
        reasons: [`1 x ${reason}`],
      });
      // The reply's text is kept in the log but never read: every decision of that probe is invalid.
      const observation = observationsOf(scores, 'history', isHistoryObservation).find(
        (row) => row.blockId === block,
      );
      expect(observation?.blockComplete).toBe(false);
      expect(observation?.unusableRequests.map((u) => u.requestId)).toEqual([probe]);
    },
  );

  it('marks a block with an HTTP 401 incomplete in blocks.json, the release and chi verify alike', async () => {
    const { runDir, probe, block, models } = await finishedRun();
    damageResult(runDir, probe, unauthorized);
    // The runner recomputes blocks.json on resume (nothing is left to send).
    await executeRun({ runDir, models });
    const pilotBlocks = JSON.parse(
      readFileSync(join(runDir, 'blocks.json'), 'utf8'),
    ) as BlockStatus[];
    const reportBlocks = scoreRun(await readRunFolder(runDir)).blocks;
    const statuses = (blocks: readonly { blockId: string; status: string }[]) =>
      Object.fromEntries(blocks.map((block) => [block.blockId, block.status]));
    expect(statuses(reportBlocks)).toEqual(statuses(pilotBlocks));
    expect(statuses(pilotBlocks)[block]).toBe('incomplete');
    expect(reportBlocks.find((row) => row.blockId === block)?.reasons).toEqual([
      '1 x account failure: HTTP 401',
    ]);
    // The release is written from the same records, and `chi verify` recomputes it and agrees.
    const releaseDir = await finishRun(runDir);
    if (releaseDir === null) throw new Error('no release written');
    const released = JSON.parse(
      readFileSync(join(releaseDir, 'scores', 'blocks.json'), 'utf8'),
    ) as BlockStatus[];
    expect(statuses(released)).toEqual(statuses(pilotBlocks));
    const verified = await verifyRelease(releaseDir);
    expect(verified.mismatches).toEqual([]);
    expect(verified.ok).toBe(true);
  });

  it('reads an attempt log whose last line lacks its newline the same way in runner and report', async () => {
    const { runDir } = await finishedRun();
    const path = join(runDir, 'attempts.jsonl');
    const records = jsonLines(path);
    const last = records[records.length - 1] as AttemptRecord;
    // A complete JSON record whose newline was never written: an unacknowledged append.
    appendFileSync(path, JSON.stringify({ ...last, attemptId: `${last.attemptId}-again` }));
    const runner = await readAttemptLog(path);
    const report = (await readRunFolder(runDir)).attempts;
    expect(runner).toHaveLength(records.length);
    expect(report).toHaveLength(runner.length);
  });

  it('refuses a rendered request with two QUESTIONS blocks in the scripted system and the scorer alike', async () => {
    const { runDir, probe } = await finishedRun();
    // a layout-0.1 request file can be edited in place (a 0.2 payload is refused by its hash)
    await toLegacyLayout(runDir);
    const file = join(runDir, 'requests', `${probe}.json`);
    const rendered = JSON.parse(readFileSync(file, 'utf8')) as RenderedRequest;
    const user = rendered.messages.find((message) => message.role === 'user');
    if (user === undefined) throw new Error('no user message');
    const questions = user.content.slice(user.content.indexOf('BEGIN QUESTIONS JSON'));
    const doubled = `${user.content}\n${questions.replace(/"id":"[^"]+"/, '"id":"decoy"')}`;
    writeFileSync(
      file,
      JSON.stringify({
        ...rendered,
        messages: rendered.messages.map((message) =>
          message === user ? { ...message, content: doubled } : message,
        ),
      }),
    );
    expect(() => extractJsonBlock(doubled, 'QUESTIONS')).toThrow(
      /expected one BEGIN QUESTIONS JSON line, found 2/,
    );
    const records = await readRunFolder(runDir);
    expect(() => scoreRun(records)).toThrow(/expected one BEGIN QUESTIONS JSON line, found 2/);
  });
});
