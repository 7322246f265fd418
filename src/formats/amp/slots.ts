// The slots of the decoder's state (`Decoder`, decode.ts), in a module without an import for the
// reason src/framing/split-slots.ts gives: a minified bundle reads them by number.

/** The slots of a `Decoder` (decode.ts), in its order: each names the member at that index. */
export const SINK = 0,
  REPORT = 1,
  MAX_DEPTH = 2,
  SESSION = 3,
  LEGACY = 4,
  RUN_OPEN = 5,
  ROUND = 6,
  RUN_USAGE = 7,
  OPEN_ROUND = 8,
  ROUND_GAP = 9,
  TOOL_NAMES = 10,
  LANES = 11,
  LAST_LINE = 12,
  LAST_OFFSET = 13;
