import { extractJsonBlock } from '@chi/experiment';
import { type ChatModel, InvalidArgumentError, type SystemSpec } from '@chi/spec';
import { deriveSeed } from '@chi/worlds';
import { createScriptedNoise, type ScriptedNoise } from '../scripted/scripted-noise';
import { scriptedChatModel } from '../scripted/scripted-systems';

/** The scripted reference systems of the divergence protocol, whose dynamics are known. */
export const DIVERGENCE_SYSTEM_NAMES = ['stateless', 'notebook-follower', 'hidden-state'] as const;
/** The name of a divergence scripted system. */
export type DivergenceSystemName = (typeof DIVERGENCE_SYSTEM_NAMES)[number];

/** Declared parameters of a divergence scripted system (frozen in the manifest). */
export interface DivergenceSystemPolicy {
  /**
   * Probability that an update with evidence about other choices drops a held belief (interference
   * decay): the washout rate. A belief survives k washout updates with probability (1 - rate)^k.
   */
  readonly interferenceForget: number;
  /** Probability that a probe answer about a held belief comes out as the other option. */
  readonly probeFlip: number;
  /** Reads its notebook when deciding (false: the stateless system). */
  readonly readsNotebook: boolean;
  /** Keeps beliefs inside the system, outside the notebook, and decides from them first. */
  readonly hiddenState: boolean;
  readonly description: string;
}

/** The declared policies. The known dynamics they imply are derived in docs/protocol.md. */
export const DIVERGENCE_SYSTEMS: Readonly<Record<DivergenceSystemName, DivergenceSystemPolicy>> = {
  stateless: {
    interferenceForget: 0,
    probeFlip: 0,
    readsNotebook: false,
    hiddenState: false,
    description:
      'Ignores its notebook: every decision is a fair coin between the two options, drawn independently per instance and request. Expected excess divergence 0 at every checkpoint.',
  },
  'notebook-follower': {
    interferenceForget: 0.15,
    probeFlip: 0.05,
    readsNotebook: true,
    hiddenState: false,
    description:
      'Decides from its notebook only: the latest evidence ingested for a choice wins; an update with evidence about other choices drops each held belief with p = 0.15 (washout decay); a held answer flips with p = 0.05. Expected excess divergence (1 - 0.15)^(2k) (1 - 2 * 0.05)^2 after k washout updates.',
  },
  'hidden-state': {
    interferenceForget: 0.15,
    probeFlip: 0.05,
    readsNotebook: true,
    hiddenState: true,
    description:
      'Writes the notebook like the follower, but also keeps every ingested belief inside the system (never decayed, untouched by erasure or swap) and decides from that hidden state first. Its divergence survives erasure.',
  },
};

/** The header of every divergence scripted notebook. */
export const DIVERGENCE_NOTES_HEADER = '#scripted-divergence-notes v1';

interface Evidence {
  readonly choice: string;
  readonly moreReliable: string;
}

interface Question {
  readonly id: string;
  readonly options: readonly [string, string];
}

function readNotes(notes: string): Map<string, string> {
  const beliefs = new Map<string, string>();
  for (const line of notes.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    try {
      const parsed = JSON.parse(line) as Partial<Evidence>;
      if (typeof parsed.choice === 'string' && typeof parsed.moreReliable === 'string')
        beliefs.set(parsed.choice, parsed.moreReliable);
    } catch {
      // a line the system did not write (a corrupted notebook): ignored
    }
  }
  return beliefs;
}

function writeNotes(beliefs: ReadonlyMap<string, string>): string {
  const lines = [...beliefs.entries()]
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
    .map(([choice, moreReliable]) => JSON.stringify({ choice, moreReliable }));
  return [DIVERGENCE_NOTES_HEADER, ...lines].join('\n');
}

function block(prompt: string, name: string): unknown {
  const value = extractJsonBlock(prompt, name);
  if (value === undefined) throw new Error(`${name} block missing`);
  return value;
}

function evidenceOf(prompt: string): Evidence[] {
  const event = block(prompt, 'EVENT') as { evidence?: unknown };
  if (!Array.isArray(event.evidence)) throw new Error('EVENT block has no evidence array');
  return event.evidence as Evidence[];
}

function notesOf(prompt: string): string {
  const notes = (block(prompt, 'NOTES') as { notes?: unknown }).notes;
  if (typeof notes !== 'string') throw new Error('NOTES block has no notes string');
  return notes;
}

/** Applies one update's evidence to beliefs, with interference decay of unmentioned choices. */
function ingest(
  beliefs: Map<string, string>,
  evidence: readonly Evidence[],
  forget: number,
  noise: ScriptedNoise,
): void {
  if (evidence.length > 0) {
    const mentioned = new Set(evidence.map((item) => item.choice));
    for (const choice of [...beliefs.keys()]) {
      if (!mentioned.has(choice) && noise.chance(`forget:${choice}`, forget))
        beliefs.delete(choice);
    }
  }
  for (const item of evidence) beliefs.set(item.choice, item.moreReliable);
}

function answer(
  question: Question,
  belief: string | undefined,
  policy: DivergenceSystemPolicy,
  noise: ScriptedNoise,
): { id: string; answer: string } {
  const [first, second] = question.options;
  if (!policy.readsNotebook)
    return { id: question.id, answer: noise.uniform(`coin:${question.id}`) < 0.5 ? first : second };
  if (belief === undefined || !question.options.includes(belief))
    return { id: question.id, answer: 'unknown' };
  if (noise.chance(`flip:${question.id}`, policy.probeFlip))
    return { id: question.id, answer: belief === first ? second : first };
  return { id: question.id, answer: belief };
}

/**
 * The per-instance seed: instances are independently initialized, so two instances answering a
 * byte-identical request draw independently (the same-history control's noise floor).
 */
export function instanceSeed(systemSeed: number, worldSeed: number, armId: string): number {
  return deriveSeed(systemSeed, 'divergence-instance', worldSeed, armId);
}

/** One instance's reply to a rendered prompt; `hidden` is the instance's hidden state (mutated). */
function divergenceReply(
  policy: DivergenceSystemPolicy,
  seed: number,
  hidden: Map<string, string>,
  prompt: string,
): string {
  const header = block(prompt, 'REQUEST') as { task?: unknown; nonce?: unknown };
  if (typeof header.nonce !== 'string') throw new Error('REQUEST block has no nonce');
  const noise = createScriptedNoise(seed, header.nonce);
  if (header.task === 'history_update') {
    const evidence = evidenceOf(prompt);
    if (policy.hiddenState) for (const item of evidence) hidden.set(item.choice, item.moreReliable);
    if (!policy.readsNotebook) return DIVERGENCE_NOTES_HEADER;
    const beliefs = readNotes(notesOf(prompt));
    ingest(beliefs, evidence, policy.interferenceForget, noise);
    return writeNotes(beliefs);
  }
  if (header.task === 'history_probe') {
    const questions = block(prompt, 'QUESTIONS') as Question[];
    const beliefs = readNotes(notesOf(prompt));
    return JSON.stringify(
      questions.map((question) =>
        answer(question, hidden.get(question.id) ?? beliefs.get(question.id), policy, noise),
      ),
    );
  }
  throw new Error(`unknown task ${JSON.stringify(header.task)}`);
}

/** Checks a name against the divergence systems. */
export function divergenceSystemPolicy(name: string): DivergenceSystemPolicy {
  if (!(DIVERGENCE_SYSTEM_NAMES as readonly string[]).includes(name))
    throw new InvalidArgumentError(
      'system',
      `expected one of ${DIVERGENCE_SYSTEM_NAMES.join(', ')}, found ${JSON.stringify(name)}`,
    );
  return DIVERGENCE_SYSTEMS[name as DivergenceSystemName];
}

/** The manifest entry of a divergence scripted system (evidence class `scripted_baseline`). */
export function divergenceSystemSpec(name: string, seed: number): SystemSpec {
  const policy = divergenceSystemPolicy(name);
  return {
    id: name,
    kind: 'scripted',
    model: `scripted/${name}`,
    providers: [],
    baseUrl: null,
    evidenceClass: 'scripted_baseline',
    reasoningEffort: null,
    maxOutputTokens: 4096,
    safetyPrice: null,
    uncappedNotebook: false,
    scripted: {
      seed,
      declaredNoise: {
        interferenceForget: policy.interferenceForget,
        probeFlip: policy.probeFlip,
      },
      description: policy.description,
    },
  };
}

/**
 * One instance of a divergence scripted system behind `ChatModel`: replies depend on the prompt,
 * the instance seed and (for `hidden-state`) the evidence this instance object has ingested.
 * Labelled `scripted_baseline`; costs nothing. Create one per instance.
 */
export function createDivergenceInstanceModel(name: string, seed: number): ChatModel {
  const policy = divergenceSystemPolicy(name);
  const hidden = new Map<string, string>();
  // Timestamps are fixed: a scripted reply does not depend on, or record, the clock.
  const at = new Date('2026-09-01T00:00:00.000Z');
  return scriptedChatModel(
    `scripted/${name}`,
    (prompt) => divergenceReply(policy, seed, hidden, prompt),
    () => at,
  );
}

/**
 * The instance model of a divergence scripted system on the shared runner (`executeRun`'s
 * `modelFor`): the block `divergence.w<seed>.<arm>.<systemId>` is one instance, seeded per
 * instance exactly as the sequential executor seeds it (`instanceSeed`).
 */
export function scriptedDivergenceInstance(system: SystemSpec, blockId: string): ChatModel {
  const prefix = /^divergence\.w(-?\d+)\./.exec(blockId);
  const suffix = `.${system.id}`;
  if (prefix === null || !blockId.endsWith(suffix))
    throw new InvalidArgumentError(
      'blockId',
      `${JSON.stringify(blockId)} is not a divergence instance of system ${system.id}`,
    );
  const armId = blockId.slice(prefix[0].length, blockId.length - suffix.length);
  return createDivergenceInstanceModel(
    system.model.replace(/^scripted\//, ''),
    instanceSeed(system.scripted?.seed ?? 0, Number(prefix[1]), armId),
  );
}
