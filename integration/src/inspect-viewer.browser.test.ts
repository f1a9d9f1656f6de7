/**
 * The exported logs in Inspect's own prebuilt log viewer (vendored in
 * test/fixtures/inspect-viewer, bundle mode as `inspect view bundle` writes it), in headless
 * Chromium: every log listed, and the log, sample, transcript and scoring views render.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createScriptedModel,
  defaultOfflineSettings,
  runPilot,
  scriptedSystemSpec,
} from '@chi/pilot';
import { SCRIPTED_SYSTEM_NAMES } from '@chi/pilot/internal';
import { writeInspectLogs } from '@chi/report/inspect';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChromiumSession,
  launchChromium,
} from '../../packages/report/src/__fixtures__/chromium';
import { tempDir } from '../../packages/report/src/__fixtures__/temp-dir';
import type { InspectEvalLog } from '../../packages/report/src/inspect/json';
import { fixedClock } from './__fixtures__/fixed-clock';
import { serveStatic, writeInspectViewerBundle } from './__fixtures__/inspect-viewer-bundle';

const ARTIFACTS = join(import.meta.dirname, '..', 'test-artifacts');

let dir: { path: string; remove: () => Promise<void> };
let logs: Map<string, InspectEvalLog>;
let server: Awaited<ReturnType<typeof serveStatic>>;
let session: ChromiumSession;
beforeAll(async () => {
  dir = await tempDir('inspect-viewer');
  const runDir = join(dir.path, 'run');
  const now = fixedClock('2026-09-01T00:00:00.000Z');
  const settings = defaultOfflineSettings({
    systems: SCRIPTED_SYSTEM_NAMES.map((name) => scriptedSystemSpec(name)),
    replicates: 2,
    loads: [32, 64],
    resamples: 50,
    templates: ['memory', 'history', 'behavior', 'goal-persistence'],
  });
  const models = new Map(settings.systems.map((s) => [s.id, createScriptedModel(s.id, { now })]));
  const outcome = await runPilot({ settings, runDir, models, concurrency: 1, release: false, now });
  expect(outcome.exitCode).toBe(0);
  // the viewer in bundle mode over what `chi export inspect` writes (logs and listing.json)
  const bundle = join(dir.path, 'bundle');
  const logDir = await writeInspectViewerBundle(bundle);
  const exported = await writeInspectLogs({ runDir, outDir: logDir });
  logs = new Map();
  for (const name of exported.files)
    logs.set(name, JSON.parse(await readFile(join(logDir, name), 'utf8')) as InspectEvalLog);
  server = await serveStatic(bundle);
  session = await launchChromium({ width: 1400, height: 1000 });
}, 300_000);
afterAll(async () => {
  await session?.close();
  await server?.close();
  await dir?.remove();
});

/** Hang guard for one wait in the viewer (never a timing assumption: each wait is for content). */
const WAIT = { timeout: 120_000 };

/** A page of the viewer that records every uncaught exception and console error. */
async function openViewer(): Promise<{ page: Page; problems: string[] }> {
  const page = await session.context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`exception: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  await page.goto(`${server.url}/index.html`);
  return { page, problems };
}

/** The page's text, lower case (the viewer upper-cases labels with CSS). */
async function visibleText(page: Page): Promise<string> {
  return ((await page.locator('body').textContent()) ?? '').toLowerCase();
}

/** Waits until the page's visible text contains `text` (lower case). */
async function waitForText(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    `document.body.innerText.toLowerCase().includes(${JSON.stringify(text)})`,
    undefined,
    WAIT,
  );
}

/** Opens the log `name` from the list, then its first sample's transcript and scoring tabs. */
async function walkLog(name: string, headline: string): Promise<string[]> {
  const log = logs.get(name) as InspectEvalLog;
  const sample = (
    log.samples as { id: string; scores: Record<string, { explanation: string }> }[]
  )[0];
  if (sample === undefined) throw new Error(`${name} has no sample`);
  const { page, problems } = await openViewer();
  await page.getByText(name, { exact: true }).click(WAIT);
  // the log view: the headline metrics, item accuracy labelled secondary where there is one
  await waitForText(page, headline.toLowerCase());
  await page.getByText(sample.id, { exact: true }).first().click(WAIT);
  // the sample view opens on its transcript: sample init, the model call, the score
  const model = (log.eval as { model: string }).model;
  await waitForText(page, `model call: ${model}`.toLowerCase());
  const transcript = await visibleText(page);
  expect(transcript).toContain('sample_init');
  expect(transcript).toContain('scoring');
  await page
    .getByRole('tab', { name: /scoring/i })
    .first()
    .click(WAIT);
  const explanation = Object.values(sample.scores)[0]?.explanation ?? '';
  await waitForText(page, explanation.toLowerCase());
  await page.screenshot({
    path: join(ARTIFACTS, `inspect-${(log.eval as { task: string }).task}.png`),
  });
  await page.close();
  return problems;
}

describe("Inspect's own viewer (bundle mode)", () => {
  it('lists every exported log', async () => {
    expect(logs.size).toBe(25); // 5 systems x (memory, controls, history, behavior, goal persistence)
    const { page, problems } = await openViewer();
    const names = [...logs.keys()];
    await page.getByText(names[0] as string, { exact: true }).waitFor(WAIT);
    for (const name of names)
      expect(await page.getByText(name, { exact: true }).count(), name).toBe(1);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'inspect-list.png') });
    await page.close();
    expect(problems).toEqual([]);
  }, 300_000);

  it('renders the log, sample, transcript and scoring views of a pilot and a module experiment', async () => {
    const memory = [...logs.keys()].find((n) => n.includes('_chi_memory-capacity-keeper_'));
    const module = [...logs.keys()].find((n) => n.includes('_chi_goal-persistence-perfect_'));
    expect(await walkLog(memory as string, 'item accuracy (secondary)')).toEqual([]);
    expect(await walkLog(module as string, 'taskScore')).toEqual([]);
  }, 300_000);
});
