// The request-building rules moved to the SPI (`@chi/experiment`) so built-in experiments plan
// without the pilot; re-exported for the pilot's own modules.
export {
  type PlannedRequestFields,
  plannedRequest,
  requestNonce,
} from '@chi/experiment';

/**
 * The step whose nonce a history step uses: A2's steps use A's (`A2.c1.update` -> `A.c1.update`),
 * because the same-history control must repeat A's requests byte for byte.
 */
export function nonceStep(step: string): string {
  return step.startsWith('A2.') ? `A.${step.slice(3)}` : step;
}

/** Number of probe batches for a world with `probeCount` probes. */
export function probeBatchCount(probeCount: number, batchSize: number | null): number {
  if (batchSize === null || batchSize >= probeCount) return 1;
  return Math.ceil(probeCount / batchSize);
}
