// A cursor over one JSON line, for the canonical-line readers (docs/performance.md, "Claude
// decoder"): a line spelled exactly as its writer spells it is read piece by piece, the fixed
// text between its values compared in place and each value read alone, without parsing the whole
// record. Every function either reads its piece and moves the cursor past it, or returns
// `undefined`/`false` (the caller then gives the line to its general path). A reader that checks
// every piece of a line in order, up to its end, has proved the line is the JSON text it expects,
// so the values it read are the ones `JSON.parse` of the whole line holds.

import { jsonTokenEnd, plainRunEnd, stringTokenEnd } from './json';

/** The line and the cursor (a literal: its hidden class outlives a full GC). */
export interface TextReader {
  readonly text: string;
  at: number;
}

/** A reader at the start of `text`. */
export function textReader(text: string): TextReader {
  return { text, at: 0 };
}

/**
 * True (the cursor moved past it) when `fixed` is the text at the cursor. Its last character is
 * compared first, so that a missing optional key is told without a search; then `indexOf` from
 * the cursor (`startsWith` with a position costs several times more in Node 20: docs/performance.md,
 * "Claude decoder").
 */
export function readFixed(r: TextReader, fixed: string): boolean {
  const at = r.at;
  const last = fixed.length - 1;
  if (r.text.charCodeAt(at + last) !== fixed.charCodeAt(last)) return false;
  if (last > 0 && r.text.indexOf(fixed, at) !== at) return false;
  r.at = at + last + 1;
  return true;
}

// The characters a JSON string may hold unescaped, up to its closing quote: anything but a quote,
// a backslash or a control character (RFC 8259). Sticky: it matches at `lastIndex` only.
const PLAIN_STRING_REST = /[^"\\\u0000-\u001f]*"/y;

/**
 * True (the cursor then past its closing quote) when a string whose characters need no escape
 * opens at the cursor (a line's uuid, a timestamp: a value checked, not kept): one sticky regular
 * expression, not `JSON.parse` of the token (docs/performance.md, "Claude decoder", round six).
 * False for a backslash or a raw control character before the closing quote, or no closing quote.
 */
export function skipPlainString(r: TextReader): boolean {
  const start = r.at;
  if (r.text.charCodeAt(start) !== 34) return false;
  PLAIN_STRING_REST.lastIndex = start + 1;
  if (!PLAIN_STRING_REST.test(r.text)) return false;
  r.at = PLAIN_STRING_REST.lastIndex;
  return true;
}

/**
 * Most characters of a plain string {@link readPlainString} takes as a slice of the line: V8 copies
 * a substring shorter than its sliced strings' least length (`SlicedString::kMinLength`, 13), so
 * such a slice holds nothing of the line; a longer one would point into the chunk's whole text.
 */
const COPIED_SLICE_CHARS = 12;

/**
 * A string whose characters need no escape (an id, a model), at the cursor (see
 * {@link skipPlainString}); the cursor then past its closing quote. When it is `known` (the
 * session or message id the last line said), `known` itself. Otherwise a string of its own: one
 * of at most `COPIED_SLICE_CHARS` characters is the slice between its quotes (it holds no escape,
 * so the slice is its value, and a slice that short is a copy), which costs a fraction of
 * `JSON.parse` of the token, whose fixed cost per call is most of a short token's reading
 * (docs/performance.md, "AG-UI and AI SDK decoders", round twenty); a longer one comes from
 * `JSON.parse` of the token, not a slice of the line, which would keep the whole chunk's text
 * alive as long as an event holds the value.
 */
export function readPlainString(r: TextReader, known?: string): string | undefined {
  const start = r.at;
  if (!skipPlainString(r)) return undefined;
  const text = r.text;
  const end = r.at;
  const length = end - start - 2;
  if (known !== undefined && known.length === length && text.slice(start + 1, end - 1) === known)
    return known;
  return length <= COPIED_SLICE_CHARS
    ? text.slice(start + 1, end - 1)
    : (JSON.parse(text.slice(start, end)) as string);
}

/** `null` (as `undefined`) or a plain string (see {@link readPlainString}); `false` otherwise. */
export function readPlainOrNull(r: TextReader): string | undefined | false {
  if (readFixed(r, 'null')) return undefined;
  return readPlainString(r) ?? false;
}

/**
 * Whether the digits `text[start, end)` (found by the caller's scan) are a number `JSON.parse`
 * reads exactly as their value: at least one, no leading zero, at most 15 (always a safe
 * integer). The one spelling of that rule for every canonical-line reader.
 */
export function isPlainUint(text: string, start: number, end: number): boolean {
  const digits = end - start;
  return digits !== 0 && digits <= 15 && (digits === 1 || text.charCodeAt(start) !== 48);
}

/**
 * A non-negative integer in plain digits at the cursor: no sign, no leading zero, no fraction or
 * exponent, at most 15 digits (always a safe integer, the number `JSON.parse` reads). The cursor
 * then past it.
 */
export function readDigits(r: TextReader): number | undefined {
  const text = r.text;
  const start = r.at;
  let i = start;
  let value = 0;
  for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) value = value * 10 + c - 48;
  if (!isPlainUint(text, start, i)) return undefined;
  r.at = i;
  return value;
}

/**
 * The text from the cursor to `end` parsed as one JSON value (`undefined` when it is not one, or
 * `end` is before the cursor); the cursor then at `end`. Where a value ends is found by the caller
 * from the fixed text after it: when the slice up to there parses, it was the whole value.
 */
export function readJsonTo(r: TextReader, end: number): unknown {
  if (end <= r.at) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(r.text.slice(r.at, end));
  } catch {
    return undefined;
  }
  r.at = end;
  return value;
}

/** {@link readJsonTo} when the value is a string; `undefined` otherwise (the cursor unmoved). */
export function readStringTo(r: TextReader, end: number): string | undefined {
  if (r.text.charCodeAt(r.at) !== 34 || r.text.charCodeAt(end - 1) !== 34) return undefined;
  const at = r.at;
  const value = readJsonTo(r, end);
  if (typeof value === 'string') return value;
  r.at = at;
  return undefined;
}

/**
 * A string token at the cursor, whatever it holds (escapes, quotes, a text of many lines): the
 * slice when nothing in it needs reading (one native scan to its closing quote), else the token
 * found up to its first unescaped quote ({@link stringTokenEnd}) and parsed alone. `undefined` (the
 * cursor unmoved) when no string starts at the cursor or the token is not JSON (a raw control
 * character, a bad escape). The cursor then past its closing quote.
 */
export function readString(r: TextReader): string | undefined {
  const text = r.text;
  const at = r.at;
  if (text.charCodeAt(at) !== 34) return undefined;
  const stop = plainRunEnd(text, at + 1);
  if (text.charCodeAt(stop) === 34) {
    r.at = stop + 1;
    return text.slice(at + 1, stop);
  }
  // From its opening quote to its first unescaped one: a string token, or no JSON at all.
  return readJsonTo(r, stringTokenEnd(text, at)) as string | undefined;
}

/**
 * The JSON value that starts at the cursor (a free-form value: a tool's arguments), found by
 * {@link jsonTokenEnd} and parsed alone; `undefined` (the cursor unmoved) when none is there or
 * it is not JSON. The cursor then past it.
 */
export function readJsonValue(r: TextReader): unknown {
  return readJsonTo(r, jsonTokenEnd(r.text, r.at));
}

/**
 * `value`, read before from the token `text[start, end)`, when the same token text is at the
 * cursor again (a record that repeats a value: a session id, a tool's output and its metadata
 * copy): one native compare instead of reading it again. The same characters are the same token,
 * ending at the same place. `undefined` (the cursor unmoved) otherwise.
 */
export function readAgain<T>(r: TextReader, start: number, end: number, value: T): T | undefined {
  const at = r.at;
  const text = r.text;
  const length = end - start;
  if (text.charCodeAt(at + length - 1) !== text.charCodeAt(end - 1)) return undefined;
  if (text.slice(at, at + length) !== text.slice(start, end)) return undefined;
  r.at = at + length;
  return value;
}
