// A probe for run-file-names.test.ts: names spelled the ways the scan must catch, and the ways it
// must not (this comment says status.json and payloads/ without counting).
const root = 'run';
const sha256 = 'abc';
/** Not counted in TSDoc either: `attempts.jsonl`. */
export const probes = [
  'status.json',
  `${root}/attempts.jsonl`,
  `payloads/${sha256}.json.gz`,
  'no manifest.json here',
  'my-status.json',
  '@chi/chis/pure',
  'plan.jsonl.bak',
];
