// The slots of the decoder's state (`DecoderState`, decode.ts), in a module without an import for the
// reason src/framing/split-slots.ts gives: a minified bundle reads them by number.

/** The slots of a `DecoderState` (decode.ts), in its order: each names the member at that index. */
export const SINK = 0,
  REPORT = 1,
  MAX_DEPTH = 2,
  SESSION = 3,
  SESSION_STARTED = 4,
  RUN_OPEN = 5,
  ROUND = 6,
  MESSAGES = 7,
  CALLS = 8,
  APPROVALS = 9,
  TASKS = 10,
  COMPACTING = 11,
  PENDING = 12,
  LAST_LINE = 13,
  LAST_OFFSET = 14,
  PREVIOUS = 15,
  SHARED = 16;
