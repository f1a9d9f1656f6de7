/**
 * The entry of the self-contained verifier a release carries as `code/verify.mjs`:
 * `node code/verify.mjs RELEASE_DIR [--json]`, the same checks and exit codes as `chi verify`.
 * The build bundles it with every runtime dependency (`tsup.config.ts`), so a copy of a release
 * verifies on a machine with Node.js alone, without a network or an install.
 */
import { boundHeapGrowth } from './heap-growth';
import { serveReleaseWorker } from './release-worker';
import { setReleaseWorkerEntry } from './release-workers';
import { runVerifyCli } from './verify-cli';

// The bundle is also its own worker thread's entry (`release-workers.ts`): a copy of a release
// needs no second file. Started as a worker, it runs its task and not the command.
const worker = serveReleaseWorker();
if (!worker) setReleaseWorkerEntry(new URL(import.meta.url));
boundHeapGrowth();
if (!worker) process.exitCode = await runVerifyCli(process.argv.slice(2));
