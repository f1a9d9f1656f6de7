import { join } from 'node:path';

/**
 * The files of a study folder (docs/protocol.md, "Studies"), spelled only here. Each session is a
 * run folder `sessions/s<k>` (its files are `@chi/run`'s); beside it the study keeps what links
 * the sessions: the state each ended with and its session record.
 */
export const STUDY_FILE_NAME = {
  /** The study file `chi study init` writes and the user may edit until the first session. */
  study: 'study.json',
  /** The study declaration frozen (RFC 8785) before the first scored request. */
  manifest: 'study-manifest.json',
  /** `<sha256>  study-manifest.json`. */
  manifestSha256: 'study-manifest.sha256',
  /**
   * The catalog prices of a live study's OpenRouter models, fetched once before the first scored
   * request; its hash is frozen in the study manifest and every session freezes it again.
   */
  catalog: 'study-catalog.json',
  /** One CHIS entry per session x system x world x load, with the three clocks. */
  chis: 'study-chis.jsonl',
  /** The study report (`chi study report`, or `chi study run` after the last session). */
  report: 'study-report.json',
  /** The study report in Markdown. */
  reportMarkdown: 'study-report.md',
  /** The folder of the sessions. */
  sessions: 'sessions',
} as const;

/** The paths of one study folder. */
export interface StudyPaths {
  readonly dir: string;
  readonly study: string;
  readonly manifest: string;
  readonly manifestSha256: string;
  readonly catalog: string;
  readonly chis: string;
  readonly report: string;
  readonly reportMarkdown: string;
  readonly sessions: string;
  /** The run folder of session `k`: `sessions/s<k>`. */
  sessionRun(k: number): string;
  /**
   * The run folder of shard `index` of `count` of session `k` (`chi study run DIR --shard i/n`):
   * `sessions/s<k>.shard-<i>-of-<n>`; `chi study merge DIR` merges them into `sessions/s<k>`.
   */
  sessionShardRun(k: number, shard: { readonly index: number; readonly count: number }): string;
  /** The name prefix of session `k`'s shard folders in `sessions/` (`s<k>.shard-`). */
  sessionShardPrefix(k: number): string;
  /** What session `k` recorded when it finished: `sessions/s<k>.session.json`. */
  sessionRecord(k: number): string;
  /** The state session `k` ended with: `sessions/s<k>.state.json`. */
  sessionState(k: number): string;
}

/** The paths of the study folder `dir`. */
export function studyPaths(dir: string): StudyPaths {
  const sessions = join(dir, STUDY_FILE_NAME.sessions);
  return {
    dir,
    study: join(dir, STUDY_FILE_NAME.study),
    manifest: join(dir, STUDY_FILE_NAME.manifest),
    manifestSha256: join(dir, STUDY_FILE_NAME.manifestSha256),
    catalog: join(dir, STUDY_FILE_NAME.catalog),
    chis: join(dir, STUDY_FILE_NAME.chis),
    report: join(dir, STUDY_FILE_NAME.report),
    reportMarkdown: join(dir, STUDY_FILE_NAME.reportMarkdown),
    sessions,
    sessionRun: (k) => join(sessions, `s${k}`),
    sessionShardRun: (k, shard) => join(sessions, `s${k}.shard-${shard.index}-of-${shard.count}`),
    sessionShardPrefix: (k) => `s${k}.shard-`,
    sessionRecord: (k) => join(sessions, `s${k}.session.json`),
    sessionState: (k) => join(sessions, `s${k}.state.json`),
  };
}
