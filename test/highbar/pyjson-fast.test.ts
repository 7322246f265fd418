import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { belowDel, belowDelByEncoder, pyFloat } from '../../src/formats/highbar/pyjson';

// The fast paths of the Python-style writer against the plain definitions they shortcut.

/** Python's `repr(float)` by its definition: shortest digits, exponent form outside [1e-4, 1e16). */
function reprByDefinition(n: number): string {
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const exp = n.toExponential();
  const at = exp.indexOf('e');
  const e = Number(exp.slice(at + 1));
  if (e < -4 || e >= 16) {
    return `${exp.slice(0, at)}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  const s = String(n);
  return s.includes('.') ? s : `${s}.0`;
}

const edges = [
  1e-4,
  9.999999999999999e-5,
  1.0000000000000002e-4,
  1e16,
  9999999999999998,
  1e16 + 2,
  1e21,
  5e-324,
];

describe('pyFloat', () => {
  test('agrees with the definition on every double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(pyFloat(n)).toBe(reprByDefinition(n));
      }),
      { numRuns: 20000 },
    );
  });
  test('agrees at the ends of the fixed range', () => {
    for (const n of edges) for (const x of [n, -n]) expect(pyFloat(x)).toBe(reprByDefinition(x));
  });
});

describe('belowDel', () => {
  const byRegex = (s: string) => !/[\u007f-\uffff]/.test(s);
  test('agrees with a character-class test', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ maxLength: 40 }), (a, b) => {
        const s = a + b;
        expect(belowDel(s)).toBe(byRegex(s));
        expect(belowDelByEncoder(s)).toBe(byRegex(s));
      }),
      { numRuns: 20000 },
    );
  });
  test('agrees on long text, across its 16 KiB windows', () => {
    const long = 'x'.repeat(40000);
    expect(belowDel(long)).toBe(true);
    expect(belowDelByEncoder(long)).toBe(true);
    for (const at of [0, 16383, 16384, 16385, 32767, 39999]) {
      for (const c of ['\x7f', '\u00e9', '\ud83d', '\ude00', '\u{1f600}']) {
        const s = long.slice(0, at) + c + long.slice(at + 1);
        expect(belowDel(s)).toBe(byRegex(s));
        expect(belowDelByEncoder(s)).toBe(byRegex(s));
      }
    }
  });
});
