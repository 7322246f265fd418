// The slots of the decoder's state (`EnvelopeState`, decode.ts), in a module without an import for the
// reason src/framing/split-slots.ts gives: a minified bundle reads them by number.

/** The slots of a `EnvelopeState` (decode.ts), in its order: each names the member at that index. */
export const SINK = 0,
  LAST_SEQ = 1,
  SEQ_SESSION = 2,
  SEQ_LAST = 3,
  SCRATCH_HINTS = 4,
  FACT_SEQ = 5,
  HOP_TURN = 6,
  HOP = 7,
  TOKEN_SESSION = 8,
  TOKEN_TURN = 9,
  TOKEN_HOP = 10,
  DELIVERED = 11,
  OPEN_TURNS = 12,
  TOKEN_MID = 13,
  MID_WORKSPACE = 14,
  MID_SESSION = 15,
  MID_TURN = 16,
  MID_HOP = 17,
  FACT_TS = 18,
  FACT_WORKSPACE = 19,
  FACT_SESSION = 20,
  FACT_TURN = 21,
  FACT_ROUND = 22,
  FACT_PROVENANCE = 23,
  FACT_HINTS = 24;
