import { type ChisEntry, type EvidenceClass, InvalidArgumentError } from '@chi/spec';

/** A reference to one CHIS entry: enough to find it again in the log. */
export interface EntryRef {
  readonly trajectoryId: string;
  readonly checkpoint: number;
  readonly eventCount: number;
  readonly condition: string;
}

/** The reference of an entry. */
export function entryRef(entry: ChisEntry): EntryRef {
  return {
    trajectoryId: entry.trajectoryId,
    checkpoint: entry.checkpoint,
    eventCount: entry.eventCount,
    condition: entry.condition,
  };
}

/** Orders entries of one trajectory: by checkpoint, then by event count. */
export function compareEntries(a: ChisEntry, b: ChisEntry): number {
  return a.checkpoint - b.checkpoint || a.eventCount - b.eventCount;
}

/** One trajectory: its identity and its entries ordered by checkpoint, then event count. */
export interface ChisTrajectory {
  readonly trajectoryId: string;
  /** Identity fields of the first entry (disagreements are reported as problems). */
  readonly systemId: string;
  readonly evidenceClass: EvidenceClass;
  readonly worldSeed: number | null;
  readonly history: string | null;
  readonly entries: readonly ChisEntry[];
}

/** A clock that must not run backwards along a trajectory. */
export type TrajectoryClock = 'eventCount' | 'scheduledOperations' | 'elapsedWallMs' | 'recordedAt';

/**
 * Something wrong with the entries of a trajectory. Nothing is dropped: every entry stays in its
 * trajectory, and dynamics refuse trajectories with duplicate positions.
 * - `duplicate`: several entries share a checkpoint and event count (`identical` when they are
 *   equal in every field, e.g. an entry written twice on resume).
 * - `out-of-order`: in input (log) order, an entry comes after a later position of its trajectory.
 * - `clock-regression`: in trajectory order, a clock (event count, scheduled operations, elapsed wall
 *   time or recording time) decreases.
 * - `inconsistent-identity`: entries of one trajectory disagree on system, evidence class, world
 *   seed or history.
 */
export type TrajectoryProblem =
  | {
      readonly kind: 'duplicate';
      readonly trajectoryId: string;
      readonly checkpoint: number;
      readonly eventCount: number;
      readonly identical: boolean;
      /** Positions of the duplicates in the input array. */
      readonly inputIndices: readonly number[];
      readonly message: string;
    }
  | {
      readonly kind: 'out-of-order';
      readonly trajectoryId: string;
      readonly inputIndex: number;
      /** Input position of the earlier-read entry that sits later in the trajectory. */
      readonly precededByInputIndex: number;
      readonly message: string;
    }
  | {
      readonly kind: 'clock-regression';
      readonly trajectoryId: string;
      readonly clock: TrajectoryClock;
      /** The entry whose clock is lower than its predecessor's. */
      readonly entry: EntryRef;
      readonly message: string;
    }
  | {
      readonly kind: 'inconsistent-identity';
      readonly trajectoryId: string;
      readonly field: 'systemId' | 'evidenceClass' | 'worldSeed' | 'history';
      readonly values: readonly (string | number | null)[];
      readonly message: string;
    };

/** Trajectories in order of first appearance, and every problem found. */
export interface GroupedTrajectories {
  readonly trajectories: ChisTrajectory[];
  readonly problems: TrajectoryProblem[];
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(
    (key) =>
      Object.hasOwn(b, key) &&
      sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

const IDENTITY_FIELDS = ['systemId', 'evidenceClass', 'worldSeed', 'history'] as const;

/**
 * Groups CHIS entries (e.g. a whole log) by trajectory, orders each trajectory by checkpoint then
 * event count, and reports duplicates, out-of-order input, clocks running backwards and
 * inconsistent identity fields. Pure; use {@link readChisTrajectories} to read and group a file.
 *
 * @example
 * ```ts
 * const { trajectories, problems } = groupTrajectories(entries);
 * if (problems.length > 0) report(problems.map((p) => p.message));
 * ```
 */
export function groupTrajectories(entries: readonly ChisEntry[]): GroupedTrajectories {
  const indicesById = new Map<string, number[]>();
  entries.forEach((entry, index) => {
    const list = indicesById.get(entry.trajectoryId);
    if (list === undefined) indicesById.set(entry.trajectoryId, [index]);
    else list.push(index);
  });

  const trajectories: ChisTrajectory[] = [];
  const problems: TrajectoryProblem[] = [];
  for (const [trajectoryId, indices] of indicesById) {
    const first = entries[indices[0]!]!;

    for (const field of IDENTITY_FIELDS) {
      const values = [...new Set(indices.map((index) => entries[index]![field]))];
      if (values.length > 1) {
        problems.push({
          kind: 'inconsistent-identity',
          trajectoryId,
          field,
          values,
          message: `trajectory ${trajectoryId}: entries disagree on ${field} (${values.map((v) => JSON.stringify(v)).join(', ')})`,
        });
      }
    }

    let latest = indices[0]!;
    for (const index of indices.slice(1)) {
      const order = compareEntries(entries[index]!, entries[latest]!);
      if (order < 0) {
        const entry = entries[index]!;
        problems.push({
          kind: 'out-of-order',
          trajectoryId,
          inputIndex: index,
          precededByInputIndex: latest,
          message: `trajectory ${trajectoryId}: entry ${index} (checkpoint ${entry.checkpoint}, event ${entry.eventCount}) comes after entry ${latest} (checkpoint ${entries[latest]!.checkpoint}, event ${entries[latest]!.eventCount})`,
        });
      } else if (order > 0) {
        latest = index;
      }
    }

    const sorted = [...indices].sort((a, b) => compareEntries(entries[a]!, entries[b]!) || a - b);
    let groupStart = 0;
    while (groupStart < sorted.length) {
      let groupEnd = groupStart + 1;
      const head = entries[sorted[groupStart]!]!;
      while (groupEnd < sorted.length && compareEntries(entries[sorted[groupEnd]!]!, head) === 0) {
        groupEnd += 1;
      }
      if (groupEnd - groupStart > 1) {
        const group = sorted.slice(groupStart, groupEnd);
        const identical = group.every((index) => sameValue(entries[index], head));
        problems.push({
          kind: 'duplicate',
          trajectoryId,
          checkpoint: head.checkpoint,
          eventCount: head.eventCount,
          identical,
          inputIndices: group,
          message: `trajectory ${trajectoryId}: ${group.length} ${identical ? 'identical' : 'different'} entries at checkpoint ${head.checkpoint}, event ${head.eventCount} (input entries ${group.join(', ')})`,
        });
      }
      groupStart = groupEnd;
    }

    const ordered = sorted.map((index) => entries[index]!);
    for (let position = 1; position < ordered.length; position++) {
      const previous = ordered[position - 1]!;
      const current = ordered[position]!;
      const clocks: [TrajectoryClock, number, number][] = [
        ['eventCount', previous.eventCount, current.eventCount],
        ['scheduledOperations', previous.scheduledOperations, current.scheduledOperations],
        ['elapsedWallMs', previous.elapsedWallMs, current.elapsedWallMs],
        ['recordedAt', Date.parse(previous.recordedAt), Date.parse(current.recordedAt)],
      ];
      for (const [clock, before, after] of clocks) {
        if (after < before) {
          problems.push({
            kind: 'clock-regression',
            trajectoryId,
            clock,
            entry: entryRef(current),
            message: `trajectory ${trajectoryId}: ${clock} decreases from checkpoint ${previous.checkpoint} (event ${previous.eventCount}) to checkpoint ${current.checkpoint} (event ${current.eventCount})`,
          });
        }
      }
    }

    trajectories.push({
      trajectoryId,
      systemId: first.systemId,
      evidenceClass: first.evidenceClass,
      worldSeed: first.worldSeed,
      history: first.history,
      entries: ordered,
    });
  }
  return { trajectories, problems };
}

/**
 * The entries of one trajectory in order, checked for what every dynamic needs: one trajectory, no
 * two entries at the same checkpoint and event count.
 * @internal
 */
export function orderTrajectory(entries: readonly ChisEntry[], field: string): ChisEntry[] {
  if (!Array.isArray(entries)) {
    throw new InvalidArgumentError(
      field,
      `expected an array of CHIS entries, found ${typeof entries}`,
    );
  }
  const first = entries[0];
  if (first === undefined) return [];
  const foreign = entries.find((entry) => entry.trajectoryId !== first.trajectoryId);
  if (foreign !== undefined) {
    throw new InvalidArgumentError(
      field,
      `expected the entries of one trajectory, found ${JSON.stringify(first.trajectoryId)} and ${JSON.stringify(foreign.trajectoryId)}`,
    );
  }
  const ordered = [...entries].sort(compareEntries);
  for (let index = 1; index < ordered.length; index++) {
    if (compareEntries(ordered[index - 1]!, ordered[index]!) === 0) {
      const entry = ordered[index]!;
      throw new InvalidArgumentError(
        field,
        `trajectory ${entry.trajectoryId} has several entries at checkpoint ${entry.checkpoint}, event ${entry.eventCount}; resolve duplicates first (groupTrajectories reports them)`,
      );
    }
  }
  return ordered;
}

/**
 * The entry standing for a checkpoint: the last one (highest event count) recorded at it, i.e. the
 * state at the end of that checkpoint. Undefined when the trajectory has no entry there.
 * @internal
 */
export function entryAtCheckpoint(
  ordered: readonly ChisEntry[],
  checkpoint: number,
): ChisEntry | undefined {
  let found: ChisEntry | undefined;
  for (const entry of ordered) if (entry.checkpoint === checkpoint) found = entry;
  return found;
}

/** A short human label for an entry in reasons. @internal */
export function describeEntry(entry: ChisEntry): string {
  return `${entry.trajectoryId} checkpoint ${entry.checkpoint}`;
}
