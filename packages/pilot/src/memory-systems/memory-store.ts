import type { ScriptedAnswer, ScriptedQuestion, ScriptedRecord } from '@chi/experiments/internal';

/**
 * The memory of one instance of a reference memory system: it is shown records (an encode
 * session) and asked blind questions (a probe session). Nothing else crosses the boundary.
 */
export interface MemoryStore {
  /** Takes in the records of one encode session, in the order shown. */
  write(records: readonly ScriptedRecord[]): void;
  /** Answers blind questions from what the store holds (both fields null: abstention). */
  answer(questions: readonly ScriptedQuestion[]): ScriptedAnswer[];
  /** Records held now (the window: at most K). */
  recordCount(): number;
  /** UTF-8 bytes of the records held, as canonical JSON (what the report calls bytes stored). */
  bytesStored(): number;
  /**
   * The records held, in the order written (the instance-control export): writing them into a
   * fresh store of the same kind rebuilds this one exactly.
   */
  records(): readonly ScriptedRecord[];
}

/** UTF-8 bytes of one record as JSON: a store's unit of storage. */
export function recordBytes(record: ScriptedRecord): number {
  return Buffer.byteLength(JSON.stringify(record), 'utf8');
}
