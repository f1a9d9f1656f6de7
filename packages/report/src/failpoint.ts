import { writeFileSync } from 'node:fs';

const hits = new Map<string, number>();

/**
 * A crash-test hook (a "failpoint"). A no-op unless the environment variable `CHI_FAILPOINT` is
 * `<name>:<n>`: then the n-th time the process reaches the point `name` (from 1), it writes the
 * file named by `CHI_FAILPOINT_MARKER` (if set) and waits forever, so a test can `kill -9` it in
 * exactly that state instead of hoping a timer lands there.
 *
 * Points: `pilot:in-flight` (a request logged `before_send`, not yet answered), `release:file`
 * (after each file written into the release's staging folder), `release:before-rename`,
 * `release:between-renames` (the old release moved aside, the new one not yet in place).
 */
export async function failpoint(name: string): Promise<void> {
  const setting = process.env.CHI_FAILPOINT;
  if (setting === undefined || setting === '') return;
  const at = setting.lastIndexOf(':');
  if (setting.slice(0, at) !== name) return;
  const count = (hits.get(name) ?? 0) + 1;
  hits.set(name, count);
  if (count !== Number(setting.slice(at + 1))) return;
  const marker = process.env.CHI_FAILPOINT_MARKER;
  if (marker !== undefined && marker !== '') writeFileSync(marker, `${name}:${count}\n`);
  await new Promise<never>(() => {
    // Keeps the event loop alive until the test kills the process.
    setInterval(() => {}, 60_000);
  });
}
