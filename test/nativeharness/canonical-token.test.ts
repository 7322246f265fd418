import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, nativeharness } from '../../src/all';
import type { Diagnostic } from '../../src/diagnostics';
import { NhEnvelopeDecoder, nhCanonicalTokens } from '../../src/formats/nativeharness/decode';
import { depth, mostly, spell, spelling } from '../canonical-lines';
import { text as anyText } from '../kept-suite';
import { FUZZ_RUNS } from '../runs';
import { expectSamePaths, type WholeEventsCase } from '../whole-events';

// The nativeharness decoder's token reader (src/formats/nativeharness/decode.ts
// `NhEnvelopeDecoder.token`: a `token` envelope spelled as the writers spell it, read without
// `JSON.parse`) held equal to the general path: on token envelopes as written and near misses of
// them (keys moved, extra keys, spaces, numbers spelled otherwise, `\u` escapes, raw control
// characters, CRLF, a character inserted, removed or replaced anywhere, another type's name, a
// null turn, ids and texts that need escapes), in SSE blocks whose id and event mostly say the
// envelope's seq and type and sometimes not, and as JSON Lines: the decoder gives the same events,
// diagnostics and written bytes with the reader on or off, in any chunking and under any depth
// bound.

type Rec = Record<string, unknown>;

const text = fc.oneof(
  anyText,
  fc.constantFrom('', 'say "hi"', 'a\\b', '§', 'x\u0001y', '"}}', '}}', ',"text":"', 'token'),
);
const id = mostly(fc.constantFrom('default', 's-bench-1', 'ed9e9bfe-e845-4a8c-a710-1ff5bc47cdc6'), text);
const digits = mostly(fc.nat({ max: 100000 }), fc.constantFrom<unknown>(1.5, -3, 1e21, 2 ** 53 + 2, 0, '1'));
const stamp = mostly(
  fc.constantFrom(1796340152908, 1796340152916),
  fc.constantFrom<unknown>(1.5, -3, 0, 1e21, null),
);
const type = mostly(fc.constant('token'), fc.constantFrom('output', 'hop', 'tokens', 'x'));

const envelope: fc.Arbitrary<Rec> = fc.record({
  seq: digits,
  ts: stamp,
  type,
  workspace_id: id,
  session_id: id,
  turn_id: mostly(id, fc.constant<string | null>(null)),
  payload: mostly(
    fc.record({ hop: digits, text }),
    fc.constantFrom<unknown>({ text: 'x' }, { hop: 1 }, { hop: 1, text: 'x', extra: 2 }, 'x', {}),
  ),
});

const line = fc
  .tuple(envelope, spelling)
  .map(([r, how]) => ({ r, text: spell(r, how, 'payload', /("(?:seq|ts|hop)":)(\d+)/) }));

/** An SSE block around the line: its id and event mostly the envelope's seq and type. */
const block = fc
  .tuple(
    line,
    fc.constantFrom<'seq' | 'none' | 'other' | '0-padded'>('seq', 'seq', 'seq', 'none', 'other', '0-padded'),
    fc.constantFrom<'type' | 'none' | 'token'>('type', 'type', 'none', 'token'),
  )
  .map(([{ r, text }, idHow, eventHow]) => {
    const seq = String(r.seq);
    const idLine =
      idHow === 'seq'
        ? `id: ${seq}\n`
        : idHow === 'other'
          ? 'id: 7\n'
          : idHow === '0-padded'
            ? `id: 0${seq}\n`
            : '';
    const eventLine =
      eventHow === 'type' ? `event: ${String(r.type)}\n` : eventHow === 'token' ? 'event: token\n' : '';
    return `${idLine}${eventLine}data: ${text.replace(/[\r\n]/g, ' ')}\n\n`;
  });

const OPENING_RECORD =
  '{"seq":1,"ts":1796340152908,"type":"session_created","workspace_id":"default","session_id":"s-bench-1","turn_id":null,"payload":{"v":1,"actor":"user","mode":"default","producer":"0.42.0"}}';

function written(events: AgentEvent[], framing: 'sse' | 'jsonl'): string {
  try {
    return nativeharness.stringify(events, { framing, idSource: () => 'id', clock: () => 0 });
  } catch (error) {
    return `threw: ${String(error)}`;
  }
}

const SSE: WholeEventsCase = {
  codec: nativeharness,
  whole: nhCanonicalTokens,
  write: (events) => written(events, 'sse'),
};
const JSONL: WholeEventsCase = { ...SSE, write: (events) => written(events, 'jsonl') };

// The events and diagnostics of `input` decoded under `maxDepth` with the reader on or off.
function decodeAt(input: string, maxDepth: number, on: boolean): { json: string; diagnostics: Diagnostic[] } {
  nhCanonicalTokens.enabled = on;
  try {
    const diagnostics: Diagnostic[] = [];
    const d = nativeharness.createDecoder({ maxDepth, onDiagnostic: (x) => diagnostics.push(x) });
    const events = [...d.push(Buffer.from(input)), ...d.end()];
    return { json: JSON.stringify(events), diagnostics };
  } finally {
    nhCanonicalTokens.enabled = true;
  }
}

describe('nativeharness decoder: the token reader beside JSON.parse', () => {
  test('SSE: the same events, diagnostics and written bytes, in any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(block, { minLength: 1, maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (blocks, cuts) => {
          expectSamePaths(
            SSE,
            `id: 1\nevent: session_created\ndata: ${OPENING_RECORD}\n\n${blocks.join('')}`,
            cuts,
          );
        },
      ),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });

  test('JSON Lines: the same events, diagnostics and written bytes, in any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (lines, cuts) => {
          const input = `${OPENING_RECORD}\n${lines.map((l) => `${l.text.replace(/\n/g, ' ')}\n`).join('')}`;
          expectSamePaths(JSONL, input, cuts);
        },
      ),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });

  test('the same under any depth bound', () => {
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 6 }), depth, (blocks, maxDepth) => {
        const input = `id: 1\nevent: session_created\ndata: ${OPENING_RECORD}\n\n${blocks.join('')}`;
        const on = decodeAt(input, maxDepth, true);
        const off = decodeAt(input, maxDepth, false);
        expect(on.json).toBe(off.json);
        expect(on.diagnostics).toEqual(off.diagnostics);
      }),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });

  test('takes the writers’ token envelopes (the properties are not vacuous)', () => {
    const head =
      '{"seq":3,"ts":1796340152916,"type":"token","workspace_id":"default","session_id":"s-bench-1","turn_id":"ed9e9bfe-e845-4a8c-a710-1ff5bc47cdc6","payload":{"hop":1,"text":';
    const take = (text: string, id: string | undefined): AgentEvent[] | undefined => {
      const d = new NhEnvelopeDecoder({ report: () => {} });
      const out: AgentEvent[] = [];
      return d.token(text, id, 1, 0, out) ? out : undefined;
    };
    const plain = `${head}"true and more"}}`;
    const escaped = `${head}"true and \\"quoted\\"\\nline"}}`;
    expect(take(plain, '3')?.[0]).toMatchObject({
      type: 'text.delta',
      seq: 3,
      round: 1,
      text: 'true and more',
    });
    expect(take(escaped, '3')?.[0]).toMatchObject({ text: 'true and "quoted"\nline' });
    expect(take(plain, undefined)).toBeDefined();
    // Another id, another type, a null turn, another number spelling, more after the text.
    expect(take(plain, '4')).toBeUndefined();
    expect(take(plain.replace('"token"', '"output"'), '3')).toBeUndefined();
    expect(take(plain.replace('"ed9e9bfe-e845-4a8c-a710-1ff5bc47cdc6"', 'null'), '3')).toBeUndefined();
    expect(take(plain.replace('"hop":1', '"hop":1.0'), '3')).toBeUndefined();
    expect(take(plain.replace('}}', ',"x":1}}'), '3')).toBeUndefined();
    expect(take(`${head}"a"} }`, '3')).toBeUndefined();
  });
});
