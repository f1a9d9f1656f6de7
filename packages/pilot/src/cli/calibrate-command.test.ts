import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HumanCalibrationSchema, type HumanDataRow } from '@chi/spec';
import { SYNTHETIC_HUMAN_DATA_HEADER, syntheticHumanData } from '@chi/worlds/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { parseHumanData } from '../run-folder/human-data-file';
import { runCli } from './cli-main';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chi-calibrate-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const io = () => captureIo({ cwd: root });

// SYNTHETIC human data (declared model in @chi/worlds): no human was measured.
const rows = syntheticHumanData({ seed: 9, participants: 12 });
function writeData(name: string, lines: readonly unknown[]): string {
  const text = [SYNTHETIC_HUMAN_DATA_HEADER, ...lines].map((l) => JSON.stringify(l)).join('\n');
  writeFileSync(join(root, name), `${text}\n`);
  return name;
}

describe('chi calibrate', () => {
  it('turns a synthetic human-data file into a frozen, SYNTHETIC-labelled calibration', async () => {
    const cli = io();
    writeData('humans.jsonl', rows);
    expect(await runCli(['calibrate', 'humans.jsonl'], cli.io)).toBe(0);
    const path = join(root, 'humans.calibration.json');
    expect(cli.out().trim()).toBe(path);
    const calibration = HumanCalibrationSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
    expect(calibration.synthetic).toBe(true);
    expect(calibration.build?.participants).toBe(12);
    expect(calibration.id).toMatch(/^synthetic-calibration-[0-9a-f]{12}$/);
    expect(cli.err()).toContain(`calibration ${calibration.id}: 12 participants, 10 features`);
    expect(cli.err()).toContain('SYNTHETIC: no human was measured');
    // --out, and the same data gives the same bytes
    expect(await runCli(['calibrate', 'humans.jsonl', '--out', 'again.json'], io().io)).toBe(0);
    expect(readFileSync(join(root, 'again.json'), 'utf8')).toBe(readFileSync(path, 'utf8'));
  });

  const badCases: [string, (data: HumanDataRow[]) => unknown[], RegExp][] = [
    [
      'a non-numeric value',
      (data) => data.map((r, i) => (i === 1 ? { ...r, value: 'abc' } : r)),
      /bad\.jsonl line 3\.value: expected a finite number/,
    ],
    [
      'a duplicate participant',
      (data) => [...data, data[0]],
      /bad\.jsonl line 122: duplicate: participant "synthetic-p00" already has feature R\.accuracy on bad\.jsonl line 2/,
    ],
    [
      'a missing feature',
      (data) => data.filter((_, i) => i !== 15),
      /bad\.jsonl line 12: participant "synthetic-p01" \(first seen here\) is missing feature\(s\) C\.abstain_rate/,
    ],
    [
      'zero spread',
      (data) =>
        data.map((r) =>
          r.feature === 'abstain_rate' && r.axis === 'R' ? { ...r, value: 0.1 } : r,
        ),
      /bad\.jsonl line 3: feature R\.abstain_rate \(first row here\) has zero spread/,
    ],
  ];
  for (const [name, corrupt, message] of badCases) {
    it(`refuses ${name} with exit 2, naming the line`, async () => {
      const cli = io();
      writeData('bad.jsonl', corrupt(rows));
      expect(await runCli(['calibrate', 'bad.jsonl'], cli.io)).toBe(2);
      expect(cli.err()).toMatch(message);
    });
  }

  it('refuses a file without the header line', () => {
    expect(() => parseHumanData(`${JSON.stringify(rows[0])}\n`, 'x.jsonl')).toThrow(
      /x\.jsonl line 1.*expected the header/s,
    );
  });
});

describe('chi pilot --calibration', () => {
  it('freezes the calibration in the manifest and writes non-null SYNTHETIC CHI', async () => {
    writeData('humans.jsonl', rows);
    expect(await runCli(['calibrate', 'humans.jsonl', '--out', 'cal.json'], io().io)).toBe(0);
    const calibration = JSON.parse(readFileSync(join(root, 'cal.json'), 'utf8'));
    const cli = io();
    const args = [
      'pilot',
      '--systems',
      'perfect,latest-wins',
      '--replicates',
      '2',
      '--loads',
      '32',
    ];
    const small = [...args, '--no-history', '--no-controls', '--resamples', '20'];
    expect(await runCli([...small, '--calibration', 'cal.json', '--out', 'run'], cli.io)).toBe(0);
    const manifest = JSON.parse(readFileSync(join(root, 'run', 'manifest.json'), 'utf8'));
    expect(manifest.chiComparison.calibrationId).toBe(calibration.id);
    expect(manifest.chiComparison.calibrationSha256).toBe(calibration.build.contentSha256);
    const chiCsv = readFileSync(join(root, 'run', 'release', 'profiles', 'chi.csv'), 'utf8');
    expect(chiCsv).toMatch(/^SYNTHETIC,synthetic-calibration-[0-9a-f]{12},perfect,[0-9.]+,/m);
  });

  it('takes the calibration from a configuration file, relative to that file', async () => {
    writeData('humans.jsonl', rows);
    expect(await runCli(['calibrate', 'humans.jsonl', '--out', 'cal.json'], io().io)).toBe(0);
    const config = {
      systems: ['perfect'],
      replicates: 2,
      loads: [32],
      history: false,
      controls: false,
      resamples: 20,
      calibration: 'cal.json',
    };
    writeFileSync(join(root, 'chi.config.json'), JSON.stringify(config));
    const cli = io();
    expect(await runCli(['pilot', '--config', 'chi.config.json', '--out', 'run'], cli.io)).toBe(0);
    const manifest = JSON.parse(readFileSync(join(root, 'run', 'manifest.json'), 'utf8'));
    const calibration = JSON.parse(readFileSync(join(root, 'cal.json'), 'utf8'));
    expect(manifest.chiComparison.calibrationId).toBe(calibration.id);
  });

  it('prints its own help', async () => {
    const cli = io();
    expect(await runCli(['calibrate', '--help'], cli.io)).toBe(0);
    expect(cli.out()).toContain('chi calibrate DATA [--out FILE]');
  });

  it('refuses an edited calibration file with exit 2 before anything runs', async () => {
    writeData('humans.jsonl', rows);
    expect(await runCli(['calibrate', 'humans.jsonl', '--out', 'cal.json'], io().io)).toBe(0);
    const calibration = JSON.parse(readFileSync(join(root, 'cal.json'), 'utf8'));
    calibration.axes.R.accuracy.mu += 0.01;
    writeFileSync(join(root, 'cal.json'), JSON.stringify(calibration));
    const cli = io();
    expect(
      await runCli(
        ['pilot', '--systems', 'perfect', '--calibration', 'cal.json', '--out', 'r'],
        cli.io,
      ),
    ).toBe(2);
    expect(cli.err()).toMatch(
      /cal\.json\.build\.contentSha256: the content hashes to .* edited after it was built/,
    );
  });
});
