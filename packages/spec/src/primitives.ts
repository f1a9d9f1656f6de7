import { z } from 'zod';

/** An eight-character lowercase hexadecimal value, the payload of every memory record. */
export const HexValueSchema = z
  .string()
  .regex(/^[0-9a-f]{8}$/, { error: 'expected 8 lowercase hex characters' });
/** An eight-character lowercase hexadecimal value. */
export type HexValue = z.infer<typeof HexValueSchema>;

/** An ISO-8601 UTC timestamp with a `Z` suffix, e.g. `2026-03-01T09:30:00.000Z`. */
export const IsoTimeSchema = z.iso.datetime({
  offset: false,
  error: 'expected an ISO-8601 UTC timestamp ending in Z',
});
/** An ISO-8601 UTC timestamp. */
export type IsoTime = z.infer<typeof IsoTimeSchema>;

/** A lowercase hex SHA-256 digest. */
export const Sha256Schema = z
  .string()
  .regex(/^[0-9a-f]{64}$/, { error: 'expected a 64-character lowercase hex SHA-256' });

/** A seed: an unsigned 32-bit integer. */
export const SeedSchema = z
  .int({ error: 'expected an integer seed' })
  .min(0, { error: 'a seed is an unsigned 32-bit integer (>= 0)' })
  .max(0xffffffff, { error: 'a seed is an unsigned 32-bit integer (<= 4294967295)' });

/** A finite number in [0, 1]. NaN and infinities are rejected. */
export const UnitIntervalSchema = z
  .number({ error: 'expected a finite number' })
  .min(0, { error: 'expected a value in [0, 1]' })
  .max(1, { error: 'expected a value in [0, 1]' });

/** A non-negative integer count. */
export const CountSchema = z
  .int({ error: 'expected an integer count' })
  .min(0, { error: 'a count cannot be negative' });

/** A non-negative finite amount of US dollars. */
export const UsdSchema = z
  .number({ error: 'expected a finite USD amount' })
  .min(0, { error: 'a USD amount cannot be negative' });

/**
 * Where a number came from. Scripted reference systems and fixtures are never measurements of a
 * real model; every result carries this label so reports can say so on every page.
 * `unverified_endpoint`: a system reached at an OpenAI-compatible URL whose user did not declare
 * what serves it (`chi pilot --base-url` without `--evidence-class live_model`): never promoted to
 * a live model by default.
 */
export const EvidenceClassSchema = z.enum([
  'live_model',
  'scripted_baseline',
  'fixture',
  'synthetic',
  'unverified_endpoint',
]);
/**
 * Where a number came from: a live model, a scripted reference system, a fixture, synthetic data,
 * or an endpoint nobody declared.
 */
export type EvidenceClass = z.infer<typeof EvidenceClassSchema>;
