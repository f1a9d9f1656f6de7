import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeStudyViewBundle } from '@chi/report/viewer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import {
  chiAt,
  STUDY_DAY0,
  studyDay,
  threeSessionStudy,
} from '../__fixtures__/three-session-study';
import { runChi as runViewCli } from '../cli/chi-entry';
import { runCli } from '../cli/cli-main';
import { studyPaths } from './study-folder';
import { startStudyView, studyViewData, studyViewSource } from './study-view';

const DAY0 = STUDY_DAY0;
const at = studyDay;

let root: string;
const dir = () => join(root, 'st');
const chi = (args: readonly string[], clock: string) => chiAt(root, args, clock);

// s0 on day 0, s1 early (`--now`) at 12:00 on day 0 (due on day 1), s2 not due yet (due six days
// after s1 finished); reported only in the second test.
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-study-view-'));
  await threeSessionStudy(root, false);
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the study page of chi view STUDY_DIR (three sessions, injected clock)', () => {
  it('before the study is reported: the schedule, an early session, one not due, how to report', () => {
    const study = studyViewData(dir(), new Date(at(2)), 'chi study report st');
    expect(study.studyId).toBe('st');
    expect(study.studyManifestSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(study.origin).toBe(DAY0);
    expect(study.banner).toContain('Scripted baseline');
    expect(
      study.sessions.map((s) => [
        s.sessionIndex,
        s.state,
        s.startDay,
        s.dueAt,
        s.dueDay,
        s.early,
        s.run,
      ]),
    ).toEqual([
      [0, 'done', 0, DAY0, 0, false, 's0'],
      [1, 'done', 0.5, at(1), 1, true, 's1'],
      [2, 'not-due', null, at(6, 12), 6.5, false, null],
    ]);
    for (const s of study.sessions.slice(0, 2)) {
      expect(s.blocks).toBeGreaterThan(0);
      expect(s.blocksComplete).toBe(s.blocks);
      expect(s.chargedUsd).toBe(0);
    }
    expect(study.sessions[2]).toMatchObject({ blocks: null, chargedUsd: null });
    expect(study.report).toEqual({ state: 'missing', command: 'chi study report st' });
    // s2 is due once its delay after s1 has passed
    expect(studyViewData(dir(), new Date(at(6, 12))).sessions[2]?.state).toBe('due');
  });

  it('serves the page and its JSON: the trajectory is study-report.json as written', async () => {
    await chi(['study', 'report', 'st'], at(1));
    const written = JSON.parse(readFileSync(studyPaths(dir()).report, 'utf8'));
    const study = studyViewData(dir(), new Date(at(2)));
    expect(study.report.state).toBe('reported');
    if (study.report.state !== 'reported') return;
    expect(study.report.stale).toEqual([]);
    expect(study.report.report.rows).toEqual(written.rows);
    expect(study.report.report.rows.length).toBeGreaterThan(0);

    const server = await startStudyView(dir(), () => new Date(at(2)), 0);
    try {
      const json = await (await fetch(new URL('api/study', server.url))).json();
      expect(json).toEqual(study);
      const page = await (await fetch(server.url)).text();
      expect(page).toContain('data-testid="study-time-axis"');
      expect(page).toContain('data-testid="study-trajectory"');
      expect(page).toContain(study.studyManifestSha256 as string);
      expect(page).toContain('Scripted baseline');
      expect(page).toContain('early (--now)');
      expect(page).toContain('not due: 2026-09-07 12:00 UTC');
      expect(page).toContain('href="run/s0/"');
      expect(page).toContain('href="compare?a=s0&#38;b=s1"');
      // a number of the report, as study-report.md writes it
      const row = written.rows[written.rows.length - 1];
      const q = row.qualityScore;
      expect(page).toContain(
        `${q.estimate.toFixed(3)} [${q.interval.lower.toFixed(3)}, ${q.interval.upper.toFixed(3)}]`,
      );
      expect((await fetch(new URL('run/s1/api/summary', server.url))).status).toBe(200);
      expect((await fetch(new URL('compare?a=s0&b=s1', server.url))).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('bundles the page with every session and the consecutive comparisons', async () => {
    const out = join(root, 'bundle');
    const files = await writeStudyViewBundle(
      studyViewSource(dir(), () => new Date(at(2))),
      out,
    );
    expect(files[0]).toBe(join(out, 'index.html'));
    const page = readFileSync(join(out, 'index.html'), 'utf8');
    expect(page).toContain('data-testid="study-time-axis"');
    expect(page).toContain('href="s1/index.html"');
    expect(page).toContain('href="compare-s0-s1/index.html"');
    expect(existsSync(join(out, 's1', 'index.html'))).toBe(true);
    expect(existsSync(join(out, 'compare-s0-s1', 'index.html'))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'study.json'), 'utf8')).studyId).toBe('st');
  });

  it('chi view STUDY_DIR --bundle writes the study bundle under the injected clock', async () => {
    const captured = captureIo({ cwd: root, env: { CHI_TEST_CLOCK: at(2) } });
    expect(await runViewCli(['view', 'st', '--bundle', 'b2'], captured.io)).toBe(0);
    expect(captured.out().trim()).toBe(join(root, 'b2', 'index.html'));
    const study = JSON.parse(readFileSync(join(root, 'b2', 'study.json'), 'utf8'));
    expect(study.now).toBe(at(2));
  });

  it('shows a study not frozen yet, and a first session interrupted, as in progress', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'chi-study-view-fresh-'));
    try {
      await chiAt(fresh, ['study', 'init', 'st', '--delays-days', '0,1,6'], DAY0);
      const before = studyViewData(join(fresh, 'st'), new Date(at(0, 1)));
      expect(before.studyManifestSha256).toBeNull();
      expect(before.sessions.map((s) => [s.state, s.dueAt, s.dueProjected])).toEqual([
        ['due', at(0, 1), false],
        ['not-due', at(1, 1), true],
        ['not-due', at(7, 1), true],
      ]);
      const stopped = new AbortController();
      stopped.abort();
      const captured = captureIo({
        cwd: fresh,
        env: { CHI_TEST_CLOCK: DAY0 },
        signal: stopped.signal,
      });
      expect(await runCli(['study', 'run', 'st'], captured.io)).toBe(3);
      const after = studyViewData(join(fresh, 'st'), new Date(at(0, 1)));
      expect(after.studyManifestSha256).toMatch(/^[0-9a-f]{64}$/);
      expect(after.sessions[0]).toMatchObject({ state: 'in-progress', run: 's0', startDay: 0 });
      expect(after.sessions[0]?.blocks).toBeGreaterThan(0);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('refuses a study report of another study, naming the file (exit 5)', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'chi-study-view-bad-'));
    try {
      cpSync(dir(), join(copy, 'st'), { recursive: true });
      writeFileSync(
        studyPaths(join(copy, 'st')).report,
        '{"kind":"chi-study-report","studyId":"other"}',
      );
      const captured = captureIo({ cwd: copy, env: { CHI_TEST_CLOCK: at(2) } });
      expect(await runViewCli(['view', 'st', '--bundle', 'b'], captured.io)).toBe(5);
      expect(captured.err()).toContain('study-report.json');
      expect(captured.err()).not.toMatch(/\n\s+at /);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
