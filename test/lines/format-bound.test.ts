import { describe, expect, test } from 'vitest';
import { amp, claude, codex, copilot, cursor, gemini, opencode } from '../../src/all';

// The agent formats bound a line at their own 16 MiB, not the splitter's 1 MiB: one rule
// (`withLineBound` in src/codec.ts) for what an option that is not a bound means.
const CODECS = { amp, claude, codex, copilot, cursor, gemini, opencode };
const long = `{"type":"x","pad":"${'a'.repeat(2_000_000)}"}\n`;
const tooLong = (diagnostics: Array<{ code: string }>) =>
  diagnostics.filter((d) => d.code === 'line_too_long');

describe.each(Object.entries(CODECS))('%s: the line bound', (_name, codec) => {
  test('a 2 MB line is read by default', () => {
    expect(tooLong(codec.parse(long).diagnostics)).toEqual([]);
  });

  test('a bound the options set is kept', () => {
    const found = tooLong(codec.parse(long, { maxLineBytes: 1024 }).diagnostics);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ line: 1, offset: 0 });
  });

  test.each([Number.NaN, -1, Number.POSITIVE_INFINITY])(
    'a maxLineBytes of %s is no bound: the format default (16 MiB) holds',
    (max) => {
      expect(tooLong(codec.parse(long, { maxLineBytes: max }).diagnostics)).toEqual([]);
      const huge = `{"type":"x","pad":"${'a'.repeat(17 * 1024 * 1024)}"}\n`;
      expect(tooLong(codec.parse(huge, { maxLineBytes: max }).diagnostics)).toHaveLength(1);
    },
  );
});
