import { describe, expect, it } from 'vitest';
import { parseCli } from '../cli/cli-args';
import { testClockFrom } from '../cli/test-clock';

const pilot = (...args: string[]) => parseCli(['pilot', ...args]);

describe('chi pilot --shard / --created-at and chi merge on the command line', () => {
  it('reads a shard with its creation time', () => {
    const command = pilot('--shard', '2/3', '--created-at', '2026-12-01T00:00:00Z');
    expect(command).toMatchObject({
      shard: { index: 2, count: 3 },
      createdAt: new Date('2026-12-01T00:00:00Z'),
    });
    // without either, the command is what it was (the default chi pilot is unchanged)
    expect(pilot()).not.toHaveProperty('shard');
    expect(pilot()).not.toHaveProperty('createdAt');
  });

  it('refuses a shard without --created-at, a bad value, and --plan, naming the flag', () => {
    expect(() => pilot('--shard', '1/2')).toThrow(/--shard needs --created-at/);
    expect(() => pilot('--shard', '3/2', '--created-at', '2026-12-01T00:00:00Z')).toThrow(
      /--shard: expected i\/n/,
    );
    expect(() => pilot('--shard', '1/2', '--created-at', 'yesterday')).toThrow(/--created-at:/);
    expect(() => pilot('--plan', '--shard', '1/2', '--created-at', '2026-12-01T00:00:00Z')).toThrow(
      /apply to a run, not to --plan/,
    );
    expect(() => parseCli(['pilot', '--resume', 'x', '--shard', '1/2'])).toThrow(/--shard/);
  });

  it('parses chi merge DIR... --out DIR and refuses it without --out', () => {
    expect(parseCli(['merge', 'a', 'b', '--out', 'm'])).toEqual({
      command: 'merge',
      shardDirs: ['a', 'b'],
      out: 'm',
    });
    expect(() => parseCli(['merge', 'a'])).toThrow(/chi merge: expected SHARD_DIR\.\.\. --out DIR/);
  });

  it('reads CHI_TEST_CLOCK as a frozen clock, and refuses a bad one naming it', () => {
    expect(testClockFrom({})).toBeUndefined();
    const clock = testClockFrom({ CHI_TEST_CLOCK: '2026-09-01T00:00:00Z' });
    expect(clock?.().toISOString()).toBe('2026-09-01T00:00:00.000Z');
    expect(clock?.().toISOString()).toBe('2026-09-01T00:00:00.000Z');
    expect(() => testClockFrom({ CHI_TEST_CLOCK: 'soon' })).toThrow(/CHI_TEST_CLOCK: expected/);
  });
});
