import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { jsonString, readStringToken } from '../src/json';
import { FUZZ_RUNS as RUNS } from './runs';

describe('jsonString', () => {
  test('is JSON.stringify of every single UTF-16 code unit, alone and between letters', () => {
    for (let code = 0; code <= 0xffff; code++) {
      const c = String.fromCharCode(code);
      expect(jsonString(c)).toBe(JSON.stringify(c));
      expect(jsonString(`a${c}b`)).toBe(JSON.stringify(`a${c}b`));
    }
  });

  test('is JSON.stringify of any string (lone and paired surrogates, controls, quotes)', () => {
    const unit = fc.oneof(
      fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udfff', '😀', 'é'),
      fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }), (units) => {
        const text = units.join('');
        expect(jsonString(text)).toBe(JSON.stringify(text));
      }),
      { numRuns: RUNS * 10 },
    );
  });
});

// The string-token read of the shortcuts (Copilot's delta, Cursor's, nativeharness's): the value
// of `text[open..close]` when that text is one JSON string token, `undefined` otherwise, the
// same as JSON.parse of the token (quotes, escaped quotes, backslash runs, raw controls).
describe('readStringToken', () => {
  test('is JSON.parse of text[open..close] when that is a string, else undefined', () => {
    const unit = fc.constantFrom('"', '\\', '\\"', '\\\\', 'a', 'é', '\n', '\\n', '\\u0041', '\\x');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), fc.nat(), fc.nat(), (units, a, b) => {
        const text = units.join('');
        const open = a % (text.length + 1);
        const close = b % (text.length + 1);
        let want: unknown;
        try {
          want = JSON.parse(text.slice(open, close + 1));
        } catch {
          want = undefined;
        }
        const token = close > open && text[open] === '"' && text[close] === '"';
        expect(readStringToken(text, open, close)).toBe(token && typeof want === 'string' ? want : undefined);
      }),
      { numRuns: RUNS * 20 },
    );
  });
});
