import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { nativeharness } from '../../src/formats/nativeharness/codec';

// Round thirty-five: an envelope key no reader knows whose string holds the escape `\u2028` comes
// back with U+2028 as it is, in both framings: not a gap in what the writer keeps, but the
// spelling docs/protocols/nativeharness.md §1 pins (ES2019 `JSON.stringify`: `/`, U+2028 and
// non-ASCII raw; any other spelling of the same JSON is read and written back in this one), as
// `\/` and `\u0041` are. The key and its value are kept; U+2028 written raw comes back raw.

const FIXTURES = join(__dirname, '../../fixtures/nativeharness');

describe.each([
  ['jsonl', 'error.jsonl'],
  ['sse', 'error.sse'],
] as const)('%s', (framing, file) => {
  const text = readFileSync(join(FIXTURES, file), 'utf8');
  const withKey = (value: string) => text.replace('{"seq":1,', `{"zz":${value},"seq":1,`);
  const back = (input: string) => {
    const parsed = nativeharness.parse(input);
    expect(parsed.diagnostics).toEqual([]);
    return nativeharness.stringify(parsed.events, { framing });
  };

  test('the escape is written as U+2028 itself, the same JSON', () => {
    expect(back(withKey('"x\\u2028y"'))).toBe(withKey('"x\u2028y"'));
  });

  test('U+2028 as it is comes back byte for byte', () => {
    expect(back(withKey('"x\u2028y"'))).toBe(withKey('"x\u2028y"'));
  });

  test("as `\\/` and `\\u0041` are, in the format's spelling", () => {
    expect(back(withKey('"x\\/\\u0041"'))).toBe(withKey('"x/A"'));
  });
});
