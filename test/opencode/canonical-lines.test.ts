import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { opencode } from '../../src/all';
import {
  type KnownIds,
  opencodeCanonicalLines,
  readOpencodeCanonicalLine,
} from '../../src/formats/opencode/decode';
import {
  decoderProperties,
  depth,
  mostly,
  parsed,
  readerProperty,
  same,
  spell,
  spelling,
} from '../canonical-lines';
import { text as anyText } from '../kept-suite';
import { FUZZ_RUNS } from '../runs';
import type { WholeEventsCase } from '../whole-events';

// The OpenCode decoder's canonical-line reader (src/formats/opencode/decode.ts
// `readOpencodeCanonicalLine`) held equal to `JSON.parse`: on the `step_start`, `text`,
// `tool_use` and `step_finish` lines OpenCode writes and on near misses of them (keys moved,
// extra keys, spaces, numbers spelled otherwise, `\u` escapes, raw control characters, CRLF, a
// character inserted, removed or replaced anywhere, the part's session or the metadata's output
// not the repeat of the first, inputs nested near the depth bound), the record it reads, when it
// reads one, is the one `JSON.parse` gives, within the bound; and the decoder gives the same
// events, diagnostics and written bytes with the reader on or off, in any chunking.

type Rec = Record<string, unknown>;

const SESSION = 'ses_03YHwpseyJf9LwcmixiYfSb89i';

const text = fc.oneof(
  anyText,
  fc.constantFrom('', 'say "hi"', 'a\\b', '§', 'x\u0001y', '","title":"', '"},"time":{"start":1,"end":2}}}}'),
  // What the long texts' reads search for after them, inside the text, and a text ending in a
  // backslash (its closing quote then follows an escaped one).
  fc.constantFrom(',"time":{"start":', ',"title":', 'a\\'),
);
// Beside the usual one, ids that begin or end like it, or are as long as it (a reader that knows
// the last id must not take them for it).
const session = mostly(
  fc.constant(SESSION),
  fc.constantFrom(
    'S',
    'ses_child',
    'a"b',
    '§',
    '',
    `${SESSION}x`,
    SESSION.slice(0, -1),
    `${SESSION.slice(0, -1)}X`,
    `X${SESSION.slice(1)}`,
  ),
);
const id = mostly(fc.constantFrom('prt_1', 'msg_1', 'msg_12', 'msg_', 'msg_1"', 'msg_2', 'nsg_1'), text);
const int = mostly(
  fc.integer({ min: 1767036059000, max: 1767036069000 }),
  fc.constantFrom(0, 1.5, -3, 1e21, 2 ** 53 + 2),
);
const cost = mostly(
  fc.double({ min: 0, max: 1, noNaN: true }),
  fc.constantFrom<unknown>(0, -0.5, '0.1', null),
);

const nested = fc.nat({ max: 8 }).map((n) => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = i % 2 === 0 ? [v] : { v };
  return v;
});
const input = fc.oneof(
  fc.record({ command: text, description: text }),
  fc.record({ command: text, deep: nested }),
  fc.constantFrom<unknown>('x', null, []),
);

function withPart(type: string, part: fc.Arbitrary<Rec>): fc.Arbitrary<Rec> {
  return fc
    .record({
      timestamp: int,
      sessionID: session,
      id,
      partSession: mostly(fc.constant(SESSION), session),
      messageID: id,
      part,
    })
    .map(({ timestamp, sessionID, id, partSession, messageID, part }) => ({
      type,
      timestamp,
      sessionID,
      part: { id, sessionID: partSession, messageID, ...part },
    }));
}

const time = fc.record({ start: int, end: int });
const record: fc.Arbitrary<Rec> = fc.oneof(
  withPart('step_start', fc.record({ type: fc.constant('step-start'), snapshot: text })),
  withPart('text', fc.record({ type: fc.constant('text'), text, time })),
  withPart(
    'tool_use',
    fc
      .record({
        callID: id,
        tool: mostly(fc.constant('bash'), text),
        input,
        output: text,
        title: text,
        exit: int,
        description: text,
        time,
        same: fc.boolean(),
        deep: nested,
      })
      .map(({ callID, tool, input, output, title, exit, description, time, same, deep }) => ({
        type: 'tool',
        callID,
        tool,
        state: {
          status: 'completed',
          input,
          output,
          title,
          metadata: same ? { output, exit, description } : { output: `${output}!`, exit, deep },
          time,
        },
      })),
  ),
  withPart(
    'tool_use',
    fc
      .record({
        callID: id,
        tool: fc.constant('bash'),
        state: fc.record({ status: fc.constant('error'), input, error: mostly(text, nested), time }),
      })
      .map((p) => ({ type: 'tool', ...p })),
  ),
  withPart(
    'step_finish',
    fc
      .record({
        reason: mostly(fc.constantFrom('stop', 'tool-calls'), text),
        snapshot: text,
        cost,
        input: int,
        output: int,
        reasoning: int,
        read: int,
        write: int,
      })
      .map(({ reason, snapshot, cost, input, output, reasoning, read, write }) => ({
        type: 'step-finish',
        reason,
        snapshot,
        cost,
        tokens: { input, output, reasoning, cache: { read, write } },
      })),
  ),
);

const line = fc
  .tuple(record, spelling)
  .map(([r, how]) => spell(r, how, 'part', /("(?:timestamp|input|start|read)":)(\d+)/));

const CASE: WholeEventsCase = {
  codec: opencode,
  whole: opencodeCanonicalLines,
  write: (events) => opencode.stringify(events),
};

describe('OpenCode decoder: the canonical-line reader beside JSON.parse', () => {
  readerProperty(readOpencodeCanonicalLine, line);

  // The reader keeps the session and message ids between lines (`KnownIds`): read through one
  // `known`, every line of a sequence it reads gives the record `JSON.parse` gives.
  test('reads, when it reads a line of a sequence, the record JSON.parse gives (the ids it knows from the lines before)', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), depth, (lines, maxDepth) => {
        const known: KnownIds = [undefined, undefined];
        for (const text of lines) {
          const got = readOpencodeCanonicalLine(text, maxDepth, known);
          if (got !== undefined) expect(same(got, parsed(text))).toBe(true);
        }
      }),
      { numRuns: FUZZ_RUNS * 10 },
    );
  });

  decoderProperties(CASE, line);

  test('takes an id it knows only where the line spells it whole, and knows no escaped one', () => {
    const start = (session: string, message: string) =>
      `{"type":"step_start","timestamp":1,"sessionID":${session},"part":{"id":"prt_1","sessionID":${session},"messageID":${message},"type":"step-start","snapshot":"88Uj"}}`;
    const known: KnownIds = [undefined, undefined];
    const first = start(`"${SESSION}"`, '"msg_1"');
    expect(same(readOpencodeCanonicalLine(first, 64, known), JSON.parse(first))).toBe(true);
    expect(known).toEqual([SESSION, 'msg_1']);
    // The known id followed by more characters, the quote after it missing: no JSON, not read.
    expect(readOpencodeCanonicalLine(start(`"${SESSION}"`, '"msg_1x'), 64, known)).toBeUndefined();
    // Ids as long as the known one, another last or first character: read, not taken for it.
    for (const other of ['"msg_2"', '"nsg_1"']) {
      const odd = start(`"${SESSION}"`, other);
      expect(same(readOpencodeCanonicalLine(odd, 64, [SESSION, 'msg_1']), JSON.parse(odd))).toBe(true);
    }
    // A longer id that begins with the known one: read, and known from then on.
    const longer = start(`"${SESSION}"`, '"msg_12"');
    expect(same(readOpencodeCanonicalLine(longer, 64, known), JSON.parse(longer))).toBe(true);
    expect(known[1]).toBe('msg_12');
    // An id read with an escape in it is not kept: a line spelling it unescaped is no JSON.
    const escaped = start(`"${SESSION}"`, '"a\\"b"');
    expect(same(readOpencodeCanonicalLine(escaped, 64, known), JSON.parse(escaped))).toBe(true);
    expect(known[1]).not.toBe('a"b');
    expect(readOpencodeCanonicalLine(start(`"${SESSION}"`, '"a"b"'), 64, known)).toBeUndefined();
    // The part's session other than the record's, the record's known.
    const other = first.replace(
      `"sessionID":"${SESSION}","messageID"`,
      '"sessionID":"ses_child","messageID"',
    );
    expect(readOpencodeCanonicalLine(other, 64, known)).toBeUndefined();
    // The record types told by their first letters, compared whole: near misses are not read.
    for (const type of ['step_starts', 'step_finis', 'texts', 'tool_us', 'stop', 'tex']) {
      const odd = first.replace('"step_start"', `"${type}"`);
      expect(readOpencodeCanonicalLine(odd, 64, known)).toBeUndefined();
    }
  });

  test('takes the frequent lines (the properties are not vacuous)', () => {
    const env = `"timestamp":1767036059931,"sessionID":"${SESSION}","part":{"id":"prt_1","sessionID":"${SESSION}","messageID":"msg_1",`;
    const lines = [
      `{"type":"step_start",${env}"type":"step-start","snapshot":"88Uj"}}`,
      `{"type":"text",${env}"type":"text","text":"a \\"b\\"\\n","time":{"start":1767036059931,"end":1767036059931}}}`,
      `{"type":"step_finish",${env}"type":"step-finish","reason":"stop","snapshot":"Gfw4","cost":0.0864763,"tokens":{"input":3188,"output":351,"reasoning":0,"cache":{"read":29652,"write":0}}}}`,
      `{"type":"tool_use",${env}"type":"tool","callID":"BgF","tool":"bash","state":{"status":"completed","input":{"command":"ls","description":"list"},"output":"a\\nb \\"c\\"","title":"list","metadata":{"output":"a\\nb \\"c\\"","exit":0,"description":"list"},"time":{"start":1,"end":2}}}}`,
      `{"type":"tool_use",${env}"type":"tool","callID":"BgF","tool":"bash","state":{"status":"completed","input":{},"output":"a","title":"","metadata":{"output":"b","exit":0},"time":{"start":1,"end":2}}}}`,
      `{"type":"tool_use",${env}"type":"tool","callID":"BgF","tool":"bash","state":{"status":"error","input":{"command":"ls"},"error":"no \\"x\\"","time":{"start":1,"end":2}}}}`,
    ];
    for (const text of lines) expect(same(readOpencodeCanonicalLine(text, 64), JSON.parse(text))).toBe(true);
    // The bound: a step's cache counts and a call's input and time nest four levels.
    expect(readOpencodeCanonicalLine(lines[2]!, 4)).toBeDefined();
    expect(readOpencodeCanonicalLine(lines[2]!, 3)).toBeUndefined();
    expect(readOpencodeCanonicalLine(lines[3]!, 4)).toBeDefined();
    expect(readOpencodeCanonicalLine(lines[3]!, 3)).toBeUndefined();
    // A long text read up to the fixed text after it: another key between the two is no
    // canonical line (the reader leaves it to JSON.parse), a text that ends in a backslash is.
    for (const [from, to] of [
      ['","time":{"start":1767', '","x":"y","time":{"start":1767'],
      ['","title":"list"', '","x":"y","title":"list"'],
      ['","time":{"start":1,', '","x":"y","time":{"start":1,'],
      ['\\"\\n","time"', '\\\\","time"'],
      ['b \\"c\\"","title"', 'b\\\\","title"'],
    ] as const) {
      const odd = lines.map((l) => l.replace(from, to)).find((l, i) => l !== lines[i])!;
      const read = readOpencodeCanonicalLine(odd, 64);
      expect(read === undefined || same(read, JSON.parse(odd))).toBe(true);
      expect(read === undefined).toBe(odd.includes('"x":"y"'));
    }
    const deep = lines[3]!.replace('{"command":"ls"', '{"command":{"x":1}');
    expect(readOpencodeCanonicalLine(deep, 4)).toBeUndefined();
    expect(same(readOpencodeCanonicalLine(deep, 5), JSON.parse(deep))).toBe(true);
  });
});
