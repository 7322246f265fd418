import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { jsonText } from '../src/json';
import { FUZZ_RUNS as RUNS } from './runs';

// `jsonText` is the fast path of `JSON.stringify` for a long string (quotes, backslashes and line
// feeds replaced by native searches); everything else is `JSON.stringify`'s own. These hold the
// two equal on every code unit and on any string, flat or a rope of pieces (as a writer joins
// another format's deltas), short of the length it starts at and past it.

// Long enough that the fast path is taken (it starts at 64 characters).
const PAD = 'text that needs no escape, '.repeat(3);

describe('jsonText', () => {
  test('is JSON.stringify of every single UTF-16 code unit, in short and long text', () => {
    for (let code = 0; code <= 0xffff; code++) {
      const c = String.fromCharCode(code);
      expect(jsonText(c)).toBe(JSON.stringify(c));
      expect(jsonText(`${PAD}${c}\n"\\b`)).toBe(JSON.stringify(`${PAD}${c}\n"\\b`));
    }
  });

  test('is JSON.stringify of any string (lone and paired surrogates, controls, quotes), flat or joined', () => {
    const unit = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom('"', '\\', '\n', '\\n', '"\n', '\r', '\t', '\u0000', '\u001f', '\u007f'),
      },
      { weight: 2, arbitrary: fc.constantFrom('\u2028', '\ud800', '\udfff', '😀', 'é', '\ud83d', '\ude00') },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)) },
      { weight: 6, arbitrary: fc.string({ maxLength: 12 }) },
      { weight: 2, arbitrary: fc.constant(PAD) },
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 60 }), (units) => {
        // A rope of the pieces, as a writer's `+=` builds it, and the same text flat.
        let rope = '';
        for (const u of units) rope += u;
        const flat = units.join('');
        expect(jsonText(rope)).toBe(JSON.stringify(flat));
        expect(jsonText(flat)).toBe(JSON.stringify(flat));
      }),
      { numRuns: RUNS * 10 },
    );
  });

  // Dense text goes to `JSON.stringify` (round twenty-seven): from its head (JSON a tool printed),
  // or partway through a walk that started sparse; sparse text stays on the searches. Each must
  // give `JSON.stringify`'s text.
  test('is JSON.stringify of dense text, of text that turns dense after its head, and of sparse text', () => {
    const json = JSON.stringify({ a: 'b', list: [1, 'two', { c: '"d"\\' }] }, null, 2);
    const cases = [
      json.repeat(20),
      `${PAD.repeat(30)}${json.repeat(20)}`,
      `${PAD.repeat(30)}${'"'.repeat(40)}${PAD}`,
      `${PAD.repeat(30)}said "hi"\n`.repeat(10),
      '"'.repeat(600),
      '\\'.repeat(600),
      '\n'.repeat(600),
      `${'x'.repeat(511)}${'"'.repeat(100)}`,
      `log: ${json.repeat(20)}`,
      `${'x'.repeat(15)}${json.repeat(20)}`,
    ];
    for (const text of cases) expect(jsonText(text)).toBe(JSON.stringify(text));
  });
});
