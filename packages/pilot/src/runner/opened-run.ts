import type { PlanIndex } from '@chi/run/internal';
import type { RunManifest, RunStatus, SystemSpec } from '@chi/spec';
import type { AnyExperiment } from '../experiments/experiment';
import type { PromptSet } from '../prompts';
import type { FrozenManifest } from '../run-folder/manifest';
import type { RunPaths } from '../run-folder/run-folder';
import type { AttemptChainHead } from './attempt-chain-writer';

// The opened run's type on its own: the session and its steps read it; run-open.ts, which
// makes it, imports the steps' options.

/** A run folder read and checked for execution: everything a session reads, nothing it changes. */
export interface OpenedRun {
  /** The folder's paths. */
  readonly paths: RunPaths;
  /** The frozen manifest and its hash. */
  readonly frozen: FrozenManifest;
  /** The manifest. */
  readonly manifest: RunManifest;
  /** The plan, its hash checked, indexed (requests parsed when a step needs them). */
  readonly plan: PlanIndex;
  /** The prompt templates, their hashes checked. */
  readonly prompts: PromptSet;
  /** The experiment modules that render the plan's requests. */
  readonly experiments: readonly AnyExperiment[];
  /** The manifest's systems by ID. */
  readonly systems: ReadonlyMap<string, SystemSpec>;
  /** The status a previous session left, or null for a fresh run. */
  readonly previousStatus: RunStatus | null;
  /** The attempt chain's head where this session starts. */
  readonly chainStart: AttemptChainHead;
  /** The run's ID. */
  readonly runId: string;
  /** Requests in flight at once. */
  readonly concurrency: number;
}
