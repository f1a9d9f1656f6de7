import type { SystemSpec } from '@chi/spec';
import type { MemoryPolicy } from './instance-identity';

/**
 * The systems of a run under `--memory POLICY`: `system` marks every system as keeping its own
 * memory; `notebook` (or no flag) leaves each system's own policy, so the manifest of a run
 * without the flag keeps its bytes (the field stays absent). A reference memory system keeps
 * `system` whatever the flag: it holds its memory by definition.
 */
export function withMemoryPolicy(
  systems: readonly SystemSpec[],
  policy: MemoryPolicy | null,
): SystemSpec[] {
  if (policy !== 'system') return [...systems];
  return systems.map((system) => ({ ...system, memory: 'system' as const }));
}
