import { InvalidArgumentError } from '@chi/spec';
import {
  loadPromptTemplates,
  type PromptSet,
  type PromptTemplate,
  parsePromptTemplate,
  promptSections,
} from '../prompts';
import type { AnyExperiment, ExperimentPromptTemplate } from './experiment';
import { REGISTERED_EXPERIMENTS } from './registry';

/** A template name as its file name holds it (`prompts/<name>@<version>.txt`). */
const NAME = /^[a-z0-9-]+$/;
const VERSION = /^[0-9]+$/;

const list = (names: readonly string[]) =>
  names.length === 0 ? 'none' : names.map((name) => `[${name}]`).join(', ');

/** One declared template, its name, version and sections checked, parsed like a template file. */
function checkedTemplate(field: string, declared: ExperimentPromptTemplate): PromptTemplate {
  if (!NAME.test(declared.name))
    throw new InvalidArgumentError(
      field,
      `a template name is lowercase letters, digits and dashes, found ${JSON.stringify(declared.name)}`,
    );
  if (!VERSION.test(declared.version))
    throw new InvalidArgumentError(
      field,
      `template ${declared.name} needs a version of digits, found ${JSON.stringify(declared.version)}`,
    );
  const template = parsePromptTemplate(declared.name, declared.version, declared.text);
  if (declared.sections !== undefined) {
    const found = [...promptSections(template).keys()];
    if (found.join('\n') !== declared.sections.join('\n'))
      throw new InvalidArgumentError(
        field,
        `template ${declared.name}@${declared.version} declares the sections ${list(declared.sections)}, its text has ${list(found)}`,
      );
  }
  return template;
}

/**
 * The templates that experiment modules declare themselves ({@link ExperimentPromptTemplate}),
 * checked: a name of lowercase letters, digits and dashes, a version of digits, the declared
 * sections present in that order, and no name used twice, neither by a packaged template nor by
 * two declarations (of one module or two). Every module is checked, included in the run or not,
 * like the registry's task names. Throws an `InvalidArgumentError` naming the module and the
 * template (a usage error: `chi` exits 2).
 */
export function declaredTemplates(
  experiments: readonly AnyExperiment[],
  packaged: PromptSet,
): PromptSet {
  const owners = new Map<string, string>();
  const templates = new Map<string, PromptTemplate>();
  for (const experiment of experiments) {
    for (const [index, declared] of (experiment.promptTemplates ?? []).entries()) {
      const field = `experiments.${experiment.id}.promptTemplates[${index}]`;
      const template = checkedTemplate(field, declared);
      const builtIn = packaged.get(template.name);
      if (builtIn !== undefined)
        throw new InvalidArgumentError(
          field,
          `template ${template.name} collides with the built-in template ${builtIn.name}@${builtIn.version}: give it another name (x-<name>, like the module's ID)`,
        );
      const owner = owners.get(template.name);
      if (owner !== undefined)
        throw new InvalidArgumentError(
          field,
          owner === experiment.id
            ? `template ${template.name} is declared twice by ${owner}`
            : `template ${template.name} is declared by both ${owner} and ${experiment.id}`,
        );
      owners.set(template.name, experiment.id);
      templates.set(template.name, template);
    }
  }
  return templates;
}

/** The packaged templates and those the modules declare ({@link declaredTemplates}), in one set. */
export function withDeclaredTemplates(
  packaged: PromptSet,
  experiments: readonly AnyExperiment[],
): PromptSet {
  return new Map([...packaged, ...declaredTemplates(experiments, packaged)]);
}

/**
 * Every template the registered experiments can render from: the packaged ones (`smoke`,
 * `system`) and those every built-in folder declares (memory, history and behavior among them),
 * for a reader outside a run folder (a plan's cost, the imitator's question wordings).
 */
export function registeredPromptTemplates(): PromptSet {
  return withDeclaredTemplates(loadPromptTemplates(), REGISTERED_EXPERIMENTS);
}
