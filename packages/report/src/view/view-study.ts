import type { BootstrapEstimate } from '@chi/stats';

/**
 * The data of `chi view STUDY_DIR`'s study page (`/`, and as JSON at `/api/study`): the study's
 * sessions on a time axis, each one's completeness and spend, and the CHIS trajectory its report
 * computed. The caller (`@chi/pilot`, which owns the study folder) reads it from the folder; the
 * viewer only draws it, and never computes a statistic of its own.
 */
export interface ViewStudy {
  readonly kind: 'chi-view-study';
  readonly studyId: string;
  /** The SHA-256 of the frozen study manifest; null before the first session froze it. */
  readonly studyManifestSha256: string | null;
  /** When the study was frozen (its day 0); null before. */
  readonly frozenAt: string | null;
  /** The instant the page was drawn at (what "due" is measured against). */
  readonly now: string;
  /**
   * The instant the time axis counts days from: session s0's actual start (else the freeze, else
   * `now`).
   */
  readonly origin: string;
  /** The evidence banner (scripted baseline, ...), or null for live models only. */
  readonly banner: string | null;
  readonly systems: readonly string[];
  readonly ceilings: { readonly perSessionUsd: number; readonly totalUsd: number };
  /** USD charged by the finished sessions. */
  readonly spentUsd: number;
  /** The preregistered primary session and memory load. */
  readonly primary: { readonly session: number; readonly load: number };
  /** Every session of the schedule, in order, run or not. */
  readonly sessions: readonly ViewStudySession[];
  /** The study report's numbers (`study-report.json`), or why there are none. */
  readonly report: ViewStudyReportState;
}

/** Where a session stands: its record written, its run folder begun, or not run yet. */
export type ViewStudySessionState = 'done' | 'in-progress' | 'due' | 'not-due';

/** One session of a study on its time axis. */
export interface ViewStudySession {
  readonly sessionIndex: number;
  readonly state: ViewStudySessionState;
  /** The schedule's delay: the earliest start, in days after the previous session finished. */
  readonly afterPreviousDays: number;
  /** When it started (its record, or its run's status while in progress); null before. */
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  /** Days from the study's origin (s0's start) to this session's start; null before it started. */
  readonly startDay: number | null;
  /** When it is (was) due. */
  readonly dueAt: string;
  /** Days from the origin to `dueAt`. */
  readonly dueDay: number;
  /**
   * True when `dueAt` is projected: a session after the next one, due `afterPreviousDays` after a
   * previous session that has not finished (projected as finishing when it is due).
   */
  readonly dueProjected: boolean;
  /** It ran before it was due (`chi study run --now`). */
  readonly early: boolean;
  /** Blocks complete and planned (the session's run status); null before its run folder exists. */
  readonly blocksComplete: number | null;
  readonly blocks: number | null;
  /** USD charged (its record, or its run's status while in progress); null before. */
  readonly chargedUsd: number | null;
  /** Its ceiling: the one it ran under, else the study's per-session ceiling. */
  readonly ceilingUsd: number;
  /** Systems whose returned model IDs or providers differ from the previous session's. */
  readonly modelChanges: readonly string[];
  /** Its run's name under `/run/<name>/` (`s<k>`); null when it has no run folder yet. */
  readonly run: string | null;
}

/**
 * One row of the study report: one system's quality, retention and drift at one session and load.
 * The one declaration of the row: `chi study report` (the pilot's `study-report.ts`) writes these
 * rows into `study-report.json`, and the study page reads them back.
 */
export interface ViewStudyRow {
  readonly systemId: string;
  readonly load: number;
  readonly sessionIndex: number;
  /** Mean delay (days) between the state being written (session 0) and this session. */
  readonly delayDays: number;
  /** World-mean Q_M at this session. */
  readonly qualityScore: BootstrapEstimate;
  /** Retention: world-mean Q_M here / world-mean Q_M at session 0 (paired by world). */
  readonly retention: BootstrapEstimate;
  /**
   * Retention of retrieval accuracy r: world-mean r here / world-mean r at session 0 (paired by
   * world). What a decay in time moves one for one (docs/study-decay.md).
   */
  readonly retrievalRetention: BootstrapEstimate;
  /** Drift: world-mean Q_M here - at the previous session (paired by world). */
  readonly drift: BootstrapEstimate | null;
  /** Worlds complete in every session this row combines. */
  readonly worlds: number;
}

/** The numbers `chi study report` wrote (`study-report.json`), as the study page reads them. */
export interface ViewStudyReport {
  readonly studyManifestSha256: string | null;
  /** The sessions the report covers, with their day as the report counts it (day 0 to finish). */
  readonly sessions: readonly { readonly sessionIndex: number; readonly day: number }[];
  readonly rows: readonly ViewStudyRow[];
  readonly modelChanges: readonly {
    readonly sessionIndex: number;
    readonly systems: readonly string[];
  }[];
  /** Systems added later (`chi study add`), each a cohort from its own day 0. */
  readonly cohorts?: readonly {
    readonly studyId: string;
    readonly systems: readonly string[];
    readonly sessionsDone: number;
  }[];
}

/**
 * The study report as the page finds it: read (`stale` when sessions finished after it was
 * written), or missing, with the command that writes it.
 */
export type ViewStudyReportState =
  | {
      readonly state: 'reported';
      readonly report: ViewStudyReport;
      /** Finished sessions the report does not cover yet (then `command` updates it). */
      readonly stale: readonly number[];
      readonly command: string;
    }
  | { readonly state: 'missing'; readonly command: string };

/**
 * Where `chi view` reads a study page from: called on every request, so a session that finishes
 * while the viewer runs shows on reload.
 */
export interface ViewStudySource {
  study(): Promise<ViewStudy>;
  /** The study's session run folders (`sessions/s<k>`) in session order, served by folder name. */
  runs(): readonly string[];
}
