import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { highbar } from '../../src/all';
import { createCodec, lineChunkDecoder } from '../../src/codec';
import type { Diagnostic } from '../../src/diagnostics';
import { createHighbarRecordDecoder, type HighbarDecodeOptions } from '../../src/formats/highbar/decode';
import { createHighbarEncoder } from '../../src/formats/highbar/encode';
import { HIGHBAR, highbarToolLine } from '../../src/formats/highbar/wire';
import { chunkAt } from '../golden';
import { FUZZ_RUNS } from '../runs';

// The highbar codec hands the line splitter its record decoder as slots (`slotsChunkDecoder`,
// `highbarRecordSlots`: docs/performance.md, "highbar decode", round sixteen) where every other
// JSON Lines format hands it a `RecordDecoder` object (`lineChunkDecoder`), which the tail reader
// still uses for highbar. This property holds the two equal: the same events and diagnostics for
// any lines (blank and whitespace-only ones, invalid JSON, lines over the byte bound, a last line
// without its newline), any chunking and every end-of-input policy.

const reference = createCodec<HighbarDecodeOptions, object>({
  format: HIGHBAR,
  createChunkDecoder: (options, sink) =>
    lineChunkDecoder(HIGHBAR, 'jsonl', options, sink, createHighbarRecordDecoder(options, sink)),
  createEncoder: createHighbarEncoder,
});

const tool = (ts: string, fn: string): string =>
  highbarToolLine({
    ts,
    fn,
    args: '{}',
    result: '"ok\\nline"',
    error: 'null',
    startedAt: ts,
    endedAt: ts,
    context: undefined,
  }).slice(0, -1);

const line: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('"read"', '"bash"').map((fn) => tool('1796158175.548', fn)) },
  fc.constantFrom(
    '{"v": 1, "type": "hello", "ts": 1796158175.548, "sdk": "0.42.0"}',
    '{"v": 1, "type": "turn", "ts": 1796158176.0, "message": "hi", "response": "ok"}',
    '{"v": 1, "type": "tools", "ts": 1796158175.5, "names": ["read"]}',
    '{"fn": "read", "args": {}, "result": "x", "started_at": 1.5, "ended_at": 2.5}',
    '{"v": 1, "type": "tool", "fn": "read"}',
    '',
    ' ',
    '\t \r',
    '{',
    '[1]',
    'not json',
    '{"v": 9, "type": "tool"}',
    `{"v": 1, "type": "hello", "sdk": "${'x'.repeat(300)}"}`,
  ),
);

function decode(
  codec: typeof reference,
  chunks: Uint8Array[],
  options: HighbarDecodeOptions,
): { events: string; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const decoder = codec.createDecoder({ ...options, onDiagnostic: (d) => diagnostics.push(d) });
  const events = chunks.flatMap((c) => decoder.push(c));
  events.push(...decoder.end());
  return { events: JSON.stringify(events), diagnostics };
}

describe('highbar decoder: the record decoder as slots', () => {
  test('decodes as the RecordDecoder object behind lineChunkDecoder does', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 0, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.constantFrom(undefined, 'deliver', 'report', 'hold'),
        fc.constantFrom(undefined, 40, 200),
        (lines, cuts, eol, lastEol, incompleteLine, maxLineBytes) => {
          const text = lines.join(eol) + (lastEol ? eol : '');
          const bytes = new TextEncoder().encode(text);
          const chunks = chunkAt(
            bytes,
            cuts.map((c) => c % (bytes.length + 1)),
          );
          const options: HighbarDecodeOptions = {
            ...(incompleteLine === undefined ? {} : { incompleteLine }),
            ...(maxLineBytes === undefined ? {} : { maxLineBytes }),
          };
          const slots = decode(highbar as unknown as typeof reference, chunks, options);
          const object = decode(reference, chunks, options);
          expect(slots.events).toBe(object.events);
          expect(slots.diagnostics).toEqual(object.diagnostics);
        },
      ),
      { numRuns: FUZZ_RUNS * 2 },
    );
  });
});
