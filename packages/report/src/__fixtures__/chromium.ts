import { existsSync } from 'node:fs';
import { type BrowserContext, chromium } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's chromium (CI installs it); never a downloaded browser. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Launches headless Chromium with a fresh profile in `userDataDir`; fails (never skips) when the
 * browser is missing. The flags keep it off the network this machine does not have.
 */
export function launchChromium(
  userDataDir: string,
  viewport: { width: number; height: number },
): Promise<BrowserContext> {
  expect(
    existsSync(CHROMIUM),
    `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) to run the browser tests`,
  ).toBe(true);
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
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
}
