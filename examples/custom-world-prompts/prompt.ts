/**
 * The benchmark author's own prompt: their wording, a pipe-separated ledger instead of JSON, their
 * own question phrasing and a comma-separated answer line format. Nothing here comes from the CHI
 * pilot's templates; only the data (records and blind probes) comes from `@chi/worlds`.
 */
import type { BlindMemoryWorld } from '@chi/spec';

/** `2026-03-21T11:26:00.000Z` -> `2026-03-21 11:26 UTC` (world times are whole minutes). */
export function humanTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** Inverse of {@link humanTime}. */
export function isoTime(human: string): string {
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}) UTC$/.exec(human.trim());
  if (match === null) throw new Error(`not a ledger time: ${JSON.stringify(human)}`);
  return `${match[1]}T${match[2]}:00.000Z`;
}

/** The whole prompt for one world: ledger, rules, questions and the answer format. */
export function renderPrompt(view: BlindMemoryWorld): string {
  const ledger = view.records.map(
    (record) =>
      `${record.key} | ${record.value} | ${record.source} | ${humanTime(record.eventTime)} | ${record.authority}`,
  );
  const questions = view.probes.map((probe) =>
    probe.asOf === null
      ? `${probe.id}: What is the value of ${probe.key} now?`
      : `${probe.id}: What was the value of ${probe.key} at ${humanTime(probe.asOf)}?`,
  );
  return [
    'You are a records clerk. Study the ledger, then answer the questions.',
    '',
    'LEDGER (KEY | VALUE | FROM | WHEN | RANK)',
    ...ledger,
    '',
    'Rules: an entry of RANK 2 (an official correction) beats any entry of RANK 1, whatever its',
    'date. Within the same rank the newer entry wins. A question "at" a time ignores entries made',
    'after that time. A key that has no entry has no value.',
    '',
    'QUESTIONS',
    ...questions,
    '',
    'Answer each question on its own line, in this exact form:',
    '  <question id>,<value>,<FROM of the entry you used>',
    'or, when the key has no value:',
    '  <question id>,UNKNOWN',
  ].join('\n');
}
