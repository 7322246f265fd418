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

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102);
}

// The value of a digit isHex accepted.
function hexValue(c: number): number {
  return c <= 57 ? c - 48 : c - 87;
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

/** {@link pyShape}: the line is the record exactly as Python `json.dumps` writes it. */
export const SHAPE_PYTHON = 0;
/** {@link pyShape}: the record nests deeper than the bound. */
export const SHAPE_TOO_DEEP = 1;
/** {@link pyShape}: not decided here: compare the line with {@link pyDumpsParsed} (and scan its depth). */
export const SHAPE_UNKNOWN = 2;

// The walk's text and its next backslash (at or after the last search point; -1 none, -2 not
// searched), and whether the text is known to hold no character at or above U+007F:
// module-level so a line costs no allocation. Positions travel in locals and return values (a
// negative position is the verdict), which V8 keeps in registers.
let src = '';
let backslash = -2;
let srcBelowDel = false;
const UNKNOWN = -1;
const TOO_DEEP = -2;

/**
 * Decides, for the common line, that it is exactly `pyDumpsParsed(value)`: walks the parsed
 * `value` and the line together, comparing the line with Python's `json.dumps` text of the value
 * piece by piece (keys and small values as text, numbers as JavaScript prints them). A string is
 * not re-escaped: its escapes are checked where the line has them, and the line's token must be
 * as long as the value plus what those escapes add. With the token ASCII (non-ASCII escaped, as
 * Python writes it), a token that was not exactly this string (another writer's escapes, or more
 * tokens inside) would be longer, so the native searches for backslashes are all the walk spends
 * on long text. `SHAPE_PYTHON` implies `pyDumpsParsed(value) === text`; anything unusual (raw
 * non-ASCII, exponents, integer-like or escaped keys, duplicate keys, floats written with more
 * digits than they need, …) is `SHAPE_UNKNOWN`, for the caller to compare exactly. Also reports
 * nesting deeper than `maxDepth` (containers, outermost = 1).
 *
 * `ascii` says the caller knows `text` has no character above U+007F (the line splitter does: a
 * line as long in characters as in UTF-8 bytes); the walk then checks once for DEL instead of
 * testing every string value.
 */
export function pyShape(text: string, value: unknown, maxDepth: number, ascii = false): number {
  src = text;
  backslash = -2;
  srcBelowDel = ascii && text.indexOf('\x7f') === -1;
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
  // Object.keys, not for…in: a keyed load inside for…in costs more on parsed records
  // (docs/performance.md, "Figures behind source comments").
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    at = keyShape(key, i, at);
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
  return src.indexOf(w, at) === at ? at + w.length : UNKNOWN;
}

// Integers as ints (safe ones: past 2^53 the text may not be the value), other numbers as Python's
// repr writes them where it agrees with JavaScript's shortest form: no exponent, and not below
// 1e-4 (JavaScript writes 0.00001, Python 1e-05). The last fraction's text is kept: a record's
// times are mostly one value, and printing a double costs more than the walk.
let lastFraction = 0.5;
let lastFractionText = '0.5';

function numberShape(n: number, at: number): number {
  let s: string;
  if (Number.isSafeInteger(n)) s = String(n);
  else if (n === lastFraction) s = lastFractionText;
  else {
    if (!Number.isFinite(n) || Number.isInteger(n) || (n < 1e-4 && n > -1e-4)) return UNKNOWN;
    s = String(n);
    if (s.includes('e')) return UNKNOWN;
    lastFraction = n;
    lastFractionText = s;
  }
  return src.indexOf(s, at) === at ? at + s.length : UNKNOWN;
}

// `"key": ` as Python writes it (after `, ` unless `first`), for a plain printable ASCII key,
// else '': integer-like keys (JavaScript reorders them) and keys needing escapes are left to the
// exact comparison.
function keyText(key: string, first: boolean): string {
  const n = key.length;
  let digits = n > 0;
  for (let i = 0; i < n; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 34 || c === 92) return '';
    if (c < 48 || c > 57) digits = false;
  }
  if (digits) return '';
  return first ? `"${key}": ` : `, "${key}": `;
}

// The key text last seen at each position of an object: records repeat their keys in order, and
// JSON.parse interns keys, so a hit is one pointer comparison and one native search. (`indexOf`
// at the expected place: cheaper than `startsWith` on V8 11, and a miss ends the walk.)
const KEY_SLOTS = 16;
const slotKeys: string[] = new Array<string>(KEY_SLOTS).fill('');
const slotTexts: string[] = ['"": ', ...new Array<string>(KEY_SLOTS - 1).fill(', "": ')];

// The `index`th key of its object, with the separator before it, at `at`.
function keyShape(key: string, index: number, at: number): number {
  let t: string;
  if (index < KEY_SLOTS && slotKeys[index] === key) t = slotTexts[index]!;
  else {
    t = keyText(key, index === 0);
    if (index < KEY_SLOTS) {
      slotKeys[index] = key;
      slotTexts[index] = t;
    }
  }
  return t !== '' && src.indexOf(t, at) === at ? at + t.length : UNKNOWN;
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
  if (src.charCodeAt(end) !== 34) return UNKNOWN;
  // Python writes non-ASCII as escapes: the token, not the value, must be ASCII (and an ASCII
  // value has an ASCII token).
  if (!srcBelowDel && !asciiValue(v) && !belowDel(src.slice(at, end))) return UNKNOWN;
  return end + 1;
}
