import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { extractJsonBlock } from '@chi/experiment';
import { BehavioralItemSetSchema, type RenderedRequest } from '@chi/spec';
import { solveBehavioralItem } from '@chi/worlds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FinishedRun, finishedOfflineRun, sharedOfflineRun } from './__fixtures__/offline-run';
import { memoryReferenceSpec } from './memory-systems/reference-systems';
import type { PilotSettings } from './pilot-settings';
import { defaultOfflineSettings } from './settings';

/**
 * Internal vocabulary that must never reach a prompt (issue 15): frame and measure labels, answer
 * keys and expected answers, stratum names, record roles, item kinds and the pilot's internal
 * labels. Matched case-insensitively as whole words (letters, digits, `_` and `-` continue a
 * word, so `history_update` is not `update`).
 */
const INTERNAL_WORDS = [
  // frames and measures of the A items
  'positive',
  'negative',
  'kept',
  'lost',
  'frame',
  'framed',
  'framing',
  'measure',
  'mood',
  // answer keys and expected answers
  'answer key',
  'answerKey',
  'expected',
  'expectedValue',
  'expectedSource',
  'validAnswers',
  'warranted',
  'favored',
  'solution',
  // strata (the six probe categories by their names)
  'stratum',
  'strata',
  'retrieval',
  'temporal',
  'fidelity',
  'interference',
  'absent-key',
  // record roles
  'target',
  'targets',
  'distractor',
  'distractors',
  'update',
  'updates',
  'conflict',
  'conflicts',
  'conflicting',
  'lure',
  'lures',
  'role',
  'roles',
  // item kinds and axes
  'symbol-rewrite',
  'counterfactual-operator',
  'information-gap',
  'framed-choice',
  'constrained-selection',
  'axis',
  'pairId',
  'counterbalance',
];

/**
 * Where an internal word is legitimately part of what a participant reads, the exact phrase is
 * allowed, each with its reason. The scan removes these phrases first, then looks for the word.
 */
const ALLOWED_PHRASES: readonly { phrase: string; why: string }[] = [
  {
    phrase: 'TASK: update your notebook.',
    why: 'history-update: "update" is the verb of the instruction (maintain the notebook), not a record role',
  },
  {
    phrase: 'a key that received an authoritative update',
    why: 'memory-encode: the protocol lets the encoder know the six question categories ("Models know the six categories of future questions but not the selected keys"); category 4 is named this way',
  },
  {
    phrase: 'only the longest beginning of it that fits (cut at a character boundary) is kept',
    why: 'history-update: the published notebook truncation rule; "kept" is a past participle here, not the A-task measure',
  },
  {
    phrase: 'maximize your expected net credits',
    why: 'behavior-questions [information-gap]: the decision rule of the C task is expected value, which the participant must be told',
  },
];

/**
 * Generator field names that are part of what a participant sees, each with its reason. Every
 * other key of the generated worlds (memory, history and behavioral items) is internal.
 */
const ALLOWED_FIELD_NAMES: Readonly<Record<string, string>> = {
  key: 'a record field the protocol says the encoder sees ("Every record has a key, value, source, event time and authority")',
  value: 'a record field the encoder sees, and the answer field of memory replies',
  source:
    'a record field the encoder sees; history evidence and I-task records name their source too',
  eventTime: 'a record field the encoder sees',
  authority: 'a record field the encoder sees; the precedence rule is stated in terms of it',
  records: 'the RECORDS block and the wording of the precedence rules and of I tasks',
  id: 'every question, item and choice is answered by its opaque ID',
  asOf: 'the cutoff of a blind historical question (the protocol: "a question as of a cutoff")',
  subject: 'the neutral subject of a history choice',
  options: 'the option labels or IDs the answer must name',
  date: 'dated evidence (the protocol: "dated evidence about which option is more reliable")',
  evidence: 'the history event and the wording of the history tasks',
  kind: 'evidence kind (observation or authoritative_correction), which the participant must see to apply the correction',
  checkpoint: 'the event ordinal in the EVENT block: the same for every history and system',
  outcomes: 'the trials and successes of each option in a piece of evidence',
  trials: 'evidence: trials per option',
  successes: 'evidence: successes per option',
  candidate: 'English wording of C and I tasks',
  candidates: 'English wording of I tasks',
  constraints: 'English wording of I tasks (the declared constraints must be stated)',
  goal: 'English wording of C tasks ("Your goal is to commit ...")',
  operator: 'English wording of the counterfactual-operator R task',
  rules: 'English wording of the precedence rules and of the symbol-rewrite R task',
  start: 'English wording ("Start from the string ...", "start with a line")',
  from: 'ordinary English preposition',
  to: 'ordinary English preposition',
  units: 'English wording of A tasks (units kept or lost are what the options state)',
  A: 'the English article "A" and a rewrite symbol; history labels never appear (A2 never occurs, and A and A2 requests are identical)',
  B: 'a rewrite symbol; see A',
};

/** The object keys a JSON block of a prompt may hold: exactly the participant's view. */
const BLOCK_KEYS: Readonly<Record<string, readonly string[]>> = {
  REQUEST: ['task', 'nonce', 'notebookCapBytes'],
  RECORDS: ['key', 'value', 'source', 'eventTime', 'authority'],
  QUESTIONS: ['id', 'key', 'asOf', 'subject', 'options'],
  NOTES: ['notes'],
  // the replay baseline's stored transcript: one turn per message
  TRANSCRIPT: ['speaker', 'text'],
  CHOICES: ['id', 'subject', 'options'],
  EVENT: [
    'checkpoint',
    'kind',
    'evidence',
    'choice',
    'date',
    'source',
    'moreReliable',
    'outcomes',
    'option',
    'trials',
    'successes',
  ],
  ITEMS: ['id', 'options', 'question'],
};

const wordPattern = (word: string, flags: string) =>
  new RegExp(
    `(?<![\\p{L}\\p{N}_-])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}_-])`,
    `u${flags}`,
  );

function keysOf(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const element of value) keysOf(element, into);
  else if (value !== null && typeof value === 'object')
    for (const [key, element] of Object.entries(value)) {
      into.add(key);
      keysOf(element, into);
    }
  return into;
}

const worldFiles = (run: FinishedRun, kind: string) =>
  readdirSync(join(run.runDir, 'worlds', kind)).map(
    (file) =>
      JSON.parse(
        gunzipSync(readFileSync(join(run.runDir, 'worlds', kind, file))).toString('utf8'),
      ) as unknown,
  );

const promptText = (request: RenderedRequest) =>
  request.messages.map((message) => message.content).join('\n');

const withoutAllowedPhrases = (text: string) =>
  ALLOWED_PHRASES.reduce((rest, { phrase }) => rest.split(phrase).join(' '), text);

/** The default run, and a run with every opt-in condition on (their prompts stay blind too). */
const VARIANTS: readonly (readonly [string, Partial<PilotSettings>, number])[] = [
  ['the default run', {}, 1],
  ['a run with the opt-in conditions', { transcriptReplay: true, probeWordings: true }, 2],
  // the memory-policy-system wordings (issue 36) beside the notebook ones
  [
    'a run with a system that keeps its own memory',
    { systems: [...defaultOfflineSettings().systems, memoryReferenceSpec('window')] },
    1,
  ],
];

describe.each(VARIANTS)(
  'nothing the model should not see reaches a prompt of %s',
  (_name, overrides, wordings) => {
    let run: FinishedRun;
    // The default run is the one shared with manifest.test.ts and same-history-control.test.ts
    // (read only, never removed here); the others are this file's own.
    const shared = Object.keys(overrides).length === 0;
    beforeAll(async () => {
      run = shared ? await sharedOfflineRun() : await finishedOfflineRun(overrides);
    }, 300_000);
    afterAll(() => {
      if (!shared) rmSync(run.runDir, { recursive: true, force: true });
    });

    it('no rendered prompt of a run holds internal vocabulary', () => {
      const found: string[] = [];
      expect(run.requests.size).toBeGreaterThan(200);
      for (const request of run.requests.values()) {
        const text = withoutAllowedPhrases(promptText(request));
        for (const word of INTERNAL_WORDS)
          if (wordPattern(word, 'i').test(text)) found.push(`${request.requestId}: ${word}`);
      }
      expect(found).toEqual([]);
    });

    it("no rendered prompt holds a generator field name outside the participant's view", () => {
      const fields = new Set<string>();
      for (const kind of ['memory', 'history', 'behavior'])
        for (const world of worldFiles(run, kind)) keysOf(world, fields);
      // the scan knows the generator's vocabulary, including the facts' fields
      for (const name of ['facts', 'frame', 'measure', 'answerKey', 'stratum', 'recordRoles'])
        expect(fields).toContain(name);
      const found: string[] = [];
      for (const request of run.requests.values()) {
        const text = withoutAllowedPhrases(promptText(request));
        for (const field of fields)
          if (!Object.hasOwn(ALLOWED_FIELD_NAMES, field) && wordPattern(field, '').test(text))
            found.push(`${request.requestId}: ${field}`);
      }
      expect(found).toEqual([]);
    });

    it('allows nothing it does not need: every allowed phrase and field name occurs in some prompt', () => {
      const texts = [...run.requests.values()].map(promptText);
      for (const { phrase } of ALLOWED_PHRASES)
        expect(
          texts.some((text) => text.includes(phrase)),
          phrase,
        ).toBe(true);
      for (const field of Object.keys(ALLOWED_FIELD_NAMES))
        expect(
          texts.some((text) => wordPattern(field, '').test(text)),
          field,
        ).toBe(true);
    });

    it("every JSON block of every prompt holds only the participant's fields", () => {
      const found: string[] = [];
      for (const request of run.requests.values()) {
        const text = request.messages[1]?.content ?? '';
        for (const [, name = ''] of text.matchAll(/^BEGIN ([A-Z]+) JSON$/gm)) {
          const allowed = BLOCK_KEYS[name];
          if (allowed === undefined) {
            found.push(`${request.requestId}: block ${name}`);
            continue;
          }
          for (const key of keysOf(extractJsonBlock(text, name), new Set()))
            if (!allowed.includes(key)) found.push(`${request.requestId}: ${name}.${key}`);
        }
      }
      expect(found).toEqual([]);
    });

    it("no exact (R) item's question or ITEMS entry holds its expected answer", () => {
      let checked = 0;
      for (const world of worldFiles(run, 'behavior')) {
        const set = BehavioralItemSetSchema.parse(world);
        const exact = new Map(
          set.items
            .filter((item) => item.answerFormat === 'exact')
            .map((item) => [item.id, solveBehavioralItem(item)]),
        );
        for (const request of run.requests.values()) {
          if (request.blockId !== `behavior.w${set.seed}`) continue;
          const items = extractJsonBlock(request.messages[1]?.content ?? '', 'ITEMS') as {
            id: string;
          }[];
          for (const item of items) {
            const answer = exact.get(item.id);
            if (answer === undefined) continue;
            checked++;
            // another item's numbers may coincide with it; this item's own entry never holds it
            expect(wordPattern(answer, '').test(JSON.stringify(item)), item.id).toBe(false);
          }
        }
      }
      // every system (5 scripted, a sixth in the memory-policy run) x 2 worlds x 8 R items, under
      // each wording
      const systems = new Set([...run.requests.values()].map((request) => request.systemId));
      expect(checked).toBe(16 * systems.size * wordings);
    });
  },
);
