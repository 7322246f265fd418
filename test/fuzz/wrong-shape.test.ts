import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isAgentwireError } from '../../src/diagnostics';
import type { AgentEvent } from '../../src/model';
import { AgentEventSchema } from '../../src/model';
import {
  type Path,
  propertyPaths,
  type RefusedAt,
  writerNotingRefused,
  writers,
} from '../hostile/golden-sweep';
import { FUZZ_RUNS } from '../runs';
import { args, count, envelope, ID, TEXT, TS } from './events';

// Round thirty-six. The sweeps of hand-built events spoiled one field at a time
// (test/hostile/wrong-type.test.ts, missing-field.test.ts) take their fields from the fixtures'
// goldens: a model field no golden event carries is never spoiled there. Here the events are
// built from the model's own schemas (src/model.ts), every field of every type, each optional one
// present or not; then one property of one event (at any depth; a field that holds any JSON is
// spoiled whole, never entered) is deleted or given a value of another shape: a number, a
// string, an object, null, an array, a BigInt, NaN, a negative number where a number belongs.
// Every writer is fed the stream: it throws nothing but an AgentwireError, and an event it
// refuses is refused alone (the bytes are the stream's without it; nothing else refused for it).
// Round thirty-six fixed what it found first (in every writer) and left ten writers open, and
// the envelope's fields held only to the throw's promise; round thirty-seven fixed the rest
// (every field each write reads checked at its start, before the writer changes): every writer,
// every field, both promises (CHANGELOG.md; docs/limits.md says what is not covered).

type Def = { type: string; [k: string]: unknown };
type Schema = { _zod: { def: Def } };

/** A value of the kind `schema` describes (the model's field kinds). */
function kindValue(schema: Schema, key: string): fc.Arbitrary<unknown> {
  const def = schema._zod.def;
  switch (def.type) {
    case 'optional':
      return kindValue(def.innerType as Schema, key);
    case 'string':
      return fc.oneof(ID(key), TEXT);
    case 'number':
      return fc.oneof(count(1000), TS);
    case 'boolean':
      return fc.boolean();
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries as Record<string, string>));
    case 'literal':
      return fc.constant((def.values as unknown[])[0]);
    case 'array':
      return fc.array(kindValue(def.element as Schema, key), { maxLength: 2 });
    case 'object':
      return objectOf(def.shape as Record<string, Schema>);
    case 'record':
      return (def.valueType as Schema)._zod.def.type === 'unknown'
        ? args
        : fc.dictionary(fc.constantFrom('m1', 'm2'), kindValue(def.valueType as Schema, key), { maxKeys: 2 });
    default:
      // `unknown`: a result, an error, a kept record.
      return fc.constantFrom<unknown>('out', { a: 1 }, null, [1]);
  }
}

/** An object of `shape`: its optional fields each present or not. */
function objectOf(
  shape: Record<string, Schema>,
  skip: ReadonlySet<string> = new Set(),
): fc.Arbitrary<unknown> {
  const keys = Object.keys(shape).filter((k) => !skip.has(k));
  const model = Object.fromEntries(keys.map((k) => [k, kindValue(shape[k]!, k)]));
  const requiredKeys = keys.filter((k) => shape[k]!._zod.def.type !== 'optional');
  return fc.record(model, { requiredKeys });
}

// The envelope's grouping fields (run, round, session, time) from the shared pools; the rest of
// each type's fields, the envelope's other fields among them, from its schema. No provenance: the
// events of a library user.
const GROUPED = new Set(['run', 'round', 'session', 'ts', 'provenance']);
const options = (AgentEventSchema as unknown as Schema)._zod.def.options as Schema[];
const event: fc.Arbitrary<AgentEvent> = fc
  .tuple(
    fc.oneof(
      ...options.map((o) => objectOf((o._zod.def as Def & { shape: Record<string, Schema> }).shape, GROUPED)),
    ),
    envelope,
  )
  .map(([body, env]) => ({ ...(body as object), ...env }) as AgentEvent);

/** What a property is given instead of its value (`deleted`: taken out). */
const SPOILS: ReadonlyArray<readonly [string, unknown]> = [
  ['deleted', undefined],
  ['a number', 7],
  ['a string', 'x'],
  ['an object', { a: 'b' }],
  ['null', null],
  ['an array', ['x']],
  ['a BigInt', 7n],
  ['NaN', Number.NaN],
  ['a negative number', -1],
];

/** `value` with the property at `path` spoiled by `spoil` (copies along the path only). */
function spoiled(value: unknown, path: Path, spoil: readonly [string, unknown]): unknown {
  const [k, ...rest] = path;
  if (Array.isArray(value))
    return value.map((x, i) => (i === k ? (rest.length === 0 ? spoil[1] : spoiled(x, rest, spoil)) : x));
  const { [k!]: v, ...o } = value as Record<string, unknown>;
  if (rest.length > 0) return { ...o, [k!]: spoiled(v, rest, spoil) };
  return spoil[0] === 'deleted' ? o : { ...o, [k!]: spoil[1] };
}

/** A stream, the index of its spoiled event, and the spoiled event's path and spoil. */
const spoiledStream = fc
  .tuple(fc.array(event, { minLength: 1, maxLength: 8 }), fc.nat(), fc.nat(), fc.constantFrom(...SPOILS))
  .map(([events, at, pick, spoil]) => {
    const i = at % events.length;
    // (The type too: an event of no type, or of a type no event has, is refused as well.)
    const paths = propertyPaths(events[i], [], []);
    const path = paths[pick % paths.length]!;
    const bad = spoiled(events[i], path, spoil) as AgentEvent;
    return { events, i, bad, path, where: `${events[i]!.type}.${path.join('.')} given ${spoil[0]}` };
  });

// A case is one writer's two writes of a few events: cheap. What it finds is rare (one case in
// several hundred), so it runs five times FUZZ_RUNS per writer (1000 by default).
const RUNS = Math.max(100, FUZZ_RUNS * 5);

/**
 * Every writer with its default options; and a writer whose option changes which fields its
 * records carry (nativeharness `extensions`: the fields its types have no slot for, in an
 * extension key) once more with it.
 */
const MODES = [
  ...writers.map((c) => [c.format, c, {}] as const),
  [
    'nativeharness with extensions',
    writers.find((c) => c.format === 'nativeharness')!,
    { extensions: true },
  ] as const,
];

describe.each(MODES)('%s writer', (_format, codec, options) => {
  test('one property of one event of any type deleted or of another shape: nothing thrown but an AgentwireError; a refusal is the event’s alone', () => {
    const write = writerNotingRefused(codec, options);
    fc.assert(
      fc.property(spoiledStream, ({ events, i, bad, where }) => {
        const stream = events.map((e, j) => (j === i ? bad : e));
        let writes: RefusedAt | undefined;
        try {
          writes = write(stream);
        } catch (error) {
          // (An AgentwireError out of the end: the event was held and refused there, late.)
          // (Anything else thrown fails the case as it is, its stack shown.)
          if (!isAgentwireError(error)) throw error;
          expect(String(error), where).toBe('');
        }
        if (writes === undefined || !writes.refused.includes(i)) return;
        const clean = write(events.filter((_, j) => j !== i));
        expect(writes.text, `${where}: refused, so the bytes are the stream's without it`).toBe(clean.text);
        expect(writes.refusals.length, `${where}: ${writes.refusals.join('; ')}`).toBe(
          clean.refusals.length + 1,
        );
      }),
      { numRuns: RUNS },
    );
  });
});
