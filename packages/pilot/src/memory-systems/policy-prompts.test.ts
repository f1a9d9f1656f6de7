import { rmSync } from 'node:fs';
import type { RenderedRequest } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FinishedRun, finishedOfflineRun } from '../__fixtures__/offline-run';
import { planRun } from '../run-folder/run-create';
import { scriptedSystemSpec } from '../scripted/scripted-systems';
import { defaultOfflineSettings } from '../settings';
import { SYSTEM_POLICY_TEMPLATES } from './policy-prompts';
import { memoryReferenceSpec } from './reference-systems';

const VARIANTS = Object.values(SYSTEM_POLICY_TEMPLATES);
const userText = (request: RenderedRequest) => request.messages[1]?.content ?? '';

describe('prompt wording under memory policy system', () => {
  let run: FinishedRun;
  beforeAll(async () => {
    // one system that keeps its own memory beside one the runner's notebook serves, with history
    // and the transcript-replay baseline: every memory and history template is sent to both
    run = await finishedOfflineRun({
      systems: [memoryReferenceSpec('window'), scriptedSystemSpec('perfect')],
      behavior: false,
      transcriptReplay: true,
    });
  }, 300_000);
  afterAll(() => rmSync(run.runDir, { recursive: true, force: true }));

  const of = (systemId: string) =>
    [...run.requests.values()].filter((request) => request.systemId === systemId);

  it('never tells a system that keeps its own memory about a notebook or notes the harness carries', () => {
    const sent = of('window');
    const used = new Set(sent.map((request) => request.template.name));
    // the four system wordings, and the two that never named a notebook (oracle, replay)
    expect([...used].sort()).toEqual(
      [...VARIANTS, 'memory-probe-oracle', 'memory-probe-replay'].sort(),
    );
    for (const request of sent) {
      const text = userText(request);
      expect(text, request.requestId).not.toMatch(/notebook/i);
      expect(text, request.requestId).not.toContain('BEGIN NOTES JSON');
      // no cap is stated: the harness truncates nothing it does not carry
      expect(text, request.requestId).not.toContain('notebookCapBytes');
      expect(text, request.requestId).not.toMatch(/at most \d+ bytes/);
    }
    // the replay baseline's stored transcript is the encode exactly as this system was sent it
    const replay = sent.find((request) => request.template.name === 'memory-probe-replay');
    expect(userText(replay as RenderedRequest)).toContain('remember a set of records');
  });

  it('sends the notebook wording, unchanged, to the system the runner keeps a notebook for', () => {
    const sent = of('perfect');
    for (const request of sent) expect(VARIANTS).not.toContain(request.template.name);
    const encode = sent.find((request) => request.template.name === 'memory-encode');
    expect(userText(encode as RenderedRequest)).toContain('Write notes to an external notebook.');
    const probe = sent.find((request) => request.template.name === 'memory-probe');
    expect(userText(probe as RenderedRequest)).toContain('BEGIN NOTES JSON');
  });

  it('freezes the system wordings only in a run where some system keeps its own memory', () => {
    const names = (systems: ReturnType<typeof scriptedSystemSpec>[]) =>
      planRun({ settings: defaultOfflineSettings({ systems }) }).frozen.manifest.prompts.map(
        (prompt) => prompt.name,
      );
    const notebookOnly = names([scriptedSystemSpec('perfect')]);
    for (const variant of VARIANTS) expect(notebookOnly).not.toContain(variant);
    const mixed = names([scriptedSystemSpec('perfect'), memoryReferenceSpec('keyword-store')]);
    for (const variant of VARIANTS) expect(mixed).toContain(variant);
    expect(mixed.filter((name) => !VARIANTS.includes(name as never))).toEqual(notebookOnly);
  });
});
