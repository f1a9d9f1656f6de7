import { evidenceBanner } from '@chi/analysis';
import { EvidenceClassSchema } from '@chi/spec/internal';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { parseCli } from '../cli/cli-args';
import { runCli } from '../cli/cli-main';
import { buildManifest } from '../run-folder/manifest';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings, openAiCompatibleSystemSpec } from '../settings';

const URL = 'http://127.0.0.1:9/v1';

describe('an OpenAI-compatible endpoint is labelled by what the user declares', () => {
  it('is an unverified endpoint by default, never promoted to a live model', () => {
    expect(EvidenceClassSchema.options).toContain('unverified_endpoint');
    const system = openAiCompatibleSystemSpec({ model: 'm', baseUrl: URL });
    expect(system.evidenceClass).toBe('unverified_endpoint');
    const manifest = buildManifest({
      settings: defaultOfflineSettings({ systems: [system], ceilingUsd: 1 }),
      worldSeeds: [7],
      prompts: [],
      generators: [],
      createdAt: new Date('2026-09-01T00:00:00.000Z'),
    });
    // neither a live model nor hidden as a scripted baseline
    expect(manifest.evidenceClass).toBe('unverified_endpoint');
    const mixed = buildManifest({
      settings: defaultOfflineSettings({
        systems: [system, scriptedSystemSpec('perfect')],
        ceilingUsd: 1,
      }),
      worldSeeds: [7],
      prompts: [],
      generators: [],
      createdAt: new Date('2026-09-01T00:00:00.000Z'),
    });
    expect(mixed.evidenceClass).toBe('unverified_endpoint');
    expect(evidenceBanner(['unverified_endpoint'])).toBe(
      'Unverified endpoint — what served these answers was not declared; not labelled a live model',
    );
  });

  it('takes --evidence-class live_model or unverified_endpoint with --base-url', () => {
    const parsed = (extra: string[]) => {
      const command = parseCli(['pilot', '--base-url', URL, '--models', 'm', ...extra]);
      if (command.command !== 'pilot') throw new Error('expected a pilot command');
      return command.evidenceClass;
    };
    expect(parsed([])).toBeNull();
    expect(parsed(['--evidence-class', 'live_model'])).toBe('live_model');
    expect(parsed(['--evidence-class', 'unverified_endpoint'])).toBe('unverified_endpoint');
  });

  it('refuses an unknown class, and --evidence-class without --base-url (exit 2)', async () => {
    const unknown = captureIo({ cwd: '/' });
    expect(
      await runCli(
        ['pilot', '--base-url', URL, '--models', 'm', '--evidence-class', 'model', '--plan'],
        unknown.io,
      ),
    ).toBe(2);
    expect(unknown.err()).toContain(
      '--evidence-class: expected one of live_model, unverified_endpoint, found "model"',
    );
    const alone = captureIo({ cwd: '/' });
    expect(await runCli(['pilot', '--evidence-class', 'live_model', '--plan'], alone.io)).toBe(2);
    expect(alone.err()).toContain('--evidence-class labels a --base-url endpoint');
  });
});
