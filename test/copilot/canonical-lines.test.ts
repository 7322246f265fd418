import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { copilotCanonicalLines, readCopilotCanonicalLine } from '../../src/formats/copilot/decode';
import { copilot } from '../../src/index';
import { valueExceedsDepth } from '../../src/json';
import type { AgentEvent } from '../../src/model';
import { parsed, same, spell, spelling } from '../canonical-lines';
import { text as anyText } from '../kept-suite';
import { FUZZ_RUNS } from '../runs';
import { expectSamePaths, type WholeEventsCase } from '../whole-events';

// The Copilot decoder's canonical-line reader (src/formats/copilot/decode.ts
// `readCopilotCanonicalLine`) held equal to `JSON.parse`: on the envelope and the `data` of the
// CLI's frequent events (a turn's start and end, a message's start and whole text, a tool call's
// start, partial output and end, a call's usage) and on near misses of them (keys moved, extra
// keys, spaces, numbers spelled otherwise, `\u` escapes, raw control characters, CRLF, a
// character inserted, removed or replaced anywhere, arguments nested near the depth bound), the
// record it reads, when it reads one, is the one `JSON.parse` gives, within the bound; and the
// decoder gives the same events, diagnostics and written bytes with the reader on or off, in any
// chunking.

type Rec = Record<string, unknown>;

const text = fc.oneof(
  anyText,
  fc.constantFrom('', 'say "hi"', 'a\\b', '§', 'x\u0001y', '"},"ephemeral":true}', '","content":"'),
);
function mostly<T>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: usual, weight: 4 }, { arbitrary: odd, weight: 1 });
}
const id = mostly(fc.constantFrom('0153acfb-7ecc-49ee-88ba-50ae11ad8bdd', 'call_1', 'S'), text);
const stamp = mostly(fc.constantFrom('2026-12-02T04:58:30.934Z', '2026-12-02T04:58:31.000Z'), text);
const count = mostly(fc.nat({ max: 100000 }), fc.constantFrom(1.5, -3, 1e21, 2 ** 53 + 2));
const depth = mostly(fc.constant(64), fc.integer({ min: 0, max: 9 }));
const nested = fc.nat({ max: 8 }).map((n) => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = i % 2 === 0 ? [v] : { v };
  return v;
});

const data: fc.Arbitrary<[string, Rec]> = fc.oneof(
  fc.record({ turnId: id }).map((d): [string, Rec] => ['assistant.turn_start', d]),
  fc.record({ messageId: id }).map((d): [string, Rec] => ['assistant.message_start', d]),
  fc.record({ messageId: id, content: text }).map((d): [string, Rec] => ['assistant.message', d]),
  fc
    .record({
      toolCallId: id,
      toolName: mostly(fc.constant('read'), text),
      arguments: fc.oneof(
        fc.constant({}),
        fc.record({ path: text, deep: nested }),
        fc.constantFrom<unknown>('x', null),
      ),
    })
    .map((d): [string, Rec] => ['tool.execution_start', d]),
  fc
    .record({ toolCallId: id, partialOutput: text })
    .map((d): [string, Rec] => ['tool.execution_partial_result', d]),
  fc
    .record({
      toolCallId: id,
      success: mostly(fc.boolean(), fc.constantFrom<unknown>(null, 1)),
      result: mostly(fc.record({ content: text }), fc.constantFrom<unknown>({ content: 1 }, 'x')),
    })
    .map((d): [string, Rec] => ['tool.execution_complete', d]),
  fc.record({ inputTokens: count, outputTokens: count }).map((d): [string, Rec] => ['assistant.usage', d]),
  fc.record({ turnId: id }).map((d): [string, Rec] => ['assistant.turn_end', d]),
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

const line = fc
  .tuple(record, spelling)
  .map(([r, how]) => spell(r, how, 'data', /("(?:inputTokens|outputTokens)":)(\d+)/));

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

function decode(
  input: string,
  maxDepth: number,
  canonical: boolean,
): { json: string; diagnostics: Diagnostic[] } {
  copilotCanonicalLines.enabled = canonical;
  try {
    const diagnostics: Diagnostic[] = [];
    const d = copilot.createDecoder({ maxDepth, onDiagnostic: (x) => diagnostics.push(x) });
    const events: AgentEvent[] = [...d.push(Buffer.from(input)), ...d.end()];
    return { json: JSON.stringify(events), diagnostics };
  } finally {
    copilotCanonicalLines.enabled = true;
  }
}

describe('Copilot decoder: the canonical-line reader beside JSON.parse', () => {
  test('reads, when it reads a line, the record JSON.parse gives, within the depth bound', () => {
    fc.assert(
      fc.property(line, depth, (text, maxDepth) => {
        const got = readCopilotCanonicalLine(text, maxDepth);
        if (got === undefined) return;
        const want = parsed(text);
        expect(same(got, want)).toBe(true);
        expect(valueExceedsDepth(want, maxDepth)).toBe(false);
      }),
      { numRuns: FUZZ_RUNS * 25 },
    );
  });

  test('gives the same events, diagnostics and written bytes as JSON.parse, in any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (lines, cuts) => {
          expectSamePaths(CASE, OPENING + lines.map((l) => `${l}\n`).join(''), cuts);
        },
      ),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });

  test('refuses the lines too deep for the bound as JSON.parse does', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), depth, (lines, maxDepth) => {
        const input = OPENING + lines.map((l) => `${l}\n`).join('');
        const on = decode(input, maxDepth, true);
        const off = decode(input, maxDepth, false);
        expect(on.json).toBe(off.json);
        expect(on.diagnostics).toEqual(off.diagnostics);
      }),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });

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
    ];
    for (const text of lines) expect(same(readCopilotCanonicalLine(text, 64), JSON.parse(text))).toBe(true);
    // The bound: a call's result and arguments nest three levels.
    expect(readCopilotCanonicalLine(lines[5]!, 3)).toBeDefined();
    expect(readCopilotCanonicalLine(lines[5]!, 2)).toBeUndefined();
    expect(readCopilotCanonicalLine(lines[3]!, 3)).toBeDefined();
    const deep = lines[3]!.replace('{"path":"x"}', '{"path":["x"]}');
    expect(readCopilotCanonicalLine(deep, 3)).toBeUndefined();
    expect(same(readCopilotCanonicalLine(deep, 4), JSON.parse(deep))).toBe(true);
  });
});
