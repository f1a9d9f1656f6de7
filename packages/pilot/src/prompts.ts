import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PromptSet, PromptTemplate } from '@chi/experiment';
import { sha256Hex } from '@chi/run';
import { InvalidArgumentError } from '@chi/spec';
import type { PromptRef } from '@chi/spec/internal';

// The template types are the experiment SPI's (`@chi/experiment`); re-exported here because the
// pilot's loaders produce them and `@chi/pilot` has always exported them.
export type { PromptSet, PromptTemplate } from '@chi/experiment';

/** Where the packaged templates live: `<package>/prompts/` (same path from `src/` and `dist/`). */
export const DEFAULT_PROMPTS_DIR = fileURLToPath(new URL('../prompts/', import.meta.url));

const FILE_PATTERN = /^([a-z0-9-]+)@([0-9]+)\.txt$/;
const PLACEHOLDER = /\{\{([A-Z][A-Z0-9_]*)\}\}/g;

/** Parses a template text into a {@link PromptTemplate}. */
export function parsePromptTemplate(name: string, version: string, text: string): PromptTemplate {
  const placeholders: string[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) {
    const placeholder = match[1] ?? '';
    if (!placeholders.includes(placeholder)) placeholders.push(placeholder);
  }
  return { name, version, text, sha256: sha256Hex(text), placeholders };
}

/**
 * Loads every `<name>@<version>.txt` of a directory. When a name has several versions, the highest
 * wins (older versions stay in the folder so old manifests can be re-rendered).
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

/** Returns the template `name`, or throws naming the missing template. */
export function requireTemplate(prompts: PromptSet, name: string): PromptTemplate {
  const template = prompts.get(name);
  if (template === undefined) {
    throw new InvalidArgumentError(
      'prompts',
      `expected a template named ${name}, found ${[...prompts.keys()].join(', ') || 'none'}`,
    );
  }
  return template;
}

/**
 * Fills every `{{NAME}}` of a template in one pass (substituted text is never scanned again, so
 * data cannot inject placeholders). Every placeholder needs a value and every value a placeholder.
 *
 * @example
 * ```ts
 * renderTemplate(parsePromptTemplate('t', '1', 'Hi {{WHO}}'), { WHO: 'there' }); // 'Hi there'
 * ```
 */
export function renderTemplate(
  template: PromptTemplate,
  values: Readonly<Record<string, string>>,
): string {
  const missing = template.placeholders.filter((name) => !Object.hasOwn(values, name));
  if (missing.length > 0) {
    throw new InvalidArgumentError(
      `values`,
      `template ${template.name}@${template.version} needs ${missing.join(', ')}`,
    );
  }
  const unused = Object.keys(values).filter((name) => !template.placeholders.includes(name));
  if (unused.length > 0) {
    throw new InvalidArgumentError(
      `values`,
      `template ${template.name}@${template.version} has no placeholder ${unused.join(', ')}`,
    );
  }
  return template.text.replace(PLACEHOLDER, (_whole, name: string) => values[name] ?? '');
}

const SECTION_HEADER = /^\[([a-z-]+)\]$/;

/**
 * The sections of a sectioned template file: `[name]` header lines, each followed by one template
 * (its text trimmed, named `<file>#<section>`). The file is frozen and hashed as a whole like
 * every other template; a module renders each message from its sections.
 *
 * @example
 * ```ts
 * const sections = promptSections(parsePromptTemplate('t', '1', '[system]\nBe brief.\n[user]\nHi {{WHO}}\n'));
 * renderTemplate(requireSection(sections, 'user'), { WHO: 'there' }); // 'Hi there'
 * ```
 */
export function promptSections(template: PromptTemplate): ReadonlyMap<string, PromptTemplate> {
  const sections = new Map<string, PromptTemplate>();
  let name: string | null = null;
  let lines: string[] = [];
  const flush = () => {
    if (name !== null)
      sections.set(
        name,
        parsePromptTemplate(`${template.name}#${name}`, template.version, lines.join('\n').trim()),
      );
  };
  for (const line of template.text.split('\n')) {
    const header = SECTION_HEADER.exec(line);
    if (header !== null) {
      flush();
      name = header[1] ?? '';
      lines = [];
    } else {
      lines.push(line);
    }
  }
  flush();
  return sections;
}

/** The section `name` of {@link promptSections}' result, or throws naming the template and section. */
export function requireSection(
  sections: ReadonlyMap<string, PromptTemplate>,
  name: string,
): PromptTemplate {
  const found = sections.get(name);
  if (found === undefined) {
    throw new InvalidArgumentError(
      'prompts',
      `expected a [${name}] section, found ${[...sections.keys()].map((s) => `[${s}]`).join(', ') || 'none'}`,
    );
  }
  return found;
}
