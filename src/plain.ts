import type { Format } from './diagnostics';
import type { Provenance } from './model';

/**
 * Plain objects made by a constructor: what a decoder builds for every line and returns from
 * `push`.
 *
 * Why not an object literal: V8 gives every object literal an allocation site, and when one
 * young-generation GC finds most of a site's recent objects alive it may decide to allocate all
 * later objects of that site in the old generation ("pretenuring"). A decoder's output array holds
 * the events of a whole chunk until `push` returns, so a GC that lands inside a `push` while the
 * decoder still runs unoptimised (the first lines, or after a deopt) sees them all alive, and the
 * decision, once taken, holds for the life of the process. From then on every string and record
 * those old objects point to survives the young-generation GCs until the next full GC: the decoder
 * runs at a fraction of its speed, in the bench and in a supervisor alike (docs/performance.md,
 * "Round eight"). Objects made by `new` have no allocation site. The constructor's `prototype` is
 * `Object.prototype`, so what it makes is indistinguishable from a literal: same prototype, same
 * `constructor`, own enumerable keys in the order the constructor assigns them.
 *
 * @param init - Assigns every field, always in the same order (one hidden class per constructor).
 * @returns A constructor whose instances are plain objects.
 */
export function plain<T extends object, A extends unknown[]>(
  init: (this: T, ...args: A) => void,
): new (
  ...args: A
) => T {
  init.prototype = Object.prototype;
  return init as unknown as new (
    ...args: A
  ) => T;
}

// The two constructors below are made by calls marked pure: `plain` only sets the `prototype` of
// the fresh function it is given, so a bundle that imports this module for `UNSET` alone (the
// Claude decoder) leaves them out.
/** `{ format, line, offset }`: a line's provenance with nothing kept for the writer. */
export const LineProvenance: new (format: Format, line: number, offset: number) => Provenance =
  /* @__PURE__ */ plain(function (this: Provenance, format: Format, line: number, offset: number) {
    this.format = format;
    this.line = line;
    this.offset = offset;
  });

/** `{ format, line, offset, hints }`: a line's provenance with what its writer needs. */
export const HintedProvenance: new (
  format: Format,
  line: number,
  offset: number,
  hints: Record<string, unknown>,
) => Provenance = /* @__PURE__ */ plain(function (
  this: Provenance,
  format: Format,
  line: number,
  offset: number,
  hints: Record<string, unknown>,
) {
  this.format = format;
  this.line = line;
  this.offset = offset;
  this.hints = hints;
});

/**
 * The first value of a state literal's object field that is set right after the literal
 * ({@link Writable}): `undefined`, so the field's type is "any" from the start.
 *
 * Why: V8 gives a field whose first value is an object that object's hidden class as its type,
 * and the optimised per-line code that reads the field depends on it. A decoder's state literal
 * is made once per stream, so after a full GC its hidden class is often new, and the next
 * stream's literal (made from the boilerplate V8 keeps by then) widens the field's type, which
 * throws away all that code at the start of the stream (`--trace-deopt`: "code dependencies";
 * docs/performance.md, "AG-UI and AI SDK codecs", round twelve). A field that held `undefined`
 * first is never narrowed, so nothing depends on it.
 */
export const UNSET: never = undefined as never;

/** `T` with its `readonly` fields writable: for setting a literal's {@link UNSET} fields once. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };
