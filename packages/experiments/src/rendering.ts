import {
  type PromptSet,
  type RenderedMessages,
  renderJsonBlock,
  renderTemplate,
  requireTemplate,
} from '@chi/experiment';
import type { RequestTask } from '@chi/spec';

/** The machine-readable REQUEST block every prompt carries. */
export interface RequestHeader {
  readonly task: RequestTask;
  /** Opaque per registered request, equal for every system. */
  readonly nonce: string;
  /** For note-writing tasks: the notebook cap the prompt states. */
  readonly notebookCapBytes?: number;
}

/**
 * The messages of one request: the `system` template as the system message, template `name`
 * filled with `values` as the user message.
 */
export function renderRequest(
  prompts: PromptSet,
  task: RequestTask,
  name: string,
  values: Record<string, string>,
): RenderedMessages {
  const system = requireTemplate(prompts, 'system');
  const template = requireTemplate(prompts, name);
  return {
    task,
    template: { name: template.name, version: template.version },
    messages: [
      { role: 'system', content: renderTemplate(system, {}) },
      { role: 'user', content: renderTemplate(template, values) },
    ],
  };
}

/** The REQUEST block of a prompt. */
export function requestHeader(value: RequestHeader): string {
  return renderJsonBlock('REQUEST', value);
}

/** Notes travel as one JSON string, so no byte of them can break out of their block. */
export function notesBlock(notes: string): string {
  return renderJsonBlock('NOTES', { notes });
}
