// What the OpenCode writer needs to tell where a number JSON cannot hold (NaN, ±Infinity) may be
// written as the `null` `JSON.stringify` makes of it, and to write a kept one as its line spells
// it. A kept line holds such a number only where it spells one past a double's range (`1e400`,
// which `JSON.parse` reads as ±Infinity); an integer past 2^53 is written as digits, never `null`,
// so these sieves pass it by.

import { holdsNonFinite, jsonTokenEnd, sameJson } from '../../json';
import type { AgentEvent } from '../../model';

/**
 * {@link holdsNonFinite} of any field of `event` but its provenance: what a line rebuilt from its
 * kept record with the event's fields put back would write as `null`.
 */
export function fieldsHoldNonFinite(event: AgentEvent): boolean {
  for (const key in event) {
    if (key !== 'provenance' && holdsNonFinite((event as Record<string, unknown>)[key])) return true;
  }
  return false;
}

// JSON's whitespace: space, tab, line feed, carriage return.
function skipSpace(text: string, at: number): number {
  let i = at;
  for (let c = text.charCodeAt(i); c === 32 || c === 9 || c === 10 || c === 13; c = text.charCodeAt(++i));
  return i;
}

// Where the value of `key` in the object whose `{` is at `open` starts, or -1. The last one when
// the key comes twice, as `JSON.parse` reads it.
function memberAt(text: string, open: number, key: string): number {
  let found = -1;
  let i = skipSpace(text, open + 1);
  while (text.charCodeAt(i) === 34) {
    const keyEnd = jsonTokenEnd(text, i);
    if (keyEnd === -1) return -1;
    const name: unknown = JSON.parse(text.slice(i, keyEnd));
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== 58) return -1;
    const at = skipSpace(text, i + 1);
    const end = jsonTokenEnd(text, at);
    if (end === -1) return -1;
    if (name === key) found = at;
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== 44) break;
    i = skipSpace(text, i + 1);
  }
  return found;
}

/**
 * The text of the value at `path` (object keys) in the JSON object `raw` spells, when it is JSON
 * that reads as `value` (`sameJson`: ±Infinity as the number past a double's range the text
 * spells), else `undefined`: a kept value the writer puts into a line it makes anew, written as
 * the line spelled it, not with a `null` for its number. Never throws.
 */
export function keptValueText(raw: string, path: readonly string[], value: unknown): string | undefined {
  try {
    let at = skipSpace(raw, 0);
    for (const key of path) {
      if (raw.charCodeAt(at) !== 123) return undefined;
      at = memberAt(raw, at, key);
      if (at === -1) return undefined;
    }
    const end = jsonTokenEnd(raw, at);
    if (end === -1) return undefined;
    const text = raw.slice(at, end);
    const read: unknown = JSON.parse(text);
    return sameJson(read, value) ? text : undefined;
  } catch {
    // Not JSON: no text to write.
    return undefined;
  }
}
