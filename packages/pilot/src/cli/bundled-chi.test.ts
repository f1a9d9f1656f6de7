import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeArgsFor } from '../../../../tooling/vitest/child-bundle';
import { chiProcess } from '../__fixtures__/chi-process';
import { captureIo } from '../__fixtures__/cli-io';
import { runCli } from './cli-main';

// The process tests start `chi` from a bundle of its sources made once per vitest run
// (tooling/vitest/child-bundle.ts), not from the sources under tsx. What the bundle could change
// is checked here: a source file still finds its package's files from its own `import.meta.url`
// (the bundle's would be a temporary folder), and an error still names the source file and line.
// The process tests that write releases cover the other such files (the prompts, the packed code
// and the verifier): their releases equal runCli's byte for byte.

describe('the bundled chi of the process tests', () => {
  it('reads its package.json beside the sources, as runCli does', async () => {
    const inProcess = captureIo({ cwd: process.cwd() });
    expect(await runCli(['version'], inProcess.io)).toBe(0);
    const child = await chiProcess(['version']);
    expect(child).toEqual({ code: 0, stdout: inProcess.out(), stderr: '' });
  });

  it('reports an error at the source file and line', async () => {
    const fixture = fileURLToPath(new URL('../__fixtures__/throw-in-source.ts', import.meta.url));
    const child = spawnSync(process.execPath, await nodeArgsFor(fixture), { encoding: 'utf8' });
    expect(child.status).toBe(1);
    expect(child.stderr).toContain('thrown in the source');
    expect(child.stderr).toContain(`${fixture}:3`);
  });

  it('fails with the build error when the bundle cannot be built (no fallback)', async () => {
    const missing = fileURLToPath(new URL('../__fixtures__/no-such-script.ts', import.meta.url));
    await expect(nodeArgsFor(missing)).rejects.toThrow(/no-such-script\.ts/);
  });
});
