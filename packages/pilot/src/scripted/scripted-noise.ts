import { hash } from 'node:crypto';
import type { ScriptedNoise } from '@chi/experiments';
import { deriveSeed } from '@chi/worlds';

// The interface is the built-in folders' (`@chi/experiments`): their scripted policies draw from
// it; this seeded implementation stays with the runner, which knows the request and the seed.
export type { ScriptedNoise } from '@chi/experiments';

/**
 * The noise of a scripted system: draw `label` of the request with nonce `nonce` is the first
 * 48 bits of SHA-256(`<systemSeed>|<nonce>|<label>`) divided by 2^48. A draw depends only on
 * the system seed and what the prompt says (its nonce), never on call order, timing or
 * concurrency, so an interrupted and resumed run, or a run served over HTTP, draws the same.
 */
export function createScriptedNoise(systemSeed: number, nonce: string): ScriptedNoise {
  // One-shot hash: a capacity system draws once per key, thousands of times a request.
  const digest = (label: string) => hash('sha256', `${systemSeed}|${nonce}|${label}`, 'buffer');
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

/**
 * Where a scripted system's draws come from.
 *
 * - `'instance'` (in process, the default): each instance (world, system, history arm) has its
 *   own stream, one draw set per registered request. The request ID names all of them and the
 *   request's position (`<system>.<block>.<step>`, e.g. `confabulator.history-w3.A2.c1.update`),
 *   and it is fixed by the plan, so a resume or any concurrency draws the same. A2 repeats A's
 *   prompts byte for byte but not A's draws: D(A, A2) is a real same-history stochastic floor.
 * - `'prompt'`: the draws are keyed by the prompt's nonce, which A2 shares with A. Used by
 *   `chi serve`, whose HTTP requests carry only the prompt; such a system's D(A, A2) is 0.
 */
export type ScriptedNoiseSource = 'instance' | 'prompt';

/**
 * The noise of one registered request of one instance: the stream seed is
 * `deriveSeed(systemSeed, 'scripted-noise', requestId)` (the project's one seed derivation), and
 * draw `label` is {@link createScriptedNoise} of that seed and the request ID.
 */
export function createInstanceNoise(systemSeed: number, requestId: string): ScriptedNoise {
  return createScriptedNoise(
    deriveSeed(systemSeed, 'scripted-noise', requestId),
    `request:${requestId}`,
  );
}
