import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type * as z from 'zod/mini';
import {
  HighbarHelloRecord,
  HighbarToolRecord,
  HighbarToolsRecord,
  HighbarTurnRecord,
  HighbarV0Record,
} from '../../src/formats/highbar/schema';
import {
  type HighbarRecordType,
  passesHighbarGuard,
  validateHighbarRecord,
} from '../../src/formats/highbar/wire';
import { schemaProblems } from '../../src/guards';

// The decoder's hand-written guard against the zod schemas it shortcuts: on JSON records (what
// the decoder has) both accept the same records; on anything else the guard never accepts what
// zod rejects (it leaves those to zod).

const ABSENT = Symbol('absent');

class Thing {
  x = 1;
}

// Values for any field: valid for some fields, near misses for others.
const jsonField = fc.oneof(
  fc.constant(ABSENT),
  fc.string({ maxLength: 8 }),
  fc.constantFrom(0, 1, -0, 2, 1.5, -7, 2 ** 53, 2 ** 53 - 1, -(2 ** 53) + 1, 1e300),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 4 }), { maxLength: 4 }),
  fc.array(fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null)), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  fc.constantFrom({}, { constructor: 'x' }, { constructor: { prototype: 1 } }),
  fc.constant(JSON.parse('{"__proto__": {"a": 1}, "constructor": 5}')),
  fc.constantFrom('tool', 'turn', 'hello', 'tools', 'v0'),
);
const anyField = fc.oneof(
  jsonField,
  fc.constantFrom<unknown>(undefined, Object.create(null), new Thing(), new Date(0), [1, 'a']),
);

const FIELDS = ['v', 'type', 'fn', 'args', 'context', 'message', 'response', 'sdk', 'pid', 'tools', 'names'];

function recordOf(values: unknown[], type: string, keepType: boolean, v: unknown): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  if (v !== ABSENT) r.v = v;
  if (keepType) r.type = type;
  FIELDS.forEach((k, i) => {
    if (k === 'v' || k === 'type') return;
    const x = values[i];
    if (x !== ABSENT) r[k] = x;
  });
  return r;
}

const TYPES: Array<HighbarRecordType | 'v0'> = ['tool', 'turn', 'hello', 'tools', 'v0'];

function arbitraryRecord(field: fc.Arbitrary<unknown>) {
  return fc.record({
    type: fc.constantFrom(...TYPES),
    values: fc.array(field, { minLength: FIELDS.length, maxLength: FIELDS.length }),
    keepType: fc.boolean(),
    v: fc.oneof(fc.constantFrom<unknown>(1, 0, ABSENT), field),
    // Mostly valid records, so acceptance is exercised as much as rejection.
    fix: fc.boolean(),
  });
}

function build({
  type,
  values,
  keepType,
  v,
  fix,
}: {
  type: HighbarRecordType | 'v0';
  values: unknown[];
  keepType: boolean;
  v: unknown;
  fix: boolean;
}) {
  const r = recordOf(values, type, keepType || fix, fix ? (type === 'v0' ? 0 : 1) : v);
  if (fix) {
    if (typeof r.fn !== 'string') r.fn = 'f';
    if (type === 'tools' && !Array.isArray(r.names)) r.names = ['a'];
  }
  return r;
}

// Every record type with its schema as declared: the guard and the report are held to these.
const SCHEMAS: Record<HighbarRecordType | 'v0', z.ZodMiniType> = {
  tool: HighbarToolRecord,
  turn: HighbarTurnRecord,
  hello: HighbarHelloRecord,
  tools: HighbarToolsRecord,
  v0: HighbarV0Record,
};

const zodAccepts = (type: HighbarRecordType | 'v0', r: unknown) => SCHEMAS[type].safeParse(r).success;

describe('passesHighbarGuard', () => {
  test('accepts exactly what the zod schema accepts, on JSON records', () => {
    let accepted = 0;
    fc.assert(
      fc.property(arbitraryRecord(jsonField), (spec) => {
        const r = JSON.parse(JSON.stringify(build(spec))) as Record<string, unknown>;
        const guard = passesHighbarGuard(spec.type, r);
        expect(guard).toBe(zodAccepts(spec.type, r));
        if (guard) accepted++;
      }),
      { numRuns: 20000 },
    );
    expect(accepted).toBeGreaterThan(1000);
  });

  test('never accepts what zod rejects, on any value', () => {
    fc.assert(
      fc.property(arbitraryRecord(anyField), (spec) => {
        const r = build(spec);
        if (passesHighbarGuard(spec.type, r)) expect(zodAccepts(spec.type, r)).toBe(true);
      }),
      { numRuns: 20000 },
    );
  });
});

// A rejected record's report is written from its shape (HIGHBAR_SHAPES), not by zod: held equal,
// byte for byte, to the report zod gives with the record's schema, on JSON records and on any
// value (class instances, dates, null-prototype objects, non-objects).
describe('validateHighbarRecord', () => {
  test('reports what the zod schema reports, written without zod, on any value', () => {
    let rejected = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          arbitraryRecord(jsonField).map((spec) => ({ type: spec.type, r: build(spec) as unknown })),
          arbitraryRecord(anyField).map((spec) => ({ type: spec.type, r: build(spec) as unknown })),
          fc.record({ type: fc.constantFrom(...TYPES), r: anyField }),
        ),
        ({ type, r }) => {
          const expected = schemaProblems(SCHEMAS[type], r);
          if (expected !== undefined) rejected++;
          expect(validateHighbarRecord(type, r)).toBe(expected);
        },
      ),
      { numRuns: 20000 },
    );
    expect(rejected).toBeGreaterThan(1000);
  });
});
