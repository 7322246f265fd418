import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { AgentwireError } from '../../src/diagnostics';
import { highbar, pyDumps, pyFloat, pyString } from '../../src/formats/highbar/index';
import type { AgentEvent, AgentEventOf } from '../../src/model';
import { chunkAt, expectGolden } from '../golden';
import { writerGivesLineBack } from './helpers/python-proof';

const DIR = 'fixtures/highbar';
const fixtures = readdirSync(DIR).filter((f) => f.endsWith('.jsonl'));
// Fixtures whose every line is in the contract's shape: written back byte for byte.
const NONCONFORMING = new Set(['bad-line.jsonl']);
const read = (f: string) => readFileSync(`${DIR}/${f}`);

describe('fixtures', () => {
  for (const f of fixtures) {
    test(`${f}: golden events and diagnostics`, () => {
      const result = highbar.parse(read(f));
      expectGolden(`${DIR}/${f.replace(/\.jsonl$/, '.golden.json')}`, result);
    });
    if (!NONCONFORMING.has(f)) {
      test(`${f}: stringify(parse(x).events) === x`, () => {
        const text = read(f).toString('utf8');
        const { events, diagnostics } = highbar.parse(text);
        expect(diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
        const losses: Diagnostic[] = [];
        expect(highbar.stringify(events, { onDiagnostic: (d) => losses.push(d) })).toBe(text);
        expect(losses).toEqual([]);
      });
      test(`${f}: parse(stringify(events)) gives the events back`, () => {
        const { events } = highbar.parse(read(f));
        expect(highbar.parse(highbar.stringify(events)).events).toEqual(events);
      });
    }
    test(`${f}: any chunking, and byte by byte, gives the same events`, () => {
      const bytes = new Uint8Array(read(f));
      const whole = highbar.parse(bytes);
      const byByte = highbar.createDecoder();
      const events: AgentEvent[] = [];
      for (let i = 0; i < bytes.length; i++) events.push(...byByte.push(bytes.subarray(i, i + 1)));
      events.push(...byByte.end());
      expect(events).toEqual(whole.events);
      fc.assert(
        fc.property(fc.array(fc.nat({ max: bytes.length }), { maxLength: 12 }), (cuts) => {
          const diagnostics: Diagnostic[] = [];
          const decoder = highbar.createDecoder({ onDiagnostic: (d) => diagnostics.push(d) });
          const out: AgentEvent[] = [];
          for (const chunk of chunkAt(bytes, cuts)) out.push(...decoder.push(chunk));
          out.push(...decoder.end());
          expect(out).toEqual(whole.events);
          expect(diagnostics).toEqual(whole.diagnostics);
        }),
        { numRuns: 40 },
      );
    });
  }
});

describe('decoding per the contract', () => {
  const ctx = '"context": {"test": "t"}';
  const line = (s: string) => highbar.parse(`${s}\n`);

  test('a tool record is a tool.start + tool.end pair, opened by a synthetic run.start', () => {
    const { events } = line(
      `{"v": 1, "type": "tool", "ts": 10.5, "fn": "f", "args": {"a": 1}, "result": "ok", "error": null, "started_at": 10.25, "ended_at": 10.5, ${ctx}}`,
    );
    // No turn record: the input's end closes the run, incomplete (model.md "Run outcome").
    expect(events.map((e) => e.type)).toEqual(['run.start', 'tool.start', 'tool.end', 'run.end']);
    const [, start, end] = events as [AgentEvent, AgentEventOf<'tool.start'>, AgentEventOf<'tool.end'>];
    expect(start).toMatchObject({ call: 'hb-1', name: 'f', args: { a: 1 }, startedAt: 10250, ts: 10500 });
    expect(end).toMatchObject({
      call: 'hb-1',
      ok: true,
      result: 'ok',
      text: 'ok',
      error: null,
      endedAt: 10500,
    });
    expect(end.context).toEqual({ test: 't' });
    expect(events[0]!.provenance?.synthetic).toBe(true);
  });

  test('error: null, false and "" mean success; anything else is a failure kept as given', () => {
    const ok = (error: string) =>
      line(`{"v": 1, "type": "tool", "ts": 1.5, "fn": "f", "args": {}, "error": ${error}}`)
        .events[2] as AgentEventOf<'tool.end'>;
    expect(ok('null').ok).toBe(true);
    expect(ok('false').ok).toBe(true);
    expect(ok('""').ok).toBe(true);
    expect(ok('"boom"')).toMatchObject({ ok: false, error: 'boom' });
    expect(ok('{"code": 5}')).toMatchObject({ ok: false, error: { code: 5 } });
    expect(ok('0')).toMatchObject({ ok: false, error: 0 });
  });

  test('result never decides failure', () => {
    const { events } = line(
      '{"v": 1, "type": "tool", "ts": 1.5, "fn": "f", "args": {}, "result": {"error": "x"}, "error": null}',
    );
    expect((events[2] as AgentEventOf<'tool.end'>).ok).toBe(true);
  });

  test('started_at / ended_at default to ts; a non-number falls back to ts with a warning', () => {
    const a = line('{"v": 1, "type": "tool", "ts": 2.5, "fn": "f", "args": {}}');
    expect(a.events[2]).toMatchObject({ startedAt: 2500, endedAt: 2500 });
    expect(a.diagnostics).toEqual([]);
    const b = line(
      '{"v": 1, "type": "tool", "ts": 2.5, "fn": "f", "args": {}, "started_at": "x", "ended_at": null}',
    );
    expect(b.events[2]).toMatchObject({ startedAt: 2500, endedAt: 2500 });
    expect(b.diagnostics.map((d) => [d.code, d.severity, d.line])).toEqual([
      ['invalid_record', 'warning', 1],
      ['invalid_record', 'warning', 1],
    ]);
  });

  test('invalid JSON, a tool without fn, args or context not objects: errors naming the line', () => {
    const lines = [
      '{"v": 1, "type": "turn", "ts": 1.5}',
      '{"v": 1, "type": "tool", "ts": 1.5, "fn": ',
      '{"v": 1, "type": "tool", "ts": 1.5, "args": {}}',
      '{"v": 1, "type": "tool", "ts": 1.5, "fn": "f", "args": "x"}',
      '{"v": 1, "type": "tool", "ts": 1.5, "fn": "f", "args": {}, "context": "t"}',
      '{"v": 1, "type": "turn", "ts": 1.5, "context": []}',
    ];
    const text = `${lines.join('\n')}\n`;
    const at = (n: number) => lines.slice(0, n - 1).reduce((sum, l) => sum + l.length + 1, 0);
    const { events, diagnostics } = highbar.parse(text);
    expect(diagnostics.map((d) => [d.code, d.severity, d.line, d.offset])).toEqual([
      ['invalid_json', 'error', 2, at(2)],
      ['invalid_record', 'error', 3, at(3)],
      ['invalid_record', 'error', 4, at(4)],
      ['invalid_record', 'error', 5, at(5)],
      ['invalid_record', 'error', 6, at(6)],
    ]);
    expect(diagnostics[0]!.message).toMatch(/^line 2 \(byte 36\): /);
    // The JSON ones are kept as unknown events, so nothing vanishes.
    expect(events.filter((e) => e.type === 'unknown').length).toBe(4);
    expect(() => highbar.parse(text, { strict: true })).toThrow(AgentwireError);
  });

  test('another type, or none, is skipped as info and kept as an unknown event', () => {
    const { events, diagnostics } = highbar.parse(
      '{"v": 1, "type": "span"}\n{"v": 1, "fn": "f", "args": {}}\n',
    );
    expect(diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ['unknown_record', 'info'],
      ['unknown_record', 'info'],
    ]);
    expect(diagnostics[1]!.message).toContain('a tool call written without type is lost'.slice(0, 10));
    expect(events).toMatchObject([{ type: 'unknown', recordType: 'span' }, { type: 'unknown' }]);
  });

  test('a newer version says to upgrade', () => {
    const { diagnostics } = line('{"v": 3, "type": "tool", "ts": 1.5, "fn": "f"}');
    expect(diagnostics[0]).toMatchObject({ code: 'unsupported_version', severity: 'error', line: 1 });
    expect(diagnostics[0]!.message).toContain('upgrade agentwire');
  });

  test('v0: no v (or v: 0) is a tool call, every other field its context', () => {
    const { events } = line(
      '{"fn": "f", "args": {}, "result": 1, "error": null, "started_at": 3.5, "ended_at": 4.5, "conversation_id": 7, "test": "t"}',
    );
    expect(events.map((e) => e.type)).toEqual(['run.start', 'tool.start', 'tool.end', 'run.end']);
    expect(events[2]).toMatchObject({ ok: true, result: 1, startedAt: 3500, endedAt: 4500, ts: 4500 });
    expect(events[2]!.context).toEqual({ conversation_id: 7, test: 't' });
  });

  test('turn ends the run with message and response; hello and tools', () => {
    const { events } = highbar.parse(
      '{"v": 1, "type": "hello", "ts": 1.5, "sdk": "s/1", "pid": 9, "tools": ["a"]}\n' +
        '{"v": 1, "type": "tools", "ts": 1.75, "names": ["b"]}\n' +
        '{"v": 1, "type": "turn", "ts": 2.5, "message": "hi", "response": "hello"}\n',
    );
    expect(events).toMatchObject([
      { type: 'session.start', producer: 's/1', pid: 9, tools: ['a'], ts: 1500 },
      { type: 'tools.declare', tools: ['b'], ts: 1750 },
      { type: 'run.start', ts: 2500 },
      { type: 'run.end', status: 'completed', input: 'hi', answer: 'hello', ts: 2500 },
    ]);
  });

  test('integers beyond 2^53 are errors, never silently rounded', () => {
    const { diagnostics } = line(
      '{"v": 1, "type": "tool", "ts": 1.5, "fn": "f", "args": {"id": 12345678901234567890}}',
    );
    expect(diagnostics.map((d) => d.code)).toEqual(['invalid_record']);
    expect(diagnostics[0]!.message).toContain('12345678901234567890');
  });

  test('__proto__ stays data', () => {
    const { events } = line(
      '{"v": 1, "type": "tool", "ts": 1.5, "fn": "f", "args": {"__proto__": {"x": 1}}, "__proto__": 1}',
    );
    const start = events[1] as AgentEventOf<'tool.start'>;
    expect(Object.hasOwn(start.args!, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(highbar.stringify(events)).toContain('"__proto__": 1');
  });

  test('a line over maxLineBytes is an error and the stream goes on', () => {
    const big = `{"v": 1, "type": "turn", "ts": 1.5, "message": "${'x'.repeat(200)}"}`;
    const { events, diagnostics } = highbar.parse(`${big}\n{"v": 1, "type": "turn", "ts": 2.5}\n`, {
      maxLineBytes: 100,
    });
    expect(diagnostics.map((d) => [d.code, d.line])).toEqual([['line_too_long', 1]]);
    expect(events.map((e) => e.type)).toEqual(['run.start', 'run.end']);
  });
});

describe('writing', () => {
  test('Python json.dumps style: separators, ensure_ascii, float repr', () => {
    expect(pyString('café 😀 "q"\n\u007f')).toBe('"caf\\u00e9 \\ud83d\\ude00 \\"q\\"\\n\\u007f"');
    expect(pyString('\ud800')).toBe('"\\ud800"');
    // Expected values printed by CPython 3.11 repr().
    const cases: Array<[number, string]> = [
      [1792983750.0, '1792983750.0'],
      [1792983750.215, '1792983750.215'],
      [1e-5, '1e-05'],
      [0.0001, '0.0001'],
      [1.5e16, '1.5e+16'],
      [1e16, '1e+16'],
      [9999999999999998, '9999999999999998.0'],
      [123456789012345680000, '1.2345678901234568e+20'],
      [-0.5, '-0.5'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [0.1, '0.1'],
    ];
    for (const [n, s] of cases) expect(pyFloat(n)).toBe(s);
    expect(pyDumps({ a: [1, 2.5, { b: null }], c: true, d: {}, e: [] })).toBe(
      '{"a": [1, 2.5, {"b": null}], "c": true, "d": {}, "e": []}',
    );
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(Number(pyFloat(n))).toBe(n);
      }),
      { numRuns: 300 },
    );
  });

  test('events built by hand: the contract key order, ms → seconds, deterministic clock', () => {
    const events: AgentEvent[] = [
      { type: 'session.start', producer: 'my-agent/1.0', pid: 1, tools: ['f'], ts: 1000 },
      {
        type: 'tool.start',
        call: 'c1',
        name: 'f',
        args: { x: 'é' },
        startedAt: 1500,
        context: { test: 't' },
      },
      {
        type: 'tool.end',
        call: 'c1',
        ok: false,
        error: 'boom',
        endedAt: 2250,
        ts: 2250,
        context: { test: 't' },
      },
      { type: 'run.end', status: 'completed', input: 'hi', answer: 'yo', context: { test: 't' } },
    ];
    expect(highbar.stringify(events, { now: () => 3000 })).toBe(
      '{"v": 1, "type": "hello", "ts": 1.0, "sdk": "my-agent/1.0", "pid": 1, "tools": ["f"]}\n' +
        '{"v": 1, "type": "tool", "ts": 2.25, "fn": "f", "args": {"x": "\\u00e9"}, "result": null, "error": "boom", "started_at": 1.5, "ended_at": 2.25, "context": {"test": "t"}}\n' +
        '{"v": 1, "type": "turn", "ts": 3.0, "message": "hi", "response": "yo", "context": {"test": "t"}}\n',
    );
  });

  test('an edited event is written from its new values, not the original line', () => {
    const text = readFileSync(`${DIR}/reference-emitter.jsonl`, 'utf8');
    const { events } = highbar.parse(text);
    const end = events.find(
      (e) => e.type === 'tool.end' && e.provenance?.hints?.raw !== undefined,
    ) as AgentEventOf<'tool.end'>;
    expect(end).toBeDefined();
    end.result = { status: 'edited' };
    end.ts = 2000;
    const out = highbar.stringify(events);
    expect(out).toContain('"result": {"status": "edited"}');
    expect(out).toContain('"ts": 2.0, "type": "tool"');
  });

  test('what highbar cannot hold is a loss, never a silent drop', () => {
    const losses: Diagnostic[] = [];
    const out = highbar.stringify(
      [
        { type: 'text.delta', text: 'hi' },
        { type: 'tool.start', call: 'c', name: 'f', args: {}, ts: 1000, round: 3 },
        { type: 'run.end', status: 'failed', ts: 2000, usage: { input: 1 } },
      ],
      { onDiagnostic: (d) => losses.push(d) },
    );
    expect(losses.map((d) => d.field)).toEqual([
      'text.delta',
      'tool.start.round',
      'tool.start.call',
      'run.end.usage',
      'run.end.status',
      'tool.end',
    ]);
    expect(out).toBe(
      '{"v": 1, "type": "tool", "ts": 1.0, "fn": "f", "args": {}, "result": null, "error": null, "started_at": 1.0, "ended_at": 1.0}\n' +
        '{"v": 1, "type": "turn", "ts": 2.0}\n',
    );
  });

  test('parse(stringify(events)) round trips hand-built tool calls', () => {
    const arbJson = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.dictionary(fc.string({ unit: 'binary' }), arbJson, { maxKeys: 4 }),
        arbJson,
        fc.oneof(fc.constant(null), fc.string({ minLength: 1 })),
        fc.integer({ min: 0, max: 4e12 }),
        (name, args, result, error, ms) => {
          const events: AgentEvent[] = [
            { type: 'tool.start', call: 'c', name, args, startedAt: ms, ts: ms },
            {
              type: 'tool.end',
              call: 'c',
              ok: error === null,
              result,
              error,
              startedAt: ms,
              endedAt: ms,
              ts: ms,
            },
          ];
          const back = highbar.parse(highbar.stringify(events)).events;
          const start = back[1] as AgentEventOf<'tool.start'>;
          const end = back[2] as AgentEventOf<'tool.end'>;
          expect(start.name).toBe(name);
          expect(JSON.stringify(start.args)).toBe(JSON.stringify(JSON.parse(JSON.stringify(args))));
          expect(end.ok).toBe(error === null);
          expect(end.error).toEqual(error);
          expect(Math.abs(end.ts! - ms)).toBeLessThan(1e-3);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('other writers', () => {
  test('lines not in Python style are written back as they were while the events are unchanged', () => {
    const text = [
      '{"v":1,"type":"tool","ts":1792983750,"fn":"f","args":{"é":1.50,"2":"\\u0041"},"result":null,"error":null}',
      '{"v": 1, "type": "turn", "ts": 1792983751}',
      '{"v": 1, "type": "turn", "ts": 1792983752.0, "context": {"n": 2e3}}',
      '{ "v": 1, "type": "turn", "ts": 1.5 }',
      '',
    ].join('\n');
    const { events, diagnostics } = highbar.parse(text);
    expect(diagnostics).toEqual([]);
    expect(highbar.stringify(events)).toBe(text);
    expect(highbar.parse(highbar.stringify(events)).events).toEqual(events);
  });

  test('numbers another printer wrote its own way, and duplicate keys, are written back as they were', () => {
    // C's %.17g, JavaScript's fixed form below 1e-4 (Python writes 1e-05), -0, a key twice: each
    // parses to a value whose Python text is another line, so the line itself is kept.
    const text = [
      '{"v": 1, "type": "tool", "ts": 1796032182.0510001, "fn": "f", "args": {"x": 0.10000000000000001}}',
      '{"v": 1, "type": "tool", "ts": 1796032182.051, "fn": "f", "args": {"x": 0.00001}}',
      '{"v": 1, "type": "tool", "ts": 1796032182.051, "fn": "f", "args": {"x": -0}}',
      '{"v": 1, "type": "tool", "ts": 1796032182.051, "fn": "f", "args": {"x": 1, "x": 2}}',
      '{"v": 1, "type": "tool", "ts": 1796032182.051, "fn": "f", "args": {"x": 0.30000000000000004, "y": 1e-05}}',
      '',
    ].join('\n');
    const { events, diagnostics } = highbar.parse(text);
    expect(diagnostics).toEqual([]);
    expect(highbar.stringify(events)).toBe(text);
    // Every line is kept (hints.raw); the last is Python's own text, which the writer gives back
    // from the model alone.
    const lines = text.split('\n').slice(0, -1);
    expect(events.filter((e) => e.type === 'tool.end').map((e) => e.provenance?.hints?.raw)).toEqual(lines);
    expect(lines.map(writerGivesLineBack)).toEqual([false, false, false, false, true]);
  });

  test('raw non-ASCII or DEL in a value of an otherwise Python line is kept as written', () => {
    // The splitter tells the decoder when a line is all ASCII (as many bytes as characters); DEL
    // is ASCII but Python escapes it, and a raw é is another writer's (ensure_ascii=False).
    const text = [
      '{"v": 1, "type": "turn", "ts": 1.5, "message": "caf\\u00e9"}',
      '{"v": 1, "type": "turn", "ts": 1.5, "message": "café"}',
      '{"v": 1, "type": "turn", "ts": 1.5, "message": "a\\u007fb"}',
      '{"v": 1, "type": "turn", "ts": 1.5, "message": "a\x7fb"}',
      '',
    ].join('\n');
    const { events, diagnostics } = highbar.parse(text);
    expect(diagnostics).toEqual([]);
    expect(highbar.stringify(events)).toBe(text);
    expect(text.split('\n').slice(0, -1).map(writerGivesLineBack)).toEqual([true, false, true, false]);
  });
});
