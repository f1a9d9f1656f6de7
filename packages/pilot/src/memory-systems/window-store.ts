import { answerMemoryQuestions, type ScriptedRecord } from '@chi/experiments/internal';
import { createScriptedNoise } from '../scripted/scripted-noise';
import { type MemoryStore, recordBytes } from './memory-store';

/** The default window of the `window` reference system: K = 160 records (see docs/protocol.md). */
export const DEFAULT_WINDOW_RECORDS = 160;

/**
 * A sliding window over the records an instance was shown: it keeps the last `windowRecords` in
 * the order shown and forgets older ones, and answers with the protocol precedence (authority,
 * then event time, as-of cutoffs applied) over what it kept, abstaining on a key it holds no
 * eligible record of. Its capacity follows from K alone (derivation in docs/protocol.md).
 */
export function createWindowStore(windowRecords: number = DEFAULT_WINDOW_RECORDS): MemoryStore {
  let kept: ScriptedRecord[] = [];
  // The precedence reader never invents, so the noise is never drawn.
  const noise = createScriptedNoise(0, '0000000000000000');
  return {
    write(records) {
      kept = [...kept, ...records].slice(-windowRecords);
    },
    answer(questions) {
      return answerMemoryQuestions(
        kept,
        questions,
        {
          encode: 'all',
          precedence: 'authority-then-time',
          whenUnknown: 'abstain',
          abstainAlways: false,
        },
        noise,
      );
    },
    recordCount: () => kept.length,
    bytesStored: () => kept.reduce((sum, record) => sum + recordBytes(record), 0),
    records: () => [...kept],
  };
}
