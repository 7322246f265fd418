import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  NH_ENVELOPE_KEYS,
  NH_PAYLOAD_KEYS,
  NhEnvelope,
  type NhEventType,
  NhPayloads,
  validateNhEnvelope,
  validateNhPayload,
} from '../../src/formats/nativeharness/schema';
import { FUZZ_RUNS } from '../runs';

// The decoder checks the envelope and the frequent payloads with hand-written guards before
// zod. zod stays the single source of the wire types: these properties hold every guard equal
// to its schema on JSON values (what the decoder hands them), built from each record's own
// fields with values of every JSON type, valid-looking values, extra fields and missing fields.

const RUNS = FUZZ_RUNS * 10;

const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom('stdout', 'stderr', 'ok', 'error', 'denied', 'cancelled', 'x', ''),
  fc.constantFrom(0, 1, -1, 2 ** 53 - 1, 2 ** 53, -(2 ** 53), 1.5, 1e21, -1e-7),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
  fc.record({
    input_tokens: fc.integer(),
    output_tokens: fc.integer(),
    cost_usd: fc.double({ noNaN: true }),
  }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
);

// A record with each of `fields` taken from `valid` or overridden by an arbitrary value or
// dropped, plus arbitrary extra fields; then through JSON text, as the decoder sees it.
function record(fields: readonly string[], valid: fc.Arbitrary<Record<string, unknown>>) {
  return fc
    .tuple(
      valid,
      fc.array(fc.tuple(fc.constantFrom(...fields), value, fc.boolean()), { maxLength: fields.length + 2 }),
      fc.dictionary(fc.string({ maxLength: 4 }), value, { maxKeys: 2 }),
    )
    .map(([base, overrides, extra]) => {
      const r: Record<string, unknown> = { ...base };
      for (const [k, v, drop] of overrides) {
        if (drop) delete r[k];
        else r[k] = v;
      }
      for (const [k, v] of Object.entries(extra)) if (!(k in r)) r[k] = v;
      return JSON.parse(JSON.stringify(r)) as Record<string, unknown>;
    });
}

const usage = fc.record({
  input_tokens: fc.nat(),
  output_tokens: fc.nat(),
  cost_usd: fc.double({ noNaN: true, noDefaultInfinity: true }),
});
const VALID: Partial<Record<NhEventType, fc.Arbitrary<Record<string, unknown>>>> = {
  token: fc.record({ hop: fc.integer(), text: fc.string() }),
  output: fc.record({ call_id: fc.string(), stream: fc.constantFrom('stdout', 'stderr'), text: fc.string() }),
  hop: fc.record({
    hop: fc.nat(),
    text: fc.string(),
    tool_calls: fc.array(fc.string(), { maxLength: 3 }),
    stop_reason: fc.string(),
    usage,
  }),
  tool_started: fc.record(
    {
      hop: fc.nat(),
      call_id: fc.string(),
      tool: fc.string(),
      args: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
      command: fc.string(),
    },
    { requiredKeys: ['hop', 'call_id', 'tool', 'args'] },
  ),
  tool_result: fc.record(
    {
      hop: fc.nat(),
      call_id: fc.string(),
      tool: fc.string(),
      status: fc.constantFrom('ok', 'error', 'denied', 'cancelled'),
      exit_code: fc.option(fc.integer(), { nil: null }),
      files_changed: fc.array(fc.string(), { maxLength: 3 }),
      output: fc.string(),
      error: fc.string(),
    },
    { requiredKeys: ['hop', 'call_id', 'tool', 'status', 'exit_code', 'files_changed'] },
  ),
};

describe('nativeharness hand-written guards accept exactly what the zod schemas accept', () => {
  test('envelope', () => {
    const valid = fc.record({
      seq: fc.nat(),
      ts: fc.double({ noNaN: true, noDefaultInfinity: true }),
      type: fc.string(),
      workspace_id: fc.string(),
      session_id: fc.string(),
      turn_id: fc.option(fc.string(), { nil: null }),
      payload: fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
    });
    fc.assert(
      fc.property(record(NH_ENVELOPE_KEYS, valid), (r) => {
        expect(validateNhEnvelope(r) === undefined).toBe(NhEnvelope.safeParse(r).success);
      }),
      { numRuns: RUNS },
    );
  });

  for (const [type, valid] of Object.entries(VALID) as Array<
    [NhEventType, fc.Arbitrary<Record<string, unknown>>]
  >) {
    test(type, () => {
      fc.assert(
        fc.property(fc.oneof(record(NH_PAYLOAD_KEYS[type], valid), value), (p) => {
          expect(validateNhPayload(type, p) === undefined).toBe(NhPayloads[type].safeParse(p).success);
        }),
        { numRuns: RUNS },
      );
    });
  }
});
