import type { HistoryEnvironment, HistoryEvidence, HistoryStep, Option } from '@chi/spec/internal';
import { deriveSeed, generateHistoryWorld } from '@chi/worlds';
import { WASHOUT_CHOICES } from './protocol';

/**
 * Everything one world seed gives the divergence protocol: the four primary choices whose
 * decisions are compared, three washout choices (common experience, and the memory-accumulation
 * panel), and the evidence of each event. Built from two `generateHistoryWorld` worlds: the world
 * itself (its A/B histories and corrections) and one derived from `seed/divergence-washout`, whose
 * first three environments and their history-A observations become the washout choices.
 */
export interface DivergenceWorld {
  readonly seed: number;
  /** The four choices whose decision vector is compared (history evidence is about these). */
  readonly primary: readonly HistoryEnvironment[];
  /** The washout choices (IDs `wash-1`.. `wash-3`). */
  readonly washout: readonly HistoryEnvironment[];
  /** The fixed probe panel asked at every checkpoint: primary then washout choices. */
  readonly panel: readonly HistoryEnvironment[];
  /** Exposure evidence of each history. */
  readonly exposure: {
    readonly A: readonly HistoryEvidence[];
    readonly B: readonly HistoryEvidence[];
  };
  /** Evidence of washout checkpoint k (0-based): the observations of washout choice k. */
  readonly washoutEvidence: readonly (readonly HistoryEvidence[])[];
  /** The option the washout evidence favors, per washout choice. */
  readonly washoutFavored: readonly Option[];
  /** Favored option of history A per primary choice (B favors the other). */
  readonly directionA: readonly Option[];
  /** The authoritative correction of history A (reverses A). */
  readonly correctionA: readonly HistoryEvidence[];
  /** The matched non-correcting update of history A: same form, favors A's own direction. */
  readonly matchedA: readonly HistoryEvidence[];
}

/** Builds the divergence world of one seed (pure; same seed, same world). */
export function buildDivergenceWorld(seed: number): DivergenceWorld {
  const world = generateHistoryWorld({ seed });
  const washoutSource = generateHistoryWorld({ seed: deriveSeed(seed, 'divergence-washout') });
  const renamed = new Map<string, string>();
  const washout = washoutSource.environments.slice(0, WASHOUT_CHOICES).map((environment, index) => {
    renamed.set(environment.id, `wash-${index + 1}`);
    return { ...environment, id: `wash-${index + 1}` };
  });
  const ingest = (steps: readonly HistoryStep[]) => steps[1]?.evidence ?? [];
  const washoutEvidence = washoutSource.environments.slice(0, WASHOUT_CHOICES).map((environment) =>
    ingest(washoutSource.histories.A)
      .filter((evidence) => evidence.environmentId === environment.id)
      .map((evidence) => ({ ...evidence, environmentId: renamed.get(environment.id) as string })),
  );
  const directionA = [...world.counterbalance] as Option[];
  const washoutFavored = [...washoutSource.counterbalance].slice(0, WASHOUT_CHOICES) as Option[];
  return {
    seed,
    primary: world.environments,
    washout,
    panel: [...world.environments, ...washout],
    exposure: { A: ingest(world.histories.A), B: ingest(world.histories.B) },
    washoutEvidence,
    washoutFavored,
    directionA,
    correctionA: world.histories.A[4]?.evidence ?? [],
    // B's correction reverses B, so it favors A's direction: the same dates, sources, trials and
    // kind as A's correction, only the direction differs.
    matchedA: world.histories.B[4]?.evidence ?? [],
  };
}
