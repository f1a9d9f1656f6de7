import { extractJsonBlock } from '@chi/experiment';
import type { ScriptedContext, ScriptedNoise } from '../built-in-experiment';
import { scriptedArray, scriptedNotes, scriptedObject, scriptedPolicy } from '../scripted-blocks';

/** A record as a scripted system reads it from a RECORDS block or from its own notes. */
export interface ScriptedRecord {
  readonly key: string;
  readonly value: string;
  readonly source: string;
  readonly eventTime: string;
  /** Null when the notes did not keep the authority (the latest-wins reader drops it). */
  readonly authority: 1 | 2 | null;
}

/** How a scripted system decides which record of a key answers a question. */
export type ScriptedPrecedence = 'authority-then-time' | 'latest-time';

/** The memory behaviour of a scripted reference system. */
export interface ScriptedMemoryPolicy {
  /** `all`: write every record (needs an uncapped notebook); `capacity`: fit whole keys in the cap; `none`: write nothing. */
  readonly encode: 'all' | 'capacity' | 'none';
  readonly precedence: ScriptedPrecedence;
  /** What to answer when the notes (or records) give no answer: abstain, or invent a value. */
  readonly whenUnknown: 'abstain' | 'invent';
  /** Abstain on every question whatever the notes say. */
  readonly abstainAlways: boolean;
  /**
   * Fading recall (the opt-in `fading-recall` system, docs/protocol.md "A scripted system with a
   * known, interior EIMC"): an answer the notes give is kept with probability
   * q(N) = 2^(-N / recallHalfLoad), else the system abstains; N is the load read off the number of
   * records (see {@link loadOfRecordCount}). Absent: every answer is kept.
   */
  readonly recallHalfLoad?: number;
  /**
   * Decay with wall-clock time (the opt-in `fading-notebook` system, docs/study-decay.md): the
   * notes carry the instant they were written, and at a question each key's records are kept with
   * probability 2^(-days since written / halfLifeDays), one draw per key from the instance's
   * stream (the same draw at every session, so what is forgotten stays forgotten); a forgotten
   * key has no answer. Absent: no decay.
   */
  readonly halfLifeDays?: number;
}

/** The note line that records when scripted notes were written (`# written-at <ISO>`). */
const WRITTEN_AT_PREFIX = '# written-at ';

/** Scripted notes with the instant they were written appended (a comment line readers skip). */
export function withWrittenAt(notes: string, now: Date): string {
  return `${notes}\n${WRITTEN_AT_PREFIX}${now.toISOString()}`;
}

/** The instant scripted notes say they were written, or null. */
export function writtenAtOf(notes: string): Date | null {
  const line = notes.split('\n').find((entry) => entry.startsWith(WRITTEN_AT_PREFIX));
  const instant =
    line === undefined ? Number.NaN : Date.parse(line.slice(WRITTEN_AT_PREFIX.length));
  return Number.isNaN(instant) ? null : new Date(instant);
}

/** The probability a key survives `days` under a half-life of `halfLifeDays`: 2^(-days/h). */
export function decayedRecall(days: number, halfLifeDays: number): number {
  return 2 ** (-Math.max(0, days) / halfLifeDays);
}

/**
 * The records a decaying memory still holds `days` after writing: each key's whole group kept
 * with probability {@link decayedRecall}, one draw per key.
 */
export function decayedRecords(
  records: readonly ScriptedRecord[],
  days: number,
  halfLifeDays: number,
  noise: ScriptedNoise,
): ScriptedRecord[] {
  const recall = decayedRecall(days, halfLifeDays);
  return records.filter((record) => noise.uniform(`decay:${record.key}`) < recall);
}

/**
 * The load N of a memory world with `records` records: a world of load N holds N targets, N
 * distractors, floor(N/4) updates and floor(N/4) conflicts (docs/protocol.md, "Memory worlds"), so
 * R = 2N + 2 floor(N/4), increasing in N; the smallest N with 2N + 2 floor(N/4) >= R.
 */
export function loadOfRecordCount(records: number): number {
  let load = 1;
  while (2 * load + 2 * Math.floor(load / 4) < records) load++;
  return load;
}

/** The recall probability q(N) = 2^(-N / halfLoad) of the fading-recall policy. */
export function fadingRecall(load: number, halfLoad: number): number {
  return 2 ** (-load / halfLoad);
}

/** First line of every scripted memory notebook. */
export const MEMORY_NOTES_HEADER = '#scripted-memory-notes v1';

function timeOf(record: ScriptedRecord): number {
  return Date.parse(record.eventTime);
}

/**
 * Orders the records of one key from winner to loser under a precedence: authority then time
 * (the protocol rule), or time alone (a reader that ignores authority).
 */
export function rankRecords(
  records: readonly ScriptedRecord[],
  precedence: ScriptedPrecedence,
): ScriptedRecord[] {
  if (records.length < 2) return [...records];
  // Each record's time is parsed once, not once per comparison; the sort is stable, as before.
  const timed = records.map((record) => ({ record, time: timeOf(record) }));
  timed.sort((left, right) => {
    if (precedence === 'authority-then-time') {
      const byAuthority = (right.record.authority ?? 0) - (left.record.authority ?? 0);
      if (byAuthority !== 0) return byAuthority;
    }
    return right.time - left.time;
  });
  return timed.map((entry) => entry.record);
}

/** The answering record for a key under a precedence, as of `asOf` (null: now); null if none. */
export function resolveScripted(
  records: readonly ScriptedRecord[],
  asOf: string | null,
  precedence: ScriptedPrecedence,
): ScriptedRecord | null {
  const cutoff = asOf === null ? Number.POSITIVE_INFINITY : Date.parse(asOf);
  const eligible = records.filter((record) => timeOf(record) <= cutoff);
  return rankRecords(eligible, precedence)[0] ?? null;
}

function groupByKey(records: readonly ScriptedRecord[]): Map<string, ScriptedRecord[]> {
  const groups = new Map<string, ScriptedRecord[]>();
  for (const record of records) {
    const group = groups.get(record.key);
    if (group === undefined) groups.set(record.key, [record]);
    else group.push(record);
  }
  return groups;
}

function formatLine(record: ScriptedRecord, keepAuthority: boolean): string {
  // `?? ''` keeps `Array.prototype.join`'s reading of a missing field (the empty string).
  const line = `${record.key ?? ''} ${record.value ?? ''} ${record.source ?? ''} ${record.eventTime ?? ''}`;
  return keepAuthority && record.authority !== null ? `${line} ${String(record.authority)}` : line;
}

/**
 * A lower bound of the bytes a key's group adds to the notes (its line break and its first
 * record's line; a UTF-16 code unit is at least one UTF-8 byte), or 0 when a field is not text.
 */
function leastGroupBytes(group: readonly ScriptedRecord[]): number {
  const { key, value, source, eventTime } = group[0] as ScriptedRecord;
  if (
    typeof key !== 'string' ||
    typeof value !== 'string' ||
    typeof source !== 'string' ||
    typeof eventTime !== 'string'
  )
    return 0;
  return key.length + value.length + source.length + eventTime.length + 3 + 1;
}

/** UTF-8 bytes of a text (what `TextEncoder` would produce, counted without encoding it). */
function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Writes the notes of a scripted system: a header line, then one line per record
 * (`key value source eventTime [authority]`), grouped by key with the key's winner first.
 * `all` writes every key in record order; `capacity` visits keys in a seeded random order and
 * writes a key's whole group only if it still fits in `capBytes` (a key is kept whole or not at
 * all), so the kept share of keys falls as the load grows.
 */
export function writeMemoryNotes(
  records: readonly ScriptedRecord[],
  policy: ScriptedMemoryPolicy,
  capBytes: number,
  noise: ScriptedNoise,
): string {
  if (policy.encode === 'none') return MEMORY_NOTES_HEADER;
  const keepAuthority = policy.precedence === 'authority-then-time';
  const capacity = policy.encode === 'capacity';
  // Each key's draw is taken once and held beside it: the sort compares numbers, not map lookups.
  const groups = [...groupByKey(records)].map(([key, group]) => ({
    group,
    draw: capacity ? noise.uniform(`keep-order:${key}`) : 0,
  }));
  if (capacity) groups.sort((left, right) => left.draw - right.draw);
  let text = MEMORY_NOTES_HEADER;
  let bytes = utf8Bytes(text);
  for (const { group } of groups) {
    // A group that cannot fit is skipped unformatted: what is kept is unchanged.
    if (capacity && bytes + leastGroupBytes(group) > capBytes) continue;
    const groupText = rankRecords(group, policy.precedence)
      .map((record) => formatLine(record, keepAuthority))
      .join('\n');
    const groupBytes = utf8Bytes(groupText) + 1;
    if (capacity && bytes + groupBytes > capBytes) continue;
    text += `\n${groupText}`;
    bytes += groupBytes;
  }
  return text;
}

/** Reads records back from scripted notes; lines that do not parse are ignored. */
export function readMemoryNotes(notes: string): ScriptedRecord[] {
  const records: ScriptedRecord[] = [];
  for (const line of notes.split('\n')) {
    if (line.startsWith('#')) continue;
    const fields = line.trim().split(/\s+/);
    if (fields.length < 4 || fields.length > 5) continue;
    const [key, value, source, eventTime, authorityText] = fields as [
      string,
      string,
      string,
      string,
      string?,
    ];
    if (!/^[0-9a-f]{8}$/.test(value) || Number.isNaN(Date.parse(eventTime))) continue;
    const authority = authorityText === '2' ? 2 : authorityText === '1' ? 1 : null;
    records.push({ key, value, source, eventTime, authority });
  }
  return records;
}

/** A blind question as the QUESTIONS block gives it. */
export interface ScriptedQuestion {
  readonly id: string;
  readonly key: string;
  readonly asOf: string | null;
}

/** One answer in the protocol's reply format. */
export interface ScriptedAnswer {
  readonly id: string;
  readonly value: string | null;
  readonly source: string | null;
}

/** Answers blind questions from records (read from notes, or the oracle's RECORDS block). */
export function answerMemoryQuestions(
  records: readonly ScriptedRecord[],
  questions: readonly ScriptedQuestion[],
  policy: ScriptedMemoryPolicy,
  noise: ScriptedNoise,
): ScriptedAnswer[] {
  const groups = groupByKey(records);
  const recall =
    policy.recallHalfLoad === undefined
      ? 1
      : fadingRecall(loadOfRecordCount(records.length), policy.recallHalfLoad);
  return questions.map((question) => {
    if (policy.abstainAlways) return { id: question.id, value: null, source: null };
    const winner = resolveScripted(
      groups.get(question.key) ?? [],
      question.asOf,
      policy.precedence,
    );
    // One draw per question from the instance's stream: kept with probability q(N).
    if (winner !== null && recall < 1 && noise.uniform(`recall:${question.id}`) >= recall)
      return { id: question.id, value: null, source: null };
    if (winner !== null) return { id: question.id, value: winner.value, source: winner.source };
    if (policy.whenUnknown === 'invent') {
      return {
        id: question.id,
        value: noise.hex8(`invent-value:${question.id}`),
        source: `src-${noise.hex8(`invent-source:${question.id}`).slice(0, 5)}`,
      };
    }
    return { id: question.id, value: null, source: null };
  });
}

/** How many parsed RECORDS blocks {@link recordsOf} keeps (the blocks in flight at once). */
const RECORDS_KEPT = 4;
/** The last RECORDS blocks parsed, by prompt text (read only: no reader changes a record). */
const parsedRecords = new Map<string, readonly ScriptedRecord[]>();

/**
 * The RECORDS block of a prompt. Every system of a block gets the same encode (or oracle) prompt,
 * so the block is parsed once for all of them, not once per system: the last few parses are kept
 * by prompt text (a reply depends only on the text, so the same text gives the same records).
 */
function recordsOf(prompt: string): readonly ScriptedRecord[] {
  const known = parsedRecords.get(prompt);
  if (known !== undefined) return known;
  const records = scriptedArray(extractJsonBlock(prompt, 'RECORDS'), 'RECORDS') as ScriptedRecord[];
  if (parsedRecords.size >= RECORDS_KEPT)
    parsedRecords.delete(parsedRecords.keys().next().value as string);
  parsedRecords.set(prompt, records);
  return records;
}

/**
 * The records a scripted system reads from a stored transcript (the replay baseline): every
 * RECORDS block of the transcript's user messages. A scripted system reads the whole transcript,
 * uncapped, whatever it kept in its notes; that is what replay buys at its storage cost.
 */
function transcriptRecords(transcript: unknown): ScriptedRecord[] {
  return scriptedArray(transcript, 'TRANSCRIPT').flatMap((turn) => {
    const { speaker, text } = scriptedObject(turn, 'TRANSCRIPT turn');
    if (speaker !== 'user' || typeof text !== 'string') return [];
    const records = extractJsonBlock(text, 'RECORDS');
    return records === undefined ? [] : (scriptedArray(records, 'RECORDS') as ScriptedRecord[]);
  });
}

/** The records a decaying system still holds now (all of them without a half-life). */
function decayedMemory(
  policy: ScriptedMemoryPolicy,
  records: ScriptedRecord[],
  notes: string | null,
  now: () => Date,
  noise: ScriptedNoise,
): ScriptedRecord[] {
  const halfLifeDays = policy.halfLifeDays;
  const writtenAt = notes === null ? null : writtenAtOf(notes);
  if (halfLifeDays === undefined || writtenAt === null) return records;
  // the clock is read only by a decaying system: a run's fixed test clock steps on every read,
  // so reading it for the others would move their recorded latencies
  const days = (now().getTime() - writtenAt.getTime()) / 86_400_000;
  return decayedRecords(records, days, halfLifeDays, noise);
}

/** The questions of a prompt's QUESTIONS block. */
function questionsOf(prompt: string): ScriptedQuestion[] {
  return scriptedArray(extractJsonBlock(prompt, 'QUESTIONS'), 'QUESTIONS') as ScriptedQuestion[];
}

/**
 * The reply of a scripted system to a memory request: its notes (`memory_encode`, from the
 * RECORDS block, capped at the prompt's notebook cap; stamped with the time when it decays), or
 * its answers (`memory_probe` from its notes or a replayed transcript, `memory_probe_oracle` from
 * the records in context).
 */
export function scriptedMemoryReply(context: ScriptedContext<ScriptedMemoryPolicy>): string {
  const policy = scriptedPolicy(context, 'memory');
  const { prompt, noise } = context;
  if (context.task === 'memory_encode') {
    const notes = writeMemoryNotes(recordsOf(prompt), policy, context.notebookCapBytes, noise);
    return policy.halfLifeDays === undefined ? notes : withWrittenAt(notes, context.now());
  }
  if (context.task === 'memory_probe_oracle')
    return JSON.stringify(
      answerMemoryQuestions(recordsOf(prompt), questionsOf(prompt), policy, noise),
    );
  const questions = questionsOf(prompt);
  const transcript = extractJsonBlock(prompt, 'TRANSCRIPT');
  // a replayed transcript has no NOTES block (and no written-at stamp: nothing decays)
  const notes = transcript === undefined ? scriptedNotes(prompt) : null;
  const records = notes === null ? transcriptRecords(transcript) : readMemoryNotes(notes);
  return JSON.stringify(
    answerMemoryQuestions(
      decayedMemory(policy, records, notes, () => context.now(), noise),
      questions,
      policy,
      noise,
    ),
  );
}
