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
 * A longer string is joined from two pieces of it: the join copies their characters into one new
 * flat string (code units, a pair split between the pieces included), where a slice of a copy
 * would keep a sliced string and the copy it points into, twice the bytes per kept id
 * (docs/performance.md, "Round twenty-nine" and "Round forty-one").
 */
export function ownString(s: string): string {
  return s.length <= COPIED_SLICE_CHARS ? s : [s.slice(0, 1), s.slice(1)].join('');
}

/** Most strings a table of shared strings holds (`sharedString`); past it they are not shared. */
export const MAX_SHARED_STRINGS = 256;

/** Longest string a table of shared strings holds: names and lanes, not texts. */
const MAX_SHARED_CHARS = 128;

/**
 * `s` as a string of its own, the same string each time it comes again while `shared` has room:
 * a codec that keeps a name per call id (tool names, lanes: few, repeated on every call) keeps
 * one copy of each name, not one per id. `shared` holds at most MAX_SHARED_STRINGS strings of at
 * most MAX_SHARED_CHARS characters: the first ones met stay, later ones are copied as they come.
 */
export function sharedString(s: string, shared: Map<string, string>): string {
  if (s.length > MAX_SHARED_CHARS) return ownString(s);
  let kept = shared.get(s);
  if (kept === undefined) {
    kept = ownString(s);
    if (shared.size < MAX_SHARED_STRINGS) shared.set(kept, kept);
  }
  return kept;
}

/**
 * `map.set(key, value)` keeping at most `max` entries: a new key past it forgets the oldest. A
 * string key or value is kept as a string of its own (`ownString`), so that the bound on the
 * entries bounds the memory they hold.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number = MAX_REMEMBERED_IDS): void {
  setBoundedKept(map, key, (typeof value === 'string' ? ownString(value) : value) as V, max);
}

/**
 * `setBounded` for a value that holds nothing else alive already (a `sharedString`, an object of
 * such strings), kept as it is given: only the key is made a string of its own.
 */
export function setBoundedKept<K, V>(
  map: Map<K, V>,
  key: K,
  value: V,
  max: number = MAX_REMEMBERED_IDS,
): void {
  if (map.size >= max && !map.has(key)) map.delete(map.keys().next().value as K);
  map.set((typeof key === 'string' && !map.has(key) ? ownString(key) : key) as K, value);
}
