import { memoryPolicyOf, SYSTEM_POLICY_TEMPLATES } from '@chi/experiments/internal';
import type { RunManifest } from '@chi/spec';

// The policy templates and their choice are the built-in folders' (`@chi/experiments`): memory
// and history render by them, the divergence protocol too.
export {
  manifestPolicy,
  type PolicyTemplate,
  policyTemplate,
  SYSTEM_POLICY_TEMPLATES,
} from '@chi/experiments/internal';

/**
 * The system-policy variants a run leaves out: all of them when no system of the manifest keeps
 * its own memory, so a notebook run freezes, copies and hashes the same prompts as before the
 * variants existed.
 */
export function unusedPolicyTemplates(manifest: Pick<RunManifest, 'systems'>): string[] {
  return manifest.systems.some((system) => memoryPolicyOf(system) === 'system')
    ? []
    : Object.values(SYSTEM_POLICY_TEMPLATES);
}
