import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { amp } from '../../src/all';
import { AMP_WHOLE_EVENTS } from '../../src/formats/amp/decode';
import { FUZZ_RUNS } from '../runs';
import { type Decoded, decodeWith, expectSamePaths, type WholeEventsCase } from '../whole-events';

// The Amp decoder builds its frequent events (text blocks, tool calls and results, a round's end,
// a line's usage) whole, each in one literal, beside the general path that adds the envelope to
// a literal afterwards (docs/performance.md, "Amp and Copilot"). Switched off, only the general
// path runs. These properties hold the two equal on random streams: the same events (the same
// JSON text, so the same fields in the same order, and no own `undefined` field), the same
// diagnostics, the same bytes written back, under every chunking.

const SESSION = 'T-019e47a8-5090-7538-9035-f2fde26859b7';

const GENERATED = /T-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', 'é', '\u2028', 'a', ' '), maxLength: 8 }),
);
const id = fc.constantFrom('toolu_1', 'toolu_2', 'toolu_3');
const lane = fc.constantFrom<string | null | undefined>(null, null, 'toolu_1', 'toolu_2', undefined);
const session = fc.constantFrom<string | undefined>(SESSION, SESSION, SESSION, 'T-other', undefined);
const count = fc.oneof(fc.nat({ max: 20000 }), fc.constantFrom(1.5, -1, 1e21));

// A usage object: Amp's four counts, some of them missing, another type, or extra fields.
const usage = fc
  .record(
    {
      input_tokens: fc.oneof(count, fc.constant('7')),
      cache_creation_input_tokens: count,
      cache_read_input_tokens: count,
      output_tokens: count,
      max_tokens: fc.constant(968000),
    },
    { requiredKeys: [] },
  )
  .chain((u) =>
    fc.oneof(
      fc.constant<unknown>(u),
      fc.constant<unknown>({
        input_tokens: 1,
        cache_creation_input_tokens: 2,
        cache_read_input_tokens: 3,
        output_tokens: 4,
      }),
      fc.constant<unknown>(null),
    ),
  );

const assistantBlock = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('text'), text: fc.constant(5) }),
  fc.record(
    { type: fc.constant('thinking'), thinking: text, signature: text },
    { requiredKeys: ['type', 'thinking'] },
  ),
  fc.record({ type: fc.constant('redacted_thinking'), data: text }),
  fc.record(
    {
      type: fc.constant('tool_use'),
      id,
      name: fc.constantFrom('Bash', 'Task', 'Read'),
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
    { requiredKeys: ['type', 'tool_use_id'] },
  ),
);

function envelope(type: string, message: unknown, l: string | null | undefined, s: string | undefined) {
  const r: Record<string, unknown> = { type, message };
  if (l !== undefined) r.parent_tool_use_id = l;
  if (s !== undefined) r.session_id = s;
  return JSON.stringify(r);
}

const line: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.array(assistantBlock, { maxLength: 4 }),
        fc.option(fc.constantFrom('tool_use', 'end_turn'), { nil: undefined }),
        usage,
        lane,
        session,
      )
      .map(([content, stop, u, l, s]) => {
        const m: Record<string, unknown> = { type: 'message', role: 'assistant', content };
        if (stop !== undefined) m.stop_reason = stop;
        if (u !== null) m.usage = u;
        return envelope('assistant', m, l, s);
      }),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.oneof(text, fc.array(userBlock, { maxLength: 3 })), lane, session)
      .map(([content, l, s]) => envelope('user', { role: 'user', content }, l, s)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('success', 'error_during_execution'), fc.boolean(), text, session)
      .map(([subtype, isError, result, s]) =>
        JSON.stringify({ type: 'result', subtype, duration_ms: 5, is_error: isError, result, session_id: s }),
      ),
  },
  {
    weight: 1,
    arbitrary: session.map((s) =>
      JSON.stringify({ type: 'system', subtype: 'init', cwd: '/w', session_id: s, tools: ['Bash'] }),
    ),
  },
);

const stream = fc
  .tuple(fc.array(line, { minLength: 1, maxLength: 10 }), fc.boolean())
  .map(([lines, crlf]) => lines.join(crlf ? '\r\n' : '\n') + (crlf ? '\r\n' : '\n'));

const CASE: WholeEventsCase = {
  codec: amp,
  whole: AMP_WHOLE_EVENTS,
  // A stream without a session id is written with a random one: that one is set aside.
  write: (events) => amp.stringify(events).replace(GENERATED, (m) => (m === SESSION ? m : 'T-generated')),
};

const decode = (input: string, whole: boolean): Decoded => decodeWith(CASE, input, whole);

describe('Amp decoder: whole events against the general path', () => {
  afterEach(() => {
    AMP_WHOLE_EVENTS.enabled = true;
  });

  test('the same events, diagnostics and written bytes, chunked anywhere', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 4 }), (input, cuts) => {
        expectSamePaths(CASE, input, cuts);
      }),
      { numRuns: FUZZ_RUNS * 2 },
    );
  });

  test('the fixtures decode the same either way', () => {
    const line = `{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"cmd":"ls"}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":4}},"parent_tool_use_id":null,"session_id":"${SESSION}"}`;
    const result = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok","is_error":false}]},"parent_tool_use_id":null,"session_id":"${SESSION}"}`;
    const input = `${line}\n${result}\n`;
    const whole = decode(input, true);
    expect(whole.json).toBe(decode(input, false).json);
    // The frequent shapes are all here: each of them took the whole path.
    expect(whole.events.map((e) => e.type)).toEqual([
      'run.start',
      'text.delta',
      'tool.start',
      'tool.end',
      'round.end',
      'run.end',
    ]);
  });
});
