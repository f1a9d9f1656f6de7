import { type ChatMessage, InvalidArgumentError, type Price } from '@chi/spec';

const encoder = new TextEncoder();

function checkPrice(field: string, price: Price): void {
  for (const [key, value] of Object.entries(price)) {
    if (!Number.isFinite(value) || value < 0) {
      throw new InvalidArgumentError(
        `${field}.${key}`,
        `expected a finite USD amount >= 0, found ${value}`,
      );
    }
  }
}

/**
 * The price a reservation uses: for each component (input token, output token, request) the
 * larger of the catalog price and the declared safety price. Either may be absent, not both.
 *
 * @example
 * ```ts
 * effectivePrice(catalog.models[0].price, { inputUsdPerToken: 1e-6, outputUsdPerToken: 4e-6, requestUsd: 0 });
 * ```
 */
export function effectivePrice(
  catalogPrice: Price | null | undefined,
  safetyPrice: Price | null | undefined,
): Price {
  if (catalogPrice != null) checkPrice('catalogPrice', catalogPrice);
  if (safetyPrice != null) checkPrice('safetyPrice', safetyPrice);
  if (catalogPrice == null && safetyPrice == null) {
    throw new InvalidArgumentError(
      'price',
      'expected a catalog price, a safety price or both, found neither',
    );
  }
  const a = catalogPrice ?? safetyPrice!;
  const b = safetyPrice ?? catalogPrice!;
  return {
    inputUsdPerToken: Math.max(a.inputUsdPerToken, b.inputUsdPerToken),
    outputUsdPerToken: Math.max(a.outputUsdPerToken, b.outputUsdPerToken),
    requestUsd: Math.max(a.requestUsd, b.requestUsd),
  };
}

/**
 * UTF-8 byte length of the messages as sent (`JSON.stringify(messages)`), the input-token upper
 * proxy of a reservation. A token is at least one byte, and the JSON framing of each message
 * (about 30 bytes: role, quotes, braces) covers the few tokens a chat template adds per message.
 */
export function requestInputBytes(messages: readonly ChatMessage[]): number {
  return encoder.encode(JSON.stringify(messages)).byteLength;
}

/** Inputs of {@link reservationUsd}. */
export interface ReservationInput {
  /** UTF-8 bytes of the input, counted as input tokens (see {@link requestInputBytes}). */
  readonly inputBytes: number;
  /** Output cap in tokens; reasoning tokens bill as output and count against it. */
  readonly maxOutputTokens: number;
  /** Catalog price (from `fetchCatalog`); null when only a safety price is declared. */
  readonly catalogPrice?: Price | null;
  /** Declared safety price; null when only the catalog price is used. */
  readonly safetyPrice?: Price | null;
  /** Margin added on top, e.g. 0.25 for 25 %. */
  readonly marginRatio: number;
}

function checkCount(field: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new InvalidArgumentError(field, `expected an integer >= ${min}, found ${value}`);
  }
}

/**
 * The USD upper bound reserved before one attempt, rounded up to a whole nano-dollar:
 *
 * `(inputBytes x inputPrice + maxOutputTokens x outputPrice + requestPrice) x (1 + marginRatio)`
 *
 * where each price is the larger of the catalog and the safety price (`effectivePrice`).
 * Pure: same inputs, same output.
 *
 * @example
 * ```ts
 * // 1000 bytes at 1 USD/M input, 4096 tokens at 4 USD/M output, 20 % margin:
 * reservationUsd({ inputBytes: 1000, maxOutputTokens: 4096, marginRatio: 0.2,
 *   safetyPrice: { inputUsdPerToken: 1e-6, outputUsdPerToken: 4e-6, requestUsd: 0 } }); // 0.0208608
 * ```
 */
export function reservationUsd(input: ReservationInput): number {
  checkCount('inputBytes', input.inputBytes, 0);
  checkCount('maxOutputTokens', input.maxOutputTokens, 1);
  if (!Number.isFinite(input.marginRatio) || input.marginRatio < 0) {
    throw new InvalidArgumentError(
      'marginRatio',
      `expected a finite number >= 0, found ${input.marginRatio}`,
    );
  }
  const price = effectivePrice(input.catalogPrice, input.safetyPrice);
  const base =
    input.inputBytes * price.inputUsdPerToken +
    input.maxOutputTokens * price.outputUsdPerToken +
    price.requestUsd;
  // Rounding up (never to nearest) keeps the bound above the true figure; binary noise can add
  // at most one nano-dollar.
  return Math.ceil(base * (1 + input.marginRatio) * 1e9) / 1e9;
}
