import fc from 'fast-check';
import { expect, test } from 'vitest';
import { assertEncodable, walkEncodable } from '../../src/json';
import { FUZZ_RUNS } from '../runs';

// assertEncodable passes primitives and flat objects of primitives without its walk (the writers'
// metadata, most carried fields): it must throw exactly when the walk throws, with its message.

const leaf = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.double(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 2 ** 53),
  fc.bigInt(),
  fc.constant(() => 1),
  fc.constant(Symbol('s')),
);
const flat = fc.dictionary(fc.constantFrom('a', 'b', 'toJSON', '__proto__', 'c'), leaf, { maxKeys: 4 });
const value = fc.oneof(
  leaf,
  flat,
  fc.array(leaf, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 2 }), fc.oneof(leaf, flat), { maxKeys: 3 }),
);

function outcome(check: () => void): string {
  try {
    check();
    return 'ok';
  } catch (e) {
    return (e as Error).message;
  }
}

test('the shortcut and the walk agree', () => {
  fc.assert(
    fc.property(value, fc.integer({ min: 0, max: 3 }), (v, depth) => {
      expect(outcome(() => assertEncodable(v, 'x', depth, 'ag-ui'))).toBe(
        outcome(() => walkEncodable(v, 'x', depth, 'ag-ui')),
      );
    }),
    { numRuns: FUZZ_RUNS * 20 },
  );
});
