import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { claude } from '../../src/all';
import { CLAUDE_CANONICAL } from '../../src/formats/claude/decode';
import { FUZZ_RUNS } from '../runs';
import { type Decoded, decodeWith, expectSamePaths, type WholeEventsCase } from '../whole-events';

// The Claude decoder reads the frequent `assistant` (one block), `user` (one tool result) and
// `system/thinking_tokens` lines spelled as the CLI writes them without parsing the whole record
// (CLAUDE_CANONICAL, docs/performance.md "Claude decoder"). Switched off, every line takes the
// general path. These properties hold the two equal: the same events (as JSON text: key order
// counts), diagnostics and written bytes, chunked anywhere, on canonical lines and near misses
// (keys moved, extra keys, escapes, `\u` escapes, numbers spelled otherwise, spacing, cuts, raw
// control characters, values of other types, nesting at the depth bound, CRLF).

const SESSION = '5f0c2a8e-7d1b-4c3e-9a6f-0b1d2c3e4f50';

// A string value's JSON text: as JSON.stringify writes it, or with characters spelled as `\u`
// escapes (the same value), or made of what JSON escapes.
const anyText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom('"', '\\', '\n', 'é', '\u2028', 'a', ' ', '}', ']', ',', '\ud800'),
    maxLength: 10,
  }),
  fc.constantFrom('}],"', '","signature":"', '}]},"', ',"is_error":true'),
);
const spelled = fc.tuple(anyText, fc.boolean()).map(([s, u]) => {
  const json = JSON.stringify(s);
  return u ? json.replace(/[a-z]/, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : json;
});
// …or a near miss: a raw control character or an unescaped quote inside, a bad escape.
const jsonText = fc.oneof(
  { weight: 12, arbitrary: spelled },
  { weight: 1, arbitrary: fc.constantFrom('"a\u0001b"', '"tab\there"', '"a"b"', '"a\\x"', '"\\u12"') },
);
// An id or a word: plain, or a near miss (an escape, a `\u` escape, a control character, a quote).
const word = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(
      '"msg_1"',
      '"msg_2"',
      '"toolu_1"',
      '"toolu_2"',
      '"claude-sonnet-4-5"',
      '"Read"',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '"msg\\u005f1"',
      '"to\\"olu"',
      '"a\\\\"',
      '"a\u0001b"',
      '"é"',
      '""',
      '7',
      'null',
    ),
  },
);
const callId = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('"toolu_1"', '"toolu_2"') },
  { weight: 1, arbitrary: word },
);
// A count: plain digits, or spelled otherwise.
const count = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 30000 }).map(String) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '1.0',
      '1e2',
      '1E2',
      '-0',
      '01',
      '-1',
      '0.5',
      '1234567890123456',
      '"7"',
      'null',
    ),
  },
);
// A nested value: `depth` levels of arrays around a number.
const nested = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
// A free-form value (a call's input, a `tool_use_result`) `below` levels under the record: one
// nesting at the default depth bound (64), just within or just beyond it, now and then.
const freeValue = (below: number) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom('{"file_path":"/repo/src/f1.ts"}', '{"command":"ls","n":[1,{"a":null}]}'),
    },
    {
      weight: 2,
      arbitrary: fc.dictionary(fc.string({ maxLength: 3 }), anyText).map((o) => JSON.stringify(o)),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '"text"',
        '[1]',
        '7',
        'null',
        '{}',
        '{"a":1,"a":2}',
        '{"__proto__":{"x":1}}',
        '{"x":}',
      ),
    },
    {
      weight: 2,
      arbitrary: fc.integer({ min: 61 - below, max: 64 - below }).map((n) => `{"deep":${nested(n)}}`),
    },
  );
const envelope = fc
  .record({
    lane: fc.constantFrom<string | undefined>('null', 'null', '"toolu_1"', undefined, '7'),
    session: fc.constantFrom(`"${SESSION}"`, `"${SESSION}"`, '"other"', '"s\\u0031"'),
    uuid: fc.constantFrom('"8e1f-1"', '"u"'),
    timestamp: fc.option(fc.constant('"2026-10-01T09:00:00.000Z"'), { nil: undefined }),
    request: fc.option(fc.constant('"req_1"'), { nil: undefined }),
  })
  .map((e) => {
    let s = '';
    if (e.lane !== undefined) s += `,"parent_tool_use_id":${e.lane}`;
    s += `,"session_id":${e.session},"uuid":${e.uuid}`;
    if (e.timestamp !== undefined) s += `,"timestamp":${e.timestamp}`;
    return { text: s, request: e.request === undefined ? '' : `,"request_id":${e.request}` };
  });

const usage = fc
  .record({
    fresh: count,
    write: count,
    read: count,
    ephemeral: fc.option(fc.tuple(count, count), { nil: undefined }),
    output: count,
    tier: fc.option(fc.constantFrom('"standard"', 'null'), { nil: undefined }),
    geo: fc.option(fc.constantFrom('"not_available"', '""'), { nil: undefined }),
    same: fc.boolean(),
  })
  .map((u) => {
    if (u.same)
      return '{"input_tokens":10,"cache_creation_input_tokens":300,"cache_read_input_tokens":12000,"output_tokens":4}';
    let s = `{"input_tokens":${u.fresh},"cache_creation_input_tokens":${u.write},"cache_read_input_tokens":${u.read}`;
    if (u.ephemeral !== undefined)
      s += `,"cache_creation":{"ephemeral_5m_input_tokens":${u.ephemeral[0]},"ephemeral_1h_input_tokens":${u.ephemeral[1]}}`;
    s += `,"output_tokens":${u.output}`;
    if (u.tier !== undefined) s += `,"service_tier":${u.tier}`;
    if (u.geo !== undefined) s += `,"inference_geo":${u.geo}`;
    return `${s}}`;
  });

const block = fc.oneof(
  jsonText.map((t) => `{"type":"text","text":${t}}`),
  fc.tuple(jsonText, jsonText).map(([t, s]) => `{"type":"thinking","thinking":${t},"signature":${s}}`),
  fc
    .tuple(
      callId,
      fc.constantFrom('"Read"', '"Bash"', '"mcp__srv__x"', '"AskUserQuestion"'),
      freeValue(4),
      fc.boolean(),
    )
    .map(
      ([id, name, input, caller]) =>
        `{"type":"tool_use","id":${id},"name":${name},"input":${input}${caller ? ',"caller":{"type":"direct"}' : ''}}`,
    ),
  fc.constant('{"type":"image","source":{"n":1}}'),
);

const assistantLine = fc
  .record({
    model: word,
    id: fc.constantFrom('"msg_1"', '"msg_1"', '"msg_2"', '"msg_3"'),
    blocks: fc.oneof(
      { weight: 8, arbitrary: block.map((b) => [b]) },
      { weight: 1, arbitrary: fc.array(block, { maxLength: 2 }) },
    ),
    container: fc.boolean(),
    stop: fc.constantFrom('null', 'null', '"tool_use"', '"end_turn"', '7'),
    details: fc.boolean(),
    usage,
    transformations: fc.boolean(),
    tail: fc.boolean(),
    envelope,
  })
  .map((a) => {
    let s = `{"type":"assistant","message":{"model":${a.model},"id":${a.id},"type":"message","role":"assistant","content":[${a.blocks.join(',')}]`;
    if (a.container) s += ',"container":null';
    s += `,"stop_reason":${a.stop},"stop_sequence":null`;
    if (a.details) s += ',"stop_details":null';
    s += `,"usage":${a.usage}`;
    if (a.transformations) s += ',"input_transformations":[]';
    if (a.tail) s += ',"diagnostics":null,"context_management":null';
    return `${s}}${a.envelope.text}${a.envelope.request}}`;
  });

const userLine = fc
  .record({
    call: callId,
    content: fc.oneof(
      { weight: 4, arbitrary: jsonText },
      { weight: 1, arbitrary: fc.constantFrom('[{"type":"text","text":"a"}]', '7') },
    ),
    isError: fc.constantFrom('', '', ',"is_error":false', ',"is_error":true', ',"is_error":1'),
    envelope,
    result: freeValue(1),
  })
  .map(
    (u) =>
      `{"type":"user","message":{"role":"user","content":[{"tool_use_id":${u.call},"type":"tool_result","content":${u.content}${u.isError}}]}${u.envelope.text},"tool_use_result":${u.result}}`,
  );

const thinkingTokensLine = fc
  .tuple(count, count, fc.constantFrom(`"${SESSION}"`, '"other"', '"s\\u0031"'))
  .map(
    ([n, delta, s]) =>
      `{"type":"system","subtype":"thinking_tokens","estimated_tokens":${n},"estimated_tokens_delta":${delta},"session_id":${s},"uuid":"u"}`,
  );

// A line changed in one place: a character put in, taken out or replaced, a key added or
// renamed, the record's keys written in another order.
const edit = fc.oneof(
  fc
    .tuple(fc.nat(), fc.constantFrom(' ', '"', '\\', ',', '}', ']', '{', '0', 'a', '\u0001', 'x'))
    .map(([at, c]) => (line: string) => {
      const i = at % Math.max(1, line.length);
      return line.slice(0, i) + c + line.slice(i + 1);
    }),
  fc
    .tuple(fc.nat(), fc.constantFrom(' ', '"', '\\', ',', '}', ']', '{', '0', 'a', '\u0001', '\n'))
    .map(([at, c]) => (line: string) => {
      const i = at % (line.length + 1);
      return line.slice(0, i) + c + line.slice(i);
    }),
  fc.nat().map((at) => (line: string) => {
    const i = at % Math.max(1, line.length);
    return line.slice(0, i) + line.slice(i + 1);
  }),
  fc.constantFrom(
    (line: string) => line.replace('{"type":', '{"x":1,"type":'),
    (line: string) => line.replace('"message":{', '"message":{"x":1,'),
    (line: string) => `${line.slice(0, -1)},"x":1}`,
    (line: string) => line.replace('"uuid"', '"uuid2"'),
    (line: string) => line.replace('"role"', '"rolE"'),
    (line: string) => line.replace('"content"', '"c0ntent"'),
    (line: string) => line.replace('_input_tokens"', '_input_tokenz"'),
    (line: string) => line.replace('"session_id"', '"session_iD"'),
    (line: string) => {
      try {
        const r = JSON.parse(line) as Record<string, unknown>;
        const keys = Object.keys(r).reverse();
        return JSON.stringify(Object.fromEntries(keys.map((k) => [k, r[k]])));
      } catch {
        return line;
      }
    },
  ),
);

const canonical = fc.oneof(
  { weight: 5, arbitrary: assistantLine },
  { weight: 3, arbitrary: userLine },
  { weight: 2, arbitrary: thinkingTokensLine },
);
const line = fc.oneof(
  { weight: 6, arbitrary: canonical },
  { weight: 2, arbitrary: fc.tuple(canonical, edit).map(([l, e]) => e(l)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      `{"type":"system","subtype":"init","cwd":"/w","session_id":"${SESSION}","tools":["Read"],"model":"m"}`,
      `{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"result":"done","session_id":"${SESSION}"}`,
      `{"type":"system","subtype":"session_state_changed","state":"requires_action","uuid":"u","session_id":"${SESSION}"}`,
      '',
      'not json',
    ),
  },
);

// A call and its result as the CLI writes them (the result joined to the call by id).
const exchange = fc
  .tuple(callId, envelope, jsonText)
  .map(([call, env, out]) => [
    `{"type":"assistant","message":{"model":"claude-sonnet-4-5","id":"msg_9","type":"message","role":"assistant","content":[{"type":"tool_use","id":${call},"name":"Read","input":{"file_path":"/a"}}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":4}}${env.text}}`,
    `{"type":"user","message":{"role":"user","content":[{"tool_use_id":${call},"type":"tool_result","content":${out}}]}${env.text},"tool_use_result":{"type":"text"}}`,
  ]);

// A canonical line again, as it is or changed in one place: a line that repeats the last one's
// ids, model, usage and envelope, and its near misses.
const repeated = fc
  .tuple(canonical, fc.option(edit, { nil: undefined }), fc.option(edit, { nil: undefined }))
  .map(([l, e1, e2]) => [l, e1 === undefined ? l : e1(l), e2 === undefined ? l : e2(l)]);

const stream = fc
  .tuple(
    fc.array(
      fc.oneof(
        { weight: 4, arbitrary: line.map((x) => [x]) },
        { weight: 1, arbitrary: exchange },
        { weight: 2, arbitrary: repeated },
      ),
      {
        minLength: 1,
        maxLength: 8,
      },
    ),
    fc.boolean(),
  )
  .map(([groups, crlf]) => groups.flat().join(crlf ? '\r\n' : '\n') + (crlf ? '\r\n' : '\n'));

const CASE: WholeEventsCase = {
  codec: claude,
  whole: CLAUDE_CANONICAL,
  write: (events) => claude.stringify(events),
};

const decode = (input: string, on: boolean): Decoded => decodeWith(CASE, input, on);

describe('Claude decoder: canonical lines against the general path', () => {
  afterEach(() => {
    CLAUDE_CANONICAL.enabled = true;
  });

  test('the same events, diagnostics and written bytes, chunked anywhere', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 4 }), (input, cuts) => {
        expectSamePaths(CASE, input, cuts);
      }),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });

  test('lines as the CLI writes them decode the same either way', () => {
    const env = `,"parent_tool_use_id":null,"session_id":"${SESSION}","uuid":"u","timestamp":"2026-10-01T09:00:00.000Z"`;
    const u =
      '{"input_tokens":10,"cache_creation_input_tokens":300,"cache_read_input_tokens":12000,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":300},"output_tokens":4,"service_tier":"standard","inference_geo":"not_available"}';
    const msg = (id: string, b: string) =>
      `{"type":"assistant","message":{"model":"claude-sonnet-4-5","id":"${id}","type":"message","role":"assistant","content":[${b}],"stop_reason":null,"stop_sequence":null,"stop_details":null,"usage":${u},"diagnostics":null,"context_management":null}${env},"request_id":"req_1"}`;
    const input = [
      `{"type":"system","subtype":"init","cwd":"/w","session_id":"${SESSION}","tools":["Read"]}`,
      `{"type":"system","subtype":"thinking_tokens","estimated_tokens":50,"estimated_tokens_delta":50,"session_id":"${SESSION}","uuid":"u"}`,
      msg('msg_1', '{"type":"thinking","thinking":"hm \\"x\\"","signature":"sig"}'),
      msg('msg_1', '{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a"}}'),
      `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"x {1} [2]"}]}${env},"tool_use_result":{"type":"text","file":{"numLines":4}}}`,
      msg('msg_2', '{"type":"text","text":"done"}'),
      `{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"result":"done","session_id":"${SESSION}"}`,
      '',
    ].join('\n');
    const on = decode(input, true);
    expect(on.json).toBe(decode(input, false).json);
    expect(on.written).toBe(input);
    expect(on.events.map((e) => e.type)).toEqual([
      'session.start',
      'run.start',
      'notice',
      'message.start',
      'usage',
      'reasoning.delta',
      'tool.start',
      'tool.end',
      'round.end',
      'message.start',
      'usage',
      'text.delta',
      'round.end',
      'run.end',
    ]);
  });
});
