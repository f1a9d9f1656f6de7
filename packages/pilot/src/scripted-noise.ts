import { createHash } from 'node:crypto';

/** Deterministic draws of a scripted system for one request. */
export interface ScriptedNoise {
  /** A uniform draw in [0, 1) named by `label`; the same label always gives the same draw. */
  uniform(label: string): number;
  /** True with probability `probability` (a named draw). */
  chance(label: string, probability: number): boolean;
  /** Eight lowercase hex characters (a named draw), e.g. for an invented value. */
  hex8(label: string): string;
}

/**
 * The noise of a scripted system: draw `label` of the request with nonce `nonce` is the first
 * 48 bits of SHA-256(`<systemSeed>|<nonce>|<label>`) divided by 2^48. A draw depends only on
 * the system seed and what the prompt says (its nonce), never on call order, timing or
 * concurrency, so an interrupted and resumed run, or a run served over HTTP, draws the same.
 */
export function createScriptedNoise(systemSeed: number, nonce: string): ScriptedNoise {
  const digest = (label: string) =>
    createHash('sha256').update(`${systemSeed}|${nonce}|${label}`).digest();
  return {
    uniform(label) {
      return digest(label).readUIntBE(0, 6) / 2 ** 48;
    },
    chance(label, probability) {
      return probability > 0 && this.uniform(label) < probability;
    },
    hex8(label) {
      return digest(label).subarray(0, 4).toString('hex');
    },
  };
}
