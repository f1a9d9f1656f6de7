// Canonical JSON and hashing live in @chi/run (the run folder's owner; the pilot hashes its
// manifest and requests with them too). Re-exported so the report's modules keep one import path.
export { canonicalJson, canonicalJsonSha256, sha256Hex } from '@chi/run';
