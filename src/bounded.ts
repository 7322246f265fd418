// State a reader or writer keeps per id of a stream (call names looked up by a later record) is
// bounded whatever the stream's length: the oldest ids are forgotten first.

/** How many ids a codec remembers a name for (the oldest forgotten first). */
export const MAX_REMEMBERED_IDS = 10_000;

/** `map.set(key, value)` keeping at most `max` entries: a new key past it forgets the oldest. */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number = MAX_REMEMBERED_IDS): void {
  if (map.size >= max && !map.has(key)) map.delete(map.keys().next().value as K);
  map.set(key, value);
}
