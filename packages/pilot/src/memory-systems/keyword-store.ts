import type { ScriptedAnswer, ScriptedQuestion, ScriptedRecord } from '@chi/experiments/internal';
import MiniSearch from 'minisearch';
import { type MemoryStore, recordBytes } from './memory-store';

/** Records the `keyword-store` reference reads per question (its top-k). */
export const DEFAULT_TOP_K = 3;

interface IndexedRecord extends ScriptedRecord {
  readonly id: number;
}

/**
 * A keyword retrieval store over everything an instance was shown, on MiniSearch (BM25 full-text
 * search): each record is a document indexed by its key, whose two four-character groups are the
 * terms (`7kq2-mx0d` -> `7kq2`, `mx0d`). A question searches its key (either term, one edit of
 * fuzziness, exact matches weighted above fuzzy ones), reads the `topK` best documents, drops
 * those after the question's as-of cutoff, and answers with the best-scoring one, ties to the
 * latest event time; with nothing retrieved it abstains. Like a retrieval-augmented reader it
 * trusts what it retrieved: it never checks that a record's key is the key asked, and it never
 * weighs authority. Its derived failures (docs/protocol.md): every interference probe (a later
 * lower-authority record wins), and absent-key lures whose key shares a term, within one edit,
 * with a stored key — half of them by construction, more as the load grows.
 */
export function createKeywordStore(topK: number = DEFAULT_TOP_K): MemoryStore {
  const index = new MiniSearch<IndexedRecord>({
    fields: ['key'],
    storeFields: ['key', 'value', 'source', 'eventTime', 'authority'],
    idField: 'id',
  });
  const records: IndexedRecord[] = [];
  let bytes = 0;
  const answerOne = (question: ScriptedQuestion): ScriptedAnswer => {
    const cutoff = question.asOf === null ? null : Date.parse(question.asOf);
    const hits = index
      .search(question.key, { fuzzy: 1, combineWith: 'OR' })
      .slice(0, topK)
      .map((hit) => ({ score: hit.score, record: records[hit.id as number] as IndexedRecord }))
      .filter((hit) => cutoff === null || Date.parse(hit.record.eventTime) <= cutoff);
    let best: (typeof hits)[number] | undefined;
    for (const hit of hits) {
      if (
        best === undefined ||
        hit.score > best.score ||
        (hit.score === best.score && hit.record.eventTime > best.record.eventTime)
      )
        best = hit;
    }
    return best === undefined
      ? { id: question.id, value: null, source: null }
      : { id: question.id, value: best.record.value, source: best.record.source };
  };
  return {
    write(shown) {
      const added = shown.map((record, offset) => ({ ...record, id: records.length + offset }));
      records.push(...added);
      index.addAll(added);
      bytes += shown.reduce((sum, record) => sum + recordBytes(record), 0);
    },
    answer: (questions) => questions.map(answerOne),
    recordCount: () => records.length,
    bytesStored: () => bytes,
    records: () => records.map(({ id: _id, ...record }) => record),
  };
}
