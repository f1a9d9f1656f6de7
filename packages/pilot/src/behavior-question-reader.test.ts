import { generateBehavioralItems } from '@chi/worlds';
import { describe, expect, it } from 'vitest';
import { readBehaviorQuestion } from './behavior-question-reader';
import { behaviorQuestionSections, renderBehaviorQuestion } from './behavior-questions';
import { loadPromptTemplates, requireTemplate } from './prompts';

const sections = behaviorQuestionSections(
  requireTemplate(loadPromptTemplates(), 'behavior-questions'),
);

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
