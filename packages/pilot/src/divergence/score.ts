import { readHistoryProbe } from '@chi/experiments/internal';
import { usableReply } from '@chi/run/internal';
import type { ChisEntry, Decision } from '@chi/spec';
import type { Option } from '@chi/spec/internal';
import type { DivergenceCallRecord } from './calls';
import type { DivergenceManifest } from './manifest';
import type { DivergenceArm } from './protocol';
import { buildDivergenceWorld, type DivergenceWorld } from './world';

/** The decision-vector coding of the pilot: A = 0, unknown = 0.5, B = 1, invalid = null. */
function coordinate(decision: Decision): number | null {
  return decision === 'A' ? 0 : decision === 'B' ? 1 : decision === 'unknown' ? 0.5 : null;
}

function opposite(option: Option): Option {
  return option === 'A' ? 'B' : 'A';
}

/**
 * The warranted answer per primary choice for an arm at a checkpoint: unknown before exposure;
 * then the direction of the arm's history (the last history it ingested); reversed from the
 * plasticity checkpoint on for the correction arm. Erasure does not change what is warranted:
 * the evidence was given, the notebook lost it.
 */
export function warrantedAnswers(
  world: DivergenceWorld,
  arm: DivergenceArm,
  checkpoint: number,
  manifest: Pick<DivergenceManifest, 'operations'>,
): (Option | 'unknown')[] {
  if (checkpoint === 0) return world.directionA.map(() => 'unknown');
  const direction = arm.history === 'A' ? world.directionA : world.directionA.map(opposite);
  const corrected =
    arm.operation.kind === 'correction' && checkpoint >= manifest.operations.plasticityAt;
  return direction.map((option) => (corrected ? opposite(option) : option));
}

function rate(count: number, total: number): number {
  return total === 0 ? 0 : count / total;
}

/**
 * The CHIS entries of a divergence run, one per probe, read from the call records alone (the
 * release and `chi verify` both use this). Decisions come from `readHistoryProbe` of
 * `@chi/report` (the pilot's one reading of a history reply) over the fixed panel; the decision
 * vector holds the four primary choices; the profile holds accuracy, explicit-unknown and invalid
 * rates on them against the warranted answers, and `washoutKnown`, the share of the washout
 * choices answered with the option the common evidence favors (the memory-accumulation
 * indicator). `chi` is null: no human calibration exists.
 */
export function divergenceEntries(
  manifest: DivergenceManifest,
  calls: readonly DivergenceCallRecord[],
): ChisEntry[] {
  const worlds = new Map(manifest.worldSeeds.map((seed) => [seed, buildDivergenceWorld(seed)]));
  const arms = new Map(manifest.arms.map((arm) => [arm.id, arm]));
  const evidenceClass = new Map(
    manifest.systems.map((system) => [system.id, system.evidenceClass]),
  );
  const counters = new Map<
    string,
    { events: number; calls: number; since: number; cost: number; firstMs: number }
  >();
  const entries: ChisEntry[] = [];
  for (const call of calls) {
    const trajectoryId = `${call.systemId}.divergence.w${call.worldSeed}.${call.arm}`;
    const counter = counters.get(trajectoryId) ?? {
      events: 0,
      calls: 0,
      since: 0,
      cost: 0,
      firstMs: Date.parse(call.result.startedAt),
    };
    counters.set(trajectoryId, counter);
    counter.calls += 1;
    counter.since += 1;
    counter.cost += call.result.chargedUsd;
    if (call.role === 'update') counter.events += 1;
    if (call.role !== 'probe') continue;
    const world = worlds.get(call.worldSeed);
    const arm = arms.get(call.arm);
    if (world === undefined || arm === undefined)
      throw new Error(`call ${call.requestId} names a world or arm the manifest does not have`);
    const reading = readHistoryProbe(
      usableReply({ kind: 'resolved', result: call.result }),
      call.askedIds,
      { environments: [...world.panel] },
    );
    const primary = reading.decisions.slice(0, world.primary.length);
    const washout = reading.decisions.slice(world.primary.length);
    const warranted = warrantedAnswers(world, arm, call.checkpoint, manifest);
    const correct = primary.filter((decision, index) => decision === warranted[index]).length;
    const knownWashout = washout.filter(
      (decision, index) => decision === world.washoutFavored[index],
    ).length;
    entries.push({
      kind: 'chis-entry',
      trajectoryId,
      systemId: call.systemId,
      evidenceClass: evidenceClass.get(call.systemId) ?? 'scripted_baseline',
      worldSeed: call.worldSeed,
      history: call.arm,
      checkpoint: call.checkpoint,
      condition: call.condition ?? 'probe',
      recordedAt: call.result.finishedAt,
      eventCount: counter.events,
      scheduledOperations: counter.calls,
      elapsedWallMs: Math.max(0, Date.parse(call.result.finishedAt) - counter.firstMs),
      profile: {
        accuracy: rate(correct, primary.length),
        unknownRate: rate(
          primary.filter((decision) => decision === 'unknown').length,
          primary.length,
        ),
        invalidRate: rate(
          primary.filter((decision) => decision === 'invalid').length,
          primary.length,
        ),
        washoutKnown: rate(knownWashout, washout.length),
      },
      decisionVector: primary.map(coordinate),
      chi: null,
      state: {
        sha256: call.notebookAfter.sha256,
        bytes: call.notebookAfter.bytes,
        originalBytes: call.notebookAfter.bytes,
        truncated: false,
      },
      resources: {
        requests: counter.since,
        promptTokens: null,
        completionTokens: null,
        costUsd: counter.cost,
        latencyMs: null,
      },
    });
    counter.since = 0;
    counter.cost = 0;
  }
  return entries;
}
