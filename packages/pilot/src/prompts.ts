import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type PromptSet, type PromptTemplate, parsePromptTemplate } from '@chi/experiment';
import type { PromptRef } from '@chi/spec/internal';

// The template types are the experiment SPI's (`@chi/experiment`); re-exported here because the
// pilot's loaders produce them and `@chi/pilot` has always exported them.
export type { PromptSet, PromptTemplate } from '@chi/experiment';
// The template rules moved to the SPI (`@chi/experiment`) so built-in experiments render without
// the pilot; re-exported for the pilot's own modules.
export {
  parsePromptTemplate,
  promptSections,
  renderTemplate,
  requireSection,
  requireTemplate,
} from '@chi/experiment';

/**
 * Where the packaged templates live: `<package>/prompts/` (same path from `src/` and `dist/`).
 * They are only the toolkit's own, `system` and `smoke`: every experiment declares its templates
 * in its module (`promptTemplates`; the built-ins in their folder of `@chi/experiments`).
 */
export const DEFAULT_PROMPTS_DIR = fileURLToPath(new URL('../prompts/', import.meta.url));

const FILE_PATTERN = /^([a-z0-9-]+)@([0-9]+)\.txt$/;

/**
 * Loads every `<name>@<version>.txt` of a directory: a run folder's frozen `prompts/`, or by
 * default the packaged templates (`system` and `smoke`, in the package's `prompts/` folder beside
 * `dist/`; the experiments declare their own). When a name has several versions, the highest wins
 * (older versions stay in the folder so old manifests can be re-rendered).
 */
export function loadPromptTemplates(dir: string = DEFAULT_PROMPTS_DIR): PromptSet {
  const byName = new Map<string, PromptTemplate>();
  for (const file of readdirSync(dir).sort()) {
    const match = FILE_PATTERN.exec(file);
    if (match === null) continue;
    const name = match[1] ?? '';
    const version = match[2] ?? '';
    const existing = byName.get(name);
    if (existing !== undefined && Number(existing.version) > Number(version)) continue;
    byName.set(name, parsePromptTemplate(name, version, readFileSync(`${dir}/${file}`, 'utf8')));
  }
  return byName;
}

/** The manifest entries of a prompt set, sorted by name. */
export function promptRefs(prompts: PromptSet): PromptRef[] {
  return [...prompts.values()]
    .map((template) => ({
      name: template.name,
      version: template.version,
      sha256: template.sha256,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
