import { InvalidArgumentError, type Price } from '@chi/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { effectivePrice, requestInputBytes, reservationUsd } from './reservation';

const catalog: Price = { inputUsdPerToken: 0.6e-6, outputUsdPerToken: 2.5e-6, requestUsd: 0 };
const safety: Price = { inputUsdPerToken: 1e-6, outputUsdPerToken: 2e-6, requestUsd: 0.001 };

describe('effectivePrice', () => {
  it('takes the larger of catalog and safety price per component', () => {
    expect(effectivePrice(catalog, safety)).toEqual({
      inputUsdPerToken: 1e-6,
      outputUsdPerToken: 2.5e-6,
      requestUsd: 0.001,
    });
    expect(effectivePrice(null, safety)).toEqual(safety);
    expect(effectivePrice(catalog, undefined)).toEqual(catalog);
  });

  it('refuses no price at all and negative or non-finite prices, naming the field', () => {
    expect(() => effectivePrice(null, null)).toThrow(
      'price: expected a catalog price, a safety price or both, found neither',
    );
    expect(() => effectivePrice({ ...catalog, outputUsdPerToken: -1 }, null)).toThrow(
      'catalogPrice.outputUsdPerToken: expected a finite USD amount >= 0, found -1',
    );
    expect(() => effectivePrice(null, { ...safety, requestUsd: Number.NaN })).toThrow(
      InvalidArgumentError,
    );
  });
});

describe('requestInputBytes', () => {
  it('counts UTF-8 bytes of the JSON messages, multi-byte characters included', () => {
    // [{"role":"user","content":"hé"}] = 32 characters, é is 2 bytes in UTF-8.
    expect(requestInputBytes([{ role: 'user', content: 'hé' }])).toBe(33);
    expect(
      requestInputBytes([
        { role: 'system', content: '' },
        { role: 'user', content: '日本' },
      ]),
    ).toBe(Buffer.byteLength('[{"role":"system","content":""},{"role":"user","content":"日本"}]'));
  });
});

describe('reservationUsd', () => {
  it('matches the hand-worked bound', () => {
    // (1000 x 1e-6 + 4096 x 4e-6 + 0) x 1.2 = (0.001 + 0.016384) x 1.2 = 0.0208608
    expect(
      reservationUsd({
        inputBytes: 1000,
        maxOutputTokens: 4096,
        marginRatio: 0.2,
        safetyPrice: { inputUsdPerToken: 1e-6, outputUsdPerToken: 4e-6, requestUsd: 0 },
      }),
    ).toBe(0.0208608);
    // max(catalog, safety): input 1e-6, output 2.5e-6, request 0.001:
    // (500 x 1e-6 + 100 x 2.5e-6 + 0.001) x 1.0 = 0.0005 + 0.00025 + 0.001 = 0.00175
    expect(
      reservationUsd({
        inputBytes: 500,
        maxOutputTokens: 100,
        marginRatio: 0,
        catalogPrice: catalog,
        safetyPrice: safety,
      }),
    ).toBe(0.00175);
  });

  it('rounds up to a whole nano-dollar', () => {
    // 1 x 1e-12 USD rounds up to 1e-9.
    const tiny: Price = { inputUsdPerToken: 1e-12, outputUsdPerToken: 0, requestUsd: 0 };
    expect(
      reservationUsd({ inputBytes: 1, maxOutputTokens: 1, marginRatio: 0, safetyPrice: tiny }),
    ).toBe(1e-9);
  });

  it('refuses bad inputs with the field name', () => {
    expect(() =>
      reservationUsd({ inputBytes: -1, maxOutputTokens: 1, marginRatio: 0, safetyPrice: safety }),
    ).toThrow('inputBytes: expected an integer >= 0, found -1');
    expect(() =>
      reservationUsd({ inputBytes: 1, maxOutputTokens: 0, marginRatio: 0, safetyPrice: safety }),
    ).toThrow('maxOutputTokens: expected an integer >= 1, found 0');
    expect(() =>
      reservationUsd({ inputBytes: 1, maxOutputTokens: 1, marginRatio: -0.1, safetyPrice: safety }),
    ).toThrow('marginRatio: expected a finite number >= 0, found -0.1');
  });

  it('never bounds below the true cost of any request within the cap (property)', () => {
    const price = fc.record({
      inputUsdPerToken: fc.double({ min: 0, max: 1e-4, noNaN: true }),
      outputUsdPerToken: fc.double({ min: 0, max: 1e-4, noNaN: true }),
      requestUsd: fc.double({ min: 0, max: 0.01, noNaN: true }),
    });
    fc.assert(
      fc.property(
        price,
        price,
        fc.nat({ max: 100_000 }),
        fc.integer({ min: 1, max: 32_768 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (catalogPrice, safetyPrice, inputBytes, cap, inputShare, outputShare, margin) => {
          const promptTokens = Math.floor(inputBytes * inputShare);
          const completionTokens = Math.floor(cap * outputShare);
          const whichPrice = inputShare < 0.5 ? catalogPrice : safetyPrice;
          const trueCost =
            promptTokens * whichPrice.inputUsdPerToken +
            completionTokens * whichPrice.outputUsdPerToken +
            whichPrice.requestUsd;
          const bound = reservationUsd({
            inputBytes,
            maxOutputTokens: cap,
            catalogPrice,
            safetyPrice,
            marginRatio: margin,
          });
          return bound >= trueCost * (1 - 1e-12);
        },
      ),
    );
  });
});
