import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { agui, aisdk } from '../../src/all';
import { carriedGuard, eventFromCarried, isPlainToolOutput } from '../../src/framing/carry';
import { type JsonObject, setOwn } from '../../src/json';
import { validateEvent } from '../../src/model';
import { FUZZ_RUNS } from '../runs';

// The UI decoders read a carried `tool.output` (an AG-UI `CUSTOM`, an AI SDK `data-*` part) with
// a hand-written guard before zod: it may only accept what the schema accepts, and reading a
// stream with it must give what reading it with zod alone gives (the switch turns it off).

const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom('stdout', 'stderr', 'STDOUT', '', 'x', 'tool.output', 'text.delta'),
  fc.constantFrom(0, -1, 1.5, 2 ** 53, 1e21, Number.POSITIVE_INFINITY, Number.NaN, -0),
);
const key = fc.constantFrom(
  'type',
  'call',
  'text',
  'stream',
  'ts',
  'lane',
  'round',
  'run',
  'session',
  'seq',
  'context',
  'provenance',
  '__proto__',
  'constructor',
  'extra',
);

/** A carried value: a valid tool.output's fields, some replaced, dropped or added. */
const carried: fc.Arbitrary<JsonObject> = fc
  .tuple(
    fc.record(
      {
        call: fc.string({ maxLength: 4 }),
        text: fc.string({ maxLength: 8 }),
        stream: fc.constantFrom('stdout', 'stderr'),
        ts: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
        lane: fc.string({ maxLength: 3 }),
      },
      { requiredKeys: [] },
    ),
    fc.array(fc.tuple(key, value, fc.boolean()), { maxLength: 4 }),
  )
  .map(([base, edits]) => {
    const v: JsonObject = {};
    for (const [k, x] of Object.entries(base)) v[k] = x;
    for (const [k, x, drop] of edits) {
      if (drop) delete v[k];
      else setOwn(v, k, x);
    }
    return v;
  });

function withGuard<T>(on: boolean, run: () => T): T {
  const was = carriedGuard.enabled;
  carriedGuard.enabled = on;
  try {
    return run();
  } finally {
    carriedGuard.enabled = was;
  }
}

describe('the carried tool.output guard', () => {
  test('accepts only what the schema accepts', () => {
    fc.assert(
      fc.property(carried, (v) => {
        const candidate: JsonObject = { type: 'tool.output' };
        for (const k of Object.keys(v)) setOwn(candidate, k, v[k]);
        if (isPlainToolOutput(candidate)) expect(validateEvent(candidate).success).toBe(true);
      }),
      { numRuns: FUZZ_RUNS * 10 },
    );
  });

  test('accepts a plain tool.output (the guard is used)', () => {
    expect(isPlainToolOutput({ type: 'tool.output', call: 'c', text: 't' })).toBe(true);
    expect(isPlainToolOutput({ type: 'tool.output', call: 'c', text: 't', stream: 'stderr', ts: 1.5 })).toBe(
      true,
    );
  });

  test('eventFromCarried gives the same with and without the guard', () => {
    fc.assert(
      fc.property(fc.constantFrom('tool.output', 'tool.liveness', 'text.delta'), carried, (type, v) => {
        const on = withGuard(true, () => eventFromCarried(type, v));
        const off = withGuard(false, () => eventFromCarried(type, v));
        expect(on).toEqual(off);
      }),
      { numRuns: FUZZ_RUNS * 10 },
    );
  });

  test('both decoders read the same streams with and without it, in every chunking', () => {
    const streams = fc.tuple(fc.array(carried, { minLength: 1, maxLength: 4 }), fc.boolean(), fc.nat());
    fc.assert(
      fc.property(streams, ([values, sse, cut]) => {
        for (const [codec, record] of [
          [agui, (v: JsonObject) => ({ type: 'CUSTOM', name: 'agentwire.tool.output', value: v })],
          [aisdk, (v: JsonObject) => ({ type: 'data-agentwire.tool.output', data: v })],
        ] as const) {
          const lines = values.map((v) => JSON.stringify(record(v)));
          const wire = sse ? lines.map((l) => `data: ${l}\n\n`).join('') : `${lines.join('\n')}\n`;
          const bytes = new TextEncoder().encode(wire);
          const at = bytes.length === 0 ? 0 : cut % bytes.length;
          const read = (on: boolean) =>
            withGuard(on, () => {
              const diagnostics: unknown[] = [];
              const d = codec.createDecoder({ onDiagnostic: (x) => diagnostics.push(x) });
              const events = [...d.push(bytes.subarray(0, at)), ...d.push(bytes.subarray(at)), ...d.end()];
              return { events, diagnostics };
            });
          expect(read(true)).toEqual(read(false));
        }
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});
