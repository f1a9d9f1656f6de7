import type { RunManifest, SystemSpec } from '@chi/spec';

/** The memory policy of a system: `notebook` (the runner's capped notebook) or `system`. */
export type MemoryPolicy = 'notebook' | 'system';

/** A system's memory policy as frozen in the manifest (absent: `notebook`). */
export function memoryPolicyOf(system: Pick<SystemSpec, 'memory'>): MemoryPolicy {
  return system.memory ?? 'notebook';
}

/**
 * The prompt templates whose wording depends on who holds the memory, each with its variant for
 * memory policy `system`. The notebook templates tell the model about a capped notebook the
 * harness carries into later prompts; under `system` the harness carries nothing, so the variants
 * never mention a notebook or a NOTES block and ask the system to answer from its own memory.
 */
export const SYSTEM_POLICY_TEMPLATES = {
  'memory-encode': 'memory-encode-system',
  'memory-probe': 'memory-probe-system',
  'history-update': 'history-update-system',
  'history-probe': 'history-probe-system',
} as const;

/** A template that has a variant for memory policy `system`. */
export type PolicyTemplate = keyof typeof SYSTEM_POLICY_TEMPLATES;

/** The template a system under `policy` is sent: the variant under `system`, else the name itself. */
export function policyTemplate(name: PolicyTemplate, policy: MemoryPolicy): string {
  return policy === 'system' ? SYSTEM_POLICY_TEMPLATES[name] : name;
}

/** The memory policy of a manifest's system (absent from the manifest: `notebook`). */
export function manifestPolicy(
  manifest: Pick<RunManifest, 'systems'>,
  systemId: string,
): MemoryPolicy {
  const system = manifest.systems.find((candidate) => candidate.id === systemId);
  return system === undefined ? 'notebook' : memoryPolicyOf(system);
}
