/**
 * The entry of the self-contained verifier a release carries as `code/verify.mjs`:
 * `node code/verify.mjs RELEASE_DIR [--json]`, the same checks and exit codes as `chi verify`.
 * The build bundles it with every runtime dependency (`tsup.config.ts`), so a copy of a release
 * verifies on a machine with Node.js alone, without a network or an install.
 */
import { boundHeapGrowth } from '../heap-growth';
import { serveReleaseWorker } from '../release/release-worker';
import { setReleaseWorkerEntry } from '../release/release-workers';
import { runVerifyCli } from './verify-cli';

/**
 * One Ctrl-C (or `SIGTERM`, `SIGHUP`) quits at once with exit 130, as `chi verify` does: through
 * `process.exit`, which ends the worker threads with the process and runs the exit handler that
 * removes the recomputation's temporary folder. Node's default, a death by the signal itself,
 * would leave that folder behind in the temporary directory.
 */
function quitOnStopSignals(): void {
  for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.once(name, () => {
      process.stderr.write(`\nverify: ${name}: quit (exit 130)\n`);
      process.exit(130);
    });
}

// The bundle is also its own worker thread's entry (`release-workers.ts`): a copy of a release
// needs no second file. Started as a worker, it runs its task and not the command.
const worker = serveReleaseWorker();
if (!worker) setReleaseWorkerEntry(new URL(import.meta.url));
if (!worker) quitOnStopSignals();
boundHeapGrowth();
if (!worker) process.exitCode = await runVerifyCli(process.argv.slice(2));
