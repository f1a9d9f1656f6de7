// Child process of the verify clean-up test: verifies the release named on the command line with
// an extra scorer that exits the process in the middle of the recomputation (as `chi`'s second
// Ctrl-C does, with process.exit), after printing the temporary folders verify made so far.
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { AnyExperimentScorer } from '@chi/experiment';
import { BUILT_IN_SCORERS } from '../experiment-scorers/scorer-registry';
import { verifyRelease } from '../verify/verify-release';

const release = process.argv[2];
if (release === undefined) throw new Error('usage: verify-then-exit <release>');
const exiting: AnyExperimentScorer = {
  ...(BUILT_IN_SCORERS.find((s) => s.experimentId === 'goal-persistence') as AnyExperimentScorer),
  experimentId: 'x-exiting',
  parametersOf: () => {
    const spills = readdirSync(tmpdir()).filter((name) => name.startsWith('chi-verify-'));
    process.stdout.write(`${JSON.stringify(spills)}\n`);
    process.exit(7);
  },
};
await verifyRelease(release, { scorers: [...BUILT_IN_SCORERS, exiting] });
