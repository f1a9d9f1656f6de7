import type { HumanCalibration, RunConfiguration, RunStudyLink, SystemSpec } from '@chi/spec';

// The settings' type on its own: the experiment modules' host (`PilotHost`) reads it, and
// settings.ts (the defaults and their check) reads the experiment registry, so the type lives
// where neither import closes a cycle.

/** Everything that defines a pilot run before it is frozen into a manifest. */
export interface PilotSettings {
  readonly systems: readonly SystemSpec[];
  /** Number of independent worlds (replicates); each world seed is derived from `rootSeed`. */
  readonly replicates: number;
  /** Root of every world seed: world k has seed `deriveSeed(rootSeed, 'world', k)`. */
  readonly rootSeed: number;
  /** Memory loads N; empty disables the memory experiment. */
  readonly loads: readonly number[];
  readonly probesPerStratum: number;
  /** Probes per probe request; null = one batch with every probe. */
  readonly batchSize: number | null;
  /** Load of the blank and oracle controls; null disables them. */
  readonly controlsAtLoad: number | null;
  /** The memory experiment's transcript-replay baseline (opt-in; absent = off). */
  readonly transcriptReplay?: boolean;
  /** Ask every behavioral item under both declared wordings (opt-in; absent = one wording). */
  readonly probeWordings?: boolean;
  readonly history: boolean;
  readonly behavior: boolean;
  /**
   * The registered experiments to run (`chi pilot --templates`), by ID; absent = every one. An
   * experiment left out has null parameters in the manifest, as its own switch would give.
   */
  readonly templates?: readonly string[];
  /**
   * Options of registered experiments set by the flags their parameter schemas declare, beyond
   * the fields above (`chi pilot`'s `experimentOptions`), by option name; an experiment's
   * `parametersFrom` reads its own. Absent when none.
   */
  readonly experimentOptions?: Readonly<
    Record<string, number | readonly number[] | boolean | null>
  >;
  readonly notebookCapBytes: number;
  readonly ceilingUsd: number;
  readonly deadlineMs: number;
  readonly maxOutputTokens: number;
  readonly concurrency: number;
  readonly maxRetries: number;
  readonly retryAfterCapMs: number;
  /** Reservation margin on top of the upper bound, e.g. 0.25 for 25 %. */
  readonly reservationMargin: number;
  readonly analysisSeed: number;
  readonly resamples: number;
  readonly level: number;
  readonly taus: readonly number[];
  /**
   * The history experiment's primary checkpoint, frozen in the manifest (`analysis.primaryCheckpoint`):
   * where the summary reads the excess divergence. Default 3, the last checkpoint before the
   * correction.
   */
  readonly primaryCheckpoint: number;
  /** The reference system of the paired comparisons (`--compare-to`); absent: every pair. */
  readonly compareTo?: string;
  /** Refuse to start a run with live systems unless each passed a smoke check. */
  readonly requireSmoke: boolean;
  /** A study session's link to its study, frozen in `manifest.study` (`chi study run`). */
  readonly study?: RunStudyLink;
  /** The `chi pilot` options the run was started with, frozen in the manifest (CLI runs). */
  readonly configuration?: RunConfiguration;
  /**
   * A built human calibration (`chi calibrate`); its ID, hash and the CHI weights and transform
   * are frozen in the manifest and the file is copied into the run. Absent: h and CHI are null.
   */
  readonly calibration?: HumanCalibration | null;
}
