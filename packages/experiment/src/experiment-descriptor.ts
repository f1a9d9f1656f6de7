import type { z } from 'zod';

/**
 * The five behavioral axes of the framework, in the article's order: "four R tests, eight M
 * tests, six C tests, six A tests and six I tests".
 */
export const AXES = ['R', 'M', 'C', 'A', 'I'] as const;
/** One behavioral axis of the framework. */
export type Axis = (typeof AXES)[number];

/**
 * How many tests Specification v0.1 has per axis ("The specification contains 30 concrete tests:
 * four R tests, eight M tests, six C tests, six A tests and six I tests"). The seeds do not
 * contain the tests' texts: a slot is a count, not a named test.
 */
export const PANEL_SLOTS: Readonly<Record<Axis, number>> = { R: 4, M: 8, C: 6, A: 6, I: 6 };

/**
 * What an experiment claims for one axis. `partial`: a task indicator on the axis that is not
 * one of the specification's full tests (the pilot's behavioral probes, "partial probes, not
 * validated full-axis capacity scores"); `implemented`: an environment the seeds describe in
 * enough detail to implement (procedure, score, features and control).
 */
export interface SlotClaim {
  readonly axis: Axis;
  readonly coverage: 'implemented' | 'partial';
  /** What the experiment measures on this axis, in one line. */
  readonly what: string;
}

/** A passage of a seed document an experiment implements, quoted verbatim. */
export interface SeedPassage {
  /** Which document: `framework` (the CHI/CHIS article) or `protocol` (the pilot protocol). */
  readonly source: 'framework' | 'protocol';
  readonly quote: string;
}

/**
 * One behavioral feature vector an experiment reports (the framework's "feature schemas"). The
 * `id`, `version`, `features` and `coding` are frozen into the manifest's `featureSchemas`; the
 * `schema` validates one observed vector.
 */
export interface FeatureDeclaration {
  readonly id: string;
  /** Changes whenever a feature's definition or coding changes (with a changeset). */
  readonly version: number;
  readonly features: readonly string[];
  readonly coding: string;
  /** Validates one observed feature vector (numbers in [0, 1], null where undefined). */
  readonly schema: z.ZodType;
}

/**
 * What the framework asks every test template to state: "Each states a procedure, task score,
 * behavioral features and a control condition." Executable members (plan, render, score) live in
 * the runner's module type, which extends this one; this part is pure data that every package
 * (runner, report, CLI) can read.
 */
export interface ExperimentDescriptor<Params = unknown> {
  /** Stable identifier, also the key of its parameters in `manifest.experiments`. */
  readonly id: string;
  /** A short human title. */
  readonly title: string;
  /** The axes it contributes to (one entry per slot it fills or partially covers). */
  readonly slots: readonly SlotClaim[];
  readonly procedure: string;
  readonly taskScore: string;
  readonly features: readonly FeatureDeclaration[];
  readonly control: string;
  readonly seedPassages: readonly SeedPassage[];
  /**
   * Its parameters as frozen in `manifest.experiments[id]` (`null` there disables it). The
   * schema validates them.
   */
  readonly parameters: z.ZodType<Params>;
}

/** One axis of {@link panelCoverage}: the slots and the experiments that claim them. */
export interface AxisCoverage {
  readonly axis: Axis;
  readonly slots: number;
  readonly implemented: readonly { readonly experimentId: string; readonly what: string }[];
  readonly partial: readonly { readonly experimentId: string; readonly what: string }[];
  /**
   * Slots no implemented environment claims: they await the specification's texts. Partial
   * indicators do not fill a slot.
   */
  readonly awaiting: number;
}

/**
 * Which of the 30 slots the given experiments cover, axis by axis. Only `implemented` claims
 * count against a slot; an axis never reports more implemented than it has slots.
 *
 * @example
 * ```ts
 * panelCoverage([]).map((row) => row.awaiting); // [4, 8, 6, 6, 6]
 * ```
 */
export function panelCoverage(
  experiments: readonly Pick<ExperimentDescriptor, 'id' | 'slots'>[],
): AxisCoverage[] {
  return AXES.map((axis) => {
    const claims = experiments.flatMap((experiment) =>
      experiment.slots
        .filter((slot) => slot.axis === axis)
        .map((slot) => ({ experimentId: experiment.id, what: slot.what, coverage: slot.coverage })),
    );
    const pick = (coverage: SlotClaim['coverage']) =>
      claims
        .filter((claim) => claim.coverage === coverage)
        .map(({ experimentId, what }) => ({ experimentId, what }));
    const implemented = pick('implemented');
    return {
      axis,
      slots: PANEL_SLOTS[axis],
      implemented,
      partial: pick('partial'),
      awaiting: Math.max(0, PANEL_SLOTS[axis] - implemented.length),
    };
  });
}

/**
 * The command-line form of one experiment parameter, attached to the parameter's zod schema as
 * `schema.meta({ cli: flag })` (or to the whole parameter schema, for a switch that turns the
 * experiment off). The CLI derives its flags, their parsing and their help lines from these; a
 * configuration file sets the same `option` by name.
 *
 * - `integer`: `--flag N`, an integer in `range`.
 * - `integer-list`: `--flag a,b,...`, each an integer in `range`, or one of the `presets`.
 * - `negation`: `--flag` given bare sets `option` to false (it is true by default).
 * - `switch`: `--flag` given bare sets `option` to true (it is false by default): an opt-in
 *   condition, whose parameter the experiment leaves absent when off. Help lists switches after
 *   the other experiment flags.
 *
 * @example
 * ```ts
 * z.int().min(1).nullable().meta({
 *   cli: { flag: 'batch-size', option: 'batchSize', kind: 'integer', placeholder: 'N',
 *          range: { min: 1, max: 10_000 }, help: 'probes per probe request, 1-10000' },
 * });
 * ```
 */
export interface ParameterFlag {
  /** The flag without its dashes (`batch-size` is `--batch-size`). */
  readonly flag: string;
  /** The pilot option it sets, by its configuration-file name (`batchSize`). */
  readonly option: string;
  /** How its value is written on the command line. */
  readonly kind: 'integer' | 'integer-list' | 'negation' | 'switch';
  /** What follows the flag in the help text (`N`, `32,64,...|v0.1`); absent for a negation or switch. */
  readonly placeholder?: string;
  /**
   * Its help: what it sets, its range and its default. A `\n` starts a continuation line, which
   * the help indents under the first.
   */
  readonly help: string;
  /** The accepted integers (inclusive), for `integer` and `integer-list`. */
  readonly range?: { readonly min: number; readonly max: number };
  /** An example list, named when an `integer-list` is given empty. */
  readonly example?: string;
  /** Named lists an `integer-list` also accepts (`v0.1`). */
  readonly presets?: Readonly<Record<string, readonly number[]>>;
}

function flagOf(schema: z.ZodType): ParameterFlag | null {
  const cli = (schema.meta() as { cli?: ParameterFlag } | undefined)?.cli;
  return cli ?? null;
}

/**
 * The command-line flags an experiment's parameter schema declares (see {@link ParameterFlag}):
 * the schema's own (a switch of the whole experiment) after those of its fields, fields in
 * their declaration order.
 *
 * @example
 * ```ts
 * parameterFlags(memoryExperiment.parameters).map((flag) => flag.flag); // ['loads', 'batch-size', 'no-controls']
 * ```
 */
export function parameterFlags(parameters: z.ZodType): ParameterFlag[] {
  const shape = (parameters as { shape?: Record<string, z.ZodType> }).shape;
  const fields = shape === undefined ? [] : Object.values(shape);
  return [...fields, parameters].map(flagOf).filter((flag): flag is ParameterFlag => flag !== null);
}
