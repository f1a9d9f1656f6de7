import type { ProgressOutput } from './progress';

/** What the CLI needs from its process; injectable so tests run it in process. */
export interface CliIo {
  readonly stdout: ProgressOutput;
  readonly stderr: ProgressOutput;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Current directory for relative paths (default `process.cwd()`). */
  readonly cwd?: string;
  /** Aborted on the first Ctrl-C: stop sending, finish what is in flight, write what exists. */
  readonly signal?: AbortSignal;
  /** Resolves when the process should stop serving (`chi serve`). */
  readonly untilStopped?: Promise<void>;
  readonly fetch?: typeof globalThis.fetch;
}
