import { memoryExperiment } from '@chi/experiments/internal';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AnyExperiment } from '../experiments/experiment';
import { PILOT_EXPERIMENT_FLAGS, parseCli, USAGE } from './cli-args';
import { experimentFlagRows, flagTableHelp, parseArgsOptions } from './cli-flags';
import { COMMAND_USAGE } from './cli-help';
import { experimentFlagArgs, experimentFlags, parseExperimentFlags } from './experiment-flags';
import { UsageError } from './usage-error';

/** An experiment module with only what the flags read: its ID and its parameter schema. */
function withParameters(id: string, parameters: z.ZodType): AnyExperiment {
  return { ...memoryExperiment, id, parameters } as AnyExperiment;
}

const echo = withParameters(
  'x-echo',
  z
    .strictObject({
      rounds: z
        .int()
        .min(1)
        .meta({
          cli: {
            flag: 'rounds',
            option: 'rounds',
            kind: 'integer',
            placeholder: 'N',
            help: 'echo rounds per world, 1-9 (default 3)',
            range: { min: 1, max: 9 },
          },
        }),
      delays: z.array(z.int()).meta({
        cli: {
          flag: 'delays',
          option: 'delays',
          kind: 'integer-list',
          placeholder: 'a,b,...|short',
          help: 'delays in turns',
          range: { min: 0, max: 50 },
          example: '0,5',
          presets: { short: [0, 1] },
        },
      }),
    })
    .extend({
      loud: z
        .literal(true)
        .optional()
        .meta({
          cli: {
            flag: 'loud',
            option: 'loud',
            kind: 'switch',
            help: 'also echo aloud\n(a second line)',
          },
        }),
    })
    .meta({ cli: { flag: 'no-echo', option: 'echo', kind: 'negation', help: 'without echo' } }),
);

const problem = (message: string) => new UsageError(message);

describe('experiment flags', () => {
  it('are the pilot registry’s parameter declarations, in registry order', () => {
    expect(
      PILOT_EXPERIMENT_FLAGS.map((flag) => [flag.experimentId, flag.flag, flag.option]),
    ).toEqual([
      ['memory', 'loads', 'loads'],
      ['memory', 'batch-size', 'batchSize'],
      ['memory', 'no-controls', 'controls'],
      ['memory', 'transcript-replay', 'transcriptReplay'],
      ['history', 'no-history', 'history'],
      ['behavior', 'probe-wordings', 'probeWordings'],
      ['behavior', 'no-behavior', 'behavior'],
      ['goal-persistence', 'goal-steps', 'goalSteps'],
      ['feedback-valence', 'valence-choices', 'valenceChoices'],
    ]);
    // the opt-in conditions are switches declared on their parameters, not hand-listed options
    expect(
      PILOT_EXPERIMENT_FLAGS.filter((flag) => flag.kind === 'switch').map((flag) => flag.flag),
    ).toEqual(['transcript-replay', 'probe-wordings']);
  });

  it('keep the opt-in switches’ help text and behaviour', () => {
    const help = [
      "  --transcript-replay      also ask every memory load's questions from the stored transcript of the",
      '                           encode session (uncapped; bytes stored and replayed are reported)',
      '  --probe-wordings         also ask every behavioral item under its declared equivalent wording and',
      '                           report per-feature agreement between the wordings',
    ].join('\n');
    // after the other experiment flags, in both help texts
    expect(flagTableHelp(experimentFlagRows(PILOT_EXPERIMENT_FLAGS)).endsWith(help)).toBe(true);
    expect(USAGE).toContain(`--valence-choices N${' '.repeat(6)}feedback-valence later choices`);
    expect(USAGE).toContain(`with --templates feedback-valence)\n${help}\n  --templates id,...`);
    expect(COMMAND_USAGE.pilot).toContain(help);
    expect(parseCli(['pilot'])).toMatchObject({ transcriptReplay: false, probeWordings: false });
    const both = parseCli(['pilot', '--transcript-replay', '--probe-wordings']);
    expect(both).toMatchObject({ transcriptReplay: true, probeWordings: true });
    expect(both).not.toHaveProperty('experimentOptions');
    expect(() => parseCli(['pilot', '--transcript-replay=yes'])).toThrow(UsageError);
    expect(() => parseCli(['pilot', '--probe-wordings', '--resume', 'x'])).toThrow(
      /remove --probe-wordings/,
    );
  });

  it('give the pilot’s help lines, in both help texts', () => {
    const lines = flagTableHelp(experimentFlagRows(PILOT_EXPERIMENT_FLAGS));
    expect(lines.split('\n')[0]).toBe(
      '  --loads 32,64,...|v0.1   memory loads, each 1-10000 (default 32,64,128,256; v0.1 = 100,300,1000,3000,10000)',
    );
    expect(lines.split('\n')[2]).toBe(
      '  --no-controls            without the blank-notebook and oracle-evidence controls',
    );
    expect(USAGE).toContain(lines);
    expect(COMMAND_USAGE.pilot).toContain(lines);
  });

  it('come from a new experiment’s schema: options, help, parsing and config arguments', () => {
    const flags = experimentFlags([echo]);
    expect(parseArgsOptions(experimentFlagRows(flags))).toEqual({
      rounds: { type: 'string' },
      delays: { type: 'string' },
      loud: { type: 'boolean' },
      'no-echo': { type: 'boolean' },
    });
    expect(flagTableHelp(experimentFlagRows(flags))).toBe(
      [
        '  --rounds N               echo rounds per world, 1-9 (default 3)',
        '  --delays a,b,...|short   delays in turns',
        '  --no-echo                without echo',
        '  --loud                   also echo aloud',
        '                           (a second line)',
      ].join('\n'),
    );
    expect(parseExperimentFlags(flags, {}, problem)).toEqual({
      rounds: null,
      delays: null,
      loud: false,
      echo: true,
    });
    expect(
      parseExperimentFlags(
        flags,
        { rounds: '4', delays: '0, 7', loud: true, 'no-echo': true },
        problem,
      ),
    ).toEqual({ rounds: 4, delays: [0, 7], loud: true, echo: false });
    expect(parseExperimentFlags(flags, { delays: 'short' }, problem).delays).toEqual([0, 1]);
    expect(
      experimentFlagArgs(flags, { rounds: 4, delays: [0, 7], loud: true, echo: false }),
    ).toEqual(['--rounds=4', '--delays=0,7', '--loud', '--no-echo']);
    expect(experimentFlagArgs(flags, { rounds: null, loud: false, echo: true })).toEqual([]);
  });

  it('refuse a mistyped value with a usage error naming the flag', () => {
    const flags = experimentFlags([echo]);
    expect(() => parseExperimentFlags(flags, { rounds: '10' }, problem)).toThrow(
      '--rounds: expected an integer in 1-9, found "10"',
    );
    expect(() => parseExperimentFlags(flags, { delays: '3,x' }, problem)).toThrow(
      '--delays: expected an integer in 0-50, found "x"',
    );
    expect(() => parseExperimentFlags(flags, { delays: ',' }, problem)).toThrow(
      '--delays: expected a comma-separated list like 0,5, found nothing',
    );
    expect(() => parseCli(['pilot', '--batch-size', '1.5'])).toThrow(
      '--batch-size: expected an integer in 1-10000, found "1.5"',
    );
    expect(() => parseCli(['pilot', '--batch-size', '-3'])).toThrow(
      'chi pilot: --batch-size: expected a value in 1-10000, found an argument starting with "-" (negative numbers are out of range)',
    );
    expect(() => parseCli(['pilot', '--no-controls=yes'])).toThrow(UsageError);
  });

  it('refuse two experiments declaring the same flag or option', () => {
    expect(() => experimentFlags([echo, withParameters('x-twin', echo.parameters)])).toThrow(
      /x-echo and x-twin both declare --rounds/,
    );
  });
});

describe('the pilot modules’ parameter schemas with their flags', () => {
  it('validate exactly as the spec schemas: strict, every field kept', () => {
    const params = { loads: [32], probesPerStratum: 8, batchSize: null, controlsAtLoad: 32 };
    expect(memoryExperiment.parameters.safeParse(params).success).toBe(true);
    expect(
      memoryExperiment.parameters.safeParse({ ...params, transcriptReplay: true }).success,
    ).toBe(true);
    expect(memoryExperiment.parameters.safeParse({ ...params, extra: 1 }).success).toBe(false);
    expect(memoryExperiment.parameters.safeParse({ ...params, loads: [0] }).success).toBe(false);
  });
});
