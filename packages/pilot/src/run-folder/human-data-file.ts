import { readFile } from 'node:fs/promises';
import { buildCalibration } from '@chi/scoring';
import { assertCalibrationIntact } from '@chi/scoring/internal';
import {
  type HumanCalibration,
  HumanCalibrationSchema,
  type HumanDataHeader,
  HumanDataHeaderSchema,
  type HumanDataRow,
  HumanDataRowSchema,
  InvalidArgumentError,
  ValidationError,
  type ValidationIssue,
} from '@chi/spec';
import { PILOT_FEATURES } from '@chi/spec/internal';

/** A parsed human-data file: its header and rows with the line each came from. */
export interface HumanDataFile {
  readonly header: HumanDataHeader;
  readonly rows: readonly HumanDataRow[];
  /** 1-based line number of each row. */
  readonly lines: readonly number[];
}

function parseLine(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return { __notJson: (error as Error).message };
  }
}

/**
 * Parses a human-data JSONL file (see docs/human-calibration.md): line 1 is the header
 * (`{"kind":"chi-human-data","schemaVersion":1,"synthetic":...,"description":...}`), every other
 * non-empty line one measurement row. Every problem is reported with its line.
 *
 * @throws ValidationError naming `<file> line N` (and the field) of every bad line.
 */
export function parseHumanData(text: string, file: string): HumanDataFile {
  const all = text.split('\n');
  const issues: ValidationIssue[] = [];
  const rows: HumanDataRow[] = [];
  const lines: number[] = [];
  let header: HumanDataHeader | null = null;
  all.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const at = `${file} line ${index + 1}`;
    const value = parseLine(line);
    if (typeof value === 'object' && value !== null && '__notJson' in value) {
      issues.push({ path: at, message: `expected JSON: ${String(value.__notJson)}` });
      return;
    }
    const schema =
      header === null && rows.length === 0 ? HumanDataHeaderSchema : HumanDataRowSchema;
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        issues.push({
          path: issue.path.length === 0 ? at : `${at}.${issue.path.join('.')}`,
          message:
            schema === HumanDataHeaderSchema
              ? `expected the header {"kind":"chi-human-data","schemaVersion":1,"synthetic":true|false,"description":"..."}: ${issue.message}`
              : issue.message,
        });
      if (schema === HumanDataHeaderSchema) header = null;
      return;
    }
    if (schema === HumanDataHeaderSchema) header = parsed.data as HumanDataHeader;
    else {
      rows.push(parsed.data as HumanDataRow);
      lines.push(index + 1);
    }
  });
  if (header === null && issues.length === 0)
    issues.push({ path: `${file} line 1`, message: 'expected the chi-human-data header line' });
  if (issues.length > 0) throw new ValidationError(`human data ${file}`, issues);
  return { header: header as unknown as HumanDataHeader, rows, lines };
}

/**
 * `chi calibrate`: the frozen calibration of a human-data file, with every error naming
 * `<file> line N`. The calibration is labelled synthetic exactly when the file's header is.
 */
export function calibrateHumanData(text: string, file: string): HumanCalibration {
  const data = parseHumanData(text, file);
  return buildCalibration(data.rows, {
    synthetic: data.header.synthetic,
    description: data.header.description,
    rowLabel: (index) => `${file} line ${data.lines[index] ?? '?'}`,
    subject: `human data ${file}`,
  });
}

/**
 * Reads a calibration file for `chi pilot --calibration`: parses it, checks its content hash and
 * ID, and checks that every calibrated feature is one the pilot measures (`pilot-features-v1`).
 *
 * @throws InvalidArgumentError naming the file and the problem.
 */
export async function readCalibrationFile(path: string): Promise<HumanCalibration> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InvalidArgumentError(
      '--calibration',
      `cannot read ${path}: ${(error as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InvalidArgumentError(path, `expected JSON: ${(error as Error).message}`);
  }
  const parsed = HumanCalibrationSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new InvalidArgumentError(
      `${path}${first === undefined || first.path.length === 0 ? '' : ` ${first.path.join('.')}`}`,
      `not a calibration file (as \`chi calibrate\` writes): ${first?.message ?? 'invalid'}`,
    );
  }
  const calibration = parsed.data;
  assertCalibrationIntact(calibration, path);
  for (const [axis, features] of Object.entries(calibration.axes))
    for (const feature of Object.keys(features ?? {}))
      if (!PILOT_FEATURES.some((f) => f.axis === axis && f.feature === feature))
        throw new InvalidArgumentError(
          `${path} axes.${axis}.${feature}`,
          `the pilot does not measure this feature (pilot-features-v1 has ${PILOT_FEATURES.map((f) => `${f.axis}.${f.feature}`).join(', ')})`,
        );
  return calibration;
}

/** The text of a calibration file: two-space JSON and a newline. */
export function calibrationFileText(calibration: HumanCalibration): string {
  return `${JSON.stringify(calibration, null, 2)}\n`;
}
