import { ChiError } from '@chi/spec';

/**
 * A run folder that cannot be trusted: a file it needs is missing, unreadable or contradicts the
 * attempt log (ledger rolled back, attempt records edited, release half written...). `chi` exits
 * with code 5 (`EXIT_CODES.damagedRun`); nothing is sent. The message names the file and what
 * was found.
 */
export class RunFolderDamagedError extends ChiError {
  /** The file that is missing or contradicts the rest of the folder. */
  readonly file: string;

  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super(`damaged run folder: ${file}: ${problem}`, options);
    this.name = 'RunFolderDamagedError';
    this.file = file;
  }

  /** True for this error from any copy of the package (the `ChiError` marker plus the name). */
  static override isInstance(error: unknown): error is RunFolderDamagedError {
    return ChiError.isInstance(error) && error.name === 'RunFolderDamagedError';
  }
}
