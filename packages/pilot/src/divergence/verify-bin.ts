/**
 * The entry of the self-contained verifier a divergence release carries as `code/verify.mjs`:
 * `node code/verify.mjs RELEASE_DIR`, the same checks and exit codes as `chi verify` on a
 * divergence release (0 verified, 1 a file differs, 2 usage, 5 a damaged raw record). The build
 * bundles it with every runtime dependency (`tsup.config.ts`), so a copy of a release verifies on
 * a machine with Node.js alone, without a network or an install.
 */

import { resolve } from 'node:path';
import { RUN_FILE_NAME } from '@chi/run/internal';
import { InvalidArgumentError, RunFolderDamagedError } from '@chi/spec';
import { isStudyFolder, verifyStudyCommand } from '../study/study-verify';
import { isDivergenceRelease, verifyDivergenceCommand } from './command';

const USAGE = 'usage: node code/verify.mjs RELEASE_DIR\n';

async function main(argv: readonly string[]): Promise<number> {
  if (argv.length !== 1 || (argv[0] as string).startsWith('-')) {
    process.stderr.write(`expected exactly one RELEASE_DIR\n${USAGE}`);
    return 2;
  }
  const dir = resolve(argv[0] as string);
  // a study folder carries this verifier too (docs/protocol.md, "Studies")
  if (isStudyFolder(dir))
    return await verifyStudyCommand(dir, { stdout: process.stdout, stderr: process.stderr });
  if (!isDivergenceRelease(dir)) {
    process.stderr.write(
      `chi verify: ${dir} is not a divergence release (no divergence.json and ${RUN_FILE_NAME.plan})\n${USAGE}`,
    );
    return 2;
  }
  try {
    return await verifyDivergenceCommand(dir, { stdout: process.stdout, stderr: process.stderr });
  } catch (error) {
    process.stderr.write(`chi verify: ${(error as Error).message}\n`);
    if (RunFolderDamagedError.isInstance(error)) return 5;
    return InvalidArgumentError.isInstance(error) ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
