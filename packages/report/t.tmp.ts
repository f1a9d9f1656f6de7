import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFixtureRun } from './src/__fixtures__/fixture-run';
import { runVerifyCli } from './src/verify-cli';
import { writeRelease } from './src/write-release';

const dir = mkdtempSync(join(tmpdir(), 'fx-'));
await buildFixtureRun(dir, {
  infrastructureFailures: ['forgetful.memory.w12.n16.probe.b0'],
  timeouts: ['keeper.behavior.w13.half2'],
});
console.time('release');
const s = await writeRelease({ runDir: dir, outDir: join(dir, 'release') });
console.timeEnd('release');
console.log(s.files.length, s.runId, s.evidenceBanner);
console.time('verify');
console.log(await runVerifyCli([join(dir, 'release')]));
console.timeEnd('verify');
const p = join(dir, 'release', 'chart-data', 'chart-data.json');
writeFileSync(p, readFileSync(p, 'utf8').replace('"estimate":1,', '"estimate":0.99,'));
console.log(await runVerifyCli([join(dir, 'release')]));
console.log(dir);
