import type { HistoryWorld, ValidAnswer } from '@chi/spec';
import type { HistoryEnvironment, HistoryEvidence, HistoryStep, Option } from '@chi/spec/internal';
import { isoAtMinute } from './event-time';
import { createRandom, type SeededRandom } from './random';
import { assertSeedArgument, deriveSeed } from './seed';
import { generatorInfo } from './version';

/** Options of {@link generateHistoryWorld}. */
export interface HistoryWorldOptions {
  /** The world seed, an unsigned 32-bit integer (the same one the memory world uses is fine). */
  readonly seed: number;
}

const ENVIRONMENT_COUNT = 4;
const MINUTES_PER_DAY = 1440;
/** Observations of the ingested history are dated on days 1 to 28 after the epoch. */
const OBSERVATION_FIRST_DAY = 1;
const OBSERVATION_LAST_DAY = 28;
const OBSERVATIONS_PER_ENVIRONMENT = 3;
/** Day of the authoritative correction (checkpoint 4), after the two maintenance events. */
const CORRECTION_DAY = 75;
const OBSERVATION_TRIALS = 20;
const CORRECTION_TRIALS = 200;

/**
 * Neutral, domain-flavoured subjects; each world uses four distinct ones. They carry no hint of
 * the answer: which option is better is set by the generated evidence alone.
 */
const SUBJECT_DOMAINS = [
  'supplier',
  'shipping route',
  'storage site',
  'test lab',
  'courier',
  'assembly line',
  'data feed',
  'repair shop',
] as const;

/**
 * The option history A's evidence favors in each environment: an independent fair draw per
 * environment from the world's seeded stream. Environments are independent of each other, and
 * direction is counterbalanced across seeds (each environment favors A in half of all worlds in
 * expectation), not within a world: a world may favor A in 0 to 4 environments.
 */
function drawDirections(random: SeededRandom): Option[] {
  const directions: Option[] = [];
  for (let environment = 0; environment < ENVIRONMENT_COUNT; environment++) {
    directions.push(random.chance(1, 2) ? 'A' : 'B');
  }
  return directions;
}

function opposite(option: Option): Option {
  return option === 'A' ? 'B' : 'A';
}

/** Draws `count` distinct uppercase tokens (labels) of `length` characters. */
function distinctTokens(
  random: SeededRandom,
  count: number,
  length: number,
  taken: Set<string>,
): string[] {
  const out: string[] = [];
  while (out.length < count) {
    const token = random.token(length).toUpperCase();
    if (taken.has(token)) continue;
    taken.add(token);
    out.push(token);
  }
  return out;
}

interface EvidencePlan {
  readonly environmentId: string;
  readonly date: string;
  readonly source: string;
  readonly kind: HistoryEvidence['kind'];
  readonly trials: number;
  /** Successes of the option the evidence favors and of the other option. */
  readonly favoredSuccesses: number;
  readonly otherSuccesses: number;
}

/** Evidence favoring `favored`: the favored option gets the larger success count. */
function realize(plan: EvidencePlan, favored: Option): HistoryEvidence {
  const favoredOutcome = { trials: plan.trials, successes: plan.favoredSuccesses };
  const otherOutcome = { trials: plan.trials, successes: plan.otherSuccesses };
  return {
    environmentId: plan.environmentId,
    date: plan.date,
    source: plan.source,
    kind: plan.kind,
    favored,
    outcomes:
      favored === 'A'
        ? { A: favoredOutcome, B: otherOutcome }
        : { A: otherOutcome, B: favoredOutcome },
  };
}

function buildSteps(
  observations: readonly EvidencePlan[],
  corrections: readonly EvidencePlan[],
  direction: readonly Option[],
  environmentIndex: ReadonlyMap<string, number>,
): HistoryStep[] {
  const favoredBefore = (plan: EvidencePlan): Option =>
    direction[environmentIndex.get(plan.environmentId) as number] as Option;
  return [
    { checkpoint: 0, kind: 'baseline', evidence: [] },
    {
      checkpoint: 1,
      kind: 'ingest',
      evidence: observations.map((plan) => realize(plan, favoredBefore(plan))),
    },
    { checkpoint: 2, kind: 'maintenance', evidence: [] },
    { checkpoint: 3, kind: 'maintenance', evidence: [] },
    {
      checkpoint: 4,
      kind: 'correction',
      evidence: corrections.map((plan) => realize(plan, opposite(favoredBefore(plan)))),
    },
  ];
}

function validAnswersFor(direction: readonly Option[]): ValidAnswer[][] {
  const before: ValidAnswer[] = [...direction];
  return [
    direction.map((): ValidAnswer => 'unknown'),
    [...before],
    [...before],
    [...before],
    direction.map(opposite),
  ];
}

/**
 * Generates one history world: four independent binary environments with random option labels;
 * history A ingests dated evidence (three observations per environment) at checkpoint 1, history
 * B the mirror-image evidence (same dates, sources and trial counts, success counts swapped
 * between the options, so it favors the other option), and A2 exactly A's evidence. Checkpoints
 * 2 and 3 are neutral maintenance events (no evidence); checkpoint 4 brings one authoritative
 * correction per environment that reverses the history's earlier evidence. `validAnswers` holds
 * the warranted answer per history, checkpoint and environment: unknown at checkpoint 0, the
 * favored option at 1-3, the corrected option at 4.
 *
 * Counterbalancing: the option history A favors in each environment is an independent fair draw
 * from the world's seeded stream (written to `counterbalance`, e.g. `ABBB`), so the four
 * environments are independent binary environments and every environment favors each option in
 * half of all seeds in expectation; all 16 patterns occur. Within a world, history B favors the
 * other option in every environment.
 *
 * @example
 * ```ts
 * const world = generateHistoryWorld({ seed: deriveSeed(20260901, 'world', 17) });
 * world.validAnswers.A[0]; // ['unknown', 'unknown', 'unknown', 'unknown']
 * world.validAnswers.B[1]; // the opposite of world.validAnswers.A[1], environment by environment
 * ```
 */
export function generateHistoryWorld(options: HistoryWorldOptions): HistoryWorld {
  assertSeedArgument('seed', options.seed);
  const random = createRandom(deriveSeed(options.seed, 'history-world'));
  const direction = drawDirections(random);
  const domains = random.sampleDistinct(SUBJECT_DOMAINS.length, ENVIRONMENT_COUNT);
  const takenTokens = new Set<string>();

  const environments: HistoryEnvironment[] = [];
  const observations: EvidencePlan[] = [];
  const corrections: EvidencePlan[] = [];
  for (let environment = 0; environment < ENVIRONMENT_COUNT; environment++) {
    const id = `env-${environment + 1}`;
    const [subjectToken, labelA, labelB, logToken, auditToken] = distinctTokens(
      random,
      5,
      4,
      takenTokens,
    ) as [string, string, string, string, string];
    environments.push({
      id,
      subject: `${SUBJECT_DOMAINS[domains[environment] as number]} ${subjectToken}`,
      labels: { A: labelA, B: labelB },
    });
    const days = random
      .sampleDistinct(
        OBSERVATION_LAST_DAY - OBSERVATION_FIRST_DAY + 1,
        OBSERVATIONS_PER_ENVIRONMENT,
      )
      .map((offset) => OBSERVATION_FIRST_DAY + offset)
      .sort((left, right) => left - right);
    for (const day of days) {
      const minute = day * MINUTES_PER_DAY + random.int(8 * 60, 18 * 60 - 1);
      observations.push({
        environmentId: id,
        date: isoAtMinute(minute),
        source: `log-${logToken.toLowerCase()}`,
        kind: 'observation',
        trials: OBSERVATION_TRIALS,
        favoredSuccesses: random.int(14, 18),
        otherSuccesses: random.int(6, 10),
      });
    }
    corrections.push({
      environmentId: id,
      date: isoAtMinute(CORRECTION_DAY * MINUTES_PER_DAY + random.int(8 * 60, 18 * 60 - 1)),
      source: `audit-${auditToken.toLowerCase()}`,
      kind: 'authoritative_correction',
      trials: CORRECTION_TRIALS,
      favoredSuccesses: random.int(150, 180),
      otherSuccesses: random.int(60, 100),
    });
  }
  // Evidence is ingested in date order across environments, as a dated log would be.
  observations.sort((left, right) =>
    left.date < right.date ? -1 : left.date > right.date ? 1 : 0,
  );

  const environmentIndex = new Map(
    environments.map((environment, index) => [environment.id, index]),
  );
  const directionB = direction.map(opposite);
  return {
    kind: 'history-world',
    generator: generatorInfo(),
    seed: options.seed,
    environments,
    counterbalance: direction.join(''),
    histories: {
      A: buildSteps(observations, corrections, direction, environmentIndex),
      B: buildSteps(observations, corrections, directionB, environmentIndex),
      A2: buildSteps(observations, corrections, direction, environmentIndex),
    },
    validAnswers: {
      A: validAnswersFor(direction),
      B: validAnswersFor(directionB),
      A2: validAnswersFor(direction),
    },
  };
}
