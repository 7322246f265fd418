import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, AgentwireError, type Diagnostic, hep } from '../../src/all';

const HEADER = '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}\n';

const codes = (ds: Diagnostic[]) => ds.map((d) => [d.code, d.severity, d.line, d.offset]);

describe('HEP decoder: bad input is reported and the stream goes on', () => {
  test('not JSON, not an object, wrong field types: diagnostics naming line and offset', () => {
    const text = `${HEADER}{oops\n[1,2]\n{"type":"message_delta","turn_id":"1","delta":"x"}\n{"type":"agent_start","turn_id":1}\n`;
    const { events, diagnostics } = hep.parse(text);
    expect(codes(diagnostics)).toEqual([
      ['invalid_json', 'error', 2, 57],
      ['invalid_json', 'error', 3, 63],
      ['invalid_record', 'error', 4, 69],
    ]);
    expect(diagnostics[2]!.message).toMatch(/^line 4 \(byte 69\): invalid message_delta frame: turn_id/);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'run.start', 'run.end']);
  });

  test('the first line must be hep_header', () => {
    const { diagnostics } = hep.parse('{"type":"agent_start","turn_id":1}\n');
    expect(codes(diagnostics)).toEqual([['order', 'error', 1, 0]]);
  });

  test('an unknown major version is unsupported_version; a minor one is read', () => {
    const v2 = hep.parse('{"type":"hep_header","hep":"v2","fah":"1","session":"s"}\n');
    expect(codes(v2.diagnostics)).toEqual([['unsupported_version', 'error', 1, 0]]);
    expect(v2.diagnostics[0]!.message).toMatch(/upgrade/);
    expect(hep.parse('{"type":"hep_header","hep":"v1.3","fah":"1","session":"s"}\n').diagnostics).toEqual([]);
  });

  test('in strict mode the first error throws AgentwireError carrying the diagnostic', () => {
    let thrown: unknown;
    try {
      hep.parse(`${HEADER}not json\n`, { strict: true });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(AgentwireError);
    expect((thrown as AgentwireError).diagnostic.line).toBe(2);
  });

  test('turn ids beyond 2^53 are an error, never rounded', () => {
    const { events, diagnostics } = hep.parse(`${HEADER}{"type":"agent_start","turn_id":9007199254740993}\n`);
    expect(codes(diagnostics)).toEqual([['invalid_record', 'error', 2, 57]]);
    expect(events).toHaveLength(1);
  });

  test('deep nesting is refused before any schema sees it; the next line is read', () => {
    const deep = `{"type":"x","a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const { events, diagnostics } = hep.parse(`${HEADER}${deep}\n{"type":"agent_start","turn_id":1}\n`);
    expect(codes(diagnostics)).toEqual([['nesting_too_deep', 'error', 2, 57]]);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'run.start', 'run.end']);
  });

  test('__proto__ stays data: no prototype is polluted, the key survives a round trip', () => {
    const line =
      '{"type":"future","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}';
    const text = `${HEADER}${line}\n{"type":"agent_start","turn_id":1,"__proto__":{"polluted":true}}\n`;
    const { events } = hep.parse(text);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.hasOwn((events[1] as { record: object }).record, '__proto__')).toBe(true);
    expect(Object.hasOwn(events[2]!.provenance!.extra!, '__proto__')).toBe(true);
    expect(hep.stringify(events)).toBe(text);
  });

  test('a line over maxLineBytes is skipped with a diagnostic; the rest decodes', () => {
    const big = `{"type":"message_delta","turn_id":1,"delta":"${'x'.repeat(5000)}"}\n`;
    const { events, diagnostics } = hep.parse(`${HEADER}${big}{"type":"agent_start","turn_id":1}\n`, {
      maxLineBytes: 1000,
    });
    expect(codes(diagnostics)).toEqual([['line_too_long', 'error', 2, 57]]);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'run.start', 'run.end']);
  });

  test('unknown frames become unknown events; unknown fields are kept in provenance', () => {
    const { events } = hep.parse(`${HEADER}{"type":"new_thing","turn_id":2,"x":1}\n`);
    expect(events[1]).toMatchObject({ type: 'unknown', recordType: 'new_thing', round: 2 });
  });

  test('an empty line is skipped with an info, not an event', () => {
    const { events, diagnostics } = hep.parse(`${HEADER}\n{"type":"agent_start","turn_id":1}\n`);
    expect(codes(diagnostics)).toEqual([['invalid_json', 'info', 2, 57]]);
    // header, agent_start, and the run.end(incomplete) the open run gets at the end
    expect(events).toHaveLength(3);
  });

  test('a partial last line: delivered by default, reported with incompleteLine "report"', () => {
    const text = `${HEADER}{"type":"agent_start","turn_id":1}`;
    expect(hep.parse(text).events).toHaveLength(3); // + run.end(incomplete): the run is open
    const reported = hep.parse(text, { incompleteLine: 'report' });
    expect(reported.events).toHaveLength(1);
    expect(codes(reported.diagnostics)).toEqual([['incomplete_line', 'warning', 2, 57]]);
  });

  test('full-mode args are parsed; a cut or key=value summary is not', () => {
    const { events } = hep.parse(
      `${HEADER}{"type":"tool_start","turn_id":1,"id":"a","name":"w","args_summary":"{\\"p\\":1}"}\n` +
        `{"type":"tool_start","turn_id":1,"id":"b","name":"w","args_summary":"p=1"}\n` +
        `{"type":"tool_start","turn_id":1,"id":"c","name":"w","args_summary":"{\\"p\\": 1}"}\n`,
    );
    expect(events.slice(1).map((e) => (e as { args?: unknown }).args)).toEqual([
      { p: 1 },
      undefined,
      undefined,
    ]);
  });

  test('run.end: synthesized at the end after turn_done, at once after a fatal error or cancel', () => {
    const done = hep.parse(
      `${HEADER}{"type":"agent_start","turn_id":1}\n{"type":"turn_done","turn_id":1,"message":"a","tool_results":[],"usage":{"input":1,"output":2,"cost":0.5},"stop_reason":"toolUse"}\n{"type":"turn_done","turn_id":2,"message":"b","tool_results":[],"usage":{"input":3,"output":4,"cost":0.25},"stop_reason":"stop"}\n`,
    );
    expect(done.events.at(-1)).toMatchObject({
      type: 'run.end',
      status: 'completed',
      answer: 'b',
      stopReason: 'stop',
      usage: { input: 4, output: 6, costUsd: 0.75 },
      provenance: { synthetic: true, line: 4 },
    });
    const failed = hep.parse(
      `${HEADER}{"type":"agent_start","turn_id":1}\n{"type":"turn_error","turn_id":1,"error":"x","fatal":true}\n`,
    );
    expect(failed.events.slice(-2).map((e) => e.type)).toEqual(['error', 'run.end']);
    expect(failed.events.at(-1)).toMatchObject({ status: 'failed' });
  });
});

describe('HEP streaming APIs', () => {
  const text = `${HEADER}{"type":"agent_start","turn_id":1}\n{"type":"message_delta","turn_id":1,"delta":"é😀"}\n`;
  const expected = hep.parse(text).events;
  const bytes = new TextEncoder().encode(text);

  test('decode() from a Node Readable, in small chunks', async () => {
    const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) =>
      bytes.subarray(i * 7, i * 7 + 7),
    );
    const events: AgentEvent[] = [];
    for await (const e of hep.decode(Readable.from(chunks))) events.push(e);
    expect(events).toEqual(expected);
  });

  test('decode() from a Web ReadableStream and from an array', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.subarray(0, 10));
        c.enqueue(bytes.subarray(10));
        c.close();
      },
    });
    const a: AgentEvent[] = [];
    for await (const e of hep.decode(stream)) a.push(e);
    const b: AgentEvent[] = [];
    for await (const e of hep.decode([text])) b.push(e);
    expect(a).toEqual(expected);
    expect(b).toEqual(expected);
  });

  test('breaking out of decode() stops reading the source', async () => {
    let pulled = 0;
    async function* source() {
      for (let i = 0; i < 100; i++) {
        pulled++;
        yield `${i === 0 ? HEADER : ''}{"type":"message_delta","turn_id":1,"delta":"${i}"}\n`;
      }
    }
    for await (const e of hep.decode(source())) {
      if (e.type === 'text.delta') break;
    }
    expect(pulled).toBe(1);
  });

  test('decoderStream() and encoderStream() pipe bytes to events to the same text', async () => {
    const out = await new Response(
      new Blob([bytes])
        .stream()
        .pipeThrough(hep.decoderStream())
        .pipeThrough(hep.encoderStream())
        .pipeThrough(new TextEncoderStream()),
    ).text();
    expect(out).toBe(text);
  });

  test('encode() yields one piece of text per event that writes a frame', async () => {
    const pieces: string[] = [];
    for await (const p of hep.encode(expected)) pieces.push(p);
    expect(pieces).toEqual(text.split(/(?<=\n)/));
  });

  test('createDecoder() is synchronous and stateful; onDiagnostic sees problems in order', () => {
    const seen: string[] = [];
    const d = hep.createDecoder({ onDiagnostic: (x) => seen.push(x.code) });
    expect(d.push(HEADER.slice(0, 10))).toEqual([]);
    expect(d.push(`${HEADER.slice(10)}bad\n`).map((e) => e.type)).toEqual(['session.start']);
    expect(d.end()).toEqual([]);
    expect(seen).toEqual(['invalid_json']);
  });
});
