import type { FailureClass } from '@chi/spec';

/**
 * What the runner reports while it works. Libraries never print: the CLI renders these events
 * (a live line on a TTY, plain lines otherwise), and tests assert on them.
 */
export type PilotEvent =
  | {
      readonly type: 'run-created';
      readonly runDir: string;
      readonly runId: string;
      readonly manifestSha256: string;
      readonly totalRequests: number;
    }
  | {
      readonly type: 'run-resumed';
      readonly runDir: string;
      readonly runId: string;
      /** Requests already resolved in the log. */
      readonly resolved: number;
      /** Possibly-sent paid requests marked abandoned (never re-sent). */
      readonly abandoned: number;
      /** Possibly-sent scripted requests that will be sent again (free and deterministic). */
      readonly resent: number;
    }
  | {
      readonly type: 'request-finished';
      readonly requestId: string;
      readonly systemId: string;
      readonly failure: FailureClass;
      readonly chargedUsd: number;
      readonly progress: PilotProgress;
    }
  | { readonly type: 'budget-stop'; readonly kind: string; readonly message: string }
  | { readonly type: 'request-abandoned'; readonly requestId: string; readonly systemId: string }
  | {
      readonly type: 'run-finished';
      readonly state: 'completed' | 'stopped' | 'failed';
      readonly progress: PilotProgress;
      readonly elapsedMs: number;
    }
  | {
      readonly type: 'scored';
      readonly runDir: string;
      readonly completeBlocks: number;
      readonly incompleteBlocks: number;
    }
  | {
      /** A step of the scoring and release phase started (it can take minutes at scale). */
      readonly type: 'finishing';
      readonly step: 'chis' | 'read' | 'analyze' | 'write' | 'checksums';
      /** What the step does, for people. */
      readonly detail: string;
    }
  | { readonly type: 'release-written'; readonly releaseDir: string }
  | { readonly type: 'note'; readonly message: string };

/** Counts for a progress display. */
export interface PilotProgress {
  /** Registered requests of the run. */
  readonly total: number;
  /** Requests resolved (successfully or with a failure) so far, resumed ones included. */
  readonly done: number;
  /** Resolved requests with any failure. */
  readonly failures: number;
  /** Requests that will not be sent (abandoned, blocked by a dependency, or stopped). */
  readonly notSent: number;
  /** USD committed in the ledger (settled + retained + open reservations). */
  readonly committedUsd: number;
  readonly ceilingUsd: number;
}

/** A sink for events; the default drops them. */
export type PilotEventSink = (event: PilotEvent) => void;
