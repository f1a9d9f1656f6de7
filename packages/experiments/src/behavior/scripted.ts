import { extractJsonBlock, type PromptTemplate, parsePromptTemplate } from '@chi/experiment';
import type { BehavioralFacts } from '@chi/spec/internal';
import { solveFacts } from '@chi/worlds/internal';
import type { ScriptedContext, ScriptedNoise } from '../built-in-experiment';
import { scriptedArray, scriptedPolicy } from '../scripted-blocks';
import { BEHAVIOR_QUESTIONS_PROMPT, BEHAVIOR_QUESTIONS_W2_PROMPT } from './prompts';
import { readBehaviorQuestion } from './question-reader';
import { behaviorQuestionSections } from './questions';

/** An item as the ITEMS block gives it: what a participant sees. */
export interface ScriptedItem {
  readonly id: string;
  /** The option IDs of a choice item; null for an exact-answer item. */
  readonly options: readonly string[] | null;
  /** The English question. */
  readonly question: string;
}

let packagedSections: readonly ReadonlyMap<string, PromptTemplate>[] | undefined;

/**
 * The sections of every declared wording (`behavior-questions`, then `behavior-questions-w2`),
 * parsed once: the wordings a scripted system can read, in wording order.
 */
function questionSections(): readonly ReadonlyMap<string, PromptTemplate>[] {
  if (packagedSections === undefined) {
    packagedSections = [BEHAVIOR_QUESTIONS_PROMPT, BEHAVIOR_QUESTIONS_W2_PROMPT].map((declared) =>
      behaviorQuestionSections(parsePromptTemplate(declared.name, declared.version, declared.text)),
    );
  }
  return packagedSections;
}

/** An item's facts as a scripted system reads them, and the wording (1, 2) they were read in. */
export function readItemWording(
  item: ScriptedItem,
): { readonly facts: BehavioralFacts; readonly wording: number } | null {
  const sections = questionSections();
  for (let index = 0; index < sections.length; index++) {
    const facts = readBehaviorQuestion(
      sections[index] as ReadonlyMap<string, PromptTemplate>,
      item.question,
    );
    if (facts !== null) return { facts, wording: index + 1 };
  }
  return null;
}

/** The facts of an item as a scripted system reads them from its wording; null when unreadable. */
export function readItemFacts(item: ScriptedItem): BehavioralFacts | null {
  return readItemWording(item)?.facts ?? null;
}

/** The behavioral-task behaviour of a scripted reference system. */
export interface ScriptedBehaviorPolicy {
  /** Probability of a wrong answer on an item (a different option, or a perturbed exact answer). */
  readonly errorRate: number;
  /** Choose the sure option in a positive (kept) frame and the gamble in a negative (lost) frame. */
  readonly framingBias: boolean;
  /** Abstain (JSON null) on every item. */
  readonly abstainAlways: boolean;
  /**
   * Probability of a wrong answer on an item asked in its second wording (a wording-sensitive
   * system: the wording, not the facts, moves its answer). Absent means 0.
   */
  readonly wordingFlip?: number;
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
    const flip =
      (policy.wordingFlip ?? 0) > 0 &&
      readItemWording(item)?.wording === 2 &&
      noise.chance(`wording:${item.id}`, policy.wordingFlip ?? 0);
    if (correct === null || flip || noise.chance(`error:${item.id}`, policy.errorRate)) {
      return { id: item.id, answer: wrongAnswer(item, correct, noise) };
    }
    return { id: item.id, answer: correct };
  });
}

/** The reply of a scripted system to one behavioral half: an answer per item of its ITEMS block. */
export function scriptedBehaviorReply(context: ScriptedContext<ScriptedBehaviorPolicy>): string {
  const policy = scriptedPolicy(context, 'behavior');
  const items = scriptedArray(extractJsonBlock(context.prompt, 'ITEMS'), 'ITEMS') as ScriptedItem[];
  return JSON.stringify(answerBehavioralItems(items, policy, context.noise));
}
