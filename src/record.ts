import type { Format } from './diagnostics';
import { assertEncodable, isJsonObject, type JsonObject, setOwn } from './json';
import type { AgentEvent, AgentEventOf, Provenance } from './model';

/** What a wire record had beyond the fields a codec maps: kept for byte-exact rewrites. */
export interface RecordRest {
  /** Unknown fields, in their original order. */
  extra?: JsonObject;
  /** The original key order, when the writer's default order would not reproduce it. */
  order?: string[];
}

/**
 * Finds the fields of `raw` not in `known`, and whether the keys deviate from `known`'s order.
 * Returns `undefined` in the common case (only known keys, in order), allocating nothing more.
 */
export function splitRecord(raw: JsonObject, known: readonly string[]): RecordRest | undefined {
  return hasExactKeys(raw, known) ? undefined : splitOrdered(raw, known);
}

/**
 * True when `raw`'s own keys are exactly `known`, in that order: what a reference writer emits.
 * Object.keys copies the shape's cached key list, then one pointer comparison per key (parsed
 * keys and the literals in `known` are both internalised); measured cheaper than `for…in`.
 */
export function hasExactKeys(raw: JsonObject, known: readonly string[]): boolean {
  const keys = Object.keys(raw);
  if (keys.length !== known.length) return false;
  for (let i = 0; i < keys.length; i++) if (keys[i] !== known[i]) return false;
  return true;
}

/**
 * True when `value` is a JSON object with at least one own key of `keys`: how a reader tells an
 * entry of a map it knows (a model's figures) from a key of another kind a later version puts in
 * the same map.
 */
export function hasSomeKey(value: unknown, keys: readonly string[]): value is JsonObject {
  if (!isJsonObject(value)) return false;
  for (const key of keys) if (Object.hasOwn(value, key)) return true;
  return false;
}

// Known keys in `known`'s order with optional ones absent: still the common case, no allocation.
// `for…in` is safe here: a parsed record's prototype adds no enumerable keys unless
// Object.prototype itself was polluted, and then splitSlow (own keys only) decides.
function splitOrdered(raw: JsonObject, known: readonly string[]): RecordRest | undefined {
  let j = 0;
  for (const key in raw) {
    while (j < known.length && known[j] !== key) j++;
    if (j === known.length) return splitSlow(raw, known);
    j++;
  }
  return undefined;
}

function splitSlow(raw: JsonObject, known: readonly string[]): RecordRest | undefined {
  let extra: JsonObject | undefined;
  let needOrder = false;
  let lastKnown = -1;
  let sawExtra = false;
  const keys = Object.keys(raw);
  for (const key of keys) {
    const at = known.indexOf(key);
    if (at === -1) {
      extra ??= {};
      setOwn(extra, key, raw[key]);
      sawExtra = true;
    } else {
      if (at < lastKnown || sawExtra) needOrder = true;
      lastKnown = at;
    }
  }
  if (extra === undefined && !needOrder) return undefined;
  const rest: RecordRest = {};
  if (extra !== undefined) rest.extra = extra;
  if (needOrder) rest.order = keys;
  return rest;
}

/** Builds a provenance object, adding `extra`/`order` when the record had them. */
export function provenanceOf(format: Format, line: number, offset: number, rest?: RecordRest): Provenance {
  const p: Provenance = { format, line, offset };
  if (rest?.extra !== undefined) p.extra = rest.extra;
  if (rest?.order !== undefined) p.order = rest.order;
  return p;
}

/**
 * The `run.end{status:'incomplete'}` a decoder adds when its stream ends with the run still open
 * (docs/model.md, "Run outcome"): made up (`synthetic`), placed at `line`/`offset`.
 */
export function incompleteRunEnd(format: Format, line: number, offset: number): AgentEventOf<'run.end'> {
  return { type: 'run.end', status: 'incomplete', provenance: { format, line, offset, synthetic: true } };
}

/**
 * The hints `format`'s own decoder left on `event` for its writer: `undefined` for an event
 * another format read or one built by hand. `H` is the format's typed hints contract (`wire.ts`).
 */
export function hintsFrom<H>(event: AgentEvent | undefined, format: Format): H | undefined {
  const p = event?.provenance;
  return p !== undefined && p.format === format ? (p.hints as H | undefined) : undefined;
}

/**
 * Joins `[key, encodedValue]` pairs into compact JSON object text, appending `extra` fields and
 * following `order` when given (keys missing from `order` keep their place at the end).
 * `separator` is `","`/`":"` for compact JSON; highbar passes Python's `", "`/`": "`.
 */
export function joinRecord(
  pieces: Array<[string, string]>,
  rest: { extra?: Record<string, unknown> | undefined; order?: readonly string[] | undefined } | undefined,
  encode: (value: unknown) => string,
  format: Format,
  itemSeparator = ',',
  keySeparator = ':',
): string {
  if (rest?.extra !== undefined) {
    for (const key of Object.keys(rest.extra)) {
      const value = rest.extra[key];
      assertEncodable(value, key, undefined, format);
      if (value === undefined) continue;
      pieces.push([key, encode(value)]);
    }
  }
  if (rest?.order !== undefined && pieces.length > 1) {
    const rank = new Map<string, number>();
    rest.order.forEach((k, i) => {
      if (!rank.has(k)) rank.set(k, i);
    });
    const indexed = pieces.map((p, i) => [p, rank.get(p[0]) ?? rest.order!.length + i] as const);
    indexed.sort((a, b) => a[1] - b[1]);
    pieces = indexed.map((x) => x[0]);
  }
  let text = '{';
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    if (i > 0) text += itemSeparator;
    text += quoteKey(piece[0]) + keySeparator + piece[1];
  }
  return `${text}}`;
}

// Writers quote the same few dozen keys on every record: remember their JSON form (bounded, so
// data-driven keys from `extra` cannot grow it without limit).
const quotedKeys = new Map<string, string>();

/** `JSON.stringify(key)`, cached for the keys writers use again and again. */
export function quoteKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < 512) quotedKeys.set(key, quoted);
  }
  return quoted;
}
