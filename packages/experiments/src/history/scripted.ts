import { extractJsonBlock } from '@chi/experiment';
import type { ScriptedContext, ScriptedNoise } from '../built-in-experiment';
import { scriptedArray, scriptedNotes, scriptedObject, scriptedPolicy } from '../scripted-blocks';

/** A choice as the CHOICES / QUESTIONS blocks give it. */
export interface ScriptedChoice {
  readonly id: string;
  readonly subject: string;
  readonly options: readonly [string, string];
}

/** One piece of evidence as the EVENT block gives it (option labels, not coordinates). */
export interface ScriptedEvidence {
  readonly choice: string;
  readonly date: string;
  readonly source: string;
  readonly kind: 'observation' | 'authoritative_correction';
  readonly moreReliable: string;
}

/** What a scripted system believes about one choice. */
interface Belief {
  readonly choice: string;
  readonly moreReliable: string;
  readonly date: string;
  readonly kind: 'observation' | 'authoritative_correction';
}

/** The history behaviour of a scripted reference system. */
export interface ScriptedHistoryPolicy {
  /** `authoritative`: a correction supersedes earlier evidence; `latest`: the latest-dated evidence wins. */
  readonly evidenceRule: 'authoritative' | 'latest';
  /** Probability that a neutral maintenance pass drops a belief (forgetting). */
  readonly maintenanceForget: number;
  /** Probability that a probe answer about a held belief comes out as the other option. */
  readonly probeFlip: number;
  /** With no belief: answer `unknown`, or pick an option anyway (confabulate). */
  readonly whenUnknown: 'unknown' | 'guess';
  /** Abstain (JSON null) on every decision. */
  readonly abstainAlways: boolean;
}

/** First line of every scripted history notebook. */
export const HISTORY_NOTES_HEADER = '#scripted-history-notes v1';

function readBeliefs(notes: string): Map<string, Belief> {
  const beliefs = new Map<string, Belief>();
  for (const line of notes.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    try {
      const parsed = JSON.parse(line) as Partial<Belief>;
      if (
        typeof parsed.choice === 'string' &&
        typeof parsed.moreReliable === 'string' &&
        typeof parsed.date === 'string' &&
        (parsed.kind === 'observation' || parsed.kind === 'authoritative_correction')
      ) {
        beliefs.set(parsed.choice, {
          choice: parsed.choice,
          moreReliable: parsed.moreReliable,
          date: parsed.date,
          kind: parsed.kind,
        });
      }
    } catch {
      // a line the system did not write: ignored
    }
  }
  return beliefs;
}

function writeBeliefs(beliefs: ReadonlyMap<string, Belief>): string {
  const lines = [...beliefs.values()]
    .sort((left, right) => (left.choice < right.choice ? -1 : left.choice > right.choice ? 1 : 0))
    .map((belief) => JSON.stringify(belief));
  return [HISTORY_NOTES_HEADER, ...lines].join('\n');
}

function supersedes(
  next: ScriptedEvidence,
  held: Belief | undefined,
  rule: ScriptedHistoryPolicy['evidenceRule'],
): boolean {
  if (held === undefined) return true;
  const later = Date.parse(next.date) >= Date.parse(held.date);
  if (rule === 'latest') return later;
  if (next.kind === 'authoritative_correction' && held.kind !== 'authoritative_correction')
    return true;
  if (held.kind === 'authoritative_correction' && next.kind !== 'authoritative_correction')
    return false;
  return later;
}

/**
 * A notebook update: the previous notes plus the new event. Evidence is applied in date order;
 * a neutral maintenance pass (no evidence) may forget beliefs with the declared probability.
 */
export function updateHistoryNotes(
  notes: string,
  event: { readonly kind: string; readonly evidence: readonly ScriptedEvidence[] },
  policy: ScriptedHistoryPolicy,
  noise: ScriptedNoise,
): string {
  if (policy.abstainAlways) return HISTORY_NOTES_HEADER;
  const beliefs = readBeliefs(notes);
  const ordered = [...event.evidence].sort(
    (left, right) => Date.parse(left.date) - Date.parse(right.date),
  );
  for (const evidence of ordered) {
    if (supersedes(evidence, beliefs.get(evidence.choice), policy.evidenceRule)) {
      beliefs.set(evidence.choice, {
        choice: evidence.choice,
        moreReliable: evidence.moreReliable,
        date: evidence.date,
        kind: evidence.kind,
      });
    }
  }
  if (event.evidence.length === 0) {
    for (const choice of [...beliefs.keys()]) {
      if (noise.chance(`forget:${choice}`, policy.maintenanceForget)) beliefs.delete(choice);
    }
  }
  return writeBeliefs(beliefs);
}

/** Decisions for blind questions from the notes: a label, `unknown`, or null (abstention). */
export function answerHistoryQuestions(
  notes: string,
  questions: readonly ScriptedChoice[],
  policy: ScriptedHistoryPolicy,
  noise: ScriptedNoise,
): { id: string; answer: string | null }[] {
  const beliefs = readBeliefs(notes);
  return questions.map((question) => {
    if (policy.abstainAlways) return { id: question.id, answer: null };
    const belief = beliefs.get(question.id);
    const [first, second] = question.options;
    if (belief === undefined || !question.options.includes(belief.moreReliable)) {
      if (policy.whenUnknown === 'guess') {
        return {
          id: question.id,
          answer: noise.uniform(`guess:${question.id}`) < 0.5 ? first : second,
        };
      }
      return { id: question.id, answer: 'unknown' };
    }
    if (noise.chance(`flip:${question.id}`, policy.probeFlip)) {
      return { id: question.id, answer: belief.moreReliable === first ? second : first };
    }
    return { id: question.id, answer: belief.moreReliable };
  });
}

/**
 * The reply of a scripted system to a history request: its updated notes (`history_update`, from
 * the NOTES and EVENT blocks) or its decisions (`history_probe`, from NOTES and QUESTIONS).
 */
export function scriptedHistoryReply(context: ScriptedContext<ScriptedHistoryPolicy>): string {
  const policy = scriptedPolicy(context, 'history');
  const { prompt, noise } = context;
  if (context.task === 'history_update') {
    const event = scriptedObject(extractJsonBlock(prompt, 'EVENT'), 'EVENT');
    const evidence = scriptedArray(event.evidence, 'EVENT.evidence') as ScriptedEvidence[];
    return updateHistoryNotes(
      scriptedNotes(prompt),
      { kind: String(event.kind), evidence },
      policy,
      noise,
    );
  }
  const questions = scriptedArray(
    extractJsonBlock(prompt, 'QUESTIONS'),
    'QUESTIONS',
  ) as ScriptedChoice[];
  return JSON.stringify(answerHistoryQuestions(scriptedNotes(prompt), questions, policy, noise));
}
