import { stat } from 'node:fs/promises';
import { canonicalJson } from '../canonical-json';
import { type VerifyReleaseOptions, verifyRelease } from './verify-release';

/** Where the CLI writes; defaults to the process streams. */
export interface VerifyCliIo {
  /** Receives the OK line and the `--json` report. */
  readonly stdout?: (text: string) => void;
  /** Receives every mismatch, the summary line and usage errors. */
  readonly stderr?: (text: string) => void;
}

const USAGE = 'usage: chi verify RELEASE_DIR [--json]\n';

/**
 * `chi verify RELEASE_DIR [--json]`: verifies a release and prints every mismatch (file, place,
 * recorded and recomputed value), or a one-line OK. `argv` is what follows `verify`. Resolves to
 * the exit code: 0 all checks passed, 1 a mismatch was found, 2 usage error. Never calls
 * `process.exit`, so the pilot's `chi` dispatcher decides. `options` go to `verifyRelease` (the
 * release kinds of other protocols, `kinds`, which the `chi` CLI passes).
 *
 * @example
 * ```ts
 * process.exitCode = await runVerifyCli(process.argv.slice(3));
 * ```
 */
export async function runVerifyCli(
  argv: readonly string[],
  io: VerifyCliIo = {},
  options: VerifyReleaseOptions = {},
): Promise<number> {
  const out = io.stdout ?? ((text: string) => process.stdout.write(text));
  const err = io.stderr ?? ((text: string) => process.stderr.write(text));
  const json = argv.includes('--json');
  const positional = argv.filter((a) => a !== '--json');
  const unknown = positional.filter((a) => a.startsWith('-'));
  if (argv.includes('--help') || argv.includes('-h')) {
    out(USAGE);
    return 0;
  }
  if (unknown.length > 0 || positional.length !== 1) {
    err(
      `${unknown.length > 0 ? `unknown option ${unknown[0]}\n` : 'expected exactly one RELEASE_DIR\n'}${USAGE}`,
    );
    return 2;
  }
  const dir = positional[0] as string;
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) {
    err(`chi verify: ${dir} is not a directory\n${USAGE}`);
    return 2;
  }
  const report = await verifyRelease(dir, options);
  if (json) {
    out(`${canonicalJson(report)}\n`);
  } else if (report.ok) {
    out(
      `OK: ${report.checkedFiles} files match SHA256SUMS; ${report.recomputedFiles} derived files recomputed from the raw responses match exactly.\n`,
    );
  } else {
    if (report.versionNote !== null) err(`NOTE ${report.versionNote}\n`);
    for (const m of report.mismatches) err(`MISMATCH ${m.message}\n`);
    const files = [...new Set(report.mismatches.map((m) => m.file))];
    err(
      `FAILED: ${report.mismatches.length} mismatch(es) in ${files.length} file(s): ${files.join(', ')}\n`,
    );
  }
  return report.ok ? 0 : 1;
}
