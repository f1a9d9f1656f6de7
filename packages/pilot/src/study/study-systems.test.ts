import { describe, expect, it } from 'vitest';
import { parseStudyFile } from './study-file';
import { checkDistinctIds, declaredStudySystem, studySystemIds } from './study-systems';

const study = (systems: unknown[], perSessionUsd = 1) => ({
  studyId: 's',
  protocol: 'chi-pilot',
  systems,
  experiments: { memory: { loads: [32] } },
  worldSeeds: { rootSeed: 1, replicates: 2 },
  schedule: [{ afterPreviousDays: 0 }, { afterPreviousDays: 1 }],
  ceilings: { perSessionUsd, totalUsd: 2 },
  primary: { session: 1, checkpoint: { experiment: 'memory', load: 32 } },
});

describe('the systems of a study file', () => {
  it('keeps a scripted name as before and builds a live system as chi pilot does', () => {
    const file = parseStudyFile(
      study([
        'perfect',
        {
          model: 'moonshotai/kimi-k3@moonshotai+groq',
          price: { inputUsdPerMillionTokens: 2, outputUsdPerMillionTokens: 8 },
        },
        { id: 'local', model: 'llama', baseUrl: 'http://127.0.0.1:8000/v1', memory: 'system' },
      ]),
      'study.json',
    );
    expect(studySystemIds(file)).toEqual(['perfect', 'kimi-k3', 'local']);
    expect(declaredStudySystem('perfect')).toMatchObject({ kind: 'scripted', id: 'perfect' });
    expect(declaredStudySystem('window')).toMatchObject({ kind: 'scripted', memory: 'system' });
    expect(declaredStudySystem(file.systems[1] as never)).toMatchObject({
      kind: 'openrouter',
      model: 'moonshotai/kimi-k3',
      providers: ['moonshotai', 'groq'],
      safetyPrice: { inputUsdPerToken: 2e-6, outputUsdPerToken: 8e-6, requestUsd: 0 },
      apiKeyEnv: 'OPENROUTER_API_KEY',
    });
    expect(declaredStudySystem(file.systems[2] as never)).toMatchObject({
      kind: 'openai-compatible',
      model: 'llama',
      safetyPrice: null,
      memory: 'system',
    });
  });

  it('refuses what chi pilot refuses, naming the field', () => {
    expect(() => parseStudyFile(study([{ model: 'openai/gpt-6' }]), 'study.json')).toThrow(
      /study\.json: systems\[0\]\.model: expected "model@provider/,
    );
    expect(() =>
      parseStudyFile(study([{ model: 'm@x', baseUrl: 'http://127.0.0.1:1/v1' }]), 'study.json'),
    ).toThrow(/systems\[0\]\.model: expected the endpoint's plain model name/);
    expect(() => parseStudyFile(study([{ model: 'a/m@x' }], 0), 'study.json')).toThrow(
      /ceilings\.perSessionUsd: expected a USD ceiling > 0: systems\[0\] is a live system/,
    );
    expect(() => parseStudyFile(study([{ model: 'a/m@x', colour: 1 }]), 'study.json')).toThrow(
      /study\.json: systems\[0\]/,
    );
    const twins = parseStudyFile(study([{ model: 'a/m@x' }, { model: 'b/m@y' }]), 'study.json');
    expect(() => checkDistinctIds(twins, 'study.json')).toThrow(
      /systems\[1\]: its system ID "m" is also systems\[0\]'s; give one of them an "id"/,
    );
  });
});
