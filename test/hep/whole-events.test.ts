import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { hep } from '../../src/all';
import { FUZZ_RUNS } from '../runs';

// The HEP decoder builds `text.delta` and `tool.output` each in one object literal per shape (with
// or without the session a header stamps) instead of adding `session` to a literal: the hidden
// class of a literal outlives a full GC (docs/performance.md, "HEP `createDecoder`", Round four).
// Goldens normalise top-level key order and every fixture has a header: these pin both shapes,
// with their keys in the order the events always had.

const HEADER = '{"type":"hep_header","hep":"v1","fah":"0.42.0","session":"s-1"}';

const frame = fc.oneof(
  fc.record({ turn: fc.nat(), delta: fc.string() }).map(({ turn, delta }) => ({
    line: JSON.stringify({ type: 'message_delta', turn_id: turn, delta }),
    event: { type: 'text.delta', text: delta, round: turn },
  })),
  fc.record({ turn: fc.nat(), id: fc.string(), update: fc.string() }).map(({ turn, id, update }) => ({
    line: JSON.stringify({ type: 'tool_delta', turn_id: turn, id, update }),
    event: { type: 'tool.output', call: id, text: update, round: turn },
  })),
);

describe('HEP decoder: text.delta and tool.output built whole', () => {
  test('with and without a session, the same fields in the same order', () => {
    fc.assert(
      fc.property(fc.array(frame, { minLength: 1, maxLength: 8 }), fc.boolean(), (frames, header) => {
        const lines = frames.map((f) => f.line);
        const text = `${(header ? [HEADER, ...lines] : lines).join('\n')}\n`;
        const events = hep
          .parse(text)
          .events.filter((e) => e.type === 'text.delta' || e.type === 'tool.output');
        expect(events.length).toBe(frames.length);
        events.forEach((e, i) => {
          const { provenance, ...rest } = e;
          const expected: Record<string, unknown> = { ...frames[i]!.event };
          const keys = [...Object.keys(expected), 'provenance'];
          if (header) {
            expected.session = 's-1';
            keys.push('session');
          }
          expect(rest).toEqual(expected);
          expect(Object.keys(e)).toEqual(keys);
          expect(provenance?.line).toBe(i + (header ? 2 : 1));
        });
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});

// Round seven builds the other events `map` makes on the frequent path the same way (one literal
// with or without `session`, and for `tool.start` with or without the args read from a JSON
// summary). Their keys, in the order the events always had them:
const SHAPES: Array<{ line: (turn: number) => string; type: string; keys: string[] }> = [
  {
    line: (t) => `{"type":"agent_start","turn_id":${t}}`,
    type: 'run.start',
    keys: ['type', 'round', 'provenance'],
  },
  {
    line: (t) => `{"type":"message_start","turn_id":${t},"role":"assistant"}`,
    type: 'message.start',
    keys: ['type', 'role', 'round', 'provenance'],
  },
  {
    line: (t) => `{"type":"tool_start","turn_id":${t},"id":"c1","name":"read","args_summary":"path=\\"a\\""}`,
    type: 'tool.start',
    keys: ['type', 'call', 'name', 'argsSummary', 'round', 'provenance'],
  },
  {
    line: (t) =>
      `{"type":"tool_start","turn_id":${t},"id":"c1","name":"read","args_summary":"{\\"path\\":\\"a\\"}"}`,
    type: 'tool.start',
    keys: ['type', 'call', 'name', 'argsSummary', 'round', 'provenance', 'args'],
  },
  {
    line: (t) =>
      `{"type":"turn_done","turn_id":${t},"message":"m","tool_results":[{"id":"c1","name":"read","ok":true,"text":"x"}],"usage":{"input":1,"output":2,"cost":0.5},"stop_reason":"toolUse"}`,
    type: 'tool.end',
    keys: ['type', 'call', 'name', 'ok', 'text', 'round', 'provenance'],
  },
  {
    line: (t) =>
      `{"type":"turn_done","turn_id":${t},"message":"m","tool_results":[],"usage":{"input":1,"output":2,"cost":0.5},"stop_reason":"stop"}`,
    type: 'round.end',
    keys: ['type', 'message', 'stopReason', 'usage', 'round', 'provenance'],
  },
  {
    line: (t) => `{"type":"turn_error","turn_id":${t},"error":"boom","fatal":false}`,
    type: 'error',
    keys: ['type', 'message', 'fatal', 'round', 'provenance'],
  },
  {
    line: (t) => `{"type":"cancelled","turn_id":${t}}`,
    type: 'cancel',
    keys: ['type', 'round', 'provenance'],
  },
];

describe('HEP decoder: the other frequent events built whole', () => {
  test('with and without a session, the same fields in the same order', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SHAPES), fc.nat(), fc.boolean(), (shape, turn, header) => {
        const lines = [shape.line(turn)];
        const text = `${(header ? [HEADER, ...lines] : lines).join('\n')}\n`;
        const { events } = hep.parse(text);
        const e = events.find((x) => x.type === shape.type);
        expect(Object.keys(e ?? {})).toEqual(header ? [...shape.keys, 'session'] : shape.keys);
        expect(e?.round).toBe(turn);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});
