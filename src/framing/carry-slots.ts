// The slots of `HeldRecords` (src/framing/carry.ts), in a module without an import for the reason
// split-slots.ts gives: a minified bundle reads them by number.

/** Slot of a `HeldRecords`: the records held. */
export const HELD_TEXTS = 0;
/** Slot of a `HeldRecords`: the most it holds. */
export const HELD_MAX = 1;
