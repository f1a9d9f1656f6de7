import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RUN_FILE_NAME } from '@chi/run/internal';
import { assertCalibrationIntact } from '@chi/scoring/internal';
import {
  type HumanCalibration,
  HumanCalibrationSchema,
  InvalidArgumentError,
  parseWith,
  type RunManifest,
} from '@chi/spec';

/** The calibration file of a run folder and of a release (raw: copied as is). */
export const CALIBRATION_FILE = RUN_FILE_NAME.calibration;

/**
 * The run's frozen calibration, or null when its manifest freezes no CHI comparison. The file must
 * be intact (its content hash and ID) and be the one the manifest froze (same ID and hash).
 *
 * @throws InvalidArgumentError naming `calibration.json` and the mismatch.
 */
export async function readRunCalibration(
  dir: string,
  manifest: RunManifest,
): Promise<HumanCalibration | null> {
  let text: string | null = null;
  try {
    text = await readFile(join(dir, CALIBRATION_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const frozen = manifest.chiComparison;
  if (frozen === undefined) {
    if (text !== null)
      throw new InvalidArgumentError(
        CALIBRATION_FILE,
        'the run holds a calibration but its manifest freezes no chiComparison: it was added after the run started',
      );
    return null;
  }
  if (text === null)
    throw new InvalidArgumentError(
      CALIBRATION_FILE,
      `the manifest freezes calibration ${frozen.calibrationId} but the file is missing`,
    );
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InvalidArgumentError(CALIBRATION_FILE, `expected JSON: ${(error as Error).message}`);
  }
  const calibration = parseWith(HumanCalibrationSchema, json, CALIBRATION_FILE);
  try {
    assertCalibrationIntact(calibration, 'calibration');
  } catch (error) {
    // Name the file itself (verify reports the file of a raw problem), the field in the message.
    throw new InvalidArgumentError(CALIBRATION_FILE, (error as Error).message, { cause: error });
  }
  if (
    calibration.id !== frozen.calibrationId ||
    (manifest.calibrationId !== undefined && manifest.calibrationId !== calibration.id) ||
    calibration.build?.contentSha256 !== frozen.calibrationSha256
  )
    throw new InvalidArgumentError(
      CALIBRATION_FILE,
      `the manifest froze ${frozen.calibrationId} (sha256 ${frozen.calibrationSha256}), the file is ${calibration.id} (sha256 ${calibration.build?.contentSha256})`,
    );
  return calibration;
}
