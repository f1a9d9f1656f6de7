import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRun } from '../pilot/src/run-create';
import { executeRun } from '../pilot/src/run-execute';
import { createScriptedModel } from '../pilot/src/scripted-systems';
import { defaultOfflineSettings } from '../pilot/src/settings';
import { runVerifyCli } from './src/verify-cli';
import { writeRelease } from './src/write-release';

const root = mkdtempSync(join(tmpdir(), 'pilot-'));
const settings = defaultOfflineSettings({ replicates: 2, loads: [32, 64], resamples: 200 });
let t = Date.parse('2026-09-01T00:00:00.000Z');
const now = () => new Date((t += 1000));
const handle = await createRun({ settings, runDir: join(root, 'run'), now });
const models = new Map(
  handle.frozen.manifest.systems.map((s) => [s.id, createScriptedModel(s.id, { now } as never)]),
);
console.time('exec');
const out = await executeRun({ runDir: handle.runDir, models, now });
console.timeEnd('exec');
console.log(out.state, out.completeBlocks, out.incompleteBlocks, root);
console.time('release');
const s = await writeRelease({ runDir: handle.runDir, outDir: join(root, 'release') });
console.timeEnd('release');
console.log(s.files.length);
console.log(await runVerifyCli([join(root, 'release')]));
