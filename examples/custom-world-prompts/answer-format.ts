/**
 * Converts the author's answer lines (`id,value,from` or `id,UNKNOWN`) into the JSON answer set
 * that `@chi/scoring`'s `parseProbeReply` reads. The conversion never guesses: a line it cannot
 * read is dropped and reported, so that question counts as missing (a failure), exactly as a
 * malformed JSON answer would.
 */

/** One answer in the shape `parseProbeReply` expects. */
export interface ProbeAnswerJson {
  readonly id: string;
  readonly value: string | null;
  readonly source: string | null;
}

/** The converted reply and every line that could not be read. */
export interface ConvertedReply {
  /** JSON text to hand to `parseProbeReply`. */
  readonly json: string;
  readonly unreadableLines: readonly string[];
}

export function convertAnswerLines(reply: string, requestedIds: readonly string[]): ConvertedReply {
  const requested = new Set(requestedIds);
  const answers: ProbeAnswerJson[] = [];
  const unreadableLines: string[] = [];
  for (const raw of reply.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const fields = line.split(',').map((field) => field.trim());
    const [id, value, source] = fields;
    if (id === undefined || !requested.has(id)) {
      unreadableLines.push(line); // prose, or an ID nobody asked about
    } else if (fields.length === 2 && value === 'UNKNOWN') {
      answers.push({ id, value: null, source: null }); // explicit abstention
    } else if (fields.length === 3 && value !== '' && source !== '') {
      answers.push({ id, value: value ?? null, source: source ?? null });
    } else {
      unreadableLines.push(line);
    }
  }
  // A repeated ID stays repeated: the scorer fails every copy (a duplicate is never resolved by
  // picking one).
  return { json: JSON.stringify(answers), unreadableLines };
}
