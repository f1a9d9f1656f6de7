import { requestInputBytes } from '@chi/openrouter';
import { canonicalJson, infrastructureReason, isInfrastructureFailure, sha256Hex } from '@chi/run';
import { type ChatModel, type ChatResult, ChatResultSchema } from '@chi/spec';
import { z } from 'zod';
import { applyNotebookCap } from '../notebook';
import { requestNonce } from '../plan';
import type { PromptSet } from '../prompts';
import type { RenderedMessages } from '../render-requests';
import { corruptedNotebook } from '../run-notebook-source';
import type { DivergenceManifest } from './manifest';
import { type ArmCall, armCalls, type DivergenceArm } from './protocol';
import { renderDivergenceCall } from './render';
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

/** The fields naming a request of `calls.jsonl`, in the order every line kind writes them. */
const CALL_IDENTITY = {
  manifestSha256: z.string().regex(SHA256_HEX),
  requestId: z.string().min(1),
  systemId: z.string().min(1),
  worldSeed: z.number().int(),
  arm: z.string().min(1),
  checkpoint: z.number().int().nonnegative(),
};

/**
 * One line of `calls.jsonl`, as `chi verify` and the recomputation read it: a line with a missing,
 * extra or mistyped field is a damaged run folder naming the file and line.
 */
export const DivergenceCallRecordSchema = z.strictObject({
  kind: z.literal('divergence-call'),
  ...CALL_IDENTITY,
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

/**
 * A line of `calls.jsonl` for a request a killed session left open (possibly sent, no response
 * recorded) on a paid system: it is never sent again, so its instance ends here, incomplete.
 */
export const DivergenceAbandonedRecordSchema = z.strictObject({
  kind: z.literal('divergence-abandoned'),
  ...CALL_IDENTITY,
  reason: z.string().min(1),
});

/** An abandoned request of `calls.jsonl`. */
export type DivergenceAbandonedRecord = z.output<typeof DivergenceAbandonedRecordSchema>;

/** Any line of `calls.jsonl`. */
export const DivergenceLogLineSchema = z.discriminatedUnion('kind', [
  DivergenceCallRecordSchema,
  DivergenceAbandonedRecordSchema,
]);

/** Any line of `calls.jsonl`: a call with its result, or an abandoned request. */
export type DivergenceLogLine = z.output<typeof DivergenceLogLineSchema>;

/**
 * One line of `sends.jsonl`, appended (and synced) before a request is handed to its model: a
 * send without a line in `calls.jsonl` was left open by a killed session.
 */
export const DivergenceSendRecordSchema = z.strictObject({
  kind: z.literal('divergence-send'),
  manifestSha256: z.string().regex(SHA256_HEX),
  requestId: z.string().min(1),
  requestSha256: z.string().regex(SHA256_HEX),
});

/** A line of `sends.jsonl`. */
export type DivergenceSendRecord = z.output<typeof DivergenceSendRecordSchema>;

/** Why an instance's trajectory stopped before its last call (published; the instance is excluded). */
export interface IncompleteInstance {
  readonly systemId: string;
  readonly worldSeed: number;
  readonly arm: string;
  readonly requestId: string;
  readonly reason: string;
}

/**
 * The incomplete instance a log line ends, or null: an infrastructure failure (`@chi/run`'s
 * classification: the same one the default pilot uses to mark a block incomplete) or an abandoned
 * request. A model failure (timeout, invalid or truncated answer) is the model's: scored.
 */
export function incompleteBy(line: DivergenceLogLine): IncompleteInstance | null {
  const where = {
    systemId: line.systemId,
    worldSeed: line.worldSeed,
    arm: line.arm,
    requestId: line.requestId,
  };
  if (line.kind === 'divergence-abandoned')
    return { ...where, reason: `abandoned: ${line.reason}` };
  if (!isInfrastructureFailure(line.result)) return null;
  return { ...where, reason: infrastructureReason(line.result) };
}

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
  /** Receives every new log line in execution order (the caller appends it to `calls.jsonl`). */
  readonly record: (line: DivergenceLogLine) => Promise<void>;
  /** Called (and awaited) right before a request is handed to its model (`sends.jsonl`). */
  readonly beforeSend?: (requestId: string, requestSha256: string) => Promise<void>;
  /** What an earlier session of the run left; absent for a new run. */
  readonly resume?: DivergenceResumeState;
  /**
   * Whether a system's request left open by a killed session may be sent again (free and
   * deterministic: `mayResendUncertain` of the default pilot); otherwise it is abandoned.
   */
  readonly mayResend?: (systemId: string) => boolean;
  /**
   * Whether a system's instances are in-process scripted objects whose hidden state is rebuilt by
   * replaying answered requests locally (nothing leaves the process; nothing is recorded).
   */
  readonly replaysLocally?: (systemId: string) => boolean;
}

/** The call log of an earlier session, by request ID. */
export interface DivergenceResumeState {
  /** Lines already in `calls.jsonl` (answered or abandoned): never sent again. */
  readonly logged: ReadonlyMap<string, DivergenceLogLine>;
  /** Requests with a send record and no line in `calls.jsonl`: left open by a kill. */
  readonly open: ReadonlySet<string>;
}

interface Instance {
  readonly arm: DivergenceArm;
  readonly model: ChatModel;
  readonly calls: readonly ArmCall[];
  notes: string;
  /** The notebook was exchanged since the last call (recorded on the next call). */
  swapped: boolean;
  /** Set once a call ended the instance (infrastructure failure, abandoned request). */
  incomplete: IncompleteInstance | null;
}

/**
 * Runs the divergence protocol: per world seed and system, every arm of the manifest as its own
 * independently initialized instance, checkpoint by checkpoint in lockstep (so the swap can
 * exchange two instances' notebooks at the frozen checkpoint). Requests are rendered with the
 * pilot's history prompts over the fixed probe panel; the nonce depends only on the world, the
 * checkpoint and the call, so instances at the same step get byte-identical requests whenever
 * their notebooks agree. Sequential. On resume, a logged call is restored from the log (never sent
 * again), a call left open is re-sent or abandoned ({@link ExecuteDivergenceOptions.mayResend}),
 * and an instance ended by an infrastructure failure sends nothing more. Resolves to the
 * incomplete instances.
 */
export async function executeDivergence(
  options: ExecuteDivergenceOptions,
): Promise<IncompleteInstance[]> {
  const incomplete: IncompleteInstance[] = [];
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
          incomplete: null,
        }),
      );
      for (const { checkpoint } of manifest.checkpoints) {
        for (const instance of instances) {
          const here = instance.calls.filter((call) => call.checkpoint === checkpoint);
          for (const [index, call] of here.entries()) {
            if (instance.incomplete !== null) break;
            await runCall({ ...options, cap, world, systemId: system.id, instance, call, index });
          }
        }
        if (checkpoint === manifest.operations.swapAfter) swapNotebooks(instances);
      }
      for (const instance of instances)
        if (instance.incomplete !== null) incomplete.push(instance.incomplete);
    }
  }
  return incomplete;
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

interface CallArgs {
  readonly manifestSha256: string;
  readonly prompts: PromptSet;
  readonly record: ExecuteDivergenceOptions['record'];
  readonly beforeSend?: ExecuteDivergenceOptions['beforeSend'];
  readonly resume?: DivergenceResumeState;
  readonly mayResend?: ExecuteDivergenceOptions['mayResend'];
  readonly replaysLocally?: ExecuteDivergenceOptions['replaysLocally'];
  readonly cap: number;
  readonly world: DivergenceWorld;
  readonly systemId: string;
  readonly instance: Instance;
  readonly call: ArmCall;
  readonly index: number;
}

function renderCall(args: CallArgs, nonce: string, shown: string): RenderedMessages {
  return renderDivergenceCall({
    prompts: args.prompts,
    world: args.world,
    call: args.call,
    notes: shown,
    nonce,
    notebookCapBytes: args.cap,
  });
}

/**
 * A call an earlier session logged: its notebook is restored from the log and nothing is sent
 * (an in-process scripted instance replays it locally to rebuild its hidden state).
 */
async function restoreCall(
  args: CallArgs,
  line: DivergenceLogLine,
  request: { readonly requestId: string; readonly messages: RenderedMessages['messages'] },
): Promise<void> {
  const { instance } = args;
  instance.swapped = false;
  instance.incomplete = incompleteBy(line);
  if (line.kind === 'divergence-call') {
    instance.notes = line.notebookAfter.text;
    if (args.replaysLocally?.(args.systemId) === true) await instance.model.generate(request);
  }
}

/** Ends the instance at a request a killed session left open on a paid system (never re-sent). */
function abandonCall(args: CallArgs, requestId: string): Promise<void> {
  const line: DivergenceAbandonedRecord = {
    kind: 'divergence-abandoned',
    manifestSha256: args.manifestSha256,
    requestId,
    systemId: args.systemId,
    worldSeed: args.world.seed,
    arm: args.instance.arm.id,
    checkpoint: args.call.checkpoint,
    reason: 'possibly sent before an interruption; never re-sent (paid system)',
  };
  args.instance.incomplete = incompleteBy(line);
  return args.record(line);
}

/** Updates the instance's notebook from a call's result and returns the harness's operations. */
function applyResult(args: CallArgs, result: ChatResult, faulted: boolean): NotebookOperation[] {
  const { instance, call } = args;
  const operations: NotebookOperation[] = [];
  if (instance.swapped) operations.push('swap');
  instance.swapped = false;
  if (faulted) operations.push('fault-corrupt', 'fault-restore');
  if (call.role === 'update' && result.failure === 'none') {
    instance.notes = applyNotebookCap(result.text ?? '', args.cap).text;
  } else if (call.role === 'operation') {
    // Erasure and sham erasure send the identical call; only what the harness keeps differs.
    if (instance.arm.operation.kind === 'erase') {
      instance.notes = '';
      operations.push('erase');
    } else {
      operations.push('sham-restore');
    }
  }
  return operations;
}

async function runCall(args: CallArgs): Promise<void> {
  const { instance, call, world } = args;
  const step = `c${call.checkpoint}.${call.role}.${args.index}`;
  const nonce = requestNonce(world.seed, 'divergence', step);
  const faulted = call.role === 'probe' && call.condition === 'fault';
  const shown = faulted ? corruptedNotebook(instance.notes) : instance.notes;
  const rendered = renderCall(args, nonce, shown);
  const requestId = `${args.systemId}.divergence.w${world.seed}.${instance.arm.id}.${step}`;
  const request = { requestId, messages: rendered.messages };
  const logged = args.resume?.logged.get(requestId);
  if (logged !== undefined) return restoreCall(args, logged, request);
  const requestSha256 = sha256Hex(canonicalJson(rendered.messages));
  if (args.resume?.open.has(requestId) === true && args.mayResend?.(args.systemId) !== true)
    return abandonCall(args, requestId);
  await args.beforeSend?.(requestId, requestSha256);
  const result = await instance.model.generate(request);
  const operations = applyResult(args, result, faulted);
  const notebook = applyNotebookCap(instance.notes, args.cap);
  const line: DivergenceCallRecord = {
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
    requestSha256,
    inputBytes: requestInputBytes(rendered.messages),
    notesShownSha256: sha256Hex(shown),
    askedIds: call.role === 'probe' ? world.panel.map((environment) => environment.id) : null,
    result,
    notebookAfter: { text: notebook.text, sha256: notebook.sha256, bytes: notebook.bytes },
    operations,
  };
  instance.incomplete = incompleteBy(line);
  await args.record(line);
}
