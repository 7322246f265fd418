import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { jsonString } from '../src/json';
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
