import { describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { runCli } from './cli-main';
import { closestMatch, editDistance } from './did-you-mean';

async function usageError(argv: readonly string[]): Promise<string> {
  const cli = captureIo({ cwd: '.' });
  expect(await runCli(argv, cli.io)).toBe(2);
  return cli.err();
}

describe('did you mean', () => {
  it('counts a transposition as one edit (Damerau-Levenshtein, optimal string alignment)', () => {
    expect(editDistance('sytems', 'systems')).toBe(1);
    expect(editDistance('pilott', 'pilot')).toBe(1);
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(closestMatch('out', ['port'])).toBeNull();
    expect(closestMatch('zzzzzz', ['pilot', 'smoke'])).toBeNull();
  });

  it('suggests the command for chi pilott (exit 2)', async () => {
    expect(await usageError(['pilott'])).toContain('unknown command "pilott"; did you mean pilot?');
  });

  it('suggests the flag for --replicate and --sytems (exit 2)', async () => {
    expect(await usageError(['pilot', '--replicate', '2'])).toContain(
      'chi pilot: unknown option --replicate; did you mean --replicates?',
    );
    expect(await usageError(['pilot', '--sytems=perfect'])).toContain(
      'unknown option --sytems; did you mean --systems?',
    );
    expect(await usageError(['serve', '--sytem', 'perfect'])).toContain('did you mean --system?');
  });
});
