import { extractJsonBlock } from '@chi/experiment';
import type { ScriptedAnswer, ScriptedQuestion } from '@chi/experiments/internal';
import {
  behaviorQuestionSections,
  HISTORY_NOTES_HEADER,
  matchTemplate,
  type ScriptedChoice,
  type ScriptedItem,
} from '@chi/experiments/internal';
import {
  type ChatModel,
  type HumanCalibration,
  InvalidArgumentError,
  type SystemSpec,
} from '@chi/spec';
import type { BehavioralAxis } from '@chi/spec/internal';
import { registeredPromptTemplates } from '../experiments/declared-templates';
import { type PromptTemplate, requireTemplate } from '../prompts';
import { createScriptedNoise, type ScriptedNoise } from './scripted-noise';
import {
  DEFAULT_SCRIPTED_SEED,
  type ScriptedModelOptions,
  scriptedBaselineSpec,
  scriptedChatModel,
  smokeReply,
} from './scripted-systems';

/** The name of the scripted imitator (`--systems imitator`, model `scripted/imitator`). */
export const IMITATOR_SYSTEM_NAME = 'imitator';

/**
 * What the imitator aims at: the calibration's style features, read from its centroid mu (a
 * frozen calibration is public). Each is a probability in [0, 1], declared in the manifest as the
 * system's `declaredNoise`, so the run folder alone rebuilds the system.
 */
export interface ImitatorTargets {
  /** Probability of abstaining on an R item (mu of `R.abstain_rate`). */
  readonly imitatorAbstainR: number;
  /** Probability of abstaining on a C item (mu of `C.abstain_rate`). */
  readonly imitatorAbstainC: number;
  /** Probability of abstaining on an I item (mu of `I.abstain_rate`). */
  readonly imitatorAbstainI: number;
  /** Probability that a framed pair gets different choices in its two frames (mu of `A.frame_change_rate`). */
  readonly imitatorFrameChange: number;
  /** Probability of inventing an answer to a memory question (mu of `M.false_memory_rate`). */
  readonly imitatorMemoryInvent: number;
}

const TARGET_FEATURES: readonly {
  readonly target: keyof ImitatorTargets;
  readonly axis: 'R' | 'M' | 'C' | 'A' | 'I';
  readonly feature: string;
}[] = [
  { target: 'imitatorAbstainR', axis: 'R', feature: 'abstain_rate' },
  { target: 'imitatorAbstainC', axis: 'C', feature: 'abstain_rate' },
  { target: 'imitatorAbstainI', axis: 'I', feature: 'abstain_rate' },
  { target: 'imitatorFrameChange', axis: 'A', feature: 'frame_change_rate' },
  { target: 'imitatorMemoryInvent', axis: 'M', feature: 'false_memory_rate' },
];

const clampUnit = (value: number): number => Math.min(1, Math.max(0, value));

/**
 * The imitator's targets from a calibration: each style feature's mu, clamped to [0, 1]; a
 * feature the calibration does not calibrate gets 0 (its value cannot move h).
 */
export function imitatorTargets(calibration: HumanCalibration): ImitatorTargets {
  const out: Record<string, number> = {};
  for (const { target, axis, feature } of TARGET_FEATURES) {
    const mu = calibration.axes[axis]?.[feature]?.mu;
    out[target] = mu === undefined ? 0 : clampUnit(mu);
  }
  return out as unknown as ImitatorTargets;
}

/**
 * The targets declared in a manifest entry (`scripted.declaredNoise`).
 *
 * @throws InvalidArgumentError naming the missing or out-of-range target.
 */
export function imitatorTargetsFromDeclared(
  declared: Readonly<Record<string, number>>,
): ImitatorTargets {
  const out: Record<string, number> = {};
  for (const { target } of TARGET_FEATURES) {
    const value = declared[target];
    if (typeof value !== 'number' || !(value >= 0 && value <= 1))
      throw new InvalidArgumentError(
        `scripted.declaredNoise.${target}`,
        `expected the imitator's target probability in [0, 1], found ${String(value)}`,
      );
    out[target] = value;
  }
  return out as unknown as ImitatorTargets;
}

/** The description of the imitator in the manifest and every table. */
export function imitatorDescription(calibrationId: string): string {
  return `SCRIPTED BASELINE imitator of calibration ${calibrationId}: does not do the tasks. It answers content-blind so that the style features land on the calibration centroid mu: abstains on R, C and I items at the human mean abstain rates, changes its choice across the two frames of a pair at the human mean frame-change rate, writes no memory notes and invents an answer to a memory question at the human mean false-memory rate (abstaining otherwise), picks options uniformly and answers exact items "unknown", abstains on history decisions. Its accuracy features sit at chance, so it shows how far similarity can be gamed while capacity stays low.`;
}

/**
 * The manifest entry of the imitator aimed at `calibration` (evidence class `scripted_baseline`;
 * targets declared as `declaredNoise`).
 */
export function imitatorSystemSpec(
  calibration: HumanCalibration,
  seed: number = DEFAULT_SCRIPTED_SEED,
  maxOutputTokens = 4096,
): SystemSpec {
  return scriptedBaselineSpec({
    name: IMITATOR_SYSTEM_NAME,
    seed,
    maxOutputTokens,
    uncappedNotebook: false,
    declaredNoise: { ...imitatorTargets(calibration) },
    description: imitatorDescription(calibration.id),
  });
}

/** True for a manifest entry of the imitator. */
export function isImitatorSystem(system: SystemSpec): boolean {
  return system.kind === 'scripted' && system.model === `scripted/${IMITATOR_SYSTEM_NAME}`;
}

/** First (and only) line of the imitator's memory notes: it keeps nothing. */
export const IMITATOR_NOTES = '#scripted-imitator-notes v1';

let packagedSections: ReadonlyMap<string, PromptTemplate> | undefined;

function questionSections(): ReadonlyMap<string, PromptTemplate> {
  packagedSections ??= behaviorQuestionSections(
    requireTemplate(registeredPromptTemplates(), 'behavior-questions'),
  );
  return packagedSections;
}

/** What kind of question an item is, from which wording template it fits (never its values). */
interface ItemKind {
  readonly axis: BehavioralAxis;
  /** For an A item: the frame its wording uses. */
  readonly frame: 'positive' | 'negative' | null;
}

const SECTION_AXES: readonly (readonly [string, BehavioralAxis])[] = [
  ['symbol-rewrite', 'R'],
  ['counterfactual-operator', 'R'],
  ['information-gap', 'C'],
  ['framed-choice-kept', 'A'],
  ['framed-choice-lost', 'A'],
  ['constrained-selection', 'I'],
];

/**
 * The kind of an item: the first wording template the whole question fits, and for a framed
 * choice whether its options are worded as units kept (positive frame) or lost (negative). The
 * captured values (amounts, candidates, symbols) are thrown away: the imitator recognises a
 * question type the way a participant sees "this is a gamble question, worded as losses", and
 * never evaluates it. An unrecognised question is R when it has no options and C otherwise.
 */
export function imitatorItemKind(item: ScriptedItem): ItemKind {
  const sections = questionSections();
  for (const [name, axis] of SECTION_AXES) {
    const template = sections.get(name);
    if (template === undefined || matchTemplate(template, item.question) === null) continue;
    return { axis, frame: axis === 'A' ? frameOf(sections, item.question) : null };
  }
  return { axis: item.options === null ? 'R' : 'C', frame: null };
}

/** The frame of a framed-choice question: whether some option fits the units-lost wording. */
function frameOf(
  sections: ReadonlyMap<string, PromptTemplate>,
  question: string,
): 'positive' | 'negative' {
  const options = question.split(/ (?=Option )/).map((text) => text.trim());
  const lost = ['sure-lost', 'gamble-lost'].flatMap((name) => {
    const template = sections.get(name);
    return template === undefined ? [] : [template];
  });
  return options.some((text) => lost.some((template) => matchTemplate(template, text) !== null))
    ? 'negative'
    : 'positive';
}

function abstainRate(targets: ImitatorTargets, axis: BehavioralAxis): number {
  if (axis === 'R') return targets.imitatorAbstainR;
  if (axis === 'C') return targets.imitatorAbstainC;
  if (axis === 'I') return targets.imitatorAbstainI;
  return 0;
}

/**
 * The choice of a framed pair, the same draw in both halves: both frames of a pair list the same
 * option IDs in the same order (the only thing tying them), so the draws are named by those IDs
 * and the system seed, never by a request's nonce. Option `base` in the positive frame; in the
 * negative frame the other option when the pair's change draw falls under the target rate.
 */
function framedChoice(
  item: ScriptedItem,
  options: readonly string[],
  frame: 'positive' | 'negative',
  targets: ImitatorTargets,
  seed: number,
): string {
  const pairNoise = createScriptedNoise(seed, `framed-pair:${options.join('|')}`);
  const base = Math.floor(pairNoise.uniform('base') * options.length);
  const change = frame === 'negative' && pairNoise.chance('change', targets.imitatorFrameChange);
  const index = change ? (base + 1) % options.length : base;
  return options[index] ?? options[0] ?? item.id;
}

/** The imitator's answers to a behavioral half: content-blind, at the targets' rates. */
export function imitateBehavioralItems(
  items: readonly ScriptedItem[],
  targets: ImitatorTargets,
  seed: number,
  noise: ScriptedNoise,
): { id: string; answer: string | null }[] {
  return items.map((item) => {
    const kind = imitatorItemKind(item);
    const options = item.options;
    if (kind.axis === 'A' && options !== null && options.length > 0)
      return {
        id: item.id,
        answer: framedChoice(item, options, kind.frame ?? 'positive', targets, seed),
      };
    if (noise.chance(`abstain:${item.id}`, abstainRate(targets, kind.axis)))
      return { id: item.id, answer: null };
    if (options === null || options.length === 0) return { id: item.id, answer: 'unknown' };
    const index = Math.floor(noise.uniform(`option:${item.id}`) * options.length);
    return { id: item.id, answer: options[index] ?? options[0] ?? 'unknown' };
  });
}

/**
 * The imitator's answers to memory questions, without notes: an invented value and source with
 * the target probability (on a lure that is a false memory), else an explicit abstention.
 */
export function imitateMemoryAnswers(
  questions: readonly ScriptedQuestion[],
  targets: ImitatorTargets,
  noise: ScriptedNoise,
): ScriptedAnswer[] {
  return questions.map((question) =>
    noise.chance(`invent:${question.id}`, targets.imitatorMemoryInvent)
      ? {
          id: question.id,
          value: noise.hex8(`invent-value:${question.id}`),
          source: `src-${noise.hex8(`invent-source:${question.id}`).slice(0, 5)}`,
        }
      : { id: question.id, value: null, source: null },
  );
}

function asArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${what} block missing or not an array`);
  return value;
}

/**
 * The imitator's reply to one rendered prompt. It reads the REQUEST header, the question IDs and
 * options, and which wording template an item fits; it never reads RECORDS, NOTES or an EVENT,
 * and never solves an item. Throws when the prompt is not one of ours.
 */
export function imitatorReply(targets: ImitatorTargets, seed: number, prompt: string): string {
  const header = extractJsonBlock(prompt, 'REQUEST') as { task?: unknown; nonce?: unknown } | null;
  if (header === null || typeof header !== 'object' || typeof header.nonce !== 'string')
    throw new Error('REQUEST block has no nonce');
  const noise = createScriptedNoise(seed, header.nonce);
  switch (header.task) {
    case 'memory_encode':
      return IMITATOR_NOTES;
    case 'memory_probe':
    case 'memory_probe_oracle': {
      const questions = asArray(
        extractJsonBlock(prompt, 'QUESTIONS'),
        'QUESTIONS',
      ) as ScriptedQuestion[];
      return JSON.stringify(imitateMemoryAnswers(questions, targets, noise));
    }
    case 'history_update':
      return HISTORY_NOTES_HEADER;
    case 'history_probe': {
      const questions = asArray(
        extractJsonBlock(prompt, 'QUESTIONS'),
        'QUESTIONS',
      ) as ScriptedChoice[];
      return JSON.stringify(questions.map((question) => ({ id: question.id, answer: null })));
    }
    case 'behavior_half': {
      const items = asArray(extractJsonBlock(prompt, 'ITEMS'), 'ITEMS') as ScriptedItem[];
      return JSON.stringify(imitateBehavioralItems(items, targets, seed, noise));
    }
    case 'smoke':
      return smokeReply(prompt);
    default:
      throw new Error(`unknown task ${JSON.stringify(header.task)}`);
  }
}

/**
 * The scripted imitator behind the `ChatModel` interface: a SCRIPTED BASELINE (evidence class
 * `scripted_baseline`, cost 0) whose replies depend only on the prompt, the seed and its targets.
 *
 * @example
 * ```ts
 * const spec = imitatorSystemSpec(calibration);
 * const model = createImitatorModel(imitatorTargets(calibration), { seed: spec.scripted?.seed });
 * ```
 */
export function createImitatorModel(
  targets: ImitatorTargets,
  options: ScriptedModelOptions = {},
): ChatModel {
  const seed = options.seed ?? DEFAULT_SCRIPTED_SEED;
  return scriptedChatModel(
    `scripted/${IMITATOR_SYSTEM_NAME}`,
    (prompt) => imitatorReply(targets, seed, prompt),
    options.now ?? (() => new Date()),
  );
}
