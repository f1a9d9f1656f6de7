import type { RunChartData } from '@chi/analysis';
import type { RunManifest } from '@chi/spec';
import type { JsonObject } from './json';

/** An estimate with its pointwise interval (either bound may be missing). */
export interface Interval {
  readonly estimate: number | null;
  readonly lower: number | null;
  readonly upper: number | null;
}

/** Collects metrics in insertion order; an estimate without a value is listed, not invented. */
export class MetricList {
  readonly metrics: JsonObject = {};
  readonly undefinedEstimands: string[] = [];
  constructor(private readonly level: number) {}

  /** `name` with its value, and `name lower P%` / `name upper P%` when the interval exists. */
  interval(name: string, value: Interval, metadata: JsonObject): void {
    if (value.estimate === null) {
      this.undefinedEstimands.push(name);
      return;
    }
    this.add(name, value.estimate, metadata);
    const percent = `${Math.round(this.level * 1000) / 10}%`;
    if (value.lower !== null) this.add(`${name} lower ${percent}`, value.lower, {});
    if (value.upper !== null) this.add(`${name} upper ${percent}`, value.upper, {});
  }

  add(name: string, value: number, metadata: JsonObject): void {
    this.metrics[name] = { name, value, params: {}, metadata };
  }
}

/**
 * One experiment's headline estimands in its Inspect logs, registered under the ID of the block
 * kind it scores (`PILOT_HEADLINES`): what `pilotHeadline` adds to a system's log of that kind.
 */
export interface ExperimentHeadline {
  readonly experimentId: string;
  /** Adds the system's headline metrics, from the release's analysis (`chart-data.json`). */
  metrics(list: MetricList, manifest: RunManifest, data: RunChartData, systemId: string): void;
}
