import { z } from 'zod';

// The rows of chart-data.json that the report computes from the run's records (the attempt log's
// usage and the stored requests) rather than from the scores: their schemas live here with the
// rest of `ChartDataSchema`, the functions that fill them with the run folder's reader in
// `@chi/report`.

/** A per-world quantity summarized over the worlds of a cell: mean, smallest and largest. */
export const WorldSpreadSchema = z.strictObject({
  mean: z.number().min(0),
  min: z.number().min(0),
  max: z.number().min(0),
});
/** A per-world quantity summarized over the worlds of a cell. */
export type WorldSpread = z.infer<typeof WorldSpreadSchema>;

/**
 * Bytes stored by a system that keeps its own memory (issue 36), at one system, experiment, load
 * and condition: the system's own count, read from its instance-control export at the end of each
 * instance's trajectory and recorded on that session's `after_response` (`bytesStored`).
 */
export const BytesStoredRowSchema = z.strictObject({
  systemId: z.string().min(1),
  experiment: z.string().min(1),
  /** The memory load of the instances' block; null outside memory and controls. */
  load: z.int().min(1).nullable(),
  /** The memory condition of the instances (`notebook`, `replay`, `blank`, `oracle`); else null. */
  condition: z.string().min(1).nullable(),
  /** Instances whose bytes were recorded. */
  instances: z.int().min(1),
  /** Over those instances: mean, smallest and largest bytes stored. */
  bytesStored: WorldSpreadSchema,
});
/** Bytes stored by a system that keeps its own memory, over the instances of one cell. */
export type BytesStoredRow = z.infer<typeof BytesStoredRowSchema>;

/**
 * The storage and replay costs of the transcript-replay baseline at one system and load, beside
 * the notebook condition's, over the worlds whose memory block is complete for the system (the
 * worlds of the `replay` cell). Q_M of both conditions, with intervals, is in `memory`.
 */
export const TranscriptReplayRowSchema = z.strictObject({
  systemId: z.string().min(1),
  load: z.int().min(1),
  /** Worlds the row summarizes (complete memory blocks of this system and load). */
  worldSeeds: z.array(z.int().min(0)),
  /** UTF-8 bytes of the kept notebook (after the cap) per world. */
  notebookStoredBytes: WorldSpreadSchema,
  /**
   * UTF-8 bytes of the stored transcript per world: `JSON.stringify` of the encode request's
   * messages followed by the encode reply as an assistant message, uncapped.
   */
  transcriptStoredBytes: WorldSpreadSchema,
  /** UTF-8 input bytes of the notebook condition's probe requests per world (as sent). */
  notebookProbeInputBytes: WorldSpreadSchema,
  /** UTF-8 input bytes of the replay probe requests per world: the transcript replayed, as sent. */
  replayProbeInputBytes: WorldSpreadSchema,
  /**
   * Input tokens of the replay probe requests per world as the endpoint counted them; null when
   * any of them carries no token count (scripted systems never do: read the bytes instead).
   */
  replayProbeInputTokens: WorldSpreadSchema.nullable(),
  /** Input tokens of the notebook probe requests per world; null when any is uncounted. */
  notebookProbeInputTokens: WorldSpreadSchema.nullable(),
});
/** The storage and replay costs of the transcript-replay baseline at one system and load. */
export type TranscriptReplayRow = z.infer<typeof TranscriptReplayRowSchema>;

/**
 * What a memory load shows a system (issue 31, "claims no larger than the evidence"): per load,
 * the UTF-8 bytes of the encode request's messages (the corpus as the encode prompt shows it,
 * with the prompt's instructions) over every world and system, and the prompt tokens the
 * endpoint reported for those requests (null when none reported: scripted systems report none).
 */
export const CorpusRowSchema = z.strictObject({
  load: z.int().min(1),
  /** Encode requests sent at this load (every system x world). */
  requests: z.int().min(0),
  bytesMin: z.int().min(0),
  bytesMean: z.number().min(0),
  bytesMax: z.int().min(0),
  /** Mean prompt tokens over the encode requests whose usage reported them; null when none did. */
  reportedPromptTokensMean: z.number().min(0).nullable(),
  /** Encode requests whose usage reported prompt tokens. */
  requestsWithTokens: z.int().min(0),
});
/** One load's corpus size. */
export type CorpusRow = z.infer<typeof CorpusRowSchema>;
