import { clusterDrawLimit, resampleStateWords } from './resample-draws.js';
import { WEIGHTED_MEANS_WASM_BASE64 } from './weighted-means-kernel.generated.js';

/**
 * The replicate loop of `weightedMeansBootstrap` in WebAssembly SIMD (kernel/weighted-means.wat):
 * the cluster draws, the counts and the weighted column means of one replicate, bit for bit the
 * JavaScript path's. Where WebAssembly or its SIMD is missing (a `--jitless` Node, an old
 * browser), {@link openWeightedMeansKernel} returns null and the JavaScript path runs instead.
 * @internal
 */
export interface WeightedMeansKernel {
  /** The column means of the last `original()` or `resample()`; a view into the kernel's memory. */
  readonly means: Float64Array;
  /** Means of the original sample (every cluster once). */
  original(): void;
  /** Draws the next replicate from the stream and computes its means. */
  resample(): void;
  /** Hands the kernel back for the next call; `means` must not be read after this. */
  release(): void;
}

interface KernelExports {
  configure(
    clusters: number,
    width: number,
    data: number,
    counts: number,
    rowOffsets: number,
    rowWeights: number,
    means: number,
    drawn: number,
    limit: number,
  ): void;
  seed(s01: number, s00: number, s11: number, s10: number): void;
  draw(n: number, range: number, limit: number): void;
  original(): void;
  resample(): void;
}

/**
 * The part of the WebAssembly JavaScript API used here. The package is typed against ES2023 and
 * Node's types, which do not declare `WebAssembly`; it is also absent at run time under
 * `node --jitless`.
 */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: object };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}

interface KernelInstance {
  readonly memory: WasmMemory;
  readonly exports: KernelExports;
}

/** Largest memory a call may ask the kernel for; bigger inputs take the JavaScript path. */
const KERNEL_MAX_BYTES = 2 ** 30;
const PAGE_BYTES = 65536;

let compiled: { readonly wasm: WasmApi; readonly module: object } | null | undefined;
/** One idle instance, reused by the next call; a nested call (from inside a statistic) makes its own. */
let idle: KernelInstance | undefined;

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The compiled module, or null where WebAssembly (with SIMD) cannot run it. Compiled once. */
function kernelModule(): { readonly wasm: WasmApi; readonly module: object } | null {
  if (compiled === undefined) {
    const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    try {
      // Compiling validates: an engine without 128-bit SIMD rejects the module here.
      compiled =
        wasm === undefined
          ? null
          : { wasm, module: new wasm.Module(decodeBase64(WEIGHTED_MEANS_WASM_BASE64)) };
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

function instantiate({ wasm, module }: { wasm: WasmApi; module: object }): KernelInstance {
  const memory = new wasm.Memory({ initial: 1 });
  const instance = new wasm.Instance(module, { env: { memory } });
  return { memory, exports: instance.exports as KernelExports };
}

const align = (offset: number, to: number): number => Math.ceil(offset / to) * to;

/**
 * A kernel loaded with `data` (`clusters x width`, row-major) and seeded for `seed`'s stream, or
 * null when WebAssembly SIMD is unavailable or the input would need more than 1 GiB of memory.
 * Call `release()` when done.
 * @internal
 */
export function openWeightedMeansKernel(
  data: Float64Array,
  clusters: number,
  width: number,
  seed: number,
): WeightedMeansKernel | null {
  const module = kernelModule();
  if (module === null) return null;
  const dataBytes = clusters * width * 8;
  const counts = dataBytes;
  const rowOffsets = counts + clusters * 4;
  const rowWeights = align(rowOffsets + clusters * 4, 8);
  const meansAt = align(rowWeights + clusters * 8, 16);
  const drawn = meansAt + width * 8;
  const bytes = drawn + clusters * 4;
  if (bytes > KERNEL_MAX_BYTES) return null;
  const kernel = idle ?? instantiate(module);
  idle = undefined;
  const pages = Math.ceil(bytes / PAGE_BYTES);
  const have = kernel.memory.buffer.byteLength / PAGE_BYTES;
  if (pages > have) kernel.memory.grow(pages - have);
  new Float64Array(kernel.memory.buffer, 0, clusters * width).set(data);
  const { exports } = kernel;
  // ToInt32 of the limit wraps 2^32 - 1 to -1: the same 32 bits, read unsigned by the kernel.
  const limit = clusterDrawLimit(clusters) - 1;
  exports.configure(clusters, width, 0, counts, rowOffsets, rowWeights, meansAt, drawn, limit);
  const [s01, s00, s11, s10] = resampleStateWords(seed);
  exports.seed(s01, s00, s11, s10);
  return {
    means: new Float64Array(kernel.memory.buffer, meansAt, width),
    original: () => exports.original(),
    resample: () => exports.resample(),
    release: () => {
      idle = kernel;
    },
  };
}

/**
 * The kernel's draw loop alone, for the tests: `n` cluster indices in `[0, range)` from `seed`'s
 * stream with the rejection limit `limit` (ClusterDrawStream's rule for `range` unless given), or
 * null where the kernel cannot run. Any range up to 2^31 - 1 works here, so rejections can be made
 * frequent.
 * @internal
 */
export function kernelDraws(
  seed: number,
  range: number,
  n: number,
  limit = clusterDrawLimit(range),
): Uint32Array | null {
  const module = kernelModule();
  if (module === null) return null;
  const kernel = instantiate(module);
  const pages = Math.ceil((n * 4) / PAGE_BYTES);
  if (pages > 1) kernel.memory.grow(pages - 1);
  kernel.exports.configure(0, 0, 0, 0, 0, 0, 0, 0, 0);
  const [s01, s00, s11, s10] = resampleStateWords(seed);
  kernel.exports.seed(s01, s00, s11, s10);
  kernel.exports.draw(n, range, limit - 1);
  return new Uint32Array(kernel.memory.buffer, 0, n).slice();
}
