import { describe, expect, it } from 'vitest';
import type { PilotProgress } from '../events';
import { createProgressRenderer, formatProgress } from './progress';

const progress = (done: number, failures = 0): PilotProgress => ({
  total: 20,
  done,
  failures,
  notSent: 0,
  committedUsd: 1.5,
  ceilingUsd: 40,
});

function capture(isTTY: boolean) {
  let text = '';
  let clock = 0;
  const render = createProgressRenderer(
    { isTTY, write: (chunk: string) => (text += chunk) },
    () => clock,
  );
  return { render, text: () => text, tick: (ms: number) => (clock += ms) };
}

describe('progress rendering', () => {
  it('formats requests done / total, spend vs ceiling and failures', () => {
    expect(formatProgress(progress(5, 1), 2500)).toBe(
      '5/20 requests (25%) · $1.50 of $40.00 ceiling · 1 failure · 2.5 s',
    );
  });

  it('shows no money when there is neither a ceiling nor any spend (offline runs)', () => {
    const offline = { ...progress(5, 0), committedUsd: 0, ceilingUsd: 0 };
    expect(formatProgress(offline, 1000)).toBe('5/20 requests (25%) · 0 failures · 1.0 s');
    // a spend without a ceiling is still shown
    expect(formatProgress({ ...offline, committedUsd: 0.25 }, 1000)).toContain(
      '$0.2500 of $0.0000 ceiling',
    );
  });

  it('renders each scoring and release step with the elapsed time', () => {
    const out = capture(false);
    out.tick(1500);
    out.render({ type: 'finishing', step: 'analyze', detail: 'computing the intervals' });
    expect(out.text()).toBe('chi: computing the intervals (1.5 s)\n');
  });

  it('writes plain lines at every tenth when not on a TTY, plus one line per failure', () => {
    const out = capture(false);
    for (let done = 1; done <= 20; done++) {
      out.render({
        type: 'request-finished',
        requestId: `r${done}`,
        systemId: 's',
        failure: done === 7 ? 'timeout' : 'none',
        chargedUsd: 0,
        progress: progress(done),
      });
    }
    const lines = out.text().trim().split('\n');
    expect(lines).toHaveLength(11 + 1);
    expect(lines).toContain('chi: r7: timeout');
    expect(out.text()).not.toContain('\r');
  });

  it('rewrites one line in place on a TTY, at most every 100 ms', () => {
    const out = capture(true);
    out.render({
      type: 'request-finished',
      requestId: 'r1',
      systemId: 's',
      failure: 'none',
      chargedUsd: 0,
      progress: progress(1),
    });
    out.tick(50);
    out.render({
      type: 'request-finished',
      requestId: 'r2',
      systemId: 's',
      failure: 'none',
      chargedUsd: 0,
      progress: progress(2),
    });
    out.tick(60);
    out.render({
      type: 'request-finished',
      requestId: 'r3',
      systemId: 's',
      failure: 'none',
      chargedUsd: 0,
      progress: progress(3),
    });
    expect(out.text().split('\r').length - 1).toBe(2);
    out.render({ type: 'budget-stop', kind: 'ceiling', message: 'refused' });
    expect(out.text()).toMatch(/\nchi: STOP \(ceiling\): refused; no new requests are sent\n$/);
  });
});
