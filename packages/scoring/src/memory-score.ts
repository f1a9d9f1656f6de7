import {
  type AnswerKeyEntry,
  type MemoryScore,
  type ParsedProbeReply,
  type QualityAlphas,
  type QualityFactors,
  STRATA,
  type Stratum,
} from '@chi/spec';
import type { LureBreakdown, Ratio } from '@chi/spec/internal';
import { answersByProbeId, checkAnswerKey } from './memory-inputs';
import { probePasses } from './probe-verdict';
import { checkAlphas, EQUAL_ALPHAS, qualityScoreOf } from './quality-score';
import { ratio } from './ratio';

/**
 * Scores one world's probe set: per-stratum results, the lure breakdown, the six factors and Q_M.
 *
 * - `strata.r` .. `strata.i`: probes passed over probes of the stratum (see `probePasses`);
 * - `strata.f`: the f ratio itself, (unsupported affirmative + invalid/missing/duplicate) / lures,
 *   so every entry reads as the factor the seeds name (f is a failure rate, the others pass rates);
 * - `lures`: mutually exclusive correct abstention / unsupported affirmative / invalid counts, f,
 *   the raw false-affirmative rate and the invalid-lure rate;
 * - `factors`: r, t, s, u, i and 1 - f;
 * - `qualityScore`: Q_M with `alphas` (default 1/6 each).
 *
 * A stratum with no probes has a null rate; its factor is then reported as a placeholder 0 and
 * `qualityScore` is null, and the curve builders refuse the score (so the placeholder cannot leak
 * into a mean). Scores do not depend on the order of the key or of the answers.
 *
 * @throws ValidationError / InvalidArgumentError when the answer key or the parsed reply is
 *   malformed, or when they do not classify exactly the same probe IDs.
 * @example
 * ```ts
 * const parsed = parseProbeReply(replyText, answerKey.map((entry) => entry.id));
 * const score = scoreMemoryProbes(answerKey, parsed);
 * score.factors.r; // e.g. 0.875 (7 of 8 current-retrieval probes right)
 * score.lures.falseAffirmativeRate; // { numerator, denominator, rate }
 * ```
 */
export function scoreMemoryProbes(
  answerKey: readonly AnswerKeyEntry[],
  parsed: ParsedProbeReply,
  alphas: QualityAlphas = EQUAL_ALPHAS,
): MemoryScore {
  const key = checkAnswerKey(answerKey);
  const answers = answersByProbeId(key, parsed);
  if (alphas !== EQUAL_ALPHAS) checkAlphas(alphas);

  const passed: Record<Stratum, number> = { r: 0, t: 0, s: 0, u: 0, i: 0, f: 0 };
  const total: Record<Stratum, number> = { r: 0, t: 0, s: 0, u: 0, i: 0, f: 0 };
  let correctAbstention = 0;
  let unsupportedAffirmative = 0;
  let invalidLures = 0;

  for (const entry of key) {
    const answer = answers.get(entry.id);
    if (answer === undefined) continue; // unreachable: answersByProbeId checked coverage
    total[entry.stratum]++;
    if (probePasses(entry, answer)) passed[entry.stratum]++;
    if (entry.stratum === 'f') {
      if (answer.status === 'abstained') correctAbstention++;
      else if (answer.status === 'answered') unsupportedAffirmative++;
      else invalidLures++;
    }
  }

  const lureTotal = total.f;
  const f = ratio(unsupportedAffirmative + invalidLures, lureTotal);
  const lures: LureBreakdown = {
    total: lureTotal,
    correctAbstention,
    unsupportedAffirmative,
    invalid: invalidLures,
    f,
    falseAffirmativeRate: ratio(unsupportedAffirmative, lureTotal),
    invalidLureRate: ratio(invalidLures, lureTotal),
  };

  const strata = {} as Record<Stratum, Ratio>;
  for (const stratum of STRATA) {
    strata[stratum] = stratum === 'f' ? f : ratio(passed[stratum], total[stratum]);
  }

  const complete = STRATA.every((stratum) => total[stratum] > 0);
  const factors: QualityFactors = {
    r: strata.r.rate ?? 0,
    t: strata.t.rate ?? 0,
    s: strata.s.rate ?? 0,
    u: strata.u.rate ?? 0,
    i: strata.i.rate ?? 0,
    oneMinusF: f.rate === null ? 0 : 1 - f.rate,
  };
  const quality = complete
    ? qualityScoreOf(
        factors.r,
        factors.t,
        factors.s,
        factors.u,
        factors.i,
        factors.oneMinusF,
        alphas,
      )
    : null;
  return {
    strata,
    lures,
    factors,
    qualityScore: quality,
    unrequestedCount: parsed.unrequestedCount,
  };
}
