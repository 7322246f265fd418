import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { copilot } from '../../src/all';
import { copilotCanonicalLines, readCopilotCanonicalLine } from '../../src/formats/copilot/decode';
import { COPILOT_CANONICAL_HEAD, COPILOT_DELTA_HEAD } from '../../src/formats/copilot/wire';
import { decoderProperties, mostly, readerProperty, same, spell, spelling } from '../canonical-lines';
import { text as anyText } from '../kept-suite';
import type { WholeEventsCase } from '../whole-events';

// The Copilot decoder's canonical-line reader (src/formats/copilot/decode.ts
// `readCopilotCanonicalLine`) held equal to `JSON.parse`: on the envelope and the `data` of the
// CLI's frequent records (a turn's start and end, a message's start and whole text, a tool call's
// start, partial output and end, a call's usage) and on near misses of them (keys moved, extra
// keys, spaces, numbers spelled otherwise, `\u` escapes, raw control characters, CRLF, a
// character inserted, removed or replaced anywhere, a data shape under another type's name,
// arguments nested near the depth bound), the record it reads, when it reads one, is the one
// `JSON.parse` gives, within the bound; and the decoder gives the same events, diagnostics and
// written bytes with the reader on or off, in any chunking.

type Rec = Record<string, unknown>;

const text = fc.oneof(
  anyText,
  fc.constantFrom(
    '',
    'say "hi"',
    'a\\b',
    '§',
    'x\u0001y',
    '"},"ephemeral":true}',
    '","content":"',
    'assistant.turn_start',
    '}}',
  ),
);
const id = mostly(fc.constantFrom('0153acfb-7ecc-49ee-88ba-50ae11ad8bdd', 'call_1', 'S'), text);
const stamp = mostly(fc.constantFrom('2026-12-02T04:58:30.934Z', '2026-12-02T04:58:31.000Z'), text);
const count = mostly(fc.nat({ max: 100000 }), fc.constantFrom(1.5, -3, 1e21, 2 ** 53 + 2, 0));
const nested = fc.nat({ max: 8 }).map((n) => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = i % 2 === 0 ? [v] : { v };
  return v;
});

/** Every type name the reader knows, a few it does not, and one that needs an escape. */
const anyType = fc.constantFrom(
  'assistant.turn_start',
  'assistant.turn_end',
  'assistant.message_start',
  'assistant.message',
  'assistant.message_delta',
  'assistant.usage',
  'tool.execution_start',
  'tool.execution_partial_result',
  'tool.execution_complete',
  'session.idle',
  'subagent.started',
  'x',
  'assistant.turn_start"',
);
/** The data's own type name, mostly; sometimes another's (the reader must not take it). */
function typed(type: string): fc.Arbitrary<string> {
  return fc.oneof({ arbitrary: fc.constant(type), weight: 6 }, { arbitrary: anyType, weight: 1 });
}

const data: fc.Arbitrary<[string, Rec]> = fc.oneof(
  fc.tuple(typed('assistant.turn_start'), fc.record({ turnId: id })),
  fc.tuple(typed('assistant.turn_end'), fc.record({ turnId: id })),
  fc.tuple(typed('assistant.message_start'), fc.record({ messageId: id })),
  fc.tuple(typed('assistant.message'), fc.record({ messageId: id, content: text })),
  fc.tuple(
    typed('tool.execution_start'),
    fc.record({
      toolCallId: id,
      toolName: mostly(fc.constant('read'), text),
      arguments: fc.oneof(
        fc.constant({}),
        fc.record({ path: text, deep: nested }),
        fc.constantFrom<unknown>('x', null, 7, [1, { a: 'b' }], { n: 2 ** 53 + 2 }),
        fc.constant({ long: 'x'.repeat(4100) }),
        // Arguments whose text ends as the line's does (the reader finds their end from it).
        fc.record({ path: text, ephemeral: fc.constant(true) }),
        fc.constantFrom<unknown>('},"ephemeral":true}', ['"', '}}'], 1234, true),
      ),
    }),
  ),
  // A key after the arguments (an MCP tool's server): no one value up to the data's end.
  fc.tuple(
    typed('tool.execution_start'),
    fc.record({
      toolCallId: id,
      toolName: fc.constant('read'),
      arguments: fc.oneof(fc.record({ path: text }), fc.constantFrom<unknown>('x', 7, null)),
      mcpServerName: mostly(fc.constant('github'), fc.constantFrom<unknown>(7, { a: 1 })),
    }),
  ),
  fc.tuple(typed('tool.execution_partial_result'), fc.record({ toolCallId: id, partialOutput: text })),
  fc.tuple(
    typed('tool.execution_complete'),
    fc.record({
      toolCallId: id,
      success: mostly(fc.boolean(), fc.constantFrom<unknown>(null, 1, 'true')),
      result: mostly(fc.record({ content: text }), fc.constantFrom<unknown>({ content: 1 }, 'x', {})),
    }),
  ),
  fc.tuple(typed('assistant.usage'), fc.record({ inputTokens: count, outputTokens: count })),
);

const record: fc.Arbitrary<Rec> = fc
  .record({
    id,
    parentId: mostly(id, fc.constant<string | null>(null)),
    timestamp: stamp,
    data,
    ephemeral: fc.constantFrom<unknown>(undefined, undefined, true, false),
  })
  .map(({ id, parentId, timestamp, data: [type, data], ephemeral }) =>
    ephemeral === undefined
      ? { id, parentId, timestamp, type, data }
      : { id, parentId, timestamp, type, data, ephemeral },
  );

// A line without its data's closing brace: the reader finds the end of a tool's arguments from the
// line's end, and the brace it then expects there is the only sign of this one.
function unclosed(r: Rec): string {
  const line = JSON.stringify(r);
  const at = line.endsWith(',"ephemeral":true}') ? line.length - 19 : line.length - 2;
  return line.slice(0, at) + line.slice(at + 1);
}

const line = fc.oneof(
  {
    arbitrary: fc
      .tuple(record, spelling)
      .map(([r, how]) => spell(r, how, 'data', /("(?:inputTokens|outputTokens)":)(\d+)/)),
    weight: 9,
  },
  { arbitrary: record.map(unclosed), weight: 1 },
);

const CASE: WholeEventsCase = {
  codec: copilot,
  whole: copilotCanonicalLines,
  write: (events) => {
    let n = 0;
    return copilot.stringify(events, { idSource: () => `id-${++n}`, clock: () => 0 });
  },
};

const OPENING =
  '{"id":"0153acfb-7ecc-49ee-88ba-50ae11ad8bdd","parentId":null,"timestamp":"2026-12-02T04:58:30.934Z","type":"session.start","data":{"sessionId":"s-bench-1","version":1,"producer":"0.42.0","copilotVersion":"0.0.0","startTime":"2026-12-02T04:58:30.927Z"}}\n';

describe('Copilot decoder: the canonical-line reader beside JSON.parse', () => {
  readerProperty(readCopilotCanonicalLine, line);

  decoderProperties(CASE, line, OPENING);

  test('takes the frequent lines (the properties are not vacuous)', () => {
    const env = '{"id":"7805c264","parentId":"28c77f6b","timestamp":"2026-12-02T04:58:30.935Z","type":';
    const lines = [
      `${env}"assistant.turn_start","data":{"turnId":"1"}}`,
      `${env}"assistant.message_start","data":{"messageId":"a12e"},"ephemeral":true}`,
      `${env}"assistant.message","data":{"messageId":"a12e","content":"a \\"b\\"\\n"}}`,
      `${env}"tool.execution_start","data":{"toolCallId":"call_1","toolName":"read","arguments":{"path":"x"}}}`,
      `${env}"tool.execution_partial_result","data":{"toolCallId":"call_1","partialOutput":"on\\nrun"},"ephemeral":true}`,
      `${env}"tool.execution_complete","data":{"toolCallId":"call_1","success":false,"result":{"content":"x"}}}`,
      `${env}"assistant.usage","data":{"inputTokens":8372,"outputTokens":457},"ephemeral":true}`,
      `${env}"assistant.turn_end","data":{"turnId":"1"}}`,
    ];
    for (const text of lines) expect(same(readCopilotCanonicalLine(text, 64), JSON.parse(text))).toBe(true);
    // Another type's data, or a type it does not read: left to JSON.parse.
    expect(readCopilotCanonicalLine(lines[0]!.replace('turn_start', 'message_start'), 64)).toBeUndefined();
    expect(
      readCopilotCanonicalLine(lines[0]!.replace('assistant.turn_start', 'session.idle'), 64),
    ).toBeUndefined();
    // The bound: a call's result and arguments nest three levels.
    expect(readCopilotCanonicalLine(lines[5]!, 3)).toBeDefined();
    expect(readCopilotCanonicalLine(lines[5]!, 2)).toBeUndefined();
    expect(readCopilotCanonicalLine(lines[3]!, 3)).toBeDefined();
    const deep = lines[3]!.replace('{"path":"x"}', '{"path":["x"]}');
    expect(readCopilotCanonicalLine(deep, 3)).toBeUndefined();
    expect(same(readCopilotCanonicalLine(deep, 4), JSON.parse(deep))).toBe(true);
  });

  test('reads the envelope as the delta shortcut does (one envelope, spelled in two expressions)', () => {
    // Up to the type's name, the text and captures of both expressions (src/formats/copilot/wire.ts).
    const envelope = (r: RegExp) => r.source.slice(0, r.source.indexOf('"type":"') + '"type":"'.length);
    expect(envelope(COPILOT_DELTA_HEAD)).toContain('"timestamp":"');
    expect(envelope(COPILOT_CANONICAL_HEAD)).toBe(envelope(COPILOT_DELTA_HEAD));
    expect(COPILOT_CANONICAL_HEAD.flags).toBe(COPILOT_DELTA_HEAD.flags);
  });
});
