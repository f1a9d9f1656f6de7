import { RUN_FILE_NAME } from '@chi/run/internal';
import { canonicalJson, sha256Hex } from '../canonical-json';
import type { VerifyMismatch } from '../verify/verify-mismatch';
import type { RunRecords } from './run-folder';
import { requestRecordFile } from './run-integrity';

/** A mismatch of the raw records' internal hashes (kind `raw`). */
export type RawMismatch = VerifyMismatch;

/** Raw-record consistency: the manifest hash, request hashes and the hashes attempts carry. */
export function rawConsistency(
  records: RunRecords,
  manifestSha256File: string | null,
): VerifyMismatch[] {
  const out: VerifyMismatch[] = [];
  const raw = (file: string, message: string): VerifyMismatch => ({
    file,
    kind: 'raw',
    at: null,
    recorded: null,
    recomputed: null,
    message: `${file}: ${message}`,
  });
  if (
    manifestSha256File !== null &&
    manifestSha256File !== `${records.manifestSha256}  ${RUN_FILE_NAME.manifest}\n`
  ) {
    out.push(
      raw(
        RUN_FILE_NAME.manifestSha256,
        `does not hold the SHA-256 of ${RUN_FILE_NAME.manifest} (${records.manifestSha256})`,
      ),
    );
  }
  for (const [requestId, request] of records.requests) {
    const actual = sha256Hex(canonicalJson(request.messages));
    if (actual !== request.requestSha256)
      out.push(
        raw(
          requestRecordFile(records, requestId),
          `requestSha256 of ${requestId} is ${request.requestSha256}, the messages hash to ${actual}`,
        ),
      );
  }
  records.attempts.forEach((attempt, index) => {
    if (attempt.manifestSha256 !== records.manifestSha256)
      out.push(
        raw(
          RUN_FILE_NAME.attempts,
          `line ${index + 1} carries manifest hash ${attempt.manifestSha256}, the manifest hashes to ${records.manifestSha256}`,
        ),
      );
    const recorded = records.requestHashes.get(attempt.requestId);
    if (recorded !== undefined && attempt.requestSha256 !== recorded) {
      out.push(
        raw(
          RUN_FILE_NAME.attempts,
          `line ${index + 1} (${attempt.attemptId}) carries request hash ${attempt.requestSha256}, ${requestRecordFile(records, attempt.requestId)} has ${recorded}`,
        ),
      );
    }
  });
  return out;
}
