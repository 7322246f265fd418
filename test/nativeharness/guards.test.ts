import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { NhEnvelope, NhPayloads } from '../../src/formats/nativeharness/schema';
import {
  isValidEnvelope,
  NH_ENVELOPE_KEYS,
  NH_PAYLOAD_GUARDS,
  NH_PAYLOAD_KEYS,
  type NhEventType,
  validateNhEnvelope,
  validateNhPayload,
} from '../../src/formats/nativeharness/wire';
import { schemaProblems } from '../../src/guards';
import { isJsonObject, type JsonObject } from '../../src/json';
import { FUZZ_RUNS } from '../runs';

// The decoder checks the envelope and every payload with hand-written guards; zod runs only for
// a rejected record, to write the report. zod stays the single source of the wire types: these
// properties hold every guard, called alone, equal to its schema on JSON values (what the decoder hands them), built from each record's own
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
const str = fc.string({ maxLength: 4 });
const runStatus = fc.constantFrom('completed', 'failed', 'cancelled');
const VALID: Record<NhEventType, fc.Arbitrary<Record<string, unknown>>> = {
  session_created: fc.record(
    { v: fc.integer(), actor: str, mode: str, title: str, producer: str },
    { requiredKeys: ['v', 'actor', 'mode'] },
  ),
  title: fc.record({ title: str }),
  turn_started: fc.record({ input: str }),
  progress: fc.record({ status: str, detail: str }, { requiredKeys: ['status'] }),
  approval_required: fc.record(
    {
      approval_id: str,
      call_id: str,
      tool: str,
      title: str,
      effects: fc.array(str, { maxLength: 2 }),
      options: fc.array(
        fc.oneof(
          fc.record({ option_id: str, label: str, kind: str }),
          fc.record({ option_id: str, label: str }),
        ),
        { maxLength: 2 },
      ),
    },
    { requiredKeys: ['approval_id', 'tool', 'title', 'effects', 'options'] },
  ),
  approval_resolved: fc.record(
    { approval_id: str, decision: str, by: str, option_id: str },
    { requiredKeys: ['approval_id', 'decision', 'by'] },
  ),
  ask_user: fc.record({
    question_id: str,
    questions: fc.array(
      fc.record(
        {
          id: str,
          text: fc.oneof(str, fc.integer()),
          options: fc.array(fc.record({ option_id: str, label: fc.oneof(str, fc.constant(null)) }), {
            maxLength: 2,
          }),
          multiple: fc.oneof(fc.boolean(), fc.constant(0)),
        },
        { requiredKeys: ['id', 'text'] },
      ),
      { maxLength: 2 },
    ),
  }),
  child_started: fc.record({ child_id: str, name: str, task: str }, { requiredKeys: ['child_id', 'task'] }),
  child_done: fc.record(
    { child_id: str, status: fc.oneof(runStatus, str), result: str },
    { requiredKeys: ['child_id', 'status'] },
  ),
  compacted: fc.record({ tokens_freed: fc.integer() }),
  error: fc.record(
    { message: str, recoverable: fc.boolean(), code: str },
    { requiredKeys: ['message', 'recoverable'] },
  ),
  cancelled: fc.record({ by: str }),
  done: fc.record({ status: runStatus, stop_reason: str, usage: fc.oneof(usage, value) }),
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
      args_summary: fc.string(),
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
    let accepted = 0;
    fc.assert(
      fc.property(record(NH_ENVELOPE_KEYS, valid), (r) => {
        const ok = NhEnvelope.safeParse(r).success;
        expect(isValidEnvelope(r)).toBe(ok);
        if (ok) accepted++;
      }),
      { numRuns: RUNS },
    );
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThan(RUNS);
  });

  for (const [type, valid] of Object.entries(VALID) as Array<
    [NhEventType, fc.Arbitrary<Record<string, unknown>>]
  >) {
    test(type, () => {
      // A rare type has no guard: its shape decides (validateNhPayload finds nothing wrong).
      const guard = NH_PAYLOAD_GUARDS[type] ?? ((p: JsonObject) => validateNhPayload(type, p) === undefined);
      let accepted = 0;
      fc.assert(
        fc.property(fc.oneof(record(NH_PAYLOAD_KEYS[type], valid), value), (p) => {
          // The guard alone (the decoder hands it JSON objects only), against the schema alone.
          const ok = NhPayloads[type].safeParse(p).success;
          expect(isJsonObject(p) && guard(p)).toBe(ok);
          if (ok) accepted++;
        }),
        { numRuns: RUNS },
      );
      expect(accepted).toBeGreaterThan(0);
      expect(accepted).toBeLessThan(RUNS);
    });
  }
});

// A rejected record's report is written from its shape (NH_ENVELOPE_SHAPE, NH_PAYLOAD_SHAPES),
// not by zod: held equal, byte for byte, to the report zod gives with the record's schema, on the
// same near-miss records and on values that are not objects.
describe("nativeharness reports are the zod schemas' reports, written without zod", () => {
  const other = fc.oneof(value, fc.constantFrom<unknown>(undefined, [], new Date(0), Object.create(null)));

  test('envelope', () => {
    const valid = fc.record({
      seq: fc.integer({ min: -3, max: 1000 }),
      ts: fc.double({ noNaN: true, noDefaultInfinity: true }),
      type: fc.string(),
      workspace_id: fc.string(),
      session_id: fc.string(),
      turn_id: fc.option(fc.string(), { nil: null }),
      payload: fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
    });
    let rejected = 0;
    fc.assert(
      fc.property(fc.oneof(record(NH_ENVELOPE_KEYS, valid), other), (r) => {
        const expected = schemaProblems(NhEnvelope, r);
        if (expected !== undefined) rejected++;
        expect(validateNhEnvelope(r)).toBe(expected);
      }),
      { numRuns: RUNS },
    );
    expect(rejected).toBeGreaterThan(0);
  });

  for (const [type, valid] of Object.entries(VALID) as Array<
    [NhEventType, fc.Arbitrary<Record<string, unknown>>]
  >) {
    test(type, () => {
      let rejected = 0;
      fc.assert(
        fc.property(fc.oneof(record(NH_PAYLOAD_KEYS[type], valid), other), (p) => {
          const expected = schemaProblems(NhPayloads[type], p, 'payload.');
          if (expected !== undefined) rejected++;
          expect(validateNhPayload(type, p)).toBe(expected);
        }),
        { numRuns: RUNS },
      );
      expect(rejected).toBeGreaterThan(0);
    });
  }
});
