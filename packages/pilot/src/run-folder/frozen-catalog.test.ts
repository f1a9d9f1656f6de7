import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelCatalog, RunManifest } from '@chi/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../__fixtures__/cli-io';
import { fakeOpenRouter } from '../__fixtures__/fake-openrouter';
import { runCli } from '../cli/cli-main';
import { catalogSha256 } from './frozen-catalog';

// The catalog prices every reservation of a live OpenRouter run reads are frozen in the manifest
// (issue #33 item 2): a resume with the catalog deleted or its prices lowered would reserve at
// other prices and could charge past the ceiling.

const KEY = 'sk-or-v1-test-secret-0123456789';
let root: string;
let runDir: string;
let pristine: string;
let fake: ReturnType<typeof fakeOpenRouter>;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chi-frozen-catalog-'));
  runDir = join(root, 'run');
  fake = fakeOpenRouter({ answerWith: 'capacity-keeper', costUsd: 0.1 });
  const cli = captureIo({ cwd: root, env: { OPENROUTER_API_KEY: KEY }, fetch: fake.fetch });
  // stopped at its ceiling with requests left to send: a folder a resume would go on with
  const args = ['pilot', '--models', 'moonshotai/kimi-k3@moonshotai/mxfp4', '--replicates', '1'];
  const small = ['--loads', '32', '--no-history', '--no-behavior', '--no-release'];
  const stop = ['--ceiling-usd', '0.3', '--concurrency', '1', '--out', runDir];
  expect(await runCli([...args, ...small, ...stop], cli.io)).toBe(3);
  pristine = join(root, 'catalog.pristine.json');
  copyFileSync(join(runDir, 'catalog.json'), pristine);
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function resume(): Promise<{ code: number; err: string; sent: number }> {
  const before = fake.completions();
  const cli = captureIo({ cwd: root, env: { OPENROUTER_API_KEY: KEY }, fetch: fake.fetch });
  const code = await runCli(['pilot', '--resume', runDir, '--no-release'], cli.io);
  return { code, err: cli.err(), sent: fake.completions() - before };
}

describe('the catalog frozen in the manifest', () => {
  it('is hashed into manifest.catalogSha256 before the first request', () => {
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
    const catalog = JSON.parse(readFileSync(pristine, 'utf8')) as ModelCatalog;
    expect(manifest.catalogSha256).toBe(catalogSha256(catalog));
  });

  it('a resume with catalog.json deleted is exit 5 naming it, and sends nothing', async () => {
    rmSync(join(runDir, 'catalog.json'));
    const result = await resume();
    copyFileSync(pristine, join(runDir, 'catalog.json'));
    expect(result.code).toBe(5);
    expect(result.err).toContain(`${join(runDir, 'catalog.json')}: it is missing`);
    expect(result.sent).toBe(0);
  });

  it('a resume with the catalog prices lowered is exit 5 naming it, and sends nothing', async () => {
    const catalog = JSON.parse(readFileSync(pristine, 'utf8')) as ModelCatalog;
    const cheap = { inputUsdPerToken: 0, outputUsdPerToken: 0, requestUsd: 0 };
    const lowered = {
      ...catalog,
      models: catalog.models.map((model) => ({
        ...model,
        price: cheap,
        endpoints: model.endpoints.map((endpoint) => ({ ...endpoint, price: cheap })),
      })),
    };
    writeFileSync(join(runDir, 'catalog.json'), JSON.stringify(lowered, null, 2));
    const result = await resume();
    copyFileSync(pristine, join(runDir, 'catalog.json'));
    expect(result.code).toBe(5);
    expect(result.err).toContain(`${join(runDir, 'catalog.json')}: its SHA-256`);
    expect(result.err).toContain('manifest.catalogSha256');
    expect(result.sent).toBe(0);
  });

  it('a resume with a changed quantization or provider list is exit 5 too', async () => {
    const catalog = JSON.parse(readFileSync(pristine, 'utf8')) as ModelCatalog;
    const edited = {
      ...catalog,
      models: catalog.models.map((model) => ({
        ...model,
        endpoints: model.endpoints.map((endpoint) => ({ ...endpoint, quantization: 'fp16' })),
      })),
    };
    writeFileSync(join(runDir, 'catalog.json'), JSON.stringify(edited));
    const result = await resume();
    copyFileSync(pristine, join(runDir, 'catalog.json'));
    expect(result.code).toBe(5);
    expect(result.sent).toBe(0);
  });

  it('the same catalog, whitespace aside, resumes', async () => {
    const catalog = JSON.parse(readFileSync(pristine, 'utf8')) as unknown;
    writeFileSync(join(runDir, 'catalog.json'), JSON.stringify(catalog));
    const result = await resume();
    copyFileSync(pristine, join(runDir, 'catalog.json'));
    // stopped at its ceiling again (the ledger keeps the stop): not a damaged folder
    expect(result.code).toBe(3);
  });
});
