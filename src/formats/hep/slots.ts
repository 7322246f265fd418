// The slots of the decoder's state (`HepDecoder`, decode.ts), in a module without an import for the
// reason src/framing/split-slots.ts gives: a minified bundle reads them by number.

/** The slots of a `HepDecoder` (decode.ts), in its order: each names the member at that index. */
export const SINK = 0,
  REPORT = 1,
  MAX_DEPTH = 2,
  LIVE = 3,
  SAW_FIRST = 4,
  SESSION = 5,
  RUN_OPEN = 6,
  ANSWER = 7,
  STOP_REASON = 8,
  USAGE = 9,
  LAST_LINE = 10,
  LAST_OFFSET = 11,
  TEXT = 12,
  LINE = 13,
  OFFSET = 14,
  OUT = 15,
  REST = 16,
  NESTED_EXACT = 17,
  ROUND_OPEN = 18;
