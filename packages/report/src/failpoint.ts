import { renameSync, writeFileSync } from 'node:fs';

const hits = new Map<string, number>();

/** The exit code of a thread ended at a failpoint with `CHI_FAILPOINT_ACTION=exit`. */
export const FAILPOINT_EXIT_CODE = 86;

/**
 * A crash-test hook (a "failpoint"). A no-op unless the environment variable `CHI_FAILPOINT` is
 * `<name>:<n>`: then the n-th time the process reaches the point `name` (from 1), it writes the
 * file named by `CHI_FAILPOINT_MARKER` (if set) and waits forever, so a test can `kill -9` it in
 * exactly that state instead of hoping a timer lands there.
 *
 * Points: `pilot:in-flight` (a request logged `before_send`, not yet answered), `release:file`
 * (after each file written into the release's staging folder), `release:before-rename`,
 * `release:between-renames` (the old release moved aside, the new one not yet in place),
 * `release:worker` (a release worker thread started, its task not yet begun; each thread counts
 * its own hits), `verify:spill` (`verifyRelease`'s temporary folder made, nothing yet checked).
 *
 * `CHI_FAILPOINT_ACTION` changes what happens at the point instead of waiting: `exit` ends the
 * thread with {@link FAILPOINT_EXIT_CODE} (`process.exit`: on a worker thread, only that thread),
 * `throw` throws an error outside any task or promise (an uncaught exception of the thread).
 * Both stand for a crash that a test must see become a typed error, not a hang.
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
  if (marker !== undefined && marker !== '') {
    // Written under another name, then renamed: a test that sees the marker exist reads its whole
    // line (written in place, it exists empty between the open and the write).
    writeFileSync(`${marker}.tmp`, `${name}:${count}\n`);
    renameSync(`${marker}.tmp`, marker);
  }
  const action = process.env.CHI_FAILPOINT_ACTION;
  if (action === 'exit') process.exit(FAILPOINT_EXIT_CODE);
  if (action === 'throw')
    setImmediate(() => {
      throw new Error(`failpoint ${name}:${count}: thrown outside any task`);
    });
  await new Promise<never>(() => {
    // Keeps the event loop alive until the test kills the process.
    setInterval(() => {}, 60_000);
  });
}
