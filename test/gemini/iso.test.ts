import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { exactIsoMs, formatTimestamp, IsoReader, IsoWriter } from '../../src/formats/gemini/wire';
import { FUZZ_RUNS } from '../runs';

// The Gemini writer formats timestamps through IsoWriter, which remembers the minute of the last
// one and writes only seconds and milliseconds while the next stays in it: held equal to
// `toISOString` (formatTimestamp) on any sequence of times.

const time = fc.oneof(
  fc.integer({ min: -8.64e15, max: 8.64e15 }),
  fc.integer({ min: 1767225600000, max: 1767225900000 }),
  fc.constantFrom(0, -1, 59999, 60000, -60000, -60001, 8.64e15, -8.64e15, 8.64e15 + 1, -8.64e15 - 1),
  fc.constantFrom(1.5, -0.5, Number.NaN, Number.POSITIVE_INFINITY, -0, 1e300),
  fc.double(),
);

describe('Gemini IsoWriter', () => {
  test('writes every time as toISOString does, whatever came before', () => {
    fc.assert(
      fc.property(
        fc.array(time, { maxLength: 30 }),
        fc.array(fc.integer({ min: -70000, max: 70000 }), { maxLength: 30 }),
        (times, steps) => {
          const writer = new IsoWriter();
          for (const t of times) expect(writer.write(t)).toBe(formatTimestamp(t));
          // walks within and across minutes from the last time
          let t = times.at(-1) ?? 1767225600000;
          for (const step of steps) {
            t += step;
            expect(writer.write(t)).toBe(formatTimestamp(t));
          }
        },
      ),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });
});

describe('Gemini IsoReader', () => {
  test('reads every text as exactIsoMs does, whatever it read before (the minute it remembers)', () => {
    // texts of one minute, spelled right or changed in one character (a near miss of the minute)
    const text = fc
      .tuple(
        fc.integer({ min: 1767225600000, max: 1767225900000 }),
        fc.nat({ max: 30 }),
        fc.constantFrom('', '0', 'Z', 'x', ' ', '.'),
      )
      .map(([t, at, c]) => {
        const iso = new Date(t).toISOString();
        return c === '' ? iso : iso.slice(0, at) + c + iso.slice(at + 1);
      });
    fc.assert(
      fc.property(fc.array(text, { maxLength: 30 }), (texts) => {
        const reader = new IsoReader();
        for (const s of texts) expect(reader.read(s)).toBe(exactIsoMs(s));
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });
});
