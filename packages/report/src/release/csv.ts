/** A CSV cell value. */
export type CsvCell = string | number | boolean | null;

function field(value: CsvCell): string {
  if (value === null) return '';
  const text = typeof value === 'string' ? value : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * RFC 4180 CSV: a header line, one line per row in the given column order, CRLF-free (`\n`)
 * line ends, fields quoted only when they hold a comma, quote or line break. `null` is an empty
 * field; numbers use JavaScript's shortest round-trip form, so the CSV and the JSON agree.
 *
 * @example
 * ```ts
 * toCsv(['a', 'b'], [{ a: 1, b: 'x,y' }]); // 'a,b\n1,"x,y"\n'
 * ```
 */
export function toCsv(
  columns: readonly string[],
  rows: readonly Readonly<Record<string, CsvCell>>[],
): string {
  const lines = [csvHeader(columns)];
  for (const row of rows) lines.push(csvLine(columns, row));
  return `${lines.join('\n')}\n`;
}

/** The header line of {@link toCsv}, without its line end. */
export function csvHeader(columns: readonly string[]): string {
  return columns.map(field).join(',');
}

/**
 * One row's line of {@link toCsv}, without its line end: a table written a row at a time is
 * `csvHeader(columns)` and then `csvLine(columns, row)` for each row, each followed by `\n`.
 */
export function csvLine(
  columns: readonly string[],
  row: Readonly<Record<string, CsvCell>>,
): string {
  return columns.map((column) => field(row[column] ?? null)).join(',');
}

/** Parses CSV written by {@link toCsv} (and any RFC 4180 text) into rows of strings. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else if (c !== '\r') cell += c;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}
