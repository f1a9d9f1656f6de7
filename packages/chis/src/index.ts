/**
 * `@chi/chis`: CHIS sequences. The JSONL line rules and reader (generic over any zod schema; the
 * durable writer is `@chi/run`'s `createJsonlWriter`), a reader that groups entries by trajectory, the
 * trajectory dynamics (continuity, drift, plasticity, stability, recovery, hysteresis, memory
 * accumulation, experience divergence) and seeded synthetic trajectories with known ground truth.
 *
 * This entry includes the Node-only file I/O (Node >= 20). `@chi/chis/pure` exports everything else
 * without any Node built-in, for browsers and workers.
 *
 * @packageDocumentation
 */
export { type ChisLogContents, readChisTrajectories } from './chis-log';
export { type JsonlStream, readJsonl, type StreamJsonlOptions, streamJsonl } from './jsonl-reader';
// Everything that runs without Node is listed once, in `./pure` (explicit named exports there);
// this entry adds only the file I/O above, so the two entries cannot drift apart.
export * from './pure';
