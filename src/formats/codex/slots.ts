// The slots of the decoder's state (`Decoder`, decode.ts), in a module without an import for the
// reason src/framing/split-slots.ts gives: a minified bundle reads them by number.

/** The slots of a `Decoder` (decode.ts), in its order: each names the member at that index. */
export const SINK = 0,
  REPORT = 1,
  MAX_DEPTH = 2,
  THREAD = 3,
  TOTALS = 4,
  RUN_OPEN = 5,
  ANSWER = 6,
  FINAL_ANSWER = 7,
  ROUND_TOOLS = 8,
  ROUND_TEXT = 9,
  TEXTS = 10,
  CALLS = 11,
  CHILDREN = 12,
  ENDED = 13,
  LEGACY = 14,
  LAST_LINE = 15,
  LAST_OFFSET = 16,
  SHORTCUT = 17;
