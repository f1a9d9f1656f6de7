import { fmix32 } from './seed';

const EMPTY = -1;
const TWO_TO_32 = 0x100000000;

/**
 * A set of non-negative integer codes below 2^53 (memory keys are 40-bit), stored by open
 * addressing in a Float64Array. A million-key world checks a few million codes; a `Set<number>`
 * of non-Smi numbers is several times slower and larger.
 */
export class CodeSet {
  #slots: Float64Array;
  #mask: number;
  #size = 0;

  constructor(expectedSize: number) {
    let capacity = 16;
    while (capacity < expectedSize * 2) capacity *= 2;
    this.#slots = new Float64Array(capacity).fill(EMPTY);
    this.#mask = capacity - 1;
  }

  /** Number of codes in the set. */
  get size(): number {
    return this.#size;
  }

  #slotOf(code: number): number {
    const high = Math.floor(code / TWO_TO_32);
    let slot = fmix32((code >>> 0) ^ Math.imul(high, 0x9e3779b1)) & this.#mask;
    for (;;) {
      const stored = this.#slots[slot] as number;
      if (stored === EMPTY || stored === code) return slot;
      slot = (slot + 1) & this.#mask;
    }
  }

  /** Whether `code` is in the set. */
  has(code: number): boolean {
    return this.#slots[this.#slotOf(code)] === code;
  }

  /** Adds `code`; returns false if it was already present. */
  add(code: number): boolean {
    const slot = this.#slotOf(code);
    if (this.#slots[slot] === code) return false;
    this.#slots[slot] = code;
    this.#size += 1;
    if (this.#size * 2 > this.#slots.length) this.#grow();
    return true;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Float64Array(old.length * 2).fill(EMPTY);
    this.#mask = this.#slots.length - 1;
    this.#size = 0;
    for (const code of old) if (code !== EMPTY) this.add(code);
  }
}
