import fc from 'fast-check';

// A JSON value that remembers what its writer knew and JSON.parse forgets: whether a number was
// an int or a double (Dart writes 1 and 1.0), and the order of an object's keys (JavaScript lists
// integer-like keys first). `spell` prints it the way one writer or another does, so a property
// can re-spell the same record and compare the bytes that come back.

/** A JSON value with its writer's knowledge. */
export type Spelled =
  | { t: 'int'; v: number }
  | { t: 'dbl'; v: number }
  | { t: 'str'; v: string }
  | { t: 'bool'; v: boolean }
  | { t: 'null' }
  | { t: 'arr'; v: Spelled[] }
  | { t: 'obj'; v: Array<[string, Spelled]> };

export const int = (v: number): Spelled => ({ t: 'int', v });
export const dbl = (v: number): Spelled => ({ t: 'dbl', v });
export const str = (v: string): Spelled => ({ t: 'str', v });
export const bool = (v: boolean): Spelled => ({ t: 'bool', v });
export const nul: Spelled = { t: 'null' };
export const arr = (v: Spelled[]): Spelled => ({ t: 'arr', v });
export const obj = (v: Array<[string, Spelled]>): Spelled => ({ t: 'obj', v });

/** How a writer spells what it writes. Every flag off: ES2019 JSON.stringify's escaping, compact. */
export interface Style {
  /**
   * Doubles: `js` (JavaScript's shortest form), `dart` (`1.0`, `-0.0`), `g17` (`toPrecision(17)`),
   * `exp` (`1.5e+0`), `py` (Python's `repr`: `1.0`, `1e-05`, `1e+16`), `c17` (C's `%.17g`:
   * `0.10000000000000001`, `1`, `1.0000000000000001e-05`), `go` (Go's encoding/json: JavaScript's
   * form, `-0` kept), `rust` (Rust's ryu: `1.0`, `1e-6`, `1e16`), `java` (`Double.toString`:
   * `1.0`, `1.0E-5`, `1.792983750215E9`).
   */
  doubles?: 'js' | 'dart' | 'g17' | 'exp' | 'py' | 'c17' | 'go' | 'rust' | 'java';
  /** Exponent letter `E`. */
  upperE?: boolean;
  /** Integers written as doubles (`3.0`). */
  intAsDouble?: boolean;
  /** `\/` for `/`. */
  escapeSlash?: boolean;
  /** `\u0041` for ASCII letters. */
  escapeLetters?: boolean;
  /** `\u00e9` for everything from U+007F up (Python's ensure_ascii). */
  escapeNonAscii?: boolean;
  /** `\u000a` for the controls JSON has a short escape for. */
  longControls?: boolean;
  /** Uppercase hex digits in `\u` escapes. */
  upperHex?: boolean;
  /** Separators. */
  colon?: string;
  comma?: string;
  /** A space inside every `{}` and `[]`. */
  pad?: boolean;
  /** The first key of every non-empty object written twice (same value). */
  duplicateKey?: boolean;
  /** `\u003c`, `\u003e`, `\u0026` for `<`, `>`, `&` (Go's and Gson's HTML-safe escaping). */
  escapeHtml?: boolean;
  /** `\u2028`, `\u2029` for the line and paragraph separators (Go, Gson). */
  escapeLineSeparators?: boolean;
  /** Every object's keys sorted (Python's `sort_keys=True`, Go maps). */
  sortKeys?: boolean;
}

const SHORT: Record<number, string> = { 8: 'b', 9: 't', 10: 'n', 12: 'f', 13: 'r', 34: '"', 92: '\\' };

function hex4(c: number, upper: boolean | undefined): string {
  const h = c.toString(16).padStart(4, '0');
  return `\\u${upper === true ? h.toUpperCase() : h}`;
}

function isLone(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    return !(d >= 0xdc00 && d <= 0xdfff);
  }
  if (c >= 0xdc00 && c <= 0xdfff) {
    const b = s.charCodeAt(i - 1);
    return !(b >= 0xd800 && b <= 0xdbff);
  }
  return false;
}

/** A string as `style` escapes it. */
export function spellString(s: string, style: Style = {}): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const short = SHORT[c];
    if (short !== undefined && !(style.longControls === true && c < 32)) out += `\\${short}`;
    else if (c < 32) out += hex4(c, style.upperHex);
    else if (c === 47 && style.escapeSlash === true) out += '\\/';
    else if (style.escapeHtml === true && (c === 60 || c === 62 || c === 38)) out += hex4(c, style.upperHex);
    else if (style.escapeLineSeparators === true && (c === 0x2028 || c === 0x2029))
      out += hex4(c, style.upperHex);
    else if (style.escapeLetters === true && ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)))
      out += hex4(c, style.upperHex);
    else if (isLone(s, i) || (c >= 0x7f && style.escapeNonAscii === true)) out += hex4(c, style.upperHex);
    else out += s[i];
  }
  return `${out}"`;
}

/** A double as Dart's `double.toString` prints it (what `jsonEncode` writes). */
export function dartDouble(n: number): string {
  if (n === 0) return 1 / n < 0 ? '-0.0' : '0.0';
  const s = String(n);
  return s.includes('.') || s.includes('e') ? s : `${s}.0`;
}

// The shortest digits that read back as `n` (JavaScript's, which every shortest printer shares),
// and the exponent of the first one: n = 0.d1d2… × 10^(e + 1).
function shortest(n: number): { sign: string; digits: string; e: number } {
  const [m, x] = Math.abs(n).toExponential().split('e') as [string, string];
  return { sign: n < 0 || Object.is(n, -0) ? '-' : '', digits: m.replace('.', ''), e: Number(x) };
}

// `digits` with the decimal point after `point` digits (zeros added either side as needed).
function fixed(digits: string, point: number): string {
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A double as Python's `repr(float)` prints it (what `json.dumps` writes). */
export function pyRepr(n: number): string {
  const { sign, digits, e } = shortest(n);
  if (n === 0) return `${sign}0.0`;
  if (e < -4 || e >= 16) {
    const m = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    return `${sign}${m}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  const f = fixed(digits, e + 1);
  return sign + (f.includes('.') ? f : `${f}.0`);
}

/** A double as C's `printf("%.17g")` prints it. */
export function c17(n: number): string {
  const sign = n < 0 || Object.is(n, -0) ? '-' : '';
  if (n === 0) return `${sign}0`;
  const a = Math.abs(n);
  const [m, x] = a.toExponential(16).split('e') as [string, string];
  const e = Number(x);
  const strip = (s: string) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
  if (e < -4 || e >= 17)
    return `${sign}${strip(m)}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return sign + strip(a.toFixed(16 - e));
}

/** A double as Rust's serde_json (ryu) prints it. */
export function rustDouble(n: number): string {
  const { sign, digits, e } = shortest(n);
  if (n === 0) return `${sign}0.0`;
  if (e >= -5 && e <= 15) {
    const f = fixed(digits, e + 1);
    return sign + (f.includes('.') ? f : `${f}.0`);
  }
  const m = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  return `${sign}${m}e${e}`;
}

/** A double as Java's `Double.toString` prints it (shortest digits, as JDK 19 and later). */
export function javaDouble(n: number): string {
  const { sign, digits, e } = shortest(n);
  if (n === 0) return `${sign}0.0`;
  if (e >= -3 && e < 7) {
    const f = fixed(digits, e + 1);
    return sign + (f.includes('.') ? f : `${f}.0`);
  }
  return `${sign}${digits[0]}.${digits.length === 1 ? '0' : digits.slice(1)}E${e}`;
}

function spellDouble(n: number, style: Style): string {
  let s: string;
  switch (style.doubles ?? 'js') {
    case 'js':
      s = JSON.stringify(n);
      break;
    case 'dart':
      s = dartDouble(n);
      break;
    // toPrecision and toExponential drop the sign of -0; a C or Python printer keeps it.
    case 'g17':
      s = (1 / n < 0 && n === 0 ? '-' : '') + n.toPrecision(17);
      break;
    case 'exp':
      s = (1 / n < 0 && n === 0 ? '-' : '') + n.toExponential();
      break;
    case 'py':
      s = pyRepr(n);
      break;
    case 'c17':
      s = c17(n);
      break;
    case 'go':
      s = Object.is(n, -0) ? '-0' : JSON.stringify(n);
      break;
    case 'rust':
      s = rustDouble(n);
      break;
    case 'java':
      s = javaDouble(n);
      break;
  }
  return style.upperE === true ? s.replace('e', 'E') : s;
}

/** The value as `style` writes it. */
export function spell(v: Spelled, style: Style = {}): string {
  const colon = style.colon ?? ':';
  const comma = style.comma ?? ',';
  const pad = style.pad === true ? ' ' : '';
  switch (v.t) {
    case 'int':
      return style.intAsDouble === true ? `${v.v}.0` : String(v.v);
    case 'dbl':
      return spellDouble(v.v, style);
    case 'str':
      return spellString(v.v, style);
    case 'bool':
      return String(v.v);
    case 'null':
      return 'null';
    case 'arr':
      return v.v.length === 0 ? '[]' : `[${pad}${v.v.map((x) => spell(x, style)).join(comma)}${pad}]`;
    case 'obj': {
      if (v.v.length === 0) return '{}';
      const sorted =
        style.sortKeys === true ? [...v.v].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : v.v;
      const entries = style.duplicateKey === true ? [...sorted, sorted[0]!] : sorted;
      const body = entries.map(([k, x]) => `${spellString(k, style)}${colon}${spell(x, style)}`);
      return `{${pad}${body.join(comma)}${pad}}`;
    }
  }
}

/** The value a JavaScript program holds for `v` (JSON.parse of any of its spellings). */
export function toJs(v: Spelled): unknown {
  return JSON.parse(spell(v));
}

/** Strings that exercise escaping: controls, quotes, `/`, DEL, non-ASCII, pairs and lone surrogates. */
export const text: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.string({
    unit: fc.constantFrom(
      'a',
      'Z',
      ' ',
      '"',
      '\\',
      '/',
      '\n',
      '\t',
      '\b',
      '\u0001',
      '\u001f',
      '\u007f',
      'é',
      '\u2028',
      '😀',
      '\ud800',
      '\udfff',
      '<',
      '{',
    ),
    maxLength: 10,
  }),
);

/** Keys, integer-like ones among them (JavaScript lists those first whatever the text's order). */
export const key: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('x', 'new_field', '0', '1', '7', '12', '01', '-1', '4294967295', ''),
  text,
);

/** Doubles a double printer may be asked for: signed zeros, integral ones, tiny and huge. */
export const double: fc.Arbitrary<number> = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    0,
    -0,
    1,
    3,
    0.1,
    0.5,
    0.0123,
    1e-7,
    1.5e-10,
    0.00001,
    1e20,
    1e21,
    123456789012345680000,
    2 ** 53,
  ),
);

/** A value no schema types, as a writer that knows ints from doubles holds it. */
export const anyValue: fc.Arbitrary<Spelled> = fc.letrec<{ value: Spelled }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text.map(str),
    fc.maxSafeInteger().map(int),
    double.map(dbl),
    fc.boolean().map(bool),
    fc.constant(nul),
    fc.array(tie('value'), { maxLength: 3 }).map(arr),
    fc.uniqueArray(fc.tuple(key, tie('value')), { maxLength: 4, selector: (e) => e[0] }).map(obj),
  ),
})).value;

/** Fields of its own a record may carry, none named like one of `known`. */
export function extraFields(known: readonly string[]): fc.Arbitrary<Array<[string, Spelled]>> {
  return fc.uniqueArray(
    fc.tuple(
      key.filter((k) => !known.includes(k)),
      anyValue,
    ),
    { maxLength: 3, selector: (e) => e[0] },
  );
}

/** `fields` with `extra` inserted at positions chosen by `at` (after the first `keep` fields). */
export function withExtra(
  fields: Array<[string, Spelled]>,
  extra: Array<[string, Spelled]>,
  at: number[],
  keep = 0,
): Array<[string, Spelled]> {
  const out = [...fields];
  extra.forEach((e, i) => {
    const room = out.length - keep + 1;
    out.splice(keep + ((at[i] ?? 0) % room), 0, e);
  });
  return out;
}

/** Other writers' spellings: each one a single deviation from compact ES2019 JSON.stringify text. */
export const otherStyles: Array<[string, Style]> = [
  ['spaces after separators', { colon: ': ', comma: ', ' }],
  ['padded brackets', { pad: true }],
  ['\\/', { escapeSlash: true }],
  ['\\u0041 for letters', { escapeLetters: true }],
  ['\\u0041 for letters, uppercase hex', { escapeLetters: true, upperHex: true }],
  ['uppercase hex', { upperHex: true }],
  ['escaped non-ASCII', { escapeNonAscii: true }],
  ['\\u000a for \\n', { longControls: true }],
  ['integers as doubles', { intAsDouble: true }],
  ['%.17g doubles', { doubles: 'g17' }],
  ['exponent doubles', { doubles: 'exp' }],
  ['exponent E', { upperE: true }],
  ['a key twice', { duplicateKey: true }],
];
