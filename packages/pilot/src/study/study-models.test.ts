import type { StudySessionRecord } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { modelChanges } from './study-run';

const previous = {
  models: [
    { systemId: 'kimi', models: ['moonshotai/kimi-k3'], providers: ['moonshotai'] },
    { systemId: 'oss', models: ['openai/gpt-oss-120b'], providers: ['groq'] },
  ],
} as unknown as StudySessionRecord;

describe('modelChanges (a possible provider-side change between sessions is flagged)', () => {
  it('names each system whose returned model IDs or providers changed, and only those', () => {
    expect(
      modelChanges(
        [
          { systemId: 'kimi', models: ['moonshotai/kimi-k3'], providers: ['moonshotai'] },
          { systemId: 'oss', models: ['openai/gpt-oss-120b'], providers: ['together'] },
        ],
        previous,
      ),
    ).toEqual(['oss']);
    expect(
      modelChanges(
        [{ systemId: 'kimi', models: ['moonshotai/kimi-k3-0905'], providers: ['moonshotai'] }],
        previous,
      ),
    ).toEqual(['kimi']);
  });

  it('flags nothing for the first session or an unchanged one', () => {
    expect(modelChanges(previous.models, undefined)).toEqual([]);
    expect(modelChanges(previous.models, previous)).toEqual([]);
  });
});
