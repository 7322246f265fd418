// The slots of the SSE reader's state (`SseState`, src/framing/sse.ts), in a module without an
// import for the reason src/framing/split-slots.ts gives: a bundle then reads them by number.

/** Slot of a `SseState`: the handler of its events (a `SseReader`'s), or undefined. */
export const HANDLER = 0;
/** Slot of a `SseState`: what is called with each event. */
export const ON_EVENT = 1;
/** Slot of a `SseState`: the receiver of the events. */
export const EVENT_TARGET = 2;
/** Slot of a `SseState`: its line splitter's state. */
export const SPLIT = 3;
/** Slot of a `SseState`: the byte bound on one event's lines. */
export const MAX_EVENT_BYTES = 4;
/** Slot of a `SseState`: the format stamped on diagnostics. */
export const FORMAT = 5;
/** Slot of a `SseState`: the sticky last event id. */
export const LAST = 6;
/** Slot of a `SseState`: the `id` set in the current block. */
export const BLOCK_ID = 7;
/** Slot of a `SseState`: the line of the current block's first line. */
export const BLOCK_LINE = 8;
/** Slot of a `SseState`: the byte offset of the current block's first line. */
export const BLOCK_OFFSET = 9;
/** Slot of a `SseState`: the bytes of the current block's lines. */
export const BLOCK_BYTES = 10;
/** Slot of a `SseState`: a block is open. */
export const IN_BLOCK = 11;
/** Slot of a `SseState`: the current block passed the bound and is being dropped. */
export const DISCARDING = 12;
/** Slot of a `SseState`: the line being read. */
export const CURRENT_LINE = 13;
/** Slot of a `SseState`: its byte offset. */
export const CURRENT_OFFSET = 14;
/** Slot of a `SseState`: the block's `data` field. */
export const DATA = 15;
/** Slot of a `SseState`: its number of `data` lines. */
export const DATA_LINES = 16;
/** Slot of a `SseState`: the block's `event` field. */
export const EVENT_TYPE = 17;
