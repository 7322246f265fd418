import {
  AgentwireError,
  type Diagnostic,
  type DiagnosticSink,
  diagnosticAt,
  type Format,
} from './diagnostics';
import { DEFAULT_MAX_DEPTH, DEPTH_PRECHECK_CHARS, MAX_DEPTH_CEILING } from './limits';
import type { AgentEvent } from './model';

export { DEFAULT_MAX_DEPTH, DEPTH_PRECHECK_CHARS, MAX_DEPTH_CEILING } from './limits';

/** A JSON object as decoded: own enumerable keys only, `__proto__` possibly among them as data. */
export type JsonObject = Record<string, unknown>;

/** True for a plain object that `JSON.parse` could have produced (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `text` parsed when it is a JSON object, else `undefined` (not JSON, or another JSON value): for
 * text that may or may not hold an object (a kept record, a call's streamed arguments, an error
 * message, a line a sniffer looks at), where "no object" is an answer and not an error. It bounds
 * no depth (nor did the copies it replaced): a caller that must refuse a deep value measures it
 * first, as the record readers below do.
 */
export function parseJsonObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when `text` holds a JSON value nested deeper than `max`. Counts `{`/`[` with the native
 * `indexOf` first: a line with at most `max` brackets cannot be deeper, and that is almost every
 * line. Only the rest pays for an exact, string-aware scan.
 */
export function exceedsDepth(text: string, max: number): boolean {
  if (!bracketsExceed(text, max)) return false;
  let depth = 0;
  let inString = false;
  for (let j = 0; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (inString) {
      if (c === 92) j++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/**
 * True when `text` holds more than `max` opening brackets (`{` and `[`, in strings too): without
 * that many it cannot nest deeper than `max`. Native `indexOf` steps, at most `max + 1` of them.
 */
export function bracketsExceed(text: string, max: number): boolean {
  let count = 0;
  let i = text.indexOf('{');
  while (i !== -1 && count <= max) {
    count++;
    i = text.indexOf('{', i + 1);
  }
  i = text.indexOf('[');
  while (i !== -1 && count <= max) {
    count++;
    i = text.indexOf('[', i + 1);
  }
  return count > max;
}

/** The result of {@link parseJsonLine}: the value, or the diagnostic that refused the line. */
export type JsonLineResult = { ok: true; value: unknown } | { ok: false; diagnostic: Diagnostic };

/**
 * True when a parsed JSON value nests deeper than `max` (the value itself is level 1 when it is
 * an object or array). The same measure as {@link exceedsDepth} on its text, but it costs one
 * step per object or array instead of one per character: strings are skipped whole. Recursive
 * (no stack or key arrays to allocate), at most {@link MAX_DEPTH_CEILING} levels down: a bound
 * above the ceiling is the ceiling, as {@link resolveMaxDepth} makes every `maxDepth` (every
 * decoder passes a resolved bound or less), so no value recurses deeper whatever its nesting.
 */
export function valueExceedsDepth(value: unknown, max: number): boolean {
  return typeof value === 'object' && value !== null && nestsBeyond(value, Math.min(max, MAX_DEPTH_CEILING));
}

// True when `v` (an object or array) holds `left` or more levels below it, itself included.
function nestsBeyond(v: object, left: number): boolean {
  if (left === 0) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const child: unknown = v[i];
      if (typeof child === 'object' && child !== null && nestsBeyond(child, left - 1)) return true;
    }
    return false;
  }
  const o = v as Record<string, unknown>;
  for (const key in o) {
    // A `__proto__` key of JSON.parse is an own data property: the read gives it, not the prototype.
    const child = o[key];
    if (typeof child === 'object' && child !== null && nestsBeyond(child, left - 1)) return true;
  }
  return false;
}

/**
 * True when a parsed JSON value holds a number that may not be what its text said: not finite
 * (`1e400`) or an integer beyond ±(2^53 − 1). A cheap, value-level sieve in front of
 * {@link findUnsafeNumber}, which reads the text to tell a rounded integer from an exact one
 * (`1e20`). Iterative; one step per object or array.
 */
export function mayHoldUnsafeNumber(value: unknown): boolean {
  return holdsNumberOf(value, false);
}

/**
 * True when `value` holds a number JSON cannot hold (NaN, ±Infinity), which `JSON.stringify`
 * writes as `null`; an integer past 2^53 is written as digits, so it is passed by. Iterative.
 */
export function holdsNonFinite(value: unknown): boolean {
  return holdsNumberOf(value, true);
}

// The walk of both sieves: a number not finite, or (unless `nonFiniteOnly`) an integer past
// ±(2^53 − 1). One walk, the test a flag rather than a function, so that each call site's number
// test is inlined, not called.
function holdsNumberOf(value: unknown, nonFiniteOnly: boolean): boolean {
  if (typeof value === 'number') return isUnsafeNumber(value, nonFiniteOnly);
  if (typeof value !== 'object' || value === null) return false;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const v = stack.pop() as Record<string, unknown> | unknown[];
    const children = Array.isArray(v) ? v : Object.values(v);
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (typeof child === 'number') {
        if (isUnsafeNumber(child, nonFiniteOnly)) return true;
      } else if (typeof child === 'object' && child !== null) stack.push(child);
    }
  }
  return false;
}

function isUnsafeNumber(n: number, nonFiniteOnly: boolean): boolean {
  if (!Number.isFinite(n)) return true;
  return !nonFiniteOnly && Number.isInteger(n) && !Number.isSafeInteger(n);
}

/** True when `text` may hold a JSON value nested deeper than `maxDepth` and does. */
export function isTooDeep(text: string, maxDepth: number): boolean {
  return text.length > 2 * maxDepth && exceedsDepth(text, maxDepth);
}

/** The `nesting_too_deep` diagnostic of a line refused for its depth. */
export function nestingTooDeep(line: number, offset: number, maxDepth: number, format: Format): Diagnostic {
  return diagnosticAt(
    'nesting_too_deep',
    'error',
    line,
    offset,
    `JSON nesting depth > maxDepth (${maxDepth}); the line was skipped`,
    format,
  );
}

/**
 * Parses one line of JSON with the depth bound applied before `JSON.parse` sees it. Never
 * throws. `JSON.parse` keeps `__proto__` as an own data key, so nothing here can pollute a
 * prototype.
 */
export function parseJsonLine(
  text: string,
  line: number,
  offset: number,
  maxDepth: number,
  format: Format,
): JsonLineResult {
  // NaN or Infinity would switch the bound off (every comparison false): the bound is not optional.
  maxDepth = resolveMaxDepth(maxDepth);
  if (isTooDeep(text, maxDepth))
    return { ok: false, diagnostic: nestingTooDeep(line, offset, maxDepth, format) };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    // Not too deep: measured above.
    return { ok: false, diagnostic: invalidJson(error, line, offset, format) };
  }
}

/**
 * The diagnostic for a line `JSON.parse` refused with `error`, built from that error: the same
 * one {@link parseJsonLine} gives (`nesting_too_deep` when the line is also deeper than
 * `maxDepth`, else `invalid_json` with the parser's reason), without parsing the line again. A
 * second parse costs a second exception, the most of what a bad line costs.
 */
export function refusedJson(
  text: string,
  error: unknown,
  line: number,
  offset: number,
  maxDepth: number,
  format: Format,
): Diagnostic {
  maxDepth = resolveMaxDepth(maxDepth);
  return isTooDeep(text, maxDepth)
    ? nestingTooDeep(line, offset, maxDepth, format)
    : invalidJson(error, line, offset, format);
}

// The `invalid_json` diagnostic of JSON.parse's `error`.
function invalidJson(error: unknown, line: number, offset: number, format: Format): Diagnostic {
  // Newer V8 (Chromium) appends "(line 1 column N)" to the position; dropped so a diagnostic
  // reads the same in every engine.
  const detail = (error instanceof Error ? error.message : String(error)).replace(
    / \(line \d+ column \d+\)$/,
    '',
  );
  return diagnosticAt('invalid_json', 'error', line, offset, `not valid JSON (${detail})`, format);
}

/** What {@link parseRecordText} returns for a line it refused (the diagnostic is reported). */
export const NOT_PARSED: unique symbol = Symbol('not parsed');

/**
 * What every record reader below takes: one record's JSON `text`, where it was read (`line`,
 * `offset`), the resolved depth bound `maxDepth`, the `format` that reads it and the `sink` its
 * refusals go to; `R` what it returns. One type, so that the four readers say their six
 * parameters once and cannot drift apart in their order (decoders call several of them with
 * the same arguments).
 */
export type RecordTextReader<R = unknown> = (
  text: string,
  line: number,
  offset: number,
  maxDepth: number,
  format: Format,
  sink: DiagnosticSink,
) => R;

/** A {@link RecordTextReader} of records that are objects: the object, or `undefined` (refused). */
export type ObjectRecordReader = RecordTextReader<JsonObject | undefined>;

/**
 * Parses one record's JSON text for a decoder, reporting what refuses it to `sink`: invalid
 * JSON, or (for text longer than {@link DEPTH_PRECHECK_CHARS}) nesting deeper than `maxDepth`,
 * measured before `JSON.parse` sees it. Shorter text is parsed at once; the decoder then calls
 * {@link valueTooDeep} where the record's shape leaves room for depth. Returns the value or
 * {@link NOT_PARSED}; never throws. The common case costs one `JSON.parse` and no allocation.
 * `maxDepth` is a resolved bound ({@link resolveMaxDepth}), as every decoder keeps it.
 */
export const parseRecordText: RecordTextReader = (text, line, offset, maxDepth, format, sink) => {
  if (!(text.length > DEPTH_PRECHECK_CHARS && isTooDeep(text, maxDepth))) {
    try {
      return JSON.parse(text);
    } catch (error) {
      sink.report(refusedJson(text, error, line, offset, maxDepth, format));
      return NOT_PARSED;
    }
  }
  // Measured too deep already: report it without parsing or measuring again.
  refuseTooDeep(sink, line, offset, maxDepth, format);
  return NOT_PARSED;
};

/**
 * {@link parseRecordText}, then the {@link valueTooDeep} bound: for records of a few objects,
 * where walking the parsed value costs less than sweeping the text. The value, or
 * {@link NOT_PARSED} after reporting why not; never throws (but through a strict sink).
 */
export const parseMeasuredRecord: RecordTextReader = (text, line, offset, maxDepth, format, sink) => {
  const value = parseRecordText(text, line, offset, maxDepth, format, sink);
  if (
    value === NOT_PARSED ||
    (valueTooDeep(text, value, maxDepth) && refuseTooDeep(sink, line, offset, maxDepth, format))
  )
    return NOT_PARSED;
  return value;
};

/**
 * One record of a JSON Lines format whose records are objects: {@link parseRecordText}, the
 * {@link refuseDeepText} bound, then `not a JSON object` (an `invalid_json` error) for any other
 * value. The object, or `undefined` after reporting why not; never throws (but through a strict
 * sink).
 */
export const parseObjectRecord: ObjectRecordReader = (text, line, offset, maxDepth, format, sink) => {
  const value = parseRecordText(text, line, offset, maxDepth, format, sink);
  if (value === NOT_PARSED || refuseDeepText(text, line, offset, maxDepth, format, sink)) return undefined;
  if (isJsonObject(value)) return value;
  sink.report(diagnosticAt('invalid_json', 'error', line, offset, 'not a JSON object', format));
  return undefined;
};

/**
 * For a value {@link parseRecordText} returned: whether its text was not measured before parsing
 * (not longer than {@link DEPTH_PRECHECK_CHARS}) and the value nests deeper than `maxDepth`. A
 * decoder then refuses the record with {@link refuseTooDeep}.
 */
export function valueTooDeep(text: string, value: unknown, maxDepth: number): boolean {
  return text.length <= DEPTH_PRECHECK_CHARS && valueExceedsDepth(value, maxDepth);
}

/** Reports `nesting_too_deep` for the record at `line` and `offset` to `sink`; true (refused). */
export function refuseTooDeep(
  sink: DiagnosticSink,
  line: number,
  offset: number,
  maxDepth: number,
  format: Format,
): true {
  sink.report(nestingTooDeep(line, offset, maxDepth, format));
  return true;
}

/**
 * For a value {@link parseRecordText} returned: the same bound as {@link valueTooDeep}, measured
 * on the text (two native bracket counts; a string-aware scan only for a line with more brackets
 * than `maxDepth`). Cheaper than walking the value for records of many small objects.
 */
export const refuseDeepText: RecordTextReader<boolean> = (text, line, offset, maxDepth, format, sink) => {
  if (text.length > DEPTH_PRECHECK_CHARS || !isTooDeep(text, maxDepth)) return false;
  return refuseTooDeep(sink, line, offset, maxDepth, format);
};

/** Sets `obj[key] = value` as an own data property, also for `__proto__`. */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else obj[key] = value;
}

/**
 * The error a writer throws for what it cannot write: an {@link AgentwireError} (`unencodable`,
 * severity `error`) with `message`, and `format` when given. One builder, so every refusal carries
 * the same fields.
 */
export function unencodable(message: string, format: Format | undefined): AgentwireError {
  const d: Diagnostic = { code: 'unencodable', severity: 'error', message };
  if (format !== undefined) d.format = format;
  return new AgentwireError(d);
}

/**
 * A value {@link assertEncodable} accepts as it is: a string, a boolean, null, undefined, a
 * finite number.
 */
export function isPlainPrimitive(v: unknown): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return true;
    case 'number':
      return Number.isFinite(v);
    default:
      return v === null;
  }
}

/** A non-array object without `toJSON` whose own enumerable values are all plain primitives. */
export function isFlatOfPrimitives(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const k of Object.keys(v)) if (!isPlainPrimitive((v as JsonObject)[k])) return false;
  return true;
}

/**
 * For a writer that writes a call at its end (or keeps its start for it): another format's
 * `tool.start` whose arguments JSON cannot hold is refused at its own write ({@link
 * assertEncodable}), not at that later write, which the refusal would take down with it (the
 * call's end, or the writer's `end()`). An event of `format` itself is written from its kept line.
 */
export function assertArgsWritable(event: AgentEvent, format: Format): void {
  if (event.type === 'tool.start' && event.args !== undefined && event.provenance?.format !== format)
    assertEncodable(event.args, 'tool.start.args', undefined, format);
}

/**
 * For a writer that writes or changes something before a call's end is encoded (a held record
 * closed, the call's start let go): another format's `tool.end` whose result or non-text error
 * JSON cannot hold is refused now ({@link assertEncodable}), before that, not in the middle of
 * the write, which the refusal would take down with it. An event of `format` itself is written
 * from its kept line.
 */
export function assertEndWritable(event: AgentEvent, format: Format): void {
  if (event.type !== 'tool.end' || event.provenance?.format === format) return;
  if (event.result !== undefined) assertEncodable(event.result, 'tool.end.result', undefined, format);
  if (event.error !== undefined && typeof event.error !== 'string')
    assertEncodable(event.error, 'tool.end.error', undefined, format);
}

/**
 * For a writer that writes a call's arguments, and its result (when the call has no text) and
 * non-text error as JSON: throws now what writing them would throw ({@link assertEncodable}), at
 * the write's start, before the writer writes or changes anything for the event (a header, a held
 * record, the call marked open or counted), which a refusal in the middle would take down with it.
 */
export function assertCallWritable(event: AgentEvent, format: Format): void {
  if (event.type === 'tool.start') {
    if (event.args !== undefined) assertEncodable(event.args, 'tool.start.args', undefined, format);
  } else if (event.type === 'tool.end') {
    const { result, error } = event;
    if (event.text === undefined && result !== undefined)
      assertEncodable(result, 'tool.end.result', undefined, format);
    if (error !== undefined && error !== null && typeof error !== 'string')
      assertEncodable(error, 'tool.end.error', undefined, format);
  }
}

/**
 * For a writer that holds an event to write it later (one said outside a run, written at the next
 * run's start): throws now what writing any of its fields (all but its provenance) would throw, so
 * that the refusal is the held event's own, not the later write's, which it would take down.
 */
export function assertFieldsWritable(event: AgentEvent, format: Format): void {
  for (const key of Object.keys(event)) {
    if (key === 'provenance') continue;
    const value = (event as Record<string, unknown>)[key];
    if (value !== undefined) assertEncodable(value, `${event.type}.${key}`, undefined, format);
  }
}

/**
 * Checks that `value` can be written as JSON without loss: no non-finite number, no BigInt, no
 * function, no cycle, nesting within `maxDepth`. Iterative, so a deep value cannot overflow the
 * stack. Throws {@link AgentwireError} (`unencodable`) naming the path.
 */
export function assertEncodable(
  value: unknown,
  path: string,
  maxDepth: number = DEFAULT_MAX_DEPTH,
  format?: Format,
): void {
  // Most values a writer checks are a primitive or one flat object of primitives (a record's
  // metadata): those pass without the walk's stack and set. Anything else, and anything that
  // fails, takes the walk, which words every refusal.
  if (isPlainPrimitive(value) || (maxDepth > 0 && isFlatOfPrimitives(value))) return;
  walkEncodable(value, path, maxDepth, format);
}

/**
 * {@link assertEncodable} without its shortcut for primitives and flat objects: the walk that
 * decides every other value (and that tests hold the shortcut to).
 */
export function walkEncodable(
  value: unknown,
  path: string,
  maxDepth: number = DEFAULT_MAX_DEPTH,
  format?: Format,
): void {
  const stack: Array<[unknown, string, number]> = [[value, path, 0]];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [v, p, depth] = stack.pop()!;
    switch (typeof v) {
      case 'string':
      case 'boolean':
        continue;
      case 'number':
        if (!Number.isFinite(v))
          throw unencodable(`${p}: ${v} is not a finite number; JSON cannot hold it`, format);
        continue;
      case 'bigint':
        throw unencodable(`${p}: a BigInt cannot be written as JSON without losing its type`, format);
      case 'undefined':
        continue; // JSON.stringify drops undefined properties, as every JSON writer does
      case 'object': {
        if (v === null) continue;
        if (depth >= maxDepth) throw unencodable(`${p}: nesting depth > maxDepth (${maxDepth})`, format);
        if (seen.has(v)) throw unencodable(`${p}: the value refers to itself (a cycle)`, format);
        seen.add(v);
        if (typeof (v as { toJSON?: unknown }).toJSON === 'function') continue;
        if (Array.isArray(v)) {
          for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${p}[${i}]`, depth + 1]);
        } else {
          for (const k of Object.keys(v)) stack.push([(v as JsonObject)[k], `${p}.${k}`, depth + 1]);
        }
        continue;
      }
      default:
        throw unencodable(`${p}: a ${typeof v} cannot be written as JSON`, format);
    }
  }
}

/**
 * `JSON.stringify(value)` for a writer, of a value the caller handed in: what JSON cannot hold at
 * all (a cycle, a BigInt, nothing) is an {@link AgentwireError} (`unencodable`) naming `path`, with
 * the path {@link assertEncodable} finds. One `JSON.stringify` in the common case.
 */
export function encodeJson(value: unknown, path: string, format: Format): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    assertEncodable(value, path, undefined, format);
    throw unencodable(`${path}: ${error instanceof Error ? error.message : String(error)}`, format);
  }
  if (text === undefined) throw unencodable(`${path}: the value cannot be written as JSON`, format);
  return text;
}

/**
 * {@link encodeJson} for a writer that puts a structured value into a JSON text on its wire (a
 * tool's result as a string): what `JSON.stringify` would write as `null` without a word (a number
 * JSON cannot hold: Infinity, NaN) is refused too, as the writers that write such a value as JSON
 * refuse it ({@link assertEncodable}). Nesting is no matter inside a string: not bounded. The
 * walk runs only where the text has a `null`, the only spelling such a number can have taken.
 */
export function encodeJsonText(value: unknown, path: string, format: Format): string {
  const text = encodeJson(value, path, format);
  if (text.includes('null')) walkEncodable(value, path, Number.POSITIVE_INFINITY, format);
  return text;
}

/**
 * Deep equality of two JSON values, object key order ignored (numbers by value). With
 * `nonFiniteAsNull`, a number of `a` that is not finite equals a `null` of `b`: what
 * `JSON.stringify` wrote for it (see {@link rawIfSame}).
 */
export function sameJson(a: unknown, b: unknown, nonFiniteAsNull = false): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return nonFiniteAsNull && b === null && typeof a === 'number' && !Number.isFinite(a);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], nonFiniteAsNull)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k)) return false;
    if (!sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], nonFiniteAsNull))
      return false;
  }
  return true;
}

/**
 * The line a writer puts out for a record its decoder kept as written (`raw`, a provenance
 * hint): `raw` when it is JSON that says the same as the writer's own `text` (key order and
 * number spelling aside), else `text`. So a line comes back byte for byte while its events are
 * unchanged, and an edited event is written from the model. A number of `raw` past a double's
 * range (`1e400`, which `JSON.parse` reads as ±Infinity) says the same as the `null` that
 * `JSON.stringify` made of the kept value in `text`: the line is written as it came, not with a
 * `null` for its number. Never throws.
 */
export function rawIfSame(raw: unknown, text: string): string {
  if (typeof raw !== 'string' || raw === text) return text;
  let kept: unknown;
  try {
    kept = JSON.parse(raw);
  } catch {
    // a raw hint that is not JSON was not made by a decoder: ignore it
    return text;
  }
  return parsedRawIfSame(raw, kept, text);
}

/**
 * {@link rawIfSame} for a writer that has parsed the kept line already (to read values of it
 * back): `kept` is what `raw` parses to, so the line is not parsed again. Never throws.
 */
export function parsedRawIfSame(raw: string, kept: unknown, text: string): string {
  if (raw === text) return text;
  try {
    const written = JSON.parse(text);
    if (sameJson(kept, written)) return raw;
    // Looked at again only where the text has a `null`, the one spelling such a number takes.
    return text.includes('null') && sameJson(kept, written, true) ? raw : text;
  } catch {
    return text;
  }
}

// What JSON.stringify escapes in a string: `"`, `\\`, controls, and any surrogate (lone ones are
// written as \uXXXX; a pair goes the slow way too, written as it is).
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * The text of a message's or tool result's `content` as Anthropic-shaped and AG-UI records give
 * it: a string as it is, an array's `text` parts joined (other parts, such as images, have no
 * text), anything else `undefined`.
 */
export function contentPartsText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const part of content) if (isJsonObject(part) && typeof part.text === 'string') text += part.text;
  return text;
}

/** `JSON.stringify` of a string: the ES2019 escaping every format here pins. */
export function jsonString(text: string): string {
  // A string with nothing to escape is itself between quotes: the test is cheaper than the call.
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/**
 * Whether `text` has nothing `JSON.stringify` escapes, so that its JSON is `text` between quotes
 * and a writer can put the quotes in the pieces around it ({@link jsonString}'s test: a surrogate
 * pair, which JSON writes as it is, counts as something to escape, as there).
 */
export function escapesNothing(text: string): boolean {
  return !NEEDS_ESCAPE.test(text);
}

// A run of characters none of which `JSON.stringify` escapes other than a quote, a backslash or a
// line feed (another control character, or half of a surrogate pair: a lone one is escaped; a
// test per pair costs more). Sticky and greedy: read as one loop over the text, which costs less
// than the unanchored search for one such character (docs/performance.md, round thirty-five).
const NO_ESCAPE_OTHER_RUN = /[^\u0000-\u0009\u000b-\u001f\ud800-\udfff]*/y;

// Whether `text` has a character `JSON.stringify` escapes other than a quote, a backslash or a
// line feed.
function escapesOther(text: string): boolean {
  NO_ESCAPE_OTHER_RUN.lastIndex = 0;
  NO_ESCAPE_OTHER_RUN.test(text);
  return NO_ESCAPE_OTHER_RUN.lastIndex !== text.length;
}

/**
 * `JSON.stringify` of a string, for long text (a message, a tool's output): where it has no
 * character to escape but quotes, backslashes and line feeds, and few of those (prose, most
 * program output), they are escaped between native searches (`escapeQuotesLines`) and the text
 * put between quotes, which costs less than `JSON.stringify`'s escape of every character
 * (docs/performance.md, "Round twenty-six" and "Round twenty-seven"). Text with many (JSON a tool
 * printed: a quote every few characters), anything else, and short text is `JSON.stringify`'s:
 * there the searches cost several times what they save. test/json-text.test.ts holds the two
 * equal.
 */
export function jsonText(text: string): string {
  if (text.length < 64) return JSON.stringify(text);
  // JSON starts with its quotes: only a text with one near its start has its head counted.
  const quote = text.indexOf('"');
  if ((quote !== -1 && quote < 16 && denseHead(text)) || escapesOther(text)) return JSON.stringify(text);
  return escapeQuotesLines(text, quote) ?? JSON.stringify(text);
}

// Most quotes a text's head may have per character for `escapeQuotesLines` to be worth its
// searches: one in 32 (JSON output has one in 4 to 8).
const SPARSE = 32;
// The density at which a walk gives up (past its first 16 escapes): one in 20, where the searches
// cost more than `JSON.stringify`'s escape. Prose is far below it (one in 50 to 100), so a run of
// escapes early in a text seldom gives up a walk that would have won.
const DENSE = 20;

// Whether the text's first 256 characters have more quotes than `SPARSE` allows (JSON's density
// is its quotes): a few bounded searches, so that such text costs one look at its head, not a
// walk. Text that is dense in other escapes, or dense later, is left by the walk itself.
function denseHead(text: string): boolean {
  const head = text.length > 256 ? text.slice(0, 256) : text;
  const most = head.length / SPARSE;
  let n = 0;
  for (let at = head.indexOf('"'); at !== -1; at = head.indexOf('"', at + 1)) if (++n > most) return true;
  return false;
}

// `text` between quotes with each quote, backslash and line feed escaped, in one walk: the next
// of each kind is found by a native search (`indexOf`), and the runs between them and the escapes
// are joined as one rope. A `replaceAll` per kind made a rope each, and each after the first
// flattened the one before into a copy of the whole text first. `first`: where its first quote
// is (-1: none). `undefined` when the escapes turn dense (`DENSE`): the caller then takes
// `JSON.stringify`'s.
function escapeQuotesLines(text: string, first: number): string | undefined {
  let quote = first;
  let line = text.indexOf('\n');
  let slash = text.indexOf('\\');
  let out = '';
  let from = 0;
  let n = 0;
  for (;;) {
    // The first of the three still ahead (-1: none left of that kind).
    let at = quote;
    let sequence = '\\"';
    if (line !== -1 && (at === -1 || line < at)) {
      at = line;
      sequence = '\\n';
    }
    if (slash !== -1 && (at === -1 || slash < at)) {
      at = slash;
      sequence = '\\\\';
    }
    if (at === -1) break;
    if (++n > 16 && n * DENSE > at) return undefined;
    out += text.slice(from, at) + sequence;
    from = at + 1;
    if (at === quote) quote = text.indexOf('"', from);
    else if (at === line) line = text.indexOf('\n', from);
    else slash = text.indexOf('\\', from);
  }
  return `"${from === 0 ? text : out + text.slice(from)}"`;
}

// A run of string characters that need no reading (no quote, backslash or control character).
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;

/**
 * Where the run of string characters that need no reading (no quote, backslash or control
 * character) that starts at `from` ends: the index of the first other character, or the end of
 * `text`.
 */
export function plainRunEnd(text: string, from: number): number {
  // A sticky regular expression reads the run natively (a charCodeAt loop over a sliced line
  // costs as much as parsing it).
  PLAIN_RUN.lastIndex = from;
  PLAIN_RUN.test(text);
  return PLAIN_RUN.lastIndex;
}

/**
 * The value of the JSON string token `text[open..close]` (both quotes included), read without
 * `JSON.parse` when it holds no quote, backslash or control character (the slice is the value),
 * else by `JSON.parse` of the token alone. `undefined` when those characters are not exactly one
 * string token (a quote inside not escaped, the closing one escaped, a bad escape, a raw control
 * character): a shape shortcut then leaves the line to its general path. The quotes are checked
 * before `JSON.parse` so that only a line the general path refuses too makes it throw (a throw
 * costs as much as many lines: docs/performance.md).
 */
export function readStringToken(text: string, open: number, close: number): string | undefined {
  if (close <= open || text.charCodeAt(open) !== 34 || text.charCodeAt(close) !== 34) return undefined;
  if (plainRunEnd(text, open + 1) === close) return text.slice(open + 1, close);
  // Its first unescaped quote after the opening one is the closing one (every quote between them
  // escaped): one string token.
  if (stringTokenEnd(text, open) !== close + 1) return undefined;
  try {
    return JSON.parse(text.slice(open, close + 1)) as string;
  } catch {
    return undefined;
  }
}

/**
 * Writes a number as a double the way Dart and Python print one: an integral value gets `.0`
 * (`0.0`, `3.0`), negative zero keeps its sign (`-0.0`); everything else as JavaScript prints it.
 */
export function formatDouble(n: number, field: string, format?: Format): string {
  if (typeof n !== 'number') throw notANumber(n, field, format);
  if (!Number.isFinite(n))
    throw unencodable(`${field}: ${n} is not a finite number; JSON cannot hold it`, format);
  // String(-0) is "0": the sign a double printer writes would be lost.
  if (n === 0) return 1 / n < 0 ? '-0.0' : '0.0';
  const s = String(n);
  return s.includes('.') || s.includes('e') ? s : `${s}.0`;
}

// A number field handed something else (a BigInt `1n` above all, which prints as `1`): say what
// it is, so the message does not read "1 is not a safe integer".
function notANumber(value: unknown, field: string, format: Format | undefined): AgentwireError {
  return wrongType(value, field, 'a number', format);
}

/**
 * What a value is, for a refusal: `missing` (a field left out: JSON has no `undefined`, so for
 * a caller it is a field not set), `null`, `an array`, `a BigInt`, `an object`, `a number`,
 * `a string`, `a boolean`. A BigInt's digits are not said: the message stays short for a value
 * of any size.
 */
function kindOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  if (type === 'bigint') return 'a BigInt';
  return type === 'object' ? 'an object' : `a ${type}`;
}

/** What a writer reads a field as, in a refusal of a value of another kind ({@link wrongType}). */
export type ExpectedKind = 'a string' | 'a number' | 'a boolean' | 'an array' | 'an object' | 'a JSON value';

/**
 * The one refusal of a field given a value of the wrong kind, in every writer:
 * `<field>: <kind>, not <expected>` (`tool.start.call: null, not a string`), the kind as
 * {@link kindOf} says it. A BigInt where a number belongs gets the way out too (`Number()`).
 */
export function wrongType(
  value: unknown,
  field: string,
  expected: ExpectedKind,
  format: Format | undefined,
): AgentwireError {
  const advice =
    expected === 'a number' && typeof value === 'bigint'
      ? '; convert it with Number() if it is within 2^53'
      : '';
  return unencodable(`${field}: ${kindOf(value)}, not ${expected}${advice}`, format);
}

/**
 * Refuses an event whose string field `field` holds something else (present, no string):
 * `<type>.<field>: a number, not a string`. The model's types say these fields are strings, but a
 * caller building events by hand from JSON may send a number, null, an object or an array, which
 * a writer's text functions would throw a `TypeError` for, perhaps in the middle of the write. A
 * writer's own check (a switch on the event's type naming the fields it reads as text, a
 * `typeof` each) calls it at its write's start, before anything is written, held or said for
 * the event.
 */
export function refuseNonString(event: AgentEvent, field: string, format: Format): never {
  refuseKind(event, field, 'a string', format);
}

/**
 * Refuses an event whose field `field` is missing or holds no value of the kind its writer reads
 * (`want`: `an array`, `an object`): `<type>.<field>: missing, not an array`. A caller building
 * events by hand may leave out a field the model requires (a question's `questions`, a usage
 * event's `usage`), which the writer's code would throw a `TypeError` for; its check calls this
 * at its write's start, as {@link refuseNonString}.
 */
export function refuseKind(event: AgentEvent, field: string, want: ExpectedKind, format: Format): never {
  const value = (event as unknown as Record<string, unknown>)[field];
  throw wrongType(value, `${event.type}.${field}`, want, format);
}

/**
 * Refuses an event whose string field `field` holds `value`, present and no string
 * ({@link refuseNonString}): the one line of a writer's text-field check, asked in the case of its
 * dispatch that writes the event's type, before anything is written or held for it.
 */
export function assertText(value: unknown, event: AgentEvent, field: string, format: Format): void {
  if (value !== undefined && typeof value !== 'string') refuseNonString(event, field, format);
}

/**
 * {@link assertText} of a field the model requires: missing, it is refused too
 * (`round.end.message: missing, not a string`), before the writer reads it.
 */
export function requireText(value: unknown, event: AgentEvent, field: string, format: Format): void {
  if (typeof value !== 'string') refuseNonString(event, field, format);
}

/**
 * Refuses an event whose number field `field` holds `value`, present and no number (a BigInt, a
 * string, `null`, an object): `compaction.end.tokensFreed: a BigInt, not a number`
 * ({@link wrongType}), before the writer does arithmetic with it (a BigInt there is a
 * `TypeError`), holds it or writes it. A number JSON cannot hold (NaN, an infinity) is passed
 * by: the writer's own check where it writes the figure refuses it, in the words it always had.
 */
export function assertNumber(value: unknown, event: AgentEvent, field: string, format: Format): void {
  if (value !== undefined && typeof value !== 'number')
    throw wrongType(value, `${event.type}.${field}`, 'a number', format);
}

/**
 * Refuses a list of texts (`field` named whole: `tool.end.filesChanged`) that is no array, or has
 * an entry of no string (`tool.end.filesChanged[1]: null, not a string`, {@link wrongType}): what a
 * writer that spells each entry as a JSON string, or whose reader takes strings only, asks first.
 */
export function assertTextList(list: unknown, field: string, format: Format): void {
  if (!Array.isArray(list)) throw wrongType(list, field, 'an array', format);
  for (let i = 0; i < list.length; i++)
    if (typeof list[i] !== 'string') throw wrongType(list[i], `${field}[${i}]`, 'a string', format);
}

/**
 * Refuses an event whose field `field`, required, holds `value`, no object (left out, `null`, a
 * string …): `usage.usage: missing, not an object` ({@link refuseKind}), before the writer reads
 * parts of it.
 */
export function requireObject(value: unknown, event: AgentEvent, field: string, format: Format): void {
  if (typeof value !== 'object' || value === null) refuseKind(event, field, 'an object', format);
}

/**
 * The text-field check ({@link refuseNonString}) of a writer that reads no text field but a text
 * or reasoning delta's `text` (OpenCode), asked at its write's start.
 */
export function assertDeltaText(event: AgentEvent, format: Format): void {
  if (event.type !== 'text.delta' && event.type !== 'reasoning.delta') return;
  requireText(event.text, event, 'text', format);
}

/**
 * Refuses a number field JSON cannot hold as a number: anything but a finite number (NaN and the
 * infinities, which `JSON.stringify` turns into `null` and a template would spell as no JSON at
 * all; a string or a BigInt where a number belongs).
 */
export function assertFiniteNumber(n: unknown, field: string, format?: Format): void {
  if (typeof n !== 'number') throw notANumber(n, field, format);
  if (!Number.isFinite(n))
    throw unencodable(`${field}: ${n} is not a finite number; JSON cannot hold it`, format);
}

/**
 * Refuses an event whose `ts` is no finite number (NaN or an infinity, `null` in JSON; or no number
 * at all, from an untyped caller), naming `<type>.ts`: what a writer whose records carry the time
 * asks before anything is written, held or said for the event.
 */
export function assertTimeWritable(event: AgentEvent, format: Format): void {
  const ts = event.ts;
  if (ts !== undefined && !Number.isFinite(ts)) assertFiniteNumber(ts, `${event.type}.ts`, format);
}

// The digits of 0…99, and of 0…99 as two digits (a leading zero).
const UNDER_100: readonly string[] = /* @__PURE__ */ Array.from({ length: 100 }, (_, i) => String(i));
const TWO_DIGITS: readonly string[] = /* @__PURE__ */ Array.from({ length: 100 }, (_, i) =>
  i < 10 ? `0${i}` : String(i),
);

/**
 * `String(n)` of a safe integer, spelled from a table of two-digit pieces. `String(n)` (and a
 * template's `${n}`) goes through V8's number-to-string cache: every new number's text is entered
 * in that long-lived table, so the text of every seq, timestamp or count printed since the last
 * scavenge survives it, and a writer that prints a new number per event makes every scavenge copy
 * thousands of strings (docs/performance.md, "Round twenty-seven: the nativeharness writer").
 * These pieces die young.
 */
export function integerDigits(n: number): string {
  if (n < 0) return `-${integerDigits(-n)}`;
  if (n < 100) return UNDER_100[n]!;
  let r = n % 100;
  let text = TWO_DIGITS[r]!;
  n = (n - r) / 100;
  while (n >= 100) {
    r = n % 100;
    text = TWO_DIGITS[r]! + text;
    n = (n - r) / 100;
  }
  return UNDER_100[n]! + text;
}

/**
 * Refuses a value for an integer field of a format whose readers check it (`z.int()`, or its
 * non-negative form): anything but a safe integer (at least 0 when `nonNegative`). Its reader
 * would reject the record with a bare `Invalid input`; the refusal names the event's field, the
 * value and the wire field it would be (`round.end.usage.input: 1.5 is not a safe integer, as
 * HEP's turn_done.usage.input must be`).
 */
export function assertWireInteger(
  n: unknown,
  field: string,
  wire: string,
  format: Format,
  nonNegative = false,
): void {
  if (typeof n === 'number' && Number.isSafeInteger(n) && (!nonNegative || n >= 0)) return;
  if (typeof n !== 'number') throw notANumber(n, field, format);
  const need = nonNegative ? 'a non-negative safe integer' : 'a safe integer';
  throw unencodable(`${field}: ${n} is not ${need}, as ${wire} must be`, format);
}

/** Writes an integer field, refusing what JSON cannot carry exactly. */
export function formatInteger(n: number, field: string, format?: Format): string {
  if (typeof n !== 'number') throw notANumber(n, field, format);
  if (!Number.isSafeInteger(n)) {
    throw unencodable(`${field}: ${n} is not a safe integer; it cannot be written without rounding`, format);
  }
  return String(n);
}

/** `maxDepth` as an option gives it: the default when absent or not a number ≥ 0, at most the ceiling. */
export function resolveMaxDepth(maxDepth: number | undefined): number {
  if (maxDepth === undefined || !(Number.isFinite(maxDepth) && maxDepth >= 0)) return DEFAULT_MAX_DEPTH;
  return Math.min(Math.floor(maxDepth), MAX_DEPTH_CEILING);
}

/**
 * Finds the first number literal in JSON `text` that `JSON.parse` would not keep exactly: an
 * integer beyond ±(2^53 − 1) that a double cannot hold (rounded) or a number beyond the double
 * range (`1e400` → Infinity).
 * Returns its text, or `undefined`. A linear scan, used off the hot path: on records the model
 * has no schema for (unknown records, unknown fields, free-form arguments).
 */
export function findUnsafeNumber(text: string): string | undefined {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // skip a string
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 92) i += 2;
        else if (d === 34) break;
        else i++;
      }
      i++;
      continue;
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      const start = i;
      let digits = 0;
      let plain = true;
      i++;
      if (c !== 45) digits++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d >= 48 && d <= 57) digits++;
        else if (d === 46 || d === 101 || d === 69 || d === 43 || d === 45) plain = false;
        else break;
        i++;
      }
      if (plain ? digits >= 16 : i - start >= 4) {
        const token = text.slice(start, i);
        const value = Number(token);
        // An integer beyond 2^53 that a double holds exactly (1.5e16 written out) is not rounded.
        if (
          plain ? !Number.isSafeInteger(value) && BigInt(token) !== BigInt(value) : !Number.isFinite(value)
        ) {
          return token;
        }
      }
      continue;
    }
    i++;
  }
  return undefined;
}

/**
 * What a decoder says about a record whose JSON text holds a number `JSON.parse` cannot keep
 * exactly ({@link findUnsafeNumber}), or `undefined` when there is none.
 */
export function unsafeNumberMessage(text: string): string | undefined {
  const token = findUnsafeNumber(text);
  if (token === undefined) return undefined;
  const value = Number(token);
  return Number.isFinite(value)
    ? `the integer ${token} is beyond 2^53 and cannot be held exactly (it reads as ${value})`
    : `the number ${token} is beyond the range of a double (it reads as ${value})`;
}

// A key and the number literal after it (a literal is past a double's range only with an
// exponent or 309 digits). A string's content holds no `"` or `\\`: a key written with an
// escape, or a number in an array, is not named (the warning then says no name).
const KEYED_NUMBER = /"([^"\\]*)"\s*:\s*(-?[\d.]+[eE][+-]?\d+|-?\d{309,}[.\d]*)/g;

// The number literals of JSON `text` past a double's range (`1e400`, 400 digits), each said with
// its key (`duration_ms: 1e400`), at most three. Run only for a line whose decoder turned such a
// number down (nonFiniteDiagnostic).
function nonFiniteLiterals(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(KEYED_NUMBER))
    if (found.length < 3 && !Number.isFinite(Number(m[2]))) found.push(`${m[1]}: ${m[2]}`);
  return found;
}

/**
 * The warning of a record whose decoder left a number out because it is past a double's range
 * (the guards counted it: `nonFiniteReads` in src/guards.ts): the literals that are, with their
 * keys, or, when none is (a sum or a product of its numbers went past), that. The event is
 * emitted without the field; the line's bytes are kept as they came.
 */
export function nonFiniteDiagnostic(text: string, line: number, offset: number, format: Format): Diagnostic {
  const found = nonFiniteLiterals(text);
  const what = `${found.length === 0 ? 'a sum or product of its numbers' : found.join(', ')} ${found.length > 1 ? 'are' : 'is'} past a double's range (read as Infinity); left out of the event`;
  return diagnosticAt('invalid_record', 'warning', line, offset, what, format);
}

/** True when the character at `at` (a quote) is escaped: an odd run of backslashes before it. */
export function isEscapedAt(text: string, at: number): boolean {
  let b = at - 1;
  while (text.charCodeAt(b) === 92) b--;
  return ((at - 1 - b) & 1) === 1;
}

/**
 * True when `text` from `at` to its end is one JSON string token and a closing brace: every
 * quote inside the token escaped, the last one not. The shortcuts that parse a record's last
 * string alone check this first, so that `JSON.parse` of the token throws only for a line the
 * general path refuses too (a bad escape, a raw control character): a throw costs as much as
 * many lines (docs/performance.md).
 */
export function isLastStringToken(text: string, at: number): boolean {
  const n = text.length;
  return text.charCodeAt(n - 1) === 125 && isStringToken(text, at, n - 2);
}

/**
 * True when `text[open..close]` is quoted at both ends and every quote between is escaped, the
 * closing one not: one JSON string token as far as its quotes tell (its escapes are
 * `JSON.parse`'s to judge).
 */
function isStringToken(text: string, open: number, close: number): boolean {
  if (close <= open || text.charCodeAt(open) !== 34 || text.charCodeAt(close) !== 34) return false;
  if (isEscapedAt(text, close)) return false;
  for (let q = text.indexOf('"', open + 1); q < close; q = text.indexOf('"', q + 1)) {
    if (!isEscapedAt(text, q)) return false;
  }
  return true;
}

const DELTA_KEY = '","delta":';

/**
 * A text delta record spelled exactly as the UI writers write it,
 * `{"type":"<type>","<idKey>":"<id>","delta":<string>}` with `head` being
 * `{"type":"<type>","<idKey>":"`, read without `JSON.parse` of the record: the head compared as
 * text, the id sliced (plain characters only), the delta parsed alone. Returns the object
 * `JSON.parse(text)` gives (the same keys in the same order, the same values), or `undefined`
 * for any other text, having done nothing (the caller parses it): another spelling, more
 * fields, an escape in the id, a line long enough to be measured for depth first, invalid JSON.
 * `build`, when given, makes that object from the id and the delta in one literal (a decoder's
 * own, whose hidden class outlives a full GC), with the same keys in the same order.
 * Held to `JSON.parse` by test/ui/delta-shortcut.test.ts; its cost: docs/performance.md.
 */
export function readDeltaRecord(
  text: string,
  head: string,
  type: string,
  idKey: string,
  build?: (id: string, delta: unknown) => JsonObject,
): JsonObject | undefined {
  const n = text.length;
  // The head and the delta key compared as slices: a line here is a slice of its chunk's text,
  // where `startsWith` costs more than the slice and one string compare (docs/performance.md,
  // "AG-UI and AI SDK codecs", round five).
  if (n > DEPTH_PRECHECK_CHARS || text.slice(0, head.length) !== head) return undefined;
  const idStart = head.length;
  const idEnd = text.indexOf('"', idStart);
  if (idEnd === -1) return undefined;
  for (let i = idStart; i < idEnd; i++) {
    const c = text.charCodeAt(i);
    if (c < 32 || c === 92) return undefined;
  }
  if (text.slice(idEnd, idEnd + DELTA_KEY.length) !== DELTA_KEY) return undefined;
  const at = idEnd + DELTA_KEY.length;
  if (!isLastStringToken(text, at)) return undefined;
  let delta: unknown;
  try {
    delta = JSON.parse(text.slice(at, n - 1));
  } catch {
    return undefined;
  }
  if (build !== undefined) return build(text.slice(idStart, idEnd), delta);
  const record: JsonObject = { type };
  record[idKey] = text.slice(idStart, idEnd);
  record.delta = delta;
  return record;
}

/**
 * Where the JSON value token that starts at `at` in `text` ends (the index after it), or -1 when
 * it cannot tell (no value starts there, or a string or container is not closed). A string ends
 * at its first unescaped quote (native searches); an object or array at its matching bracket,
 * strings inside skipped; anything else (a number, `true`, `false`, `null`) at the first
 * character no number or literal holds. Exact for valid JSON; on invalid text the token it
 * delimits is invalid too, so `JSON.parse` of the token refuses it. Decoders' shortcuts use it to
 * parse a canonical line's values one by one, without building its record.
 */
export function jsonTokenEnd(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === 34) return stringTokenEnd(text, at);
  if (c === 123 || c === 91) return containerTokenEnd(text, at);
  let i = at;
  for (let d = c; isScalarChar(d); d = text.charCodeAt(++i));
  return i === at ? -1 : i;
}

// Letters, digits, `+`, `-`, `.`: every character of a number or a literal.
function isScalarChar(c: number): boolean {
  return (
    (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 43 || c === 45 || c === 46
  );
}

/** {@link jsonTokenEnd} of a string token (`text[at]` a quote). */
export function stringTokenEnd(text: string, at: number): number {
  let q = text.indexOf('"', at + 1);
  while (q !== -1 && isEscapedAt(text, q)) q = text.indexOf('"', q + 1);
  return q === -1 ? -1 : q + 1;
}

function containerTokenEnd(text: string, at: number): number {
  let depth = 0;
  const n = text.length;
  for (let i = at; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const end = stringTokenEnd(text, i);
      if (end === -1) return -1;
      i = end - 1;
    } else if (c === 123 || c === 91) depth++;
    else if ((c === 125 || c === 93) && --depth === 0) return i + 1;
  }
  return -1;
}
