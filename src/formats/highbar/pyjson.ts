import { assertEncodable } from '../../json';

// Python's `json.dumps` default style, because highbar's reference emitter is Python: `", "` and
// `": "` separators, `ensure_ascii=True`, floats as `repr`. Byte-exact writing depends on it.

const NON_ASCII = /[\u007f-\uffff]/g;

// `encodeInto` writes one byte per character exactly when every character is ASCII: a native,
// platform-neutral ASCII test several times faster than a character-class regex on long text.
const textEncoder = new TextEncoder();
const SCRATCH = 16 * 1024;
let scratch: Uint8Array | undefined;

/** True when no character of `text` is at or above U+007F (DEL, non-ASCII, surrogates). */
export function belowDel(text: string): boolean {
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
      const start = i;
      let dot = -1;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d >= 48 && d <= 57) i++;
        else if (d === 46) {
          dot = i;
          i++;
        } else if (d === 101 || d === 69 || d === 43) {
          return flags | SCAN_SUSPECT; // an exponent: compare exactly
        } else break;
      }
      if (dot !== -1) {
        if (text.charCodeAt(i - 1) === 48) return flags | SCAN_SUSPECT; // 1.0, 1.50
      } else if (i - start >= 16 && !Number.isSafeInteger(Number(text.slice(start, i)))) {
        flags |= SCAN_BIG_INTEGER;
      }
      continue;
    }
    if (c === 44 || c === 58) {
      if (text.charCodeAt(i + 1) !== 32) return flags | SCAN_SUSPECT;
      const after = text.charCodeAt(i + 2);
      if (after === 32 || after === 9 || after === 10 || after === 13) return flags | SCAN_SUSPECT;
      i += 2;
      continue;
    }
    if (c === 32 || c === 9 || c === 10 || c === 13) return flags | SCAN_SUSPECT;
    i++;
  }
  return flags;
}

const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;

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
  const code = Number.parseInt(text.slice(at + 2, at + 6), 16);
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
            const a = text.charCodeAt(i + 2);
            const b = text.charCodeAt(i + 3);
            const d = text.charCodeAt(i + 4);
            const f = text.charCodeAt(i + 5);
            if (!isHex(a) || !isHex(b) || !isHex(d) || !isHex(f)) return flags | SCAN_SUSPECT;
            const code = Number.parseInt(text.slice(i + 2, i + 6), 16);
            if (
              (code >= 0x20 && code <= 0x7e) ||
              code === 8 ||
              code === 9 ||
              code === 10 ||
              code === 12 ||
              code === 13
            )
              return flags | SCAN_SUSPECT;
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
      const start = i;
      let dot = -1;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d >= 48 && d <= 57) i++;
        else if (d === 46) {
          dot = i;
          i++;
        } else if (d === 101 || d === 69 || d === 43) {
          return flags | SCAN_SUSPECT; // an exponent: compare exactly
        } else break;
      }
      if (dot !== -1) {
        if (text.charCodeAt(i - 1) === 48) return flags | SCAN_SUSPECT; // 1.0, 1.50
      } else if (i - start >= 16 && !Number.isSafeInteger(Number(text.slice(start, i)))) {
        flags |= SCAN_BIG_INTEGER;
      }
      continue;
    }
    if (c === 44 || c === 58) {
      if (text.charCodeAt(i + 1) !== 32) return flags | SCAN_SUSPECT;
      const after = text.charCodeAt(i + 2);
      if (after === 32 || after === 9 || after === 10 || after === 13) return flags | SCAN_SUSPECT;
      i += 2;
      continue;
    }
    if (c === 32 || c === 9 || c === 10 || c === 13) return flags | SCAN_SUSPECT;
    i++;
  }
  return flags;
}
