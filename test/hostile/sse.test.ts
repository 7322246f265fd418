import { describe, expect, test } from 'vitest';
import { AgentwireError, type Diagnostic } from '../../src/diagnostics';
import { connect } from '../../src/formats/nativeharness/client';
import { nativeharness } from '../../src/formats/nativeharness/index';
import { formatSseEvent, type SseMessage, SseReader } from '../../src/framing/sse';
import type { AgentEvent, AgentEventOf } from '../../src/model';
import { at, bugTest, byteByByte, type Chunk, type DiagAt, decode, joinChunks, shape } from './helpers';

// SSE hostile cases. Field-level ones go through SseReader (the WHATWG event-stream reader every
// nativeharness SSE input uses); model-level ones through the nativeharness codec with SSE
// framing. Each: exact bytes, chunking where it matters, one outcome.

/** A dispatched event as a case pins it: [id, event, data, lastEventId, line, offset]. */
type Msg = [string | undefined, string | undefined, string, string, number, number];

interface SseCase {
  name: string;
  chunks: Chunk[];
  options?: { maxLineBytes?: number; maxEventBytes?: number; lastEventId?: string };
  messages: Msg[];
  diagnostics?: DiagAt[];
  retries?: number[];
  /** The sticky last event id after the end of input. */
  lastEventId: string;
  /** BUG: the case documents a defect the codec owner must fix (see the report). */
  fails?: boolean;
}

function read(chunks: readonly Chunk[], options: SseCase['options'] = {}) {
  const messages: Msg[] = [];
  const diagnostics: Diagnostic[] = [];
  const retries: number[] = [];
  const reader = new SseReader(
    {
      message: (m: SseMessage) => messages.push([m.id, m.event, m.data, m.lastEventId, m.line, m.offset]),
      diagnostic: (d) => diagnostics.push(d),
      retry: (ms) => retries.push(ms),
    },
    { ...options, format: 'nativeharness' },
  );
  for (const c of chunks) reader.push(typeof c === 'string' ? c : Uint8Array.from(c));
  reader.end();
  return { messages, diagnostics: at(diagnostics), retries, lastEventId: reader.lastEventId };
}

const cases: SseCase[] = [
  {
    name: 'id with a NUL is ignored: the previous id stays the last event id',
    chunks: ['id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n'],
    messages: [
      ['1', undefined, 'a', '1', 1, 0],
      [undefined, undefined, 'b', '1', 4, 15],
    ],
    lastEventId: '1',
  },
  {
    name: 'an empty "id:" resets the last event id to ""',
    chunks: ['id: 1\ndata: a\n\nid:\ndata: b\n\n'],
    messages: [
      ['1', undefined, 'a', '1', 1, 0],
      ['', undefined, 'b', '', 4, 15],
    ],
    lastEventId: '',
  },
  {
    name: 'a bare "id" line (no colon) also resets the last event id',
    chunks: ['id: 1\ndata: a\n\nid\ndata: b\n\n'],
    messages: [
      ['1', undefined, 'a', '1', 1, 0],
      ['', undefined, 'b', '', 4, 15],
    ],
    lastEventId: '',
  },
  {
    name: 'an unfinished event at the end is dropped and its id not committed',
    chunks: ['id: 1\ndata: a\n\nid: 2\ndata: b'],
    messages: [['1', undefined, 'a', '1', 1, 0]],
    diagnostics: [['incomplete_line', 4, 15]],
    lastEventId: '1',
  },
  {
    name: 'a block with an id and no data commits the id and dispatches nothing',
    chunks: ['id: 7\n\n'],
    messages: [],
    lastEventId: '7',
  },
  {
    name: 'a resumed reader reports the given Last-Event-ID until an event sets another',
    chunks: ['data: a\n\nid: 9\ndata: b\n\n'],
    options: { lastEventId: 'é✓' },
    messages: [
      [undefined, undefined, 'a', 'é✓', 1, 0],
      ['9', undefined, 'b', '9', 3, 9],
    ],
    lastEventId: '9',
  },
  {
    name: 'a non-ASCII id is kept exactly (multi-byte, split across chunks)',
    chunks: [[0x69, 0x64, 0x3a, 0x20, 0xc3], [0xa9, 0xe2, 0x9c], [0x93, 0x0a], 'data: x\n\n'],
    messages: [['é✓', undefined, 'x', 'é✓', 1, 0]],
    lastEventId: 'é✓',
  },
  {
    name: 'retry that is huge (23 digits) is passed on as a number; the client clamps it',
    chunks: ['retry: 99999999999999999999999\n\n'],
    messages: [],
    retries: [1e23],
    lastEventId: '',
  },
  {
    name: 'retry in a block discarded for invalid UTF-8 is applied, like its id (issue #15 item 15)',
    chunks: [[0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xff, 0x0a], 'retry: 5000\nid: 7\n\n'],
    messages: [],
    diagnostics: [['invalid_utf8', 1, 0]],
    retries: [5000],
    lastEventId: '7',
  },
  {
    name: 'retry in a block discarded past maxEventBytes is applied (also the line that passes it)',
    chunks: ['data: 0123456789\nretry: 300\nretry: 400\n\n'],
    options: { maxEventBytes: 20 },
    messages: [],
    diagnostics: [['event_too_large', 1, 0]],
    retries: [300, 400],
    lastEventId: '',
  },
  {
    name: 'retry negative (-1) is ignored with a warning',
    chunks: ['retry: -1\n\n'],
    messages: [],
    diagnostics: [['invalid_record', 1, 0]],
    lastEventId: '',
  },
  {
    name: 'retry 1e3 is ignored with a warning (ASCII digits only)',
    chunks: ['retry: 1e3\n\n'],
    messages: [],
    diagnostics: [['invalid_record', 1, 0]],
    lastEventId: '',
  },
  {
    name: 'retry 0x10 is ignored with a warning',
    chunks: ['retry: 0x10\n\n'],
    messages: [],
    diagnostics: [['invalid_record', 1, 0]],
    lastEventId: '',
  },
  {
    name: 'retry 12abc is ignored with a warning',
    chunks: ['data: a\n\nretry: 12abc\n\n'],
    messages: [[undefined, undefined, 'a', '', 1, 0]],
    diagnostics: [['invalid_record', 3, 9]],
    lastEventId: '',
  },
  {
    name: 'retry 0 is valid',
    chunks: ['retry: 0\n\n'],
    messages: [],
    retries: [0],
    lastEventId: '',
  },
  {
    name: 'data: only the first space after the colon is stripped; a TAB is kept',
    chunks: ['data:  two\ndata:\ttab\ndata:none\n\n'],
    messages: [[undefined, undefined, ' two\n\ttab\nnone', '', 1, 0]],
    lastEventId: '',
  },
  {
    name: 'a bare "data" line is an empty data line: the event is dispatched with ""',
    chunks: ['data\n\n'],
    messages: [[undefined, undefined, '', '', 1, 0]],
    lastEventId: '',
  },
  {
    // WHATWG: a blank line with an empty data buffer clears the event type.
    name: 'an event field without data dispatches nothing and does not leak into the next event',
    chunks: ['event: x\n\ndata: y\n\n'],
    messages: [[undefined, undefined, 'y', '', 3, 10]],
    lastEventId: '',
  },
  {
    name: 'data read before a too-long line is discarded with its event, never glued to the next',
    chunks: ['data: a\ndata: 0123456789ABCDEF\n\ndata: b\n\n'],
    options: { maxLineBytes: 12 },
    messages: [[undefined, undefined, 'b', '', 4, 32]],
    diagnostics: [['line_too_long', 2, 8]],
    lastEventId: '',
  },
  {
    name: 'comments are ignored silently; an unknown field is an info diagnostic',
    chunks: [': keepalive\nfoo: bar\ndata: x\n\n'],
    messages: [[undefined, undefined, 'x', '', 1, 0]],
    diagnostics: [['unknown_record', 2, 12]],
    lastEventId: '',
  },
  {
    name: 'mixed CR, LF and CRLF inside one event: one event',
    chunks: ['id: 1\rdata: a\r\ndata: b\n\r'],
    messages: [['1', undefined, 'a\nb', '1', 1, 0]],
    lastEventId: '1',
  },
  {
    name: 'CRLF split across chunks between events does not make an extra blank line',
    chunks: ['data: a\r', '\n\r', '\ndata: b\r\n\r\n'],
    messages: [
      [undefined, undefined, 'a', '', 1, 0],
      [undefined, undefined, 'b', '', 3, 11],
    ],
    lastEventId: '',
  },
  {
    name: 'a second BOM is content: it makes the first field name unknown (WHATWG)',
    chunks: [[0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], 'data: x\n\ndata: y\n\n'],
    messages: [[undefined, undefined, 'y', '', 3, 15]],
    diagnostics: [['unknown_record', 1, 3]],
    lastEventId: '',
  },
  {
    name: 'a NUL in data is content',
    chunks: ['data: a\0b\n\n'],
    messages: [[undefined, undefined, 'a\0b', '', 1, 0]],
    lastEventId: '',
  },
  {
    name: 'a line over maxLineBytes discards its whole event; its id is still committed; the next event is read',
    chunks: ['id: 5\ndata: 0123456789ABCDEF\ndata: tail\n\ndata: ok\n\n'],
    options: { maxLineBytes: 12 },
    messages: [[undefined, undefined, 'ok', '5', 5, 41]],
    diagnostics: [['line_too_long', 2, 6]],
    lastEventId: '5',
  },
  {
    name: 'an event over maxEventBytes is discarded once, the next event is read',
    chunks: ['data: 0123456789\ndata: 0123456789\ndata: 0123456789\n\ndata: ok\n\n'],
    options: { maxEventBytes: 40 },
    messages: [[undefined, undefined, 'ok', '', 5, 52]],
    diagnostics: [['event_too_large', 1, 0]],
    lastEventId: '',
  },
  {
    name: 'invalid UTF-8 in an event discards the event; the next event is read',
    chunks: [[0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a, 0x0a], 'data: ok\n\n'],
    messages: [[undefined, undefined, 'ok', '', 3, 8]],
    diagnostics: [['invalid_utf8', 1, 0]],
    lastEventId: '',
  },
];

describe('hostile input: SSE fields (SseReader)', () => {
  for (const c of cases) {
    const run = c.fails === true ? bugTest : test;
    run(c.name, () => {
      const expected = {
        messages: c.messages,
        diagnostics: c.diagnostics ?? [],
        retries: c.retries ?? [],
        lastEventId: c.lastEventId,
      };
      expect(read(c.chunks, c.options)).toEqual(expected);
      expect(read(byteByByte(c.chunks), c.options)).toEqual(expected);
      expect(read([joinChunks(c.chunks)], c.options)).toEqual(expected);
    });
  }

  test('an event of 100 000 data: lines is one event; the same over maxEventBytes is refused once', () => {
    const lines = 'data: x\n'.repeat(100_000);
    const small = read([`${lines}\n`]);
    expect(small.messages).toHaveLength(1);
    expect(small.messages[0]![2]).toBe(Array(100_000).fill('x').join('\n'));
    const big = read([`${'data: 0123456789abcdef\n'.repeat(100_000)}\ndata: next\n\n`], {
      maxEventBytes: 1024 * 1024,
    });
    expect(big.diagnostics).toEqual([['event_too_large', 1, 0]]);
    expect(big.messages).toEqual([[undefined, undefined, 'next', '', 100_002, 2_300_001]]);
  });
});

const ENV = (seq: number, type: string, payload: string) =>
  `{"seq":${seq},"ts":1767225600137,"type":"${type}","workspace_id":"w","session_id":"s","turn_id":"t","payload":${payload}}`;
const sseEvent = (seq: number, type: string, payload: string) =>
  `id: ${seq}\nevent: ${type}\ndata: ${ENV(seq, type, payload)}\n\n`;

interface NhSseCase {
  name: string;
  chunks: Chunk[];
  shape: string[];
  diagnostics: DiagAt[];
  check?: (events: AgentEvent[]) => void;
}

const nhCases: NhSseCase[] = [
  {
    name: 'nativeharness SSE: data that is not JSON is invalid_json at the block; the next event is read',
    chunks: ['id: 1\nevent: progress\ndata: {oops\n\n', sseEvent(2, 'progress', '{"status":"x"}')],
    shape: ['status@5'],
    diagnostics: [['invalid_json', 1, 0]],
  },
  {
    name: 'nativeharness SSE: a data split over two data: lines is joined with LF before JSON.parse',
    chunks: [
      `id: 1\nevent: progress\ndata: ${ENV(1, 'progress', '{"status":').replace('}', '')}\ndata: "x"}}\n\n`,
    ],
    shape: ['status@1'],
    diagnostics: [],
  },
  {
    name: 'nativeharness SSE: "event: gap" is a gap diagnostic, not an event',
    chunks: ['event: gap\ndata: {"after":3,"next":9}\n\n', sseEvent(9, 'progress', '{"status":"x"}')],
    shape: ['status@4'],
    diagnostics: [['gap', 1, 0]],
  },
  {
    name: 'nativeharness SSE: an id that is not the envelope seq is a warning; the event is kept',
    chunks: [sseEvent(1, 'progress', '{"status":"x"}').replace('id: 1', 'id: 99')],
    shape: ['status@1'],
    diagnostics: [['invalid_record', 1, 0]],
  },
  {
    name: 'nativeharness SSE: "\\r\\nevent: x" inside token text (JSON-escaped) is text, not a field',
    chunks: [sseEvent(1, 'token', '{"hop":1,"text":"a\\r\\nevent: x\\n\\ndata: {}\\rb"}')],
    shape: ['text.delta@1'],
    diagnostics: [],
    check: (events) =>
      expect((events[0] as AgentEventOf<'text.delta'>).text).toBe('a\r\nevent: x\n\ndata: {}\rb'),
  },
  {
    name: 'nativeharness SSE: an unfinished last event is dropped with a warning',
    chunks: [
      sseEvent(1, 'progress', '{"status":"x"}'),
      `id: 2\nevent: progress\ndata: ${ENV(2, 'progress', '{"status":"y"}')}`,
    ],
    shape: ['status@1'],
    diagnostics: [['incomplete_line', 5, 151]],
  },
];

describe('hostile input: SSE through the nativeharness codec', () => {
  for (const c of nhCases) {
    test(c.name, () => {
      const out = decode(nativeharness, c.chunks, { framing: 'sse' });
      expect({ shape: shape(out.events), diagnostics: at(out.diagnostics) }).toEqual({
        shape: c.shape,
        diagnostics: c.diagnostics,
      });
      c.check?.(out.events);
      expect(decode(nativeharness, byteByByte(c.chunks), { framing: 'sse' }).events).toEqual(out.events);
    });
  }

  test('model text with CR, LF and "\\r\\nevent: x" is written as one data line and read back exactly', () => {
    const texts = [
      'a\rb',
      'a\nb',
      '\r\nevent: x\r\ndata: injected\r\n\r\n',
      'id: 666\n\n',
      '\u2028</script>\0',
    ];
    const events: AgentEvent[] = texts.map((text, i) => ({
      type: 'text.delta',
      text,
      seq: i + 1,
      ts: 1767225600137,
      workspace: 'w',
      session: 's',
      run: 't',
      round: 1,
    }));
    const wire = nativeharness.stringify(events, { framing: 'sse' });
    const blocks = wire.split('\n\n').filter((b) => b !== '');
    expect(blocks).toHaveLength(texts.length);
    for (const b of blocks)
      expect(b.split('\n').map((l) => l.slice(0, l.indexOf(':')))).toEqual(['id', 'event', 'data']);
    const back = nativeharness.parse(wire);
    expect(back.diagnostics).toEqual([]);
    expect(back.events.map((e) => (e as AgentEventOf<'text.delta'>).text)).toEqual(texts);
  });

  test('formatSseEvent refuses CR, LF or NUL in id and event and CR or LF in data (no injection)', () => {
    for (const fields of [
      { id: '1\nevent: x', data: '{}' },
      { id: '1\0', data: '{}' },
      { event: 'a\rdata: x', data: '{}' },
      { data: '{}\n\ndata: x' },
      { data: '{}\rretry: 1' },
    ]) {
      expect(() => formatSseEvent(fields)).toThrow(AgentwireError);
    }
    expect(formatSseEvent({ id: 'é✓', event: 'x', data: '\u2028\0' })).toBe(
      'id: é✓\nevent: x\ndata: \u2028\0\n\n',
    );
  });
});

describe('hostile input: SSE client', () => {
  // Header values are byte strings: a character above U+00FF would make fetch throw. WHATWG sends
  // the id UTF-8 encoded; with fetch that is its UTF-8 bytes as a latin1 string.
  test('a non-ASCII last event id is sent back in Last-Event-ID, UTF-8 encoded', async () => {
    const id = 'é✓';
    const sent: Array<string | null> = [];
    let calls = 0;
    const fakeFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init); // validates headers exactly as fetch does
      sent.push(request.headers.get('last-event-id'));
      calls++;
      if (calls > 1) return new Response(null, { status: 204 });
      const body = `id: ${id}\nevent: progress\ndata: ${ENV(1, 'progress', '{"status":"x"}')}\n\n`;
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    };
    const diagnostics: Diagnostic[] = [];
    const events: AgentEvent[] = [];
    const connection = connect('http://127.0.0.1:1/stream', {
      fetch: fakeFetch as typeof fetch,
      retryMs: 1,
      minRetryMs: 1,
      maxRetryMs: 5,
      maxAttempts: 3,
      onDiagnostic: (d) => diagnostics.push(d),
    });
    for await (const e of connection) events.push(e);
    expect(events).toHaveLength(1);
    expect(connection.lastEventId).toBe(id);
    expect(sent).toEqual([null, String.fromCharCode(...new TextEncoder().encode(id))]);
  });
});
