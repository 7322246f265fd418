import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  type AgentEvent,
  convert,
  type Diagnostic,
  detectFormat,
  gemini,
  isAgentwireError,
} from '../../src/all';
import { GeminiRecordDecoder } from '../../src/formats/gemini/decode';
import { chunkAt } from '../golden';
import { FUZZ_RUNS } from '../runs';

const T = '2026-03-19T10:14:27.962Z';
const lines = (...l: string[]) => `${l.join('\n')}\n`;
const init = `{"type":"init","timestamp":"${T}","session_id":"s1","model":"auto"}`;
const user = `{"type":"message","timestamp":"${T}","role":"user","content":"hi"}`;
const result = `{"type":"result","timestamp":"${T}","status":"success","stats":{"total_tokens":12,"input_tokens":10,"output_tokens":2,"cached":4,"input":6,"duration_ms":5,"tool_calls":0,"models":{"m":{"total_tokens":12,"input_tokens":10,"output_tokens":2,"cached":4,"input":6}}}}`;

describe('decoding', () => {
  test('timestamps become ms since the epoch; usage counts all input, cache reads part of it', () => {
    const { events, diagnostics } = gemini.parse(lines(init, user, result));
    expect(diagnostics).toEqual([]);
    expect(events.map((e) => e.ts)).toEqual([Date.parse(T), Date.parse(T), Date.parse(T)]);
    expect(events[2]).toMatchObject({
      type: 'run.end',
      status: 'completed',
      reason: 'success',
      durationMs: 5,
      usage: { input: 10, output: 2, cacheRead: 4, byModel: { m: { input: 10, output: 2, cacheRead: 4 } } },
    });
  });

  test('a timestamp in another ISO spelling is read and written back as written', () => {
    const text = lines(`{"type":"init","timestamp":"2026-03-19T10:14:27Z","session_id":"s1","model":"auto"}`);
    const { events } = gemini.parse(text);
    expect(events[0]!.ts).toBe(Date.parse('2026-03-19T10:14:27Z'));
    expect(gemini.stringify(events)).toBe(text);
  });

  test('tool_id is opaque: every spelling Gemini CLI used links call and result', () => {
    for (const id of [
      'run_shell_command-1766753316765-e8db',
      'run_shell_command_1773896067962_0',
      'update_topic__update_topic_1780550540836_0',
      'a "quoted" id \u2028',
    ]) {
      const text = lines(
        init,
        user,
        `{"type":"tool_use","timestamp":"${T}","tool_name":"t","tool_id":${JSON.stringify(id)},"parameters":{}}`,
        `{"type":"tool_result","timestamp":"${T}","tool_id":${JSON.stringify(id)},"status":"success"}`,
      );
      const { events } = gemini.parse(text);
      expect(events.filter((e) => e.type === 'tool.end')).toMatchObject([{ call: id, name: 't', ok: true }]);
      expect(events.find((e) => e.type === 'tool.end')).not.toHaveProperty('text');
      expect(gemini.stringify(events)).toBe(text);
    }
  });

  test('a non-JSON line after init is an error diagnostic, kept byte for byte; never fatal', () => {
    const text = lines(init, user, 'Error: something printed to stdout', result);
    const { events, diagnostics } = gemini.parse(text);
    expect(diagnostics.map((d) => [d.severity, d.code, d.line])).toEqual([['error', 'invalid_json', 3]]);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'run.start', 'unknown', 'run.end']);
    expect(gemini.stringify(events)).toBe(text);
  });

  test('strict mode throws an AgentwireError at the first error, not at a banner', () => {
    expect(gemini.parse(lines('Warning: banner', init), { strict: true }).events.map((e) => e.type)).toEqual([
      'notice',
      'session.start',
      'run.start',
      'run.end',
    ]);
    try {
      gemini.parse(lines(init, '{oops'), { strict: true });
      expect.unreachable();
    } catch (e) {
      expect(isAgentwireError(e)).toBe(true);
    }
  });

  test('a second init (two processes appended) ends the first session’s open run as incomplete', () => {
    const { events } = gemini.parse(lines(init, user, init, user, result));
    expect(events.map((e) => (e.type === 'run.end' ? `run.end:${e.status}` : e.type))).toEqual([
      'session.start',
      'run.start',
      'run.end:incomplete',
      'session.start',
      'run.start',
      'run.end:completed',
    ]);
  });

  test('init alone (auth failure before any prompt) is an incomplete run, too', () => {
    const { events } = gemini.parse(lines(init));
    expect(events.map((e) => e.type)).toEqual(['session.start', 'run.start', 'run.end']);
    expect(events[2]).toMatchObject({ status: 'incomplete', provenance: { synthetic: true } });
  });

  test('records of a known type with a wrong field are invalid_record, kept as unknown', () => {
    const text = lines(
      init,
      `{"type":"tool_use","timestamp":"${T}","tool_name":1,"tool_id":"x","parameters":{}}`,
    );
    const { events, diagnostics } = gemini.parse(text);
    expect(diagnostics[0]).toMatchObject({ code: 'invalid_record', severity: 'error', line: 2 });
    expect(events[1]).toMatchObject({ type: 'unknown', recordType: 'tool_use' });
    expect(gemini.stringify(events)).toBe(text);
  });

  test('maxLineBytes defaults to 16 MiB: a 2 MB tool output is read', () => {
    const output = 'x'.repeat(2_000_000);
    const text = lines(
      init,
      user,
      `{"type":"tool_result","timestamp":"${T}","tool_id":"c","status":"success","output":"${output}"}`,
    );
    const { events, diagnostics } = gemini.parse(text);
    expect(diagnostics).toEqual([]);
    expect(events.find((e) => e.type === 'tool.end')).toMatchObject({ text: output });
    const small = gemini.parse(text, { maxLineBytes: 1024 });
    expect(small.diagnostics.map((d) => d.code)).toEqual(['line_too_long']);
  });

  test('integers past 2^53 are reported, not rounded silently', () => {
    const text = lines(
      init,
      `{"type":"tool_use","timestamp":"${T}","tool_name":"t","tool_id":"c","parameters":{"n":9007199254740993}}`,
    );
    expect(gemini.parse(text).diagnostics.map((d) => d.code)).toEqual(['invalid_record']);
  });
});

describe('writing', () => {
  test('events built by hand: init first, canonical key order, deltas, no result for an incomplete run', () => {
    const clock = () => Date.parse(T);
    const out = gemini.stringify(
      [
        { type: 'run.start', input: 'fix it' },
        { type: 'text.delta', text: 'on it' },
        { type: 'tool.start', call: 'c1', name: 'read_file', args: { path: 'a.ts' } },
        { type: 'tool.end', call: 'c1', ok: false, error: 'not found' },
        {
          type: 'notice',
          kind: 'warning',
          severity: 'warning',
          message: 'Loop detected, stopping execution',
        },
        { type: 'error', message: 'quota', fatal: true, code: 'FatalTurnLimitedError' },
        { type: 'run.end', status: 'failed', usage: { input: 10, output: 2, cacheRead: 4 }, durationMs: 7 },
        { type: 'run.start', input: 'again' },
        { type: 'run.end', status: 'incomplete' },
      ],
      { clock, idSource: () => 'sess-1' },
    );
    expect(out).toBe(
      lines(
        `{"type":"init","timestamp":"${T}","session_id":"sess-1","model":"unknown"}`,
        `{"type":"message","timestamp":"${T}","role":"user","content":"fix it"}`,
        `{"type":"message","timestamp":"${T}","role":"assistant","content":"on it","delta":true}`,
        `{"type":"tool_use","timestamp":"${T}","tool_name":"read_file","tool_id":"c1","parameters":{"path":"a.ts"}}`,
        `{"type":"tool_result","timestamp":"${T}","tool_id":"c1","status":"error","error":{"type":"TOOL_EXECUTION_ERROR","message":"not found"}}`,
        `{"type":"error","timestamp":"${T}","severity":"warning","message":"Loop detected, stopping execution"}`,
        `{"type":"result","timestamp":"${T}","status":"error","error":{"type":"FatalTurnLimitedError","message":"quota"},"stats":{"total_tokens":12,"input_tokens":10,"output_tokens":2,"cached":4,"input":6,"duration_ms":7,"tool_calls":1,"models":{}}}`,
        `{"type":"message","timestamp":"${T}","role":"user","content":"again"}`,
      ),
    );
    expect(gemini.check(out).filter((d) => d.severity === 'error')).toEqual([]);
  });

  test('an edited event is written from the model; the rest of the stream stays as written', () => {
    const text = lines(
      init,
      user,
      `{"type":"message","timestamp":"${T}","role":"assistant","content":"old","delta":true,"response_id":"gen-1"}`,
    );
    const { events } = gemini.parse(text);
    const edited = events.map((e) => (e.type === 'text.delta' ? { ...e, text: 'new' } : e));
    expect(gemini.stringify(edited)).toBe(
      lines(
        init,
        user,
        `{"type":"message","timestamp":"${T}","role":"assistant","content":"new","delta":true,"response_id":"gen-1"}`,
      ),
    );
  });

  test('an edited usage patches the written stats, keeping what the model has no place for', () => {
    const { events } = gemini.parse(lines(init, user, result));
    const end = events[2]!;
    if (end.type !== 'run.end') throw new Error('not run.end');
    const out = gemini.stringify([
      { ...end, usage: { ...end.usage!, output: 3, byModel: { m: { input: 10, output: 3, cacheRead: 4 } } } },
    ]);
    expect(out).toContain(
      '"stats":{"total_tokens":12,"input_tokens":10,"output_tokens":3,"cached":4,"input":6,"duration_ms":5,"tool_calls":0,"models":{"m":{"total_tokens":12,"input_tokens":10,"output_tokens":3,"cached":4,"input":6}}}',
    );
  });

  test('what Gemini cannot hold is reported as loss, once per field', () => {
    const losses: Diagnostic[] = [];
    gemini.stringify(
      [
        { type: 'reasoning.delta', text: 'hmm' },
        { type: 'tool.start', call: 'c', name: 'bash', argsSummary: 'ls', kind: 'execute' },
        { type: 'run.end', status: 'completed', usage: { input: 1, costUsd: 0.1 } },
      ],
      { onDiagnostic: (d) => losses.push(d), clock: () => 0, idSource: () => 's' },
    );
    expect(losses.map((d) => d.field)).toEqual([
      'reasoning.delta',
      'tool.start.argsSummary',
      'tool.start.kind',
      'run.end.usage.costUsd',
    ]);
  });

  const runs = (text: string) =>
    gemini.parse(text).events.flatMap((e) => (e.type === 'run.end' ? [e.status] : []));

  test('a cut-off run then another run: an init between them, so they read back as two runs', () => {
    const clock = () => Date.parse(T);
    const out = gemini.stringify(
      [
        { type: 'session.start', session: 's1', model: 'auto' },
        { type: 'run.start', input: 'one' },
        { type: 'text.delta', text: 'a' },
        { type: 'run.end', status: 'incomplete' },
        { type: 'run.start', input: 'two' },
        { type: 'text.delta', text: 'b' },
        { type: 'run.end', status: 'completed' },
      ],
      { clock },
    );
    expect(out.split('\n').filter((l) => l.includes('"type":"init"'))).toEqual([init, init]);
    expect(runs(out)).toEqual(['incomplete', 'completed']);
    // A run with no end before the next start is cut off too.
    const noEnd = gemini.stringify(
      [
        { type: 'run.start', input: 'one' },
        { type: 'run.start', input: 'two' },
        { type: 'run.end', status: 'completed' },
      ],
      { clock, idSource: () => 's1' },
    );
    expect(runs(noEnd)).toEqual(['incomplete', 'completed']);
    // Written again, the two runs stay two runs and the same bytes.
    expect(gemini.stringify(gemini.parse(out).events)).toBe(out);
  });

  test('a Claude stream of two cut-off runs (system/init each) reads back as two incomplete Gemini runs', () => {
    const claudeInit =
      '{"type":"system","subtype":"init","cwd":"/r","session_id":"s1","tools":[],"model":"claude-sonnet-4-5","permissionMode":"default","uuid":"u0"}';
    const msg = (id: string, t: string) =>
      `{"type":"assistant","message":{"model":"claude-sonnet-4-5","id":"${id}","type":"message","role":"assistant","content":[{"type":"text","text":"${t}"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":4}},"parent_tool_use_id":null,"session_id":"s1","uuid":"u${id}"}`;
    const text = lines(claudeInit, msg('m1', 'first'), claudeInit, msg('m2', 'second'));
    const out = convert(text, { from: 'claude', to: 'gemini', clock: () => 0 }).output;
    expect(runs(out)).toEqual(['incomplete', 'incomplete']);
    const deltas = gemini.parse(out).events.filter((e) => e.type === 'text.delta');
    expect(deltas.map((e) => (e as { text: string }).text)).toEqual(['first', 'second']);
  });

  test('a non-fatal error of another format: a warning in a run that completes, an error record in one that fails', () => {
    const losses: Diagnostic[] = [];
    const out = gemini.stringify(
      [
        { type: 'run.start', input: 'x' },
        { type: 'error', message: 'overloaded; retrying', fatal: false },
        { type: 'text.delta', text: 'done' },
        { type: 'run.end', status: 'completed' },
        { type: 'run.start', input: 'y' },
        { type: 'error', message: 'overloaded; retrying', fatal: false },
        { type: 'text.delta', text: 'no' },
        { type: 'run.end', status: 'failed', error: 'boom' },
      ],
      { clock: () => Date.parse(T), idSource: () => 's1', onDiagnostic: (d) => losses.push(d) },
    );
    const records = out.split('\n').filter((l) => l.includes('"type":"error"'));
    expect(records).toEqual([
      `{"type":"error","timestamp":"${T}","severity":"warning","message":"overloaded; retrying"}`,
      `{"type":"error","timestamp":"${T}","severity":"error","message":"overloaded; retrying"}`,
    ]);
    expect(runs(out)).toEqual(['completed', 'failed']);
    // The completed run's status is kept; the error reads back as a warning notice: that is the loss.
    expect(losses.filter((d) => d.code === 'loss').map((d) => d.field)).toEqual(['error']);
    const back = gemini.parse(out).events;
    expect(back.find((e) => e.type === 'notice')).toMatchObject({ message: 'overloaded; retrying' });
    expect(gemini.stringify(back)).toBe(out);
  });

  test('a non-fatal error first: the init still comes first; a cut-off run keeps it an error record', () => {
    const out = gemini.stringify(
      [
        { type: 'run.start' },
        { type: 'error', message: 'hiccup', fatal: false },
        { type: 'text.delta', text: 'ok' },
      ],
      { clock: () => Date.parse(T), idSource: () => 's1' },
    );
    expect(out).toBe(
      lines(
        `{"type":"init","timestamp":"${T}","session_id":"s1","model":"unknown"}`,
        `{"type":"error","timestamp":"${T}","severity":"error","message":"hiccup"}`,
        `{"type":"message","timestamp":"${T}","role":"assistant","content":"ok","delta":true}`,
      ),
    );
    expect(runs(out)).toEqual(['incomplete']);
  });

  test('converted to HEP and back, a Gemini stream keeps its text, calls and outcome', () => {
    const text = lines(
      init,
      user,
      `{"type":"message","timestamp":"${T}","role":"assistant","content":"ok","delta":true}`,
      result,
    );
    const hep = convert(text, { to: 'hep', clock: () => 0, idSource: () => 'x' }).output;
    const back = gemini.parse(
      convert(hep, { from: 'hep', to: 'gemini', clock: () => 0, idSource: () => 'x' }).output,
    ).events;
    expect(back.filter((e) => e.type === 'text.delta').map((e) => (e as { text: string }).text)).toEqual([
      'ok',
    ]);
    expect(back.at(-1)).toMatchObject({ type: 'run.end', status: 'completed' });
  });
});

describe('detection', () => {
  test('banners first, then init: gemini', () => {
    expect(detectFormat(lines('Warning: True color (24-bit) support not detected.', '', init))).toMatchObject(
      {
        format: 'gemini',
        confidence: 'certain',
      },
    );
  });

  test('a stream cut before init: its first record says gemini (likely)', () => {
    expect(detectFormat(lines(user))).toMatchObject({ format: 'gemini', confidence: 'likely' });
  });

  test('Claude, Codex and the seed formats are not gemini', () => {
    for (const other of [
      '{"type":"system","subtype":"init","cwd":"/w","session_id":"s","model":"claude"}',
      '{"type":"thread.started","thread_id":"t"}',
      '{"type":"error","message":"boom"}',
      '{"type":"result","subtype":"success","is_error":false}',
      '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}',
      '{"v": 1, "type": "hello", "ts": 1.0}',
      'hello world',
    ]) {
      expect(detectFormat(lines(other))?.format, other).not.toBe('gemini');
    }
  });
});

// Any stream of Gemini records (banners before init included) round-trips byte for byte and
// decodes alike at every chunking.
const text = fc.string({ maxLength: 12, unit: 'grapheme' });
const iso = fc
  .integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) })
  .map((ms) => new Date(ms).toISOString());
const record = fc.oneof(
  fc
    .record({
      ts: iso,
      role: fc.constantFrom('user', 'assistant'),
      content: text,
      delta: fc.constantFrom(true, undefined),
    })
    .map((r) =>
      JSON.stringify({
        type: 'message',
        timestamp: r.ts,
        role: r.role,
        content: r.content,
        delta: r.role === 'assistant' ? r.delta : undefined,
      }),
    ),
  fc
    .record({
      ts: iso,
      id: text,
      name: text,
      p: fc.dictionary(
        text,
        fc.oneof(
          text,
          fc.integer(),
          fc.boolean(),
          fc.constant(null),
          fc.array(fc.integer(), { maxLength: 3 }),
        ),
        { maxKeys: 3 },
      ),
    })
    .map((r) =>
      JSON.stringify({
        type: 'tool_use',
        timestamp: r.ts,
        tool_name: r.name,
        tool_id: r.id,
        parameters: r.p,
      }),
    ),
  fc
    .record({
      ts: iso,
      id: text,
      ok: fc.boolean(),
      out: fc.option(text, { nil: undefined }),
      et: fc.constantFrom('TOOL_EXECUTION_ERROR', 'file_not_found'),
    })
    .map((r) =>
      JSON.stringify({
        type: 'tool_result',
        timestamp: r.ts,
        tool_id: r.id,
        status: r.ok ? 'success' : 'error',
        output: r.out,
        error: r.ok ? undefined : { type: r.et, message: r.out ?? 'x failed' },
      }),
    ),
  fc
    .record({ ts: iso, sev: fc.constantFrom('warning', 'error'), m: text })
    .map((r) => JSON.stringify({ type: 'error', timestamp: r.ts, severity: r.sev, message: r.m })),
  fc
    .record({
      ts: iso,
      ok: fc.boolean(),
      n: fc.nat(1e6),
      models: fc.dictionary(text, fc.nat(1e6), { maxKeys: 2 }),
    })
    .map((r) => {
      const m = Object.fromEntries(
        Object.entries(r.models).map(([k, v]) => [
          k,
          { total_tokens: v, input_tokens: v, output_tokens: 0, cached: 0, input: v },
        ]),
      );
      return JSON.stringify({
        type: 'result',
        timestamp: r.ts,
        status: r.ok ? 'success' : 'error',
        error: r.ok ? undefined : { type: 'FatalError', message: 'boom' },
        stats: {
          total_tokens: r.n,
          input_tokens: r.n,
          output_tokens: 0,
          cached: 0,
          input: r.n,
          duration_ms: 3,
          tool_calls: 0,
          models: m,
        },
      });
    }),
);
const stream = fc
  .tuple(
    fc.array(
      fc.constantFrom('Warning: True color (24-bit) support not detected.', 'YOLO mode is enabled.', ''),
      { maxLength: 2 },
    ),
    fc.boolean(),
    fc.array(record, { maxLength: 10 }),
  )
  .map(([banners, withInit, records]) => lines(...banners, ...(withInit ? [init] : []), ...records));

test('property: any Gemini stream round-trips byte for byte, with no error diagnostic', () => {
  fc.assert(
    fc.property(stream, (s) => {
      const { events, diagnostics } = gemini.parse(s);
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(gemini.stringify(events)).toBe(s);
    }),
    { numRuns: FUZZ_RUNS },
  );
});

test('property: any chunking gives the same events and diagnostics', () => {
  const enc = new TextEncoder();
  fc.assert(
    fc.property(stream, fc.array(fc.nat({ max: 4000 }), { maxLength: 10 }), (s, cuts) => {
      const bytes = enc.encode(s);
      const whole = gemini.parse(bytes);
      const diagnostics: Diagnostic[] = [];
      const decoder = gemini.createDecoder({ onDiagnostic: (d) => diagnostics.push(d) });
      const events = chunkAt(bytes, cuts).flatMap((c) => decoder.push(c));
      events.push(...decoder.end());
      expect(events).toEqual(whole.events);
      expect(diagnostics).toEqual(whole.diagnostics);
    }),
    { numRuns: FUZZ_RUNS },
  );
});

test('property: arbitrary bytes never throw; every line yields an event or a diagnostic', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.string({ maxLength: 30 }), record), { maxLength: 8 }), (ls) => {
      const s = lines(...ls);
      const { events, diagnostics } = gemini.parse(s);
      const seen = new Set<number>();
      for (const e of events) seen.add(e.provenance!.line);
      for (const d of diagnostics) if (d.line !== undefined) seen.add(d.line);
      for (let i = 1; i <= ls.length; i++) expect(seen.has(i), `line ${i}`).toBe(true);
      expect(gemini.stringify(events)).toBe(s);
    }),
    { numRuns: FUZZ_RUNS },
  );
});

test('property: the delta shortcut and the general path agree (events and diagnostics)', () => {
  const content = fc.oneof(
    fc.string({ maxLength: 30, unit: 'grapheme' }),
    fc.string({ maxLength: 10, unit: 'binary' }),
    fc.constantFrom('a"b', 'x\\y', 'tab\there', '\u0000', '\u2028', '😀', ''),
  );
  const deltaLine = fc
    .tuple(iso, content, fc.constantFrom('', 'x', ',"delta":false', '"'))
    .map(([ts, c, mangle]) => {
      const line = JSON.stringify({
        type: 'message',
        timestamp: ts,
        role: 'assistant',
        content: c,
        delta: true,
      });
      return mangle === ''
        ? line
        : mangle === 'x'
          ? line.replace('assistant', 'assistanx')
          : `${line.slice(0, -1)}${mangle}}`;
    });
  fc.assert(
    fc.property(fc.array(fc.oneof(deltaLine, record), { maxLength: 8 }), (ls) => {
      const decode = (shortcut: boolean) => {
        const diagnostics: Diagnostic[] = [];
        const d = new GeminiRecordDecoder({}, { report: (x) => diagnostics.push(x) }, shortcut);
        const events: AgentEvent[] = [];
        ls.forEach((l, i) => {
          d.line(l, i + 1, i * 1000, events);
        });
        d.end(events);
        return { events, diagnostics };
      };
      expect(decode(true)).toEqual(decode(false));
    }),
    { numRuns: FUZZ_RUNS * 2 },
  );
});
