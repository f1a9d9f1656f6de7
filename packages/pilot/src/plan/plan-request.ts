// The request-building rules moved to the SPI (`@chi/experiment`) so built-in experiments plan
// without the pilot; re-exported for the pilot's own modules.
export {
  type PlannedRequestFields,
  plannedRequest,
  requestNonce,
} from '@chi/experiment';
