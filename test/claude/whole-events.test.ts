import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { claude } from '../../src/all';
import { CLAUDE_WHOLE_EVENTS } from '../../src/formats/claude/decode';
import { FUZZ_RUNS } from '../runs';
import { type Decoded, decodeWith, expectSamePaths, type WholeEventsCase } from '../whole-events';

// The Claude decoder builds its frequent events (text, thinking, tool calls and results, message
// starts, a call's usage, a round's end, notices) whole, each in one literal with its envelope
// and provenance, and the first event of a line gets its hints in one literal, beside the general
// path that adds them to a literal afterwards (docs/performance.md, "Claude decoder"). Switched
// off, only the general path runs. These properties hold the two equal on random streams: the
// same events (the same JSON text, so the same fields in the same order, and no own `undefined`
// field), the same diagnostics, the same bytes written back, under every chunking.

const SESSION = '5f0c2a8e-7d1b-4c3e-9a6f-0b1d2c3e4f50';

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', 'é', '\u2028', 'a', ' '), maxLength: 8 }),
);
const id = fc.constantFrom('toolu_1', 'toolu_2', 'toolu_3');
const messageId = fc.constantFrom('msg_1', 'msg_1', 'msg_2', 'msg_3');
const lane = fc.constantFrom<string | null | undefined>(null, null, null, 'toolu_1', 'toolu_2', undefined);
const session = fc.constantFrom<string | undefined>(SESSION, SESSION, SESSION, 'other', undefined);
const model = fc.constantFrom<string | undefined>(
  'claude-sonnet-4-5',
  'claude-sonnet-4-5',
  'claude-opus-4',
  undefined,
);
// Counts as the CLI writes them, and near misses: fractions, negatives, a number JSON.parse
// reads as Infinity, a string.
const count = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 20000 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(1.5, -1, 1e21, '7', null) },
);

// A usage object: the four counts (some missing, another type), extra fields the CLI writes,
// sometimes a reasoning count; or the same object again (a copy on the message's next line).
const usage = fc
  .record(
    {
      input_tokens: count,
      cache_creation_input_tokens: count,
      cache_read_input_tokens: count,
      cache_creation: fc.constant({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 3 }),
      output_tokens: count,
      output_tokens_details: fc.record({ thinking_tokens: count }),
      service_tier: fc.constant('standard'),
    },
    { requiredKeys: [] },
  )
  .chain((u) =>
    fc.oneof(
      { weight: 2, arbitrary: fc.constant<unknown>(u) },
      {
        weight: 3,
        arbitrary: fc.constant<unknown>({
          input_tokens: 10,
          cache_creation_input_tokens: 300,
          cache_read_input_tokens: 12000,
          output_tokens: 4,
        }),
      },
      { weight: 1, arbitrary: fc.constant<unknown>(null) },
    ),
  );

const assistantBlock = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('text'), text: fc.constant(5) }),
  fc.record(
    { type: fc.constant('thinking'), thinking: text, signature: text },
    { requiredKeys: ['type', 'thinking'] },
  ),
  fc.record({ type: fc.constant('thinking'), signature: text }),
  fc.record({ type: fc.constant('redacted_thinking'), data: text }),
  fc.record(
    {
      type: fc.constant('tool_use'),
      id,
      name: fc.constantFrom('Bash', 'Task', 'Read', 'mcp__srv__x', 'AskUserQuestion'),
      input: fc.oneof(fc.record({ cmd: text }), fc.constant('x'), fc.constant(null)),
    },
    { requiredKeys: ['type', 'id', 'name'] },
  ),
  fc.record({ type: fc.constant('image'), source: fc.constant({ n: 1 }) }),
);

const resultContent = fc.oneof(
  text,
  fc.array(fc.record({ type: fc.constantFrom('text', 'image'), text }), { maxLength: 2 }),
  fc.constant(undefined),
  fc.constant(3),
);
const userBlock = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record(
    { type: fc.constant('tool_result'), tool_use_id: id, content: resultContent, is_error: fc.boolean() },
    { requiredKeys: ['type', 'tool_use_id', 'content'] },
  ),
);
const toolUseResult = fc.oneof(
  fc.constant<unknown>(undefined),
  fc.constant<unknown>({ type: 'text', file: { filePath: '/r/a.ts', numLines: 4 } }),
  text,
  fc.constant<unknown>([{ type: 'text', text: 'a' }]),
);

function envelope(
  record: Record<string, unknown>,
  l: string | null | undefined,
  s: string | undefined,
): Record<string, unknown> {
  if (l !== undefined) record.parent_tool_use_id = l;
  if (s !== undefined) record.session_id = s;
  record.uuid = 'u';
  return record;
}

const line: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        messageId,
        model,
        fc.array(assistantBlock, { minLength: 1, maxLength: 3 }),
        fc.option(fc.constantFrom('tool_use', 'end_turn'), { nil: undefined }),
        usage,
        lane,
        session,
      )
      .map(([mid, mo, content, stop, u, l, s]) => {
        const m: Record<string, unknown> = { id: mid, type: 'message', role: 'assistant', content };
        if (mo !== undefined) m.model = mo;
        m.stop_reason = stop ?? null;
        if (u !== null) m.usage = u;
        return JSON.stringify(envelope({ type: 'assistant', message: m }, l, s));
      }),
  },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.oneof(text, fc.array(userBlock, { maxLength: 2 })),
        toolUseResult,
        fc.boolean(),
        lane,
        session,
      )
      .map(([content, result, denied, l, s]) => {
        const r = envelope({ type: 'user', message: { role: 'user', content } }, l, s);
        if (result !== undefined) r.tool_use_result = result;
        if (denied) r.tool_result_meta = [{ id: 'toolu_1', non_execution_kind: 'permission_denied' }];
        return JSON.stringify(r);
      }),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.nat({ max: 500 }), lane, session)
      .map(([n, l, s]) =>
        JSON.stringify(
          envelope(
            { type: 'system', subtype: 'thinking_tokens', estimated_tokens: n, estimated_tokens_delta: 50 },
            l,
            s,
          ),
        ),
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.option(fc.constantFrom('allowed', 'allowed_warning', 7), { nil: undefined }), session)
      .map(([status, s]) => {
        const info: Record<string, unknown> = { resetsAt: 1790678400 };
        if (status !== undefined) info.status = status;
        return JSON.stringify(envelope({ type: 'rate_limit_event', rate_limit_info: info }, undefined, s));
      }),
  },
  {
    // A status whose hint (`state`) the line's owner hints must keep on both paths.
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom<unknown>('idle', 'running', 'requires_action', 7), session)
      .map(([state, s]) =>
        JSON.stringify(envelope({ type: 'system', subtype: 'session_state_changed', state }, undefined, s)),
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('success', 'error_during_execution'), fc.boolean(), text, session)
      .map(([subtype, isError, result, s]) =>
        JSON.stringify({ type: 'result', subtype, is_error: isError, duration_ms: 5, result, session_id: s }),
      ),
  },
  {
    weight: 1,
    arbitrary: session.map((s) =>
      JSON.stringify({
        type: 'system',
        subtype: 'init',
        cwd: '/w',
        session_id: s,
        tools: ['Bash'],
        model: 'm',
      }),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('', 'not json', '[1]', '{"type":"system","subtype":"init"') },
);

// A call and its result, as the CLI writes them (the frequent pair): the result is joined to the
// call by id, and is sometimes an error or denied.
const exchange: fc.Arbitrary<string[]> = fc
  .tuple(id, text, fc.option(fc.boolean(), { nil: undefined }), toolUseResult, fc.boolean(), lane, session)
  .map(([call, out, isError, result, denied, l, s]) => {
    const use = { type: 'tool_use', id: call, name: 'Read', input: { file_path: '/a' } };
    const m = {
      model: 'claude-sonnet-4-5',
      id: `msg_${call}`,
      type: 'message',
      role: 'assistant',
      content: [use],
    };
    const block: Record<string, unknown> = { tool_use_id: call, type: 'tool_result', content: out };
    if (isError !== undefined) block.is_error = isError;
    const r = envelope({ type: 'user', message: { role: 'user', content: [block] } }, l, s);
    if (result !== undefined) r.tool_use_result = result;
    if (denied) r.tool_result_meta = [{ id: call, non_execution_kind: 'permission_denied' }];
    return [JSON.stringify(envelope({ type: 'assistant', message: m }, l, s)), JSON.stringify(r)];
  });

const stream = fc
  .tuple(
    fc.array(fc.oneof({ weight: 4, arbitrary: line.map((x) => [x]) }, { weight: 1, arbitrary: exchange }), {
      minLength: 1,
      maxLength: 10,
    }),
    fc.boolean(),
  )
  .map(([groups, crlf]) => groups.flat().join(crlf ? '\r\n' : '\n') + (crlf ? '\r\n' : '\n'));

const CASE: WholeEventsCase = {
  codec: claude,
  whole: CLAUDE_WHOLE_EVENTS,
  write: (events) => claude.stringify(events),
};

const decode = (input: string, whole: boolean): Decoded => decodeWith(CASE, input, whole);

describe('Claude decoder: whole events against the general path', () => {
  afterEach(() => {
    CLAUDE_WHOLE_EVENTS.enabled = true;
  });

  test('the same events, diagnostics and written bytes, chunked anywhere', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 4 }), (input, cuts) => {
        expectSamePaths(CASE, input, cuts);
      }),
      { numRuns: FUZZ_RUNS * 2 },
    );
  });

  test('a capture-shaped message decodes the same either way, every frequent event whole', () => {
    const u =
      '{"input_tokens":10,"cache_creation_input_tokens":300,"cache_read_input_tokens":12000,"output_tokens":4}';
    const env = `"parent_tool_use_id":null,"session_id":"${SESSION}","uuid":"u"`;
    const msg = (id: string, block: string) =>
      `{"type":"assistant","message":{"model":"claude-sonnet-4-5","id":"${id}","type":"message","role":"assistant","content":[${block}],"stop_reason":null,"usage":${u}},${env}}`;
    const input = [
      `{"type":"system","subtype":"init","cwd":"/w","session_id":"${SESSION}","tools":["Read"]}`,
      msg('msg_1', '{"type":"thinking","thinking":"hm","signature":"sig"}'),
      msg('msg_1', '{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a"}}'),
      `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"x"}]},${env},"tool_use_result":{"type":"text"}}`,
      `{"type":"system","subtype":"thinking_tokens","estimated_tokens":50,${env}}`,
      msg('msg_2', '{"type":"text","text":"done"}'),
      `{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"},"uuid":"u","session_id":"${SESSION}"}`,
      `{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"result":"done","session_id":"${SESSION}"}`,
      '',
    ].join('\n');
    const whole = decode(input, true);
    expect(whole.json).toBe(decode(input, false).json);
    expect(whole.written).toBe(input);
    expect(whole.events.map((e) => e.type)).toEqual([
      'session.start',
      'run.start',
      'message.start',
      'usage',
      'reasoning.delta',
      'tool.start',
      'tool.end',
      'notice',
      'round.end',
      'message.start',
      'usage',
      'text.delta',
      'notice',
      'round.end',
      'run.end',
    ]);
  });
});
