// The slots of the decoder's state (`Decoder`, decode.ts), in a module without an import for the
// reason src/framing/split-slots.ts gives: a minified bundle reads them by number.

/** The slots of a `Decoder` (decode.ts), in its order: each names the member at that index. */
export const SINK = 0,
  REPORT = 1,
  MAX_DEPTH = 2,
  MODE = 3,
  RUN = 4,
  RUN_OPEN = 5,
  FAILED = 6,
  ROUND = 7,
  STEP_OPEN = 8,
  STEP_TEXT = 9,
  NAMES = 10,
  HELD = 11,
  SAID_ERROR = 12,
  BEFORE = 13,
  LAST_LINE = 14,
  LAST_OFFSET = 15;
