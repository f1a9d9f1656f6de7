/** One row of the evidence map: a claim, what this release shows about it, and what it would need. */
export interface EvidenceMapRow {
  readonly claim: string;
  readonly thisRelease: string;
  readonly requiredData: string;
}

/**
 * The Results evidence map the protocol requires: the separate claims these experiments cannot
 * validate, and the data each would need. The first four are named by the protocol
 * ("pharmaceutical logistics savings, production throughput, QPM superiority or every prior CPLOM
 * claim"); the rest are the limits the protocol states elsewhere.
 */
export const EVIDENCE_MAP: readonly EvidenceMapRow[] = [
  {
    claim: 'Pharmaceutical logistics savings',
    thisRelease:
      'Nothing: every record is an artificial, randomly generated key-value proposition; no logistics operation is observed.',
    requiredData:
      'Operational data from pharmaceutical logistics sites: pre-registered cost and service outcomes, matched baseline and intervention periods or sites, deployment configuration, independent audit of the savings accounting.',
  },
  {
    claim: 'Production throughput',
    thisRelease:
      'Only per-request API latency and token usage of this pilot, not the throughput of any production system.',
    requiredData:
      'Throughput and latency measured on the production system under declared load (items per hour, tail latency, error rates), with hardware, configuration and a controlled comparison condition.',
  },
  {
    claim: 'QPM superiority',
    thisRelease:
      'Nothing: QPM is not evaluated, and the pilot makes no winner-significance claim between any systems.',
    requiredData:
      'A pre-registered head-to-head comparison of QPM against named alternatives on the same tasks, with a sample size chosen for the effect of interest and a confirmatory analysis plan.',
  },
  {
    claim: 'Every prior CPLOM claim',
    thisRelease:
      "Only a basic external-notebook policy under a 6000-byte cap; not the CPLOM production architecture, the provider's native memory or context-window size.",
    requiredData:
      "For each claim, its own registered data and analysis on the CPLOM architecture as deployed, evaluated under that claim's declared conditions.",
  },
  {
    claim: 'Human-calibrated CHI or human-likeness',
    thisRelease: 'CHI is null: no human reference sample exists for these tasks.',
    requiredData:
      'A sampled human reference under the same frozen protocol (means and scales per feature), reliability checks, held-out comparisons and subgroup analysis.',
  },
  {
    claim: 'Population-wide, causal or winner-significance claims',
    thisRelease:
      'Exploratory pointwise intervals over a small number of artificial worlds; no simultaneous bands, no hypothesis tests.',
    requiredData:
      'A pre-registered sample of worlds and model snapshots sized for the comparison, with a confirmatory test plan and multiplicity control.',
  },
  {
    claim: 'Lasting cognitive individuality from divergent histories',
    thisRelease:
      'A short five-checkpoint history experiment: D(A,B) − D(A,A2) over a few invocations.',
    requiredData:
      'The longer v0.1 divergence protocol: swapped histories, memory-erasure and sham-erasure controls, preregistered later checkpoints, replicated independently initialized pairs.',
  },
  {
    claim: 'Consciousness, feelings or moral status',
    thisRelease: 'Nothing: the A items report choices under matched frames, not feelings.',
    requiredData:
      'No data of the kind collected here can establish these; the framework does not measure them.',
  },
  {
    claim: 'Zero true error rate',
    thisRelease:
      'Observed error counts only; zero observed errors are not proof of zero true error.',
    requiredData:
      'Far larger probe samples with an error-rate bound chosen in advance (e.g. an upper confidence bound on the failure rate).',
  },
];
