import type { CliFlag } from '../cli/cli-flag';

/**
 * The options of `chi study init|run|status|report` (part of `COMMAND_FLAG_TABLES`, the one flag
 * table): `init` reads the study's declaration flags, `run` reads `--now`.
 */
export const STUDY_FLAGS: readonly CliFlag[] = [
  {
    name: 'study-id',
    type: 'string',
    placeholder: 'ID',
    defaultText: "DIR's folder name",
    help: 'init: the study ID (a slug)',
  },
  {
    name: 'systems',
    type: 'string',
    placeholder: 'a,b,...',
    defaultText: 'perfect,latest-wins',
    help: 'init, add: scripted systems (their results are scripted baselines)',
  },
  {
    name: 'loads',
    type: 'string',
    placeholder: '32,64,...',
    defaultText: '32',
    help: 'init: memory loads, each >= 32',
  },
  {
    name: 'replicates',
    type: 'string',
    placeholder: 'N',
    defaultText: '4',
    help: 'init: worlds (the same in every session)',
  },
  {
    name: 'seed',
    type: 'string',
    placeholder: 'N',
    defaultText: '20260901',
    help: 'init: root seed of the world seeds',
  },
  {
    name: 'delays-days',
    type: 'string',
    placeholder: '0,1,...',
    defaultText: '0,1,6,21: days 0, 1, 7, 28',
    help: 'init: one session each, its earliest start in days after the previous\nsession finished (the first is 0)',
  },
  {
    name: 'session-ceiling-usd',
    type: 'string',
    placeholder: 'USD',
    defaultText: '0',
    help: 'init: USD ceiling of one session',
  },
  {
    name: 'ceiling-usd',
    type: 'string',
    placeholder: 'USD',
    defaultText: '0',
    help: 'init: USD ceiling of the whole study; a session runs under\nmin(session ceiling, this - spent so far)',
  },
  {
    name: 'primary-session',
    type: 'string',
    placeholder: 'K',
    defaultText: 'the last',
    help: 'init: the preregistered primary session (its checkpoint: the first load)',
  },
  { name: 'force', type: 'boolean', help: 'init: replace an existing study.json' },
  {
    name: 'now',
    type: 'boolean',
    help: 'run: run the next session even before it is due, and record that it ran early',
  },
  {
    name: 'concurrency',
    type: 'string',
    placeholder: 'N',
    range: { min: 1, max: 64 },
    defaultText: '8',
    help: 'run: requests in flight (1 writes the attempt log in plan order, as a merge does)',
  },
  {
    name: 'shard',
    type: 'string',
    placeholder: 'i/n',
    help: 'run: run shard i of n of the session (whole (world seed, system) units, its\nshare of the ceiling) in sessions/s<k>.shard-<i>-of-<n>; chi study merge joins them',
  },
];
