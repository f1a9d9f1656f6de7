import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { NotApplicableArm } from '@chi/experiments/internal';
import { parseCsv } from '@chi/report/viewer';
import { RunFolderDamagedError } from '@chi/spec';
import type { DivergenceAnalysis, DivergenceEstimate, DivergenceSystemResult } from './analyze';
import { DIVERGENCE_WORLDS_FILE } from './release-file-names';

/**
 * What `chi view` reads of a divergence release, on demand: the analysis (`divergence.json`,
 * whose size does not grow with the worlds) for the grid and the dynamics, and the per-world
 * values of one cell at a time, streamed from `divergence-worlds.csv` (never the whole file
 * held, never shipped to the browser).
 */

/** The analysis a divergence view shows (`divergence.json`, with issue 36's optional field). */
export type DivergenceViewAnalysis = DivergenceAnalysis & {
  readonly notApplicableArms?: readonly NotApplicableArm[];
};

/** Reads `divergence.json` of a release; a missing or unparseable one is a damaged release. */
export async function readDivergenceViewAnalysis(release: string): Promise<DivergenceViewAnalysis> {
  const path = join(release, 'divergence.json');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new RunFolderDamagedError(path, 'missing: write the release again (chi pilot --resume)', {
      cause: error,
    });
  }
  try {
    const value = JSON.parse(text) as DivergenceViewAnalysis;
    if (value.kind !== 'divergence-analysis') throw new Error('not a divergence analysis');
    return value;
  } catch (error) {
    throw new RunFolderDamagedError(path, `unreadable: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** One cell of the drill-down: a system's statistic (`excess@6`, `accuracy:A@1`, `plasticity`). */
export interface DivergenceCell {
  readonly system: DivergenceSystemResult;
  readonly statistic: string;
  /** What the cell is, for people (`excess at checkpoint 6`). */
  readonly label: string;
  readonly value: DivergenceEstimate;
}

/** Finds a cell of the analysis by system and statistic name; null when there is none. */
export function divergenceCell(
  analysis: DivergenceAnalysis,
  systemId: string,
  statistic: string,
): DivergenceCell | null {
  const system = analysis.systems.find((candidate) => candidate.systemId === systemId);
  if (system === undefined) return null;
  const at = /^(.+)@(\d+)$/.exec(statistic);
  if (at !== null) {
    const [, name, checkpointText] = at as unknown as [string, string, string];
    const checkpoint = Number(checkpointText);
    if (name.startsWith('accuracy:')) {
      const arm = name.slice('accuracy:'.length);
      const cell = system.taskAccuracy.find(
        (candidate) => candidate.arm === arm && candidate.checkpoint === checkpoint,
      );
      return cell === undefined
        ? null
        : {
            system,
            statistic,
            label: `task accuracy of arm ${arm} at checkpoint ${checkpoint}`,
            value: cell.value,
          };
    }
    const point = system.trajectory.find((candidate) => candidate.checkpoint === checkpoint);
    const value = point?.series[name as keyof typeof point.series];
    return value === undefined
      ? null
      : { system, statistic, label: `${name} at checkpoint ${checkpoint}`, value };
  }
  const dynamic = system.dynamics.find((candidate) => candidate.name === statistic);
  return dynamic === undefined
    ? null
    : { system, statistic, label: `dynamic ${statistic}`, value: dynamic.value };
}

/** One world's value of a cell, as `divergence-worlds.csv` has it. */
export interface DivergenceWorldRow {
  readonly worldSeed: number;
  readonly value: number | null;
  readonly inWorldSet: boolean;
  readonly reason: string;
}

/**
 * The per-world values of one cell, streamed from `divergence-worlds.csv` line by line: only the
 * rows of this system and statistic are kept.
 *
 * @throws `RunFolderDamagedError` when the file is missing or a row does not parse
 */
export async function readDivergenceWorldRows(
  release: string,
  systemId: string,
  statistic: string,
): Promise<DivergenceWorldRow[]> {
  const path = join(release, DIVERGENCE_WORLDS_FILE);
  const rows: DivergenceWorldRow[] = [];
  const stream = createReadStream(path, { encoding: 'utf8' });
  const opened = new Promise<void>((done, fail) => {
    stream.once('open', () => done());
    stream.once('error', fail);
  });
  try {
    await opened;
  } catch (error) {
    throw new RunFolderDamagedError(path, 'missing or unreadable', { cause: error });
  }
  const prefix = `${systemId},${statistic},`;
  let line = 0;
  for await (const text of createInterface({
    input: stream,
    crlfDelay: Number.POSITIVE_INFINITY,
  })) {
    line += 1;
    // a cheap test first: the system ID and statistic name hold no comma or quote
    if (line === 1 || !text.startsWith(prefix)) continue;
    const [fields] = parseCsv(text);
    const [, , seed, value, inSet, reason] = fields ?? [];
    if (seed === undefined || value === undefined || inSet === undefined)
      throw new RunFolderDamagedError(path, `line ${line} does not have the six columns`);
    rows.push({
      worldSeed: Number(seed),
      value: value === '' ? null : Number(value),
      inWorldSet: inSet === 'true',
      reason: reason ?? '',
    });
  }
  return rows;
}
