// The CLI's rule for when to run a full GC (src/cli.ts, `collecting`): how much the heap may grow
// past what the last full GC left. Apart from the library, so that a test holds the rule.

/** The most the heap may grow between full GCs (a small live heap's budget). */
export const HEAP_GROWTH_BUDGET = 8 * 1024 * 1024;
/** The least it may grow: a large live heap costs at most twice the full GCs, never one per check. */
export const MIN_HEAP_GROWTH_BUDGET = 4 * 1024 * 1024;
/**
 * What the heap may reach between full GCs when the last one left much alive. Every cell's peak
 * is the same node, code and malloc plus the heap: a pair that keeps more alive (a writer's held
 * messages, a decoder's state) peaked that much higher with a fixed budget (docs/performance.md,
 * "Round thirty").
 */
export const HEAP_TARGET = 12 * 1024 * 1024;

/** The heap growth allowed after a full GC that left `live` bytes in use. */
export function growthBudget(live: number): number {
  return Math.min(HEAP_GROWTH_BUDGET, Math.max(MIN_HEAP_GROWTH_BUDGET, HEAP_TARGET - live));
}

/** How many codecs a command runs on its input: a convert two (reader and writer), the rest one. */
export type CodecCount = 1 | 2;

/**
 * How much the large-object space may grow between full GCs (a line, a tool's output or its JSON
 * past the regular object size that was alive at a scavenge: only a full GC frees it). A convert
 * gets half a one-codec command's: its second codec's code, compile-thread memory and state put
 * its peak above a decode of the same file, and a writer that carries long tool outputs
 * (nativeharness) makes as many large strings as the reader (docs/performance.md, "Round
 * forty-eight"). A decode keeps the larger budget: fewer full GCs, and its peak has the room.
 */
export function largeObjectBudget(codecs: CodecCount): number {
  return codecs === 2 ? 1024 * 1024 : 2 * 1024 * 1024;
}
