import { appendFile, cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createScriptedModel, defaultOfflineSettings, runPilot } from '@chi/pilot';
import { openRunFolder } from '@chi/run';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChromiumSession, launchChromium } from '../__fixtures__/chromium';
import { tempDir } from '../__fixtures__/temp-dir';
import { writeRelease } from '../write-release';
import { writeViewBundle } from './view-bundle';
import { startViewServer, type ViewServer } from './view-server';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');

interface TraceLine {
  readonly worldSeed: number;
  readonly trace: {
    readonly probeId: string;
    readonly verdict: string;
    readonly reason: string;
    readonly stratum: string;
    readonly expectedValue: string | null;
    readonly expectedSource: string | null;
  };
}

async function jsonLines<T>(path: string): Promise<T[]> {
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as T);
}

/** Non-empty lines of a text. */
function lines(text: string): number {
  return text.split('\n').filter((l) => l !== '').length;
}

async function text(page: Page, testId: string): Promise<string> {
  return (await page.getByTestId(testId).first().textContent()) ?? '';
}

/** From the summary, down to the first probe of `system` in its first world at N=32. */
async function clickToProbe(page: Page, system: string): Promise<void> {
  await page.locator('body[data-ready="true"]').waitFor();
  await page.getByTestId('system-link').filter({ hasText: system }).click();
  await page.locator('[data-testid="cell-link"][href$="/notebook-32"]').first().click();
  await page.getByTestId('probe-link').first().click();
  await page.getByTestId('verdict').waitFor();
}

/** What the probe page shows equals the release's trace, request and notebook files. */
async function expectProbeMatchesRelease(page: Page, releaseDir: string, system: string) {
  const probeId = await text(page, 'probe-id');
  const traces = await jsonLines<TraceLine>(join(releaseDir, 'traces', system, 'memory-n32.jsonl'));
  const worlds = [...new Set(traces.map((t) => t.worldSeed))].sort((a, b) => a - b);
  const line = traces.find((t) => t.trace.probeId === probeId && t.worldSeed === worlds[0]);
  expect(line, probeId).toBeDefined();
  const trace = (line as TraceLine).trace;
  expect(await text(page, 'verdict')).toBe(trace.verdict);
  expect(await text(page, 'reason')).toBe(trace.reason);
  expect(await text(page, 'stratum')).toBe(trace.stratum);
  expect(await text(page, 'expected')).toBe(
    trace.expectedValue === null
      ? 'unknown (value and source null)'
      : `value ${trace.expectedValue}, source ${trace.expectedSource}`,
  );
  const request = await openRunFolder(releaseDir).readRequest(
    `${system}.memory.w${worlds[0]}.n32.probe.b0`,
  );
  if (request === null) throw new Error('the release lacks the probe request');
  const questions = request.messages
    .map((m) => m.content)
    .join('\n')
    .split('BEGIN QUESTIONS JSON\n')[1]
    ?.split('\nEND QUESTIONS JSON')[0];
  const question = (JSON.parse(questions ?? '[]') as { id: string }[]).find(
    (q) => q.id === probeId,
  );
  expect(JSON.parse(await text(page, 'question'))).toEqual(question);
  const notebook = JSON.parse(
    await readFile(
      join(releaseDir, 'notebooks', system, 'memory', `w${worlds[0]}-n32.json`),
      'utf8',
    ),
  ) as { text: string };
  expect(await text(page, 'notebook')).toBe(notebook.text === '' ? '(empty)' : notebook.text);
  expect(await text(page, 'trace')).toContain(`verdict: ${trace.verdict} (${trace.reason})`);
  expect(await page.getByTestId('attempts').locator('tr').count()).toBeGreaterThan(1);
}

describe('chi view in headless Chromium', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let chromium: ChromiumSession;
  let context: BrowserContext;
  let runDir: string;
  let releaseDir: string;
  const servers: ViewServer[] = [];

  beforeAll(async () => {
    dir = await tempDir('view');
    runDir = join(dir.path, 'run');
    releaseDir = join(dir.path, 'release');
    const settings = defaultOfflineSettings({ replicates: 2, loads: [32, 64], resamples: 200 });
    const models = new Map(settings.systems.map((s) => [s.id, createScriptedModel(s.id)]));
    expect((await runPilot({ settings, runDir, models, release: false })).exitCode).toBe(0);
    await writeRelease({ runDir, outDir: releaseDir });
    chromium = await launchChromium({ width: 1200, height: 900 });
    context = chromium.context;
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await chromium?.close();
    await dir.remove();
  });

  it('browses a release from the summary down to one probe, showing what the release holds', async () => {
    const server = await startViewServer({ dir: releaseDir });
    servers.push(server);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await context.newPage();
    await page.goto(server.url);
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await page.locator('#page h2').first().textContent()).toBe('Summary');
    expect(await page.locator('#page').textContent()).toContain(
      'EIMC (Effective Indexed Memory Capacity, in target keys)',
    );
    await clickToProbe(page, 'capacity-keeper');
    await page.screenshot({ path: join(ARTIFACTS, 'view-probe.png'), fullPage: true });
    await expectProbeMatchesRelease(page, releaseDir, 'capacity-keeper');
    await page.close();
  });

  it('lists the runs of a folder of runs and browses each', async () => {
    const server = await startViewServer({ dir: dir.path });
    servers.push(server);
    const page = await context.newPage();
    await page.goto(server.url);
    const runs = await page.getByTestId('run-link').allTextContents();
    expect(runs).toEqual(expect.arrayContaining(['release', 'run']));
    await page
      .getByTestId('run-link')
      .filter({ hasText: /^release$/ })
      .click();
    await clickToProbe(page, 'capacity-keeper');
    await expectProbeMatchesRelease(page, releaseDir, 'capacity-keeper');
    await page.close();
  });

  it('browses a history checkpoint down to one decision', async () => {
    const server = await startViewServer({ dir: releaseDir });
    servers.push(server);
    const page = await context.newPage();
    await page.goto(server.url);
    await page.locator('body[data-ready="true"]').waitFor();
    await page.getByTestId('system-link').filter({ hasText: 'capacity-keeper' }).click();
    await page.locator('[data-testid="cell-link"][href$="/B-c2"]').first().click();
    await page.getByTestId('probe-link').nth(1).click();
    await page.getByTestId('verdict').waitFor();
    const traces = await jsonLines<{
      worldSeed: number;
      trace: {
        history: string;
        checkpoint: number;
        environmentIndex: number;
        verdict: string;
        reason: string;
        expected: string;
        answer: string;
      };
    }>(join(releaseDir, 'traces', 'capacity-keeper', 'history.jsonl'));
    const world = Math.min(...traces.map((t) => t.worldSeed));
    const line = traces.find(
      (t) =>
        t.worldSeed === world &&
        t.trace.history === 'B' &&
        t.trace.checkpoint === 2 &&
        t.trace.environmentIndex === 1,
    );
    expect(await text(page, 'verdict')).toBe(line?.trace.verdict);
    expect(await text(page, 'reason')).toBe(line?.trace.reason);
    expect(await text(page, 'expected')).toBe(line?.trace.expected);
    expect(await text(page, 'answer')).toBe(line?.trace.answer);
    const notebook = JSON.parse(
      await readFile(
        join(releaseDir, 'notebooks', 'capacity-keeper', 'history', `w${world}-B-c2.json`),
        'utf8',
      ),
    ) as { text: string };
    expect(await text(page, 'notebook')).toBe(notebook.text === '' ? '(empty)' : notebook.text);
    expect(JSON.parse(await text(page, 'question'))).toMatchObject({ id: 'env-2' });
    await page.close();
  });

  it('filters the probes of a system by verdict reason', async () => {
    const server = await startViewServer({ dir: releaseDir });
    servers.push(server);
    const page = await context.newPage();
    await page.goto(server.url);
    await page.locator('body[data-ready="true"]').waitFor();
    await page.getByTestId('system-link').filter({ hasText: 'latest-wins' }).click();
    await page.getByTestId('reason-filter').selectOption('authority_trap');
    await page.getByTestId('probe-list').waitFor();
    const reasons = await page
      .getByTestId('probe-list')
      .locator('tr td:nth-child(6)')
      .allTextContents();
    const traces = (
      await Promise.all(
        [
          'memory-n32.jsonl',
          'memory-n64.jsonl',
          'memory-n32-blank.jsonl',
          'memory-n32-oracle.jsonl',
        ].map((f) => jsonLines<TraceLine>(join(releaseDir, 'traces', 'latest-wins', f))),
      )
    ).flat();
    const expected = traces.filter((t) => t.trace.reason === 'authority_trap').length;
    expect(expected).toBeGreaterThan(0);
    expect(reasons).toEqual(Array(expected).fill('authority_trap'));
    await page.close();
  });

  it('writes a bundle that opens from the file system with no server', async () => {
    const out = join(dir.path, 'bundle');
    await writeViewBundle(releaseDir, out);
    const page = await context.newPage();
    const network: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) network.push(r.url());
    });
    await page.goto(`${pathToFileURL(join(out, 'index.html')).href}`);
    await clickToProbe(page, 'capacity-keeper');
    await expectProbeMatchesRelease(page, releaseDir, 'capacity-keeper');
    expect(await text(page, 'progress')).toContain('snapshot');
    expect(network).toEqual([]);
    await page.close();
  });

  it('shows live progress of a run in progress, updating without a reload', async () => {
    // a copy of the run whose attempt log stops part-way, with a request in flight
    const live = join(dir.path, 'live-run');
    await cp(runDir, live, { recursive: true });
    await rm(join(live, 'status.json'));
    const lines = (await readFile(join(runDir, 'attempts.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '');
    const firstPart = lines.slice(0, 101); // ends on a before_send: that request is in flight
    await writeFile(join(live, 'attempts.jsonl'), `${firstPart.join('\n')}\n`);
    const resolvedIn = (part: string[]) =>
      new Set(
        part
          .map((l) => JSON.parse(l) as { requestId: string; phase: string })
          .filter((l) => l.phase === 'after_response')
          .map((l) => l.requestId),
      ).size;
    const server = await startViewServer({ dir: live });
    servers.push(server);
    const page = await context.newPage();
    let navigations = 0;
    page.on('framenavigated', () => navigations++);
    await page.goto(server.url);
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await text(page, 'resolved')).toBe(String(resolvedIn(firstPart)));
    expect(Number(await text(page, 'in-flight'))).toBeGreaterThan(0);
    expect(await text(page, 'total')).toBe(String(lines.length / 2));
    expect(await text(page, 'progress')).toContain('in progress, live');
    // the run writes the rest of its log: the page shows it without being reloaded
    await appendFile(join(live, 'attempts.jsonl'), `${lines.slice(101).join('\n')}\n`);
    await page
      .getByTestId('resolved')
      .filter({ hasText: String(resolvedIn(lines)) })
      .waitFor();
    expect(await text(page, 'in-flight')).toBe('0');
    expect(await text(page, 'not-started')).toBe('0');
    expect(navigations).toBe(1);
    await page.close();
  });

  it('keeps live progress when a world cannot be read yet, and says so on its page', async () => {
    const broken = join(dir.path, 'unreadable-run');
    await cp(runDir, broken, { recursive: true });
    // a half-written world file, as a run being set up may leave for a moment
    const worlds = join(broken, 'worlds', 'memory');
    const [first] = (await readdir(worlds)).sort();
    await writeFile(join(worlds, first as string), '{"kind":');
    const server = await startViewServer({ dir: broken });
    servers.push(server);
    const page = await context.newPage();
    await page.goto(server.url);
    await page.locator('body[data-ready="true"]').waitFor();
    await page.getByTestId('system-link').first().click();
    expect(await text(page, 'data-error')).toContain('This page could not be read');
    expect(await text(page, 'resolved')).toBe(
      String(lines(await readFile(join(runDir, 'attempts.jsonl'), 'utf8')) / 2),
    );
    await page.close();
  });
});
