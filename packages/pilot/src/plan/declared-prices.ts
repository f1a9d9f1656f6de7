import { readFile } from 'node:fs/promises';
import { type Price, parseWith, ValidationError } from '@chi/spec';
import { type DeclaredPrice, DeclaredPriceSchema } from '@chi/spec/internal';
import { z } from 'zod';

/**
 * A prices file (`--prices FILE`): `{ "models": { "<model>": { "inputUsdPerMillionTokens": 0.6,
 * "outputUsdPerMillionTokens": 2.5, "requestUsd": 0 } } }`.
 */
export const DeclaredPricesFileSchema = z.strictObject({
  models: z.record(z.string().min(1), DeclaredPriceSchema),
});

/** A declared price in the manifest's per-token form. */
export function perTokenPrice(price: DeclaredPrice): Price {
  return {
    inputUsdPerToken: price.inputUsdPerMillionTokens / 1e6,
    outputUsdPerToken: price.outputUsdPerMillionTokens / 1e6,
    requestUsd: price.requestUsd ?? 0,
  };
}

const NUMBER = /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;

/**
 * Parses a `--price` argument: `MODEL=IN,OUT[,REQUEST]`, IN and OUT in USD per million tokens,
 * REQUEST in USD per request. Returns null and a reason when it does not parse.
 *
 * @example
 * ```ts
 * parsePriceArgument('llama-3=0.2,0.6'); // { model: 'llama-3', price: { inputUsdPerToken: 2e-7, ... } }
 * ```
 */
export function parsePriceArgument(
  text: string,
): { model: string; price: Price } | { problem: string } {
  const at = text.lastIndexOf('=');
  const model = at < 0 ? '' : text.slice(0, at).trim();
  const parts = at < 0 ? [] : text.slice(at + 1).split(',');
  if (
    model === '' ||
    parts.length < 2 ||
    parts.length > 3 ||
    parts.some((part) => !NUMBER.test(part.trim()))
  )
    return {
      problem: `expected MODEL=IN,OUT[,REQUEST] (USD per million input and output tokens, USD per request), found ${JSON.stringify(text)}`,
    };
  const [input, output, request] = parts.map((part) => Number(part.trim()));
  if (![input, output, request ?? 0].every((value) => Number.isFinite(value)))
    return {
      problem: `expected finite USD amounts in MODEL=IN,OUT[,REQUEST], found ${JSON.stringify(text)}`,
    };
  return {
    model,
    price: perTokenPrice({
      inputUsdPerMillionTokens: input as number,
      outputUsdPerMillionTokens: output as number,
      requestUsd: request ?? 0,
    }),
  };
}

/** Reads a prices file; the error names the file and every bad field. */
export async function readDeclaredPrices(path: string): Promise<Map<string, Price>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ValidationError(path, [
      {
        path: '',
        message:
          code === 'EISDIR'
            ? 'is a folder; expected a prices JSON file'
            : code === 'ENOENT'
              ? 'no such file'
              : `unreadable (${(error as Error).message})`,
      },
    ]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(path, [
      { path: '', message: `not JSON (${(error as Error).message})` },
    ]);
  }
  const file = parseWith(DeclaredPricesFileSchema, raw, path);
  return new Map(
    Object.entries(file.models).map(([model, price]) => [model, perTokenPrice(price)]),
  );
}
