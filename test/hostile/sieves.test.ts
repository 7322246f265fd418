import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  exceedsDepth,
  findUnsafeNumber,
  holdsNonFinite,
  MAX_DEPTH_CEILING,
  mayHoldUnsafeNumber,
  valueExceedsDepth,
} from '../../src/json';
import { FUZZ_RUNS } from '../runs';

// The decoders measure depth and look for unsafe numbers on the parsed value where they can
// (cheaper: strings are skipped whole) and on the text where they must. These properties hold
// the value-level forms to the text-level references they stand in for.

const RUNS = FUZZ_RUNS * 5;

// JSON text with nesting and numbers of every kind, including long and huge ones as raw tokens.
const numberToken = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map(String),
  fc.constantFrom(
    '9007199254740993',
    '-9007199254740993',
    '9007199254740992',
    '1e20',
    '1e400',
    '-1e400',
    '1.5e308',
    '2e308',
    '0.1e1',
  ),
);
const text: fc.Arbitrary<string> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    numberToken,
    fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)),
    fc.constantFrom('true', 'null', '"[[{{"'),
    fc.array(tie('value'), { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`),
    // Unique keys: with a duplicate, JSON.parse keeps the last value and the text holds one the
    // value does not (the decoders judge what is kept; duplicate keys are documented as last-wins).
    fc
      .uniqueArray(fc.tuple(fc.string({ maxLength: 3 }), tie('value')), {
        maxLength: 3,
        selector: ([k]) => k,
      })
      .map((kv) => `{${kv.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  ),
})).value;

describe('value-level sieves agree with the text-level checks', () => {
  test('valueExceedsDepth(JSON.parse(t), max) === exceedsDepth(t, max)', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 6 }), (t, max) => {
        expect(valueExceedsDepth(JSON.parse(t), max)).toBe(exceedsDepth(t, max));
      }),
      { numRuns: RUNS },
    );
  });

  test('whenever the text holds an unsafe number, the value sieve lets it through', () => {
    fc.assert(
      fc.property(text, (t) => {
        if (findUnsafeNumber(t) !== undefined) expect(mayHoldUnsafeNumber(JSON.parse(t))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  // One walk serves both number sieves (the OpenCode writer's `holdsNonFinite` was a copy of
  // `mayHoldUnsafeNumber`'s with a narrower test): each held to a recursive reference.
  test('the number sieves say what a recursive walk says', () => {
    const some = (v: unknown, hit: (n: number) => boolean): boolean =>
      typeof v === 'number'
        ? hit(v)
        : typeof v === 'object' && v !== null && Object.values(v).some((c) => some(c, hit));
    const nonFinite = (n: number) => !Number.isFinite(n);
    const unsafe = (n: number) => nonFinite(n) || (Number.isInteger(n) && !Number.isSafeInteger(n));
    const value = fc.oneof(
      text.map((t) => JSON.parse(t) as unknown),
      fc.jsonValue(),
      fc.anything({ withBigInt: false, withMap: false, withSet: false }),
    );
    fc.assert(
      fc.property(value, (v) => {
        expect(holdsNonFinite(v)).toBe(some(v, nonFinite));
        expect(mayHoldUnsafeNumber(v)).toBe(some(v, unsafe));
      }),
      { numRuns: RUNS },
    );
    for (const n of [Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 1.5, 0]) {
      expect(holdsNonFinite({ a: [n] })).toBe(nonFinite(n));
      expect(mayHoldUnsafeNumber([{ a: n }])).toBe(unsafe(n));
    }
  });

  test('a __proto__ key is measured as the data it holds', () => {
    const t = '{"a":1,"__proto__":[[{"b":[]}]]}';
    for (let max = 0; max <= 6; max++) {
      expect(valueExceedsDepth(JSON.parse(t), max)).toBe(exceedsDepth(t, max));
      expect(valueExceedsDepth(JSON.parse(t), max + MAX_DEPTH_CEILING)).toBe(false);
    }
  });

  test('deep values are measured without recursion beyond the depth ceiling', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}1${']'.repeat(100_000)}`) as unknown;
    expect(valueExceedsDepth(deep, MAX_DEPTH_CEILING)).toBe(true);
    expect(valueExceedsDepth(deep, MAX_DEPTH_CEILING + 1)).toBe(true);
    const atCeiling = `${'['.repeat(MAX_DEPTH_CEILING)}${']'.repeat(MAX_DEPTH_CEILING)}`;
    expect(valueExceedsDepth(JSON.parse(atCeiling), MAX_DEPTH_CEILING)).toBe(false);
    expect(valueExceedsDepth(JSON.parse(atCeiling), MAX_DEPTH_CEILING - 1)).toBe(true);
    expect(valueExceedsDepth(deep, 64)).toBe(true);
    // A bound above the ceiling is the ceiling (every decoder's bound is resolved to it or less).
    expect(valueExceedsDepth(deep, 100_000)).toBe(true);
    expect(valueExceedsDepth(JSON.parse(atCeiling), 100_000)).toBe(false);
    expect(mayHoldUnsafeNumber(deep)).toBe(false);
    expect(holdsNonFinite(deep)).toBe(false);
  });
});
