// The whole-string comparison `verifyRelease` made before it compared files streamed (moved here
// verbatim from verify-release.ts): the oracle of the property test that the streamed comparison
// (`compareReleaseFile`) reports exactly the same mismatches. Test-only; nothing else imports it.
// It shares `diffJson` (the value-by-value diff of a differing `.json` file, unchanged by the
// streaming and tested on its own) with the code under test; what it pins is how files are split
// into lines and rows and which differences are reported.
import { diffJson } from '../verify/compare-release-file';
import { parseCsv } from '../release/csv';
import type { VerifyMismatch } from '../verify/verify-mismatch';

const MAX_PER_FILE = 50;

const SHOW_CHARS = 200;

function show(value: unknown): string {
  const text = value === undefined ? '(absent)' : JSON.stringify(value);
  return text.length > SHOW_CHARS
    ? `${text.slice(0, SHOW_CHARS)}… (${text.length} characters)`
    : text;
}

export function compareFile(file: string, recorded: string, recomputed: string): VerifyMismatch[] {
  if (recorded === recomputed) return [];
  const value = (
    at: string | null,
    a: string | null,
    b: string | null,
    what: string,
  ): VerifyMismatch => ({
    file,
    kind: 'value',
    at,
    recorded: a,
    recomputed: b,
    message: `${file}${at === null ? '' : ` at ${at}`}: ${what}`,
  });
  // one difference of two JSON values, as the JSON and JSONL comparisons both report it
  const jsonValue = (d: ReturnType<typeof diffJson>[number]): VerifyMismatch =>
    value(d.at, d.recorded, d.recomputed, `recorded ${d.recorded}, recomputed ${d.recomputed}`);
  const out: VerifyMismatch[] = [];
  try {
    if (file.endsWith('.json')) {
      for (const d of diffJson(JSON.parse(recorded) as unknown, JSON.parse(recomputed) as unknown))
        out.push(jsonValue(d));
    } else if (file.endsWith('.jsonl')) {
      const a = recorded.split('\n').filter((l) => l !== '');
      const b = recomputed.split('\n').filter((l) => l !== '');
      for (let i = 0; i < Math.max(a.length, b.length); i++) {
        const left = a[i] === undefined ? undefined : (JSON.parse(a[i] as string) as unknown);
        const right = b[i] === undefined ? undefined : (JSON.parse(b[i] as string) as unknown);
        for (const d of diffJson(left, right, `line ${i + 1}`)) out.push(jsonValue(d));
      }
    } else if (file.endsWith('.csv')) {
      const a = parseCsv(recorded);
      const b = parseCsv(recomputed);
      const header = b[0] ?? [];
      for (let r = 0; r < Math.max(a.length, b.length); r++) {
        for (let c = 0; c < Math.max(a[r]?.length ?? 0, b[r]?.length ?? 0); c++) {
          const x = a[r]?.[c];
          const y = b[r]?.[c];
          if (x !== y)
            out.push(
              value(
                `row ${r}, column ${header[c] ?? c}`,
                show(x),
                show(y),
                `recorded ${show(x)}, recomputed ${show(y)}`,
              ),
            );
        }
      }
    }
  } catch (error) {
    out.push(value(null, null, null, `unparseable: ${(error as Error).message}`));
  }
  if (out.length === 0) {
    // text (report.md, report.html, SVG, README): name the first differing lines
    const a = recorded.split('\n');
    const b = recomputed.split('\n');
    for (let i = 0; i < Math.max(a.length, b.length) && out.length < MAX_PER_FILE; i++) {
      if (a[i] !== b[i])
        out.push(
          value(
            `line ${i + 1}`,
            show(clip(a[i])),
            show(clip(b[i])),
            `line ${i + 1} differs: recorded ${show(clip(a[i]))}, recomputed ${show(clip(b[i]))}`,
          ),
        );
    }
  }
  if (out.length > MAX_PER_FILE) {
    const more = out.length - MAX_PER_FILE;
    return [
      ...out.slice(0, MAX_PER_FILE),
      value(null, null, null, `… and ${more} more differences`),
    ];
  }
  return out;
}

function clip(text: string | undefined): string | undefined {
  return text === undefined || text.length <= 160 ? text : `${text.slice(0, 160)}…`;
}
