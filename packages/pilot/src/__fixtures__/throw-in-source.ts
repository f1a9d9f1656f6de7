// A child of bundled-chi.test.ts, started from the run's bundle (`nodeArgsFor`): the error below
// must be reported at this file and line, not at the bundle's.
throw new Error('thrown in the source');
