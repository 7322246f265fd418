import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { AGENT_EVENT_TYPES, AgentEventSchema, validateEvent } from '../src/all';
import { EVENT_CHECKS, isAgentEvent, type ModelCheck, type ModelFields } from '../src/model-guard';
import { FUZZ_RUNS } from './runs';

// The model's zod-free check (src/model-guard.ts) must be the zod schema written out: the table
// derived from AgentEventSchema equals it, and on random events and near misses at every depth
// isAgentEvent answers what validateEvent answers.

// biome-ignore lint/suspicious/noExplicitAny: walking zod's internal definitions
type ZodAny = any;

/** The check a zod schema of the model makes, in model-guard's notation (throws on anything else). */
function derive(schema: ZodAny): ModelCheck {
  const def = schema._zod.def;
  switch (def.type) {
    case 'string':
    case 'boolean':
    case 'unknown':
      expect(def.checks ?? []).toEqual([]);
      return def.type;
    case 'number':
      expect(def.checks ?? []).toEqual([]);
      expect(def.coerce ?? false).toBe(false);
      return 'number';
    case 'literal':
      expect(def.values).toHaveLength(1);
      return { literal: def.values[0] };
    case 'enum':
      return { oneOf: Object.values(def.entries) as string[] };
    case 'array':
      return { array: derive(def.element) };
    case 'record':
      expect(def.keyType._zod.def.type).toBe('string');
      expect(def.keyType._zod.def.checks ?? []).toEqual([]);
      return { record: derive(def.valueType) };
    case 'object': {
      expect(def.catchall).toBeUndefined();
      const fields: Record<string, ModelFields[string]> = {};
      for (const [key, field] of Object.entries<ZodAny>(def.shape)) {
        if (field._zod.def.type === 'optional') {
          // Only exactOptional is read as "may be absent, never undefined".
          expect(field._zod.traits.has('$ZodExactOptional')).toBe(true);
          fields[key] = { optional: derive(field._zod.def.innerType) };
        } else fields[key] = derive(field);
      }
      return { object: fields };
    }
    default:
      throw new Error(`model-guard cannot express a zod ${def.type}`);
  }
}

const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -0,
    1.5,
    '',
    'x',
    'assistant',
    'completed',
    true,
    [],
    {},
    ['x'],
  ),
  fc.constant(null).map(() => Object.create(null) as unknown),
  fc.constant(null).map(() => new (class Thing {})()),
  fc.constant(null).map(() => ({ [Symbol('s')]: 1 })),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Values `check` accepts, and near misses: any node may be replaced, dropped, or given extra keys. */
function sampleOf(check: ModelCheck, depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: exact(check, depth), weight: 12 }, { arbitrary: junk, weight: 1 });
}

function exact(check: ModelCheck, depth: number): fc.Arbitrary<unknown> {
  switch (check) {
    case 'string':
      return fc.string({ maxLength: 3 });
    case 'number':
      return fc.oneof(fc.integer(), fc.double());
    case 'boolean':
      return fc.boolean();
    case 'unknown':
      return fc.oneof(junk, fc.constant(undefined));
  }
  if ('literal' in check) return fc.constant(check.literal);
  if ('oneOf' in check) return fc.constantFrom(...check.oneOf);
  if ('array' in check) return fc.array(sampleOf(check.array, depth + 1), { maxLength: depth > 2 ? 0 : 3 });
  if ('record' in check)
    return fc.dictionary(fc.string({ maxLength: 2 }), sampleOf(check.record, depth + 1), {
      maxKeys: depth > 2 ? 0 : 3,
    });
  const entries = Object.entries(check.object);
  return fc
    .tuple(
      fc.tuple(
        ...entries.map(([, field]) => {
          const optional = typeof field === 'object' && 'optional' in field;
          const inner = optional ? (field as { optional: ModelCheck }).optional : (field as ModelCheck);
          // An optional key is mostly absent; a required one rarely.
          return fc.oneof(
            { arbitrary: fc.constant(absent), weight: optional ? 6 : 1 },
            { arbitrary: sampleOf(inner, depth + 1), weight: optional ? 2 : 20 },
          );
        }),
      ),
      fc.dictionary(fc.constantFrom('extra', 'type', 'text', 'zz'), junk, { maxKeys: 1 }),
    )
    .map(([values, extra]) => {
      const out: Record<string, unknown> = {};
      entries.forEach(([key], i) => {
        if ((values as unknown[])[i] !== absent) out[key] = (values as unknown[])[i];
      });
      for (const [k, v] of Object.entries(extra)) if (!(k in out)) out[k] = v;
      return out;
    });
}
const absent = Symbol('absent');

describe('isAgentEvent (the model checked without zod)', () => {
  test('its table is AgentEventSchema written out, type by type, in the same order', () => {
    const options: ZodAny[] = (AgentEventSchema as ZodAny)._zod.def.options;
    expect(options.map((o) => o._zod.def.shape.type._zod.def.values[0])).toEqual([...AGENT_EVENT_TYPES]);
    for (const option of options) {
      const type = option._zod.def.shape.type._zod.def.values[0] as keyof typeof EVENT_CHECKS;
      const derived = derive(option);
      expect(EVENT_CHECKS[type]).toEqual(derived);
      // Same keys in the same order too (toEqual ignores order).
      expect(JSON.stringify(EVENT_CHECKS[type])).toBe(JSON.stringify(derived));
    }
  });

  test('answers what validateEvent answers, on events and near misses at every depth', () => {
    const events = fc.constantFrom(...AGENT_EVENT_TYPES).chain((type) => sampleOf(EVENT_CHECKS[type]));
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof({ arbitrary: events, weight: 20 }, { arbitrary: junk, weight: 1 }), (value) => {
        const zod = validateEvent(value).success;
        if (zod) accepted++;
        expect(isAgentEvent(value)).toBe(zod);
      }),
      { numRuns: FUZZ_RUNS * 20 },
    );
    // The generator reaches both answers.
    expect(accepted).toBeGreaterThan(0);
  });

  test('inherited keys and undefined values count as zod counts them', () => {
    const cases: unknown[] = [
      { type: 'unknown' },
      { type: 'unknown', record: undefined },
      Object.assign(Object.create({ record: 1 }), { type: 'unknown' }),
      { type: 'text.delta', text: 'x', message: undefined },
      { type: 'tool.end', call: 'c', ok: true, result: undefined },
      { type: 'question.answer', question: 'q', answers: { [Symbol('s')]: 1 } },
      {
        type: 'question.answer',
        question: 'q',
        answers: Object.defineProperty({}, Symbol('s'), { value: 1, enumerable: false }),
      },
      { type: 'question.answer', question: 'q', answers: Object.create(null) },
      { type: 'question.answer', question: 'q', answers: new (class Answers {})() },
      { type: 'run.end', status: 'completed', durationMs: Number.POSITIVE_INFINITY },
      { type: '__proto__' },
      { type: 'toString' },
      [],
    ];
    for (const value of cases)
      expect(isAgentEvent(value), String(JSON.stringify(value))).toBe(validateEvent(value).success);
  });
});
