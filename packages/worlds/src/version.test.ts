import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATOR_NAME, GENERATOR_VERSION, generatorInfo } from './version';

describe('generator info', () => {
  it('matches package.json, so datasets name the code that made them', () => {
    const manifest = JSON.parse(
      readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    ) as { name: string; version: string };
    expect(GENERATOR_NAME).toBe(manifest.name);
    expect(GENERATOR_VERSION).toBe(manifest.version);
    expect(generatorInfo()).toEqual({ name: manifest.name, version: manifest.version });
  });
});
