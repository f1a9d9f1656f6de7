import type { EvidenceClass } from '@chi/spec';
import type { RunFacts } from './chart-data';

/**
 * The banner a release repeats on every page and every figure when any number comes from
 * something other than a live model, or null for an all-live run.
 *
 * Scripted reference systems, fixtures and synthetic data are never measurements of a model; the
 * wording always contains "scripted baseline" so a reader skimming any one figure cannot miss it.
 *
 * @example
 * ```ts
 * evidenceBanner(['scripted_baseline']); // 'Scripted baseline — not a measurement of any model'
 * evidenceBanner(['live_model']); // null
 * ```
 */
export function evidenceBanner(classes: readonly EvidenceClass[]): string | null {
  const distinct = new Set(classes);
  const nonLive = [...distinct].filter((c) => c !== 'live_model');
  if (nonLive.length === 0) return null;
  if (distinct.has('live_model')) {
    return 'Includes scripted baselines (systems marked †) — those are not measurements of any model';
  }
  if (nonLive.length === 1 && nonLive[0] === 'unverified_endpoint') {
    return 'Unverified endpoint — what served these answers was not declared; not labelled a live model';
  }
  if (nonLive.length === 1 && nonLive[0] === 'scripted_baseline') {
    return 'Scripted baseline — not a measurement of any model';
  }
  const kinds = nonLive
    .map((c) => (c === 'scripted_baseline' ? 'scripted' : c))
    .sort()
    .join(' and ');
  return `Scripted baseline (${kinds} data) — not a measurement of any model`;
}

/** The banner of a run: the manifest's evidence class and every system's. */
export function runEvidenceBanner(run: RunFacts): string | null {
  return evidenceBanner([run.evidenceClass, ...run.systems.map((s) => s.evidenceClass)]);
}

/** A system's display name: its id, marked † when it is not a live model in a mixed run. */
export function systemLabel(run: RunFacts, systemId: string): string {
  const system = run.systems.find((s) => s.id === systemId);
  const mixed =
    run.systems.some((s) => s.evidenceClass === 'live_model') &&
    run.systems.some((s) => s.evidenceClass !== 'live_model');
  const label =
    system !== undefined && mixed && system.evidenceClass !== 'live_model'
      ? `${systemId} †`
      : systemId;
  // Results under different memory policies are not the same quantity: once any system held its
  // own memory, every label says who held it (issue 36).
  return run.systems.some((s) => s.memory === 'system')
    ? `${label} [memory: ${system?.memory ?? 'notebook'}]`
    : label;
}
