import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureRun } from '../__fixtures__/fixture-run';
import { tempDir } from '../__fixtures__/temp-dir';
import { verifyRelease } from '../verify/verify-release';
import {
  chiPackageDirs,
  describeReleaseCode,
  packPackageDir,
  packReleaseCode,
  RELEASE_VERIFY_COMMAND,
  tarballName,
} from './release-code';
import { readTarGzip } from './tar-gzip';
import { writeRelease } from './write-release';

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('code');
});
afterAll(async () => dir.remove());

/** A workspace-style package folder: dist with a source map, README, a workspace: dependency. */
async function fakePackage(root: string, name: string, dependencies: Record<string, string>) {
  const packageDir = join(root, basename(name));
  await mkdir(join(packageDir, 'dist', 'sub'), { recursive: true });
  await mkdir(join(packageDir, 'src'), { recursive: true });
  await writeFile(
    join(packageDir, 'package.json'),
    `${JSON.stringify({ name, version: '1.2.3', files: ['dist', '!dist/**/*.map', 'README.md'], dependencies, devDependencies: { '@chi/b': 'workspace:*' } }, null, 2)}\n`,
  );
  await writeFile(join(packageDir, 'dist', 'index.js'), 'export const a = 1;\n');
  await writeFile(join(packageDir, 'dist', 'index.js.map'), '{}');
  await writeFile(join(packageDir, 'dist', 'sub', 'x.js'), 'export {};\n');
  await writeFile(join(packageDir, 'src', 'index.ts'), 'export const a = 1;\n');
  await writeFile(join(packageDir, 'README.md'), '# a\n');
  await writeFile(join(packageDir, 'LICENSE'), 'MIT\n');
  return packageDir;
}

describe('packPackageDir', () => {
  it('packs the declared files under package/, with workspace: ranges rewritten as pnpm publishes them', async () => {
    const packageDir = await fakePackage(join(dir.path, 'pkgs'), '@chi/a', {
      '@chi/b': 'workspace:^',
      '@chi/c': 'workspace:~',
      zod: '4.6.7',
    });
    const versions = new Map([
      ['@chi/b', '0.4.0'],
      ['@chi/c', '2.0.1'],
    ]);
    const packed = packPackageDir(packageDir, versions);
    expect([packed.name, packed.version]).toEqual(['@chi/a', '1.2.3']);
    const entries = readTarGzip(packed.bytes);
    expect(entries.map((entry) => entry.path)).toEqual([
      'package/LICENSE',
      'package/README.md',
      'package/dist/index.js',
      'package/dist/sub/x.js',
      'package/package.json',
    ]);
    const manifest = JSON.parse(text(entries.at(-1)?.bytes)) as Record<string, unknown>;
    expect(manifest.dependencies).toEqual({ '@chi/b': '^0.4.0', '@chi/c': '~2.0.1', zod: '4.6.7' });
    expect(manifest.devDependencies).toEqual({ '@chi/b': '0.4.0' });
    // reproducible
    expect(packPackageDir(packageDir, versions).bytes).toEqual(packed.bytes);
    expect(tarballName('@chi/a', '1.2.3')).toBe('chi-a-1.2.3.tgz');
  });

  it('refuses a workspace: range it has no packed version for, naming the dependency', async () => {
    const packageDir = await fakePackage(join(dir.path, 'lonely'), '@chi/lonely', {
      '@chi/missing': 'workspace:^',
    });
    expect(() => packPackageDir(packageDir, new Map([['@chi/b', '1.0.0']]))).toThrow(
      /@chi\/lonely dependencies\.@chi\/missing/,
    );
  });
});

describe('the code of a release', () => {
  const pilotDir = join(import.meta.dirname, '..', '..', '..', 'pilot');

  it("follows @chi/pilot's @chi dependencies to every package of the toolkit", () => {
    expect(chiPackageDirs(pilotDir).map((path) => basename(path))).toEqual([
      'analysis',
      'chis',
      'experiment',
      'experiments',
      'figures',
      'openrouter',
      'pilot',
      'report',
      'run',
      'scoring',
      'spec',
      'stats',
      'worlds',
    ]);
  });

  it('is listed in release.json with versions, SHA-256 and npm integrity; verify recomputes the list and names a changed tarball', async () => {
    const runDir = join(dir.path, 'run');
    await buildFixtureRun(runDir);
    const verifierPath = join(dir.path, 'verify.mjs');
    await writeFile(verifierPath, 'console.log("verifier");\n');
    const packageDir = await fakePackage(join(dir.path, 'release-pkgs'), '@chi/b', {});
    const code = new Map([
      [
        'code/packages/chi-b-1.2.3.tgz',
        packPackageDir(packageDir, new Map([['@chi/b', '1.2.3']])).bytes,
      ],
      ['code/verify.mjs', new Uint8Array(await readFile(verifierPath))],
    ]);
    const outDir = join(dir.path, 'release');
    await writeRelease({ runDir, outDir, code });

    const tarball = await readFile(join(outDir, 'code/packages/chi-b-1.2.3.tgz'));
    const release = JSON.parse(await readFile(join(outDir, 'release.json'), 'utf8')) as {
      code: unknown;
    };
    expect(release.code).toEqual({
      packages: [
        {
          name: '@chi/b',
          version: '1.2.3',
          file: 'code/packages/chi-b-1.2.3.tgz',
          sha256: createHash('sha256').update(tarball).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
        },
      ],
      verifier: {
        file: 'code/verify.mjs',
        sha256: createHash('sha256').update('console.log("verifier");\n').digest('hex'),
        integrity: `sha512-${createHash('sha512').update('console.log("verifier");\n').digest('base64')}`,
        command: RELEASE_VERIFY_COMMAND,
      },
    });
    expect(describeReleaseCode(code)).toEqual(release.code);
    const readme = await readFile(join(outDir, 'README.md'), 'utf8');
    expect(readme).toContain(`${RELEASE_VERIFY_COMMAND} `);
    expect(readme).not.toContain('npx');
    expect((await verifyRelease(outDir)).ok).toBe(true);

    // another package in place of the published one: the hash and release.json's list disagree
    const other = await fakePackage(join(dir.path, 'other-pkgs'), '@chi/b', { left: '1.0.0' });
    await writeFile(
      join(outDir, 'code/packages/chi-b-1.2.3.tgz'),
      packPackageDir(other, new Map([['@chi/b', '1.2.3']])).bytes,
    );
    const report = await verifyRelease(outDir);
    expect(report.ok).toBe(false);
    expect(new Set(report.mismatches.map((m) => m.file))).toEqual(
      new Set(['code/packages/chi-b-1.2.3.tgz', 'release.json']),
    );
  });

  it('packs the installed toolkit and the built verifier, or says to build it', () => {
    expect(() =>
      packReleaseCode({ rootPackageDir: pilotDir, verifierPath: join(dir.path, 'absent.mjs') }),
    ).toThrow(/build @chi\/report first/);
  });
});
