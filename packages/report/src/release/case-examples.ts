import type { MemoryCondition } from '@chi/analysis/internal';
import type { MemoryProbeTrace, Stratum } from '@chi/spec';
import { STRATA } from '@chi/spec';
import type { TracedRecord } from '@chi/spec/internal';
import { sha256Hex } from '../canonical-json';

/** A scored memory probe with where it came from and the notebook it was answered from. */
export interface TracedProbe {
  readonly systemId: string;
  readonly condition: MemoryCondition;
  readonly load: number;
  readonly worldSeed: number;
  readonly trace: MemoryProbeTrace;
  /** The notes the probe request received; null for the oracle control (records in context). */
  readonly notebook: string | null;
}

/** One case example of the report: a probe, its trace and the part of the notebook that matters. */
export interface CaseExample {
  readonly systemId: string;
  readonly condition: MemoryCondition;
  readonly load: number;
  readonly worldSeed: number;
  readonly stratum: Stratum;
  readonly trace: MemoryProbeTrace;
  readonly notebookExcerpt: string;
}

const EXCERPT_LINES = 3;
const EXCERPT_LINE_CHARS = 200;

function clip(line: string): string {
  return line.length > EXCERPT_LINE_CHARS ? `${line.slice(0, EXCERPT_LINE_CHARS)}…` : line;
}

/**
 * The lines of a notebook that mention a key (at most three, each clipped to 200 characters), or
 * a sentence saying the key is absent. The oracle control has no notebook; the blank control's is
 * empty.
 *
 * @example
 * ```ts
 * notebookExcerpt('k1=aa\nk2=bb', 'k2'); // 'k2=bb'
 * ```
 */
export function notebookExcerpt(notebook: string | null, key: string): string {
  if (notebook === null)
    return '(oracle-evidence control: the original records were in context; no notebook)';
  if (notebook === '') return '(empty notebook)';
  const lines = notebook.split('\n').filter((line) => line.includes(key));
  if (lines.length === 0)
    return `(the key ${key} does not appear in the ${Buffer.byteLength(notebook, 'utf8')}-byte notebook)`;
  const shown = lines.slice(0, EXCERPT_LINES).map(clip);
  const more =
    lines.length > EXCERPT_LINES
      ? [`(… ${lines.length - EXCERPT_LINES} more lines mention the key)`]
      : [];
  return [...shown, ...more].join('\n');
}

/** A memory probe a case example can be chosen from, before its notebook is read. */
export type CaseCandidate = Omit<TracedProbe, 'notebook'>;

function sampleRank(probe: CaseCandidate): string {
  return sha256Hex(
    `${probe.systemId}|${probe.condition}|${probe.load}|${probe.worldSeed}|${probe.trace.probeId}`,
  );
}

/** What a replay probe read instead of a notebook (the case examples show no notebook lines). */
const REPLAY_EXCERPT =
  '(transcript-replay baseline: the stored transcript of the encode session was in context, uncapped; no notebook)';

const CONDITION_ORDER: Record<MemoryCondition, number> = {
  notebook: 0,
  blank: 1,
  oracle: 2,
  replay: 3,
};

function groupKey(probe: CaseCandidate): string {
  return `${probe.systemId}\u0000${probe.condition}\u0000${probe.load}\u0000${probe.trace.stratum}\u0000${probe.trace.verdict}`;
}

/**
 * {@link selectCaseExamples} one probe at a time: it keeps only the `perVerdict` first probes in
 * SHA-256 order of each group, so scoring can feed it every trace without the run's traces being
 * held; a chosen probe's notebook is read only when the examples are made.
 */
export class CaseExampleSelector<P extends CaseCandidate> {
  readonly #groups = new Map<string, { probe: P; rank: string }[]>();
  readonly #perVerdict: number;
  readonly #systemOrder: readonly string[];

  constructor(perVerdict = 1, systemOrder: readonly string[] = []) {
    this.#perVerdict = perVerdict;
    this.#systemOrder = systemOrder;
  }

  /** Offers one probe; ties in rank keep the order probes were offered in. */
  add(probe: P): void {
    const key = groupKey(probe);
    let group = this.#groups.get(key);
    if (group === undefined) {
      group = [];
      this.#groups.set(key, group);
    }
    const rank = sampleRank(probe);
    let at = group.length;
    while (at > 0 && (group[at - 1] as { rank: string }).rank > rank) at--;
    if (at >= this.#perVerdict) return;
    group.splice(at, 0, { probe, rank });
    if (group.length > this.#perVerdict) group.pop();
  }

  /** The chosen probes as case examples, in report order, each with its notebook excerpt. */
  examples(notebookOf: (probe: P) => string | null): CaseExample[] {
    const systemRank = (id: string) => {
      const index = this.#systemOrder.indexOf(id);
      return index < 0 ? this.#systemOrder.length : index;
    };
    const chosen = [...this.#groups.values()].flatMap((group) => group.map((entry) => entry.probe));
    chosen.sort(
      (a, b) =>
        systemRank(a.systemId) - systemRank(b.systemId) ||
        (a.systemId < b.systemId ? -1 : a.systemId > b.systemId ? 1 : 0) ||
        CONDITION_ORDER[a.condition] - CONDITION_ORDER[b.condition] ||
        a.load - b.load ||
        STRATA.indexOf(a.trace.stratum) - STRATA.indexOf(b.trace.stratum) ||
        (a.trace.verdict === b.trace.verdict ? 0 : a.trace.verdict === 'pass' ? -1 : 1),
    );
    return chosen.map((probe) => ({
      systemId: probe.systemId,
      condition: probe.condition,
      load: probe.load,
      worldSeed: probe.worldSeed,
      stratum: probe.trace.stratum,
      trace: probe.trace,
      notebookExcerpt:
        probe.condition === 'replay'
          ? REPLAY_EXCERPT
          : notebookExcerpt(notebookOf(probe), probe.trace.key),
    }));
  }
}

/**
 * A deterministic sample of case examples: for every system, condition, load and stratum, the
 * `perVerdict` passing and `perVerdict` failing probes that come first in SHA-256 order of
 * `system|condition|load|world|probeId`, systems in `systemOrder` (then by ID). No random
 * generator is involved, so the same run always shows the same examples, and the choice cannot
 * be steered towards flattering probes.
 */
export function selectCaseExamples(
  probes: readonly TracedProbe[],
  perVerdict = 1,
  systemOrder: readonly string[] = [],
): CaseExample[] {
  const selector = new CaseExampleSelector<TracedProbe>(perVerdict, systemOrder);
  for (const probe of probes) selector.add(probe);
  return selector.examples((probe) => probe.notebook);
}

function recordLine(record: TracedRecord): string {
  return `value ${record.value}  source ${record.source}  time ${record.eventTime}  authority ${record.authority}`;
}

/**
 * A trace as a few readable lines for the report: the question, the eligible records in
 * precedence order with the winner marked, records excluded by the cutoff, the answer, the record
 * a wrong value came from and the reason. The full trace is in the release's `traces/` files.
 *
 * @example
 * ```ts
 * formatTrace(trace).split('\n')[0]; // 'question: key k-01 as of 2026-01-02T00:00:00.000Z (stratum t)'
 * ```
 */
export function formatTrace(trace: MemoryProbeTrace): string {
  const lines = [
    `question: key ${trace.key} ${trace.asOf === null ? '(current value)' : `as of ${trace.asOf}`} (stratum ${trace.stratum})`,
  ];
  if (trace.eligibleRecords.length === 0)
    lines.push('eligible records: none (the correct answer is unknown)');
  else {
    lines.push('eligible records, in precedence order:');
    trace.eligibleRecords.forEach((record, index) => {
      lines.push(
        `  ${index + 1}. ${recordLine(record)}${index === trace.winnerIndex ? '  <- winner' : ''}`,
      );
    });
  }
  if (trace.excludedByCutoff.length > 0) {
    lines.push('dated after the cutoff (not eligible):');
    for (const record of trace.excludedByCutoff) lines.push(`  - ${recordLine(record)}`);
  }
  lines.push(
    `expected: ${trace.expectedValue === null ? 'unknown (value and source null)' : `value ${trace.expectedValue}, source ${trace.expectedSource ?? 'null'}`}`,
  );
  const a = trace.answer;
  lines.push(
    `answer: ${a.status}${a.status === 'answered' ? ` value ${a.value ?? 'null'}, source ${a.source ?? 'null'}` : ''}${a.detail === null ? '' : ` (${a.detail})`}`,
  );
  if (trace.matchedRecord !== null)
    lines.push(
      `answered value comes from: key ${trace.matchedRecord.key}, ${recordLine(trace.matchedRecord)}`,
    );
  lines.push(`verdict: ${trace.verdict} (${trace.reason})`);
  return lines.join('\n');
}
