import { assertEncodable } from '../../json';

// Python's `json.dumps` default style, because highbar's reference emitter is Python: `", "` and
// `": "` separators, `ensure_ascii=True`, floats as `repr`. Byte-exact writing depends on it.

const NON_ASCII = /[\u007f-\uffff]/g;

// A string's UTF-8 length equals its length exactly when every character is ASCII. Node's
// `Buffer.byteLength` counts that natively (found at run time, never imported, so the core stays
// loadable in browsers); elsewhere `encodeInto` writing one byte per character says the same.
// Either is several times faster than a character-class regex on long text.
const byteLength = loadByteLength();
const textEncoder = new TextEncoder();
const SCRATCH = 16 * 1024;
let scratch: Uint8Array | undefined;

function loadByteLength(): ((text: string) => number) | undefined {
  try {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const mod = proc?.getBuiltinModule?.('node:buffer') as
      | { Buffer?: { byteLength?: (text: string) => number } }
      | undefined;
    const f = mod?.Buffer?.byteLength;
    return typeof f === 'function' ? (text) => f(text) : undefined;
  } catch {
    return undefined;
  }
}

/** True when no character of `text` is at or above U+007F (DEL, non-ASCII, surrogates). */
export function belowDel(text: string): boolean {
  if (byteLength === undefined) return belowDelByEncoder(text);
  return byteLength(text) === text.length && text.indexOf('\x7f') === -1;
}

/** {@link belowDel} without Node's `Buffer`: what browsers run. */
export function belowDelByEncoder(text: string): boolean {
  scratch ??= new Uint8Array(SCRATCH);
  const n = text.length;
  for (let at = 0; at < n; at += SCRATCH) {
    // A window may split a surrogate pair: a lone surrogate is not ASCII either way.
    const part = at === 0 && n <= SCRATCH ? text : text.slice(at, at + SCRATCH);
    const r = textEncoder.encodeInto(part, scratch);
    if (r.read !== part.length || r.written !== part.length) return false;
  }
  return text.indexOf('\x7f') === -1;
}

// Quoted keys: writers quote the same few keys on every record (bounded: keys from data vary).
const quotedKeys = new Map<string, string>();

/** {@link pyString} of an object key, cached for the keys records repeat. */
export function pyKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = pyString(key);
    if (quotedKeys.size < 512) quotedKeys.set(key, quoted);
  }
  return quoted;
}

function escapeNonAscii(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * A string as Python's `json.dumps` writes it: JSON escapes plus every character outside
 * printable ASCII as lowercase `\uXXXX` (astral characters as their surrogate pair; lone
 * surrogates survive as themselves).
 */
export function pyString(text: string): string {
  const json = JSON.stringify(text);
  // JSON.stringify already escapes controls and lone surrogates as ASCII; the rest is ours.
  return belowDel(json) ? json : json.replace(NON_ASCII, escapeNonAscii);
}

/**
 * A double as Python's `repr(float)`: shortest round-trip digits (as JavaScript finds them),
 * `.0` on integral values, exponent form below 1e-4 and from 1e16 (`1e-05`, `1.5e+16`).
 */
export function pyFloat(n: number): string {
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const a = n < 0 ? -n : n;
  if (a >= 1e-4 && a < 1e16) {
    // Python's fixed range, where JavaScript prints fixed notation too (timestamps live here).
    const s = String(n);
    return s.includes('.') ? s : `${s}.0`;
  }
  const exp = n.toExponential(); // shortest digits: "d.ddde±x"
  const at = exp.indexOf('e');
  const e = Number(exp.slice(at + 1));
  if (e < -4 || e >= 16) {
    const mantissa = exp.slice(0, at);
    const sign = e < 0 ? '-' : '+';
    const digits = String(Math.abs(e)).padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  const s = String(n); // fixed notation in this range
  return s.includes('.') ? s : `${s}.0`;
}

/**
 * A number the way a Python writer most likely produced it: integral values as `int`, the rest
 * as `float` repr. Integral values too large for an exact integer are floats in Python too.
 */
export function pyNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return Object.is(n, -0) ? '-0.0' : String(n);
  return pyFloat(n);
}

function dumps(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return pyString(value);
    case 'number':
      return pyNumber(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return dumps((toJSON as () => unknown).call(value));
      if (Array.isArray(value)) {
        if (value.length === 0) return '[]';
        let s = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) s += ', ';
          const item: unknown = value[i];
          s += item === undefined ? 'null' : dumps(item);
        }
        return `${s}]`;
      }
      let s = '{';
      let first = true;
      for (const key of Object.keys(value)) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined) continue;
        s += `${first ? '' : ', '}${pyKey(key)}: ${dumps(item)}`;
        first = false;
      }
      return `${s}}`;
    }
    default:
      return 'null';
  }
}

/**
 * Serialises a JSON value as Python's `json.dumps(value)` would (integral numbers as ints).
 * Throws `AgentwireError` (`unencodable`) for what JSON cannot hold: non-finite numbers,
 * BigInt, cycles, nesting deeper than 64.
 */
export function pyDumps(value: unknown, field = 'value'): string {
  // Strings and finite numbers are always encodable: skip the walk (and its allocations).
  if (typeof value === 'string') return pyString(value);
  if (typeof value === 'number' && Number.isFinite(value)) return pyNumber(value);
  assertEncodable(value, field, undefined, 'highbar');
  return dumps(value);
}

/**
 * {@link pyDumps} without the encodability check, for values that came out of `JSON.parse`.
 * Top-level keys named in `floats` are written as Python floats (`time.time()` values).
 */
export function pyDumpsParsed(value: unknown, floats?: readonly string[]): string {
  if (floats === undefined || typeof value !== 'object' || value === null || Array.isArray(value)) {
    return dumps(value);
  }
  let s = '{';
  let first = true;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const text = typeof item === 'number' && floats.includes(key) ? pyFloat(item) : dumps(item);
    s += `${first ? '' : ', '}${pyKey(key)}: ${text}`;
    first = false;
  }
  return `${s}}`;
}

/**
 * Joins `[key, encodedValue]` pairs into one Python-style object text (`{"k": v, "k2": v2}`),
 * following `order` when given (keys not in it keep their place, after the ordered ones).
 */
export function joinPy(pieces: Array<[string, string]>, order?: readonly string[]): string {
  if (order !== undefined && pieces.length > 1) {
    const rank = new Map<string, number>();
    order.forEach((k, i) => {
      if (!rank.has(k)) rank.set(k, i);
    });
    const indexed = pieces.map((p, i) => [p, rank.get(p[0]) ?? order.length + i] as const);
    indexed.sort((a, b) => a[1] - b[1]);
    pieces = indexed.map((x) => x[0]);
  }
  let text = '{';
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    if (i > 0) text += ', ';
    text += `${pyKey(piece[0])}: ${piece[1]}`;
  }
  return `${text}}`;
}

/** Deep equality of two JSON values, object key order ignored (numbers by value). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k)) return false;
    if (!sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** {@link scanLine} flag: the line may not be in Python `json.dumps` style; compare it exactly. */
export const SCAN_SUSPECT = 1;
/** {@link scanLine} flag: an integer token beyond 2^53 (JSON.parse rounds it). */
export const SCAN_BIG_INTEGER = 2;

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102);
}

// The value of a digit isHex accepted.
function hexValue(c: number): number {
  return c <= 57 ? c - 48 : c - 87;
}

/**
 * One pass over a JSON line looking for what a Python `json.dumps` writer never produces: other
 * separators or whitespace, raw non-ASCII, escapes Python does not use, numbers with trailing
 * zeros (`1.0`, `1.50`) or exponents, integer-like keys (JavaScript reorders them). A hit costs
 * the caller an exact comparison; no hit means re-serialising gives the line back. Also flags
 * integers past 2^53. Linear, allocation-free.
 */
export function scanLine(text: string): number {
  // Raw control or non-ASCII characters make a line suspect wherever they are; the exact
  // character walk below tells where (and what it saw before).
  if (NOT_PRINTABLE_ASCII.test(text)) return scanChars(text);
  let flags = 0;
  const n = text.length;
  let i = 0;
  let quote = -1;
  let backslash = -2; // not searched yet
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: jump between escapes and the closing quote with native searches (every
      // character is printable ASCII here, so only escapes and keys need a closer look).
      const open = ++i;
      for (;;) {
        if (quote < i) quote = text.indexOf('"', i);
        if (backslash !== -1 && backslash < i) backslash = text.indexOf('\\', i);
        if (backslash === -1 || backslash > quote || quote === -1) break;
        const e = text.charCodeAt(backslash + 1);
        if (e === 117) {
          const suspect = escapeIsSuspect(text, backslash);
          if (suspect) return flags | SCAN_SUSPECT;
          i = backslash + 6;
        } else if (e === 47)
          return flags | SCAN_SUSPECT; // "\/"
        else i = backslash + 2;
      }
      if (quote === -1) return flags | SCAN_SUSPECT;
      i = quote + 1;
      if (i - 1 > open && text.charCodeAt(i) === 58 && digitsOnly(text, open, i - 1))
        return flags | SCAN_SUSPECT;
      continue;
    }
    if ((c >= 48 && c <= 57) || c === 45) {
      i = numberEnd(text, i);
      if (i < 0) return flags | SCAN_SUSPECT;
      if (bigInteger) flags |= SCAN_BIG_INTEGER;
      continue;
    }
    if (c === 44 || c === 58) {
      if (!isPythonSeparator(text, i)) return flags | SCAN_SUSPECT;
      i += 2;
      continue;
    }
    if (isJsonSpace(c)) return flags | SCAN_SUSPECT;
    i++;
  }
  return flags;
}

const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;

// Set by numberEnd for the token it just read (module-level: a number costs no allocation).
let bigInteger = false;

// The end of the number token at `i` (a digit or `-`), or -1 when Python's json.dumps would not
// have written it so: an exponent, or a fraction ending in 0 (`1.0`, `1.50`). Sets `bigInteger`
// for an integer past 2^53. Shared by both scans.
function numberEnd(text: string, i: number): number {
  const n = text.length;
  const start = i;
  let dot = -1;
  bigInteger = false;
  i++;
  while (i < n) {
    const d = text.charCodeAt(i);
    if (d >= 48 && d <= 57) i++;
    else if (d === 46) {
      dot = i;
      i++;
    } else if (d === 101 || d === 69 || d === 43) {
      return -1; // an exponent: compare exactly
    } else break;
  }
  if (dot !== -1) {
    if (text.charCodeAt(i - 1) === 48) return -1;
  } else if (i - start >= 16 && !Number.isSafeInteger(Number(text.slice(start, i)))) {
    bigInteger = true;
  }
  return i;
}

function isJsonSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

// The `,` or `:` at `i` is followed as Python writes it: one space, then no more whitespace.
function isPythonSeparator(text: string, i: number): boolean {
  return text.charCodeAt(i + 1) === 32 && !isJsonSpace(text.charCodeAt(i + 2));
}

function digitsOnly(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

// A `\uXXXX` escape Python would not write: not lowercase hex, or a character it writes as is
// (printable ASCII) or with a short escape.
function escapeIsSuspect(text: string, at: number): boolean {
  const a = text.charCodeAt(at + 2);
  const b = text.charCodeAt(at + 3);
  const d = text.charCodeAt(at + 4);
  const f = text.charCodeAt(at + 5);
  if (!isHex(a) || !isHex(b) || !isHex(d) || !isHex(f)) return true;
  const code = (hexValue(a) << 12) | (hexValue(b) << 8) | (hexValue(d) << 4) | hexValue(f);
  return (
    (code >= 0x20 && code <= 0x7e) || code === 8 || code === 9 || code === 10 || code === 12 || code === 13
  );
}

// The character-by-character walk, for lines with raw control or non-ASCII characters.
function scanChars(text: string): number {
  let flags = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // a string: find its end, checking characters and escapes
      let digitsOnly = true;
      let empty = true;
      i++;
      while (i < n) {
        const s = text.charCodeAt(i);
        if (s === 34) break;
        empty = false;
        if (s < 48 || s > 57) digitsOnly = false;
        if (s === 92) {
          const e = text.charCodeAt(i + 1);
          if (e === 117) {
            if (escapeIsSuspect(text, i)) return flags | SCAN_SUSPECT;
            i += 6;
            continue;
          }
          if (e === 47) return flags | SCAN_SUSPECT; // "\/"
          i += 2;
          continue;
        }
        if (s < 0x20 || s > 0x7e) return flags | SCAN_SUSPECT;
        i++;
      }
      i++;
      if (digitsOnly && !empty && text.charCodeAt(i) === 58) return flags | SCAN_SUSPECT;
      continue;
    }
    if ((c >= 48 && c <= 57) || c === 45) {
      i = numberEnd(text, i);
      if (i < 0) return flags | SCAN_SUSPECT;
      if (bigInteger) flags |= SCAN_BIG_INTEGER;
      continue;
    }
    if (c === 44 || c === 58) {
      if (!isPythonSeparator(text, i)) return flags | SCAN_SUSPECT;
      i += 2;
      continue;
    }
    if (isJsonSpace(c)) return flags | SCAN_SUSPECT;
    i++;
  }
  return flags;
}

/** {@link pyShape}: the line is the record exactly as Python `json.dumps` writes it. */
export const SHAPE_PYTHON = 0;
/** {@link pyShape}: the record nests deeper than the bound. */
export const SHAPE_TOO_DEEP = 1;
/** {@link pyShape}: not decided here; {@link scanLine} (and the depth scan) decide. */
export const SHAPE_UNKNOWN = 2;

// The walk's text and its next backslash (at or after the last search point; -1 none, -2 not
// searched): module-level so a line costs no allocation. Positions travel in locals and return
// values (a negative position is the verdict), which V8 keeps in registers.
let src = '';
let backslash = -2;
const UNKNOWN = -1;
const TOO_DEEP = -2;

/**
 * Decides, for the common line, what {@link scanLine} would: walks the parsed `value` and the
 * line together, comparing the line with Python's `json.dumps` text of the value piece by piece
 * (keys and small values as text, numbers as JavaScript prints them). A string is not
 * re-escaped: its escapes are checked where the line has them, and the line's token must be as
 * long as the value plus what those escapes add. With the token ASCII (non-ASCII escaped, as
 * Python writes it), a token that was not exactly this string (another writer's escapes, or more
 * tokens inside) would be longer, so the native searches for backslashes are all the walk spends
 * on long text. `SHAPE_PYTHON` implies
 * `scanLine(text) === 0`; anything unusual (non-ASCII, exponents, integer keys, …) is
 * `SHAPE_UNKNOWN`. Also reports nesting deeper than `maxDepth` (containers, outermost = 1).
 */
export function pyShape(text: string, value: unknown, maxDepth: number): number {
  src = text;
  backslash = -2;
  const end = valueShape(value, 0, 1, maxDepth);
  src = '';
  if (end === TOO_DEEP) return SHAPE_TOO_DEEP;
  return end === text.length ? SHAPE_PYTHON : SHAPE_UNKNOWN;
}

// The position after `value`'s text at `at`, or UNKNOWN / TOO_DEEP.
function valueShape(value: unknown, at: number, depth: number, max: number): number {
  switch (typeof value) {
    case 'string':
      return stringShape(value, at);
    case 'number':
      return numberShape(value, at);
    case 'boolean':
      return word(value ? 'true' : 'false', at);
    case 'object':
      if (value === null) return word('null', at);
      if (depth > max) return TOO_DEEP;
      return Array.isArray(value) ? arrayShape(value, at, depth, max) : objectShape(value, at, depth, max);
    default:
      return UNKNOWN;
  }
}

function arrayShape(value: unknown[], at: number, depth: number, max: number): number {
  if (src.charCodeAt(at) !== 91) return UNKNOWN;
  at++;
  for (let i = 0; i < value.length; i++) {
    if (i > 0) {
      if (src.charCodeAt(at) !== 44 || src.charCodeAt(at + 1) !== 32) return UNKNOWN;
      at += 2;
    }
    at = valueShape(value[i], at, depth + 1, max);
    if (at < 0) return at;
  }
  return src.charCodeAt(at) === 93 ? at + 1 : UNKNOWN;
}

function objectShape(value: object, at: number, depth: number, max: number): number {
  if (src.charCodeAt(at) !== 123) return UNKNOWN;
  at++;
  // Object.keys, not for…in: a keyed load inside for…in costs 3× as much on parsed records.
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (i > 0) {
      if (src.charCodeAt(at) !== 44 || src.charCodeAt(at + 1) !== 32) return UNKNOWN;
      at += 2;
    }
    at = keyShape(key, at);
    if (at < 0) return UNKNOWN;
    const item = (value as Record<string, unknown>)[key];
    // Strings and numbers inline: most values are, and a call per value costs more than its check.
    if (typeof item === 'string') at = stringShape(item, at);
    else if (typeof item === 'number') at = numberShape(item, at);
    else at = valueShape(item, at, depth + 1, max);
    if (at < 0) return at;
  }
  return src.charCodeAt(at) === 125 ? at + 1 : UNKNOWN;
}

function word(w: string, at: number): number {
  return src.startsWith(w, at) ? at + w.length : UNKNOWN;
}

// Integers as ints, other numbers in JavaScript's shortest form when it has no exponent: what
// the scan passes (no exponent, no trailing zero, nothing past 2^53).
function numberShape(n: number, at: number): number {
  let s: string;
  if (Number.isSafeInteger(n)) s = String(n);
  else {
    if (!Number.isFinite(n) || Number.isInteger(n)) return UNKNOWN;
    s = String(n);
    if (s.includes('e')) return UNKNOWN;
  }
  return src.startsWith(s, at) ? at + s.length : UNKNOWN;
}

// `"key": ` at `at` for a plain printable ASCII key (compared in place); integer-like keys
// (JavaScript reorders them, the scan flags them) and keys needing escapes are left to the scan.
function keyShape(key: string, at: number): number {
  const n = key.length;
  if (src.charCodeAt(at) !== 34) return UNKNOWN;
  let digits = n > 0;
  for (let i = 0; i < n; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 34 || c === 92 || src.charCodeAt(at + 1 + i) !== c) return UNKNOWN;
    if (c < 48 || c > 57) digits = false;
  }
  at += n + 1;
  if (digits || src.charCodeAt(at) !== 34 || src.charCodeAt(at + 1) !== 58 || src.charCodeAt(at + 2) !== 32) {
    return UNKNOWN;
  }
  return at + 3;
}

function asciiValue(v: string): boolean {
  const n = v.length;
  if (n > 64) return belowDel(v);
  for (let i = 0; i < n; i++) if (v.charCodeAt(i) > 0x7e) return false;
  return true;
}

// The token at `at` is `v` as Python writes it (see pyShape for why the length settles it).
function stringShape(v: string, at: number): number {
  if (src.charCodeAt(at) !== 34) return UNKNOWN;
  // Python writes non-ASCII as escapes: then the token, not the value, must be ASCII.
  const ascii = asciiValue(v);
  let end = at + 1 + v.length; // where the closing quote is, given the escapes seen so far
  let from = at + 1;
  for (;;) {
    if (backslash !== -1 && backslash < from) backslash = src.indexOf('\\', from);
    if (backslash === -1 || backslash >= end) break;
    const e = src.charCodeAt(backslash + 1);
    if (e === 117) {
      if (escapeIsSuspect(src, backslash)) return UNKNOWN;
      end += 5;
      from = backslash + 6;
    } else if (e === 47) {
      return UNKNOWN; // "\/"
    } else {
      end += 1;
      from = backslash + 2;
    }
  }
  if (src.charCodeAt(end) !== 34 || !(ascii || belowDel(src.slice(at, end)))) return UNKNOWN;
  return end + 1;
}
