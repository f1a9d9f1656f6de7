/**
 * A strict RFC 8259 JSON reader that starts anywhere in a text and stops after one value.
 *
 * Why not `JSON.parse`: model replies hold JSON inside prose, so we must read a value that starts
 * at an arbitrary offset and learn where it ends; and an answer object with a repeated field
 * (`{"value": "a", "value": "b"}`) is ambiguous, which `JSON.parse` hides by keeping the last one.
 * Objects are returned as `Map`s (no prototype games with keys such as `__proto__`) together with
 * the keys that appeared more than once. Nesting is capped so hostile input cannot exhaust the
 * stack. Failure is signalled by a sentinel, not an exception: a search over a hostile reply makes
 * up to one attempt per bracket, and exceptions would dominate that cost.
 */

/** A JSON value as read by {@link readJsonValue}. */
export type JsonValue = null | boolean | number | string | JsonArray | JsonObject;

/** A JSON array. */
export interface JsonArray {
  readonly kind: 'array';
  readonly items: readonly JsonValue[];
}

/** A JSON object: its fields (last occurrence wins, as in `JSON.parse`) and the repeated keys. */
export interface JsonObject {
  readonly kind: 'object';
  readonly fields: ReadonlyMap<string, JsonValue>;
  /** Keys that occurred more than once, each listed once, in first-repeat order. */
  readonly repeatedKeys: readonly string[];
}

/** Called for every array or object completed during a read, innermost first. */
export type ContainerListener = (start: number, end: number, value: JsonArray | JsonObject) => void;

/** The outcome of reading one JSON value. */
export type JsonReadResult =
  | {
      readonly ok: true;
      readonly value: JsonValue;
      /** Index just past the value. */
      readonly end: number;
    }
  | {
      readonly ok: false;
      /** Index where reading failed (the text length when it ran out). */
      readonly failedAt: number;
      /** `depth` when the nesting cap was hit at `failedAt`, else `syntax`. */
      readonly failure: 'syntax' | 'depth';
      /** First `[` or `{` read as part of a string literal, or -1: a restart point for a search. */
      readonly firstBracketInString: number;
    };

/** Deepest array/object nesting accepted. Deeper input is rejected, never recursed into. */
export const MAX_JSON_DEPTH = 256;

const FAIL: unique symbol = Symbol('json-read-failure');
type Read<T> = T | typeof FAIL;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;

/** True for a JSON array. */
export function isJsonArray(value: JsonValue): value is JsonArray {
  return typeof value === 'object' && value !== null && value.kind === 'array';
}

/** True for a JSON object. */
export function isJsonObject(value: JsonValue): value is JsonObject {
  return typeof value === 'object' && value !== null && value.kind === 'object';
}

class JsonReader {
  private readonly text: string;
  private readonly length: number;
  private readonly onContainer: ContainerListener | undefined;
  pos: number;
  failedAt = -1;
  failure: 'syntax' | 'depth' = 'syntax';
  firstBracketInString = -1;

  constructor(text: string, start: number, onContainer: ContainerListener | undefined) {
    this.text = text;
    this.length = text.length;
    this.pos = start;
    this.onContainer = onContainer;
  }

  fail(failure: 'syntax' | 'depth' = 'syntax'): typeof FAIL {
    this.failedAt = Math.min(this.pos, this.length);
    this.failure = failure;
    return FAIL;
  }

  skipWhitespace(): void {
    const { text, length } = this;
    let pos = this.pos;
    while (pos < length) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
    this.pos = pos;
  }

  readHex4(): Read<number> {
    let code = 0;
    for (let k = 0; k < 4; k++) {
      if (this.pos >= this.length) return this.fail();
      const c = this.text.charCodeAt(this.pos);
      let digit: number;
      if (c >= 0x30 && c <= 0x39) digit = c - 0x30;
      else if (c >= 0x61 && c <= 0x66) digit = c - 0x57;
      else if (c >= 0x41 && c <= 0x46) digit = c - 0x37;
      else return this.fail();
      code = code * 16 + digit;
      this.pos++;
    }
    return code;
  }

  readString(): Read<string> {
    const { text, length } = this;
    this.pos++; // the opening quote
    let out = '';
    let runStart = this.pos;
    while (true) {
      if (this.pos >= length) return this.fail();
      const c = text.charCodeAt(this.pos);
      if (c === QUOTE) {
        out += text.slice(runStart, this.pos);
        this.pos++;
        return out;
      }
      if (c < 0x20) return this.fail();
      if (c !== BACKSLASH) {
        if ((c === OPEN_BRACKET || c === OPEN_BRACE) && this.firstBracketInString === -1) {
          this.firstBracketInString = this.pos;
        }
        this.pos++;
        continue;
      }
      out += text.slice(runStart, this.pos);
      this.pos++;
      if (this.pos >= length) return this.fail();
      const escaped = text.charCodeAt(this.pos);
      this.pos++;
      switch (escaped) {
        case QUOTE:
          out += '"';
          break;
        case BACKSLASH:
          out += '\\';
          break;
        case 0x2f:
          out += '/';
          break;
        case 0x62:
          out += '\b';
          break;
        case 0x66:
          out += '\f';
          break;
        case 0x6e:
          out += '\n';
          break;
        case 0x72:
          out += '\r';
          break;
        case 0x74:
          out += '\t';
          break;
        case 0x75: {
          const code = this.readHex4();
          if (code === FAIL) return FAIL;
          out += String.fromCharCode(code);
          break;
        }
        default:
          this.pos--;
          return this.fail();
      }
      runStart = this.pos;
    }
  }

  readDigits(): boolean {
    const from = this.pos;
    while (this.pos < this.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c >= 0x30 && c <= 0x39) this.pos++;
      else break;
    }
    if (this.pos === from) {
      this.fail();
      return false;
    }
    return true;
  }

  readNumber(): Read<number> {
    const { text } = this;
    const from = this.pos;
    if (text.charCodeAt(this.pos) === 0x2d) this.pos++;
    if (this.pos >= this.length) return this.fail();
    if (text.charCodeAt(this.pos) === 0x30) this.pos++;
    else if (!this.readDigits()) return FAIL;
    if (this.pos < this.length && text.charCodeAt(this.pos) === 0x2e) {
      this.pos++;
      if (!this.readDigits()) return FAIL;
    }
    if (this.pos < this.length) {
      const e = text.charCodeAt(this.pos);
      if (e === 0x65 || e === 0x45) {
        this.pos++;
        const sign = text.charCodeAt(this.pos);
        if (sign === 0x2b || sign === 0x2d) this.pos++;
        if (!this.readDigits()) return FAIL;
      }
    }
    return Number(text.slice(from, this.pos));
  }

  readLiteral<T extends JsonValue>(word: string, value: T): Read<T> {
    if (!this.text.startsWith(word, this.pos)) return this.fail();
    this.pos += word.length;
    return value;
  }

  readValue(depth: number): Read<JsonValue> {
    if (this.pos >= this.length) return this.fail();
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case OPEN_BRACE:
        return this.readObject(depth + 1);
      case OPEN_BRACKET:
        return this.readArray(depth + 1);
      case QUOTE:
        return this.readString();
      case 0x74:
        return this.readLiteral('true', true);
      case 0x66:
        return this.readLiteral('false', false);
      case 0x6e:
        return this.readLiteral('null', null);
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.readNumber();
        return this.fail();
    }
  }

  readArray(depth: number): Read<JsonArray> {
    if (depth > MAX_JSON_DEPTH) return this.fail('depth');
    const start = this.pos;
    this.pos++;
    const items: JsonValue[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) !== 0x5d) {
      while (true) {
        this.skipWhitespace();
        const item = this.readValue(depth);
        if (item === FAIL) return FAIL;
        items.push(item);
        this.skipWhitespace();
        const c = this.text.charCodeAt(this.pos);
        if (c === 0x2c) {
          this.pos++;
          continue;
        }
        if (c === 0x5d) break;
        return this.fail();
      }
    }
    this.pos++;
    const array: JsonArray = { kind: 'array', items };
    this.onContainer?.(start, this.pos, array);
    return array;
  }

  readObject(depth: number): Read<JsonObject> {
    if (depth > MAX_JSON_DEPTH) return this.fail('depth');
    const start = this.pos;
    this.pos++;
    const fields = new Map<string, JsonValue>();
    const repeatedKeys: string[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) !== 0x7d) {
      while (true) {
        this.skipWhitespace();
        if (this.text.charCodeAt(this.pos) !== QUOTE) return this.fail();
        const key = this.readString();
        if (key === FAIL) return FAIL;
        this.skipWhitespace();
        if (this.text.charCodeAt(this.pos) !== 0x3a) return this.fail();
        this.pos++;
        this.skipWhitespace();
        const value = this.readValue(depth);
        if (value === FAIL) return FAIL;
        if (fields.has(key) && !repeatedKeys.includes(key)) repeatedKeys.push(key);
        fields.set(key, value);
        this.skipWhitespace();
        const c = this.text.charCodeAt(this.pos);
        if (c === 0x2c) {
          this.pos++;
          continue;
        }
        if (c === 0x7d) break;
        return this.fail();
      }
    }
    this.pos++;
    const object: JsonObject = { kind: 'object', fields, repeatedKeys };
    this.onContainer?.(start, this.pos, object);
    return object;
  }
}

/**
 * Reads one JSON value starting exactly at `start` (no leading whitespace skipped) and returns it
 * with the index just past it. Trailing text is not examined. `onContainer` sees every array and
 * object completed on the way, even when the read as a whole fails later (a truncated reply's
 * complete parts). Never throws.
 */
export function readJsonValue(
  text: string,
  start: number,
  onContainer?: ContainerListener,
): JsonReadResult {
  const reader = new JsonReader(text, start, onContainer);
  let value: Read<JsonValue>;
  try {
    value = reader.readValue(0);
  } catch {
    // A RangeError (string too long) on hostile input: unreadable, never rethrown.
    return { ok: false, failedAt: text.length, failure: 'syntax', firstBracketInString: -1 };
  }
  if (value === FAIL) {
    return {
      ok: false,
      failedAt: reader.failedAt,
      failure: reader.failure,
      firstBracketInString: reader.firstBracketInString,
    };
  }
  return { ok: true, value, end: reader.pos };
}

/** Converts a read value to the plain value `JSON.parse` would produce (for tests and callers). */
export function toPlainJson(value: JsonValue): unknown {
  if (isJsonArray(value)) return value.items.map(toPlainJson);
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, field] of value.fields) {
      Object.defineProperty(out, key, {
        value: toPlainJson(field),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
