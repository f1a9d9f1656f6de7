import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderJsonBlock } from '@chi/experiment';
import { applyNotebookCap } from '@chi/experiments/internal';
import {
  type ChatModel,
  INSTANCE_CONTROL_VERSION,
  type InstanceControl,
  type SystemSpec,
} from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { runCli } from '../cli/cli-main';
import { serveScriptedSystem } from '../endpoints/serve';
import type { DivergenceAnalysis } from './analyze';
import { divergenceSettings, runDivergenceSession } from './run';
import { divergenceSystemSpec, scriptedDivergenceInstance } from './scripted-divergence';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chi-divergence-system-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const STATE_ARMS = [
  'A.swap',
  'B.swap',
  'A.erase',
  'B.erase',
  'A2.erase',
  'B2.erase',
  'A.sham',
  'B.sham',
];
/** Where the notebook wording of the history prompts has its NOTES block: before these blocks. */
const AFTER_NOTES = /^BEGIN (EVENT|QUESTIONS) JSON$/m;

/**
 * The scripted `notebook-follower` as a system that keeps its own memory: each instance holds the
 * notebook itself (the runner sends the system-policy wording, no NOTES block and no notebook;
 * the system puts its own notes in where the notebook wording has them), optionally with the
 * instance-control extension over that notebook.
 */
function selfHeld(system: SystemSpec, withControl: boolean) {
  const notes = new Map<string, string>();
  return (spec: SystemSpec, blockId: string): ChatModel => {
    const inner = scriptedDivergenceInstance({ ...system, id: spec.id }, blockId);
    const control: InstanceControl = {
      version: INSTANCE_CONTROL_VERSION,
      exportState: async (id) => {
        const text = notes.get(id) ?? '';
        return { state: text, bytesStored: Buffer.byteLength(text) };
      },
      importState: async (id, state) => {
        notes.set(id, state.state as string);
      },
      erase: async (id) => {
        notes.set(id, '');
      },
    };
    return {
      ...inner,
      ...(withControl ? { instanceControl: control } : {}),
      async generate(request) {
        const id = request.instance?.instanceId as string;
        const prompt = request.messages.map((message) => message.content).join('\n');
        // the runner carries no notes and names no notebook under memory policy system
        expect(prompt).not.toContain('BEGIN NOTES JSON');
        expect(request.messages[1]?.content).not.toMatch(/notebook/i);
        const held = renderJsonBlock('NOTES', { notes: notes.get(id) ?? '' });
        const result = await inner.generate({
          ...request,
          messages: request.messages.map((message) => ({
            ...message,
            content: message.content.replace(AFTER_NOTES, (line) => `${held}\n\n${line}`),
          })),
        });
        if (prompt.includes('"task":"history_update"') && result.text !== null)
          notes.set(id, applyNotebookCap(result.text).text);
        return result;
      },
    };
  };
}

async function run(name: string, system: SystemSpec, modelFor?: ReturnType<typeof selfHeld>) {
  const outcome = await runDivergenceSession({
    runDir: join(root, name),
    settings: divergenceSettings(2, { systems: [system], resamples: 20 }),
    ...(modelFor === undefined ? {} : { modelFor }),
  });
  expect(outcome.execution.state).toBe('completed');
  const release = outcome.releaseDir as string;
  return {
    analysis: JSON.parse(
      await readFile(join(release, 'divergence.json'), 'utf8'),
    ) as DivergenceAnalysis,
    markdown: await readFile(join(release, 'report.md'), 'utf8'),
    plan: await readFile(join(outcome.runDir, 'plan.json'), 'utf8'),
  };
}

function primary(analysis: DivergenceAnalysis, series: string) {
  const point = analysis.systems[0]?.trajectory.find(
    (entry) => entry.checkpoint === analysis.primaryCheckpoint,
  );
  const all = (point?.series ?? {}) as Record<string, { estimate: number | null }>;
  return all[series];
}

describe('the divergence protocol under memory policy system', () => {
  const follower = divergenceSystemSpec('notebook-follower', 7);

  it('without instance control: swap, erasure, sham erasure and fault are not run, and say why', async () => {
    const system: SystemSpec = { ...follower, memory: 'system' };
    const { analysis, markdown, plan } = await run('no-control', system, selfHeld(follower, false));
    const marked = analysis.notApplicableArms ?? [];
    expect(marked.map((arm) => arm.arm).sort()).toEqual([...STATE_ARMS, 'A.fault'].sort());
    expect(marked.find((arm) => arm.arm === 'A.erase')?.reason).toMatch(
      /declares no instance-control extension \(export, import, erase\), so its erasure cannot be performed/,
    );
    expect(marked.find((arm) => arm.arm === 'A.fault')?.reason).toMatch(/opaque to the runner/);
    // never faked: no request of those arms was planned
    for (const arm of [...STATE_ARMS, 'A.fault']) expect(plan).not.toContain(`.${arm}.c`);
    expect(primary(analysis, 'swapExcess')?.estimate).toBeNull();
    expect(primary(analysis, 'excess')?.estimate).not.toBeNull();
    expect(markdown).toContain('## Arms not applicable');
    expect(markdown).toContain(
      '| notebook-follower | A.swap | not applicable under memory policy system',
    );
  }, 300_000);

  it('with instance control: the state arms run on the system-held memory and match the notebook run', async () => {
    const system: SystemSpec = {
      ...follower,
      memory: 'system',
      instanceControl: INSTANCE_CONTROL_VERSION,
    };
    const held = await run('control', system, selfHeld(follower, true));
    const notebook = await run('notebook', follower);
    expect(held.analysis.notApplicableArms?.map((arm) => arm.arm)).toEqual(['A.fault']);
    expect(notebook.analysis.notApplicableArms).toBeUndefined();
    expect(notebook.markdown).not.toContain('## Arms not applicable');
    const series = ['excess', 'swapExcess', 'eraseExcess', 'shamExcess', 'swapFollowsState'];
    const at = (analysis: DivergenceAnalysis) =>
      series.map((name) => [name, primary(analysis, name)?.estimate ?? null]);
    expect(at(held.analysis)).toEqual(at(notebook.analysis));
    for (const [, value] of at(held.analysis)) expect(value).not.toBeNull();
  }, 300_000);
});

describe('chi pilot --protocol divergence-v0.1 --base-url URL --memory system', () => {
  it('runs against a stateful endpoint with one flag: state arms by its declared instance control, or marked not applicable', async () => {
    const runs = new Map<string, DivergenceAnalysis>();
    for (const name of ['keyword-store', 'leaky-store']) {
      const server = await serveScriptedSystem({ system: name });
      try {
        const cli = captureIo({ cwd: root });
        const out = join(root, `cli-${name}`);
        const code = await runCli(
          [
            ...['pilot', '--protocol', 'divergence-v0.1', '--base-url', server.baseUrl],
            ...['--models', server.model, '--memory', 'system', '--replicates', '1'],
            ...['--resamples', '20', '--ceiling-usd', '0', '--out', out],
          ],
          cli.io,
        );
        expect(code, cli.err()).toBe(0);
        const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
        expect(manifest.systems[0].memory).toBe('system');
        runs.set(name, JSON.parse(await readFile(join(out, 'release', 'divergence.json'), 'utf8')));
      } finally {
        await server.close();
      }
    }
    const armsOf = (name: string) =>
      (runs.get(name)?.notApplicableArms ?? []).map((arm) => arm.arm).sort();
    expect(armsOf('keyword-store')).toEqual(['A.fault']);
    expect(armsOf('leaky-store')).toEqual([...STATE_ARMS, 'A.fault'].sort());
  }, 300_000);

  it('refuses --memory system for the offline scripted divergence baselines (exit 2)', async () => {
    const cli = captureIo({ cwd: root });
    expect(
      await runCli(['pilot', '--protocol', 'divergence-v0.1', '--memory', 'system'], cli.io),
    ).toBe(2);
    expect(cli.err()).toContain('keep no memory of their own');
  });
});
