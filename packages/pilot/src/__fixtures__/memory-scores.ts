import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { AttemptRecord, MemoryWorld, QualityFactors, RunPlan } from '@chi/spec';
import { meanFactors, parseProbeReply, qualityScore, scoreMemoryProbes } from '@chi/scoring';

/** Mean factors and Q_M per `<system> <condition> <load>` of a finished run folder (test helper). */
export function memoryScoresOf(runDir: string): Map<string, { qualityScore: number; factors: QualityFactors }> {
  const results = new Map<string, string | null>();
  for (const line of readFileSync(join(runDir, 'attempts.jsonl'), 'utf8').trim().split('\n')) {
    const record = JSON.parse(line) as AttemptRecord;
    if (record.phase === 'after_response') results.set(record.requestId, record.result?.text ?? null);
  }
  const plan = JSON.parse(readFileSync(join(runDir, 'plan.json'), 'utf8')) as RunPlan;
  const perKey = new Map<string, QualityFactors[]>();
  for (const request of plan.requests) {
    if (request.task !== 'memory_probe' && request.task !== 'memory_probe_oracle') continue;
    const world = JSON.parse(
      gunzipSync(
        readFileSync(join(runDir, 'worlds', 'memory', `w${request.worldSeed}-n${request.load}.json.gz`)),
      ).toString('utf8'),
    ) as MemoryWorld;
    const parsed = parseProbeReply(results.get(request.requestId) ?? '', world.probes.map((probe) => probe.id));
    const key = `${request.systemId} ${request.condition} ${request.load}`;
    const list = perKey.get(key) ?? [];
    list.push(scoreMemoryProbes(world.answerKey, parsed).factors);
    perKey.set(key, list);
  }
  const out = new Map<string, { qualityScore: number; factors: QualityFactors }>();
  for (const [key, list] of perKey) {
    const factors = meanFactors(list);
    out.set(key, { qualityScore: qualityScore(factors), factors });
  }
  return out;
}
