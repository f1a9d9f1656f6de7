/**
 * The entry of the self-contained verifier a divergence release carries as `code/verify.mjs`:
 * `node code/verify.mjs RELEASE_DIR [--json]`, the same checks, report and exit codes as
 * `chi verify` (`@chi/report`'s `runVerifyCli` with the divergence release kind: 0 verified, 1 a
 * file differs or a raw record is damaged, 2 usage). A study folder carries it too
 * (docs/protocol.md, "Studies"). The build bundles it with every runtime dependency
 * (`tsup.config.ts`), so a copy of a release verifies on a machine with Node.js alone, without a
 * network or an install.
 */

import { resolve } from 'node:path';
import { runVerifyCli } from '@chi/report';
import { isStudyFolder, verifyStudyCommand } from '../study/study-verify';
import { DIVERGENCE_RELEASE_KIND } from './command';

async function main(argv: readonly string[]): Promise<number> {
  const target = argv.filter((arg) => !arg.startsWith('-'));
  if (target.length === 1 && argv.length === 1 && isStudyFolder(resolve(target[0] as string)))
    return await verifyStudyCommand(resolve(target[0] as string), {
      stdout: process.stdout,
      stderr: process.stderr,
    });
  return await runVerifyCli(argv, {}, { kinds: [DIVERGENCE_RELEASE_KIND] });
}

process.exitCode = await main(process.argv.slice(2));
