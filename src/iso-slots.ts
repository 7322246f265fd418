// The slots of an `IsoClock` (src/iso.ts), in a module without an import for the reason
// src/framing/split-slots.ts gives: a minified bundle reads them by number.

/** Slot of an `IsoClock`: the last minute seen, as its text up to the seconds. */
export const MINUTE = 0;
/** Slot of an `IsoClock`: that minute's first ms. */
export const MINUTE_MS = 1;
