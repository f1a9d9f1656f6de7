import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, relative, sep } from 'node:path';
import { type StudyDeclaration, type StudyFile, StudyFileSchema } from '@chi/spec';
import type { z } from 'zod';
import { UsageError } from '../cli/usage-error';
import { DEFAULT_ROOT_SEED } from '../settings';

/** Where `@chi/spec` publishes the study file's JSON Schema. */
const STUDY_SCHEMA_SPECIFIER = '@chi/spec/schemas/study.schema.json';

/** The options of `chi study init` (every one has a default; see `chi study init --help`). */
export interface StudyInitOptions {
  readonly studyId: string;
  readonly systems: readonly string[];
  readonly loads: readonly number[];
  readonly replicates: number;
  readonly seed: number;
  /** Days after the previous session, one per session (the first is 0). */
  readonly delaysDays: readonly number[];
  readonly perSessionUsd: number;
  readonly totalUsd: number;
  readonly primarySession: number;
}

/** The defaults of `chi study init`: four sessions on days 0, 1, 7 and 28 of a scripted study. */
export const STUDY_INIT_DEFAULTS: Omit<StudyInitOptions, 'studyId'> = {
  systems: ['perfect', 'latest-wins'],
  loads: [32],
  replicates: 4,
  seed: DEFAULT_ROOT_SEED,
  delaysDays: [0, 1, 6, 21],
  perSessionUsd: 0,
  totalUsd: 0,
  primarySession: 3,
};

/** The path of the installed study JSON Schema, relative to the study file's folder. */
function schemaReference(studyPath: string): string {
  const schemaPath = createRequire(import.meta.url).resolve(STUDY_SCHEMA_SPECIFIER);
  const path = relative(dirname(studyPath), schemaPath).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

/** The study file `chi study init` writes from its options. */
export function starterStudy(options: StudyInitOptions, schema: string): StudyFile {
  return {
    $schema: schema,
    $comment: [
      'chi study run DIR runs the next due session of this study; chi study status DIR shows where it stands.',
      'Edit this file before the first session: chi study run freezes and hashes it, and refuses it edited afterwards.',
      'schedule[k].afterPreviousDays: the earliest start of session k, in days after session k-1 finished.',
      'Scripted systems are scripted baselines, not measurements of a model.',
    ],
    studyId: options.studyId,
    protocol: 'chi-pilot',
    systems: [...options.systems],
    experiments: { memory: { loads: [...options.loads] } },
    worldSeeds: { rootSeed: options.seed, replicates: options.replicates },
    schedule: options.delaysDays.map((afterPreviousDays) => ({ afterPreviousDays })),
    ceilings: { perSessionUsd: options.perSessionUsd, totalUsd: options.totalUsd },
    primary: {
      session: options.primarySession,
      checkpoint: { experiment: 'memory', load: options.loads[0] ?? 32 },
    },
  };
}

/** The first problem of a study file as `field.path: message` (the field named as in the file). */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  const path = issue.path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
    )
    .join('');
  return `${path === '' ? '(the file)' : path}: ${issue.message}`;
}

/**
 * Checks a study file's parsed JSON: the study, or a {@link UsageError} naming the file and the
 * field (`study.json: schedule[0].afterPreviousDays: expected 0 ...`; exit 2).
 */
export function parseStudyFile(value: unknown, what: string): StudyFile {
  const parsed = StudyFileSchema.safeParse(value);
  if (!parsed.success) throw new UsageError(`${what}: ${firstIssue(parsed.error)}`);
  return parsed.data;
}

/** Reads and checks a study file (a usage error naming the file and the field when it is bad). */
export function readStudyFile(path: string): StudyFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`${path}: no study file (create one with chi study init DIR)`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path}: not JSON (${(error as Error).message})`);
  }
  return parseStudyFile(value, path);
}

/** The declaration a study file holds: without `$schema` and `$comment` (what is frozen). */
export function studyDeclaration(file: StudyFile): StudyDeclaration {
  const { $schema: _schema, $comment: _comment, ...declaration } = file;
  return declaration;
}

/**
 * Writes the study file of `chi study init` (checked against the schema first, so a bad flag is
 * refused naming the field); an existing file is refused unless `force`.
 */
export function writeStudyFile(path: string, options: StudyInitOptions, force: boolean): void {
  if (existsSync(path) && !force)
    throw new UsageError(`chi study init: ${path} exists; pass --force to replace it`);
  const study = parseStudyFile(starterStudy(options, schemaReference(path)), 'chi study init');
  writeFileSync(path, `${JSON.stringify(study, null, 2)}\n`, 'utf8');
}
