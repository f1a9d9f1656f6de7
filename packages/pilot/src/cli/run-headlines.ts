import { chartPartOf, type RunChartData } from '@chi/analysis';
import type { EimcEntry } from '@chi/analysis/internal';

/**
 * One experiment's table in the headline `chi pilot` prints, registered under its experiment ID
 * ({@link RUN_HEADLINES}): its title line and its rows (indented two spaces).
 */
export interface RunHeadline {
  readonly experimentId: string;
  /** The title, without the colon (the evidence label follows the first). */
  readonly title: string;
  /** The table: a header and a row per system. */
  table(data: RunChartData, plannedWorlds: number): string[];
}

function eimcText(entry: EimcEntry | undefined): string {
  if (entry === undefined) return '—';
  if (entry.status === 'no_passing_load' || entry.value === null) return 'none';
  return entry.status === 'lower_bound' ? `>=${entry.value}` : String(entry.value);
}

/**
 * The memory capacity headline: EIMC per system at each tau (`>=N` a lower bound: the largest
 * tested load passed; `none`: no load passed) with the worlds it rests on of the planned worlds
 * (`4/4`, or `1/8` in a partial run).
 */
export const memoryRunHeadline: RunHeadline = {
  experimentId: 'memory',
  title: 'EIMC (largest tested load with Q_M >= tau; >=N lower bound, none = no passing load)',
  table(data, plannedWorlds) {
    const eimc = chartPartOf(data, 'memory').eimc;
    const taus = [...new Set(eimc.map((entry) => entry.tau))].sort((a, b) => a - b);
    const systems = data.run.systems;
    const width = Math.max(6, ...systems.map((system) => system.id.length));
    const lines = [
      `  ${'system'.padEnd(width)}  ${taus.map((tau) => `tau ${tau}`.padStart(9)).join(' ')}   worlds`,
    ];
    for (const system of systems) {
      const cells = taus.map((tau) =>
        eimcText(eimc.find((entry) => entry.systemId === system.id && entry.tau === tau)).padStart(
          9,
        ),
      );
      const entry = eimc.find((e) => e.systemId === system.id);
      const worlds = (entry === undefined ? '—' : `${entry.worlds}/${plannedWorlds}`).padStart(8);
      lines.push(`  ${system.id.padEnd(width)}  ${cells.join(' ')} ${worlds}`);
    }
    return lines;
  },
};

/**
 * The experiments whose tables `chi pilot` prints after a run, in order: an experiment with a
 * headline of its own adds one line here.
 */
export const RUN_HEADLINES: readonly RunHeadline[] = [memoryRunHeadline];
