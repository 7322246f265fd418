// The slots of a `RunSpan` (src/run-span.ts), in a module without an import for the reason
// src/framing/split-slots.ts gives: a minified bundle reads them by number.

/** The slot of a `RunSpan` that says whether a cut-off run merges with the next. */
export const SPAN_MERGES = 0;
/** The slot of a `RunSpan` that holds the main-lane run end that said incomplete. */
export const SPAN_CUT = 1;
/** The slot of a `RunSpan` that says whether the open run has written a byte. */
export const SPAN_WROTE = 2;
