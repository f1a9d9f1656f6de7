import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { USAGE } from './cli-args';
import { COMMAND_USAGE } from './cli-help';
import {
  COMMAND_EXIT_CODES,
  COMMAND_OK_MEANING,
  EXIT_CODE_TABLE,
  EXIT_CODES,
  exitCodeMeaning,
  renderExitCodeTable,
} from './exit-codes';

describe('the exit-code table', () => {
  it('is the table of RUN-FOLDER.md, between its exit-codes markers', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'RUN-FOLDER.md'), 'utf8');
    const table = /<!-- exit-codes:begin -->\n([\s\S]*?)\n<!-- exit-codes:end -->/.exec(doc)?.[1];
    expect(table).toBe(renderExitCodeTable());
  });

  it('gives every code one name, in order', () => {
    expect(EXIT_CODE_TABLE.map((entry) => entry.code)).toEqual([0, 1, 2, 3, 4, 5, 6, 130]);
    expect(EXIT_CODES.damagedRun).toBe(5);
    expect(EXIT_CODES.locked).toBe(6);
    expect(EXIT_CODES.secondSignal).toBe(130);
  });

  it('is the exit-code text of chi help and of every command help that lists codes', () => {
    for (const entry of EXIT_CODE_TABLE) expect(USAGE).toContain(`  ${entry.code}  `);
    for (const [command, codes] of Object.entries(COMMAND_EXIT_CODES)) {
      const help = COMMAND_USAGE[command as keyof typeof COMMAND_USAGE];
      for (const entry of EXIT_CODE_TABLE)
        expect(help.includes(`  ${entry.code}  ${exitCodeMeaning(entry.code, command)}`)).toBe(
          codes.includes(entry.code),
        );
    }
  });

  it("says what 0 means in each command's own words, never 'every block complete' for a viewer", () => {
    expect(COMMAND_USAGE.view).toContain(
      '  0  served until Ctrl-C, SIGTERM or SIGHUP, or the bundle was written',
    );
    expect(COMMAND_USAGE.pilot).toContain('  0  finished and every block complete');
    for (const command of Object.keys(COMMAND_OK_MEANING))
      expect(COMMAND_USAGE[command as keyof typeof COMMAND_USAGE]).not.toContain(
        'every block complete',
      );
  });
});
