import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ChartData as ChartDataFile, chartDataFile } from '@chi/analysis';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { sha256Hex } from '../canonical-json';
import { readRunFolder } from '../run-folder/run-folder';
import { analyzeRun } from '../scoring/analyze-run';
import { scoreRun } from '../scoring/score-run';
import { INSPECT_LOG_SCHEMA_RELEASE, inspectLogs } from './inspect-log';
import { writeInspectLogs } from './write-inspect-logs';

/** The analysis in the layout of `chart-data.json` (its experiment fields flat), as the tests read it. */
const analyzedFile = (...args: Parameters<typeof analyzeRun>): ChartDataFile =>
  chartDataFile(analyzeRun(...args));

const GOLDEN = join(import.meta.dirname, '..', '__fixtures__', 'golden');
const FIXTURE = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'inspect');

/**
 * The validator of our conformance schema: the fields, types and enums that Inspect's `EvalLog`
 * model demands of the parts our logs hold (written by us from inspect_ai's model; see the
 * README beside it).
 */
function evalLogValidator() {
  const schema = JSON.parse(
    readFileSync(join(FIXTURE, 'eval-log-conformance.schema.json'), 'utf8'),
  ) as object;
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  return ajv.compile(schema);
}

/** Whether validation failed with `keyword` at `instancePath` (and for the `missing` field). */
function failedAt(
  errors: readonly ErrorObject[] | null | undefined,
  instancePath: string,
  keyword: string,
  missing?: string,
): boolean {
  return (errors ?? []).some(
    (error) =>
      error.instancePath === instancePath &&
      error.keyword === keyword &&
      (missing === undefined || error.params.missingProperty === missing),
  );
}

let run: { path: string; remove: () => Promise<void> };
let out: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  run = await tempDir('chi-inspect-run-');
  out = await tempDir('chi-inspect-out-');
  await buildFixtureRun(run.path, { seeds: [11, 12], timeouts: [] });
});
afterAll(async () => {
  await run.remove();
  await out.remove();
});

describe('chi export inspect', () => {
  it(`writes logs that validate against the EvalLog schema of ${INSPECT_LOG_SCHEMA_RELEASE}`, async () => {
    const summary = await writeInspectLogs({ runDir: run.path, outDir: out.path });
    expect(readdirSync(out.path).sort()).toEqual([...summary.files, 'listing.json'].sort());
    // Inspect's listing of the folder (what its viewer lists when served as static files)
    const listing = JSON.parse(readFileSync(join(out.path, 'listing.json'), 'utf8')) as Record<
      string,
      { task_id: string; eval_id: string; status: string; model: string }
    >;
    expect(Object.keys(listing)).toEqual([...summary.files]);
    for (const name of summary.files) {
      const header = JSON.parse(readFileSync(join(out.path, name), 'utf8')) as {
        eval: { task_id: string; eval_id: string; model: string };
        status: string;
      };
      expect(listing[name]).toMatchObject({
        task_id: header.eval.task_id,
        eval_id: header.eval.eval_id,
        model: header.eval.model,
        status: header.status,
      });
    }
    const validate = evalLogValidator();
    for (const name of summary.files) {
      const log = JSON.parse(readFileSync(join(out.path, name), 'utf8')) as unknown;
      const valid = validate(log);
      expect(validate.errors ?? [], name).toEqual([]);
      expect(valid).toBe(true);
    }
    // The schema is not vacuous: each broken log fails, and for the reason it was broken.
    const first = JSON.parse(readFileSync(join(out.path, summary.files[0] ?? ''), 'utf8')) as {
      eval: unknown;
      samples: Record<string, unknown>[];
    };
    const sample = first.samples[0] ?? {};
    const output = sample.output as { choices: unknown[] };
    const messages = sample.messages as Record<string, unknown>[];
    const scores = sample.scores as Record<string, Record<string, unknown>>;
    const events = sample.events as Record<string, unknown>[];
    const broken: [string, unknown, string, string, string?][] = [
      ['no header', { ...first, eval: undefined }, '', 'required', 'eval'],
      ['unknown status', { ...first, status: 'finished' }, '/status', 'enum'],
      [
        'sample without id',
        { ...first, samples: [{ ...sample, id: undefined }] },
        '/samples/0',
        'required',
        'id',
      ],
      [
        'sample without input',
        { ...first, samples: [{ ...sample, input: undefined }] },
        '/samples/0',
        'required',
        'input',
      ],
      [
        'sample without target',
        { ...first, samples: [{ ...sample, target: undefined }] },
        '/samples/0',
        'required',
        'target',
      ],
      [
        'epoch not an integer',
        { ...first, samples: [{ ...sample, epoch: 'one' }] },
        '/samples/0/epoch',
        'type',
      ],
      [
        'unknown message role',
        { ...first, samples: [{ ...sample, messages: [{ ...messages[0], role: 'developer' }] }] },
        '/samples/0/messages/0/role',
        'enum',
      ],
      [
        'choice without message',
        {
          ...first,
          samples: [{ ...sample, output: { ...output, choices: [{ stop_reason: 'stop' }] } }],
        },
        '/samples/0/output/choices/0',
        'required',
        'message',
      ],
      [
        'score value not a scalar, list or map of scalars',
        {
          ...first,
          samples: [
            {
              ...sample,
              scores: { chi_item_accuracy: { ...scores.chi_item_accuracy, value: null } },
            },
          ],
        },
        '/samples/0/scores/chi_item_accuracy/value',
        'anyOf',
      ],
      [
        'header without tags',
        { ...first, eval: { ...(first.eval as object), tags: undefined } },
        '/eval',
        'required',
        'tags',
      ],
      [
        'model event without output',
        {
          ...first,
          samples: [{ ...sample, events: [{ ...events[1], output: undefined }] }],
        },
        '/samples/0/events/0',
        'required',
        'output',
      ],
      [
        'score event without score',
        { ...first, samples: [{ ...sample, events: [{ ...events[2], score: undefined }] }] },
        '/samples/0/events/0',
        'required',
        'score',
      ],
    ];
    for (const [why, log, path, keyword, missing] of broken) {
      expect(validate(log), why).toBe(false);
      expect(failedAt(validate.errors, path, keyword, missing), why).toBe(true);
    }
  });

  it('makes one log per system and experiment and one sample per scored request, with target and score', async () => {
    const records = await readRunFolder(run.path);
    const logs = inspectLogs(records);
    const tasks = [...logs.values()].map((log) => {
      const header = log.eval as { task: string; model: string };
      return `${header.model} ${header.task}`;
    });
    expect(tasks.sort()).toEqual(
      ['keeper', 'forgetful']
        .flatMap((system) =>
          ['behavior', 'controls', 'history', 'memory'].map(
            (task) => `scripted/${system} chi_${task}`,
          ),
        )
        .sort(),
    );
    const scored = records.plan.requests.filter((request) =>
      ['memory_probe', 'memory_probe_oracle', 'history_probe', 'behavior_half'].includes(
        request.task,
      ),
    );
    const samples = [...logs.values()].flatMap(
      (log) =>
        log.samples as {
          id: string;
          target: string;
          scores: Record<string, { value: number; explanation: string }>;
          output: { completion: string };
          metadata: { condition: string | null };
        }[],
    );
    expect(samples.map((sample) => sample.id).sort()).toEqual(
      scored.map((request) => request.requestId).sort(),
    );
    // The keeper answers memory from the answer key: every notebook probe is correct, and the
    // target lists the expected answers of exactly the request's questions.
    const keeperMemory = [...logs.values()].find(
      (log) =>
        (log.eval as { task: string; model: string }).task === 'chi_memory' &&
        (log.eval as { model: string }).model === 'scripted/keeper',
    );
    const keeperSamples = keeperMemory?.samples as typeof samples;
    for (const sample of keeperSamples) {
      expect(sample.scores.chi_item_accuracy?.value).toBe(1);
      const target = JSON.parse(sample.target) as { id: string }[];
      const reply = JSON.parse(sample.output.completion) as { id: string }[];
      expect(target.map((answer) => answer.id).sort()).toEqual(
        reply.map((answer) => answer.id).sort(),
      );
    }
    // The blank control abstains: its content questions fail, only the lures pass.
    const blank = samples.filter((sample) => sample.metadata.condition === 'blank');
    expect(blank.length).toBeGreaterThan(0);
    for (const sample of blank) expect(sample.scores.chi_item_accuracy?.value).toBeLessThan(1);
    // The headline metrics are the release's estimands (Q_M per load then EIMC, each with its
    // interval); item accuracy, the mean of the sample scores, comes last and says it is secondary.
    const results = keeperMemory?.results as {
      scores: { metrics: Record<string, { name: string; value: number }> }[];
    };
    const data = analyzedFile(records, scoreRun(records));
    const metrics = results.scores[0]?.metrics ?? {};
    const names = Object.keys(metrics);
    expect(names[0]).toMatch(/^Q_M N=/);
    expect(names.some((n) => n.startsWith('EIMC tau='))).toBe(true);
    expect(names.at(-2)).toBe('item accuracy (secondary)');
    expect(names.at(-1)).toBe('item accuracy stderr (secondary)');
    expect(metrics['item accuracy (secondary)']?.value).toBe(1);
    for (const point of data.memory.filter(
      (p) => p.systemId === 'keeper' && p.condition === 'notebook',
    )) {
      const name = `Q_M N=${point.load}`;
      expect(metrics[name]?.value, name).toBe(point.qualityScore.estimate);
      if (point.qualityScore.lower !== null)
        expect(metrics[`${name} lower 95%`]?.value).toBe(point.qualityScore.lower);
    }
    for (const entry of data.eimc.filter((e) => e.systemId === 'keeper')) {
      const status = names.find((n) => n.startsWith(`EIMC tau=${entry.tau} passing loads (`));
      expect(status, `${entry.tau}`).toBeDefined();
      expect(metrics[status as string]?.value).toBe(entry.passingLoads.length);
    }
  });

  it('gives every log its own task ID, and tags and metadata in the header where Inspect reads them', async () => {
    const logs = [...inspectLogs(await readRunFolder(run.path)).values()];
    const headers = logs.map(
      (log) =>
        log.eval as { task_id: string; tags: string[]; metadata: { chi: { systemId: string } } },
    );
    // Inspect's viewer keeps one log per task ID: as many task IDs as logs, so it lists them all
    expect(new Set(headers.map((h) => h.task_id)).size).toBe(logs.length);
    for (const [index, header] of headers.entries()) {
      expect(header.tags).toContain('chi');
      expect(header.metadata.chi.systemId).toBeTruthy();
      expect(logs[index]?.tags, 'not at the top level, where Inspect ignores them').toBeUndefined();
    }
  });

  it('gives every sample its transcript: sample init, each model call with its usage, its score', async () => {
    const records = await readRunFolder(run.path);
    for (const log of inspectLogs(records).values()) {
      for (const sample of log.samples as {
        id: string;
        input: unknown[];
        scores: Record<string, unknown>;
        events: {
          event: string;
          input?: unknown[];
          output?: { usage?: unknown };
          score?: unknown;
        }[];
      }[]) {
        const kinds = sample.events.map((e) => e.event);
        expect(kinds, sample.id).toEqual(['sample_init', 'model', 'score']);
        const model = sample.events[1];
        expect(model?.input).toEqual(sample.input);
        expect(model?.output?.usage).toMatchObject({ input_tokens: expect.any(Number) });
        expect(sample.events[2]?.score).toEqual(Object.values(sample.scores)[0]);
      }
    }
  });

  it('leaves unknown token usage out instead of writing 0', async () => {
    const records = await readRunFolder(run.path);
    const unknown = {
      ...records,
      attempts: records.attempts.map((a) =>
        a.kind === 'attempt' && a.result !== null
          ? {
              ...a,
              result: {
                ...a.result,
                usage: {
                  promptTokens: null,
                  completionTokens: null,
                  reasoningTokens: null,
                  totalTokens: null,
                  costUsd: null,
                },
              },
            }
          : a,
      ),
    };
    const text = JSON.stringify([...inspectLogs(unknown).values()]);
    expect(text).not.toContain('"input_tokens"');
    expect(text).not.toContain('"output_tokens"');
    for (const log of inspectLogs(unknown).values())
      expect((log.stats as { model_usage: object }).model_usage).toEqual({});
  });

  it('matches the golden logs: the hash of every log, and one log whole', async () => {
    const logs = inspectLogs(await readRunFolder(run.path));
    const text = (log: unknown) => `${JSON.stringify(log, null, 2)}\n`;
    const sums = [...logs].map(([name, log]) => `${sha256Hex(text(log))}  ${name}\n`).join('');
    // the smallest log whole, so a change to the format is a readable diff
    const [name, smallest] =
      [...logs].sort(([, a], [, b]) => text(a).length - text(b).length)[0] ?? [];
    const whole = `${name}\n${text(smallest)}`;
    if (process.env.UPDATE_GOLDEN === '1') {
      writeFileSync(join(GOLDEN, 'inspect-logs.sha256'), sums);
      writeFileSync(join(GOLDEN, 'inspect-log-smallest.txt'), whole);
    }
    expect(sums).toBe(readFileSync(join(GOLDEN, 'inspect-logs.sha256'), 'utf8'));
    expect(whole).toBe(readFileSync(join(GOLDEN, 'inspect-log-smallest.txt'), 'utf8'));
  });

  it('is deterministic: the same run folder gives byte-identical logs', async () => {
    const records = await readRunFolder(run.path);
    expect(JSON.stringify([...inspectLogs(records)])).toBe(
      JSON.stringify([...inspectLogs(await readRunFolder(run.path))]),
    );
  });
});
