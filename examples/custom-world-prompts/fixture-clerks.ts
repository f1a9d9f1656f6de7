/**
 * Two FIXTURE responders standing in for a model. They are not models: each reads only the prompt
 * text (as a model would) and applies a fixed rule, so their scores are known in advance.
 * - `careful`: applies the prompt's rules (rank first, then date; as-of cutoffs).
 * - `latest-wins`: ignores rank and takes the newest entry, so a later RANK 1 entry fools it.
 */
import { isoTime } from './prompt';

export const CLERKS = ['careful', 'latest-wins'] as const;
export type Clerk = (typeof CLERKS)[number];

interface LedgerEntry {
  readonly key: string;
  readonly value: string;
  readonly from: string;
  readonly when: string;
  readonly rank: number;
}

function section(lines: readonly string[], header: string): string[] {
  const start = lines.findIndex((line) => line.startsWith(header));
  if (start < 0) throw new Error(`prompt has no ${header} section`);
  const end = lines.indexOf('', start);
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The fixture clerk's reply to one prompt, in the author's answer line format. */
export function clerkReply(clerk: Clerk, prompt: string): string {
  const lines = prompt.split('\n');
  const ledger: LedgerEntry[] = section(lines, 'LEDGER').map((line) => {
    const [key = '', value = '', from = '', when = '', rank = ''] = line.split(' | ');
    return { key, value, from, when: isoTime(when), rank: Number(rank) };
  });
  const answers = ['Here are my answers:'];
  for (const question of section(lines, 'QUESTIONS')) {
    const match = /^(\S+): What (?:is|was) the value of (\S+) (?:now|at (.+))\?$/.exec(question);
    if (match === null) throw new Error(`cannot read question ${JSON.stringify(question)}`);
    const [, id, key, at] = match;
    const cutoff = at === undefined ? null : isoTime(at);
    const eligible = ledger
      .filter((entry) => entry.key === key && (cutoff === null || entry.when <= cutoff))
      .sort((a, b) => {
        if (clerk === 'careful' && a.rank !== b.rank) return b.rank - a.rank;
        return a.when < b.when ? 1 : a.when > b.when ? -1 : 0;
      });
    const winner = eligible[0];
    answers.push(winner === undefined ? `${id},UNKNOWN` : `${id},${winner.value},${winner.from}`);
  }
  return answers.join('\n');
}
