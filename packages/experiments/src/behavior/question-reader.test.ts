import { createHash } from 'node:crypto';
import { parsePromptTemplate } from '@chi/experiment';
import { generateBehavioralItems } from '@chi/worlds';
import { describe, expect, it } from 'vitest';
import { BEHAVIOR_QUESTIONS_PROMPT, BEHAVIOR_QUESTIONS_W2_PROMPT } from './prompts';
import { readBehaviorQuestion } from './question-reader';
import { behaviorQuestionSections, renderBehaviorQuestion } from './questions';

const { name, version, text } = BEHAVIOR_QUESTIONS_PROMPT;
const sections = behaviorQuestionSections(parsePromptTemplate(name, version, text));

describe('readBehaviorQuestion', () => {
  it('reads every generated item back into exactly its facts, from the wording alone', () => {
    let read = 0;
    for (let seed = 1; seed <= 40; seed++) {
      for (const item of generateBehavioralItems({ seed }).items) {
        const question = renderBehaviorQuestion(sections, item);
        expect(readBehaviorQuestion(sections, question), `${seed} ${item.id}`).toEqual(item.facts);
        read++;
      }
    }
    expect(read).toBe(40 * 24);
  });

  it('returns null for wording no section matches', () => {
    expect(readBehaviorQuestion(sections, 'What is the capital of France?')).toBeNull();
  });
});

describe('the question wordings a scripted system reads', () => {
  it('are the declared templates byte for byte (their frozen hashes)', () => {
    // the SHA-256 of the former packages/pilot/prompts/<name>@1.txt, which every default manifest
    // freezes: a scripted reply read from this copy is the reply read from the run's own
    const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    expect(sha256(BEHAVIOR_QUESTIONS_PROMPT.text)).toBe(
      '80ece9d70b1841e61e5572b6d1f2cad34dd6a32e17f5743c108e888d2498ce85',
    );
    expect(sha256(BEHAVIOR_QUESTIONS_W2_PROMPT.text)).toBe(
      'e9d9e3a60b919aa1b1e1e26bc6338e10e826d879c058015d48a7bacc8c3f4571',
    );
  });
});
