import { isJsonObject, type JsonObject, sameJson } from './json';

// What the writers' kept-line fast paths need to prove that a line the decoder kept is still
// what the general path would write: the kept record holds only values `JSON.stringify` gives
// back as they are, and an event field equals the kept value it came from. docs/performance.md
// ("Kept lines") explains why these checks are enough and what they trust.

/** What a decoder keeps of a line for its writer's fast path (part of a format's hints). */
export interface KeptLine {
  /** The line as read. */
  raw?: string;
  /** The record `raw` parses to, as the decoder left it. */
  record?: unknown;
}

/**
 * The kept record of `hints` when there is a kept line to write back, else `undefined`. A
 * writer's fast path writes `hints.raw` when the event still says what this record says: the
 * general path (the record rebuilt from the kept one, the event's fields put back) would rebuild
 * it with the same keys, order and values, stringify it and find it equal to the line; the
 * writer's field checks ({@link sameAsKept}) and {@link isStableJson} prove that without the
 * stringify. It trusts the hints as the decoder left them: `record` is what `raw` parses to.
 */
export function keptRecord(hints: KeptLine | undefined): JsonObject | undefined {
  if (hints === undefined || typeof hints.raw !== 'string') return undefined;
  const t = hints.record;
  return isJsonObject(t) ? t : undefined;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * True when `value` is a JSON value that `JSON.stringify` then `JSON.parse` give back equal:
 * strings, booleans, finite numbers, plain objects and arrays of them. `null` is refused too: in
 * a kept record that went through a JSON copy it may stand for a number `JSON.parse` read as
 * `Infinity` (`1e400`), which the line spells otherwise. Iterative.
 */
export function isStableJson(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    switch (typeof v) {
      case 'string':
      case 'boolean':
        continue;
      case 'number':
        if (!Number.isFinite(v)) return false;
        continue;
      case 'object': {
        if (v === null) return false;
        if (Array.isArray(v)) {
          for (let i = 0; i < v.length; i++) stack.push(v[i]);
          continue;
        }
        if (!isPlainObject(v)) return false;
        const o = v as Record<string, unknown>;
        for (const key in o) if (Object.hasOwn(o, key)) stack.push(o[key]);
        continue;
      }
      default:
        return false;
    }
  }
  return true;
}

/**
 * True when an event's value `a` says what the kept value `b` says, as the general path would
 * see it (`rawIfSame`: key order aside, numbers by value), and `b` is {@link isStableJson}.
 * An object or array that is the kept one itself (or holds one) is refused: an in-place edit
 * of it would have changed the kept record too, and only the line would still tell.
 */
export function sameAsKept(a: unknown, b: unknown): boolean {
  if (typeof b !== 'object') return a === b && (typeof b !== 'number' || Number.isFinite(b));
  if (b === null || typeof a !== 'object' || a === null || a === b) return false;
  if (Array.isArray(b)) {
    if (!Array.isArray(a) || a.length !== b.length) return false;
    for (let i = 0; i < b.length; i++) if (!sameAsKept(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(a) || !isPlainObject(a) || !isPlainObject(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const key in y) {
    if (!Object.hasOwn(y, key)) continue;
    if (!Object.hasOwn(x, key) || !sameAsKept(x[key], y[key])) return false;
    count++;
  }
  for (const key in x) if (Object.hasOwn(x, key) && --count < 0) return false;
  return count === 0;
}

/**
 * A JSON value copied: plain objects and arrays anew (own keys in order, `__proto__` as data),
 * strings and numbers as they are. A decoder gives an event a copy of an object it also keeps
 * in its record, so that an edit of the event can never edit the kept record.
 */
export function copyJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i]);
    return out as T;
  }
  const o = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key in o) {
    if (!Object.hasOwn(o, key)) continue;
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value: copyJson(o[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = copyJson(o[key]);
  }
  return out as T;
}

/**
 * {@link copyJson}'s copy made another way, for the decoder that copies objects on every tool
 * line (the Cursor decoder: a call's arguments, a result): an object by spread, which defines
 * each own enumerable key in order as data (a `__proto__` key stays an own property) in one
 * step, then only the keys holding an object or array written again with their copies; an array
 * by `slice`, the same way.
 * `copyJson` builds the copy from `{}`, a map transition per key, which cost the Cursor decoder's
 * tool lines the most of their copies (docs/performance.md, "Copilot and Cursor decoders, round
 * twenty"). Not `copyJson` itself: with it the Amp and OpenCode decoders measured slower in one
 * order or both, and the Copilot decoder's one copy per call won in one order only.
 * test/kept-copy.test.ts holds the two equal.
 */
export function copyJsonBySpread<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = value.slice();
    for (let i = 0; i < out.length; i++) {
      const v = out[i];
      if (typeof v === 'object' && v !== null) out[i] = copyJsonBySpread(v);
    }
    return out as T;
  }
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key in out) {
    const v = out[key];
    // The own check: a key `for…in` finds on a prototype (one someone added to
    // `Object.prototype`) is not the value's and must not become the copy's.
    if (typeof v === 'object' && v !== null && Object.hasOwn(out, key)) out[key] = copyJsonBySpread(v);
  }
  return out as T;
}

/** `r[key] = value` unless `value` is `undefined`: an event field put back into its kept record. */
export function putDefined(r: JsonObject, key: string, value: unknown): void {
  if (value !== undefined) r[key] = value;
}

/**
 * Puts `value` at `r[field].agentwire[key]` of a record a writer rebuilds from a kept one, unless
 * it says the same already: an edited event field the record keeps in its metadata reaches the
 * line (`rawIfSame` then writes the record, not the kept line). The objects on the way are the
 * kept record's: copied, never changed. `undefined` puts nothing (the field was not edited in).
 */
export function putKeptMeta(r: JsonObject, field: string, key: string, value: unknown): void {
  if (value === undefined) return;
  const outer = r[field];
  const meta = isJsonObject(outer) ? outer.agentwire : undefined;
  if (isJsonObject(meta) && sameJson(meta[key], value)) return;
  r[field] = {
    ...(isJsonObject(outer) ? outer : {}),
    agentwire: { ...(isJsonObject(meta) ? meta : {}), [key]: value } as JsonObject,
  };
}

/** The fields of a call's start both UI writers keep in its record's metadata. */
export const CALL_START_META = ['kind', 'server', 'argsSummary', 'command', 'startedAt'] as const;

/**
 * {@link putDefined}, and a field the event no longer has taken out of its kept record: where
 * `value` is `undefined` and the record's value at `key` is one its decoder reads into the field
 * (`read`, by default a string), the key is deleted. Without it a field deleted from the event (a
 * redaction) would come back from the kept record. A record the event still says is left as it
 * is: `read` is how the decoder read the field, so an unedited event never has it `undefined`.
 */
export function putOrDrop(
  r: JsonObject,
  key: string,
  value: unknown,
  read: (kept: unknown) => boolean = isString,
): void {
  if (value !== undefined) r[key] = value;
  else if (read(r[key])) delete r[key];
}

/** True for a string: how a decoder reads most text fields of a record (`str`). */
export function isString(value: unknown): boolean {
  return typeof value === 'string';
}

/** True for a number: how a decoder reads a number of a record's metadata. */
export function isNumber(value: unknown): boolean {
  return typeof value === 'number';
}

/** True for a boolean: how a decoder reads a flag of a record's metadata. */
export function isBoolean(value: unknown): boolean {
  return typeof value === 'boolean';
}

/** True for any value there: how a decoder reads a metadata field it takes as it is. */
export function isThere(value: unknown): boolean {
  return value !== undefined;
}

/**
 * {@link putKeptMeta}, and a field the event no longer has taken out of `r[field].agentwire`
 * where `read` says the decoder read it into the field: the objects on the way are copied, never
 * changed, and an `agentwire` object (then a `field` object) left empty goes too, as the general
 * path writes none. See {@link putOrDrop}.
 */
export function putKeptMetaOrDrop(
  r: JsonObject,
  field: string,
  key: string,
  value: unknown,
  read: (kept: unknown) => boolean,
): void {
  if (value !== undefined) {
    putKeptMeta(r, field, key, value);
    return;
  }
  const outer = r[field];
  if (!isJsonObject(outer)) return;
  const meta = outer.agentwire;
  if (!isJsonObject(meta) || !read(meta[key])) return;
  const { [key]: _gone, ...rest } = meta;
  const { agentwire: _meta, ...others } = outer;
  if (Object.keys(rest).length > 0) others.agentwire = rest as JsonObject;
  if (Object.keys(others).length > 0) r[field] = others as JsonObject;
  else delete r[field];
}

/**
 * {@link putKeptMetaOrDrop} of each of `keys` of `event`, `reads[i]` how the decoder reads
 * `keys[i]`. A record without `r[field]` (the frequent one) costs one look per field left out.
 */
export function putKeptMetasOrDrop(
  r: JsonObject,
  field: string,
  event: object,
  keys: readonly string[],
  reads: readonly ((kept: unknown) => boolean)[],
): void {
  const e = event as Record<string, unknown>;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = e[key];
    if (value !== undefined) putKeptMeta(r, field, key, value);
    else if (r[field] !== undefined) putKeptMetaOrDrop(r, field, key, undefined, reads[i]!);
  }
}

/**
 * How both UI decoders read the fields of a call's start from its metadata, in the order of
 * {@link CALL_START_META}: the texts as strings, the time as a number.
 */
export const CALL_START_READS: readonly ((kept: unknown) => boolean)[] = [
  isString,
  isString,
  isString,
  isString,
  isNumber,
];
