import type { RunChartData, RunFacts } from '@chi/analysis';
import { chartPartOf } from '@chi/analysis';
import type { BytesStoredRow, MemoryPoint } from '@chi/analysis/internal';
import { formatNumber } from './format-number';

/** Who held a system's memory: the runner's notebook, or the system itself (issue 36). */
export function memoryPolicyOfSystem(run: RunFacts, systemId: string): 'notebook' | 'system' {
  return run.systems.find((system) => system.id === systemId)?.memory ?? 'notebook';
}

/** Whether any system of the run kept its own memory (memory policy `system`). */
export function hasSystemHeldMemory(run: RunFacts): boolean {
  return run.systems.some((system) => system.memory === 'system');
}

/**
 * The report's statement of the system boundary, or null for a run where the runner held every
 * memory (the pilot's notebook policy: the report says nothing new, its bytes do not change).
 */
export function systemBoundaryText(
  run: RunFacts,
  stored: readonly BytesStoredRow[] = [],
): string | null {
  if (!hasSystemHeldMemory(run)) return null;
  const held = run.systems
    .filter((system) => system.memory === 'system')
    .map((system) => system.id);
  const notebook = run.systems.filter((system) => system.memory !== 'system').map((s) => s.id);
  return [
    `System boundary: ${held.join(', ')} held ${held.length === 1 ? 'its' : 'their'} own memory (memory policy system: each session was sent without notes and named its memory instance; bytes stored are the system's, unknown to the runner unless it reports them). ${bytesStoredText(run, stored)}`,
    notebook.length === 0
      ? '.'
      : `; for ${notebook.join(', ')} the runner held the memory in a capped notebook carried in each prompt (memory policy notebook).`,
    ' Results under different memory policies are not the same quantity: every system label carries its policy, and an EIMC under one policy is not ranked against an EIMC under the other.',
  ].join('');
}

function bytes(value: number): string {
  return `${formatNumber(value, 0)} B`;
}

/** One recorded cell: `memory N = 32 (notebook): mean 3240 B (3100 B–3400 B) over 2 instances`. */
function storedCellText(row: BytesStoredRow): string {
  const where = [
    row.experiment,
    ...(row.load === null ? [] : [`N = ${row.load}`]),
    ...(row.condition === null ? [] : [`(${row.condition})`]),
  ].join(' ');
  const { mean, min, max } = row.bytesStored;
  if (row.instances === 1) return `${where}: ${bytes(mean)} in 1 instance`;
  if (min === max) return `${where}: ${bytes(mean)} in each of ${row.instances} instances`;
  return `${where}: mean ${bytes(mean)} (${bytes(min)}–${bytes(max)}) over ${row.instances} instances`;
}

/**
 * What the report can say about the bytes each system-held memory stores. A system that declared
 * the instance-control extension had each instance exported at the end of its trajectory and the
 * system's own count recorded (the attempt log's `bytesStored`): listed per experiment, load and
 * condition. A declared system with no recorded instance (none ended with a session that reached
 * it) is said to have none recorded; any other system's bytes are not reported by the system.
 * Never estimated. No tokens are replayed by the runner under memory policy system (it carries no
 * state); the transcript-replay baseline, where run, counts its stored and replayed bytes itself.
 */
function bytesStoredText(run: RunFacts, stored: readonly BytesStoredRow[]): string {
  const held = run.systems.filter((system) => system.memory === 'system');
  const parts = held.map((system) => {
    if (system.instanceControl === undefined)
      return `Bytes stored: not reported by the system for ${system.id} (no instance-control extension declared: the runner cannot see into its memory). `;
    const rows = stored.filter((row) => row.systemId === system.id);
    if (rows.length === 0)
      return `Bytes stored: none recorded for ${system.id} (it declares the instance-control extension, but no instance of it ended with a session that reached it). `;
    return `Bytes stored by ${system.id} (its own count, from its instance-control export at the end of each instance's trajectory): ${rows.map(storedCellText).join('; ')}. `;
  });
  return [
    ...parts,
    'Tokens replayed by the runner: none (it carries no state under this policy; the transcript-replay baseline, where run, counts its own)',
  ].join('');
}

/**
 * The method sentence on the evaluated memory system: under the notebook policy (every system of
 * the pilot so far) the pilot's sentence, unchanged; for systems that held their own memory it
 * names them and their boundary instead of describing a notebook they did not have.
 */
export function memorySystemMethodText(
  run: RunFacts & { readonly notebookCapBytes: number },
): string {
  const notebookSentence = `The evaluated memory system is the named model plus a common ${run.notebookCapBytes}-byte external notebook; this is not the provider's native memory, CPLOM production architecture, or context-window size.`;
  if (!hasSystemHeldMemory(run)) return notebookSentence;
  const held = run.systems.filter((system) => system.memory === 'system').map((s) => s.id);
  const notebook = run.systems.filter((system) => system.memory !== 'system').map((s) => s.id);
  return [
    `The evaluated memory system of ${held.join(', ')} is the named system with the memory it keeps itself (memory policy system); the runner carried no notebook for it.`,
    notebook.length === 0
      ? ''
      : ` For ${notebook.join(', ')} it is the named model plus a common ${run.notebookCapBytes}-byte external notebook; this is not the provider's native memory, CPLOM production architecture, or context-window size.`,
  ].join('');
}

/** A blank-memory control that passed probes a blank memory cannot pass: state leaked into it. */
export interface BlankControlLeak {
  readonly systemId: string;
  readonly load: number;
  /** Passing r, s, u and i probes (each expects a recorded 8-hex value). */
  readonly passing: number;
  readonly probes: number;
}

/**
 * The blank-memory controls that scored above chance. The r, s, u and i strata always expect a
 * recorded value (8 random hex digits), which a memory that was shown nothing passes with
 * probability 2^-32 per probe, guessing or abstaining; t and lures may expect "unknown". Any such
 * pass means something reached the blank instance: for a system that keeps its own memory, state
 * leaking across instances; under the notebook policy, information from outside the protocol.
 */
export function blankControlLeaks(points: readonly MemoryPoint[]): BlankControlLeak[] {
  return points
    .filter((point) => point.condition === 'blank')
    .map((point) => {
      const strata = [point.strata.r, point.strata.s, point.strata.u, point.strata.i];
      return {
        systemId: point.systemId,
        load: point.load,
        passing: strata.reduce((sum, ratio) => sum + ratio.numerator, 0),
        probes: strata.reduce((sum, ratio) => sum + ratio.denominator, 0),
      };
    })
    .filter((leak) => leak.passing > 0);
}

/** The report's warning about leaking blank controls, or null when none leaked. */
export function blankControlLeakText(
  data: Pick<RunChartData, 'experiments' | 'run'>,
): string | null {
  const leaks = blankControlLeaks(chartPartOf(data, 'memory').memory);
  if (leaks.length === 0) return null;
  const listed = leaks
    .map(
      (leak) =>
        `${leak.systemId} (memory policy ${memoryPolicyOfSystem(data.run, leak.systemId)}) at N = ${leak.load}: ${leak.passing} of ${leak.probes} r/s/u/i probes passed`,
    )
    .join('; ');
  return `STATE LEAK: a blank-memory control scored above chance (a memory that was shown nothing passes an r, s, u or i probe with probability 2^-32): ${listed}. Its capacity curve cannot be trusted as a measurement of memory held within one instance.`;
}
