import { setFlagsFromString } from 'node:v8';

/**
 * How much V8 lets the JavaScript heap grow past what the last full collection kept, in percent,
 * in the command-line entries (`chi` and a release's `code/verify.mjs`).
 *
 * V8 by default lets the heap grow to up to four times the memory still in use before it collects
 * again. For `chi score` and `chi verify` that headroom, not the data, was most of the peak RSS,
 * and it grew with the length of the run: the heap in use at 60 worlds of the v0.1 run is about
 * 36 MB (a heap snapshot in mid-analysis), but the heap reached 284 MB, against 236 MB at 10
 * worlds. With 50% the peak follows what is in use (docs/benchmarks/scale.md, "Heap growth").
 */
export const CLI_HEAP_GROWING_PERCENT = 50;

/** The V8 flags that set the heap growing factor, as given on node's command line. */
const HEAP_GROWING_FLAG = /^--(no-)?heap[-_]growing[-_]percent(=|$)/;

/**
 * The V8 flag a command-line entry sets to bound the heap's growth, or null when the process was
 * started with its own (`node --heap-growing-percent=N`), which then stands.
 *
 * @param execArgv - node's own arguments (`process.execArgv`)
 */
export function heapGrowthFlag(execArgv: readonly string[]): string | null {
  if (execArgv.some((argument) => HEAP_GROWING_FLAG.test(argument))) return null;
  return `--heap-growing-percent=${CLI_HEAP_GROWING_PERCENT}`;
}

/**
 * Bounds how far V8 lets the heap grow between collections ({@link CLI_HEAP_GROWING_PERCENT}).
 * For a process's entry point only, before any work: it changes a flag of the whole process, so
 * a library never calls it on its users' behalf.
 *
 * @param execArgv - node's own arguments (default `process.execArgv`)
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv): void {
  const flag = heapGrowthFlag(execArgv);
  if (flag !== null) setFlagsFromString(flag);
}
