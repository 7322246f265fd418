import { expect, test } from 'vitest';
import { codecs } from '../../src/formats';
import { nativeharness } from '../../src/formats/nativeharness/index';
import { listFixtures, loadFixture } from '../../src/node/fixtures';

// Issue #15 item 11: one rule for blank and whitespace-only lines in every JSON Lines format:
// skipped, never an error (strict mode does not throw), at most `info` diagnostics, and the
// events are those of the stream without them.
const BLANKS = ['', ' ', '\t', ' \t ', '\r', '  \r'];
// One JSON Lines fixture without errors of each format this build has (nativeharness: JSONL).
const jsonl = (format: string) =>
  listFixtures()
    .filter((f) => f.format === format && f.path.endsWith('.jsonl'))
    .map((f) => f.name)
    .find(
      (n) =>
        (!n.includes('.') || n.endsWith('.jsonl')) &&
        codecs[format as 'hep']!.parse(loadFixture(format as 'hep', n).bytes).diagnostics.every(
          (d) => d.severity !== 'error',
        ),
    );

for (const [format, codec] of Object.entries(codecs)) {
  const name = jsonl(format);
  test.runIf(name !== undefined)(
    `${format}: blank and whitespace-only lines are skipped, info at most`,
    () => {
      const text = loadFixture(format as 'hep', name!).text;
      const lines = text.split('\n');
      // A blank line of each kind after the first line and before the last.
      const withBlanks = [lines[0], ...BLANKS, ...lines.slice(1, -2), ' \t', ...lines.slice(-2)].join('\n');
      const clean = codec!.parse(text);
      const parsed = codec!.parse(withBlanks, { strict: true });
      expect(parsed.diagnostics.filter((d) => d.severity !== 'info')).toEqual(
        clean.diagnostics.filter((d) => d.severity !== 'info'),
      );
      // Line-derived fields (provenance, highbar's `hb-<line>` call ids) move with the lines.
      const strip = (e: object) =>
        JSON.stringify(e, (k, v) => (k === 'provenance' || k === 'call' ? undefined : v));
      if (parsed.events.length === clean.events.length) {
        expect(parsed.events.map(strip)).toEqual(clean.events.map(strip));
        const added = parsed.diagnostics.slice(clean.diagnostics.length);
        expect(added.length).toBeLessThanOrEqual(2); // the first and the count at the last
        expect(parsed.diagnostics.filter((d) => /blank line/.test(d.message)).map((d) => d.line)).toEqual([
          2,
          lines.length - 2 + BLANKS.length + 1,
        ]);
      } else {
        // A format that keeps blank lines as events of its own (Gemini): one event per line.
        expect(parsed.events.length).toBe(clean.events.length + BLANKS.length + 1);
      }
    },
  );
}

test('nativeharness SSE keeps its blank lines: they end events', () => {
  const sse = loadFixture('nativeharness', 'approvals').text;
  expect(nativeharness.parse(sse).diagnostics).toEqual([]);
});
