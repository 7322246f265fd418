// The slots of the decoder's state (`Decoder`, decode.ts), in a module without an import for the
// reason src/framing/split-slots.ts gives: a minified bundle reads them by number.

/** The slots of a `Decoder` (decode.ts), in its order: each names the member at that index. */
export const AT = 0,
  KNOWN = 1,
  MAX_DEPTH = 2,
  SINK = 3,
  RUN_OPEN = 4,
  SESSION = 5,
  SEGMENT = 6,
  CLOSED = 7,
  LAST_LINE = 8,
  LAST_OFFSET = 9,
  LAST_TS = 10;
