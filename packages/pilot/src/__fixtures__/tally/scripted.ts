import { extractJsonBlock } from '@chi/experiment';
import type { BuiltInExperiment } from '@chi/experiments';

type ScriptedRequest = Parameters<BuiltInExperiment['scripted']>[0];

/** What a scripted system does: count right, count one too many, or write and recall nothing. */
type TallyPolicy = 'exact' | 'off-by-one' | 'abstain';

const POLICIES: Readonly<Record<string, TallyPolicy>> = {
  perfect: 'exact',
  'capacity-keeper': 'exact',
  'latest-wins': 'off-by-one',
  confabulator: 'off-by-one',
  abstainer: 'abstain',
  'wording-sensitive': 'exact',
  'fading-recall': 'exact',
  'fading-notebook': 'exact',
};

/** The scripted replies: the count as notes, then the notes' count as the answer. */
export function scriptedTally(request: ScriptedRequest): string {
  const policy = POLICIES[request.system];
  if (policy === undefined) throw new Error(`tally has no scripted policy for ${request.system}`);
  if (policy === 'abstain') return '';
  if (request.task === 'tally_count') {
    const tokens = extractJsonBlock(request.prompt, 'TOKENS') as string[];
    const red = tokens.filter((token) => token === 'red').length;
    return JSON.stringify({ red: policy === 'exact' ? red : red + 1 });
  }
  const { notes } = extractJsonBlock(request.prompt, 'NOTES') as { notes: string };
  return notes === '' ? '{}' : notes;
}
