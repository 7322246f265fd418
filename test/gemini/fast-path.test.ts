import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { AgentEvent } from '../../src/all';
import type { Diagnostic } from '../../src/diagnostics';
import { GeminiRecordDecoder } from '../../src/formats/gemini/decode';
import { FUZZ_RUNS } from '../runs';

// The delta shortcut (src/formats/gemini/decode.ts `delta`) at every depth bound: a line longer
// than the depth pre-check is measured before it is parsed, so with a bound under one level the
// general path refuses it, and the shortcut must leave it to that path. Lines either side of the
// pre-check length, spelled as Gemini CLI writes them or changed in one place.

const iso = fc
  .integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) })
  .map((ms) => new Date(ms).toISOString());
const content = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ minLength: 3990, maxLength: 4100 }),
  fc.constantFrom('a"b', 'x\\y', '\u0001', '😀', '{"a":[1]}'),
);
const delta = fc.tuple(iso, content, fc.constantFrom('', 'x', ' ', '"')).map(([ts, c, mangle]) => {
  const line = JSON.stringify({ type: 'message', timestamp: ts, role: 'assistant', content: c, delta: true });
  return mangle === '' ? line : `${line.slice(0, -1)}${mangle}}`;
});

function decode(lines: string[], shortcut: boolean, maxDepth: number | undefined) {
  const diagnostics: Diagnostic[] = [];
  const options = maxDepth === undefined ? {} : { maxDepth };
  const d = new GeminiRecordDecoder(options, { report: (x) => diagnostics.push(x) }, shortcut);
  const events: AgentEvent[] = [];
  lines.forEach((l, i) => {
    d.line(l, i + 1, i * 1000, events);
  });
  d.end(events);
  return { events, diagnostics };
}

test('property: the delta shortcut and the general path agree at every depth bound', () => {
  fc.assert(
    fc.property(fc.array(delta, { maxLength: 4 }), fc.constantFrom(undefined, 0, 1, 2), (lines, maxDepth) => {
      expect(decode(lines, true, maxDepth)).toStrictEqual(decode(lines, false, maxDepth));
    }),
    { numRuns: FUZZ_RUNS },
  );
});
