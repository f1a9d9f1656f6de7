import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StudyFile } from '@chi/spec';
import { UsageError } from '../cli/usage-error';
import { parseStudyFile, readStudyFile } from './study-file';
import { studyPaths } from './study-folder';
import { readFrozenStudy } from './study-manifest';
import { studySystemIds } from './study-systems';

/**
 * The folder of a study's later cohorts (`chi study add DIR --systems a,b`): each cohort is a
 * study of its own in `cohorts/<name>`, with the parent's world seeds, loads, schedule, ceilings
 * and primary estimate and its own systems and day 0 (docs/protocol.md, "Adding a system later").
 */
export const STUDY_COHORTS_DIRECTORY = 'cohorts';

/** The cohort folders of a study, by name in order (none when the study has gained no system). */
export function studyCohortDirs(dir: string): string[] {
  const root = join(dir, STUDY_COHORTS_DIRECTORY);
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(studyPaths(join(root, entry.name)).study))
    .map((entry) => join(root, entry.name))
    .sort();
}

/** Every system the study and its cohorts already run. */
function systemsInUse(dir: string, parent: readonly string[]): Set<string> {
  const used = new Set(parent);
  for (const cohort of studyCohortDirs(dir))
    for (const system of studySystemIds(readStudyFile(studyPaths(cohort).study))) used.add(system);
  return used;
}

/**
 * `chi study add DIR --systems a,b`: the study gains systems after its first session (a new model
 * version). Writes the cohort's study file `cohorts/<name>/study.json` from the parent's *frozen*
 * declaration: the same world seeds, loads, schedule, ceilings and primary session and checkpoint,
 * only the systems differ (and the study ID, `<parent>-<name>`). The cohort is run like any study
 * (`chi study run DIR/cohorts/<name>`): it freezes at its own first session, its own day 0, and
 * keeps the parent's delays from there. The parent's report pairs it with the parent's systems by
 * world. Returns the cohort's study file path.
 *
 * @throws UsageError (exit 2) for a study not frozen yet (add the system to study.json instead),
 *   a system the study or a cohort already runs, or an existing cohort of that name
 */
export function addStudyCohort(dir: string, systems: readonly string[], name?: string): string {
  const paths = studyPaths(dir);
  const frozen = readFrozenStudy(paths);
  if (frozen === null)
    throw new UsageError(
      `chi study add: ${dir} has not started (not frozen): add the system to ${paths.study} instead`,
    );
  const parent = frozen.manifest.study;
  const used = systemsInUse(dir, studySystemIds(parent));
  const taken = systems.filter((system) => used.has(system));
  if (systems.length === 0 || taken.length > 0)
    throw new UsageError(
      `chi study add: --systems: ${taken.length > 0 ? `${taken.join(', ')} already in the study` : 'expected at least one system'}`,
    );
  const cohortName = (name ?? systems.join('-')).toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const cohortDir = join(dir, STUDY_COHORTS_DIRECTORY, cohortName);
  if (existsSync(cohortDir))
    throw new UsageError(`chi study add: ${cohortDir} exists (another cohort of that name)`);
  const file: StudyFile = parseStudyFile(
    {
      $comment: [
        `A later cohort of study ${parent.studyId}: its systems, the parent's world seeds, loads, schedule, ceilings and primary estimate, from its own day 0.`,
        `Run it like any study: chi study run ${cohortDir}; the parent's report pairs it with the parent's systems by world.`,
      ],
      ...parent,
      studyId: `${parent.studyId}-${cohortName}`.slice(0, 64).replace(/-+$/, ''),
      systems: [...systems],
    },
    `chi study add (${cohortDir})`,
  );
  mkdirSync(cohortDir, { recursive: true });
  const target = studyPaths(cohortDir).study;
  writeFileSync(target, `${JSON.stringify(file, null, 2)}\n`, 'utf8');
  return target;
}
