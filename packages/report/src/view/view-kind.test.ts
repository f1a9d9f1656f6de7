import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RUN_FILE_NAME, runFolderPaths } from '@chi/run/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../__fixtures__/temp-dir';
import { SHA256SUMS_FILE } from '../release/sha256-sums';
import { writeViewBundle } from './view-bundle';
import { type ViewKind, viewKindOf, viewPathSegments } from './view-kind';
import { startViewServer } from './view-server';

const HTML = 'text/html; charset=utf-8';

/** A toy kind: `/` names the release, `/echo/<segment>` echoes the decoded segment. */
function toyKind(protocol: string, files?: ReadonlyMap<string, string>): ViewKind {
  return {
    specificationVersion: 'v1',
    protocol,
    name: 'toy release',
    shows: 'an echo',
    answer: async (release, path) => {
      if (path.length === 0) return { status: 200, type: HTML, body: `toy ${release}` };
      if (path[0] === 'echo' && path.length === 2)
        return { status: 200, type: 'text/plain', body: path[1] as string };
      return { status: 404, type: 'text/plain', body: `no page ${path.join('/')}` };
    },
    bundle: async (release) => files ?? new Map([['index.html', `toy ${release}`]]),
  };
}

/** A release of `protocol` (a manifest naming it and `SHA256SUMS`) at `dir`. */
async function release(dir: string, protocol: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, RUN_FILE_NAME.manifest), JSON.stringify({ protocol }));
  await writeFile(join(dir, SHA256SUMS_FILE), '');
  return dir;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function folder(): Promise<string> {
  const dir = await tempDir('view-kind');
  cleanups.push(dir.remove);
  return dir.path;
}

describe('viewKindOf', () => {
  it('picks the kind by the manifest protocol of a release, or of a run folder’s release/', async () => {
    const root = await folder();
    const kinds = [toyKind('other-v1'), toyKind('toy-v1')];
    const direct = await release(join(root, 'a'), 'toy-v1');
    expect(await viewKindOf(direct, kinds)).toEqual({ kind: kinds[1], release: direct });
    const run = join(root, 'run');
    await mkdir(run);
    await writeFile(join(run, RUN_FILE_NAME.manifest), JSON.stringify({ protocol: 'toy-v1' }));
    const inner = await release(runFolderPaths(run).releaseDir, 'toy-v1');
    expect(await viewKindOf(run, kinds)).toEqual({ kind: kinds[1], release: inner });
  });

  it('is null for another protocol, no kinds, or a folder that is not a release', async () => {
    const root = await folder();
    const pilot = await release(join(root, 'pilot'), 'chi-pilot-v1');
    expect(await viewKindOf(pilot, [toyKind('toy-v1')])).toBeNull();
    const toy = await release(join(root, 'toy'), 'toy-v1');
    expect(await viewKindOf(toy, [])).toBeNull();
    const unreleased = join(root, 'unreleased');
    await mkdir(unreleased);
    await writeFile(
      join(unreleased, RUN_FILE_NAME.manifest),
      JSON.stringify({ protocol: 'toy-v1' }),
    );
    expect(await viewKindOf(unreleased, [toyKind('toy-v1')])).toBeNull();
  });
});

describe('viewPathSegments', () => {
  it('decodes each segment and refuses malformed or path-like ones', () => {
    expect(viewPathSegments('/')).toEqual([]);
    expect(viewPathSegments('/cell/a%20b/excess%406')).toEqual(['cell', 'a b', 'excess@6']);
    expect(viewPathSegments('/system/x/')).toEqual(['system', 'x']);
    expect(viewPathSegments('/cell/%E0%A4%A')).toBeNull();
    expect(viewPathSegments('/a/..%2F..%2Fetc')).toBeNull();
    expect(viewPathSegments('/a/%2E%2E')).toBeNull();
    expect(viewPathSegments('/a/b%5Cc')).toBeNull();
    expect(viewPathSegments('/a/b%00')).toBeNull();
  });
});

describe('startViewServer and writeViewBundle with a view kind', () => {
  it('serves the kind’s pages behind the one server: GET only, unsafe paths refused', async () => {
    const dir = await release(join(await folder(), 'toy'), 'toy-v1');
    const server = await startViewServer({ dir, kinds: [toyKind('toy-v1')] });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(server.viewed?.release).toBe(dir);
      const get = async (path: string, method = 'GET') => {
        const response = await fetch(new URL(path, server.url), { method });
        return { status: response.status, text: await response.text() };
      };
      expect(await get('/')).toEqual({ status: 200, text: `toy ${dir}` });
      expect(await get('/echo/a%20b')).toEqual({ status: 200, text: 'a b' });
      expect((await get('/nothing')).status).toBe(404);
      expect((await get('/echo/%E0%A4%A')).status).toBe(400);
      expect((await get('/echo/..%2Fsecret')).status).toBe(400);
      expect((await get('/', 'POST')).status).toBe(405);
    } finally {
      await server.close();
    }
  });

  it('writes the kind’s bundle, index.html first, and refuses a path that leaves OUT', async () => {
    const root = await folder();
    const dir = await release(join(root, 'toy'), 'toy-v1');
    const files = new Map([
      ['figures/a.svg', '<svg/>'],
      ['index.html', 'toy'],
    ]);
    const out = join(root, 'out');
    expect(await writeViewBundle(dir, out, { kinds: [toyKind('toy-v1', files)] })).toEqual([
      join(out, 'index.html'),
      join(out, 'figures', 'a.svg'),
    ]);
    expect(await readFile(join(out, 'figures', 'a.svg'), 'utf8')).toBe('<svg/>');
    const unsafe = new Map([
      ['index.html', 'toy'],
      ['../escape.html', 'no'],
    ]);
    await expect(
      writeViewBundle(dir, join(root, 'out2'), { kinds: [toyKind('toy-v1', unsafe)] }),
    ).rejects.toThrow(/unsafe bundle path/);
  });
});
