import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { copilot } from '../../src/all';
import { COPILOT_WHOLE_EVENTS } from '../../src/formats/copilot/decode';
import { FUZZ_RUNS } from '../runs';
import { type Decoded, decodeWith, expectSamePaths, type WholeEventsCase } from '../whole-events';

// The Copilot decoder builds its frequent events (text deltas, tool calls and their output,
// usage, a message's start and end, a turn's start and end) whole, each in one literal, beside
// the general path that adds the envelope to a literal afterwards (docs/performance.md, "Amp and
// Copilot"). Switched off, only the general path runs. These properties hold the two equal on
// random streams of Copilot's records and near misses (fields absent or of another type, extra
// fields, subagent lanes by `agentId` or `parentToolCallId`, no session, a timestamp that names
// no time, turns with and without a model): the same events (the same JSON text, so the same
// fields in the same order, and no own `undefined` field), the same diagnostics, the same bytes
// written back, under every chunking.

const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', 'é', '\u2028', 'a', ' '), maxLength: 6 }),
);
const maybe = <T>(a: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 6, arbitrary: a },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, null, 'x', 7, { n: 1 }) },
  );
const count = fc.oneof(fc.nat({ max: 50000 }), fc.constantFrom(0.5, -1));
const call = fc.constantFrom('call_1', 'call_2');
const message = fc.constantFrom('m-1', 'm-2');
const request = fc.constantFrom('p-1', 'p-2');
const timestamp = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('2026-01-01T00:00:01.000Z', '2026-01-01T00:01:02.345Z') },
  { weight: 1, arbitrary: fc.constantFrom('not a date', '2026-01-15T10:00:00Z') },
);

/** An object without the `undefined` fields (the record as JSON writes it). */
function defined(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

type Data = [string, Record<string, unknown>];
const data: fc.Arbitrary<Data> = fc.oneof(
  fc.constant<Data>(['session.start', { sessionId: 's-1', version: 1, producer: 'x' }]),
  fc.constant<Data>(['user.message', { content: 'go' }]),
  fc
    .record({ turnId: maybe(fc.constantFrom('1', '2', 'a')), model: fc.option(text, { nil: undefined }) })
    .map((d): Data => ['assistant.turn_start', defined(d)]),
  fc
    .record({ turnId: fc.constantFrom('1', '2'), model: fc.option(text, { nil: undefined }) })
    .map((d): Data => ['assistant.turn_end', defined(d)]),
  fc.record({ messageId: maybe(message) }).map((d): Data => ['assistant.message_start', defined(d)]),
  {
    weight: 3,
    arbitrary: fc
      .record({
        messageId: maybe(message),
        deltaContent: maybe(text),
        parentToolCallId: fc.option(call, { nil: undefined }),
      })
      .map((d): Data => ['assistant.message_delta', defined(d)]),
  },
  fc
    .record({
      messageId: message,
      content: fc.oneof(text, fc.constant('')),
      reasoningText: fc.option(text, { nil: undefined }),
    })
    .map((d): Data => ['assistant.message', defined(d)]),
  fc.record({ reasoningId: message, deltaContent: text }).map((d): Data => ['assistant.reasoning_delta', d]),
  fc
    .record(
      {
        inputTokens: maybe(count),
        outputTokens: maybe(count),
        cacheReadTokens: count,
        model: text,
        apiCallId: maybe(text),
      },
      { requiredKeys: [] },
    )
    .map((d): Data => ['assistant.usage', defined(d)]),
  {
    weight: 2,
    arbitrary: fc
      .record({
        toolCallId: maybe(call),
        toolName: maybe(fc.constantFrom('read', 'bash')),
        arguments: maybe(fc.record({ path: text }, { requiredKeys: [] })),
        mcpServerName: fc.option(text, { nil: undefined }),
      })
      .map((d): Data => ['tool.execution_start', defined(d)]),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ toolCallId: maybe(call), partialOutput: maybe(text) })
      .map((d): Data => ['tool.execution_partial_result', defined(d)]),
  },
  {
    weight: 3,
    arbitrary: fc
      .record({
        toolCallId: maybe(call),
        success: maybe(fc.boolean()),
        result: fc.option(fc.record({ content: maybe(text) }, { requiredKeys: [] }), { nil: undefined }),
        error: fc.option(fc.record({ message: maybe(text) }, { requiredKeys: [] }), { nil: undefined }),
      })
      .map((d): Data => ['tool.execution_complete', defined(d)]),
  },
  fc.record({ toolCallId: call, agentName: text }).map((d): Data => ['subagent.started', d]),
  fc.record({ toolCallId: call }).map((d): Data => ['subagent.completed', d]),
  fc
    .record({
      requestId: maybe(request),
      permissionRequest: maybe(
        fc.record(
          {
            kind: fc.constantFrom('shell', 'mcp', 'custom-tool'),
            toolCallId: maybe(call),
            toolName: maybe(text),
            intention: maybe(text),
            args: maybe(fc.record({ path: text }, { requiredKeys: [] })),
          },
          { requiredKeys: ['kind'] },
        ),
      ),
    })
    .map((d): Data => ['permission.requested', defined(d)]),
  fc
    .record({
      requestId: maybe(request),
      result: maybe(
        fc.record({ kind: maybe(fc.constantFrom('approved', 'denied-by-rules', 'cancelled', 'toString')) }),
      ),
    })
    .map((d): Data => ['permission.completed', defined(d)]),
  fc
    .record({
      requestId: maybe(request),
      question: maybe(text),
      choices: fc.option(fc.array(maybe(text), { maxLength: 3 }), { nil: undefined }),
      toolCallId: fc.option(call, { nil: undefined }),
    })
    .map((d): Data => ['user_input.requested', defined(d)]),
  fc
    .record({ requestId: maybe(request), answer: fc.option(text, { nil: undefined }) })
    .map((d): Data => ['user_input.completed', defined(d)]),
  fc.constant<Data>(['session.idle', {}]),
  fc.constant<Data>(['session.error', { message: 'boom', errorType: 'x' }]),
  fc.constant<Data>(['session.unknown_kind', { n: 1 }]),
);

const line = fc
  .tuple(
    data,
    timestamp,
    fc.constantFrom<string | undefined>(undefined, undefined, undefined, 'agent-1'),
    fc.boolean(),
    fc.constantFrom('e-1', 'e-2'),
  )
  .map(([[type, d], ts, agentId, ephemeral, id]) =>
    JSON.stringify(
      defined({
        id,
        parentId: null,
        timestamp: ts,
        type,
        data: d,
        agentId,
        ephemeral: ephemeral || undefined,
      }),
    ),
  );

// Most streams open a session and a turn first: the whole events need both.
const OPEN = [
  '{"id":"e-0","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","type":"session.start","data":{"sessionId":"s-1","version":1,"producer":"x"}}',
  '{"id":"e-0","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","type":"assistant.turn_start","data":{"turnId":"1"}}',
];

const stream = fc
  .tuple(fc.array(line, { minLength: 1, maxLength: 14 }), fc.boolean(), fc.nat({ max: 4 }))
  .map(([lines, crlf, open]) => `${[...(open > 0 ? OPEN : []), ...lines].join(crlf ? '\r\n' : '\n')}\n`);

const CASE: WholeEventsCase = {
  codec: copilot,
  whole: COPILOT_WHOLE_EVENTS,
  write: (events) => {
    let n = 0;
    return copilot.stringify(events, { idSource: () => `id-${++n}`, clock: () => 0 });
  },
};

const decode = (input: string, whole: boolean): Decoded => decodeWith(CASE, input, whole);

describe('Copilot decoder: whole events against the general path', () => {
  afterEach(() => {
    COPILOT_WHOLE_EVENTS.enabled = true;
  });

  test('the same events, diagnostics and written bytes, chunked anywhere', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 4 }), (input, cuts) => {
        expectSamePaths(CASE, input, cuts);
      }),
      { numRuns: FUZZ_RUNS * 2 },
    );
  });

  test('a canonical turn decodes the same either way', () => {
    const at = (i: number, type: string, data: Record<string, unknown>) =>
      JSON.stringify({ id: `e-${i}`, parentId: null, timestamp: '2026-01-01T00:00:01.000Z', type, data });
    const input = [
      at(0, 'session.start', { sessionId: 's-1', version: 1, producer: 'x' }),
      at(1, 'assistant.turn_start', { turnId: '1' }),
      at(2, 'assistant.message_start', { messageId: 'm-1' }),
      at(3, 'assistant.message_delta', { messageId: 'm-1', deltaContent: 'hi' }),
      at(4, 'tool.execution_start', { toolCallId: 'c', toolName: 'read', arguments: {} }),
      at(5, 'tool.execution_partial_result', { toolCallId: 'c', partialOutput: 'x' }),
      at(6, 'tool.execution_complete', { toolCallId: 'c', success: true, result: { content: 'x' } }),
      at(7, 'assistant.message', { messageId: 'm-1', content: 'hi' }),
      at(8, 'assistant.usage', { inputTokens: 1, outputTokens: 2 }),
      at(9, 'assistant.turn_end', { turnId: '1' }),
      at(10, 'session.idle', {}),
    ].join('\n');
    const whole = decode(`${input}\n`, true);
    expect(whole.json).toBe(decode(`${input}\n`, false).json);
    expect(whole.events.map((e) => e.type)).toEqual([
      'session.start',
      'run.start',
      'round.start',
      'message.start',
      'text.delta',
      'tool.start',
      'tool.output',
      'tool.end',
      'message.end',
      'usage',
      'round.end',
      'run.end',
    ]);
  });
});
