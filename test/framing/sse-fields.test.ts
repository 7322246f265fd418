import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { SseReader } from '../../src/framing/sse';
import { FUZZ_RUNS } from '../runs';

// The SSE reader parses every field itself (it used `eventsource-parser` for comments, `retry`
// and unknown fields until round twenty-seven). This property holds it to that parser, now a
// development dependency only, on random streams of every field and its near misses: the same
// events (id, event type, data), the same `retry` values and comments, and a diagnostic where the
// parser reports an error (a `retry` that is not digits, an unknown field), with the same value
// or field name. Line ends are LF or CRLF, each stream ends with an empty line.

type Seen =
  | { kind: 'event'; id: string | undefined; event: string | undefined; data: string }
  | { kind: 'retry'; ms: number }
  | { kind: 'comment'; text: string }
  | { kind: 'invalid-retry'; value: string }
  | { kind: 'unknown-field'; field: string };

const name = fc.stringMatching(/^[a-zA-Z0-9 _\-.]{0,12}$/);
const text = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '  x',
    'x: y',
    '{"a":1}',
    '12',
    ' 34',
    '5 ',
    '0x10',
    '1e3',
    '-1',
    '٣',
    '😀',
    '\u0000',
  ),
  fc.string({ maxLength: 10 }).filter((s) => !/[\r\n]/.test(s)),
);
const field = fc.oneof(
  { weight: 3, arbitrary: text.map((v) => `data: ${v}`) },
  { weight: 1, arbitrary: text.map((v) => `data:${v}`) },
  { weight: 1, arbitrary: text.map((v) => `id: ${v}`) },
  { weight: 1, arbitrary: text.map((v) => `event:${v}`) },
  { weight: 3, arbitrary: text.map((v) => `retry:${v}`) },
  { weight: 2, arbitrary: text.map((v) => `retry: ${v}`) },
  { weight: 3, arbitrary: text.map((v) => `:${v}`) },
  { weight: 3, arbitrary: fc.tuple(name, text).map(([n, v]) => `${n}:${v}`) },
  { weight: 2, arbitrary: fc.tuple(name, text).map(([n, v]) => `${n}: ${v}`) },
  { weight: 2, arbitrary: name },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'data',
      'id',
      'event',
      'retry',
      'retry:',
      ':',
      ': ',
      'dat: x',
      'datax: y',
      'ids: 1',
    ),
  },
  { weight: 3, arbitrary: fc.constant('') },
);
const stream = fc.tuple(fc.array(field, { maxLength: 24 }), fc.constantFrom('\n', '\r\n'));

function ours(input: string): Seen[] {
  const seen: Seen[] = [];
  const reader = new SseReader({
    message: (m) => seen.push({ kind: 'event', id: m.id, event: m.event, data: m.data }),
    retry: (ms) => seen.push({ kind: 'retry', ms }),
    comment: (t) => seen.push({ kind: 'comment', text: t }),
    diagnostic: (d: Diagnostic) => {
      const retry = /^line \d+ \(byte \d+\): retry value (".*") is not ASCII digits; ignored$/s.exec(
        d.message,
      );
      const unknown = /^line \d+ \(byte \d+\): unknown SSE field (".*"); ignored$/s.exec(d.message);
      if (retry !== null) seen.push({ kind: 'invalid-retry', value: JSON.parse(retry[1]!) });
      else if (unknown !== null) seen.push({ kind: 'unknown-field', field: JSON.parse(unknown[1]!) });
      else throw new Error(`unexpected diagnostic: ${d.message}`);
    },
  });
  reader.push(input);
  reader.end();
  return seen;
}

function reference(input: string): Seen[] {
  const seen: Seen[] = [];
  const parser = createParser({
    onEvent: (e) => seen.push({ kind: 'event', id: e.id, event: e.event, data: e.data }),
    onRetry: (ms) => seen.push({ kind: 'retry', ms }),
    onComment: (t) => seen.push({ kind: 'comment', text: t }),
    onError: (e) => {
      if (e.type === 'invalid-retry') seen.push({ kind: 'invalid-retry', value: e.value ?? '' });
      else if (e.type === 'unknown-field') seen.push({ kind: 'unknown-field', field: e.field ?? '' });
    },
  });
  parser.feed(input);
  return seen;
}

describe('the SSE reader reads fields as eventsource-parser does', () => {
  test('random streams of every field and its near misses', () => {
    fc.assert(
      fc.property(stream, ([lines, end]) => {
        const input = `${lines.join(end)}${end}${end}`;
        expect(ours(input)).toEqual(reference(input));
      }),
      { numRuns: FUZZ_RUNS * 4 },
    );
  });

  test('the cases that decide it, spelled out', () => {
    const input = [
      ': keepalive',
      ':no space',
      ':',
      'retry: 3000',
      'retry:15',
      'retry: x',
      'retry:',
      'retry',
      'retry:  5',
      'foo: bar',
      'foo',
      'datax: y',
      'data: one',
      '',
      '',
    ].join('\n');
    const seen = ours(input);
    expect(seen).toEqual(reference(input));
    expect(seen).toEqual([
      { kind: 'comment', text: 'keepalive' },
      { kind: 'comment', text: 'no space' },
      { kind: 'comment', text: '' },
      { kind: 'retry', ms: 3000 },
      { kind: 'retry', ms: 15 },
      { kind: 'invalid-retry', value: 'x' },
      { kind: 'invalid-retry', value: '' },
      { kind: 'invalid-retry', value: '' },
      { kind: 'invalid-retry', value: ' 5' },
      { kind: 'unknown-field', field: 'foo' },
      { kind: 'unknown-field', field: 'foo' },
      { kind: 'unknown-field', field: 'datax' },
      { kind: 'event', id: undefined, event: undefined, data: 'one' },
    ]);
  });
});
