// State a reader or writer keeps per id of a stream (call names looked up by a later record) is
// bounded whatever the stream's length: the oldest ids are forgotten first.

/** How many ids a codec remembers a name for (the oldest forgotten first). */
export const MAX_REMEMBERED_IDS = 10_000;

/**
 * Most characters of a string V8 copies when it is sliced (`SlicedString::kMinLength` is 13): a
 * longer substring points into the string it was cut from.
 */
const COPIED_SLICE_CHARS = 12;

/**
 * `s` as a string of its own, holding nothing else alive. The decoders that read a line in place
 * slice its plain strings out of the chunk's text (src/text-reader.ts): such a string, kept in
 * state that outlives the chunk (a call's name by its id), keeps the whole chunk alive, so a
 * bound on the entries would bound nothing (10 000 call ids pinned 10 000 chunks of 64 KiB).
 * A concatenation sliced again is flattened into a new string first: the result's parent is that
 * copy, one character longer, not the chunk (docs/performance.md, "Round twenty-nine").
 */
export function ownString(s: string): string {
  return s.length <= COPIED_SLICE_CHARS ? s : ` ${s}`.slice(1);
}

/**
 * `map.set(key, value)` keeping at most `max` entries: a new key past it forgets the oldest. A
 * string key or value is kept as a string of its own (`ownString`), so that the bound on the
 * entries bounds the memory they hold.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number = MAX_REMEMBERED_IDS): void {
  if (map.size >= max && !map.has(key)) map.delete(map.keys().next().value as K);
  map.set(
    (typeof key === 'string' && !map.has(key) ? ownString(key) : key) as K,
    (typeof value === 'string' ? ownString(value) : value) as V,
  );
}
