/** A clock for whole-run tests: starts at `startIso` and moves one second per reading. */
export function fixedClock(startIso: string): () => Date {
  let ms = Date.parse(startIso);
  return () => {
    ms += 1000;
    return new Date(ms);
  };
}
