import type { CliIo } from '../cli/cli-io';

/** A {@link CliIo} that records what `runCli` writes, for tests. */
export interface CapturedIo {
  readonly io: CliIo;
  /** Everything written to stdout so far. */
  out(): string;
  /** Everything written to stderr so far. */
  err(): string;
}

/**
 * An in-memory {@link CliIo}: stdout and stderr are captured, the environment is empty (no API
 * key leaks in from the machine) unless `overrides.env` gives one.
 */
export function captureIo(overrides: Partial<CliIo> & Pick<CliIo, 'cwd'>): CapturedIo {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env: {},
    ...overrides,
  };
  return { io, out: () => out, err: () => err };
}
