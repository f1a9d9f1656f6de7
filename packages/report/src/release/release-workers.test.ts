import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidArgumentError, RunFolderDamagedError, ValidationError } from '@chi/spec';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../../tooling/vitest/child-bundle';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { FAILPOINT_EXIT_CODE } from '../failpoint';
import { verifyRelease } from '../verify/verify-release';
import {
  ReleaseWorkerCrashedError,
  releaseTasksOnWorkers,
  reviveError,
  serializeError,
  setReleaseWorkerEntry,
  startReleaseTask,
  streamReleaseTask,
  WORKERS_ENV,
} from './release-workers';
import { hashTree } from './sha256-sums';
import { writeRelease } from './write-release';

/**
 * `chi score` and `chi verify` with one thread and with a worker thread (`release-workers.ts`):
 * the same bytes, the same reports, the same errors. Under the test runner the worker starts from
 * a bundle of the sources (`nodeArgsFor`), as the built library starts `dist/release-worker.js`.
 */
describe('release worker threads', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let runDir: string;
  let workerBundle: URL;
  const saved = process.env[WORKERS_ENV];
  beforeAll(async () => {
    dir = await tempDir('release-workers');
    runDir = join(dir.path, 'run');
    await buildFixtureRun(runDir, {
      infrastructureFailures: ['forgetful.memory.w12.n16.probe.b0'],
      timeouts: ['keeper.behavior.w13.half2'],
    });
    const args = await nodeArgsFor(join(import.meta.dirname, 'release-worker.ts'));
    workerBundle = pathToFileURL(args.at(-1) as string);
  });
  afterAll(async () => dir.remove());
  afterEach(() => {
    setReleaseWorkerEntry(null);
    if (saved === undefined) delete process.env[WORKERS_ENV];
    else process.env[WORKERS_ENV] = saved;
  });
  const threads = (count: number) => {
    process.env[WORKERS_ENV] = String(count);
    setReleaseWorkerEntry(count > 1 ? workerBundle : null);
  };

  it('writes and verifies the same release, byte for byte, with one, two and three threads', async () => {
    const written: Record<number, string> = {};
    const reports: unknown[] = [];
    // the tasks on worker threads: none with one thread; with two, the raw files (score) and the
    // hash checks (verify); with three, the block scoring of both besides
    for (const [count, tasks] of [
      [1, 0],
      [2, 2],
      [3, 3],
    ] as const) {
      threads(count);
      const before = releaseTasksOnWorkers();
      written[count] = join(dir.path, ['one', 'two', 'three'][count - 1] as string);
      await writeRelease({ runDir, outDir: written[count] as string });
      reports.push(await verifyRelease(written[count] as string));
      expect(releaseTasksOnWorkers() - before, `${count} threads`).toBe(tasks);
    }
    const one = await hashTree(written[1] as string);
    expect(await hashTree(written[2] as string)).toEqual(one);
    expect(await hashTree(written[3] as string)).toEqual(one);
    expect((reports[0] as { ok: boolean }).ok).toBe(true);
    expect(reports[1]).toEqual(reports[0]);
    expect(reports[2]).toEqual(reports[0]);
  });

  it('reports a damaged release the same way with worker threads', async () => {
    const release = join(dir.path, 'two');
    await writeFile(join(release, 'usage.csv'), 'edited\n');
    await writeFile(join(release, 'manifest.sha256'), `${'0'.repeat(64)}  manifest.json\n`);
    const report = async (count: number) => {
      threads(count);
      return verifyRelease(release);
    };
    const inProcess = await report(1);
    expect(inProcess.ok).toBe(false);
    // a hash mismatch, a raw-record mismatch (a worker's) and a value mismatch (the main's)
    expect(inProcess.mismatches.map((m) => `${m.kind} ${m.file}`)).toEqual(
      expect.arrayContaining(['hash usage.csv', 'raw manifest.sha256', 'value usage.csv']),
    );
    expect(await report(2)).toEqual(inProcess);
    expect(await report(3)).toEqual(inProcess);
  });

  it('gives the typed error a task throws on a worker thread, as the in-process task does', async () => {
    const folder = join(dir.path, 'bad-jsonl');
    await mkdir(join(folder, 'staging'), { recursive: true });
    await writeFile(join(folder, 'failures.jsonl'), '{"a":1}\nnot json\n{"b":2}\n');
    const task = {
      runDir: folder,
      staging: join(folder, 'staging'),
      paths: ['failures.jsonl'],
      forbidden: [],
    };
    const errorOf = async (count: number) => {
      threads(count);
      const started = await startReleaseTask('write-raw-files', task);
      return started.result.catch((error: unknown) => error);
    };
    const before = releaseTasksOnWorkers();
    const inProcess = await errorOf(1);
    const onWorker = await errorOf(2);
    expect(releaseTasksOnWorkers()).toBe(before + 1);
    expect(InvalidArgumentError.isInstance(onWorker)).toBe(true);
    expect((onWorker as InvalidArgumentError).field).toBe('failures.jsonl line 2');
    expect((onWorker as Error).message).toBe((inProcess as Error).message);
    expect((onWorker as InvalidArgumentError).field).toBe(
      (inProcess as InvalidArgumentError).field,
    );
    // a file that is not there: the same system error, with its code
    task.paths = ['absent.json'];
    const absent = await errorOf(2);
    expect((absent as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect((absent as Error).message).toBe(((await errorOf(1)) as Error).message);
  });

  it('fails a damaged world the same way on a worker thread: the typed error naming the file', async () => {
    const damaged = join(dir.path, 'damaged-run');
    await cp(runDir, damaged, { recursive: true });
    const world = 'worlds/memory/w11-n8.json';
    const errorOf = async (count: number) => {
      threads(count);
      const outDir = join(dir.path, `damaged-release-${count}`);
      return writeRelease({ runDir: damaged, outDir }).catch((error: unknown) => error);
    };
    const original = await readFile(join(damaged, world), 'utf8');
    const answerKeyEdited = (() => {
      const parsed = JSON.parse(original);
      const entry = parsed.answerKey.find(
        (e: { expectedValue: string | null }) => e.expectedValue !== null,
      );
      entry.expectedValue = entry.expectedValue === '00000000' ? '11111111' : '00000000';
      return JSON.stringify(parsed);
    })();
    // read whole when the folder is read (on the main thread, before any worker), and read only
    // when its block is scored (on the worker)
    for (const [text, workers] of [
      ['{"not a world": ', 0],
      [answerKeyEdited, 2],
    ] as const) {
      await writeFile(join(damaged, world), text);
      const before = releaseTasksOnWorkers();
      const onWorker = await errorOf(3);
      expect(releaseTasksOnWorkers()).toBe(before + workers);
      const inProcess = await errorOf(1);
      expect(RunFolderDamagedError.isInstance(onWorker)).toBe(true);
      expect((onWorker as Error).message).toContain(world);
      expect((onWorker as Error).message).toBe((inProcess as Error).message);
      expect((onWorker as Error).name).toBe((inProcess as Error).name);
    }
    // nothing was left beside the release folders: the workers were stopped before the cleanup
    expect((await readdir(dir.path)).filter((name) => name.includes('.partial-'))).toEqual([]);
  });

  // A worker thread that exits or throws outside its task used to reject with a plain Error
  // ("exited with code N") or with the bare uncaught error, naming no worker: now a typed error
  // naming the task, for the started and the streamed tasks and through writeRelease.
  for (const action of ['exit', 'throw'] as const)
    it(`turns a worker thread that crashes (${action}) into ReleaseWorkerCrashedError naming its task, never a hang`, async () => {
      const saved = { point: process.env.CHI_FAILPOINT, action: process.env.CHI_FAILPOINT_ACTION };
      // read by each worker thread (it starts with a copy of this environment), not by this one
      process.env.CHI_FAILPOINT = 'release:worker:1';
      process.env.CHI_FAILPOINT_ACTION = action;
      try {
        threads(3);
        const reason =
          action === 'exit'
            ? `exit code ${FAILPOINT_EXIT_CODE}`
            : 'failpoint release:worker:1: thrown outside any task';
        const started = await startReleaseTask('verify-raw-records', {
          dir: join(dir.path, 'one'),
        });
        const failed = await started.result.catch((error: unknown) => error);
        expect(ReleaseWorkerCrashedError.isInstance(failed)).toBe(true);
        expect((failed as Error).message).toBe(
          `release worker (verify-raw-records) stopped unexpectedly: ${reason}`,
        );
        const stream = streamReleaseTask('score-blocks', { dir: runDir, release: false });
        if (stream === null) throw new Error('expected a worker thread');
        await expect(stream.result).rejects.toThrow(
          `release worker (score-blocks) stopped unexpectedly: ${reason}`,
        );
        await expect(
          (async () => {
            for await (const _ of stream.chunks);
          })(),
        ).rejects.toSatisfy(ReleaseWorkerCrashedError.isInstance);
        await stream.stop();
        const outDir = join(dir.path, `crashed-${action}`);
        const written = await writeRelease({ runDir, outDir }).catch((error: unknown) => error);
        expect(ReleaseWorkerCrashedError.isInstance(written)).toBe(true);
        expect((await readdir(dir.path)).filter((name) => name.startsWith('.crashed-'))).toEqual(
          [],
        );
      } finally {
        for (const [key, value] of [
          ['CHI_FAILPOINT', saved.point],
          ['CHI_FAILPOINT_ACTION', saved.action],
        ] as const)
          if (value === undefined) delete process.env[key];
          else process.env[key] = value;
      }
    });

  it('rebuilds the toolkit errors from their data with their class, fields and cause', () => {
    const damaged = new RunFolderDamagedError('worlds/memory/w1-n8.json.gz', 'not gzip', {
      cause: new InvalidArgumentError('worlds/memory/w1-n8.json.gz', 'bad header'),
    });
    const revived = reviveError(structuredClone(serializeError(damaged)));
    expect(RunFolderDamagedError.isInstance(revived)).toBe(true);
    expect(revived.message).toBe(damaged.message);
    expect((revived as RunFolderDamagedError).file).toBe(damaged.file);
    expect(InvalidArgumentError.isInstance(revived.cause)).toBe(true);
    const invalid = new ValidationError('memory world', [{ path: 'records[0]', message: 'x' }]);
    const back = reviveError(structuredClone(serializeError(invalid))) as ValidationError;
    expect(ValidationError.isInstance(back)).toBe(true);
    expect(back.issues).toEqual(invalid.issues);
    expect(back.message).toBe(invalid.message);
  });

  it('refuses a CHI_WORKERS that is not a positive integer, naming it', async () => {
    process.env[WORKERS_ENV] = 'two';
    const task = { runDir, staging: join(dir.path, 'unused'), paths: [], forbidden: [] };
    await expect(startReleaseTask('write-raw-files', task)).rejects.toThrow(
      /CHI_WORKERS: expected an integer >= 1, found two/,
    );
  });
});
