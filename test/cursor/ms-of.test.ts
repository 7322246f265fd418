import fc from 'fast-check';
import { expect, test } from 'vitest';
import { msOf } from '../../src/formats/cursor/wire';
import { FUZZ_RUNS } from '../runs';

// msOf reads startedAtMs/completedAtMs (strings of 1 to 16 digits) without a regular expression:
// held to the rule it replaced.
const reference = (value: unknown): number | undefined =>
  typeof value === 'number'
    ? value
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
        fc.constantFrom(undefined, null, '', '0123', '9999999999999999', '99999999999999999'),
      ),
      (v) => {
        expect(msOf(v)).toBe(reference(v));
      },
    ),
    { numRuns: FUZZ_RUNS * 5 },
  );
});
