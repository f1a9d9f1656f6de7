import { RunStatusSchema } from '@chi/spec/internal';
import { readJsonFile, runPaths } from '../run-folder/run-folder';
import { formatResumeHint } from './run-summary';

/**
 * What every protocol's `chi pilot` prints after a stop signal (the shared stop path's last step):
 * the block counts of `status.json` and the exact resume command, when the run stopped because
 * it was interrupted; null otherwise (completed, or stopped for another reason).
 */
export async function interruptedResumeHint(
  runDir: string,
  flags: { readonly release: boolean; readonly concurrency: number | null },
): Promise<string | null> {
  const status = await readJsonFile(runPaths(runDir).status, RunStatusSchema);
  return status.stop?.kind === 'interrupted' ? formatResumeHint(runDir, status, flags) : null;
}
