import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readAttemptLog } from '@chi/run';
import { runFolderPaths } from '@chi/run/internal';
import type { ChatModel, SystemSpec } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { testFolder } from '../__fixtures__/test-folder';
import type { InstanceModelFactory } from '../runner/execute-options';
import { divergenceSettings, runDivergenceProtocol, runDivergenceSession } from './run';
import { scriptedDivergenceInstance } from './scripted-divergence';

const AT = new Date('2026-09-01T00:00:00.000Z');

function releaseFiles(runDir: string): Record<string, string> {
  const dir = runFolderPaths(runDir).releaseDir;
  // every file of the release, nested ones (chis/, code/, payloads/, prompts/) included
  return Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
      .sort()
      .map((name) => [name, readFileSync(join(dir, name), 'latin1')]),
  );
}

/** A factory whose model throws (the process "dies") at the request `dies` names. */
function dyingAt(dies: (requestId: string) => boolean, real: InstanceModelFactory) {
  return (system: SystemSpec, blockId: string): ChatModel => {
    const model = real(system, blockId);
    return {
      ...model,
      generate: async (request) => {
        if (dies(request.requestId)) throw new Error('killed');
        return model.generate(request);
      },
    };
  };
}

describe('resuming a divergence run of in-process scripted systems', () => {
  it('rebuilds hidden state by local replay and publishes the uninterrupted release', async () => {
    const root = testFolder('chi-divergence-resume-');
    const reference = join(root, 'reference');
    await runDivergenceProtocol({ runDir: reference, worlds: 1, resamples: 20, now: () => AT });
    const runDir = join(root, 'crashed');
    // The hidden-state system's instance A dies mid-flight at checkpoint 3 (its before_send is on
    // disk, its result never is), after it ingested its history at checkpoint 1: its hidden state
    // must be rebuilt before anything new is sent to it.
    const dies = (id: string) => id.startsWith('hidden-state.divergence.') && id.includes('.A.c3.');
    await expect(
      runDivergenceSession({
        runDir,
        settings: divergenceSettings(1, { resamples: 20 }),
        now: () => AT,
        concurrency: 1,
        modelFor: dyingAt(dies, scriptedDivergenceInstance),
      }),
    ).rejects.toThrow('killed');
    const records = await readAttemptLog(runFolderPaths(runDir).attempts);
    const open = records.filter(
      (record) =>
        record.phase === 'before_send' &&
        !records.some((r) => r.attemptId === record.attemptId && r.phase === 'after_response'),
    );
    expect(open.map((record) => record.requestId).filter(dies)).toHaveLength(1);
    expect(
      records.some(
        (r) =>
          r.phase === 'after_response' &&
          r.requestId.includes('hidden-state.divergence.') &&
          r.requestId.includes('.A.c1.update'),
      ),
    ).toBe(true);
    await runDivergenceSession({ runDir, now: () => AT });
    const resumed = releaseFiles(runDir);
    const uninterrupted = releaseFiles(reference);
    expect(Object.keys(resumed)).toEqual(Object.keys(uninterrupted));
    // the attempt log and the request index (a re-sent request is indexed again) record the
    // interruption, and SHA256SUMS lists them; every other file is equal, code/, chis/ included
    const differing = Object.keys(uninterrupted).filter(
      (name) => resumed[name] !== uninterrupted[name],
    );
    expect(differing).toEqual(['SHA256SUMS', 'attempts.jsonl', 'requests.jsonl']);
  });
});

// A request left open on a paid system (never sent again, its instance excluded with the reason)
// is checked with a killed process and a held loopback request: kill-resume.test.ts.

describe('a resumed session whose prompt templates changed', () => {
  it('sends nothing and names the template (the frozen prompts no longer match)', async () => {
    const root = testFolder('chi-divergence-prompts-');
    const runDir = join(root, 'run');
    const sent: string[] = [];
    await expect(
      runDivergenceSession({
        runDir,
        settings: divergenceSettings(1, { resamples: 20 }),
        now: () => AT,
        modelFor: dyingAt(() => true, scriptedDivergenceInstance),
      }),
    ).rejects.toThrow('killed');
    const paths = runFolderPaths(runDir);
    const before = readFileSync(paths.attempts, 'utf8');
    const probe = readdirSync(paths.promptsDir).find((name) => name.startsWith('history-probe'));
    expect(probe).toBeDefined();
    writeFileSync(join(paths.promptsDir, probe as string), 'edited\n');
    await expect(
      runDivergenceSession({
        runDir,
        now: () => AT,
        modelFor: dyingAt((id) => {
          sent.push(id);
          return false;
        }, scriptedDivergenceInstance),
      }),
    ).rejects.toThrow(/prompts\/history-probe@[^ ]*\.txt.*edited after the run was created/);
    expect(sent).toEqual([]);
    expect(readFileSync(paths.attempts, 'utf8')).toBe(before);
  });
});
