// The default bounds of the readers, in a module without an import for the reason
// src/framing/split-slots.ts gives: a minified bundle then holds each as its value where it is
// used. Each is exported by the module that applies it (lines, sse, json) and by the package.

/** Default `maxLineBytes`: 1 MiB. */
export const DEFAULT_MAX_LINE_BYTES: number = 1024 * 1024;

/** Default `maxEventBytes`: 4 MiB for all the lines of one SSE event together. */
export const DEFAULT_MAX_EVENT_BYTES: number = 4 * 1024 * 1024;

/** Default `maxDepth`: how deep a JSON value may nest before the line is refused unparsed. */
export const DEFAULT_MAX_DEPTH: number = 64;

/**
 * Lines longer than this many characters have their nesting measured before `JSON.parse` sees
 * them. A shorter line may be parsed first and its value measured only when its shape leaves
 * room for depth (an unknown record, unknown fields): V8's `JSON.parse` is iterative, so a deep
 * short line costs parse time proportional to its length (docs/performance.md, "Figures behind
 * source comments"), never a stack overflow, and the common record skips the measure entirely.
 */
export const DEPTH_PRECHECK_CHARS: number = 4096;

/** The hard ceiling on `maxDepth`: deeper values would overflow recursive writers' stacks. */
export const MAX_DEPTH_CEILING = 1000;
