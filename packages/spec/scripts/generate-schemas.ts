// Regenerates packages/spec/schemas/*.schema.json from the zod schemas. A test fails when the
// committed files differ from this output, so run `pnpm --filter @chi/spec schemas` after a change.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { jsonSchemas } from '../src/json-schemas';

const dir = fileURLToPath(new URL('../schemas/', import.meta.url));
mkdirSync(dir, { recursive: true });
for (const old of readdirSync(dir)) if (old.endsWith('.schema.json')) rmSync(`${dir}${old}`);
const files = jsonSchemas();
for (const [name, text] of Object.entries(files)) writeFileSync(`${dir}${name}`, text);
console.log(`wrote ${Object.keys(files).length} JSON Schema files to packages/spec/schemas/`);
