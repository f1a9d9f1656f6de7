/** A JSON value as Inspect logs hold it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** An Inspect `EvalLog` (log format version 2), as plain JSON. */
export type InspectEvalLog = JsonObject;
