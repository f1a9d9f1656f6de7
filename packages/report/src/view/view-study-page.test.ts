import { describe, expect, it } from 'vitest';
import type { ViewStudy, ViewStudySession } from './view-study';
import { SERVED_STUDY_LINKS, studyPage } from './view-study-page';

const session = (k: number, fields: Partial<ViewStudySession>): ViewStudySession => ({
  sessionIndex: k,
  state: 'done',
  afterPreviousDays: k === 0 ? 0 : 7,
  startedAt: null,
  finishedAt: null,
  startDay: null,
  dueAt: '2026-09-01T00:00:00.000Z',
  dueDay: 0,
  dueProjected: false,
  early: false,
  blocksComplete: null,
  blocks: null,
  chargedUsd: null,
  ceilingUsd: 2,
  modelChanges: [],
  run: null,
  ...fields,
});

/** A live study of two sessions: s1 saw a different model and spent past its ceiling. */
const STUDY: ViewStudy = {
  kind: 'chi-view-study',
  studyId: 'live',
  studyManifestSha256: 'a'.repeat(64),
  frozenAt: '2026-09-01T00:00:00.000Z',
  now: '2026-09-09T00:00:00.000Z',
  origin: '2026-09-01T00:00:00.000Z',
  banner: null,
  systems: ['model-a'],
  ceilings: { perSessionUsd: 2, totalUsd: 3 },
  spentUsd: 3.5,
  primary: { session: 1, load: 32 },
  sessions: [
    session(0, { startDay: 0, startedAt: '2026-09-01T00:00:00.000Z', chargedUsd: 1, run: 's0' }),
    session(1, {
      startDay: 7.5,
      startedAt: '2026-09-08T12:00:00.000Z',
      dueAt: '2026-09-08T00:00:00.000Z',
      dueDay: 7,
      chargedUsd: 2.5,
      blocks: 4,
      blocksComplete: 3,
      modelChanges: ['model-a'],
      run: 's1',
    }),
  ],
  report: {
    state: 'reported',
    report: { studyManifestSha256: 'a'.repeat(64), sessions: [], rows: [], modelChanges: [] },
    stale: [0, 1],
    command: 'chi study report live',
  },
};

describe('the study page', () => {
  it('flags a model change, spend past a ceiling, incomplete blocks and a stale report', () => {
    const html = studyPage(STUDY, SERVED_STUDY_LINKS);
    expect(html).toContain('POSSIBLE PROVIDER-SIDE CHANGE: s1 (model-a)');
    expect(html).toContain('MODEL CHANGE: model-a');
    expect(html).toContain('<span class="over">$3.5000</span> of the total ceiling $3.0000');
    expect(html).toContain('<span class="over">$2.5000</span> of $2.0000');
    expect(html).toContain('<td data-testid="study-complete">3 of 4</td>');
    expect(html).toContain('does not cover s0, s1');
    expect(html).toContain('<code>chi study report live</code> updates it');
    // a live study carries no scripted-baseline banner
    expect(html).not.toContain('data-testid="study-banner"');
  });

  it('says how to write a missing report', () => {
    const html = studyPage(
      { ...STUDY, report: { state: 'missing', command: 'chi study report live' } },
      SERVED_STUDY_LINKS,
    );
    expect(html).toContain('data-testid="study-not-reported"');
    expect(html).toContain('<code>chi study report live</code>');
    expect(html).not.toContain('data-testid="study-trajectory"');
  });
});
