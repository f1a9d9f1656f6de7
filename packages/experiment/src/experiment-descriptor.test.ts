import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ParameterFlag, parameterFlags } from './experiment-descriptor';

const rounds: ParameterFlag = {
  flag: 'rounds',
  option: 'rounds',
  kind: 'integer',
  placeholder: 'N',
  help: 'rounds per world, 1-9',
  range: { min: 1, max: 9 },
};
const off: ParameterFlag = {
  flag: 'no-echo',
  option: 'echo',
  kind: 'negation',
  help: 'without the echo experiment',
};

describe('parameterFlags', () => {
  it('reads the flags declared on the fields, in order, then the schema’s own switch', () => {
    const schema = z
      .strictObject({
        rounds: z.int().min(1).meta({ cli: rounds }),
        seedless: z.boolean(),
        depth: z.int().meta({ cli: { ...rounds, flag: 'depth', option: 'depth' } }),
      })
      .meta({ cli: off });
    expect(parameterFlags(schema).map((flag) => flag.flag)).toEqual(['rounds', 'depth', 'no-echo']);
    expect(parameterFlags(schema)[0]).toEqual(rounds);
  });

  it('finds none on a schema without declarations, and validation is unchanged by them', () => {
    const plain = z.strictObject({ rounds: z.int().min(1) });
    expect(parameterFlags(plain)).toEqual([]);
    const declared = z.strictObject({ rounds: z.int().min(1).meta({ cli: rounds }) });
    expect(declared.safeParse({ rounds: 0 }).success).toBe(false);
    expect(declared.safeParse({ rounds: 2 }).success).toBe(true);
    expect(parameterFlags(z.int().meta({ cli: off }))).toEqual([off]);
  });
});
