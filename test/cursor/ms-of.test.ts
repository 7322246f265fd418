import fc from 'fast-check';
import { expect, test } from 'vitest';
import { msOf } from '../../src/formats/cursor/wire';
import { FUZZ_RUNS } from '../runs';

// msOf reads startedAtMs/completedAtMs (strings of 1 to 16 digits) without a regular expression:
// held to the rule it replaced.
// (A number that is none, Infinity from `1e400`, is no time: undefined, as since the structured
// fuzzer found one in an event.)
const reference = (value: unknown): number | undefined =>
  typeof value === 'number'
    ? Number.isFinite(value)
      ? value
      : undefined
    : typeof value === 'string' && /^\d{1,16}$/.test(value)
      ? Number(value)
      : undefined;

test('msOf reads what /^\\d{1,16}$/ accepts, as Number does', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.stringMatching(/^\d{0,18}$/),
        fc.string({ unit: fc.constantFrom('0', '9', '/', ':', ' ', '\n', '-', '.', 'e', '٣') }),
        fc.double(),
        fc.constantFrom(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN),
        fc.constantFrom(undefined, null, '', '0123', '9999999999999999', '99999999999999999'),
        // around 2^53, where a sum of the digits rounds: one rounding only, as Number's
        fc.bigInt({ min: 2n ** 53n - 2000n, max: 2n ** 53n + 2000n }).map(String),
        fc.constantFrom('9007199254740991', '9007199254740993', '9007199254740995'),
      ),
      (v) => {
        expect(msOf(v)).toBe(reference(v));
      },
    ),
    { numRuns: FUZZ_RUNS * 5 },
  );
});
