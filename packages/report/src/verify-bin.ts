/**
 * The entry of the self-contained verifier a release carries as `code/verify.mjs`:
 * `node code/verify.mjs RELEASE_DIR [--json]`, the same checks and exit codes as `chi verify`.
 * The build bundles it with every runtime dependency (`tsup.config.ts`), so a copy of a release
 * verifies on a machine with Node.js alone, without a network or an install.
 */
import { boundHeapGrowth } from './heap-growth';
import { runVerifyCli } from './verify-cli';

boundHeapGrowth();
process.exitCode = await runVerifyCli(process.argv.slice(2));
