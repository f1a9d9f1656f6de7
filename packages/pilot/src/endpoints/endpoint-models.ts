import { INSTANCE_CONTROL_VERSION, type SystemSpec } from '@chi/spec';
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
      instanceControl: z.literal(INSTANCE_CONTROL_VERSION).optional(),
    })
    .optional(),
});

/**
 * Any model entry (a real system behind an adapter included) that declares the instance-control
 * extension: `chi: { instanceControl: "chi-instance-control-v1" }` beside the OpenAI fields.
 */
const ControlEntrySchema = z.object({
  id: z.string().min(1),
  chi: z.object({ instanceControl: z.literal(INSTANCE_CONTROL_VERSION) }),
});

/** A scripted system served over HTTP, as its endpoint declares it. */
export interface ServedScriptedModel {
  readonly model: string;
  /** The declared reference condition (only `perfect`); false when the endpoint says nothing. */
  readonly uncappedNotebook: boolean;
  readonly scripted: NonNullable<SystemSpec['scripted']> | null;
  /** True when the endpoint declares it keeps its own memory (a reference memory system). */
  readonly keepsMemory?: boolean;
  /** True when the entry declares the instance-control extension (`chi-instance-control-v1`). */
  readonly instanceControl?: boolean;
  /**
   * True for an entry that is not a scripted system and declares only the instance-control
   * extension (a memory system behind an adapter): nothing else of its spec changes.
   */
  readonly controlOnly?: boolean;
}

/**
 * Reads the scripted systems an OpenAI-compatible endpoint lists at `GET /models` (the body of
 * that request). Entries that are not `owned_by: "chi-scripted"` are real models: skipped, except
 * that one declaring the instance-control extension is kept with `controlOnly` (only that
 * declaration is carried into its manifest entry).
 */
export function servedScriptedModels(body: unknown): Map<string, ServedScriptedModel> {
  const found = new Map<string, ServedScriptedModel>();
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return found;
  for (const item of data) {
    const parsed = ScriptedEntrySchema.safeParse(item);
    if (!parsed.success) {
      const control = ControlEntrySchema.safeParse(item);
      if (control.success)
        found.set(control.data.id, {
          model: control.data.id,
          uncappedNotebook: false,
          scripted: null,
          instanceControl: true,
          controlOnly: true,
        });
      continue;
    }
    found.set(parsed.data.id, {
      model: parsed.data.id,
      uncappedNotebook: parsed.data.chi?.uncappedNotebook ?? false,
      scripted: parsed.data.chi?.scripted ?? null,
      ...(parsed.data.chi?.memory === 'system' ? { keepsMemory: true } : {}),
      ...(parsed.data.chi?.instanceControl === undefined ? {} : { instanceControl: true }),
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
    const control =
      declared.instanceControl === true ? { instanceControl: INSTANCE_CONTROL_VERSION } : {};
    if (declared.controlOnly === true) return { ...system, ...control };
    return {
      ...system,
      evidenceClass: 'scripted_baseline' as const,
      ...(declared.uncappedNotebook ? { uncappedNotebook: true } : {}),
      ...(declared.scripted === null ? {} : { scripted: declared.scripted }),
      ...(declared.keepsMemory === true ? { memory: 'system' as const } : {}),
      ...control,
    };
  });
}
