import {
  type AnyExperimentScorer,
  type ScorerWorldInput,
  type ScorerWorldResult,
  scoresWorlds,
  type WorldScorer,
} from '../experiment-scorer';

const ID_PATTERN = /^[a-z][a-z0-9-]*$/;

/**
 * The scorer part of the experiment contract. Declarations: the version marker, a kebab-case
 * experiment ID, a title, notes, and at least one scoring capability: per world (unique columns,
 * estimands over declared columns, `scoreWorld`, all three or none) or per block (`blocks`
 * scoring at least the experiment's own blocks). Then, for a per-world scorer and each
 * sample world (one system's requests on one world, as the report builds them): `scoreWorld`
 * returns exactly the declared columns with finite numbers or null, gives the same result twice
 * (pure), and does not throw when every reply is missing (`reply: null`), is not the format
 * asked for (model output it must score as a failure) or when no request resolved (no reply and
 * `result: null`). Returns every problem found.
 *
 * @example
 * ```ts
 * expect(experimentScorerProblems(myScorer, [{ params, worldSeed: 1, systemId: 'a', requests }])).toEqual([]);
 * ```
 */
export function experimentScorerProblems(
  scorer: AnyExperimentScorer,
  samples: readonly ScorerWorldInput<unknown>[] = [],
): string[] {
  const problems = scorerDeclarationProblems(scorer);
  if (!scoresWorlds(scorer)) {
    if (samples.length > 0) problems.push('samples given, but it has no scoreWorld');
    return problems;
  }
  for (const [index, sample] of samples.entries()) {
    const label = `scoreWorld (sample ${index}, world ${sample.worldSeed}, ${sample.systemId})`;
    const variants: [string, ScorerWorldInput<unknown>][] = [
      ['', sample],
      [' with every reply missing', withReplies(sample, null)],
      [' with every reply not in the asked format', withReplies(sample, 'not the asked format')],
      [' with no request resolved', unresolved(sample)],
    ];
    for (const [what, input] of variants)
      problems.push(...scoreProblems(scorer, input, `${label}${what}`));
  }
  return problems;
}

function scorerDeclarationProblems(scorer: AnyExperimentScorer): string[] {
  const problems: string[] = [];
  if (scorer.specificationVersion !== 'chi-scorer-v1')
    problems.push(`specificationVersion is ${JSON.stringify(scorer.specificationVersion)}`);
  if (!ID_PATTERN.test(scorer.experimentId))
    problems.push(
      `experimentId ${JSON.stringify(scorer.experimentId)} must match ${ID_PATTERN.source}`,
    );
  if (scorer.title.trim() === '') problems.push('title is empty');
  if (scorer.notes.length === 0) problems.push('notes: say what the numbers are and are not');
  problems.push(...capabilityProblems(scorer));
  return problems;
}

/** The per-world and per-block capabilities: at least one, each whole. */
function capabilityProblems(scorer: AnyExperimentScorer): string[] {
  const problems: string[] = [];
  const worldParts = [scorer.columns, scorer.estimands, scorer.scoreWorld].filter(
    (part) => part !== undefined,
  ).length;
  if (worldParts === 0 && scorer.blocks === undefined)
    problems.push('scores nothing: give scoreWorld (with columns and estimands) or blocks');
  if (worldParts > 0 && !scoresWorlds(scorer))
    problems.push('per world: columns, estimands and scoreWorld go together');
  if (scoresWorlds(scorer)) problems.push(...columnProblems(scorer));
  const blocks = scorer.blocks;
  if (blocks !== undefined && !blocks.blockExperiments.includes(scorer.experimentId))
    problems.push(`blocks: blockExperiments does not include ${scorer.experimentId}`);
  return problems;
}

function columnProblems(scorer: WorldScorer): string[] {
  const problems: string[] = [];
  if (scorer.columns.length === 0) problems.push('columns: declares no column');
  if (new Set(scorer.columns).size !== scorer.columns.length) problems.push('columns: duplicates');
  for (const estimand of scorer.estimands)
    if (!scorer.columns.includes(estimand.column))
      problems.push(`estimands: ${estimand.column} is not a declared column`);
  return problems;
}

function withReplies(
  sample: ScorerWorldInput<unknown>,
  reply: string | null,
): ScorerWorldInput<unknown> {
  return {
    ...sample,
    requests: sample.requests.map((request) => ({
      ...request,
      reply,
      unusableReason: reply === null ? 'missing' : null,
    })),
  };
}

/** Every request never sent: no reply and no logged result. */
function unresolved(sample: ScorerWorldInput<unknown>): ScorerWorldInput<unknown> {
  return {
    ...sample,
    requests: sample.requests.map((request) => ({
      ...request,
      reply: null,
      unusableReason: 'not sent',
      result: null,
    })),
  };
}

function scoreProblems(
  scorer: WorldScorer,
  input: ScorerWorldInput<unknown>,
  label: string,
): string[] {
  let first: ScorerWorldResult;
  try {
    first = scorer.scoreWorld(input);
  } catch (error) {
    return [`${label} threw ${error instanceof Error ? error.message : String(error)}`];
  }
  const problems: string[] = [];
  const columns = Object.keys(first.values);
  if (JSON.stringify([...columns].sort()) !== JSON.stringify([...scorer.columns].sort()))
    problems.push(`${label} gives columns ${columns.join(', ')}, not ${scorer.columns.join(', ')}`);
  for (const [column, value] of Object.entries(first.values))
    if (value !== null && !Number.isFinite(value))
      problems.push(`${label} gives ${column} = ${String(value)}, not a finite number or null`);
  if (JSON.stringify(scorer.scoreWorld(input)) !== JSON.stringify(first))
    problems.push(`${label} gives a different result twice`);
  return problems;
}
