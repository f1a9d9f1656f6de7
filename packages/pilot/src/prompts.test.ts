import { readFileSync } from 'node:fs';
import { sha256Hex } from '@chi/run';
import { describe, expect, it } from 'vitest';
import { registeredPromptTemplates } from './experiments/declared-templates';
import {
  DEFAULT_PROMPTS_DIR,
  loadPromptTemplates,
  parsePromptTemplate,
  promptRefs,
  renderTemplate,
} from './prompts';

describe('prompt templates', () => {
  it('loads the packaged templates with the hashes of their file bytes', () => {
    const prompts = loadPromptTemplates();
    // only the toolkit's own: every experiment's templates are declared in its folder
    expect([...prompts.keys()].sort()).toEqual(['smoke', 'system']);
    const system = prompts.get('system');
    expect(system?.version).toBe('1');
    expect(system?.sha256).toBe(sha256Hex(readFileSync(`${DEFAULT_PROMPTS_DIR}/system@1.txt`)));
    expect(promptRefs(prompts).map((ref) => ref.name)).toEqual([...prompts.keys()].sort());
  });

  it('the registered set adds every folder-declared template, parsed like a file', () => {
    const prompts = registeredPromptTemplates();
    const encode = prompts.get('memory-encode');
    expect(encode?.version).toBe('1');
    expect(encode?.sha256).toBe('9c0ea4663058a5ab30d1822458a5e01348a563929c0363a35ca79a05907dcdd0');
    expect(encode?.placeholders).toEqual(['NOTEBOOK_CAP_BYTES', 'REQUEST_BLOCK', 'RECORDS_BLOCK']);
  });

  it('every memory and history template tells the model the exact answer or notes format', () => {
    const prompts = registeredPromptTemplates();
    for (const name of ['memory-probe', 'memory-probe-oracle']) {
      const text = prompts.get(name)?.text ?? '';
      expect(text).toContain(
        '[{"id": "<question id>", "value": "<eight hexadecimal characters>", "source"',
      );
      expect(text).toContain('{"id": "<question id>", "value": null, "source": null}');
    }
    expect(prompts.get('memory-encode')?.text).toContain('Reply with your notes only');
  });

  it('renders in one pass: substituted data cannot inject placeholders', () => {
    const template = parsePromptTemplate('t', '1', 'A {{X}} B {{Y}} {{X}}');
    expect(renderTemplate(template, { X: '{{Y}}', Y: 'y' })).toBe('A {{Y}} B y {{Y}}');
  });

  it('refuses missing and unused values, naming them', () => {
    const template = parsePromptTemplate('t', '1', '{{X}}');
    expect(() => renderTemplate(template, {})).toThrow(/t@1 needs X/);
    expect(() => renderTemplate(template, { X: '', Z: '' })).toThrow(/has no placeholder Z/);
  });
});
