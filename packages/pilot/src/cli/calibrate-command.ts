import { readFile, writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { ValidationError } from '@chi/spec';
import { EXIT_CODES } from '../pilot';
import { calibrateHumanData, calibrationFileText } from '../run-folder/human-data-file';
import type { CalibrateCommand } from './cli-args';
import type { ProgressOutput } from './progress';

/** Where `chi calibrate DATA` writes by default: DATA without `.jsonl`, plus `.calibration.json`. */
export function defaultCalibrationPath(dataPath: string): string {
  return `${dataPath.replace(/\.jsonl$/, '')}.calibration.json`;
}

/**
 * `chi calibrate DATA [--out FILE]`: builds the frozen calibration of a human-data file and writes
 * it. Bad data (a bad line, a missing feature, zero spread, a duplicate participant) is a usage
 * error (exit 2) with every problem named by `<file> line N`. Prints the calibration's path on
 * stdout and its ID, size and label on stderr.
 */
export async function calibrateCommand(
  command: CalibrateCommand,
  io: { readonly stdout: ProgressOutput; readonly stderr: ProgressOutput; readonly cwd?: string },
): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const dataPath = resolve(cwd, command.data);
  const text = await readFile(dataPath, 'utf8');
  let calibration: ReturnType<typeof calibrateHumanData>;
  try {
    calibration = calibrateHumanData(text, basename(dataPath));
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    io.stderr.write(`chi calibrate: ${error.message}\n`);
    return EXIT_CODES.usage;
  }
  const outPath = resolve(cwd, command.out ?? defaultCalibrationPath(command.data));
  await writeFile(outPath, calibrationFileText(calibration), 'utf8');
  const features = Object.values(calibration.axes).reduce(
    (sum, axis) => sum + Object.keys(axis ?? {}).length,
    0,
  );
  io.stderr.write(
    `chi: calibration ${calibration.id}: ${calibration.build?.participants} participants, ${features} features, sha256 ${calibration.build?.contentSha256}${calibration.synthetic ? ' (SYNTHETIC: no human was measured)' : ''}\n`,
  );
  io.stdout.write(`${outPath}\n`);
  return EXIT_CODES.ok;
}
