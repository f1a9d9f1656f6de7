import type { SystemSpec } from '@chi/spec';
import { z } from 'zod';

/**
 * What `chi serve` declares in a `GET /v1/models` entry (`owned_by: "chi-scripted"` and a `chi`
 * object): the scripted system's manifest facts. Parsed at the edge; anything else is ignored.
 */
const ScriptedEntrySchema = z.object({
  id: z.string().min(1),
  owned_by: z.literal('chi-scripted'),
  chi: z
    .object({
      uncappedNotebook: z.boolean(),
      scripted: z.strictObject({
        seed: z.int().min(0),
        declaredNoise: z.record(z.string().min(1), z.number().min(0).max(1)),
        description: z.string().min(1),
      }),
      memory: z.literal('system').optional(),
    })
    .optional(),
});

/** A scripted system served over HTTP, as its endpoint declares it. */
export interface ServedScriptedModel {
  readonly model: string;
  /** The declared reference condition (only `perfect`); false when the endpoint says nothing. */
  readonly uncappedNotebook: boolean;
  readonly scripted: NonNullable<SystemSpec['scripted']> | null;
  /** True when the endpoint declares it keeps its own memory (a reference memory system). */
  readonly keepsMemory?: boolean;
}

/**
 * Reads the scripted systems an OpenAI-compatible endpoint lists at `GET /models` (the body of
 * that request). Entries that are not `owned_by: "chi-scripted"` are real models and skipped.
 */
export function servedScriptedModels(body: unknown): Map<string, ServedScriptedModel> {
  const found = new Map<string, ServedScriptedModel>();
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return found;
  for (const item of data) {
    const parsed = ScriptedEntrySchema.safeParse(item);
    if (!parsed.success) continue;
    found.set(parsed.data.id, {
      model: parsed.data.id,
      uncappedNotebook: parsed.data.chi?.uncappedNotebook ?? false,
      scripted: parsed.data.chi?.scripted ?? null,
      ...(parsed.data.chi?.memory === 'system' ? { keepsMemory: true } : {}),
    });
  }
  return found;
}

/**
 * Carries what an endpoint declares about its scripted systems into their manifest entries:
 * `evidenceClass: scripted_baseline` (never a model measurement), the seed and declared noise,
 * and the declared reference condition `uncappedNotebook`. Only a `chi-scripted` entry can lift
 * the notebook cap, and it is then labelled a scripted baseline, so no evaluated model is ever
 * uncapped. Other systems are returned unchanged.
 */
export function withServedDeclarations(
  systems: readonly SystemSpec[],
  served: ReadonlyMap<string, ServedScriptedModel>,
): SystemSpec[] {
  return systems.map((system) => {
    const declared = served.get(system.model);
    if (declared === undefined || system.kind !== 'openai-compatible') return system;
    return {
      ...system,
      evidenceClass: 'scripted_baseline' as const,
      ...(declared.uncappedNotebook ? { uncappedNotebook: true } : {}),
      ...(declared.scripted === null ? {} : { scripted: declared.scripted }),
      ...(declared.keepsMemory === true ? { memory: 'system' as const } : {}),
    };
  });
}
