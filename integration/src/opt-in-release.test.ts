/**
 * The release of a real offline run of the two opt-in environments (`--templates
 * goal-persistence,feedback-valence`): each module experiment's figure and report section, and
 * its samples in the Inspect export. `@chi/pilot` comes through the workspace test alias.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ModuleEstimate } from '@chi/analysis';
import {
  createScriptedModel,
  defaultOfflineSettings,
  runPilot,
  scriptedSystemSpec,
} from '@chi/pilot';
import { SCRIPTED_SYSTEM_NAMES } from '@chi/pilot/internal';
import { BUILT_IN_SCORERS, verifyRelease, writeRelease } from '@chi/report';
import { readRunFolder } from '@chi/report/internal';
import { sha256Hex } from '@chi/run';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../packages/report/src/__fixtures__/temp-dir';
import { inspectLogs } from '../../packages/report/src/inspect/inspect-log';
import { fixedClock } from './__fixtures__/fixed-clock';

const GOLDEN = join(import.meta.dirname, '__fixtures__', 'golden', 'opt-in-release.sha256');
const INSPECT_SCHEMA = join(
  import.meta.dirname,
  '..',
  '..',
  'packages',
  'report',
  'test',
  'fixtures',
  'inspect',
  'eval-log-conformance.schema.json',
);
const MODULES = ['goal-persistence', 'feedback-valence'] as const;

/** The release files the module experiments add (their figures) and the raw prompts they freeze. */
const NEW_OUTPUTS = [
  ...MODULES.flatMap((id) => [
    `figures/experiment-${id}.svg`,
    `chart-data/experiment-${id}.json`,
    `chart-data/experiment-${id}.csv`,
  ]),
  'prompts/goal-step@1.txt',
  'prompts/valence-choice@1.txt',
  'prompts/valence-feedback@1.txt',
];

let dir: { path: string; remove: () => Promise<void> };
let runDir: string;
let outDir: string;
beforeAll(async () => {
  dir = await tempDir('opt-in-release');
  runDir = join(dir.path, 'run');
  outDir = join(dir.path, 'release');
  const now = fixedClock('2026-09-01T00:00:00.000Z');
  const settings = defaultOfflineSettings({
    systems: SCRIPTED_SYSTEM_NAMES.map((name) => scriptedSystemSpec(name)),
    replicates: 3,
    resamples: 200,
    templates: [...MODULES],
  });
  const models = new Map(settings.systems.map((s) => [s.id, createScriptedModel(s.id, { now })]));
  const outcome = await runPilot({ settings, runDir, models, concurrency: 1, release: false, now });
  expect(outcome.exitCode).toBe(0);
  await writeRelease({ runDir, outDir });
}, 300_000);
afterAll(async () => dir.remove());

const read = (path: string) => readFile(join(outDir, path), 'utf8');

describe('figures of the module experiments', () => {
  it('match the golden hashes (figures, their rows, frozen prompts, Inspect logs), and the release verifies', async () => {
    const lines: string[] = [];
    for (const path of NEW_OUTPUTS) lines.push(`${sha256Hex(await read(path))}  ${path}\n`);
    // the module experiments' Inspect logs, as `chi export inspect` writes them
    for (const [name, log] of inspectLogs(await readRunFolder(runDir)))
      if (MODULES.some((id) => name.includes(`_chi_${id}-`)))
        lines.push(`${sha256Hex(`${JSON.stringify(log, null, 2)}\n`)}  inspect/${name}\n`);
    const actual = lines.join('');
    if (process.env.UPDATE_GOLDEN === '1') {
      const { writeFile } = await import('node:fs/promises');
      await writeFile(GOLDEN, actual);
    }
    expect(actual).toBe(await readFile(GOLDEN, 'utf8'));
    expect((await verifyRelease(outDir)).mismatches).toEqual([]);
  });

  it('plot exactly the estimates of the chart data, with their intervals, per system', async () => {
    for (const id of MODULES) {
      const table = JSON.parse(await read(`chart-data/${id}.json`)) as {
        estimates: ModuleEstimate[];
      };
      const figure = JSON.parse(await read(`chart-data/experiment-${id}.json`)) as {
        rows: {
          system: string;
          estimand: string;
          estimate: number | null;
          lower: number | null;
          upper: number | null;
        }[];
      };
      expect(figure.rows.map((r) => [r.system, r.estimand, r.estimate, r.lower, r.upper])).toEqual(
        table.estimates.map((e) => [e.systemId, e.column, e.estimate, e.lower, e.upper]),
      );
      const svg = await read(`figures/experiment-${id}.svg`);
      expect(svg).toMatch(/^<svg/);
      // fits the report column, like every figure
      expect(Number(/^<svg[^>]* width="([\d.]+)"/.exec(svg)?.[1])).toBeLessThanOrEqual(1000);
      for (const system of SCRIPTED_SYSTEM_NAMES) expect(svg).toContain(`>${system}<`);
    }
  });

  it('sit in their experiment sections of the report, numbered in reading order', async () => {
    const report = await read('report.md');
    for (const id of MODULES) {
      const heading = report.indexOf(
        `## ${BUILT_IN_SCORERS.find((s) => s.experimentId === id)?.title}`,
      );
      const figure = report.indexOf(`(figures/experiment-${id}.svg)`);
      expect(heading).toBeGreaterThan(-1);
      expect(figure).toBeGreaterThan(heading);
    }
    const numbers = [...report.matchAll(/\*Figure (\d+)\./g)].map((m) => Number(m[1]));
    expect(numbers).toEqual(numbers.map((_, index) => index + 1));
    expect(await read('report.html')).toContain('id="figure-experiment-goal-persistence"');
  });
});

describe('the report of a run of only the opt-in environments', () => {
  it('has no memory, history, behavioral or profile section, contents entry or figure', async () => {
    const report = await read('report.md');
    for (const title of [
      'Memory capacity',
      'Where capacity is lost: failure taxonomy',
      'History experiment',
      'Behavioral probes',
      'Capacity p and similarity h',
    ])
      expect(report).not.toContain(`## ${title}`);
    for (const id of ['memory', 'taxonomy', 'history', 'behavior', 'profiles'])
      expect(report).not.toContain(`](#${id})`);
    expect(report).not.toContain('The run has no');
    expect(report).not.toContain('figures/profiles.svg');
    const files = (await readFile(join(outDir, 'SHA256SUMS'), 'utf8')).split('\n');
    expect(files.some((line) => line.endsWith('figures/profiles.svg'))).toBe(false);
    // the profile tables stay (the release README lists them), with nothing in them to draw
    expect(files.some((line) => line.endsWith('profiles/capacity.csv'))).toBe(true);
    expect(report).toContain('](#experiment-goal-persistence)');
  });
});

describe('Inspect export of the module experiments', () => {
  it('one valid log per system and experiment, one sample per world, scored as the release scores', async () => {
    const records = await readRunFolder(runDir);
    const logs = [...inspectLogs(records).values()];
    const schema = JSON.parse(await readFile(INSPECT_SCHEMA, 'utf8')) as object;
    const validate = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true }).compile(
      schema,
    );
    const manifest = records.manifest;
    for (const id of MODULES) {
      const observations = (await read(`scores/${id}.jsonl`))
        .trimEnd()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as {
              systemId: string;
              worldSeed: number;
              values: Record<string, number | null>;
            },
        );
      const estimates = (
        JSON.parse(await read(`chart-data/${id}.json`)) as {
          estimates: ModuleEstimate[];
        }
      ).estimates;
      for (const system of manifest.systems) {
        const log = logs.find(
          (l) =>
            (l.eval as { task: string }).task === `chi_${id}` &&
            (l.eval as { model: string }).model === system.model,
        );
        expect(log, `${id} ${system.id}`).toBeDefined();
        expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
        const samples = log?.samples as {
          id: string;
          messages: { role: string }[];
          scores: Record<string, { value: Record<string, number | null> }>;
        }[];
        const own = observations.filter((o) => o.systemId === system.id);
        expect(samples.map((s) => s.id)).toEqual(
          own.map((o) => `${system.id}.${id}.w${o.worldSeed}`),
        );
        const scorer = `chi_${id.replace(/-/g, '_')}`;
        expect(samples.map((s) => s.scores[scorer]?.value)).toEqual(own.map((o) => o.values));
        // every request of the world is a conversation in the sample: one assistant turn each
        const perWorld = id === 'goal-persistence' ? 12 : 6;
        for (const sample of samples)
          expect(sample.messages.filter((m) => m.role === 'assistant')).toHaveLength(perWorld);
        const results = log?.results as
          | { scores: { metrics: Record<string, { value: number }> }[] }
          | undefined;
        const metrics = results?.scores[0]?.metrics;
        for (const e of estimates.filter((e) => e.systemId === system.id && e.estimate !== null))
          expect(metrics?.[e.column]?.value, `${system.id} ${e.column}`).toBe(e.estimate);
      }
    }
  });
});
