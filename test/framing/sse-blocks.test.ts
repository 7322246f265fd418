import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { SSE_DATA_BLOCKS, SseReader, type SseReaderOptions } from '../../src/framing/sse';
import { FUZZ_RUNS } from '../runs';

// The SSE reader reads a block of one `data:` line and the empty line after it at once (the
// splitter hands it the pair; docs/performance.md, "AG-UI and AI SDK codecs", round six), and the
// same pair at the end of a block whose `id` and `event` lines were read (nativeharness). With
// the switch off it reads every line through its field machinery. This property holds the two
// equal on random streams of every field and its near misses (ids with and without NUL, event
// types, retry values, comments, unknown fields, `data` without colon or space, multi-line data,
// blank lines in runs, a BOM, CR, LF and CRLF, bytes that are not UTF-8, lines over the line bound,
// events over the event bound), in every chunking, with a handler that may throw: the same calls
// in the same order, the same last event id and byte count after every push and at the end.

const value = fc.oneof(
  fc.constantFrom('{"type":"x","a":1}', '{}', '', ' lead', 'x: y', '😀 ok', '\u0000', 'data: inner'),
  fc.string({ maxLength: 12 }),
);
const field = fc.oneof(
  { weight: 6, arbitrary: value.map((v) => `data: ${v}`) },
  { weight: 2, arbitrary: value.map((v) => `data:${v}`) },
  { weight: 1, arbitrary: fc.constantFrom('data', 'data:', 'data: ', 'dat: x', 'datax: y', 'Data: x') },
  { weight: 2, arbitrary: fc.constantFrom('id: 7', 'id:8', 'id', 'id: \u0000', 'id: ', 'idx: 1') },
  { weight: 1, arbitrary: fc.constantFrom('event: message', 'event:', 'event: x', 'eventx: y') },
  { weight: 1, arbitrary: fc.constantFrom('retry: 100', 'retry:5', 'retry: x', 'retry') },
  { weight: 1, arbitrary: fc.constantFrom(': keepalive', ':', 'other: field', '\ufeffdata: x') },
  { weight: 1, arbitrary: fc.constantFrom('data: '.padEnd(90, 'x'), `data: ${'y'.repeat(300)}`) },
);
// Mostly canonical blocks (`data: …` then an empty line; nativeharness's `id`, `event`, then
// one `data:` line), then anything.
const block = fc.oneof(
  { weight: 4, arbitrary: field.map((f) => [f, '']) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('id: 7', 'id:8', 'id', 'id: \u0000', ''),
        fc.constantFrom('event: message', 'event: token', 'event:', ''),
        field,
      )
      .map(([id, event, data]) => [...[id, event].filter((l) => l !== ''), data, '']),
  },
  { weight: 3, arbitrary: fc.array(field, { minLength: 1, maxLength: 4 }).map((fs) => [...fs, '']) },
  { weight: 1, arbitrary: fc.constantFrom([''], ['', ''], ['data: cut']) },
);
const eol = fc.constantFrom('\n', '\n', '\n', '\r\n', '\r');

const stream = fc
  .tuple(
    fc.array(fc.tuple(block, eol), { minLength: 1, maxLength: 10 }),
    fc.boolean(),
    fc.constantFrom<number[]>([], [0xff], [0xc3], [0xe2, 0x82]),
    fc.nat(),
  )
  .map(([blocks, bom, bad, at]) => {
    let text = bom ? '\ufeff' : '';
    for (const [lines, end] of blocks) for (const l of lines) text += l + end;
    const bytes = new TextEncoder().encode(text);
    if (bad.length === 0) return bytes;
    // Bytes that are not UTF-8, spliced in somewhere.
    const i = at % (bytes.length + 1);
    return new Uint8Array([...bytes.subarray(0, i), ...bad, ...bytes.subarray(i)]);
  });

const options = fc.record(
  {
    maxLineBytes: fc.constantFrom(64, 200, 1 << 20),
    maxEventBytes: fc.constantFrom(40, 100, 400, 1 << 20),
    lastEventId: fc.constantFrom('', '3'),
  },
  { requiredKeys: [] },
);

function read(on: boolean, bytes: Uint8Array, cuts: number[], opts: SseReaderOptions, throwAt: number) {
  const was = SSE_DATA_BLOCKS.enabled;
  SSE_DATA_BLOCKS.enabled = on;
  try {
    const log: unknown[] = [];
    let messages = 0;
    const reader = new SseReader(
      {
        message: (m) => {
          log.push(['message', m]);
          if (++messages === throwAt) throw new Error('handler');
        },
        diagnostic: (d) => log.push(['diagnostic', d]),
        retry: (ms) => log.push(['retry', ms]),
        comment: (text) => log.push(['comment', text]),
      },
      opts,
    );
    const step = (f: () => void) => {
      try {
        f();
      } catch (error) {
        log.push(['threw', (error as Error).message]);
      }
      log.push(['state', reader.lastEventId, reader.bytesConsumed]);
    };
    let at = 0;
    for (const cut of [...cuts].sort((a, b) => a - b)) {
      const to = cut % (bytes.length + 1);
      if (to < at) continue;
      step(() => reader.push(bytes.subarray(at, to)));
      at = to;
    }
    step(() => reader.push(bytes.subarray(at)));
    step(() => reader.end());
    return log;
  } finally {
    SSE_DATA_BLOCKS.enabled = was;
  }
}

describe('SSE reader: the one-data-line block fast path and the general reader', () => {
  test('give the same calls, ids and counts on any stream, in every chunking', () => {
    fc.assert(
      fc.property(
        stream,
        fc.array(fc.nat(), { maxLength: 5 }),
        options,
        fc.constantFrom(0, 0, 1, 2, 5),
        (bytes, cuts, opts, throwAt) => {
          expect(read(true, bytes, cuts, opts, throwAt)).toEqual(read(false, bytes, cuts, opts, throwAt));
        },
      ),
      { numRuns: FUZZ_RUNS * 10 },
    );
  });

  test('byte by byte too', () => {
    fc.assert(
      fc.property(stream, options, (bytes, opts) => {
        const cuts = Array.from({ length: bytes.length }, (_, i) => i);
        expect(read(true, bytes, cuts, opts, 0)).toEqual(read(false, bytes, cuts, opts, 0));
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});
