import fc from 'fast-check';
import { describe, expect, test, vi } from 'vitest';
import type * as z from 'zod/mini';
import {
  HepAgentStartFrame,
  HepCancelledFrame,
  HepCompactionEndFrame,
  HepCompactionStartFrame,
  HepHeaderFrame,
  HepMessageDeltaFrame,
  HepMessageStartFrame,
  HepToolDeltaFrame,
  HepToolLivenessFrame,
  HepToolStartFrame,
  HepTurnDoneFrame,
  HepTurnErrorFrame,
} from '../../src/formats/hep/schema';
import {
  HEP_GUARDS,
  HEP_KEY_ORDER,
  type HepFrameType,
  hepFrameSpec,
  validateHepFrame,
  validateHepFrameSpec,
} from '../../src/formats/hep/wire';
import { schemaProblems } from '../../src/guards';
import { FUZZ_RUNS } from '../runs';

// The decoder checks every frame with a hand-written guard; zod runs only for a rejected frame,
// to write the report. zod stays the single source of the wire types: these properties hold
// every guard, called alone, equal to its schema, on
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

// A nested object: valid fields, some overridden by arbitrary values or dropped.
function nested(valid: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(valid);
  return fc
    .tuple(
      fc.record(valid),
      fc.array(fc.tuple(fc.constantFrom(...keys), value, fc.boolean()), { maxLength: 2 }),
    )
    .map(([base, overrides]) => {
      const r: Record<string, unknown> = { ...base };
      for (const [k, v, drop] of overrides) {
        if (drop) delete r[k];
        else r[k] = v;
      }
      return r;
    });
}

const toolResult = nested({ id: fc.string(), name: fc.string(), ok: fc.boolean(), text: fc.string() });
const usage = nested({ input: fc.integer(), output: fc.integer(), cost: fc.double() });

// A valid-looking value of every field of every frame, so that valid frames are common too.
const VALID = fc.record({
  turn_id: fc.integer(),
  delta: fc.string(),
  id: fc.string(),
  update: fc.string(),
  name: fc.string(),
  args_summary: fc.string(),
  role: fc.constant('assistant'),
  hep: fc.string(),
  fah: fc.string(),
  session: fc.string(),
  action: fc.string(),
  elapsed_ms: fc.integer(),
  output_bytes: fc.integer(),
  detail: fc.string(),
  message: fc.string(),
  tool_results: fc.oneof(fc.array(toolResult, { maxLength: 3 }), value),
  usage: fc.oneof(usage, value),
  stop_reason: fc.string(),
  error: fc.string(),
  fatal: fc.boolean(),
  tokens_freed: fc.integer(),
});

// A record of `type`: each field of the frame present (with a valid-looking or arbitrary value)
// or missing, plus arbitrary extra fields.
function record(type: HepFrameType): fc.Arbitrary<Record<string, unknown>> {
  const fields = HEP_KEY_ORDER[type].filter((k) => k !== 'type');
  return fc
    .tuple(
      fc.array(fc.tuple(fc.constantFrom(...fields), value, fc.boolean()), { maxLength: fields.length + 2 }),
      fc.dictionary(fc.string({ maxLength: 4 }), value, { maxKeys: 2 }),
      VALID,
    )
    .map(([overrides, extra, valid]) => {
      const r: Record<string, unknown> = { type };
      for (const f of fields) r[f] = valid[f as keyof typeof valid];
      for (const [k, v, drop] of overrides) {
        if (drop) delete r[k];
        else r[k] = v;
      }
      for (const [k, v] of Object.entries(extra)) if (!(k in r)) r[k] = v;
      return r;
    });
}

// Every frame type with its schema as declared.
const SCHEMAS: Record<HepFrameType, z.ZodMiniType> = {
  hep_header: HepHeaderFrame,
  agent_start: HepAgentStartFrame,
  message_start: HepMessageStartFrame,
  message_delta: HepMessageDeltaFrame,
  tool_start: HepToolStartFrame,
  tool_delta: HepToolDeltaFrame,
  tool_liveness: HepToolLivenessFrame,
  turn_done: HepTurnDoneFrame,
  turn_error: HepTurnErrorFrame,
  cancelled: HepCancelledFrame,
  compaction_start: HepCompactionStartFrame,
  compaction_end: HepCompactionEndFrame,
};

describe('HEP hand-written guards accept exactly what the zod schemas accept', () => {
  for (const type of Object.keys(SCHEMAS) as HepFrameType[]) {
    test(type, () => {
      const guard = HEP_GUARDS[type];
      const schema = SCHEMAS[type];
      let accepted = 0;
      fc.assert(
        fc.property(record(type), (r) => {
          // The guard alone (no zod behind it), against the schema alone.
          const ok = schema.safeParse(r).success;
          expect(guard(r)).toBe(ok);
          if (ok) accepted++;
        }),
        { numRuns: RUNS },
      );
      // Both outcomes were exercised: a guard that rejects everything would not pass.
      expect(accepted).toBeGreaterThan(0);
      expect(accepted).toBeLessThan(RUNS);
    });
  }

  test('the decoder validates through the guard first, and words a report without zod', () => {
    const spec = hepFrameSpec('turn_done')!;
    const r = {
      type: 'turn_done',
      turn_id: 1,
      message: '',
      tool_results: [{ id: 'a', name: 'b', ok: true, text: '' }],
      usage: { input: 1, output: 2, cost: 0.5 },
      stop_reason: 'stop',
    };
    const spy = vi.spyOn(HepTurnDoneFrame, 'safeParse');
    expect(validateHepFrameSpec(spec, r)).toBeUndefined();
    expect(validateHepFrameSpec(spec, { ...r, turn_id: 1.5 })).toBe('turn_id: Invalid input');
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });

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

// A rejected frame's report is written from the frame's shape (HEP_SHAPES), not by zod: these
// properties hold it equal, byte for byte, to the report zod gives with the frame's schema, on
// the same near-miss records, and on values that are not objects at all.
describe("HEP reports are the zod schemas' reports, written without zod", () => {
  const notObject = fc.oneof(value, fc.constantFrom<unknown>([], [1], new Date(0), Object.create(null)));
  for (const type of Object.keys(SCHEMAS) as HepFrameType[]) {
    test(type, () => {
      const schema = SCHEMAS[type];
      let rejected = 0;
      fc.assert(
        fc.property(fc.oneof(record(type), record(type), notObject), (r) => {
          const expected = schemaProblems(schema, r);
          if (expected !== undefined) rejected++;
          expect(validateHepFrame(type, r)).toBe(expected);
        }),
        { numRuns: RUNS },
      );
      expect(rejected).toBeGreaterThan(0);
    });
  }

  test("a report names at most three problems, in the schema's order", () => {
    const r = { type: 'tool_liveness', turn_id: 'x', id: 1, name: 2, action: 3, elapsed_ms: 1.5 };
    expect(validateHepFrame('tool_liveness', r)).toBe(schemaProblems(HepToolLivenessFrame, r));
    expect(validateHepFrame('tool_liveness', r)).toBe(
      'turn_id: Invalid input; id: Invalid input; name: Invalid input',
    );
    const done = {
      type: 'turn_done',
      turn_id: 1,
      message: '',
      tool_results: [{}, 5],
      usage: [],
      stop_reason: '',
    };
    expect(validateHepFrame('turn_done', done)).toBe(schemaProblems(HepTurnDoneFrame, done));
    expect(validateHepFrame('cancelled', 7)).toBe('(record): Invalid input');
  });
});
