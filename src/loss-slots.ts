// The slots of a loss reporter's state (`LossState`, src/loss.ts), in a module without an import
// for the reason src/framing/split-slots.ts gives: a minified bundle reads them by number.

/** The slots of a `LossState` (loss.ts), in its order: each names the member at that index. */
export const FORMAT = 0,
  SINK = 1,
  SEEN = 2,
  SEEN_BY_TYPE = 3,
  CLEAN = 4,
  LAST_TYPE = 5,
  LAST_CLEAN = 6,
  COUNT = 7;
