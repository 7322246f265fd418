import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { AgentwireError, type Diagnostic } from '../../src/diagnostics';
import {
  formatSseEvent,
  nativeharness,
  type SseMessage,
  SseReader,
} from '../../src/formats/nativeharness/index';
import type { AgentEvent } from '../../src/model';

function read(
  chunks: Array<string | Uint8Array>,
  options: { maxEventBytes?: number; maxLineBytes?: number } = {},
) {
  const messages: SseMessage[] = [];
  const diagnostics: Diagnostic[] = [];
  const retries: number[] = [];
  const reader = new SseReader(
    {
      message: (m) => messages.push(m),
      diagnostic: (d) => diagnostics.push(d),
      retry: (ms) => retries.push(ms),
    },
    options,
  );
  for (const c of chunks) reader.push(c);
  reader.end();
  return { messages, diagnostics, retries, last: reader.lastEventId };
}

describe('WHATWG event-stream rules', () => {
  test('CR split across chunks: CR LF is one terminator, a lone CR ends a line', () => {
    const r = read(['data: a\r', '\ndata: b\r', '\r', 'data: c\r\n\r\n']);
    expect(r.messages.map((m) => m.data)).toEqual(['a\nb', 'c']);
  });
  test('one BOM is dropped, a second one is content (an unknown field)', () => {
    const bom = Uint8Array.of(0xef, 0xbb, 0xbf);
    const r = read([bom, bom, 'data: x\n\ndata: y\n\n']);
    expect(r.messages.map((m) => m.data)).toEqual(['y']);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['unknown_record']);
  });
  test('`data` without colon is an empty data line; comments are not events', () => {
    const r = read([': hello\ndata\ndata\n\n: keepalive\n\n']);
    expect(r.messages.map((m) => m.data)).toEqual(['\n']);
  });
  test('an id with NUL is ignored (previous id kept); empty id resets; the id is sticky', () => {
    const r = read(['id: 7\ndata: a\n\nid: 8\0x\ndata: b\n\ndata: c\n\nid\ndata: d\n\n']);
    expect(r.messages.map((m) => [m.data, m.id, m.lastEventId])).toEqual([
      ['a', '7', '7'],
      ['b', undefined, '7'],
      ['c', undefined, '7'],
      ['d', '', ''],
    ]);
  });
  test('a block with an id and no data commits the id (WHATWG)', () => {
    expect(read(['id: 3\ndata: a\n\nid: 4\n\n']).last).toBe('4');
  });
  test('an unfinished event at the end is dropped and its id not committed', () => {
    const r = read(['id: 1\ndata: a\n\nid: 2\ndata: b\n']);
    expect(r.messages.map((m) => m.data)).toEqual(['a']);
    expect(r.last).toBe('1');
    expect(r.diagnostics.map((d) => [d.code, d.line])).toEqual([['incomplete_line', 4]]);
  });
  test('retry: digits only', () => {
    const r = read(['retry: 2500\n\nretry: 1e3\n\nretry: -1\n\nretry:  7\n\n']);
    expect(r.retries).toEqual([2500]);
    expect(r.diagnostics.filter((d) => d.code === 'invalid_record')).toHaveLength(3);
  });
  test('an event over maxEventBytes (many data lines) is discarded, reported, and the stream goes on', () => {
    const big = `id: 5\n${'data: 0123456789\n'.repeat(100)}\n`;
    const r = read([`data: a\n\n${big}id: 6\ndata: b\n\n`], { maxEventBytes: 500 });
    expect(r.messages.map((m) => [m.data, m.lastEventId])).toEqual([
      ['a', ''],
      ['b', '6'],
    ]);
    expect(r.diagnostics.map((d) => [d.code, d.line, d.offset])).toEqual([['event_too_large', 3, 9]]);
  });
  test('a line over maxLineBytes discards its event; the next event is read', () => {
    const r = read([`data: ${'x'.repeat(100)}\ndata: y\n\ndata: z\n\n`], { maxLineBytes: 50 });
    expect(r.messages.map((m) => m.data)).toEqual(['z']);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['line_too_long']);
  });
  test('memory stays bounded: a huge event without terminator does not stop the stream', () => {
    const reader = new SseReader({ message: () => {}, diagnostic: () => {} }, { maxEventBytes: 1024 });
    const line = `data: ${'x'.repeat(1000)}\n`;
    for (let i = 0; i < 2000; i++) reader.push(line);
    const got: string[] = [];
    const r2 = new SseReader(
      { message: (m) => got.push(m.data), diagnostic: () => {} },
      { maxEventBytes: 1024 },
    );
    for (let i = 0; i < 2000; i++) r2.push(line);
    r2.push('\ndata: ok\n\n');
    expect(got).toEqual(['ok']);
  });
});

describe('SSE writing is injection-proof; model text passes untouched', () => {
  test('id / event with CR, LF or NUL are refused', () => {
    for (const bad of ['1\n', '1\r', '1\0', 'a\r\nevent: x']) {
      expect(() => formatSseEvent({ id: bad, data: '{}' })).toThrow(AgentwireError);
      expect(() => formatSseEvent({ event: bad, data: '{}' })).toThrow(AgentwireError);
    }
    expect(() => formatSseEvent({ data: 'a\nb' })).toThrow(AgentwireError);
  });
  test('an event whose text is hostile stays one data line and decodes to the same text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const event: AgentEvent = { type: 'text.delta', text, round: 1, run: 't', seq: 5, ts: 1 };
        const sse = nativeharness.stringify([event], { workspace: 'w', session: 's' });
        expect(sse.split('\n').filter((l) => l.startsWith('data: '))).toHaveLength(1);
        const back = nativeharness.parse(sse);
        expect(back.diagnostics).toEqual([]);
        expect((back.events[0] as { text: string }).text).toBe(text);
      }),
      { numRuns: 200 },
    );
  });
  test('the writer refuses an SSE event name it would have to alter', () => {
    const unknown: AgentEvent = {
      type: 'unknown',
      recordType: 'x\ny',
      record: { seq: 1, ts: 1, type: 'x\ny', workspace_id: 'w', session_id: 's', turn_id: null, payload: {} },
      provenance: { format: 'nativeharness', line: 1, offset: 0 },
    };
    expect(() => nativeharness.stringify([unknown])).toThrow(AgentwireError);
  });
});
