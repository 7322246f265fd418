import fc from 'fast-check';
import { expect, test } from 'vitest';
import { convert } from '../../src/convert';
import { hep } from '../../src/formats/hep/index';
import { loadFixture } from '../../src/node/fixtures';
import { addDecimal, addExact, addUsage } from '../../src/usage';
import { TimelineRenderer } from '../../src/view';

// Issue #15 item 7: usage totals are exact decimal sums, written as such.

test('0.0042 + 0.0047 + 0.0039 totals 0.0128', () => {
  expect(addExact(addExact(0.0042, 0.0047), 0.0039)).toBe(0.0128);
  expect(addUsage({ input: 1, costUsd: 0.1 }, { input: 2, output: 3, costUsd: 0.2 })).toEqual({
    input: 3,
    output: 3,
    costUsd: 0.3,
  });
  expect(addExact(1e-7, 2e-7)).toBe(3e-7);
  expect(addExact(-0.1, 0.3)).toBe(0.2);
  expect(addExact(1e21, 0.5)).toBe(1e21 + 0.5);
  expect(Number.isNaN(addExact(Number.NaN, 1))).toBe(true);
});

test('any figures with up to 8 decimal places total to the decimal sum, whatever the order', () => {
  const cents = fc.integer({ min: -1e9, max: 1e9 });
  fc.assert(
    fc.property(
      fc.array(cents, { minLength: 1, maxLength: 30 }),
      fc.integer({ min: 0, max: 8 }),
      (ns, places) => {
        const figures = ns.map((n) => n / 10 ** places);
        const exact = ns.reduce((a, b) => a + b, 0) / 10 ** places; // integer sum: exact below 2^53
        expect(figures.reduce(addExact, 0)).toBe(exact);
        expect([...figures].reverse().reduce(addExact, 0)).toBe(exact);
      },
    ),
  );
});

test('the fast path of addExact gives the double of the general path, for any two numbers', () => {
  const figure = fc.oneof(
    fc.double({ noNaN: false }),
    fc
      .oneof(fc.integer({ min: -1e12, max: 1e12 }), fc.maxSafeInteger())
      .chain((n) => fc.integer({ min: 0, max: 24 }).map((p) => n / 10 ** p)),
    fc.constantFrom(0.30000000000000004, 9007199254740991, 0.1, 1e21, 1e-7, -0, 123456789.12345678),
  );
  fc.assert(
    fc.property(figure, figure, (a, b) => {
      const fast = addExact(a, b);
      const general = addDecimal(a, b);
      // -0 and 0 are one figure; NaN stays NaN.
      const same = fast === general || (Number.isNaN(fast) && Number.isNaN(general));
      expect(same, `${a} + ${b}: ${fast} against ${general}`).toBe(true);
    }),
    { numRuns: 5000 },
  );
});

test('the HEP run total and the writers that write it say 0.0128 (the README quick start)', () => {
  const fx = loadFixture('hep', 'tool-then-text');
  const end = hep.parse(fx.bytes).events.find((e) => e.type === 'run.end');
  expect(end?.type === 'run.end' && end.usage?.costUsd).toBe(0.0128);
  const nh = convert(fx.bytes, { to: 'nativeharness', clock: () => 0, idSource: () => 'x' }).output;
  expect(nh).toContain('"cost_usd":0.0128');
  expect(nh).not.toMatch(/0\.01279999/);
});

test('the timeline totals rounds exactly', () => {
  const r = new TimelineRenderer();
  let text = '';
  for (const costUsd of [1.0000001, 2.0000002])
    text += r.render({ type: 'round.end', message: '', usage: { costUsd } });
  text += r.render({ type: 'run.end', status: 'completed' });
  expect(text).toMatch(/run completed — total .*\$3\.0000003\n/);
});
