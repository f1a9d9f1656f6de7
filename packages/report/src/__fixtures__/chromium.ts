import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type BrowserContext, chromium } from 'playwright-core';
import { expect } from 'vitest';
import { tempDir } from './temp-dir';

/** Debian's chromium (CI installs it); never a downloaded browser. */
export const CHROMIUM = '/usr/bin/chromium';

/** A running headless Chromium and the one way to stop it that leaves nothing behind. */
export interface ChromiumSession {
  /** The browser's (persistent) context: open pages with `context.newPage()`. */
  readonly context: BrowserContext;
  /** The browser's profile folder, removed by {@link close}. */
  readonly profile: string;
  /** Chromium's own `TMPDIR` (a short folder under {@link SHORT_TEMP_ROOT}), removed by {@link close}. */
  readonly temp: string;
  /**
   * Closes the browser, waits until every Chromium process of this session has exited, then
   * removes what Chromium left in `$TMPDIR` and the profile. Safe to call twice.
   */
  close(): Promise<void>;
}

/** The environment variable that marks a session's processes (its value: the profile folder). */
export const SESSION_MARK = 'CHI_CHROMIUM_SESSION';

/**
 * Where each session's Chromium gets its own `TMPDIR`: Chromium's singleton socket lives there
 * (`<TMPDIR>/org.chromium.Chromium.XXXXXX/SingletonSocket`), and a Unix socket path has at most
 * 107 bytes. The test's own `TMPDIR` (a per-file folder inside the run's folder) left exactly 107
 * bytes for one test file's name with the default `/tmp`, and none for a longer `TMPDIR`.
 */
export const SHORT_TEMP_ROOT = '/tmp';

/** The names of Chromium's own temporary files and folders in `$TMPDIR`. */
const CHROMIUM_TEMP = /^\.?org\.chromium\.Chromium\./;

/** How long {@link settleChromium} waits for Chromium's processes: a hang guard only. */
const EXIT_GUARD_MS = 120_000;

/**
 * Launches headless Chromium with a fresh profile; fails (never skips) when the browser is
 * missing. The flags keep it off the network this machine does not have.
 *
 * Chromium writes temporary files of its own (`org.chromium.Chromium.*`,
 * `.org.chromium.Chromium.*`) into `$TMPDIR`, and its helper processes may still be running, and
 * writing, for a while after the browser process has exited, which is all `context.close()` waits
 * for. So every process of the session carries {@link SESSION_MARK} in its environment, and
 * {@link ChromiumSession.close} returns only after {@link settleChromium}: however loaded the
 * machine is, nothing of Chromium's reaches the test file's leak check. Chromium's `$TMPDIR` is a
 * short folder of the session's own ({@link SHORT_TEMP_ROOT}), whatever the test's is.
 */
export async function launchChromium(viewport: {
  width: number;
  height: number;
}): Promise<ChromiumSession> {
  expect(
    existsSync(CHROMIUM),
    `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) to run the browser tests`,
  ).toBe(true);
  const temp = await mkdtemp(join(SHORT_TEMP_ROOT, 'chi-cr-'));
  const profileDir = await tempDir('chromium');
  const profile = profileDir.path;
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport,
      env: { ...process.env, TMPDIR: temp, [SESSION_MARK]: profile },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    await profileDir.remove();
    throw error;
  }
  let closed: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    await context.close();
    await settleChromium(profile, temp, new Set());
    await rm(temp, { recursive: true, force: true });
    await profileDir.remove();
  };
  return {
    context,
    profile,
    temp,
    close: () => {
      closed ??= close();
      return closed;
    },
  };
}

/** The PIDs of this user's processes whose environment sets {@link SESSION_MARK} to `mark`. */
export async function markedProcesses(mark: string): Promise<number[]> {
  const wanted = `\0${SESSION_MARK}=${mark}\0`;
  const found: number[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    // A process of another user, one that has just exited, or a zombie reads as nothing.
    const environ = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
    if (`\0${environ}`.includes(wanted)) found.push(Number(pid));
  }
  return found;
}

/**
 * Waits until no process marked `mark` is left, then removes Chromium's temporary files and
 * folders in `temp` that were not there before the session (`before`). `onWait` is told each time
 * it finds processes still running (its test uses it to let a stand-in process finish).
 */
export async function settleChromium(
  mark: string,
  temp: string,
  before: ReadonlySet<string>,
  onWait?: (running: readonly number[]) => void,
): Promise<void> {
  const deadline = Date.now() + EXIT_GUARD_MS;
  for (let left = await markedProcesses(mark); left.length > 0; left = await markedProcesses(mark)) {
    onWait?.(left);
    if (Date.now() > deadline)
      throw new Error(
        `Chromium processes ${left.join(', ')} were still running ${EXIT_GUARD_MS / 1000} s after the browser closed`,
      );
    await sleep(50);
  }
  for (const name of await chromiumTemp(temp))
    if (!before.has(name)) await rm(join(temp, name), { recursive: true, force: true });
}

async function chromiumTemp(temp: string): Promise<string[]> {
  return (await readdir(temp)).filter((name) => CHROMIUM_TEMP.test(name));
}
