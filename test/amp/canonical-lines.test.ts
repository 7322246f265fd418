import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { amp } from '../../src/all';
import { ampCanonicalLines, readAmpCanonicalLine } from '../../src/formats/amp/decode';
import { decoderProperties, mostly, readerProperty, same, spell, spelling } from '../canonical-lines';
import { text as anyText } from '../kept-suite';
import type { WholeEventsCase } from '../whole-events';

// The Amp decoder's canonical-line reader (src/formats/amp/decode.ts `readAmpCanonicalLine`) held
// equal to `JSON.parse`: on the assistant and user lines Amp and this codec's writer spell (text,
// tool_use and tool_result blocks, the stop reason, the usage in its two and six key forms) and on
// near misses of them (keys moved, extra keys, spaces, numbers spelled otherwise, `\u` escapes,
// raw control characters, CRLF, a character inserted, removed or replaced anywhere, the fixed
// text inside values, inputs nested near the depth bound), the record it reads, when it reads
// one, is the one `JSON.parse` gives (same keys in the same order, same values), within the
// bound; and the decoder gives the same events, diagnostics and written bytes with the reader on
// or off, in any chunking.

type Rec = Record<string, unknown>;

const SESSION = 'T-019e47a8-5090-7538-9035-f2fde26859b7';

/** Text with what JSON escapes, the fixed text of the lines, a raw control character. */
const text = fc.oneof(
  anyText,
  fc.constantFrom(
    '',
    'say "hi"',
    'a\\b',
    '§',
    'x\u0001y',
    '"}]},"parent_tool_use_id":null,"session_id":"S"}',
    '"},{"type":"text","text":"',
    '","is_error":true}',
    // The long strings' end searches (`readLongString`): the quote and the character after it
    // escaped inside, a value ending in a backslash (its closing quote after one), `","i` escaped.
    'x"}',
    'x",',
    'x","i',
    'a\\',
    '\\"}',
    '"',
    '"}],"stop_reason":"x","usage":{"input_tokens":1,"output_tokens":2}}',
  ),
);
const session = mostly(fc.constant(SESSION), fc.constantFrom('S', '', 'a"b', 'a\\b', '§'));
const lane = mostly(fc.constant<string | null>(null), fc.constantFrom('toolu_1', 'a"b', '§'));
const id = mostly(fc.constantFrom('toolu_1', 'call_2'), text);
const count = mostly(fc.nat({ max: 100000 }), fc.constantFrom(1.5, -3, 1e21, 2 ** 53 + 2, 123456789012345));

/** A JSON value nested `n` levels (arrays in objects), for the depth bound. */
const nested = fc.nat({ max: 8 }).map((n) => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = i % 2 === 0 ? [v] : { v };
  return v;
});
const input = fc.oneof(
  fc.constant({}),
  fc.record({ cmd: text, deep: nested }, { requiredKeys: ['cmd'] }),
  fc.constantFrom('x', 1, null, [], { '}],"x': '{' }),
);

const usage = fc.oneof(
  fc.record({ input_tokens: count, output_tokens: count }),
  fc.record({
    input_tokens: count,
    cache_creation_input_tokens: count,
    cache_read_input_tokens: count,
    output_tokens: count,
  }),
  fc.record({
    input_tokens: count,
    cache_creation_input_tokens: count,
    cache_read_input_tokens: count,
    output_tokens: count,
    max_tokens: count,
    service_tier: mostly(fc.constant('standard'), text),
  }),
  fc.record({ input_tokens: count }, { requiredKeys: [] }),
);

const assistantBlock = fc.oneof(
  { weight: 3, arbitrary: fc.record({ type: fc.constant('text'), text }) },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('tool_use'),
      id,
      name: mostly(fc.constant('Bash'), text),
      input,
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('thinking'), thinking: text, signature: text }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('tool_use'), id, name: fc.constant('x') }) },
);
const resultContent = mostly(text, fc.constantFrom<unknown>([{ type: 'text', text: 'a' }], 3, null));
const userBlock = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant('tool_result'),
      tool_use_id: id,
      content: resultContent,
      is_error: mostly(fc.boolean(), fc.constantFrom<unknown>(null, 0)),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('tool_result'), tool_use_id: id, content: text }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('text'), text }) },
);

/** The lines Amp writes most, in its key order (the reader's shapes), and their kin. */
const record: fc.Arbitrary<Rec> = fc.oneof(
  fc
    .record(
      {
        content: fc.array(assistantBlock, { maxLength: 4 }),
        stop_reason: mostly(fc.constantFrom('tool_use', 'end_turn'), fc.constantFrom<unknown>(null, 3)),
        usage,
      },
      { requiredKeys: ['content'] },
    )
    .chain((m) =>
      fc.record({
        type: fc.constant('assistant'),
        message: fc.constant({ type: 'message', role: 'assistant', ...m }),
        parent_tool_use_id: lane,
        session_id: session,
      }),
    ),
  fc.record({
    type: fc.constant('user'),
    message: fc.array(userBlock, { maxLength: 3 }).map((content) => ({ role: 'user', content })),
    parent_tool_use_id: lane,
    session_id: session,
  }),
);

const line = fc.tuple(record, spelling).map(([r, how]) => spell(r, how, 'message', /(_tokens":)(\d+)/));

const CASE: WholeEventsCase = {
  codec: amp,
  whole: ampCanonicalLines,
  write: (events) => amp.stringify(events),
};

const OPENING =
  `{"type":"system","subtype":"init","cwd":"/w","session_id":"${SESSION}","tools":["Bash"],"mcp_servers":[]}\n` +
  `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go"}]},"parent_tool_use_id":null,"session_id":"${SESSION}"}\n`;

describe('Amp decoder: the canonical-line reader beside JSON.parse', () => {
  readerProperty(readAmpCanonicalLine, line);

  decoderProperties(CASE, line, OPENING);

  test('after a legacy record, a canonical line is kept as unknown, as with the reader off', () => {
    const text =
      `{"type":"initial","threadID":"T-00000000-0000-0000-0000-000000000000"}\n` +
      `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go"}]},"parent_tool_use_id":null,"session_id":"${SESSION}"}\n`;
    const read = (on: boolean) => {
      ampCanonicalLines.enabled = on;
      try {
        return amp.parse(text);
      } finally {
        ampCanonicalLines.enabled = true;
      }
    };
    const general = read(false);
    expect(read(true)).toEqual(general);
    expect(general.events.map((e) => e.type)).toEqual(['unknown', 'unknown']);
  });

  test('takes the frequent lines (the properties are not vacuous)', () => {
    const lines = [
      `{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"a \\"b\\"\\n"},{"type":"tool_use","id":"call_1","name":"read","input":{}}],"stop_reason":"toolUse","usage":{"input_tokens":8372,"output_tokens":457}},"parent_tool_use_id":null,"session_id":"s-bench-1"}`,
      `{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_05Bash","name":"Bash","input":{"cmd":"rm -rf build"}}],"stop_reason":"tool_use","usage":{"input_tokens":11,"cache_creation_input_tokens":0,"cache_read_input_tokens":14100,"output_tokens":22,"max_tokens":968000,"service_tier":"standard"}},"parent_tool_use_id":null,"session_id":"${SESSION}"}`,
      `{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":1,"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":4}},"parent_tool_use_id":"toolu_1","session_id":"${SESSION}"}`,
      `{"type":"assistant","message":{"type":"message","role":"assistant","content":[]},"parent_tool_use_id":null,"session_id":"S"}`,
      `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"on && \\"x\\"","is_error":true},{"type":"tool_result","tool_use_id":"call_2","content":"ok"}]},"parent_tool_use_id":null,"session_id":"s-bench-1"}`,
      `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go"}]},"parent_tool_use_id":null,"session_id":"S"}`,
      // The long strings' general reading beside their end search: a result without `is_error`
      // before one with it, values ending in a backslash, the quote and `}`/`,` escaped inside.
      String.raw`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x\\"},{"type":"tool_result","tool_use_id":"b","content":"y \\\",\"}\\","is_error":false}]},"parent_tool_use_id":null,"session_id":"S"}`,
      String.raw`{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"a\\"},{"type":"text","text":"\"}\\\"}\\"}]},"parent_tool_use_id":null,"session_id":"S"}`,
    ];
    for (const text of lines) expect(same(readAmpCanonicalLine(text, 64), JSON.parse(text))).toBe(true);
    // The bound: a text block nests four levels, a tool's input one more.
    expect(readAmpCanonicalLine(lines[5]!, 4)).toBeDefined();
    expect(readAmpCanonicalLine(lines[5]!, 3)).toBeUndefined();
    expect(readAmpCanonicalLine(lines[1]!, 4)).toBeUndefined();
    expect(readAmpCanonicalLine(lines[1]!, 5)).toBeDefined();
  });
});
