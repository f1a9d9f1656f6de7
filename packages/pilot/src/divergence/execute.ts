import { requestInputBytes } from '@chi/openrouter';
import { canonicalJson, sha256Hex } from '@chi/run';
import {
  type ChatModel,
  ChatResultSchema,
  type HistoryEvidence,
  type HistoryStep,
} from '@chi/spec';
import { z } from 'zod';
import { applyNotebookCap, utf8ByteLength } from '../notebook';
import { requestNonce } from '../plan';
import type { PromptSet } from '../prompts';
import { type RenderedMessages, renderHistoryProbe, renderHistoryUpdate } from '../render-requests';
import type { DivergenceManifest } from './manifest';
import { type ArmCall, armCalls, type DivergenceArm } from './protocol';
import { buildDivergenceWorld, type DivergenceWorld } from './world';

const NOTEBOOK_OPERATIONS = [
  'none',
  'erase',
  'sham-restore',
  'swap',
  'fault-corrupt',
  'fault-restore',
] as const;

/**
 * What the harness did to a notebook around a call (published per call): `swap` happened before
 * the call (the notebook it shows came from the partner instance); the others after it.
 */
export type NotebookOperation = (typeof NOTEBOOK_OPERATIONS)[number];

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * One line of `calls.jsonl`, as `chi verify` and the recomputation read it: a line with a missing,
 * extra or mistyped field is a damaged run folder naming the file and line.
 */
export const DivergenceCallRecordSchema = z.strictObject({
  kind: z.literal('divergence-call'),
  manifestSha256: z.string().regex(SHA256_HEX),
  requestId: z.string().min(1),
  systemId: z.string().min(1),
  worldSeed: z.number().int(),
  arm: z.string().min(1),
  checkpoint: z.number().int().nonnegative(),
  role: z.enum(['update', 'operation', 'probe']),
  /** The CHIS condition a probe measures; null for updates and operations. */
  condition: z.string().nullable(),
  nonce: z.string(),
  requestSha256: z.string().regex(SHA256_HEX),
  inputBytes: z.number().int().nonnegative(),
  /** SHA-256 of the notes the request showed (after any fault corruption). */
  notesShownSha256: z.string().regex(SHA256_HEX),
  /** For probes: the choice IDs asked, in order. */
  askedIds: z.array(z.string()).readonly().nullable(),
  result: ChatResultSchema,
  /** The instance's notebook after this call and any operation that followed it. */
  notebookAfter: z.strictObject({
    text: z.string(),
    sha256: z.string().regex(SHA256_HEX),
    bytes: z.number().int().nonnegative(),
  }),
  operations: z.array(z.enum(NOTEBOOK_OPERATIONS)).readonly(),
});

/** One line of `calls.jsonl`: a request, its result, and the notebook it left. */
export type DivergenceCallRecord = z.output<typeof DivergenceCallRecordSchema>;

/** Creates the model of one instance (a fresh object per instance: hidden state stays inside). */
export type InstanceModelFactory = (
  systemId: string,
  worldSeed: number,
  armId: string,
) => ChatModel;

/** Options of {@link executeDivergence}. */
export interface ExecuteDivergenceOptions {
  readonly manifest: DivergenceManifest;
  readonly manifestSha256: string;
  readonly prompts: PromptSet;
  readonly modelFor: InstanceModelFactory;
  /** Receives every call record in execution order (the caller appends it to `calls.jsonl`). */
  readonly record: (call: DivergenceCallRecord) => Promise<void>;
}

interface Instance {
  readonly arm: DivergenceArm;
  readonly model: ChatModel;
  readonly calls: readonly ArmCall[];
  notes: string;
  /** The notebook was exchanged since the last call (recorded on the next call). */
  swapped: boolean;
}

/** The notebook a reversible fault shows for one probe: unreadable, the same byte length. */
export function corruptedNotebook(notes: string): string {
  return '~'.repeat(utf8ByteLength(notes));
}

function stepOf(call: ArmCall, world: DivergenceWorld): HistoryStep {
  const event = call.event;
  const step = (kind: HistoryStep['kind'], evidence: readonly HistoryEvidence[]): HistoryStep => ({
    checkpoint: call.checkpoint,
    kind,
    evidence: [...evidence],
  });
  if (event === null || event.kind === 'maintenance') return step('maintenance', []);
  if (event.kind === 'exposure') return step('ingest', world.exposure[event.history]);
  if (event.kind === 'washout') return step('ingest', world.washoutEvidence[event.index] ?? []);
  // The matched update has the correction's form (kind, dates, sources, trials); only its
  // direction differs, so the control differs from the intervention in content alone.
  return step('correction', event.kind === 'correction' ? world.correctionA : world.matchedA);
}

/**
 * Runs the divergence protocol: per world seed and system, every arm of the manifest as its own
 * independently initialized instance, checkpoint by checkpoint in lockstep (so the swap can
 * exchange two instances' notebooks at the frozen checkpoint). Requests are rendered with the
 * pilot's history prompts over the fixed probe panel; the nonce depends only on the world, the
 * checkpoint and the call, so instances at the same step get byte-identical requests whenever
 * their notebooks agree. Sequential and not resumable (see docs/protocol.md).
 */
export async function executeDivergence(options: ExecuteDivergenceOptions): Promise<void> {
  const { manifest } = options;
  const cap = manifest.notebookCapBytes;
  for (const worldSeed of manifest.worldSeeds) {
    const world = buildDivergenceWorld(worldSeed);
    for (const system of manifest.systems) {
      const instances = manifest.arms.map(
        (arm): Instance => ({
          arm,
          model: options.modelFor(system.id, worldSeed, arm.id),
          calls: armCalls(arm),
          notes: '',
          swapped: false,
        }),
      );
      for (const { checkpoint } of manifest.checkpoints) {
        for (const instance of instances) {
          const here = instance.calls.filter((call) => call.checkpoint === checkpoint);
          for (const [index, call] of here.entries()) {
            await runCall({ ...options, cap, world, systemId: system.id, instance, call, index });
          }
        }
        if (checkpoint === manifest.operations.swapAfter) swapNotebooks(instances);
      }
    }
  }
}

function swapNotebooks(instances: readonly Instance[]): void {
  const done = new Set<string>();
  for (const instance of instances) {
    const operation = instance.arm.operation;
    if (operation.kind !== 'swap' || done.has(instance.arm.id)) continue;
    const partner = instances.find((candidate) => candidate.arm.id === operation.partner);
    if (partner === undefined) throw new Error(`swap partner ${operation.partner} missing`);
    [instance.notes, partner.notes] = [partner.notes, instance.notes];
    instance.swapped = true;
    partner.swapped = true;
    done.add(instance.arm.id).add(partner.arm.id);
  }
}

async function runCall(args: {
  readonly manifestSha256: string;
  readonly prompts: PromptSet;
  readonly record: ExecuteDivergenceOptions['record'];
  readonly cap: number;
  readonly world: DivergenceWorld;
  readonly systemId: string;
  readonly instance: Instance;
  readonly call: ArmCall;
  readonly index: number;
}): Promise<void> {
  const { instance, call, world } = args;
  const operation = instance.arm.operation;
  const step = `c${call.checkpoint}.${call.role}.${args.index}`;
  const nonce = requestNonce(world.seed, 'divergence', step);
  const faulted = call.role === 'probe' && call.condition === 'fault';
  const shown = faulted ? corruptedNotebook(instance.notes) : instance.notes;
  const rendered: RenderedMessages =
    call.role === 'probe'
      ? renderHistoryProbe(args.prompts, { environments: world.panel, notes: shown, nonce })
      : renderHistoryUpdate(args.prompts, {
          environments: world.panel,
          notes: shown,
          step: stepOf(call, world),
          nonce,
          notebookCapBytes: args.cap,
        });
  const requestId = `${args.systemId}.divergence.w${world.seed}.${instance.arm.id}.${step}`;
  const result = await instance.model.generate({ requestId, messages: rendered.messages });
  const operations: NotebookOperation[] = [];
  if (instance.swapped) operations.push('swap');
  instance.swapped = false;
  if (faulted) operations.push('fault-corrupt', 'fault-restore');
  if (call.role === 'update' && result.failure === 'none') {
    instance.notes = applyNotebookCap(result.text ?? '', args.cap).text;
  } else if (call.role === 'operation') {
    // Erasure and sham erasure send the identical call; only what the harness keeps differs.
    if (operation.kind === 'erase') {
      instance.notes = '';
      operations.push('erase');
    } else {
      operations.push('sham-restore');
    }
  }
  const notebook = applyNotebookCap(instance.notes, args.cap);
  await args.record({
    kind: 'divergence-call',
    manifestSha256: args.manifestSha256,
    requestId,
    systemId: args.systemId,
    worldSeed: world.seed,
    arm: instance.arm.id,
    checkpoint: call.checkpoint,
    role: call.role,
    condition: call.condition,
    nonce,
    requestSha256: sha256Hex(canonicalJson(rendered.messages)),
    inputBytes: requestInputBytes(rendered.messages),
    notesShownSha256: sha256Hex(shown),
    askedIds: call.role === 'probe' ? world.panel.map((environment) => environment.id) : null,
    result,
    notebookAfter: { text: notebook.text, sha256: notebook.sha256, bytes: notebook.bytes },
    operations,
  });
}
