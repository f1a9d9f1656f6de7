import { pathToFileURL } from 'node:url';
import { setReleaseWorkerEntry } from '../../../report/src/release/release-workers';

// `chi` as the built package runs it, with the release tasks of `chi score` and `chi verify` on
// worker threads: the test bundle of cli.ts has no worker entry (its release-workers.ts looks for
// `release-worker.js` beside the sources), so its tasks run in-process. This entry names the
// test bundle of release-worker.ts (`CHI_TEST_RELEASE_WORKER`, a path) and then runs `chi`; both
// are bundled into one module graph, so the entry set here is the one the commands read.
const entry = process.env.CHI_TEST_RELEASE_WORKER;
if (entry === undefined || entry === '')
  throw new Error('chi-with-workers: set CHI_TEST_RELEASE_WORKER to the worker bundle');
setReleaseWorkerEntry(pathToFileURL(entry));
await import('../cli');
