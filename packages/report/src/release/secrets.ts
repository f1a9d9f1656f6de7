/** A secret-looking string found in a file that is about to be published. */
export interface SecretFinding {
  readonly path: string;
  /** What was found, never the secret itself. */
  readonly what: string;
}

const BEARER = /\bbearer\s+[A-Za-z0-9._~+/=-]{8,}/i;
const OPENROUTER_KEY = /sk-or-v1-[A-Za-z0-9]{8,}/;
const SECRET_KEYS = /^(authorization|x-api-key|api[-_]?key|cookie|set-cookie)$/i;
const REASONING_KEYS = /reasoning|thinking/i;
/** Settings and counters that merely mention reasoning (`reasoningEffort`, `reasoningTokens`). */
const REASONING_METADATA = /effort|tokens?$|count$/i;

function holdsText(value: unknown): boolean {
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.some(holdsText);
  if (value !== null && typeof value === 'object') return Object.values(value).some(holdsText);
  return false;
}

function walk(value: unknown, path: string, out: string[]): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      walk(item, `${path}[${index}]`, out);
    });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, member] of Object.entries(value)) {
    const here = path === '' ? key : `${path}.${key}`;
    if (SECRET_KEYS.test(key) && member !== null && member !== '')
      out.push(`a "${key}" field at ${here}`);
    // counters and settings (reasoningTokens, reasoningEffort) may stay; reasoning text may not
    else if (REASONING_KEYS.test(key) && !REASONING_METADATA.test(key) && holdsText(member)) {
      out.push(`hidden reasoning in "${key}" at ${here}`);
    } else walk(member, here, out);
  }
}

const UNPARSABLE = Symbol('unparsable');

/** The JSON values of a JSON or JSONL file's text (a line that does not parse is marked). */
function parsedJson(path: string, text: string): unknown[] {
  const jsonTexts = path.endsWith('.jsonl')
    ? text.split('\n').filter((line) => line.trim() !== '')
    : path.endsWith('.json')
      ? [text]
      : [];
  return jsonTexts.map((json) => {
    try {
      return JSON.parse(json) as unknown;
    } catch {
      return UNPARSABLE;
    }
  });
}

/**
 * Looks for what must never be published: the given secret strings (e.g. the API key from the
 * environment), bearer tokens, OpenRouter keys, authorization/API-key/cookie fields and hidden
 * reasoning text in JSON or JSONL. Findings name the file and the place, never the secret.
 *
 * `parsed` are the JSON values of `text` when the caller already has them (one per non-empty
 * JSONL line in order, or the one JSON document), so a large file is not parsed again.
 */
export function findSecrets(
  path: string,
  text: string,
  forbidden: readonly string[] = [],
  parsed?: readonly unknown[],
): SecretFinding[] {
  const findings: SecretFinding[] = [];
  forbidden.forEach((secret, index) => {
    if (secret.length >= 8 && text.includes(secret))
      findings.push({ path, what: `forbidden string #${index + 1} (a configured secret)` });
  });
  if (BEARER.test(text)) findings.push({ path, what: 'a bearer token' });
  if (OPENROUTER_KEY.test(text))
    findings.push({ path, what: 'an OpenRouter API key (sk-or-v1-...)' });
  const values = parsed ?? parsedJson(path, text);
  values.forEach((value, index) => {
    if (value === UNPARSABLE) return;
    const out: string[] = [];
    walk(value, '', out);
    for (const what of out)
      findings.push({ path, what: path.endsWith('.jsonl') ? `${what} (line ${index + 1})` : what });
  });
  return findings;
}

/**
 * {@link findSecrets} for a JSONL file fed one line at a time (a log too large to hold): the same
 * findings, in the same order, as `findSecrets(path, wholeText, forbidden, values)`.
 */
export class JsonlSecretScan {
  readonly #path: string;
  readonly #forbidden: readonly string[];
  readonly #forbiddenSeen = new Set<number>();
  #bearer = false;
  #openRouterKey = false;
  readonly #fields: SecretFinding[] = [];
  #lines = 0;

  constructor(path: string, forbidden: readonly string[] = []) {
    this.#path = path;
    this.#forbidden = forbidden;
  }

  /** Scans one non-empty line's text and its JSON value (`undefined` when it does not parse). */
  line(text: string, value: unknown): void {
    this.#forbidden.forEach((secret, index) => {
      if (secret.length >= 8 && text.includes(secret)) this.#forbiddenSeen.add(index);
    });
    this.#bearer ||= BEARER.test(text);
    this.#openRouterKey ||= OPENROUTER_KEY.test(text);
    this.#lines += 1;
    if (value === undefined) return;
    const out: string[] = [];
    walk(value, '', out);
    for (const what of out)
      this.#fields.push({ path: this.#path, what: `${what} (line ${this.#lines})` });
  }

  /** Everything found in the lines scanned so far. */
  findings(): SecretFinding[] {
    const path = this.#path;
    const findings: SecretFinding[] = [...this.#forbiddenSeen]
      .sort((a, b) => a - b)
      .map((index) => ({ path, what: `forbidden string #${index + 1} (a configured secret)` }));
    if (this.#bearer) findings.push({ path, what: 'a bearer token' });
    if (this.#openRouterKey) findings.push({ path, what: 'an OpenRouter API key (sk-or-v1-...)' });
    return [...findings, ...this.#fields];
  }
}
