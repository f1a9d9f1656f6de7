import type { BehavioralFacts } from '@chi/spec';
import { solveFacts } from '@chi/worlds';
import { readBehaviorQuestion } from './behavior-question-reader';
import { behaviorQuestionSections } from './behavior-questions';
import { loadPromptTemplates, type PromptTemplate, requireTemplate } from './prompts';
import type { ScriptedNoise } from './scripted-noise';

/** An item as the ITEMS block gives it: what a participant sees. */
export interface ScriptedItem {
  readonly id: string;
  /** The option IDs of a choice item; null for an exact-answer item. */
  readonly options: readonly string[] | null;
  /** The English question. */
  readonly question: string;
}

let packagedSections: ReadonlyMap<string, PromptTemplate> | undefined;

/** The packaged `behavior-questions` sections, read once: the wording a scripted system reads. */
function questionSections(): ReadonlyMap<string, PromptTemplate> {
  packagedSections ??= behaviorQuestionSections(
    requireTemplate(loadPromptTemplates(), 'behavior-questions'),
  );
  return packagedSections;
}

/** The facts of an item as a scripted system reads them from its wording; null when unreadable. */
export function readItemFacts(item: ScriptedItem): BehavioralFacts | null {
  return readBehaviorQuestion(questionSections(), item.question);
}

/** The behavioral-task behaviour of a scripted reference system. */
export interface ScriptedBehaviorPolicy {
  /** Probability of a wrong answer on an item (a different option, or a perturbed exact answer). */
  readonly errorRate: number;
  /** Choose the sure option in a positive (kept) frame and the gamble in a negative (lost) frame. */
  readonly framingBias: boolean;
  /** Abstain (JSON null) on every item. */
  readonly abstainAlways: boolean;
}

/**
 * The correct answer of an item, from the facts its wording states (the worlds package's
 * reference solver, which defines the task); null when the wording cannot be read or the facts
 * have no unique answer.
 */
export function solveItem(item: ScriptedItem): string | null {
  const facts = readItemFacts(item);
  if (facts === null) return null;
  try {
    return solveFacts(facts);
  } catch {
    return null;
  }
}

function wrongAnswer(item: ScriptedItem, correct: string | null, noise: ScriptedNoise): string {
  if (item.options !== null && item.options.length > 1) {
    const others = item.options.filter((option) => option !== correct);
    const index = Math.floor(noise.uniform(`wrong:${item.id}`) * others.length);
    return others[index] ?? others[0] ?? 'unknown';
  }
  if (correct === null) return 'unknown';
  if (/^-?[0-9]+$/.test(correct)) return String(Number(correct) + 1);
  return [...correct].reverse().join('') === correct
    ? `${correct}${correct.slice(0, 1)}`
    : [...correct].reverse().join('');
}

/** Answers a half: `{ id, answer }` per item, in item order. */
export function answerBehavioralItems(
  items: readonly ScriptedItem[],
  policy: ScriptedBehaviorPolicy,
  noise: ScriptedNoise,
): { id: string; answer: string | null }[] {
  return items.map((item) => {
    if (policy.abstainAlways) return { id: item.id, answer: null };
    const correct = solveItem(item);
    const facts = policy.framingBias ? readItemFacts(item) : null;
    if (facts !== null && facts.kind === 'framed-choice') {
      const wanted = facts.measure === 'kept' ? 'sure' : 'gamble';
      const option = facts.options.find((candidate) => candidate.kind === wanted);
      if (option !== undefined) return { id: item.id, answer: option.id };
    }
    if (correct === null || noise.chance(`error:${item.id}`, policy.errorRate)) {
      return { id: item.id, answer: wrongAnswer(item, correct, noise) };
    }
    return { id: item.id, answer: correct };
  });
}
