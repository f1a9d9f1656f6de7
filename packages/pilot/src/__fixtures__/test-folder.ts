import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/**
 * A fresh temporary folder for the running test, removed when the test finishes (passed or
 * failed). Call it inside a test; a folder shared by a file's tests is made in `beforeAll` and
 * removed in `afterAll` instead.
 */
export function testFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}
