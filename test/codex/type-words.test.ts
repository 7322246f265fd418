import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  CODEX_EVENT_TYPES,
  CODEX_ITEM_TYPES,
  codexEventType,
  codexItemType,
} from '../../src/formats/codex/wire';
import { FUZZ_RUNS } from '../runs';

// codexEventType and codexItemType read a parsed type word through one lookup of the code's own
// words: each word gives itself, built from other strings too (JSON.parse's fresh strings), and
// every other value (other strings, Object.prototype's names, non-strings) gives undefined.
const lookups = [
  ['codexEventType', codexEventType, CODEX_EVENT_TYPES],
  ['codexItemType', codexItemType, CODEX_ITEM_TYPES],
] as const;

describe.each(lookups)('%s', (_name, lookup, words) => {
  test('each word gives itself, however the string was made', () => {
    for (const word of words) {
      expect(lookup(word)).toBe(word);
      expect(lookup(JSON.parse(JSON.stringify(word)))).toBe(word);
      expect(lookup([...word].join(''))).toBe(word);
    }
  });

  test('any other value gives undefined', () => {
    const known = new Set<unknown>(words);
    const other = fc.oneof(
      fc.anything(),
      fc.string(),
      fc.constantFrom('__proto__', 'toString', 'constructor', 'hasOwnProperty', ''),
      fc.constantFrom(...words).map((w) => `${w} `),
      fc.constantFrom(...words).map((w) => w.toUpperCase()),
    );
    fc.assert(
      fc.property(other, (v) => {
        if (!known.has(v)) expect(lookup(v)).toBeUndefined();
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});
