import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { InvalidArgumentError } from '@chi/spec';
import { writeViewBundle } from './view-bundle';
import { writeCompareBundle } from './view-compare-bundle';
import type { ViewStudySource } from './view-study';
import { studyPage } from './view-study-page';

/**
 * `chi view STUDY_DIR --bundle OUT`: the study page as static files that open from the file
 * system with no server: `OUT/index.html` (the page), `OUT/study.json` (its data, as the server's
 * `api/study`), each session's viewer bundle in `OUT/<name>/` (`s0/index.html`, ...), and the
 * comparison of each two consecutive sessions in `OUT/compare-<a>-<b>/` (none, with the reason on
 * the page, when a session has no release to pair). Returns the files written, `index.html` first.
 */
export async function writeStudyViewBundle(
  source: ViewStudySource,
  outDir: string,
): Promise<string[]> {
  const out = resolve(outDir);
  await mkdir(out, { recursive: true });
  const study = await source.study();
  const runs = source.runs();
  const written: string[] = [];
  for (const run of runs) {
    const [index] = await writeViewBundle(run, join(out, basename(run)));
    written.push(index as string);
  }
  const compares = new Map<string, { href: string } | { refused: string }>();
  for (let k = 1; k < runs.length; k++) {
    const [a, b] = [basename(runs[k - 1] as string), basename(runs[k] as string)];
    const folder = `compare-${a}-${b}`;
    try {
      const [index] = await writeCompareBundle(
        runs[k - 1] as string,
        runs[k] as string,
        join(out, folder),
      );
      written.push(index as string);
      compares.set(`${a}\u0000${b}`, { href: `${folder}/index.html` });
    } catch (error) {
      if (!InvalidArgumentError.isInstance(error)) throw error;
      compares.set(`${a}\u0000${b}`, { refused: error.message });
    }
  }
  const html = studyPage(study, {
    run: (name) => `${encodeURIComponent(name)}/index.html`,
    compare: (a, b) => compares.get(`${a}\u0000${b}`) ?? { refused: 'not in this bundle' },
    json: 'study.json',
  });
  await writeFile(join(out, 'study.json'), `${JSON.stringify(study)}\n`);
  await writeFile(join(out, 'index.html'), html);
  return [join(out, 'index.html'), join(out, 'study.json'), ...written];
}
