import { appendFile, cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startViewServer, type ViewServer, writeRelease, writeViewBundle } from '@chi/report';
import { openRunFolder } from '@chi/run';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChromiumSession,
  launchChromium,
} from '../../packages/report/src/__fixtures__/chromium';
import { tempDir } from '../../packages/report/src/__fixtures__/temp-dir';
import { copySharedPilotRun, SHARED_PILOT_RUNS } from './__fixtures__/shared-pilot-run';

const ARTIFACTS = join(import.meta.dirname, '..', 'test-artifacts');

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
    // 2 worlds, loads 32 and 64, 200 resamples: the run pilot-release.test.ts reads (made once per
    // vitest run; one request in flight and a fixed clock, which nothing here depends on)
    await copySharedPilotRun(SHARED_PILOT_RUNS.twoWorlds, runDir);
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
    // The summary is the report's headline table (one row per system, EIMC first).
    const summary = await page.locator('#page').textContent();
    expect(summary).toContain('EIMC τ 0.7 [range]');
    expect(summary).toContain('capacity-keeper32 [32, 32]');
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
    // styled like the viewer, not the browser's default page
    expect(await page.evaluate<string>('getComputedStyle(document.body).fontFamily')).toContain(
      'system-ui',
    );
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

  it('filters the items of a cell by verdict reason', async () => {
    const cells: Record<string, string> = {
      'memory-n32.jsonl': 'notebook-32',
      'memory-n64.jsonl': 'notebook-64',
      'memory-n32-blank.jsonl': 'blank-32',
      'memory-n32-oracle.jsonl': 'oracle-32',
    };
    let target: { world: number; cell: string; expected: number } | undefined;
    for (const [file, cell] of Object.entries(cells)) {
      const traces = await jsonLines<TraceLine>(join(releaseDir, 'traces', 'latest-wins', file));
      const trapped = traces.filter((t) => t.trace.reason === 'authority_trap');
      const world = trapped[0]?.worldSeed;
      if (world === undefined) continue;
      target = { world, cell, expected: trapped.filter((t) => t.worldSeed === world).length };
      break;
    }
    if (target === undefined) throw new Error('the release has no authority_trap of latest-wins');
    const server = await startViewServer({ dir: releaseDir });
    servers.push(server);
    const page = await context.newPage();
    await page.goto(`${server.url}#/cell/latest-wins/${target.world}/${target.cell}`);
    await page.getByTestId('reason-filter').selectOption('authority_trap');
    await page.locator('[data-testid="probe-list"] td:nth-child(6)').first().waitFor();
    await page.waitForFunction('location.hash.endsWith("authority_trap")');
    await page.getByTestId('cell-pass').waitFor();
    const reasons = await page
      .getByTestId('probe-list')
      .locator('tr td:nth-child(6)')
      .allTextContents();
    expect(reasons).toEqual(Array(target.expected).fill('authority_trap'));
    await page.close();
  });

  it('browses a behavioral item, and an offline run shows no spend', async () => {
    const server = await startViewServer({ dir: releaseDir });
    servers.push(server);
    const page = await context.newPage();
    await page.goto(server.url);
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await text(page, 'spend')).toBe('offline: no spend');
    await page.getByTestId('system-link').filter({ hasText: 'capacity-keeper' }).click();
    await page.locator('[data-testid="cell-link"][href$="/behavior-h1"]').first().click();
    await page.getByTestId('probe-link').first().click();
    await page.getByTestId('verdict').waitFor();
    const itemId = await text(page, 'probe-id');
    const traces = await jsonLines<{
      worldSeed: number;
      trace: { itemId: string; verdict: string; reason: string; expected: string };
    }>(join(releaseDir, 'traces', 'capacity-keeper', 'behavior.jsonl'));
    const world = Math.min(...traces.map((t) => t.worldSeed));
    const line = traces.find((t) => t.worldSeed === world && t.trace.itemId === itemId);
    expect(line, itemId).toBeDefined();
    expect(await text(page, 'verdict')).toBe(line?.trace.verdict);
    expect(await text(page, 'reason')).toBe(line?.trace.reason);
    expect(await text(page, 'expected')).toBe(line?.trace.expected);
    expect(JSON.parse(await text(page, 'question'))).toMatchObject({ id: itemId });
    await page.close();
  });

  it('sets two systems side by side on one world, item by item', async () => {
    const server = await startViewServer({ dir: releaseDir });
    servers.push(server);
    const file = (system: string) => join(releaseDir, 'traces', system, 'memory-n32.jsonl');
    const keeper = await jsonLines<TraceLine>(file('capacity-keeper'));
    const latest = await jsonLines<TraceLine>(file('latest-wins'));
    const world = Math.max(...keeper.map((t) => t.worldSeed));
    const verdictOf = new Map(
      latest.filter((t) => t.worldSeed === world).map((t) => [t.trace.probeId, t.trace.verdict]),
    );
    const own = keeper.filter((t) => t.worldSeed === world);
    const differ = own.filter((t) => verdictOf.get(t.trace.probeId) !== t.trace.verdict).length;
    const page = await context.newPage();
    await page.goto(`${server.url}#/compare/capacity-keeper/latest-wins/${world}/notebook-32`);
    await page.getByTestId('compare').waitFor();
    expect(await page.getByTestId('compare-row').count()).toBe(own.length);
    expect(await text(page, 'compare-differ')).toBe(String(differ));
    expect(differ).toBeGreaterThan(0);
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
    const [, seed, load] = /^w(\d+)-n(\d+)/.exec(first as string) ?? [];
    const server = await startViewServer({ dir: broken });
    servers.push(server);
    const page = await context.newPage();
    await page.goto(`${server.url}#/cell/capacity-keeper/${seed}/notebook-${load}`);
    await page.locator('body[data-ready="true"]').waitFor();
    expect(await text(page, 'data-error')).toContain('This page could not be read');
    expect(await text(page, 'resolved')).toBe(
      String(lines(await readFile(join(runDir, 'attempts.jsonl'), 'utf8')) / 2),
    );
    await page.close();
  });
  it('reads a run whose attempt log ends in a half-written line as in progress, and browses it', async () => {
    const live = join(dir.path, 'torn-run');
    await cp(runDir, live, { recursive: true });
    await rm(join(live, 'status.json'));
    const all = (await readFile(join(runDir, 'attempts.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '');
    // the runner is writing line 201: half of it is on disk, without its newline
    await writeFile(
      join(live, 'attempts.jsonl'),
      `${all.slice(0, 200).join('\n')}\n${(all[200] as string).slice(0, 80)}`,
    );
    const server = await startViewServer({ dir: live });
    servers.push(server);
    const page = await context.newPage();
    await page.goto(server.url);
    await page.locator('body[data-ready="true"]').waitFor();
    await page.getByTestId('run-state').waitFor();
    expect(await text(page, 'run-state')).toContain('in progress');
    expect(await page.getByTestId('damage').count()).toBe(0);
    expect(await page.getByTestId('data-error').count()).toBe(0);
    await page.getByTestId('system-link').first().click();
    await page.getByTestId('cell-link').first().click();
    await page.getByTestId('cell-pass').waitFor();
    expect(await page.getByTestId('data-error').count()).toBe(0);
    await page.close();
  });

  it('names damage in the middle of the attempt log', async () => {
    const damaged = join(dir.path, 'damaged-run');
    await cp(runDir, damaged, { recursive: true });
    const all = (await readFile(join(runDir, 'attempts.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '');
    all[10] = '{"kind":"attempt","requ';
    await writeFile(join(damaged, 'attempts.jsonl'), `${all.join('\n')}\n`);
    const server = await startViewServer({ dir: damaged });
    servers.push(server);
    const page = await context.newPage();
    await page.goto(server.url);
    await page.getByTestId('damage').waitFor();
    expect(await text(page, 'run-state')).toContain('damaged');
    expect(await text(page, 'damage')).toContain('attempts.jsonl');
    await page.close();
  });
});
