import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, gemini } from '../../src/all';
import type { Diagnostic } from '../../src/diagnostics';
import { GEMINI_KEPT_LINES } from '../../src/formats/gemini/encode';
import { edits, keptLineSuite, text, value } from '../kept-suite';
import { FUZZ_RUNS } from '../runs';

// The Gemini writer's kept lines (src/formats/gemini/encode.ts `keptLine`, `sameResult`) held
// equal to the general path: Gemini's records and near misses (timestamps in other spellings or
// absent, keys moved or added, `delta` false or absent, a tool error with another key or its keys
// in the other order, a `\u` escape, a space), their events edited anywhere, their provenance
// changed (another format, extra fields, a key order, hints of another line).

const ms = fc.integer({ min: 1773915267000, max: 1773915327000 });
const iso = ms.map((t) => new Date(t).toISOString());
const time = fc.oneof(
  { weight: 6, arbitrary: iso },
  {
    weight: 1,
    arbitrary: fc.oneof(
      iso.map((t) => t.replace('.', ',')),
      iso.map((t) => t.replace('Z', '+00:00')),
      iso.map((t) => t.replace(/\.\d+Z$/, 'Z')),
      fc.constantFrom('not a time', '', '0050-01-01T00:00:00.000Z'),
    ),
  },
);
const call = fc.constantFrom('c1', 'c2', 'c"3');
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
type Rec = Record<string, unknown>;
// Keys whose value is undefined are left out (JSON.stringify drops them).
const rec = (d: Rec): Rec => Object.fromEntries(Object.entries(d).filter(([, v]) => v !== undefined));

const record: fc.Arbitrary<Rec> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc
      .tuple(time, fc.constantFrom('s1', 's"2'), fc.constantFrom('auto', 'gemini-2.5-pro'))
      .map(([timestamp, s, model]) => ({ type: 'init', timestamp, session_id: s, model })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(time, text)
      .map(([timestamp, content]) => ({ type: 'message', timestamp, role: 'user', content })),
  },
  {
    weight: 6,
    arbitrary: fc
      .tuple(time, text, fc.constantFrom(true, true, true, undefined, false))
      .map(([timestamp, content, delta]) =>
        rec({ type: 'message', timestamp, role: 'assistant', content, delta }),
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        time,
        call,
        fc.dictionary(fc.constantFrom('command', 'path', '__proto__'), value, { maxKeys: 2 }),
      )
      .map(([timestamp, id, parameters]) => ({
        type: 'tool_use',
        timestamp,
        tool_name: 'run_shell_command',
        tool_id: id,
        parameters,
      })),
  },
  {
    weight: 4,
    arbitrary: fc
      .record({
        timestamp: time,
        id: call,
        ok: fc.boolean(),
        output: maybe(text),
        error: fc.option(
          fc.tuple(
            fc.constantFrom('TOOL_EXECUTION_ERROR', 'file_not_found'),
            text,
            fc.constantFrom('', 'reversed', 'extra'),
          ),
          { nil: undefined },
        ),
      })
      .map(({ timestamp, id, ok, output, error }) => {
        let e: Rec | undefined;
        if (error !== undefined) {
          const [type, message, shape] = error;
          e = shape === 'reversed' ? { message, type } : { type, message };
          if (shape === 'extra') e.code = 1;
        }
        return rec({
          type: 'tool_result',
          timestamp,
          tool_id: id,
          status: ok ? 'success' : 'error',
          output,
          error: e,
        });
      }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(time, fc.constantFrom('warning', 'error', 'fatal'), text)
      .map(([timestamp, severity, message]) => ({ type: 'error', timestamp, severity, message })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(time, fc.boolean(), fc.nat({ max: 500 })).map(([timestamp, ok, n]) =>
      ok
        ? {
            type: 'result',
            timestamp,
            status: 'success',
            stats: { total_tokens: n + 1, input_tokens: n, output_tokens: 1, cached: 0, input: n },
          }
        : { type: 'result', timestamp, status: 'error', error: { type: 'Error', message: 'boom' } },
    ),
  },
);

// A record as Gemini CLI writes it, or a near miss of it.
const line = fc.tuple(record, fc.nat({ max: 11 })).map(([r, miss]) => {
  let t = JSON.stringify(r);
  if (miss === 1) t = JSON.stringify({ ...r, extra: 1 });
  if (miss === 2) {
    // the timestamp first (another key order), or absent
    const { timestamp, ...rest } = r;
    t = JSON.stringify({ timestamp, ...rest });
  }
  if (miss === 3) {
    const { timestamp: _, ...rest } = r;
    t = JSON.stringify(rest);
  }
  if (miss === 4) t = t.replace('"type"', '"\\u0074ype"').replace(/"a/, '"\\u0061');
  if (miss === 5) t = t.replace(/,"timestamp":/, ', "timestamp": ');
  if (miss === 6) t = t.replace(/"timestamp":"[^"]*"/, '"timestamp":1773915267000');
  if (miss === 7) t = t.replace(/"content":"/, '"content":"\\u0061');
  return `${t}\n`;
});

/** The text after every event (`|`-separated), the end, and the diagnostics of one writer. */
function writeGemini(events: AgentEvent[], fast: boolean): { text: string; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  GEMINI_KEPT_LINES.enabled = fast;
  let text = '';
  try {
    const e = gemini.createEncoder({
      clock: () => 1773915300000,
      idSource: () => 'id',
      onDiagnostic: (d) => diagnostics.push(d),
    });
    for (const ev of events) text += `${e.write(ev)}|`;
    text += e.end();
  } catch (error) {
    text += `threw ${String(error)}`;
  } finally {
    GEMINI_KEPT_LINES.enabled = true;
  }
  return { text, diagnostics };
}

type Change = (e: AgentEvent, events: AgentEvent[]) => void;
// The hints of the next event after `e` that has some (of another line, or of `e`'s own).
function nextHints(e: AgentEvent, events: AgentEvent[]): Record<string, unknown> | undefined {
  const at = events.indexOf(e);
  for (let i = 1; i <= events.length; i++) {
    const h = events[(at + i) % events.length]!.provenance?.hints;
    if (h !== undefined) return h;
  }
  return undefined;
}
// What a consumer may do to an event's provenance after decoding.
const provenanceChange: fc.Arbitrary<Change> = fc.constantFrom<Change>(
  (e) => {
    if (e.provenance !== undefined) e.provenance.extra = { extra: 1 };
  },
  (e) => {
    if (e.provenance !== undefined) e.provenance.order = ['timestamp', 'type'];
  },
  (e) => {
    if (e.provenance !== undefined) e.provenance.format = 'claude';
  },
  (e) => {
    delete e.provenance;
  },
  // the hints of another line given to this event (as the decoder left them: a mix of two lines'
  // hints is an edit of the hints, which the fast path trusts not to happen)
  (e, events) => {
    const hints = nextHints(e, events);
    if (e.provenance !== undefined && hints !== undefined) e.provenance.hints = hints;
  },
);
// An event's fields put back as equal copies, or given the kept record's own objects and edited.
const aliasChange: fc.Arbitrary<Change> = fc.constantFrom<Change>(
  (e) => {
    const x = e as unknown as Rec;
    for (const k of ['args', 'error', 'result'])
      if (typeof x[k] === 'object' && x[k] !== null) x[k] = JSON.parse(JSON.stringify(x[k]));
  },
  (e) => {
    const r = e.provenance?.hints?.record as Rec | undefined;
    if (e.type === 'tool.end' && r?.error !== undefined) {
      e.error = r.error;
      (r.error as Rec).message = 'edited';
    }
  },
  (e) => {
    if (typeof e.ts === 'number') e.ts += 1;
  },
  // a call's outcome changed: an error said or taken away, the status flipped
  (e) => {
    if (e.type === 'tool.end') e.error = e.error === undefined ? 'failed' : undefined;
  },
  (e) => {
    if (e.type === 'tool.end') e.error = { message: e.error ?? 'failed' };
  },
  (e) => {
    if (e.type === 'tool.end') e.ok = !e.ok;
  },
  (e) => {
    if (e.type === 'tool.end') {
      delete e.text;
      e.result = { out: 1 };
    }
  },
);

const fields = [
  'text',
  'ts',
  'session',
  'role',
  'lane',
  'input',
  'call',
  'name',
  'args',
  'argsSummary',
  'ok',
  'result',
  'error',
  'endedAt',
  'message',
  'severity',
  'kind',
  'fatal',
  'code',
  'status',
  'reason',
  'usage',
  'durationMs',
  'model',
];

describe('Gemini writer: kept lines', () => {
  keptLineSuite({
    codec: gemini,
    format: 'gemini',
    line,
    fields,
    fastPath: GEMINI_KEPT_LINES,
    writeOptions: { clock: () => 1773915300000, idSource: () => 'id' },
    adopt: (e) => {
      // The event's error is the kept record's own error object, edited in place.
      const r = e.provenance?.hints?.record as Rec | undefined;
      if (e.type !== 'tool.end' || r?.error === undefined) return;
      e.error = r.error;
      (r.error as Rec).message = 'edited';
    },
    adoptLines:
      '{"type":"tool_result","timestamp":"2026-03-19T10:15:10.686Z","tool_id":"c1","status":"error","output":"no","error":{"type":"TOOL_EXECUTION_ERROR","message":"no"}}\n',
  });

  test('the text after every event and the diagnostics are the general path’s, for any edit of any event', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 10 }),
        fc.array(
          fc.tuple(
            fc.nat(),
            fc.oneof(
              {
                weight: 3,
                arbitrary: edits(fields).map(
                  (f): Change =>
                    (e) =>
                      f(e),
                ),
              },
              { weight: 2, arbitrary: provenanceChange },
              { weight: 2, arbitrary: aliasChange },
            ),
          ),
          { maxLength: 6 },
        ),
        fc.boolean(),
        (lines, changes, copy) => {
          const decoded = gemini.parse(lines.join('')).events;
          const events: AgentEvent[] = copy ? JSON.parse(JSON.stringify(decoded)) : decoded;
          for (const [at, change] of changes) change(events[at % events.length]!, events);
          expect(writeGemini(events, true)).toEqual(writeGemini(events, false));
        },
      ),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  test('decoded events are written back from the kept lines, copied or not', () => {
    const input = [
      '{"type":"init","timestamp":"2026-03-19T10:14:27.962Z","session_id":"s","model":"auto"}',
      '{"type":"message","timestamp":"2026-03-19T10:14:27.999Z","role":"user","content":"go"}',
      '{"type":"message","timestamp":"2026-03-19T10:14:29.203Z","role":"assistant","content":"a \\"quoted\\" word","delta":true}',
      '{"type":"message","timestamp":"2026-03-19T10:14:29.204Z","role":"assistant","content":"whole"}',
      '{"type":"tool_use","timestamp":"2026-03-19T10:14:29.258Z","tool_name":"x","tool_id":"c1","parameters":{"a":1}}',
      '{"type":"tool_result","timestamp":"2026-03-19T10:14:29.300Z","tool_id":"c1","status":"error","output":"o","error":{"type":"E","message":"m"}}',
      '{"type":"result","timestamp":"2026-03-19T10:14:30.000Z","status":"success"}',
      '',
    ].join('\n');
    const { events } = gemini.parse(input);
    // The kept values are there for the delta and the tool's result.
    const kept = (e: AgentEvent) => e.provenance?.hints?.content ?? e.provenance?.hints?.record;
    expect(events.filter((e) => kept(e) !== undefined).map((e) => e.type)).toEqual([
      'text.delta',
      'tool.end',
    ]);
    expect(gemini.stringify(events)).toBe(input);
    expect(gemini.stringify(JSON.parse(JSON.stringify(events)))).toBe(input);
  });

  test('every event given the hints of every line, at their time, a field deleted or not, gives the bytes the general path gives', () => {
    const input = [
      '{"type":"init","timestamp":"2026-03-19T10:14:27.962Z","session_id":"s","model":"auto"}',
      '{"type":"message","timestamp":"2026-03-19T10:14:27.999Z","role":"user","content":"go"}',
      '{"type":"message","timestamp":"2026-03-19T10:14:29.203Z","role":"assistant","content":"a","delta":true}',
      '{"type":"message","timestamp":"2026-03-19T10:14:29.204Z","role":"assistant","content":"whole"}',
      '{"type":"tool_use","timestamp":"2026-03-19T10:14:29.258Z","tool_name":"x","tool_id":"c1","parameters":{"a":1}}',
      '{"type":"tool_result","timestamp":"2026-03-19T10:14:29.300Z","tool_id":"c1","status":"success","output":"o"}',
      '{"type":"tool_result","timestamp":"2026-03-19T10:14:29.301Z","tool_id":"c1","status":"error","output":"o","error":{"type":"E","message":"m"}}',
      '{"type":"error","timestamp":"2026-03-19T10:14:29.400Z","severity":"warning","message":"w"}',
      '{"type":"result","timestamp":"2026-03-19T10:14:30.000Z","status":"success"}',
      '',
    ].join('\n');
    const count = gemini.parse(input).events.length;
    for (let i = 0; i < count; i++)
      for (let j = 0; j < count; j++) {
        const keys = Object.keys(gemini.parse(input).events[i]!).filter((k) => k !== 'type');
        for (const drop of [undefined, ...keys]) {
          const events = gemini.parse(input).events;
          const e = events[i]!;
          const hints = events[j]!.provenance?.hints;
          if (hints === undefined || e.provenance === undefined) continue;
          e.provenance.hints = hints;
          const ts = events[j]!.ts;
          if (ts !== undefined) e.ts = ts;
          if (drop !== undefined) delete (e as unknown as Rec)[drop];
          expect(writeGemini(events, true), `${i} ${j} ${drop}`).toEqual(writeGemini(events, false));
        }
      }
  });

  test("a kept line's time moved by any digit, in the minute read before or after it, gives the bytes the general path gives", () => {
    // The first line sets the minute the writer reads in place; the others are read in it, the
    // last in the next minute with the first's minute in its content.
    const times = ['10:14:00.000', '10:14:01.001', '10:14:59.999', '10:15:00.000'];
    const input = times
      .map(
        (t, i) =>
          `{"type":"message","timestamp":"2026-03-19T${t}Z","role":"assistant","content":"${i === 3 ? '2026-03-19T10:14:' : 'a'}","delta":true}\n`,
      )
      .join('');
    const steps = [1, 10, 100, 1000, 10000, 60000];
    for (let i = 0; i < times.length; i++)
      for (const step of [...steps, ...steps.map((x) => -x), 59000, -59000, 59999, -59999]) {
        const events = gemini.parse(input).events;
        const e = events.filter((x) => x.type === 'text.delta')[i]!;
        e.ts! += step;
        expect(writeGemini(events, true), `${i} ${step}`).toEqual(writeGemini(events, false));
      }
  });

  test('it trusts the kept values to be what the line says', () => {
    // An edit of the event and of its kept values alike is not seen: the old line is written.
    const input =
      '{"type":"message","timestamp":"2026-03-19T10:14:29.203Z","role":"assistant","content":"hi","delta":true}\n';
    const { events } = gemini.parse(input);
    const delta = events.find((e) => e.type === 'text.delta') as AgentEvent & { text: string };
    delta.text = 'edited';
    delta.provenance!.hints!.content = 'edited';
    expect(writeGemini(events, true).text).toContain('"content":"hi"');
    expect(writeGemini(events, false).text).toContain('"content":"edited"');
  });

  test("a tool's arguments edited in place, then replaced by an equal copy, are written as edited", () => {
    const input = [
      '{"type":"tool_use","timestamp":"2026-03-19T10:14:29.258Z","tool_name":"x","tool_id":"c1","parameters":{"command":"ls"}}',
      '{"type":"tool_result","timestamp":"2026-03-19T10:14:29.300Z","tool_id":"c1","status":"error","output":"o","error":{"type":"E","message":"m"}}',
      '',
    ].join('\n');
    const { events } = gemini.parse(input);
    const start = events.find((e) => e.type === 'tool.start') as AgentEvent & { args: Rec };
    start.args.command = 'edited';
    start.args = { ...start.args };
    const end = events.find((e) => e.type === 'tool.end')!;
    const kept = end.provenance!.hints!.record as { error: Rec };
    end.error = kept.error;
    kept.error.message = 'edited';
    end.error = { ...kept.error };
    const fast = writeGemini(events, true);
    expect(fast).toEqual(writeGemini(events, false));
    expect(fast.text).toContain('"command":"edited"');
    expect(fast.text).toContain('"message":"edited"');
  });
});
