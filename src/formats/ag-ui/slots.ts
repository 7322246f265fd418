// The slots of the decoder's state (`Decoder`, decode.ts), in a module without an import for the
// reason src/framing/split-slots.ts gives: a minified bundle reads them by number.

/** The slots of a `Decoder` (decode.ts), in its order: each names the member at that index. */
export const SINK = 0,
  REPORT = 1,
  MAX_DEPTH = 2,
  MODE = 3,
  SESSION = 4,
  RUN = 5,
  RUN_OPEN = 6,
  ROUND = 7,
  STEP_OPEN = 8,
  STEP_TEXT = 9,
  NAMES = 10,
  ARGS = 11,
  OTHER_ROLES = 12,
  QUESTIONS = 13,
  ASKED = 14,
  OPEN = 15,
  BEFORE = 16,
  PARENTS = 17,
  HELD = 18,
  LAST_CHUNK_CALL = 19,
  LAST_LINE = 20,
  LAST_OFFSET = 21,
  LAST_TS = 22;
