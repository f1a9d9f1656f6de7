const MARKER = Symbol.for('chi.error');

/** Where a validation problem is: a path into the value and a human-readable message. */
export interface ValidationIssue {
  /** Path into the value, e.g. `records[3].value`; empty for the value itself. */
  readonly path: string;
  /** What was expected and what was found. */
  readonly message: string;
}

function hasMarker(error: unknown, name?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const marked = (error as Record<symbol, unknown>)[MARKER] === true;
  return marked && (name === undefined || (error as { name?: unknown }).name === name);
}

/**
 * Base class of every error the toolkit throws on purpose. Check with `ChiError.isInstance(e)`
 * rather than `instanceof`: the marker works across duplicate copies of the package.
 */
export class ChiError extends Error {
  protected readonly [MARKER] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ChiError';
  }

  /** True for any toolkit error, from any copy of `@chi/spec`. */
  static isInstance(error: unknown): error is ChiError {
    return hasMarker(error);
  }
}

/** A value failed its schema. `issues` lists every problem with its path. */
export class ValidationError extends ChiError {
  readonly issues: readonly ValidationIssue[];
  /** What was being validated, e.g. `memory world` or `run manifest`. */
  readonly subject: string;

  constructor(subject: string, issues: readonly ValidationIssue[], options?: { cause?: unknown }) {
    const shown = issues
      .slice(0, 10)
      .map((issue) => `  - ${issue.path === '' ? '(root)' : issue.path}: ${issue.message}`)
      .join('\n');
    const more = issues.length > 10 ? `\n  ... and ${issues.length - 10} more` : '';
    super(`Invalid ${subject}:\n${shown}${more}`, options);
    this.name = 'ValidationError';
    this.subject = subject;
    this.issues = issues;
  }

  static override isInstance(error: unknown): error is ValidationError {
    return hasMarker(error, 'ValidationError');
  }
}

/** A function argument is unusable: names the field, what was expected and what was found. */
export class InvalidArgumentError extends ChiError {
  readonly field: string;

  constructor(field: string, problem: string, options?: { cause?: unknown }) {
    super(`${field}: ${problem}`, options);
    this.name = 'InvalidArgumentError';
    this.field = field;
  }

  static override isInstance(error: unknown): error is InvalidArgumentError {
    return hasMarker(error, 'InvalidArgumentError');
  }
}

/** An HTTP call failed. Carries what a caller needs to decide whether to retry. */
export class ApiCallError extends ChiError {
  readonly url: string;
  readonly status: number | null;
  /** Response body, already redacted of secrets and hidden reasoning. */
  readonly body: string | null;
  readonly isRetryable: boolean;

  constructor(args: {
    message: string;
    url: string;
    status: number | null;
    body: string | null;
    isRetryable: boolean;
    cause?: unknown;
  }) {
    super(args.message, { cause: args.cause });
    this.name = 'ApiCallError';
    this.url = args.url;
    this.status = args.status;
    this.body = args.body;
    this.isRetryable = args.isRetryable;
  }

  static override isInstance(error: unknown): error is ApiCallError {
    return hasMarker(error, 'ApiCallError');
  }
}

/** A reservation would cross the USD ceiling, or the ledger has stopped new requests. */
export class BudgetExceededError extends ChiError {
  readonly requestedUsd: number;
  readonly ceilingUsd: number;
  readonly committedUsd: number;

  constructor(args: {
    requestedUsd: number;
    ceilingUsd: number;
    committedUsd: number;
    reason?: string;
  }) {
    super(
      `Budget refused: reserving ${args.requestedUsd} USD on top of ${args.committedUsd} USD committed would exceed the ceiling of ${args.ceilingUsd} USD${args.reason === undefined ? '' : ` (${args.reason})`}`,
    );
    this.name = 'BudgetExceededError';
    this.requestedUsd = args.requestedUsd;
    this.ceilingUsd = args.ceilingUsd;
    this.committedUsd = args.committedUsd;
  }

  static override isInstance(error: unknown): error is BudgetExceededError {
    return hasMarker(error, 'BudgetExceededError');
  }
}

/**
 * A run folder (or release) that cannot be trusted: a file it needs is missing, unreadable,
 * edited, or contradicts the attempt log (ledger rolled back, attempt records edited or emptied,
 * a record of another manifest...). `chi` exits with code 5; nothing is sent. The message names
 * the file and what was found.
 */
export class RunFolderDamagedError extends ChiError {
  /** The file that is missing, edited or contradicts the rest of the folder. */
  readonly file: string;

  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super(`damaged run folder: ${file}: ${problem}`, options);
    this.name = 'RunFolderDamagedError';
    this.file = file;
  }

  static override isInstance(error: unknown): error is RunFolderDamagedError {
    return hasMarker(error, 'RunFolderDamagedError');
  }
}

/** Who holds a run folder's lock, as its lock file records it. */
export interface RunFolderLockHolder {
  /** Process ID of the holder. */
  readonly pid: number;
  /** Host name of the machine the holder runs on. */
  readonly host: string;
  /** When the holder took the lock (ISO-8601 UTC). */
  readonly since: string;
  /** The command that holds it (for example `chi pilot --resume`). */
  readonly command: string;
}

/**
 * Another process writes this run folder (its lock file names a live holder, or a holder on
 * another host whose liveness cannot be checked). `chi` exits with code 6; nothing is sent or
 * written. The message names the holder and how to remove a lock whose holder is gone.
 */
export class RunFolderLockedError extends ChiError {
  /** The lock file. */
  readonly lockFile: string;
  /** The holder its lock file names (null when the file cannot be read). */
  readonly holder: RunFolderLockHolder | null;

  constructor(lockFile: string, holder: RunFolderLockHolder | null, message: string) {
    super(message);
    this.name = 'RunFolderLockedError';
    this.lockFile = lockFile;
    this.holder = holder;
  }

  static override isInstance(error: unknown): error is RunFolderLockedError {
    return hasMarker(error, 'RunFolderLockedError');
  }
}
