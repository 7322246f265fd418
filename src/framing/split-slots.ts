// The slots of the line splitter's state (`SplitState`, src/framing/lines.ts) and the two bytes the
// splitter looks for. Their own module, without an import: esbuild's minifier writes a constant's
// value in place of its name only where the constant is declared in a module that imports nothing,
// so every bundle reads these slots by number and holds no declaration of them (a module with
// imports keeps each one as a variable).

/** Line feed. */
export const LF = 10;
/** Carriage return. */
export const CR = 13;

/** Slot of a `SplitState`: the `SplitFn` that splits a chunk's bytes into lines (its mode's rules). */
export const SPLIT = 0;
/** Slot of a `SplitState`: the byte bound on a line, terminator excluded. */
export const MAX = 1;
/** Slot of a `SplitState`: the format stamped on diagnostics. */
export const FORMAT = 2;
/** Slot of a `SplitState`: the receiver of the lines. */
export const TARGET = 3;
/** Slot of a `SplitState`: what is called with each line. */
export const ON_LINE = 4;
/** Slot of a `SplitState`: what is called with a line and the empty line after it, when set. */
export const ON_PAIR = 5;
/** Slot of a `SplitState`: what is called with each diagnostic. */
export const ON_DIAGNOSTIC = 6;
/** Slot of a `SplitState`: the bytes of the unfinished line held. */
export const PENDING = 7;
/** Slot of a `SplitState`: bytes of the unfinished line held. */
export const PENDING_LENGTH = 8;
/** Slot of a `SplitState`: the rest of a line past the bound is being dropped. */
export const DISCARDING = 9;
/** Slot of a `SplitState`: bytes of that line so far. */
export const DISCARDED_BYTES = 10;
/** Slot of a `SplitState`: the stream's first bytes were checked for a BOM. */
export const BOM_CHECKED = 11;
/** Slot of a `SplitState`: the first bytes, while fewer than a BOM's three may be one. */
export const BOM_PREFIX = 12;
/** Slot of a `SplitState`: (SSE) the last chunk ended with a CR, so an LF first in the next is its terminator. */
export const SKIP_LEADING_LF = 13;
/** Slot of a `SplitState`: the number the next complete line will get. */
export const LINE_NUMBER = 14;
/** Slot of a `SplitState`: the byte offset of the current line's first byte. */
export const LINE_START = 15;
/** Slot of a `SplitState`: bytes taken in so far (the BOM included). */
export const CONSUMED = 16;
