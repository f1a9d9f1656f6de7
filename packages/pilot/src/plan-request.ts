// The request-building rules moved to the SPI (`@chi/experiment`) so built-in experiments plan
// without the pilot; re-exported for the pilot's own modules.
export {
  type PlannedRequestFields,
  plannedRequest,
  requestNonce,
} from '@chi/experiment';

/** Number of probe batches for a world with `probeCount` probes. */
export function probeBatchCount(probeCount: number, batchSize: number | null): number {
  if (batchSize === null || batchSize >= probeCount) return 1;
  return Math.ceil(probeCount / batchSize);
}
