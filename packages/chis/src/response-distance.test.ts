import { InvalidArgumentError } from '@chi/spec';
import { describe, expect, it } from 'vitest';
import { makeEntry } from './__fixtures__/entries';
import { meanAbsoluteDifference, responseCoordinates, responseDistance } from './response-distance';

describe('meanAbsoluteDifference', () => {
  it('is the mean absolute coordinate difference', () => {
    expect(meanAbsoluteDifference([0, 0.5, 1, 1], [0, 1, 1, 0])).toEqual({
      value: 0.375,
      reason: null,
    });
    expect(meanAbsoluteDifference([0.25], [0.25])).toEqual({ value: 0, reason: null });
  });

  it('is null, with the reason, when any coordinate is invalid', () => {
    expect(meanAbsoluteDifference([0, null], [0, 1])).toEqual({
      value: null,
      reason: 'coordinate 1 of first vector is invalid (null)',
    });
    expect(meanAbsoluteDifference([0, 1], [null, 1]).reason).toBe(
      'coordinate 0 of second vector is invalid (null)',
    );
  });

  it('throws for vectors of different length, empty vectors and non-finite numbers', () => {
    expect(() => meanAbsoluteDifference([0], [0, 1])).toThrow(/equal length, found 1 and 2/);
    expect(() => meanAbsoluteDifference([], [])).toThrow(/at least one coordinate/);
    expect(() => meanAbsoluteDifference([Number.NaN], [0])).toThrow(InvalidArgumentError);
  });
});

describe('responseDistance', () => {
  const a = makeEntry('t', {
    checkpoint: 1,
    condition: 'neutral',
    decisionVector: [0, 1],
    profile: { accuracy: 0.5, unknownRate: 0.25, missing: null },
  });
  const b = makeEntry('t', {
    checkpoint: 2,
    condition: 'neutral',
    decisionVector: [1, 1],
    profile: { accuracy: 1, unknownRate: 0 },
  });

  it('compares decision vectors by default and named profile features on request', () => {
    expect(responseDistance(a, b).value).toBe(0.5);
    expect(responseDistance(a, b, { profileFeatures: ['accuracy', 'unknownRate'] }).value).toBe(
      0.375,
    );
  });

  it('says which entry lacks the response', () => {
    const none = makeEntry('t', { checkpoint: 3, condition: 'neutral', decisionVector: null });
    expect(responseDistance(a, none)).toEqual({
      value: null,
      reason: 't checkpoint 3 has no decision vector',
    });
    expect(responseDistance(a, b, { profileFeatures: ['missing'] }).reason).toBe(
      't checkpoint 2 has no profile feature "missing"',
    );
    expect(responseDistance(a, a, { profileFeatures: ['missing'] }).reason).toBe(
      'profile feature "missing" of t checkpoint 1 is invalid (null)',
    );
  });

  it('refuses an empty feature list', () => {
    expect(() => responseCoordinates(a, { profileFeatures: [] })).toThrow(/^response:/);
  });
});
