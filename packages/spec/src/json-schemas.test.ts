import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { jsonSchemas } from './json-schemas';

const dir = fileURLToPath(new URL('../schemas/', import.meta.url));

describe('committed JSON Schema files', () => {
  it('are exactly what the zod schemas generate (run `pnpm --filter @chi/spec schemas` after a change)', () => {
    const generated = jsonSchemas();
    const committed = readdirSync(dir)
      .filter((name) => name.endsWith('.schema.json'))
      .sort();
    expect(committed).toEqual(Object.keys(generated).sort());
    for (const [name, text] of Object.entries(generated)) {
      expect(readFileSync(`${dir}${name}`, 'utf8'), name).toBe(text);
    }
  });

  it('describe the hex value constraint for other languages', () => {
    const record = JSON.parse(jsonSchemas()['memory-record.schema.json'] ?? '{}');
    expect(record.properties.value.pattern).toBe('^[0-9a-f]{8}$');
    expect(record.additionalProperties).toBe(false);
  });
});
