import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  HEP_KEY_ORDER,
  type HepFrameType,
  HepMessageDeltaFrame,
  HepMessageStartFrame,
  HepToolDeltaFrame,
  HepToolStartFrame,
  hepFrameSpec,
  validateHepFrameSpec,
} from '../../src/formats/hep/wire';
import { FUZZ_RUNS } from '../runs';

// The decoder checks the frequent frames with hand-written guards before zod. zod stays the
// single source of the wire types: these properties hold every guard equal to its schema, on
// near-miss records built from each frame's own fields with values of every JSON type (and a
// few a JSON parser never yields), extra fields, and missing fields.

const RUNS = FUZZ_RUNS * 10;

const value = fc.oneof(
  fc.string(),
  fc.constantFrom('assistant', 'user', '', 'message_delta'),
  fc.integer(),
  fc.constantFrom(
    0,
    -0,
    1,
    -1,
    2 ** 53 - 1,
    2 ** 53,
    -(2 ** 53),
    1.5,
    1e21,
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);

// A record of `type`: each field of the frame present (with a valid-looking or arbitrary value)
// or missing, plus arbitrary extra fields.
function record(type: HepFrameType): fc.Arbitrary<Record<string, unknown>> {
  const fields = HEP_KEY_ORDER[type].filter((k) => k !== 'type');
  return fc
    .tuple(
      fc.array(fc.tuple(fc.constantFrom(...fields), value, fc.boolean()), { maxLength: fields.length + 2 }),
      fc.dictionary(fc.string({ maxLength: 4 }), value, { maxKeys: 2 }),
      fc.record({ turn_id: fc.integer(), delta: fc.string(), id: fc.string(), update: fc.string() }),
    )
    .map(([overrides, extra, valid]) => {
      const r: Record<string, unknown> = { type };
      for (const f of fields) {
        if (f in valid) r[f] = valid[f as keyof typeof valid];
        else if (f === 'name' || f === 'args_summary') r[f] = 'x';
        else if (f === 'role') r[f] = 'assistant';
      }
      for (const [k, v, drop] of overrides) {
        if (drop) delete r[k];
        else r[k] = v;
      }
      for (const [k, v] of Object.entries(extra)) if (!(k in r)) r[k] = v;
      return r;
    });
}

// Each guarded type with its schema as declared (not the compiled copy the decoder falls back to).
const GUARDED = {
  message_delta: HepMessageDeltaFrame,
  tool_delta: HepToolDeltaFrame,
  tool_start: HepToolStartFrame,
  message_start: HepMessageStartFrame,
} as const;

describe('HEP hand-written guards accept exactly what the zod schemas accept', () => {
  for (const [type, schema] of Object.entries(GUARDED) as Array<[HepFrameType, typeof HepToolStartFrame]>) {
    test(type, () => {
      const spec = hepFrameSpec(type)!;
      fc.assert(
        fc.property(record(type), (r) => {
          const guarded = validateHepFrameSpec(spec, r) === undefined;
          expect(guarded).toBe(schema.safeParse(r).success);
        }),
        { numRuns: RUNS },
      );
    });
  }

  test('every frame type resolves to its own spec; other strings to none', () => {
    for (const type of Object.keys(HEP_KEY_ORDER) as HepFrameType[]) {
      // A fresh string, as JSON.parse returns for values longer than 10 characters.
      const fresh = JSON.parse(JSON.stringify(type)) as string;
      expect(hepFrameSpec(fresh)?.type).toBe(type);
    }
    for (const other of ['', 'message_deltA', 'tool', 'turn_done ', 'constructor', '__proto__', 'toString']) {
      expect(hepFrameSpec(other)).toBeUndefined();
    }
  });
});
