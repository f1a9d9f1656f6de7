import { createHash } from 'node:crypto';
import { InvalidArgumentError } from '@chi/spec';
import type { PromptSet, PromptTemplate } from './experiment';

// The prompt-template rules every experiment renders with: `{{NAME}}` placeholders filled in one
// pass and `[section]` files. Pure; hashing is computation (node:crypto), not I/O. The pilot's
// loaders read the template files and parse them with `parsePromptTemplate`.

const PLACEHOLDER = /\{\{([A-Z][A-Z0-9_]*)\}\}/g;

/** SHA-256 of a text's UTF-8 bytes, as lowercase hex (the hash `manifest.prompts` records). */
export function sha256OfText(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Parses a template text into a {@link PromptTemplate}. */
export function parsePromptTemplate(name: string, version: string, text: string): PromptTemplate {
  const placeholders: string[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) {
    const placeholder = match[1] ?? '';
    if (!placeholders.includes(placeholder)) placeholders.push(placeholder);
  }
  return { name, version, text, sha256: sha256OfText(text), placeholders };
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
