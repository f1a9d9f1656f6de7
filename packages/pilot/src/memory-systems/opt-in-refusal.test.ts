import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, type SystemSpec } from '@chi/spec';
import { afterAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { runCli } from '../cli/cli-main';
import { EXIT_CODES } from '../cli/exit-codes';
import { loadPromptTemplates, promptRefs } from '../prompts';
import { buildManifest } from '../run-folder/manifest';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { memoryReferenceSpec } from './reference-systems';

// The opt-in environments have no wording for a system that keeps its own memory: each of their
// steps would be an instance of its own, so their numbers would measure nothing carried over.

const manifestOf = (systems: SystemSpec[]) =>
  buildManifest({
    settings: { ...defaultOfflineSettings({ systems }), templates: ['memory', 'goal-persistence'] },
    worldSeeds: [1],
    prompts: promptRefs(loadPromptTemplates()),
    generators: [],
    createdAt: new Date('2026-09-01T00:00:00.000Z'),
  });

describe('opt-in environments under memory policy system', () => {
  const root = mkdtempSync(join(tmpdir(), 'chi-opt-in-refusal-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('are refused for a system that keeps its own memory, and run with notebook systems', () => {
    const perfect = scriptedSystemSpec('perfect');
    expect(Object.keys(manifestOf([perfect]).experiments)).toContain('goal-persistence');
    for (const systems of [
      [{ ...perfect, memory: 'system' as const }],
      [perfect, memoryReferenceSpec('window')],
    ]) {
      let error: unknown;
      try {
        manifestOf(systems);
      } catch (caught) {
        error = caught;
      }
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as InvalidArgumentError).field).toBe('templates');
      expect((error as Error).message).toMatch(
        /goal-persistence has no wording for memory policy system \(system (perfect|window) keeps its own memory/,
      );
    }
  });

  it('chi pilot refuses the combination with exit 2 before it writes a run folder', async () => {
    const out = join(root, 'run');
    const captured = captureIo({ cwd: root });
    const code = await runCli(
      ['pilot', '--systems', 'window', '--templates', 'memory,feedback-valence', '--out', out],
      captured.io,
    );
    expect(code).toBe(EXIT_CODES.usage);
    expect(captured.err()).toMatch(/feedback-valence has no wording for memory policy system/);
    expect(readdirSync(root)).not.toContain('run');
  });
});
