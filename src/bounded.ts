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
  // A new string key is copied before the bound is applied: the copy is what the map keeps.
  setBoundedOwn(map, (typeof key === 'string' && !map.has(key) ? ownString(key) : key) as K, value, max);
}

/**
 * `setBoundedKept` for a key that holds nothing else alive already (an `ownString` the caller
 * keeps elsewhere too), kept as it is given: a writer that holds a call id in more than one place
 * copies it once for all of them, not once per place.
 */
export function setBoundedOwn<K, V>(
  map: Map<K, V>,
  key: K,
  value: V,
  max: number = MAX_REMEMBERED_IDS,
): void {
  if (map.size >= max && !map.has(key)) forgetOldest(map, max);
  map.set(key, value);
}

/** Per full bounded map: where its oldest key is, and how many keys it has forgotten since the last compaction. */
interface Oldest {
  keys: Iterator<unknown>;
  forgotten: number;
  // Keys it may forget before it is compacted (`roomAbove`); none: never compacted.
  room: number;
}

const oldest = new WeakMap<Map<unknown, unknown>, Oldest>();

/**
 * Deletes the oldest key of a full map. V8's `Map` is an ordered hash table whose deleted entries
 * stay as holes until it is rebuilt: a new iterator skips every hole before the first live key,
 * so one kept across calls finds the oldest without that walk (the keys before it are the ones it
 * gave, all deleted). The table is rebuilt when an add finds it full of live keys and holes: at
 * twice the capacity while holes are fewer than half, which a map that stays at `max` keys meets
 * on its first rebuild (its capacity the power of two at or above `max`), ending at twice the
 * size its keys need. Compacted before the holes fill the room above `max`, it stays at that
 * size; the keys keep their order, so which is oldest does not change (the properties of
 * test/bounded.test.ts hold it to a list of the newest keys, with deletes and clears between).
 */
function forgetOldest<K, V>(map: Map<K, V>, max: number): void {
  let o = oldest.get(map);
  if (o === undefined) {
    o = { keys: map.keys(), forgotten: 0, room: roomAbove(max) };
    oldest.set(map, o);
  }
  let next = o.keys.next();
  // Not met while the keys before it are deleted (a full map has a live key after them); a map
  // changed in some other way is read again from its start.
  if (next.done === true) {
    o.keys = map.keys();
    next = o.keys.next();
  }
  map.delete(next.value as K);
  // A `max` that fills its capacity (a power of two) leaves no room: compacting would not help.
  if (o.room === 0 || ++o.forgotten < o.room) return;
  const keys = [...map.keys()];
  const values = [...map.values()];
  map.clear();
  for (let i = 0; i < keys.length; i++) map.set(keys[i] as K, values[i] as V);
  o.keys = map.keys();
  o.forgotten = 0;
}

/** Holes a table of `max` live keys has room for: its capacity (the power of two at or above `max`) less `max`. */
function roomAbove(max: number): number {
  let capacity = 4;
  while (capacity < max) capacity *= 2;
  return capacity - max;
}
