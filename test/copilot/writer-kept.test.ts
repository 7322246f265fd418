import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, copilot } from '../../src/all';
import { COPILOT_KEPT_LINES } from '../../src/formats/copilot/encode';
import { keptLineSuite, num, odd, text, trustsKeptRecord, value } from '../kept-suite';
import { FUZZ_RUNS } from '../runs';

// The Copilot writer's kept-line fast path (src/formats/copilot/encode.ts `keptLine`) held equal
// to the general path: Copilot's records and near misses (the on-disk key order, envelope keys
// moved, an extra key in the envelope or the data, numbers spelled otherwise or read as Infinity,
// a `\u` escape, timestamps in other spellings, a parent that is no string, data that is no
// object), their events edited anywhere.

const ts = fc.integer({ min: 1768471200000, max: 1768471260000 });
const time = fc.oneof(
  ts.map((t) => new Date(t).toISOString()),
  ts.map((t) => new Date(t).toISOString().replace('Z', '000Z')),
  fc.constantFrom('2026-01-15T10:00:01Z', 'not a time', ''),
);
const message = fc.constantFrom('m1', 'm2');
const call = fc.constantFrom('c1', 'c2');
const args = fc.dictionary(fc.constantFrom('command', 'path', 'n', '__proto__'), value, { maxKeys: 3 });
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

type Data = Record<string, unknown>;
// Keys whose value is undefined are left out (JSON.stringify drops them).
const data = (d: Data): Data => Object.fromEntries(Object.entries(d).filter(([, v]) => v !== undefined));

const record: fc.Arbitrary<[string, Data]> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(message, text)
      .map(([m, t]): [string, Data] => ['assistant.message_delta', { messageId: m, deltaContent: t }]),
  },
  fc.tuple(message).map(([m]): [string, Data] => ['assistant.message_start', { messageId: m }]),
  fc
    .record({ m: message, content: text, reasoning: maybe(text), tools: fc.boolean() })
    .map(({ m, content, reasoning, tools }): [string, Data] => [
      'assistant.message',
      data({
        messageId: m,
        content,
        toolRequests: tools ? [{ toolCallId: 'c1', name: 'bash', arguments: { n: 1 } }] : undefined,
        reasoningText: reasoning,
      }),
    ]),
  fc
    .tuple(
      fc.constantFrom('assistant.turn_start', 'assistant.turn_end'),
      fc.constantFrom('0', '1', '01', 'x'),
      maybe(text),
    )
    .map(([type, turnId, model]): [string, Data] => [type, data({ turnId, model })]),
  fc
    .record({
      model: maybe(fc.constantFrom('gpt-5', 'claude')),
      input: num,
      output: num,
      cacheRead: maybe(num),
      cacheWrite: maybe(num),
      reasoning: maybe(num),
      apiCallId: maybe(fc.constantFrom('a1', 'a2')),
      cost: maybe(num),
    })
    .map((u): [string, Data] => [
      'assistant.usage',
      data({
        model: u.model,
        inputTokens: u.input,
        outputTokens: u.output,
        cacheReadTokens: u.cacheRead,
        cacheWriteTokens: u.cacheWrite,
        reasoningTokens: u.reasoning,
        apiCallId: u.apiCallId,
        cost: u.cost,
      }),
    ]),
  fc
    .record({
      c: call,
      name: fc.constantFrom('bash', 'view'),
      args: fc.oneof(args, value),
      server: maybe(text),
    })
    .map(({ c, name, args, server }): [string, Data] => [
      'tool.execution_start',
      data({ toolCallId: c, toolName: name, arguments: args, mcpServerName: server }),
    ]),
  fc
    .tuple(call, text)
    .map(([c, t]): [string, Data] => ['tool.execution_partial_result', { toolCallId: c, partialOutput: t }]),
  fc
    .record({
      c: call,
      ok: fc.boolean(),
      content: maybe(text),
      detailed: maybe(text),
      error: maybe(fc.oneof(text, fc.record({ message: text, code: maybe(text) }))),
    })
    .map(({ c, ok, content, detailed, error }): [string, Data] => [
      'tool.execution_complete',
      data({
        toolCallId: c,
        success: ok,
        result: content === undefined ? undefined : data({ content, detailedContent: detailed }),
        error: typeof error === 'string' ? { message: error } : error === undefined ? undefined : data(error),
      }),
    ]),
  fc.constant<[string, Data]>([
    'session.start',
    { sessionId: 's1', version: 1, producer: 'copilot-agent', copilotVersion: '0.0.354' },
  ]),
  fc.constant<[string, Data]>(['session.idle', {}]),
  text.map((t): [string, Data] => ['user.message', { content: t }]),
  fc
    .record({
      id: fc.constantFrom('p1', 'p2'),
      kind: fc.constantFrom('shell', 'url', 'mcp', 'custom-tool'),
      c: maybe(call),
      name: maybe(text),
      title: maybe(text),
      target: maybe(text),
      args: maybe(args),
    })
    .map(({ id, kind, c, name, title, target, args }): [string, Data] => [
      'permission.requested',
      {
        requestId: id,
        permissionRequest: data({
          kind,
          toolCallId: c,
          toolName: name,
          intention: title,
          fullCommandText: target,
          args,
        }),
      },
    ]),
  fc
    .record({
      id: fc.constantFrom('p1', 'p2'),
      kind: fc.constantFrom('approved', 'approved-for-session', 'denied-interactively-by-user', 'cancelled'),
      c: maybe(call),
    })
    .map(({ id, kind, c }): [string, Data] => [
      'permission.completed',
      data({ requestId: id, toolCallId: c, result: { kind } }),
    ]),
  fc
    .record({ id: fc.constantFrom('u1', 'u2'), q: text, choices: maybe(fc.array(text, { maxLength: 3 })) })
    .map(({ id, q, choices }): [string, Data] => [
      'user_input.requested',
      data({ requestId: id, question: q, choices, allowFreeform: true }),
    ]),
  fc
    .record({ id: fc.constantFrom('u1', 'u2'), answer: maybe(text) })
    .map(({ id, answer }): [string, Data] => [
      'user_input.completed',
      data({ requestId: id, answer, wasFreeform: false }),
    ]),
);

const line = fc
  .record({
    rec: record,
    at: time,
    id: fc.constantFrom('e1', 'e2', 'e3'),
    parent: fc.constantFrom<unknown>('e0', 'e1', null),
    agent: maybe(fc.constantFrom('agent-1', 'ses_child')),
    ephemeral: fc.constantFrom<unknown>(undefined, true, false),
    miss: fc.nat({ max: 12 }),
    o: odd,
    crlf: fc.boolean(),
  })
  .map(({ rec: [type, d], at, id, parent, agent, ephemeral, miss, o, crlf }) => {
    let r: Record<string, unknown> = data({
      id,
      parentId: parent,
      timestamp: at,
      type,
      data: d,
      agentId: agent,
      ephemeral,
    });
    if (miss === 1)
      r = data({ type, data: d, id, timestamp: at, parentId: parent, agentId: agent, ephemeral });
    if (miss === 2) r = { ...r, extra: 1 };
    if (miss === 3) r = { ...r, data: { ...d, extra: 'x' } };
    if (miss === 4) r = { ...r, parentId: 7 };
    if (miss === 5) r = { ...r, data: [d] };
    if (miss === 6) r = { timestamp: at, ...r };
    if (miss === 7) r = { ...r, ephemeral: { x: 1 } };
    if (miss === 12) r = { ...r, agentId: 1 };
    let t = JSON.stringify(r);
    if (miss === 8) t = t.replace(/:(\d+)([,}])/, `:${o}$2`);
    if (miss === 9) t = t.replace(/"m(\d)"/, '"\\u006d$1"');
    if (miss === 10) t = t.replace('"data":{', `"data":{"n":${o}${Object.keys(d).length === 0 ? '' : ','}`);
    if (miss === 11) t = t.replace(/,"/, ', "');
    return t + (crlf ? '\r\n' : '\n');
  });

const toolLine = `${JSON.stringify({
  id: 'e1',
  parentId: 'e0',
  timestamp: '2026-01-15T10:00:01.037Z',
  type: 'tool.execution_start',
  data: { toolCallId: 'c1', toolName: 'bash', arguments: { command: 'ls', o: { deep: 1 } } },
})}\n`;

const deltaLine =
  '{"id":"e2","parentId":"e1","timestamp":"2026-01-15T10:00:01.037Z","type":"assistant.message_delta","data":{"messageId":"m1","deltaContent":"hi"},"ephemeral":true}\n';

describe('Copilot writer: the kept-line fast path', () => {
  keptLineSuite({
    codec: copilot,
    format: 'copilot',
    line,
    fields: [
      'text',
      'message',
      'call',
      'name',
      'args',
      'server',
      'ok',
      'result',
      'error',
      'ts',
      'lane',
      'model',
      'round',
      'session',
      'usage',
      'approval',
      'title',
      'effects',
      'decision',
      'by',
      'question',
      'questions',
      'answers',
    ],
    fastPath: COPILOT_KEPT_LINES,
    adopt: (e) => {
      const record = e.provenance?.hints?.record as { data?: { arguments?: unknown } } | undefined;
      const input = record?.data?.arguments;
      if (e.type !== 'tool.start' || typeof input !== 'object' || input === null) return;
      e.args = input as Record<string, unknown>;
      e.args.command = 'adopted';
    },
    adoptLines: toolLine,
    writeOptions: { idSource: () => 'id', clock: () => 0 },
  });

  // Hints no decoder gives an event (another line's, of another type, a record the decoder
  // refuses), yet consistent (the record is what the line parses to); usage figures edited one
  // by one (the shared edits move only some of them).
  const usageEdit = fc.constantFrom<(u: Record<string, unknown>) => void>(
    (u) => {
      u.model = 'other';
    },
    (u) => {
      delete u.model;
    },
    (u) => {
      u.key = 'a9';
    },
    (u) => {
      delete u.key;
    },
    (u) => {
      u.reasoning = ((u.reasoning as number | undefined) ?? 0) + 1;
    },
    (u) => {
      u.cacheWrite = ((u.cacheWrite as number | undefined) ?? 0) + 1;
    },
    (u) => {
      u.output = ((u.output as number | undefined) ?? 0) + 1;
    },
    (u) => {
      u.scope = 'thread';
    },
  );
  const write = (events: AgentEvent[], fast: boolean): string => {
    COPILOT_KEPT_LINES.enabled = fast;
    try {
      return copilot.stringify(events, { idSource: () => 'id', clock: () => 0 });
    } catch (error) {
      return `threw ${String(error)}`;
    } finally {
      COPILOT_KEPT_LINES.enabled = true;
    }
  };
  test('gives the bytes the general path gives with hints from any line, and usage edited', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(fc.nat(), line), { maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), usageEdit), { maxLength: 3 }),
        fc.boolean(),
        (lines, swaps, usages, copy) => {
          const decoded = copilot.parse(lines.join('')).events;
          const events: AgentEvent[] = copy ? JSON.parse(JSON.stringify(decoded)) : decoded;
          const lined = events.filter((e) => e.provenance?.hints !== undefined);
          if (lined.length === 0) return;
          for (const [at, other] of swaps) {
            const raw = other.replace(/\r?\n$/, '');
            lined[at % lined.length]!.provenance!.hints = { raw, record: JSON.parse(raw) };
          }
          const figures = lined.filter((e) => e.type === 'usage');
          for (const [at, edit] of usages)
            if (figures.length > 0) edit(figures[at % figures.length]!.usage as Record<string, unknown>);
          expect(write(events, true)).toBe(write(events, false));
        },
      ),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  test('gives the bytes the general path gives for data that is no object and an agentId that is no string', () => {
    const at = '2026-01-15T10:00:01.037Z';
    const turn = `{"id":"e1","parentId":"e0","timestamp":"${at}","type":"assistant.turn_start","data":[]}`;
    const delta = `{"id":"e2","parentId":"e1","timestamp":"${at}","type":"assistant.message_delta","data":{"messageId":"m1","deltaContent":"hi"},"agentId":1}`;
    const provenance = (raw: string) => ({
      format: 'copilot' as const,
      line: 1,
      offset: 0,
      hints: { raw, record: JSON.parse(raw) },
    });
    const events: AgentEvent[] = [
      { type: 'round.start', ts: Date.parse(at), provenance: provenance(turn) },
      {
        type: 'text.delta',
        text: 'hi',
        message: 'm1',
        lane: 1 as unknown as string,
        provenance: provenance(delta),
      },
    ];
    for (const e of events) expect(write([e], true)).toBe(write([e], false));
  });

  test('leaves the state the general path leaves: what follows a kept line is written alike', () => {
    const at = '2026-01-15T10:00:01.037Z';
    const shutdown = `{"id":"e1","parentId":"e0","timestamp":"${at}","type":"session.shutdown","data":{"shutdownType":"routine","modelMetrics":{}}}`;
    const delta = `{"id":"e2","parentId":"e1","timestamp":"${at}","type":"assistant.message_delta","data":{"messageId":"m1","deltaContent":"hi"}}`;
    const parent7 = `{"id":"e3","parentId":7,"timestamp":"${at}","type":"assistant.message_delta","data":{"messageId":"m1","deltaContent":"hi"}}`;
    const decoded = (text: string) => copilot.parse(`${text}\n`).events.filter((e) => e.provenance?.hints);
    const provenance = (raw: string) => ({
      format: 'copilot' as const,
      line: 1,
      offset: 0,
      hints: { raw, record: JSON.parse(raw) },
    });
    const streams: AgentEvent[][] = [
      // a foreign event after a kept line: no session.start before it
      [...decoded(delta), { type: 'text.delta', text: 'x', message: 'm1' }],
      // a run's end after a shutdown and a kept line
      [...decoded(shutdown), ...decoded(delta), { type: 'run.end', status: 'completed' }],
      // a parent that is no string
      [{ type: 'text.delta', text: 'hi', message: 'm1', provenance: provenance(parent7) }],
    ];
    for (const events of streams) expect(write(events, true)).toBe(write(events, false));
  });

  test('decoded events take it as they come; it trusts the kept record to be what the line parses to', () => {
    trustsKeptRecord(copilot, COPILOT_KEPT_LINES, deltaLine, 'text.delta', (r) => {
      (r.data as Record<string, unknown>).added = 'edited';
    });
  });

  test('a decoded stream is written back through the fast path', () => {
    const stream = [
      '{"id":"e1","parentId":"e0","timestamp":"2026-01-15T10:00:01.037Z","type":"assistant.turn_start","data":{"turnId":"0"}}',
      '{"id":"e2","parentId":"e1","timestamp":"2026-01-15T10:00:01.037Z","type":"assistant.message_delta","data":{"messageId":"m1","deltaContent":"hi"},"ephemeral":true}',
      '',
    ].join('\n');
    const { events } = copilot.parse(stream);
    // The kept record edited alone: only the fast path still writes the line.
    for (const e of events) {
      const r = e.provenance?.hints?.record as { data?: Record<string, unknown> } | undefined;
      if (r?.data !== undefined) r.data.added = true;
    }
    expect(copilot.stringify(events)).toBe(stream);
  });

  test("a tool's arguments edited in place, then replaced by an equal copy, are written as edited", () => {
    // The decoder gives the event a copy of the kept arguments: an in-place edit cannot reach the
    // kept record, so the kept line (which still says the old arguments) is not proved equal.
    const line =
      '{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{"command":"ls"}},"id":"e1","timestamp":"2026-01-15T10:00:00.000Z","parentId":"e0"}\n';
    const { events } = copilot.parse(line);
    const start = events.find((e) => e.type === 'tool.start') as AgentEvent & {
      args: Record<string, unknown>;
    };
    start.args.command = 'edited';
    start.args = { ...start.args };
    const kept = copilot.stringify(events);
    COPILOT_KEPT_LINES.enabled = false;
    try {
      expect(kept).toBe(copilot.stringify(events));
    } finally {
      COPILOT_KEPT_LINES.enabled = true;
    }
    expect(kept).toContain('"command":"edited"');
  });
});
