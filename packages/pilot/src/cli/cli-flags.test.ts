import { PilotOptionsSchema } from '@chi/spec/internal';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { parseCli } from './cli-args';
import { divergenceFlagHelp, divergenceFlags, flagTableHelp } from './cli-flags';
import { CLI_COMMANDS, FLAG_TABLES } from './cli-help';
import { runCli } from './cli-main';

async function helpOf(argv: readonly string[]): Promise<string> {
  const cli = captureIo({ cwd: '.' });
  expect(await runCli(argv, cli.io)).toBe(0);
  return cli.out();
}

/** The option lines of a help section: from its heading to the next blank line. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const body = text.slice(start + heading.length + 1);
  return body.slice(0, body.indexOf('\n\n'));
}

/** The flags a help section documents, in order. */
function documentedFlags(lines: string): string[] {
  return [...lines.matchAll(/^ {2}--([a-z][a-z0-9-]*)/gm)].map((match) => match[1] as string);
}

describe('one flag table per command', () => {
  it('chi --help and chi pilot --help list the same pilot options, generated from the table', async () => {
    const general = section(
      await helpOf(['--help']),
      'Pilot options (chi pilot --help lists the same):',
    );
    const pilot = section(await helpOf(['pilot', '--help']), 'Options:');
    expect(general).toBe(pilot);
    expect(pilot).toBe(flagTableHelp(FLAG_TABLES.pilot));
    for (const flag of ['price', 'prices', 'accept-unbounded-spend', 'compare-to', 'plan-from'])
      expect(documentedFlags(general)).toContain(flag);
  });

  it.each(CLI_COMMANDS.filter((command) => command !== 'verify'))(
    'chi %s --help documents every flag the parser accepts, and it accepts each',
    async (command) => {
      const help = await helpOf([command, '--help']);
      const table = FLAG_TABLES[command];
      const documented = table.length === 0 ? [] : documentedFlags(section(help, 'Options:'));
      expect(documented).toEqual(table.map((flag) => flag.name));
      for (const flag of table) {
        const argv = flag.type === 'boolean' ? [`--${flag.name}`] : [`--${flag.name}=x`];
        let message = '';
        try {
          parseCli([command, ...argv]);
        } catch (error) {
          message = (error as Error).message;
        }
        expect(message, flag.name).not.toMatch(/unknown option/i);
      }
    },
  );

  it("chi --help and chi pilot --help list the divergence protocol's options from the table the parser reads", async () => {
    const heading =
      "Options of --protocol divergence-v0.1 (as above unless noted; any other is refused, as is a\nconfiguration file's key for one):";
    const general = section(await helpOf(['--help']), heading);
    const pilot = section(await helpOf(['pilot', '--help']), heading);
    expect(general).toBe(pilot);
    expect(pilot).toBe(divergenceFlagHelp(FLAG_TABLES.pilot));
    expect(pilot).toContain('--replicates N (worlds, default 8)');
    const listed = [...pilot.matchAll(/--([a-z][a-z0-9-]*)/g)].map((match) => match[1]);
    const accepted: string[] = [];
    for (const flag of FLAG_TABLES.pilot) {
      if (flag.name === 'protocol') continue;
      const value = flag.type === 'boolean' ? [`--${flag.name}`] : [`--${flag.name}=x`];
      let message = '';
      try {
        parseCli(['pilot', '--protocol', 'divergence-v0.1', ...value]);
      } catch (error) {
        message = (error as Error).message;
      }
      // --resume refuses every other flag first (the resumed manifest names its protocol)
      if (!/^chi pilot --protocol: only|remove --protocol/.test(message)) accepted.push(flag.name);
    }
    // every flag listed is let through, and every other is refused naming the ones that apply
    expect(accepted).toEqual(listed);
    expect(listed).toEqual(
      divergenceFlags(FLAG_TABLES.pilot)
        .map((flag) => flag.name)
        .filter((name) => name !== 'protocol'),
    );
    for (const flag of ['seed', 'resamples', 'live', 'ceiling-usd', 'memory'])
      expect(listed).toContain(flag);
  });

  it('maps every configuration key to exactly one pilot flag', () => {
    const keys = Object.keys(PilotOptionsSchema.shape).sort();
    const mapped = FLAG_TABLES.pilot.flatMap((flag) =>
      flag.configKey === undefined ? [] : [flag.configKey],
    );
    expect([...mapped].sort()).toEqual(keys);
  });
});
