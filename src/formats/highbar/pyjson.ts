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
