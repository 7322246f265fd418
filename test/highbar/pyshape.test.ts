import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  pyDumps,
  pyDumpsParsed,
  pyShape,
  SHAPE_PYTHON,
  SHAPE_TOO_DEEP,
} from '../../src/formats/highbar/pyjson';
import { exceedsDepth } from '../../src/json';

// pyShape is the decoder's fast path for an exact comparison: whenever it says a line is in
// Python's shape, re-serialising the parsed value must give the line back, and whenever it says
// "too deep", the depth scan must agree. Both with and without the caller's "all ASCII" knowledge.
// Lines here are valid JSON in many writers' styles, plus hand-made near misses.

const isAscii = (t: string): boolean => /^[\x00-\x7f]*$/.test(t);

function shapeBothWays(t: string, value: unknown, max: number): number {
  const shape = pyShape(t, value, max);
  // The caller's knowledge only spares checks: it never changes the verdict.
  if (isAscii(t)) expect(pyShape(t, value, max, true)).toBe(shape);
  return shape;
}

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.string({
    unit: fc.constantFrom('a', '"', '\\', '/', '\n', '\t', '\u0001', '\u007f', 'é', '\ud800', '{', ':', ','),
    maxLength: 10,
  }),
  fc.string({ minLength: 60, maxLength: 120, unit: fc.constantFrom('x', ' ', '"', '\n', '\\', '/', 'y') }),
);
const key = fc.oneof(fc.constantFrom('v', 'type', 'ts', 'fn', 'args', 'result', '0', '12', '01', ''), text);
const number = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1.5, 1e16, 2 ** 53, 2 ** 53 + 2, 1e-7, 123456789012345680000, 1792983764.0, 0.1),
  fc.constantFrom(0.00001, -0.00005, 0.0001, 0.30000000000000004, 1e-5 + 1e-9),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    number,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
}));
const record = fc.dictionary(key, value, { maxKeys: 6 });

// Other writers' spellings of the same value.
function variants(r: unknown): string[] {
  const py = pyDumps(r);
  const out = [
    py,
    JSON.stringify(r),
    JSON.stringify(r, null, 1).replace(/\n/g, ''),
    py.replace(/\//g, '\\/'),
    py.replace(/\\n/g, '\\u000a'),
    py.replace(/\\u00([0-9a-f]{2})/g, (_, h: string) => `\\u00${h.toUpperCase()}`),
    py.replace(/a/, '\\u0061'),
    // ensure_ascii=False: raw non-ASCII in Python's separators.
    py.replace(/\\u([0-9a-f]{4})/g, (m, h: string) => {
      const c = Number.parseInt(h, 16);
      return c >= 0x7f && (c < 0xd800 || c > 0xdfff) ? String.fromCharCode(c) : m;
    }),
    py.replace(/"v": 1/, '"v": 1.0'),
    // What other number printers write: JavaScript's fixed form below 1e-4, C's %.17g, -0.
    JSON.stringify(r, null, 1)
      .replace(/\n */g, ' ')
      .replace(/\[ /g, '[')
      .replace(/\{ /g, '{')
      .replace(/ \]/g, ']')
      .replace(/ \}/g, '}'),
    py.replace(/(\d)\.(\d+)/, (_, a: string, b: string) => `${a}.${b}00000000000000001`),
    py.replace(/: 0([,}\]])/, ': -0$1'),
    py.replace(/, /, ',  '),
    py.replace(/^\{/, '{ '),
    ` ${py}`,
    `${py}\t`,
  ];
  // The same key twice: JSON.parse keeps the last value at the first key's place.
  const m = /^\{("(?:[^"\\]|\\.)*"): /.exec(py);
  if (m !== null)
    out.push(`{${m[1]}: "dup", ${py.slice(1)}`, `${py.slice(0, -1)}, ${m[1]}: 1}`.replace('{, ', '{'));
  return out;
}

function parses(t: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(t) };
  } catch {
    return { ok: false };
  }
}

describe('pyShape', () => {
  test('"Python shape" implies the line is its re-serialisation; "too deep" implies the depth scan agrees', () => {
    let python = 0;
    fc.assert(
      fc.property(record, fc.integer({ min: 0, max: 5 }), (r, max) => {
        for (const t of variants(r)) {
          const parsed = parses(t);
          if (!parsed.ok) continue;
          const shape = shapeBothWays(t, parsed.value, max);
          if (shape === SHAPE_PYTHON) {
            python++;
            expect(pyDumpsParsed(parsed.value)).toBe(t);
            expect(exceedsDepth(t, max)).toBe(false);
          }
          if (shape === SHAPE_TOO_DEEP) expect(exceedsDepth(t, max)).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
    expect(python).toBeGreaterThan(300);
  });

  test('random edits of a Python line: "Python shape" still implies the exact line', () => {
    fc.assert(
      fc.property(
        record,
        fc.array(fc.tuple(fc.nat(), fc.constantFrom('\\', '"', ' ', ',', ':', '0', 'e', 'u', '/', 'n', '')), {
          minLength: 1,
          maxLength: 3,
        }),
        (r, edits) => {
          let t = pyDumps(r);
          for (const [at, c] of edits) {
            const i = at % (t.length + 1);
            t = t.slice(0, i) + c + t.slice(i + (c === '' ? 1 : 0));
          }
          const parsed = parses(t);
          if (!parsed.ok) return;
          if (shapeBothWays(t, parsed.value, 64) === SHAPE_PYTHON)
            expect(pyDumpsParsed(parsed.value)).toBe(t);
        },
      ),
      { numRuns: 20000 },
    );
  });

  test('the bench corpus shape: long ASCII strings full of escapes are decided here', () => {
    const result = 'a "quoted" word\nand {x} [1,2] path=./lib x<y && y>z 100%\n'.repeat(30);
    const line = pyDumps({
      v: 1,
      type: 'tool',
      ts: 1795995254.849,
      fn: 'read',
      args: {},
      result,
      error: null,
    });
    expect(pyShape(line, JSON.parse(line), 64)).toBe(SHAPE_PYTHON);
    expect(pyShape(line.replace('\\"', '\\u0022'), JSON.parse(line), 64)).not.toBe(SHAPE_PYTHON);
  });

  test('non-ASCII text: escaped as Python writes it is decided here, raw is not', () => {
    const result = '构建 错误 \u{1f680} "ok"\n'.repeat(20);
    const line = pyDumps({ v: 1, type: 'tool', fn: 'read', result });
    expect(pyShape(line, JSON.parse(line), 64)).toBe(SHAPE_PYTHON);
    const raw = line.replace('\\u6784', '构');
    expect(pyShape(raw, JSON.parse(raw), 64)).not.toBe(SHAPE_PYTHON);
  });
});
