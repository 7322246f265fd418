import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { opencode } from '../../src/all';
import { opencodeFastPath } from '../../src/formats/opencode/encode';
import { keptLineSuite, num, odd, text, trustsKeptRecord, value } from '../kept-suite';

// The OpenCode writer's kept-line fast path (src/formats/opencode/encode.ts `kept`) held equal to
// the general path: OpenCode's records and near misses (keys moved, an extra key, numbers spelled
// otherwise or read as Infinity, a `\u` escape, CRLF), their events edited anywhere.

const ts = fc.integer({ min: 1767036059000, max: 1767036069000 });
const session = fc.constantFrom('ses_main', 'ses_child');
const input = fc.dictionary(fc.constantFrom('command', 'description', 'n', '__proto__'), value, {
  maxKeys: 3,
});

const partOf = (type: string, sid: string, rest: Record<string, unknown>) => ({
  id: 'prt_1',
  sessionID: sid,
  messageID: 'msg_1',
  type,
  ...rest,
});

type Rec = [string, Record<string, unknown>];
const record: fc.Arbitrary<Rec> = fc.oneof(
  fc
    .record({ sid: session, snapshot: text })
    .map(({ sid, snapshot }): Rec => ['step_start', partOf('step-start', sid, { snapshot })]),
  fc
    .record({ sid: session, kind: fc.constantFrom('text', 'reasoning'), t: text, start: ts })
    .map(
      ({ sid, kind, t, start }): Rec => [kind, partOf(kind, sid, { text: t, time: { start, end: start } })],
    ),
  fc
    .record({
      sid: session,
      ok: fc.boolean(),
      input,
      output: text,
      exit: fc.oneof(num, fc.constant(null)),
      meta: fc.boolean(),
      time: fc.option(fc.record({ start: ts, end: ts }), { nil: undefined }),
    })
    .map(({ sid, ok, input, output, exit, meta, time }): Rec => {
      const state: Record<string, unknown> = ok
        ? { status: 'completed', input, output, title: 'x' }
        : { status: 'error', input, error: output };
      if (meta) state.metadata = { output, exit };
      if (time !== undefined) state.time = time;
      return ['tool_use', partOf('tool', sid, { callID: 'call_1', tool: 'bash', state })];
    }),
  fc
    .record({
      sid: session,
      reason: fc.constantFrom('stop', 'tool-calls'),
      cost: num,
      tokens: fc.option(
        fc.record({
          input: num,
          output: num,
          reasoning: num,
          cache: fc.record({ read: num, write: num }),
        }),
        { nil: undefined },
      ),
    })
    .map(
      ({ sid, reason, cost, tokens }): Rec => [
        'step_finish',
        partOf('step-finish', sid, { reason, cost, ...(tokens === undefined ? {} : { tokens }) }),
      ],
    ),
);

const line = fc
  .tuple(record, ts, fc.nat({ max: 9 }), odd, fc.boolean())
  .map(([[type, part], t, miss, o, crlf]) => {
    let text = JSON.stringify({ type, timestamp: t, sessionID: 'ses_main', part });
    if (miss === 1) text = JSON.stringify({ sessionID: 'ses_main', type, timestamp: t, part });
    if (miss === 2) text = JSON.stringify({ type, timestamp: t, sessionID: 'ses_main', part, extra: 1 });
    if (miss === 3) text = text.replace(/"timestamp":\d+/, `"timestamp":${o}`);
    if (miss === 4) text = text.replace(/:(\d+)([,}])/, `:${o}$2`);
    if (miss === 5) text = text.replace(/"a"/, '"\\u0061"');
    return text + (crlf ? '\r\n' : '\n');
  });

const toolLine = `${JSON.stringify({
  type: 'tool_use',
  timestamp: 1,
  sessionID: 's',
  part: {
    id: 'p',
    sessionID: 's',
    messageID: 'm',
    type: 'tool',
    callID: 'c',
    tool: 'bash',
    state: {
      status: 'completed',
      input: { command: 'ls', o: { deep: 1 } },
      output: 'x',
      title: 't',
      time: { start: 1, end: 2 },
    },
  },
})}\n`;

describe('OpenCode writer: the kept-line fast path', () => {
  keptLineSuite({
    codec: opencode,
    format: 'opencode',
    line,
    fields: [
      'text',
      'ts',
      'session',
      'lane',
      'message',
      'call',
      'name',
      'exitCode',
      'startedAt',
      'endedAt',
      'stopReason',
      'error',
      'args',
      'ok',
    ],
    fastPath: opencodeFastPath,
    adopt: (e) => {
      const record = e.provenance?.hints?.record as { part?: { state?: { input?: unknown } } } | undefined;
      const input = record?.part?.state?.input;
      if (e.type !== 'tool.start' || typeof input !== 'object' || input === null) return;
      e.args = input as Record<string, unknown>;
      e.args.command = 'adopted';
    },
    adoptLines: toolLine,
    writeOptions: { idSource: () => 'id', clock: () => 0 },
  });

  test('an argument edited in place is written as edited (the event holds a copy of the kept object)', () => {
    const { events } = opencode.parse(toolLine);
    const start = events.find((e) => e.type === 'tool.start');
    if (start?.type !== 'tool.start') throw new Error('no tool.start');
    (start.args!.o as Record<string, unknown>).deep = 2;
    expect(JSON.parse(opencode.stringify(events)).part.state.input.o.deep).toBe(2);
  });

  test('decoded events take it as they come; it trusts the kept record to be what the line parses to', () => {
    trustsKeptRecord(opencode, opencodeFastPath, toolLine, 'tool.end', (r) => {
      ((r.part as Record<string, unknown>).state as Record<string, unknown>).title = 'edited';
    });
  });
});
