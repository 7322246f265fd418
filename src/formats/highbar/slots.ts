// The slots of the decoder's state (`HighbarDecoder`, decode.ts), in a module without an import for the
// reason src/framing/split-slots.ts gives: a minified bundle reads them by number.

/** The slots of a `HighbarDecoder` (decode.ts), in its order: each names the member at that index. */
export const SINK = 0,
  REPORT = 1,
  MAX_DEPTH = 2,
  RUN_OPEN = 3,
  TEXT = 4,
  LINE = 5,
  OFFSET = 6,
  HINTS = 7,
  OUT = 8,
  RUN_CONTEXT = 9;
