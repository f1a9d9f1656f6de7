// A child process of the divergence kill test: one session, `divergence-session-bin RUN_DIR
// BASE_URL new|resume [EVIDENCE]` (the test kills it). A script of its own rather than a check of
// `process.argv[1]` in divergence-session.ts: the test starts a bundle of it (`nodeArgsFor`), whose
// path is not the source's.
import { divergenceSession } from './divergence-session';

const [runDir, baseUrl, mode, evidence] = process.argv.slice(2);
divergenceSession(
  runDir as string,
  baseUrl as string,
  mode === 'resume' ? 'resume' : 'new',
  evidence === 'live_model' ? 'live_model' : 'scripted_baseline',
).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
