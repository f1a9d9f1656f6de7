import type { RunChartData } from '@chi/analysis';
import { RUN_FOLDER_DIRECTORY } from '@chi/run/internal';
import { intervalWords } from './interval-wording';
import type { ReportBlock } from './report-block';

const capitalized = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** One glossary entry: the term as the report writes it and its definition. */
export interface GlossaryEntry {
  readonly term: string;
  readonly definition: string;
}

/**
 * Every term and symbol the report uses, defined once. Definitions follow the seed documents and
 * docs/protocol.md.
 */
export function glossary(data: RunChartData): GlossaryEntry[] {
  return [
    {
      term: 'CHI',
      definition:
        'Cognitive Humanlike Index: a proposed weighted similarity to a human reference profile. Null throughout this pilot, because no human calibration exists.',
    },
    {
      term: 'CHIS',
      definition: `Cognitive Humanlike Index Sequence: a time-ordered sequence of profiles, optional CHI values, state descriptors and resource records of one system (${RUN_FOLDER_DIRECTORY.chis}/ in the release).`,
    },
    {
      term: 'CPLOM',
      definition:
        'The earlier article “From Control to Memory”, which named this pilot (the CPLOM longitudinal model pilot). CHI/CHIS is independent of it; nothing here evaluates a CPLOM architecture.',
    },
    {
      term: 'EIMC_tau',
      definition:
        'Effective Indexed Memory Capacity at threshold tau: the largest tested load N (target keys) whose Q_M is at least tau. Status “capacity”, “lower bound” (the largest tested load passes: right-censored) or “no passing load” (never zero). No extrapolation to untested loads.',
    },
    {
      term: 'Q_M',
      definition:
        'Memory quality: the product of the six factors r, t, s, u, i and 1 − f, each raised to 1/6. The primary estimate is Q_M of the world-mean factors; the mean within-world Q_M is a different quantity.',
    },
    {
      term: 'r, t, s, u, i',
      definition:
        'The content strata of the memory probes: r current retrieval, t historical (as-of) retrieval, s content and source, u authoritative update, i interference (a later lower-authority record must not win). Each factor is the share of passing probes.',
    },
    {
      term: 'f',
      definition:
        'Absent-key lure failure rate: lures (keys never recorded) answered with a value, or answered invalidly, over all lures. A lure passes only on an explicit abstention (value and source both null).',
    },
    {
      term: 'N (load)',
      definition:
        'The number of target keys a world records; it also has N distractors, N/4 authoritative updates and N/4 conflicting records.',
    },
    {
      term: 'tau',
      definition: `The Q_M threshold of EIMC: ${data.run.analysis.taus.join(', ')}.`,
    },
    {
      term: 'Notebook',
      definition: `The external memory of the evaluated system: notes the model writes, persisted as UTF-8 and truncated at ${data.run.notebookCapBytes} bytes; a fresh request sees only the notes and the blind questions.`,
    },
    {
      term: 'Reference condition',
      definition:
        'A declared scripted system with an uncapped notebook (e.g. perfect): it shows what the scoring gives a faultless reader and is not an evaluated system.',
    },
    {
      term: 'Blank and oracle controls',
      definition:
        'Blank: the same blind questions with an empty notebook (tests dependence on the notes). Oracle: the original records in context (tests solvability; in-context evidence, not EIMC).',
    },
    {
      term: 'World',
      definition:
        'One seeded artificial world (records, blind probes, hidden answer key): the unit of resampling. A block is one world x one experiment unit across every system.',
    },
    {
      term: 'Complete world / block',
      definition:
        'A block whose every registered request resolved without an infrastructure failure; only complete blocks enter comparisons.',
    },
    {
      term: 'CI, interval',
      definition: `${capitalized(intervalWords(data.run.analysis.level))}, from ${data.run.analysis.resamples} cluster-bootstrap resamples of worlds (analysis seed ${data.run.analysis.seed}), not a simultaneous band. None with fewer than two complete worlds.`,
    },
    {
      term: 'Histories A, B, A2',
      definition:
        'The history experiment: A and B carry opposite evidence about four binary environments; A2 repeats A as a same-history stochastic control. Checkpoints 0 (no evidence), 1 (ingest), 2 and 3 (neutral maintenance), 4 (authoritative correction).',
    },
    {
      term: 'D(X,Y)',
      definition:
        'Mean absolute coordinate difference between two decision vectors (option A = 0, unknown = 0.5, option B = 1); null when a coordinate is invalid.',
    },
    {
      term: 'Excess (experience) divergence',
      definition:
        'D(A,B) − D(A,A2): how far opposite histories drive decisions apart beyond the same-history stochastic floor.',
    },
    {
      term: 'Continuity, correction response',
      definition:
        'Continuity: 1 − D between the neutral checkpoints 2 and 3. Correction response: accuracy at checkpoint 4 minus accuracy at 3 against the corrected rule.',
    },
    {
      term: 'R, C, A, I',
      definition:
        'Behavioral task indicators: R reasoning (rule and counterfactual tasks), C next-action choice, A framing (matched positive/negative frames; the frame-induced change rate is reported apart), I integration. Partial probes, not validated axis scores.',
    },
    {
      term: 'Scripted baseline',
      definition:
        'A deterministic program standing in for a model (perfect, capacity-keeper, latest-wins, confabulator, abstainer): it checks the pipeline and is not a measurement of any model.',
    },
    {
      term: 'Exploratory',
      definition: `A cell with fewer than ${data.run.analysis.exploratoryBelowWorlds} complete worlds: no comparison on it is confirmatory.`,
    },
  ];
}

/** The glossary section of the report. */
export function glossaryBlocks(data: RunChartData): ReportBlock[] {
  return [
    { kind: 'heading', level: 2, text: 'Glossary', id: 'glossary' },
    {
      kind: 'table',
      caption: 'Every term and symbol of this report.',
      columns: ['Term', 'Meaning'],
      rows: glossary(data).map((e) => [e.term, e.definition]),
    },
  ];
}
