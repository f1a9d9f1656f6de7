import {
  type AnswerKeyEntry,
  InvalidArgumentError,
  type MemoryRecord,
  type MemoryWorld,
  type Stratum,
} from '@chi/spec';
import type { Authority, BlindProbe, RecordRole } from '@chi/spec/internal';
import { asOfBranchCounts } from './as-of-branches';
import { CodeSet } from './code-set';
import { formatMinute } from './event-time';
import { formatHexValue, formatMemoryKey, nearMissCode } from './memory-keys';
import { resolveAsOf, resolveCurrent } from './precedence';
import { DEFAULT_PROBES_PER_STRATUM, MAX_MEMORY_LOAD, minimumMemoryLoad } from './presets';
import { createRandom, type SeededRandom } from './random';
import { assertSeedArgument, deriveSeed } from './seed';
import { generatorInfo } from './version';

/** Options of {@link generateMemoryWorld}. */
export interface MemoryWorldOptions {
  /** The world seed, an unsigned 32-bit integer (derive one per world with `deriveSeed`). */
  readonly seed: number;
  /** N, the number of target keys: from `minimumMemoryLoad(probesPerStratum)` to 2,000,000. */
  readonly load: number;
  /** Blind probes in each of the six strata; 8 by default, as in the pilot. */
  readonly probesPerStratum?: number;
}

const MINUTES_PER_DAY = 1440;
/** Target records fall on whole minutes of days 1 to 180 after the epoch. */
const TARGET_FIRST_MINUTE = MINUTES_PER_DAY;
const TARGET_WINDOW_MINUTES = 180 * MINUTES_PER_DAY;
/** A distractor is dated within a day (either side) of its target: time does not tell them apart. */
const DISTRACTOR_OFFSET_MINUTES = MINUTES_PER_DAY;
/** An update or conflict comes 1 hour to 30 days after its key's target record. */
const LATER_MIN_MINUTES = 60;
const LATER_MAX_MINUTES = 30 * MINUTES_PER_DAY;
/**
 * An as-of cutoff before a key's first record falls up to 30 days before it; one after an update
 * or conflict up to 30 days after it.
 */
const AS_OF_WINDOW_MINUTES = 30 * MINUTES_PER_DAY;
/** A target of a plain or updated key has authority 2 with this probability (1/3). */
const TARGET_AUTHORITY_TWO = [1, 3] as const;
/** The latest minute a record can fall on. */
const LAST_EVENT_MINUTE =
  TARGET_FIRST_MINUTE +
  TARGET_WINDOW_MINUTES +
  Math.max(DISTRACTOR_OFFSET_MINUTES, LATER_MAX_MINUTES);
const SOURCE_TOKEN_LENGTH = 5;
const PROBE_ID_TOKEN_LENGTH = 8;

function validateOptions(options: MemoryWorldOptions): { load: number; probesPerStratum: number } {
  assertSeedArgument('seed', options.seed);
  const probesPerStratum = options.probesPerStratum ?? DEFAULT_PROBES_PER_STRATUM;
  if (!Number.isInteger(probesPerStratum) || probesPerStratum < 1) {
    throw new InvalidArgumentError(
      'probesPerStratum',
      `expected a positive integer, found ${String(probesPerStratum)}`,
    );
  }
  const load = options.load;
  if (!Number.isInteger(load) || load < 1 || load > MAX_MEMORY_LOAD) {
    throw new InvalidArgumentError(
      'load',
      `expected an integer from 1 to ${MAX_MEMORY_LOAD}, found ${String(load)}`,
    );
  }
  const smallest = minimumMemoryLoad(probesPerStratum);
  if (load < smallest) {
    throw new InvalidArgumentError(
      'load',
      `the smallest valid load for probesPerStratum ${probesPerStratum} is ${smallest}, found ${load}: strata u and i each need ${probesPerStratum} keys with an update or a conflict (floor(load/4) of each exist) and strata r and s need ${2 * probesPerStratum} plain target keys; use load >= ${smallest} or fewer probes per stratum`,
    );
  }
  return { load, probesPerStratum };
}

/** Everything the records phase leaves for the probes phase, in generation order. */
interface RecordPhase {
  readonly records: MemoryRecord[];
  readonly recordRoles: RecordRole[];
  /** Where the record of generation index j (targets, distractors, updates, conflicts) landed. */
  readonly position: Int32Array;
  /** 40-bit codes of every recorded key (targets and distractors). */
  readonly usedCodes: CodeSet;
  readonly targetCodes: Float64Array;
  readonly targetMinutes: Int32Array;
  /** Minute of the update (indices 0..U-1) or conflict (U..U+C-1) of target i. */
  readonly laterMinutes: Int32Array;
  readonly updates: number;
  readonly conflicts: number;
}

/**
 * Event-time text per minute. Once a world has more records than there are minutes in its
 * timeline (loads above about 120,000), many records share a minute, and one string per minute
 * (a table filled on first use) saves millions of allocations; below that, a table costs more
 * than it saves.
 */
function eventTimeText(recordCount: number): (minute: number) => string {
  if (recordCount < LAST_EVENT_MINUTE) return formatMinute;
  const byMinute: string[] = [];
  for (let minute = 0; minute <= LAST_EVENT_MINUTE; minute++) byMinute.push('');
  return (minute) => {
    const cached = byMinute[minute] as string;
    if (cached !== '') return cached;
    const text = formatMinute(minute);
    byMinute[minute] = text;
    return text;
  };
}

function drawSources(random: SeededRandom, count: number): string[] {
  const seen = new Set<string>();
  const sources: string[] = [];
  while (sources.length < count) {
    const source = `src-${random.token(SOURCE_TOKEN_LENGTH)}`;
    if (seen.has(source)) continue;
    seen.add(source);
    sources.push(source);
  }
  return sources;
}

function differentValue(random: SeededRandom, avoided: number): number {
  let value = random.uint32();
  while (value === avoided) value = random.uint32();
  return value;
}

/**
 * Targets 0..U-1 get an update, U..U+C-1 a conflict, the rest are plain. Keys are independent
 * uniform draws, so assigning roles by index is a uniformly random assignment.
 */
function generateRecords(seed: number, load: number): RecordPhase {
  const random = createRandom(deriveSeed(seed, 'memory-world', load, 'records'));
  const updates = Math.floor(load / 4);
  const conflicts = Math.floor(load / 4);
  const recordCount = 2 * load + updates + conflicts;

  const usedCodes = new CodeSet(2 * load);
  const targetCodes = new Float64Array(load);
  for (let target = 0; target < load; target++) {
    let code = random.uint40();
    while (usedCodes.has(code)) code = random.uint40();
    usedCodes.add(code);
    targetCodes[target] = code;
  }
  const distractorCodes = new Float64Array(load);
  for (let target = 0; target < load; target++) {
    let code = nearMissCode(random, targetCodes[target] as number);
    while (usedCodes.has(code)) code = nearMissCode(random, targetCodes[target] as number);
    usedCodes.add(code);
    distractorCodes[target] = code;
  }
  const sources = drawSources(random, Math.max(4, Math.ceil(load / 4)));

  // Records are presented in a seeded random order: position carries no role information and a
  // reader cannot rely on "later in the list is newer".
  const position = new Int32Array(recordCount);
  for (let index = 0; index < recordCount; index++) position[index] = index;
  for (let last = recordCount - 1; last > 0; last--) {
    const other = random.int(0, last);
    const kept = position[last] as number;
    position[last] = position[other] as number;
    position[other] = kept;
  }
  const records: MemoryRecord[] = new Array(recordCount);
  const recordRoles: RecordRole[] = new Array(recordCount);
  const place = (generationIndex: number, record: MemoryRecord, role: RecordRole): void => {
    const at = position[generationIndex] as number;
    records[at] = record;
    recordRoles[at] = role;
  };

  const timeText = eventTimeText(recordCount);
  const targetMinutes = new Int32Array(load);
  const laterMinutes = new Int32Array(updates + conflicts);
  for (let target = 0; target < load; target++) {
    const isConflicted = target >= updates && target < updates + conflicts;
    const authority: Authority = isConflicted
      ? 2
      : random.chance(TARGET_AUTHORITY_TWO[0], TARGET_AUTHORITY_TWO[1])
        ? 2
        : 1;
    const sourceIndex = random.int(0, sources.length - 1);
    const source = sources[sourceIndex] as string;
    const minute = random.int(TARGET_FIRST_MINUTE, TARGET_FIRST_MINUTE + TARGET_WINDOW_MINUTES - 1);
    const value = random.uint32();
    const key = formatMemoryKey(targetCodes[target] as number);
    targetMinutes[target] = minute;
    place(
      target,
      { key, value: formatHexValue(value), source, eventTime: timeText(minute), authority },
      'target',
    );

    // The near-miss twin: one key character apart, same source, same authority, within a day.
    const distractorMinute =
      minute + random.int(-DISTRACTOR_OFFSET_MINUTES, DISTRACTOR_OFFSET_MINUTES);
    place(
      load + target,
      {
        key: formatMemoryKey(distractorCodes[target] as number),
        value: formatHexValue(differentValue(random, value)),
        source,
        eventTime: timeText(distractorMinute),
        authority,
      },
      'distractor',
    );

    if (target < updates + conflicts) {
      const laterMinute = minute + random.int(LATER_MIN_MINUTES, LATER_MAX_MINUTES);
      let otherSource = random.int(0, sources.length - 2);
      if (otherSource >= sourceIndex) otherSource += 1;
      laterMinutes[target] = laterMinute;
      place(
        2 * load + target,
        {
          key,
          value: formatHexValue(differentValue(random, value)),
          source: sources[otherSource] as string,
          eventTime: timeText(laterMinute),
          authority: isConflicted ? 1 : 2,
        },
        isConflicted ? 'conflict' : 'update',
      );
    }
  }
  return {
    records,
    recordRoles,
    position,
    usedCodes,
    targetCodes,
    targetMinutes,
    laterMinutes,
    updates,
    conflicts,
  };
}

interface PlannedProbe {
  /** Index of the target whose key is asked, or -1 for a lure. */
  readonly target: number;
  readonly stratum: Stratum;
  readonly key: string;
  readonly asOf: string | null;
}

/**
 * Lures: never-recorded keys in the same format. The first ceil(P/2) are one character away from
 * a random target key (a fuzzy or truncated memory of that key would wrongly affirm them); the
 * rest are fresh keys.
 */
function drawLures(random: SeededRandom, phase: RecordPhase, count: number): string[] {
  const taken = new CodeSet(count);
  const lures: string[] = [];
  const nearMissLures = Math.ceil(count / 2);
  while (lures.length < count) {
    const code =
      lures.length < nearMissLures
        ? nearMissCode(
            random,
            phase.targetCodes[random.int(0, phase.targetCodes.length - 1)] as number,
          )
        : random.uint40();
    if (phase.usedCodes.has(code) || taken.has(code)) continue;
    taken.add(code);
    lures.push(formatMemoryKey(code));
  }
  return lures;
}

function planProbes(
  random: SeededRandom,
  phase: RecordPhase,
  load: number,
  probesPerStratum: number,
): PlannedProbe[] {
  const { updates, conflicts } = phase;
  const keyOf = (target: number): string => formatMemoryKey(phase.targetCodes[target] as number);
  const planned: PlannedProbe[] = [];

  const branches = asOfBranchCounts(probesPerStratum);
  const asOf = (target: number, cutoffMinute: number): PlannedProbe => ({
    target,
    stratum: 't',
    key: keyOf(target),
    asOf: formatMinute(cutoffMinute),
  });

  // r and s: distinct plain targets (no update, no conflict), so their current answer is the
  // target record itself and no current-state question is asked twice. t's never-eligible
  // questions ask further plain keys as of a time before their only record (reusing r and s keys,
  // a different question, only at the smallest loads).
  const plainFirst = updates + conflicts;
  const plainCount = load - plainFirst;
  const plain = random.sampleDistinct(
    plainCount,
    Math.min(plainCount, 2 * probesPerStratum + branches.none_eligible),
  );
  for (let slot = 0; slot < probesPerStratum; slot++) {
    const target = plainFirst + (plain[slot] as number);
    planned.push({ target, stratum: 'r', key: keyOf(target), asOf: null });
  }
  for (let slot = probesPerStratum; slot < 2 * probesPerStratum; slot++) {
    const target = plainFirst + (plain[slot] as number);
    planned.push({ target, stratum: 's', key: keyOf(target), asOf: null });
  }
  for (let slot = 0; slot < branches.none_eligible; slot++) {
    const target = plainFirst + (plain[(2 * probesPerStratum + slot) % plain.length] as number);
    const first = phase.targetMinutes[target] as number;
    planned.push(asOf(target, random.int(Math.max(0, first - AS_OF_WINDOW_MINUTES), first - 1)));
  }

  // u: updated keys now. t asks updated keys as of a cutoff between the original and its update
  // (one eligible record, the original) or at or after the update (both eligible, the update
  // wins). t prefers keys u does not use and reuses them (a different question) only when too
  // few keys were updated.
  const updatedInT = branches.one_eligible + branches.later_wins;
  const updated = random.sampleDistinct(updates, Math.min(updates, probesPerStratum + updatedInT));
  for (let slot = 0; slot < probesPerStratum; slot++) {
    const target = updated[slot] as number;
    planned.push({ target, stratum: 'u', key: keyOf(target), asOf: null });
  }
  for (let slot = 0; slot < updatedInT; slot++) {
    const target = updated[(probesPerStratum + slot) % updated.length] as number;
    const original = phase.targetMinutes[target] as number;
    const update = phase.laterMinutes[target] as number;
    planned.push(
      asOf(
        target,
        slot < branches.one_eligible
          ? random.int(original, update - 1)
          : random.int(update, update + AS_OF_WINDOW_MINUTES),
      ),
    );
  }

  // i: keys whose authority-2 target has a later, lower-authority conflicting record. t asks
  // conflicted keys (preferring those i does not use) as of a cutoff at or after the conflict:
  // both records are eligible and authority beats recency.
  const conflicted = random.sampleDistinct(
    conflicts,
    Math.min(conflicts, probesPerStratum + branches.authority_wins),
  );
  for (let slot = 0; slot < probesPerStratum; slot++) {
    const target = updates + (conflicted[slot] as number);
    planned.push({ target, stratum: 'i', key: keyOf(target), asOf: null });
  }
  for (let slot = 0; slot < branches.authority_wins; slot++) {
    const target = updates + (conflicted[(probesPerStratum + slot) % conflicted.length] as number);
    const conflict = phase.laterMinutes[target] as number;
    planned.push(asOf(target, random.int(conflict, conflict + AS_OF_WINDOW_MINUTES)));
  }

  for (const lure of drawLures(random, phase, probesPerStratum)) {
    planned.push({ target: -1, stratum: 'f', key: lure, asOf: null });
  }
  return random.shuffle(planned);
}

function drawProbeIds(random: SeededRandom, count: number): string[] {
  const seen = new Set<string>();
  const ids: string[] = [];
  while (ids.length < count) {
    const id = `q-${random.token(PROBE_ID_TOKEN_LENGTH)}`;
    if (seen.has(id)) continue;
    seen.add(id);
    ids.push(id);
  }
  return ids;
}

/**
 * The expected answers, computed from records with the exported precedence functions (which
 * define the truth). A probed key's records are the target record and, for an updated or
 * conflicted key, its later record, found through the generation positions in O(1) instead of a
 * scan; a lure has none. The tests check every entry against an index of all records.
 */
function buildAnswerKey(
  phase: RecordPhase,
  planned: readonly PlannedProbe[],
  ids: readonly string[],
): AnswerKeyEntry[] {
  const load = phase.targetCodes.length;
  const recordAt = (generationIndex: number): MemoryRecord =>
    phase.records[phase.position[generationIndex] as number] as MemoryRecord;
  return planned.map((probe, index) => {
    const ofKey: MemoryRecord[] = [];
    if (probe.target >= 0) {
      ofKey.push(recordAt(probe.target));
      if (probe.target < phase.updates + phase.conflicts)
        ofKey.push(recordAt(2 * load + probe.target));
    }
    const truth =
      probe.asOf === null
        ? resolveCurrent(ofKey, probe.key)
        : resolveAsOf(ofKey, probe.key, probe.asOf);
    return {
      id: ids[index] as string,
      stratum: probe.stratum,
      key: probe.key,
      asOf: probe.asOf,
      expectedValue: truth.value,
      expectedSource: truth.source,
    };
  });
}

/**
 * Generates one memory world: for load N, N target records, N near-miss distractors,
 * floor(N/4) authoritative updates and floor(N/4) conflicting lower-authority records in a
 * seeded random order; six strata (r, t, s, u, i, f) of `probesPerStratum` blind probes with
 * opaque IDs in shuffled order; and the answer key, computed with `resolveCurrent` and
 * {@link resolveAsOf}. A pure function of its options: records depend on (seed, load) only,
 * probes on (seed, load, probesPerStratum).
 *
 * Throws `InvalidArgumentError` for a seed that is not a uint32, a load outside
 * [`minimumMemoryLoad(probesPerStratum)`, 2,000,000] (the message names the smallest valid load)
 * or a non-positive probe count.
 *
 * @example
 * ```ts
 * const world = generateMemoryWorld({ seed: deriveSeed(20260901, 'world', 17), load: 128 });
 * world.records.length; // 320 = 128 targets + 128 distractors + 32 updates + 32 conflicts
 * world.probes.length; // 48, each { id: 'q-…', key, asOf }
 * const forModel = blindView(world); // records and probes only
 * ```
 */
export function generateMemoryWorld(options: MemoryWorldOptions): MemoryWorld {
  const { load, probesPerStratum } = validateOptions(options);
  const phase = generateRecords(options.seed, load);
  const random = createRandom(
    deriveSeed(options.seed, 'memory-world', load, 'probes', probesPerStratum),
  );
  const planned = planProbes(random, phase, load, probesPerStratum);
  const ids = drawProbeIds(random, planned.length);
  const probes: BlindProbe[] = planned.map((probe, index) => ({
    id: ids[index] as string,
    key: probe.key,
    asOf: probe.asOf,
  }));
  return {
    kind: 'memory-world',
    generator: generatorInfo(),
    seed: options.seed,
    load,
    probesPerStratum,
    records: phase.records,
    recordRoles: phase.recordRoles,
    probes,
    answerKey: buildAnswerKey(phase, planned, ids),
    counts: {
      targets: load,
      distractors: load,
      updates: phase.updates,
      conflicts: phase.conflicts,
      lures: probesPerStratum,
      records: phase.records.length,
    },
  };
}
