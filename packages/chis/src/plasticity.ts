import { type ChisEntry, InvalidArgumentError } from '@chi/spec';
import type { DynamicResult } from './dynamic-result';
import {
  type ChisResponse,
  meanAbsoluteDifference,
  responseCoordinates,
  responseDistance,
} from './response-distance';
import { describeEntry, entryAtCheckpoint, entryRef, orderTrajectory } from './trajectories';

/** Options of {@link plasticity}. */
export interface PlasticityOptions {
  /** What is compared (default the decision vector). */
  readonly response?: ChisResponse;
  /** The condition that marks the intervention (default `intervention`). */
  readonly interventionCondition?: string;
  /**
   * Checkpoint before the intervention (default: the entry just before the first intervention entry).
   */
  readonly before?: number;
  /** Checkpoint after the intervention (default: the first entry with the intervention condition). */
  readonly after?: number;
}

/** Plasticity, with the raw change of each trajectory beside it. */
export interface PlasticityResult extends DynamicResult {
  readonly before: number | null;
  readonly after: number | null;
  /** D(before, after) on the intervention trajectory. */
  readonly interventionChange: number | null;
  /** D(before, after) on the control trajectory. */
  readonly controlChange: number | null;
}

/** @internal */
export type CoordinateChange =
  | { readonly change: (number | null)[]; readonly reason: null }
  | { readonly change: null; readonly reason: string };

/**
 * Per-coordinate change of the response from `from` to `to`, or why it is undefined.
 * @internal
 */
export function changeBetween(
  from: ChisEntry,
  to: ChisEntry,
  response: ChisResponse,
): CoordinateChange {
  const a = responseCoordinates(from, response);
  if (a.reason !== null) return { change: null, reason: a.reason };
  const b = responseCoordinates(to, response);
  if (b.reason !== null) return { change: null, reason: b.reason };
  if (a.coordinates.length !== b.coordinates.length) {
    throw new InvalidArgumentError(
      'response',
      `${describeEntry(from)} has ${a.coordinates.length} coordinates but ${describeEntry(to)} has ${b.coordinates.length}`,
    );
  }
  const change = a.coordinates.map((x, index) => {
    const y = b.coordinates[index];
    return x === null || y === null || y === undefined ? null : y - x;
  });
  const invalid = change.indexOf(null);
  if (invalid !== -1) {
    const which = a.coordinates[invalid] === null ? from : to;
    return {
      change: null,
      reason: `${a.labels[invalid]} of ${describeEntry(which)} is invalid (null)`,
    };
  }
  return { change, reason: null };
}

/**
 * Plasticity: the effect of an intervention relative to a control trajectory that did not receive
 * it, over the same checkpoints. Per coordinate, the intervention trajectory's change
 * (after - before) minus the control's change; the value is the mean absolute value of these
 * differences-in-differences, i.e. the mean absolute coordinate difference between the two change
 * vectors. Change shared with the control (drift, probe wording, time) cancels coordinate by
 * coordinate; only what the intervention added remains.
 *
 * Null when either trajectory lacks a checkpoint, an entry lacks the response or has an invalid
 * coordinate, or the control also has the intervention condition at `after`.
 *
 * A large value is not "better": it means the response moved with the intervention, which is
 * desirable for a valid correction and undesirable for a misleading one.
 *
 * @example
 * ```ts
 * plasticity(withCorrection, withoutCorrection, { before: 3, after: 4 }).value;
 * ```
 */
export function plasticity(
  intervention: readonly ChisEntry[],
  control: readonly ChisEntry[],
  options: PlasticityOptions = {},
): PlasticityResult {
  const treated = orderTrajectory(intervention, 'intervention');
  const untreated = orderTrajectory(control, 'control');
  if (treated[0] !== undefined && treated[0].trajectoryId === untreated[0]?.trajectoryId) {
    throw new InvalidArgumentError(
      'control',
      `expected a different trajectory than the intervention, found ${treated[0].trajectoryId} twice`,
    );
  }
  const response = options.response ?? 'decisionVector';
  const condition = options.interventionCondition ?? 'intervention';
  const nothing = {
    before: null,
    after: null,
    interventionChange: null,
    controlChange: null,
    used: [],
  };

  const after = options.after ?? treated.find((entry) => entry.condition === condition)?.checkpoint;
  if (after === undefined) {
    return {
      value: null,
      reason: `the intervention trajectory has no entry with condition ${JSON.stringify(condition)}`,
      ...nothing,
    };
  }
  const firstAfter = treated.findIndex((entry) => entry.checkpoint === after);
  if (firstAfter === -1) {
    return {
      value: null,
      reason: `the intervention trajectory has no entry at checkpoint ${after}`,
      ...nothing,
      after,
    };
  }
  const before = options.before ?? treated[firstAfter - 1]?.checkpoint;
  if (before === undefined) {
    return {
      value: null,
      reason: `the intervention trajectory has no entry before checkpoint ${after}`,
      ...nothing,
      after,
    };
  }
  if (!(before < after)) {
    throw new InvalidArgumentError(
      'before',
      `expected a checkpoint before 'after' (${after}), found ${before}`,
    );
  }

  const missing = (trajectory: string, checkpoint: number): PlasticityResult => ({
    value: null,
    reason: `the ${trajectory} trajectory has no entry at checkpoint ${checkpoint}`,
    ...nothing,
    before,
    after,
  });
  const treatedBefore = entryAtCheckpoint(treated, before);
  if (treatedBefore === undefined) return missing('intervention', before);
  const treatedAfter = entryAtCheckpoint(treated, after)!;
  const controlBefore = entryAtCheckpoint(untreated, before);
  if (controlBefore === undefined) return missing('control', before);
  const controlAfter = entryAtCheckpoint(untreated, after);
  if (controlAfter === undefined) return missing('control', after);
  const used = [treatedBefore, treatedAfter, controlBefore, controlAfter].map(entryRef);
  const interventionChange = responseDistance(treatedBefore, treatedAfter, response).value;
  const controlChange = responseDistance(controlBefore, controlAfter, response).value;
  const details = { before, after, interventionChange, controlChange, used };
  if (controlAfter.condition === condition) {
    return {
      value: null,
      reason: `the control also has condition ${JSON.stringify(condition)} at checkpoint ${after}`,
      ...details,
    };
  }
  const treatedDelta = changeBetween(treatedBefore, treatedAfter, response);
  if (treatedDelta.reason !== null) return { value: null, reason: treatedDelta.reason, ...details };
  const controlDelta = changeBetween(controlBefore, controlAfter, response);
  if (controlDelta.reason !== null) return { value: null, reason: controlDelta.reason, ...details };
  if (treatedDelta.change.length !== controlDelta.change.length) {
    throw new InvalidArgumentError(
      'control',
      `the intervention response has ${treatedDelta.change.length} coordinates but the control's has ${controlDelta.change.length}`,
    );
  }
  const difference = meanAbsoluteDifference(treatedDelta.change, controlDelta.change);
  return { value: difference.value, reason: difference.reason, ...details };
}
