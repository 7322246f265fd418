import fc from 'fast-check';
import { describe, expect, test, vi } from 'vitest';
import { type AgentEvent, copilot } from '../../src/all';
import { lineChunkDecoder } from '../../src/codec';
import type { Diagnostic } from '../../src/diagnostics';
import { CopilotRecordDecoder } from '../../src/formats/copilot/decode';
import { chunkAt } from '../golden';
import { FUZZ_RUNS } from '../runs';

// The Copilot decoder reads an `assistant.message_delta` line spelled exactly as the writer
// spells it without `JSON.parse` of the line (most lines of a stream are these). These properties
// hold that shortcut equal to the general path (the same decoder with the shortcut off): the same
// events, the same diagnostics and the same bytes written back, on canonical lines, on every near
// miss we can think of, among the records that set the state a delta reads (session, round,
// lanes), cut into chunks anywhere.

const RUNS = FUZZ_RUNS * 5;

/** Text of a delta or an id: plain, escapes of every kind, astral and lone surrogates, long. */
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\t', '\u2028', '{', '}', ',', 'a', 'é') }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ minLength: 4090, maxLength: 4110 }), // either side of the depth pre-check bound
);
const id = fc.oneof(fc.uuid(), fc.constantFrom('m-1', 'm-2', ''), fc.string({ maxLength: 6 }));
const timestamp = fc.oneof(
  fc
    .integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2026, 0, 1, 0, 3) })
    .map((ms) => new Date(ms).toISOString()),
  fc.constantFrom('2026-01-15T10:00:00.123456Z', '2026-02-30T10:00:00.000Z', 'not a date', ''),
);
const q = (s: string) => JSON.stringify(s);

/** A delta line the writer would write: the SDK's key order, `ephemeral` or not. */
const canonical = fc
  .record({
    id,
    parent: fc.option(id),
    ts: timestamp,
    message: id,
    delta: text,
    ephemeral: fc.boolean(),
  })
  .map(
    ({ id, parent, ts, message, delta, ephemeral }) =>
      `{"id":${q(id)},"parentId":${parent === null ? 'null' : q(parent)},"timestamp":${q(ts)},` +
      `"type":"assistant.message_delta","data":{"messageId":${q(message)},"deltaContent":${q(delta)}}` +
      `${ephemeral ? ',"ephemeral":true' : ''}}`,
  );

const HEAD = '{"id":"e-1","parentId":"e-0","timestamp":"2026-01-01T00:00:01.000Z",';
const delta = (data: string, tail = ',"ephemeral":true') =>
  `${HEAD}"type":"assistant.message_delta","data":${data}${tail}}`;

// A canonical line changed in one place: keys moved, added or spelled with escapes, values of
// other types, spacing, the tail or a cut, a lane (agentId, parentToolCallId).
const nearMiss = fc.oneof(
  // A raw control character (JSON.parse refuses it) in the delta or in an id.
  fc
    .tuple(
      fc.string({ maxLength: 4 }),
      fc.constantFrom('\t', '\u0001', '\u001f', '\r'),
      fc.string({ maxLength: 4 }),
    )
    .map(([a, c, b]) =>
      delta(`{"messageId":"m-1","deltaContent":"${a.replace(/["\\]/g, '')}${c}${b.replace(/["\\]/g, '')}"}`),
    ),
  fc
    .tuple(
      fc.constantFrom('\t', '\u0001'),
      fc.constantFrom('"id":"e', '"parentId":"e', '"timestamp":"2', '"messageId":"m'),
    )
    .map(([c, at]) => delta('{"messageId":"m-1","deltaContent":"x"}').replace(at, `${at}${c}`)),
  fc.tuple(id, text).map(([m, d]) => delta(`{"deltaContent":${q(d)},"messageId":${q(m)}}`)),
  fc.tuple(id, text).map(([m, d]) => delta(`{"messageId":${q(m)},"deltaContent":${q(d)},"x":1}`)),
  fc
    .tuple(id, text)
    .map(([m, d]) => delta(`{"messageId":${q(m)},"deltaContent":${q(d)}}`, ',"agentId":"a-1"')),
  fc
    .tuple(id, text)
    .map(([m, d]) => delta(`{"messageId":${q(m)},"deltaContent":${q(d)},"parentToolCallId":"call-1"}`)),
  fc
    .tuple(id, fc.jsonValue())
    .map(([m, v]) => delta(`{"messageId":${q(m)},"deltaContent":${JSON.stringify(v)}}`)),
  fc
    .tuple(fc.jsonValue(), text)
    .map(([v, d]) => delta(`{"messageId":${JSON.stringify(v)},"deltaContent":${q(d)}}`)),
  fc.tuple(id, text).map(([m, d]) => delta(`{"messageId":${q(m)},"deltaContent":${q(d)} }`)),
  fc.tuple(id, text).map(([m, d]) => delta(`{"messageId":${q(m)},"deltaContent":"${d}"}`)),
  fc.tuple(id, text).map(([m, d]) => delta(`{"messageId":"\\u0041${q(m).slice(1)},"deltaContent":${q(d)}}`)),
  fc.tuple(id, text).map(([m, d]) => delta(`{"messageId":${q(m)},"deltaContent":"\\/${q(d).slice(1)}}`)),
  fc
    .tuple(id, text)
    .map(([m, d]) => delta(`{"messageId":${q(m)},"deltaContent":${q(d)}}`, ',"ephemeral":false')),
  fc
    .tuple(id, text)
    .map(([m, d]) => delta(`{"messageId":${q(m)},"deltaContent":${q(d)}}`, ',"ephemeral":true,"x":2')),
  fc
    .tuple(id, text, fc.constantFrom(']', ' ', 'x', '"', ',', '}', '\r'))
    .map(([m, d, end]) => `${delta(`{"messageId":${q(m)},"deltaContent":${q(d)}}`)}${end}`),
  fc
    .tuple(id, text, fc.string({ maxLength: 3 }))
    .map(([m, d, x]) => delta(`{"messageId":${q(m)},"deltaContent":"${q(d).slice(1, -1)}",${x}"}`)),
  fc
    .tuple(id, text)
    .map(([m, d]) =>
      delta(`{"messageId":${q(m)},"deltaContent":${q(d)}}`).replace('"parentId":"e-0"', '"parentId":5'),
    ),
  fc
    .tuple(id, text)
    .map(([m, d]) =>
      delta(`{"messageId":${q(m)},"deltaContent":${q(d)}}`).replace('"id":"e-1"', '"id":"e\\u002d1"'),
    ),
  fc
    .tuple(id, text)
    .map(([m, d]) =>
      delta(`{"messageId":${q(m)},"deltaContent":${q(d)}}`).replace(
        '"timestamp":"2026-01-01T00:00:01.000Z",',
        '"timestamp":"2026-01-01T00:00:01.000Z","id":"e-2",',
      ),
    ),
  fc
    .tuple(id, text)
    .map(([m, d]) => delta(`{"messageId":${q(m)},"deltaContent":${q(d)}}`).replace('{"id"', '{ "id"')),
  fc
    .tuple(id, text)
    .map(([m, d]) =>
      delta(`{"messageId":${q(m)},"deltaContent":${q(d)}}`).replace('"id":"e-1"', '"id":"e\t1"'),
    ),
  fc
    .tuple(id, text)
    .map(([m, d]) =>
      delta(`{"messageId":${q(m)},"deltaContent":${q(d)}}`).replace('message_delta', 'message_start'),
    ),
);

// Records that set what a delta reads: the session, a run and its round, a message's end.
const context = fc.constantFrom(
  `{"id":"s","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","type":"session.start","data":{"sessionId":"sess-1","version":1,"producer":"copilot-agent","copilotVersion":"1"}}`,
  `{"id":"u","parentId":"s","timestamp":"2026-01-01T00:00:00.100Z","type":"user.message","data":{"content":"hi"}}`,
  `{"id":"t","parentId":"u","timestamp":"2026-01-01T00:00:00.200Z","type":"assistant.turn_start","data":{"turnId":"3"}}`,
  `{"id":"te","parentId":"t","timestamp":"2026-01-01T00:00:02.000Z","type":"assistant.turn_end","data":{"turnId":"3"}}`,
  `{"id":"sub","parentId":"t","timestamp":"2026-01-01T00:00:00.300Z","type":"subagent.started","data":{"toolCallId":"call-1","agentName":"x"}}`,
  `{"id":"am","parentId":"t","timestamp":"2026-01-01T00:00:03.000Z","type":"assistant.message","data":{"messageId":"m-1","content":"ab"}}`,
  `{"id":"i","parentId":"am","timestamp":"2026-01-01T00:00:04.000Z","type":"session.idle","data":{},"ephemeral":true}`,
);

const line = fc.oneof(
  { weight: 3, arbitrary: canonical },
  { weight: 3, arbitrary: nearMiss },
  { weight: 2, arbitrary: context },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.oneof(canonical, nearMiss), fc.nat(), fc.nat())
      .map(([l, a, b]) => l.slice(0, a % (l.length + 1)) + l.slice((a % (l.length + 1)) + (b % 3))),
  },
);

// A delta line, then lines spelled as it is up to its type key (so their `","type":"` sits where
// the delta had it) with another type or another text after that key, then the delta again: the
// decoder turns the middle ones away by a compare at the last delta's type key before its
// expression runs; they and the delta after them must read as the general path reads them.
const sibling = fc
  .tuple(
    canonical,
    fc.array(
      fc.oneof(
        fc.constantFrom(
          'assistant.message_start',
          'assistant.message_delt',
          'assistant.message_deltA',
          'assistant.message_delta ',
          'assistant.message_delta\\',
          'assistant.turn_end',
          'tool.execution_complete',
          '',
        ),
        fc.string({ maxLength: 4 }).map((x) => `assistant.message_delta${x.replace(/["\\]/g, '')}`),
      ),
      { minLength: 1, maxLength: 3 },
    ),
    fc.constantFrom(
      '","data":{"messageId":"',
      '","data":{"messageID":"',
      '","data": {"messageId":"',
      '","data":{"messageId" :"',
      '","data":{"deltaContent":"',
    ),
  )
  .map(([l, types, data]) => {
    const at = l.indexOf('","type":"') + '","type":"'.length;
    const rest = l.slice(l.indexOf('","data":{"messageId":"') + '","data":{"messageId":"'.length);
    return [l, ...types.map((t) => `${l.slice(0, at)}${t}${data}${rest}`), l];
  });

interface Decoded {
  events: AgentEvent[];
  diagnostics: Diagnostic[];
}

function decode(chunks: Uint8Array[], shortcut: boolean, maxDepth?: number): Decoded {
  const diagnostics: Diagnostic[] = [];
  const sink = { report: (d: Diagnostic) => diagnostics.push(d) };
  const options = maxDepth === undefined ? {} : { maxDepth };
  const decoder = lineChunkDecoder(
    'copilot',
    'jsonl',
    options,
    sink,
    new CopilotRecordDecoder(options, sink, shortcut),
  );
  const events: AgentEvent[] = [];
  for (const c of chunks) decoder.push(c, events);
  decoder.end(events);
  return { events, diagnostics };
}

// Deterministic ids and clock: a record written from the model gets the same ones either way.
function written(events: AgentEvent[]): string {
  let n = 0;
  return copilot.stringify(events, { idSource: () => `id-${++n}`, clock: () => 0 });
}

const enc = new TextEncoder();

describe('copilot decoder: the message_delta shortcut', () => {
  test('property: the shortcut and the general path agree (events, diagnostics, bytes written)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof({ weight: 4, arbitrary: line.map((l) => [l]) }, { weight: 1, arbitrary: sibling }),
          {
            minLength: 1,
            maxLength: 8,
          },
        ),
        fc.constantFrom('\n', '\r\n'),
        fc.array(fc.nat({ max: 9000 }), { maxLength: 6 }),
        // A bound of 0 or 1 refuses every envelope (it nests two levels): the shortcut must too.
        fc.constantFrom(undefined, 0, 1, 2, 3),
        (groups, eol, cuts, maxDepth) => {
          const lines = groups.flat();
          const bytes = enc.encode(lines.join(eol) + eol);
          const fast = decode(chunkAt(bytes, cuts), true, maxDepth);
          const general = decode([bytes], false, maxDepth);
          expect(fast).toEqual(general);
          // The same keys in the same order, and no own undefined.
          expect(JSON.stringify(fast.events)).toBe(JSON.stringify(general.events));
          for (const e of fast.events) expect(Object.values(e)).not.toContain(undefined);
          expect(written(fast.events)).toBe(written(general.events));
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('canonical lines take the shortcut: no JSON.parse of the line, the delta parsed alone', () => {
    const decoder = copilot.createDecoder();
    decoder.push(
      '{"id":"s","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","type":"session.start","data":{"sessionId":"sess-1"}}\n',
    );
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const events = [
        ...decoder.push(`${delta('{"messageId":"m-1","deltaContent":"plain"}')}\n`),
        ...decoder.push(`${delta('{"messageId":"m-1","deltaContent":"say \\"hi\\"\\n"}', '')}\n`),
      ];
      expect(parse.mock.calls.map((c) => c[0])).toEqual(['"say \\"hi\\"\\n"']);
      expect(events).toMatchObject([
        {
          type: 'text.delta',
          text: 'plain',
          message: 'm-1',
          session: 'sess-1',
          ts: Date.UTC(2026, 0, 1, 0, 0, 1),
        },
        { type: 'text.delta', text: 'say "hi"\n', message: 'm-1' },
      ]);
      expect(events[0]!.provenance!.hints!.record).toEqual(
        JSON.parse(`${delta('{"messageId":"m-1","deltaContent":"plain"}')}`),
      );
    } finally {
      parse.mockRestore();
    }
  });

  test('lines turned away at the last delta type key read by the general path; deltas after them take the shortcut', () => {
    const decoder = copilot.createDecoder();
    const start =
      '{"id":"s","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","type":"session.start","data":{"sessionId":"sess-1"}}';
    const first = delta('{"messageId":"m-1","deltaContent":"a"}');
    // Its type key where the delta had it, another type: turned away (the canonical reader takes it).
    const turnEnd = first.replace(
      '"type":"assistant.message_delta","data":{"messageId":"m-1","deltaContent":"a"}',
      '"type":"assistant.turn_end","data":{"turnId":"a"}',
    );
    // Longer ids: the type key elsewhere, the `d` of `message_delta` not where the last delta had
    // it; still a delta, taken by the expression.
    const longer = first.replace('"id":"e-1"', '"id":"e-1000"').replace('"m-1"', '"m-1000"');
    const parse = vi.spyOn(JSON, 'parse');
    let events: AgentEvent[];
    try {
      events = [...decoder.push(`${start}\n${first}\n${turnEnd}\n${longer}\n${first}\n`), ...decoder.end()];
      // Only the session start (not a spelling the canonical reader takes) is parsed whole.
      expect(parse.mock.calls.map((c) => c[0])).toEqual([start]);
    } finally {
      parse.mockRestore();
    }
    const general = decode([enc.encode(`${start}\n${first}\n${turnEnd}\n${longer}\n${first}\n`)], false);
    expect(events).toEqual(general.events);
    expect(general.diagnostics).toEqual([]);
  });
});
