import { expect, test } from 'vitest';
import { codex, nativeharness } from '../../src/all';
import { createDiagnosticSink } from '../../src/diagnostics';
import { createAmpRecordDecoder } from '../../src/formats/amp/decode';
import { CodexRecordDecoder, createCodexRecordDecoder } from '../../src/formats/codex/decode';
import { createCursorRecordDecoder } from '../../src/formats/cursor/decode';
import { NhEnvelopeDecoder, NhSseMessageDecoder } from '../../src/formats/nativeharness/decode';

// The nativeharness envelope decoder and SSE message decoder keep their state in elements of a
// class instance with no named property of its own, so every instance has the class's initial
// hidden class, which outlives a full GC (docs/performance.md, "nativeharness decoder", round
// sixteen). A named field added to either would bring back a hidden class the GC frees between
// streams, and the per-event code that read it: this catches it.

const stream = [
  'id: 1\nevent: session_created\ndata: {"seq":1,"ts":1,"type":"session_created","workspace_id":"w","session_id":"s","turn_id":null,"payload":{"v":1,"actor":"user","mode":"default"}}\n\n',
  'id: 2\nevent: turn_started\ndata: {"seq":2,"ts":2,"type":"turn_started","workspace_id":"w","session_id":"s","turn_id":"t","payload":{"input":"hi"}}\n\n',
  'id: 3\nevent: token\ndata: {"seq":3,"ts":3,"type":"token","workspace_id":"w","session_id":"s","turn_id":"t","payload":{"hop":1,"text":"yo"}}\n\n',
  'event: gap\ndata: {"after":3,"next":5}\n\n',
].join('');

test('the envelope and SSE message decoders have no named own property, before and after decoding', () => {
  const sink = createDiagnosticSink(false, () => {});
  const envelopes = new NhEnvelopeDecoder(sink);
  const messages = new NhSseMessageDecoder(envelopes);
  expect(Object.getOwnPropertyNames(envelopes)).toEqual(['0']);
  expect(Object.getOwnPropertyNames(messages)).toEqual(['0']);
  const out: unknown[] = [];
  envelopes.text({
    text: '{"seq":1,"ts":1,"type":"title","workspace_id":"w","session_id":"s","turn_id":null,"payload":{"title":"x"}}',
    line: 1,
    offset: 0,
    maxDepth: 64,
    out: out as never,
    sse: undefined,
  });
  envelopes.end(out as never);
  expect(out.length).toBe(1);
  expect(Object.getOwnPropertyNames(envelopes)).toEqual(['0']);
  expect(Object.getOwnPropertyNames(messages)).toEqual(['0']);
});

test('an SSE stream decodes the same in one chunk and byte by byte (the per-stream event function)', () => {
  const whole = nativeharness.parse(stream);
  const d = nativeharness.createDecoder();
  const events = [];
  const bytes = Buffer.from(stream);
  for (let i = 0; i < bytes.length; i++) events.push(...d.push(bytes.subarray(i, i + 1)));
  events.push(...d.end());
  expect(JSON.stringify(events)).toBe(JSON.stringify(whole.events));
  expect(whole.events.length).toBe(4);
  expect(whole.diagnostics.map((x) => x.code)).toContain('gap');
});

// The Codex record decoder keeps its state in element 0 of a class instance, `line` and `end` on
// the prototype: one call target for the line splitter across streams, and a hidden class that
// outlives a full GC (docs/performance.md, "Codex decoder", round twenty).
test('the Codex record decoder has no named own property, before and after decoding', () => {
  const sink = createDiagnosticSink(false, () => {});
  const a = createCodexRecordDecoder({}, sink);
  const b = createCodexRecordDecoder({}, sink);
  expect(a).toBeInstanceOf(CodexRecordDecoder);
  expect(Object.getOwnPropertyNames(a)).toEqual(['0']);
  expect(a.line).toBe(b.line);
  const out: unknown[] = [];
  a.line('{"type":"thread.started","thread_id":"t"}', 1, 0, out as never);
  a.line('{"type":"turn.started"}', 2, 41, out as never);
  a.end(out as never);
  expect(out.length).toBe(3);
  expect(Object.getOwnPropertyNames(a)).toEqual(['0']);
});

// The Amp and Cursor record decoders likewise (round twenty-two): they were literals of
// two functions bound per decoder, a new call target for the line splitter with every stream.
test.each([
  [
    'amp',
    createAmpRecordDecoder,
    '{"type":"system","subtype":"init","session_id":"T-1","cwd":"/w","tools":[],"mcp_servers":[]}',
  ],
  [
    'cursor',
    createCursorRecordDecoder,
    '{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s","model":"Auto","permissionMode":"default"}',
  ],
] as const)(
  'the %s record decoder has no named own property and one line for every decoder',
  (_, create, first) => {
    const sink = createDiagnosticSink(false, () => {});
    const a = create({}, sink);
    const b = create({}, sink);
    expect(Object.getOwnPropertyNames(a)).toEqual(['0']);
    expect(a.line).toBe(b.line);
    expect(a.end).toBe(b.end);
    const out: unknown[] = [];
    a.line(first, 1, 0, out as never);
    a.end(out as never);
    expect(out.length).toBeGreaterThan(0);
    expect(Object.getOwnPropertyNames(a)).toEqual(['0']);
  },
);

// A reader's decoder's `push` and `end` are module functions bound to its chunk decoder (round
// forty-seven): as methods of a literal made per decoder they were new functions with every
// stream, and their optimised code, which inlines the line pipeline, died at a full GC with the
// last decoder and was compiled again inside the next stream. Bound, every decoder calls the same
// two functions, and the decoder keeps the API of the literal: own properties, callable unbound.
test('a decoder has push and end of its own, which work unbound', () => {
  const input =
    '{"type":"thread.started","thread_id":"t"}\n{"type":"turn.started"}\n{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}\n';
  const whole = codex.parse(input);
  const d = codex.createDecoder();
  expect(Object.keys(d)).toEqual(['push', 'end']);
  expect(d.push.name).toMatch(/^bound /);
  expect(d.end.name).toMatch(/^bound /);
  const { push, end } = d;
  const bytes = Buffer.from(input);
  const events = [];
  for (let i = 0; i < bytes.length; i += 7) events.push(...push(bytes.subarray(i, i + 7)));
  events.push(...end());
  expect(JSON.stringify(events)).toBe(JSON.stringify(whole.events));
  expect(events.length).toBe(4);
});
