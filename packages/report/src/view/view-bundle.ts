import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { viewPage } from './view-app';
import { readViewData } from './view-data';
import { assertRunFolder } from './view-server';

/**
 * Writes a static copy of the viewer for a run folder or a release: `index.html` and `data.js`
 * (the data as `window.CHI_VIEW_DATA`), which open from the file system with no server. Progress
 * is the snapshot taken when the bundle was written.
 */
export async function writeViewBundle(dir: string, outDir: string): Promise<string[]> {
  const source = resolve(dir);
  await assertRunFolder(source);
  const data = await readViewData(source);
  const out = resolve(outDir);
  await mkdir(out, { recursive: true });
  // `</` cannot end the script early: JSON never needs a raw `</`
  const json = JSON.stringify(data).replace(/<\//g, '<\\/');
  await writeFile(join(out, 'data.js'), `window.CHI_VIEW_DATA = ${json};\n`);
  await writeFile(join(out, 'index.html'), viewPage('<script src="data.js"></script>'));
  return [join(out, 'index.html'), join(out, 'data.js')];
}
