import { z } from 'zod';
import { CountSchema, IsoTimeSchema } from './primitives';
import { PriceSchema } from './run';

/**
 * One provider endpoint of a model as listed by the catalog (OpenRouter's
 * `GET /models/{author}/{slug}/endpoints`), with its price upper bound.
 */
export const CatalogEndpointSchema = z.strictObject({
  /** Display name, e.g. `Moonshot AI`: what a completion's `provider` field carries. */
  providerName: z.string().min(1),
  /** Full endpoint slug, e.g. `moonshotai/mxfp4`; its part before `/` is the base provider slug. */
  tag: z.string().min(1),
  quantization: z.string().nullable(),
  /** Largest output the endpoint accepts; null when the catalog does not say. */
  maxCompletionTokens: CountSchema.nullable(),
  contextLength: CountSchema.nullable(),
  /** Maximum over the endpoint's base prices and every pricing override (reasoning bills as output). */
  price: PriceSchema,
  /** True when an allowlisted provider slug matches this endpoint. */
  allowed: z.boolean(),
});
/** One provider endpoint of a model as listed by the catalog. */
export type CatalogEndpoint = z.infer<typeof CatalogEndpointSchema>;

/** A model's catalog entry: the checked allowlist, the checked output cap and the price bound. */
export const CatalogModelSchema = z.strictObject({
  model: z.string().min(1),
  /** Provider allowlist (`provider.only`) that was checked against the endpoint list. */
  providers: z.array(z.string().min(1)).min(1),
  /** Output cap that every allowlisted provider was checked to accept. */
  maxOutputTokens: z.int().min(1),
  /**
   * Upper bound of the price: the maximum over the model's listed price and every allowlisted
   * endpoint's base prices and pricing overrides. Use it as the catalog price of a reservation.
   */
  price: PriceSchema,
  endpoints: z.array(CatalogEndpointSchema),
});
/** A model's catalog entry. */
export type CatalogModel = z.infer<typeof CatalogModelSchema>;

/**
 * Prices and endpoints fetched from the catalog before a run, cached into the run folder so the
 * reservation bound of every request can be recomputed later.
 */
export const ModelCatalogSchema = z.strictObject({
  kind: z.literal('model-catalog'),
  schemaVersion: z.literal(1),
  /** Base URL the catalog was read from, e.g. `https://openrouter.ai/api/v1`. */
  source: z.string().min(1),
  fetchedAt: IsoTimeSchema,
  models: z.array(CatalogModelSchema),
});
/** Prices and endpoints fetched from the catalog before a run. */
export type ModelCatalog = z.infer<typeof ModelCatalogSchema>;
