import type { MemoryProbeTrace, Stratum } from '@chi/spec';
import { STRATA } from '@chi/spec';
import { sha256Hex } from './canonical-json';
import type { MemoryCondition } from './chart-data';

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

function sampleRank(probe: TracedProbe): string {
  return sha256Hex(
    `${probe.systemId}|${probe.condition}|${probe.load}|${probe.worldSeed}|${probe.trace.probeId}`,
  );
}

const CONDITION_ORDER: Record<MemoryCondition, number> = { notebook: 0, blank: 1, oracle: 2 };

/**
 * A deterministic sample of case examples: for every system, condition, load and stratum, the
 * `perVerdict` passing and `perVerdict` failing probes that come first in SHA-256 order of
 * `system|condition|load|world|probeId`. No random generator is involved, so the same run always
 * shows the same examples, and the choice cannot be steered towards flattering probes.
 */
export function selectCaseExamples(probes: readonly TracedProbe[], perVerdict = 1): CaseExample[] {
  const groups = new Map<string, TracedProbe[]>();
  for (const probe of probes) {
    const key = `${probe.systemId}\u0000${probe.condition}\u0000${probe.load}\u0000${probe.trace.stratum}\u0000${probe.trace.verdict}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [probe]);
    else group.push(probe);
  }
  const chosen: TracedProbe[] = [];
  for (const group of groups.values()) {
    const ranked = group
      .map((probe) => ({ probe, rank: sampleRank(probe) }))
      .sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0));
    chosen.push(...ranked.slice(0, perVerdict).map((entry) => entry.probe));
  }
  chosen.sort(
    (a, b) =>
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
    notebookExcerpt: notebookExcerpt(probe.notebook, probe.trace.key),
  }));
}
