import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from './__fixtures__/fixture-run';
import { tempDir } from './__fixtures__/temp-dir';
import { INSPECT_LOG_SCHEMA_RELEASE, inspectLogs } from './inspect-log';
import { readRunFolder } from './run-folder';
import { writeInspectLogs } from './write-inspect-logs';

const FIXTURE = join(import.meta.dirname, '..', 'test', 'fixtures', 'inspect');

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
    expect(readdirSync(out.path).sort()).toEqual([...summary.files]);
    const validate = evalLogValidator();
    for (const name of summary.files) {
      const log = JSON.parse(readFileSync(join(out.path, name), 'utf8')) as unknown;
      const valid = validate(log);
      expect(validate.errors ?? [], name).toEqual([]);
      expect(valid).toBe(true);
    }
    // The schema is not vacuous: each broken log fails, and for the reason it was broken.
    const first = JSON.parse(readFileSync(join(out.path, summary.files[0] ?? ''), 'utf8')) as {
      samples: Record<string, unknown>[];
    };
    const sample = first.samples[0] ?? {};
    const output = sample.output as { choices: unknown[] };
    const messages = sample.messages as Record<string, unknown>[];
    const scores = sample.scores as Record<string, Record<string, unknown>>;
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
    // Results hold the mean of the sample scores.
    const results = keeperMemory?.results as {
      scores: { metrics: { accuracy: { value: number } } }[];
    };
    expect(results.scores[0]?.metrics.accuracy.value).toBe(1);
  });

  it('is deterministic: the same run folder gives byte-identical logs', async () => {
    const records = await readRunFolder(run.path);
    expect(JSON.stringify([...inspectLogs(records)])).toBe(
      JSON.stringify([...inspectLogs(await readRunFolder(run.path))]),
    );
  });
});
