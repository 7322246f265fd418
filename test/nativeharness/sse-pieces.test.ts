import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { type AgentEvent, nativeharness } from '../../src/all';
import { NH_TEMPLATES } from '../../src/formats/nativeharness/encode';
import {
  NH_SSE_HEADS,
  NH_SSE_PLAIN_TYPES,
  type NhSsePlainType,
  nhEnvelopeText,
  nhSseEnvelope,
  nhSseToken,
  nhTokenHead,
  nhTokenPayload,
  nhTypeIds,
} from '../../src/formats/nativeharness/wire';
import { escapesNothing, jsonString } from '../../src/json';
import { FUZZ_RUNS } from '../runs';

// The nativeharness writer builds the SSE block of its frequent envelopes from few pieces, some
// of them kept flat across events (docs/performance.md, round thirty-five: the sink that writes a
// block flattens it at a cost per piece). These hold those pieces to the envelope and the block
// spelled the way the general path spells them: `frame`'s SSE lines around `nhEnvelopeText`.

const digits = fc.nat({ max: 2 ** 40 }).map(String);
const value = fc.string({ unit: fc.constantFrom('a', ' ', '"', '\\', '\n', '\u0001', 'é', '😀', '\ud800') });
const ids = fc
  .tuple(value, value, fc.option(value, { nil: undefined }))
  .map(
    ([w, s, t]) =>
      `,"workspace_id":${jsonString(w)},"session_id":${jsonString(s)},"turn_id":${t === undefined ? 'null' : jsonString(t)},"payload":`,
  );
const type = fc.constantFrom<NhSsePlainType>(0, 1, 2, 3, 4);

// The block as `frame` writes the usual event: id and event lines, the envelope, a blank line.
function block(seq: string, ts: string, t: NhSsePlainType, idsPiece: string, payload: string): string {
  const name = NH_SSE_PLAIN_TYPES[t];
  return `id: ${seq}\nevent: ${name}\ndata: ${nhEnvelopeText(seq, ts, `"${name}"`, idsPiece, payload)}\n\n`;
}

describe('nativeharness SSE blocks from few pieces', () => {
  test('nhSseEnvelope is the envelope in its SSE block', () => {
    fc.assert(
      fc.property(digits, digits, type, ids, value, (seq, ts, t, idsPiece, text) => {
        const payload = nhTokenPayload('3', jsonString(text));
        expect(nhSseEnvelope(seq, ts, NH_SSE_HEADS[t]!, nhTypeIds(t, idsPiece), payload)).toBe(
          block(seq, ts, t, idsPiece, payload),
        );
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  test('nhSseToken is the token envelope in its SSE block, for a text with nothing to escape', () => {
    fc.assert(
      fc.property(digits, digits, digits, ids, value, (seq, ts, hop, idsPiece, text) => {
        fc.pre(escapesNothing(text));
        expect(nhSseToken(seq, ts, NH_SSE_HEADS[0]!, nhTokenHead(idsPiece, hop), text)).toBe(
          block(seq, ts, 0, idsPiece, nhTokenPayload(hop, jsonString(text))),
        );
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  test('escapesNothing: JSON spells the text as itself between quotes where it says so', () => {
    fc.assert(
      fc.property(value, (text) => {
        // (A surrogate pair, which JSON writes as it is, is left to JSON.stringify too.)
        if (escapesNothing(text)) expect(JSON.stringify(text)).toBe(`"${text}"`);
        else expect(/["\\\u0000-\u001f\ud800-\udfff]/.test(text)).toBe(true);
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  test('the kept pieces spell the type and the ids', () => {
    const piece = nhTypeIds(1, ',"workspace_id":"w","session_id":"s","turn_id":null,"payload":');
    expect(piece).toBe(',"type":"output","workspace_id":"w","session_id":"s","turn_id":null,"payload":');
    expect(NH_SSE_HEADS).toEqual(NH_SSE_PLAIN_TYPES.map((t) => `\nevent: ${t}\ndata: {"seq":`));
  });

  afterEach(() => {
    NH_TEMPLATES.enabled = true;
  });

  // The writer keeps the token head per ids and hop, the type-and-ids piece per type and ids:
  // a stream whose hop, turn and session move between events of one type, against the general path.
  test('the kept pieces of the writer follow the hop, the turn and the session', () => {
    const hep = { format: 'hep', line: 1, offset: 0 } as const;
    const events: AgentEvent[] = [
      { type: 'text.delta', text: 'one', round: 1, provenance: hep },
      { type: 'tool.output', call: 'c1', text: 'out', round: 1, provenance: hep },
      { type: 'text.delta', text: 'two', round: 2, provenance: hep },
      { type: 'round.end', message: 'onetwo', round: 2, provenance: hep },
      { type: 'text.delta', text: 'three', provenance: hep },
      { type: 'text.delta', text: 'four', run: 't2', provenance: hep },
      { type: 'tool.output', call: 'c1', text: 'out', run: 't2', provenance: hep },
      { type: 'text.delta', text: 'five', run: 't2', session: 's2', provenance: hep },
      { type: 'tool.output', call: 'c1', text: 'out', run: 't2', session: 's2', provenance: hep },
      { type: 'text.delta', text: 'six "q"', run: 't2', session: 's2', provenance: hep },
    ];
    const write = (templates: boolean): string => {
      NH_TEMPLATES.enabled = templates;
      const e = nativeharness.createEncoder({
        session: 's1',
        clock: () => 1700000000000,
        idSource: () => 'id',
      });
      return events.map((ev) => e.write(ev)).join('|');
    };
    const general = write(false);
    expect(general).toContain('"hop":2,"text":"two"');
    expect(write(true)).toBe(general);
  });
});
