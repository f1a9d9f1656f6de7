import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killLeftChildren, runNode, startNode } from '../../tooling/vitest/child-process';

// tooling/vitest/child-process.ts, the one way the tests of every package start a node child:
// every wait is for an event (output, a marker file, the exit), and each fails at once, naming
// the child's stderr, when the child exits first. The children here are `node -e` scripts that
// act only when told to (a line on their stdin never comes: they wait for a signal).
const folder = mkdtempSync(join(tmpdir(), 'chi-child-process-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A child that runs `code`, then waits until it is killed. */
const waiting = (code: string) => ['-e', `${code}; setInterval(() => {}, 1 << 30);`];

describe('startNode', () => {
  it('waits for a marker file the child writes by rename, then stops the child', async () => {
    const marker = join(folder, 'marker');
    const child = startNode(
      waiting(
        `const fs = require('node:fs'); fs.writeFileSync(${JSON.stringify(`${marker}.tmp`)}, 'here\\n'); fs.renameSync(${JSON.stringify(`${marker}.tmp`)}, ${JSON.stringify(marker)})`,
      ),
    );
    await child.untilFile(marker);
    expect(await child.stop('SIGTERM')).toBe('SIGTERM');
    rmSync(marker);
  });

  it('fails a wait at once, with the stderr, when the child exits first', async () => {
    const child = startNode(['-e', "process.stderr.write('no marker today'); process.exit(3)"]);
    await expect(child.untilFile(join(folder, 'never'))).rejects.toThrow(
      /exited \(3\) before .*never appeared; its stderr:\nno marker today/,
    );
    await expect(child.until('stdout', 'ready')).rejects.toThrow(/exited \(3\)/);
    expect(await child.firstOf(new Promise(() => undefined))).toBe('exit');
  });

  it('waits for a line of output, then the exit', async () => {
    const child = startNode(waiting("process.stdout.write('ready\\n')"));
    await child.until('stdout', (text) => text.endsWith('ready\n'));
    expect(child.stdout()).toBe('ready\n');
    expect(await child.stop()).toBe('SIGKILL');
  });

  it('never hands the child a provider key, and sets NO_COLOR', async () => {
    // set for this one test and restored in it: no other test of this worker runs meanwhile
    const before = process.env.OPENROUTER_API_KEY;
    process.env.OPENROUTER_API_KEY = 'sk-or-test-not-a-key';
    try {
      const result = await runNode(
        [
          '-e',
          'process.stdout.write(JSON.stringify([process.env.OPENROUTER_API_KEY ?? null, process.env.NO_COLOR, process.env.CHI_X]))',
        ],
        { env: { CHI_X: 'y' } },
      );
      expect(result).toEqual({ exit: 0, stdout: JSON.stringify([null, '1', 'y']), stderr: '' });
    } finally {
      if (before === undefined) delete process.env.OPENROUTER_API_KEY;
      else process.env.OPENROUTER_API_KEY = before;
    }
  });
});

describe('killLeftChildren', () => {
  it('kills a child a test left running and counts it', async () => {
    const child = startNode(waiting(''));
    expect(await killLeftChildren()).toBe(1);
    expect(await child.exit).toBe('SIGKILL');
    expect(await killLeftChildren()).toBe(0);
  });
});
