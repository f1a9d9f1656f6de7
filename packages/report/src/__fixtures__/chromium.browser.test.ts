import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchChromium, markedProcesses, SESSION_MARK, settleChromium } from './chromium';

const chromiumEntries = async (folder = tmpdir()): Promise<string[]> =>
  (await readdir(folder)).filter((name) => name.includes('org.chromium.Chromium'));

// The browser tests' fixture must leave nothing behind however loaded the machine is (CI once
// failed a browser test file on a `.org.chromium.Chromium.*` file its Chromium left in $TMPDIR).
describe('launchChromium', () => {
  it('marks every Chromium process of the session, and close() leaves no process and no file', async () => {
    const session = await launchChromium({ width: 400, height: 300 });
    try {
      const page = await session.context.newPage();
      await page.setContent('<p>hello</p>');
      expect(await page.textContent('p')).toBe('hello');
      // The browser and its helper processes carry the mark, so close() can wait for them all.
      expect((await markedProcesses(session.profile)).length).toBeGreaterThan(1);
      // Chromium's temporary files go to the session's own short TMPDIR, not the test's
      expect(await chromiumEntries(session.temp)).not.toEqual([]);
      expect(await chromiumEntries()).toEqual([]);
      await page.close();
    } finally {
      await session.close();
    }
    expect(await markedProcesses(session.profile)).toEqual([]);
    expect(await chromiumEntries()).toEqual([]);
    expect(existsSync(session.profile)).toBe(false);
    expect(existsSync(session.temp)).toBe(false);
    await session.close();
  });

  it('starts under a 100-character TMPDIR (its singleton socket path stays under 108 bytes)', async () => {
    // With the default /tmp, a test file's TMPDIR left Chromium's socket path
    // (`$TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket`) at exactly the 107-byte limit; a
    // longer TMPDIR made Chromium exit with "Socket path too long" before the first page.
    const previous = process.env.TMPDIR;
    const base = tmpdir();
    const long = join(base, 'x'.repeat(100 - base.length - 1));
    expect(long).toHaveLength(100);
    await mkdir(long);
    process.env.TMPDIR = long;
    try {
      const session = await launchChromium({ width: 400, height: 300 });
      try {
        const page = await session.context.newPage();
        await page.setContent('<p>long</p>');
        expect(await page.textContent('p')).toBe('long');
        await page.close();
      } finally {
        await session.close();
      }
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
      await rm(long, { recursive: true, force: true });
    }
  });

  it('settleChromium waits for a straggling helper that writes a temporary file as it exits', async () => {
    // A stand-in for a Chromium helper that outlives the browser process: it carries the mark,
    // and when its stdin closes it writes a Chromium-named file into $TMPDIR, then exits. Its
    // stdin closes once settleChromium has seen it running, or else after settleChromium has
    // returned: a cleanup that did not wait for it returns first and leaves the file behind.
    const mark = join(tmpdir(), 'straggler-mark');
    const file = join(tmpdir(), '.org.chromium.Chromium.straggler');
    const helper = spawn(
      process.execPath,
      ['-e', `process.stdin.resume().on('end', () => require('node:fs').writeFileSync(${JSON.stringify(file)}, 'x'))`],
      { env: { ...process.env, [SESSION_MARK]: mark }, stdio: ['pipe', 'ignore', 'inherit'] },
    );
    const exited = new Promise((resolve) => helper.once('exit', resolve));
    await new Promise((resolve) => helper.once('spawn', resolve));
    expect(await markedProcesses(mark)).toEqual([helper.pid]);
    const seen: number[][] = [];
    await settleChromium(mark, tmpdir(), new Set(), (running) => {
      seen.push([...running]);
      helper.stdin.end();
    });
    helper.stdin.end();
    expect(await exited).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect(seen[0]).toEqual([helper.pid]);
    expect(await markedProcesses(mark)).toEqual([]);
  });
});
