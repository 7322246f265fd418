import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { Codec } from '../src/codec';
import type { AgentEvent } from '../src/model';
import { FUZZ_RUNS } from './runs';

// The shared properties of the writers' kept-line fast paths (docs/performance.md "Kept lines"):
// a line the decoder read is written back as it was, without rebuilding and stringifying its
// record, while its event says what the kept record says. Each codec gives the lines (its
// records and near misses) and a switch that turns its fast path off; these hold the two
// paths equal on every stream of those lines, its events edited anywhere (fields replaced,
// objects edited in place, key orders changed, values of other types), as they are or as JSON
// copies (what a consumer that stored the events hands back).

/** Text of a record: short, or made of what JSON escapes and what it does not. */
export const text: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', 'é', '\u2028', 'a', ' ') }),
);
/** A number of a record, beyond 2^53 and in exponent form included. */
export const num: fc.Arbitrary<number> = fc.oneof(
  fc.nat({ max: 2000 }),
  fc.constantFrom(0, 1, -1, 1.5, 1e21, 2 ** 53 + 2),
);
/** A number spelled as no agent writes it, or one `JSON.parse` reads as `Infinity`. */
export const odd: fc.Arbitrary<string> = fc.constantFrom('1e400', '-1e400', '-0', '1.0', '1E2', '0.1000');
/** A free-form JSON value (arguments): text, numbers, null, arrays, nested objects. */
export const value: fc.Arbitrary<unknown> = fc.oneof(
  text,
  num,
  fc.constant(null),
  fc.array(num, { maxLength: 2 }),
  fc.record({ a: num, b: fc.record({ a: num }) }),
);

/** A value an edit may put in a field: text, numbers, nothing, null, objects. */
export const editValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom('failed', 'completed', 'cancelled', 'stop', 'success', 'error'),
  fc.constantFrom(0, 1, -1, 1.5, 1e21, 1786540600505, 1767036059338),
  fc.constant(undefined),
  fc.constant(null),
  fc.constant(true),
  fc.constant(false),
  fc.record({ command: fc.string({ maxLength: 4 }) }),
);

type Edit = (e: AgentEvent) => void;

// A status word changed into another one (a word with `x` appended would say nothing new).
const OTHER_WORD: Record<string, string> = {
  completed: 'failed',
  failed: 'completed',
  cancelled: 'completed',
  incomplete: 'completed',
};

// A field changed in its own type (text appended to, a number moved, a flag flipped, a status
// word changed into another one), or deleted.
function bumpKey(x: Loose, k: string): void {
  const v = x[k];
  if (typeof v === 'string') x[k] = OTHER_WORD[v] ?? `${v}x`;
  else if (typeof v === 'number') x[k] = v + 1;
  else if (typeof v === 'boolean') x[k] = !v;
  else if (typeof v === 'object' && v !== null) (v as Loose).edited = true;
}
// A text field cut short (a prefix of what the line holds).
function shortenKey(x: Loose, k: string): void {
  const v = x[k];
  if (typeof v === 'string' && v.length > 0) x[k] = v.slice(0, -1);
}
function deleteKey(x: Loose, k: string): void {
  delete x[k];
}
type Loose = Record<string, unknown>;

const nested = (v: unknown): Loose[] =>
  typeof v === 'object' && v !== null
    ? Object.values(v).filter((x): x is Loose => typeof x === 'object' && x !== null)
    : [];

/**
 * Edits of one event: the ones a consumer makes, and the ones a fast path could overlook. Each
 * of `fields` is changed in its own type (text appended to, a number moved, a flag flipped),
 * deleted, or replaced with a value of any type; the event's objects are edited in place and
 * their keys reordered; usage counts move (alone, or so that a derived count stays the same).
 * Kept records are left as they are: the fast path trusts them (see {@link trustsKeptRecord}).
 */
export function edits(fields: readonly string[]): fc.Arbitrary<Edit> {
  const own = (f: string): Edit[] => [
    (e) => {
      const x = e as unknown as Loose;
      const v = x[f];
      if (typeof v === 'string') x[f] = `${v}x`;
      else if (typeof v === 'number') x[f] = v + 1;
      else if (typeof v === 'boolean') x[f] = !v;
    },
    (e) => {
      delete (e as unknown as Loose)[f];
    },
  ];
  const usage =
    (change: (u: Record<string, number | undefined>) => void): Edit =>
    (e) => {
      // (A usage another edit replaced with a value of another type is left as it is.)
      if ('usage' in e && typeof e.usage === 'object' && e.usage !== null)
        change(e.usage as Record<string, number | undefined>);
    };
  const structural: Edit[] = [
    (e) => {
      if (e.lane === undefined) e.lane = 'ses_child';
      else delete e.lane;
    },
    // objects of the event edited in place, at the top and one and two levels down
    (e) => {
      for (const o of nested(e)) if (o !== e.provenance) o.command = 'edited';
    },
    (e) => {
      for (const o of nested(e)) if (o !== e.provenance) for (const p of nested(o)) p.a = 7;
    },
    (e) => {
      for (const o of nested(e))
        if (o !== e.provenance) for (const p of nested(o)) for (const q of nested(p)) q.a = 7;
    },
    (e) => {
      const x = e as unknown as Loose;
      for (const k of ['args', 'result', 'error'])
        if (typeof x[k] === 'object' && x[k] !== null)
          x[k] = Object.fromEntries(Object.entries(x[k] as Loose).reverse());
    },
    usage((u) => {
      u.input = (u.input ?? 0) + 1;
    }),
    usage((u) => {
      u.output = (u.output ?? 0) + 1;
    }),
    usage((u) => {
      u.cacheRead = (u.cacheRead ?? 0) + 1;
    }),
    usage((u) => {
      u.cacheWrite = (u.cacheWrite ?? 0) + 1;
    }),
    usage((u) => {
      // more cache read, the same uncached input
      u.cacheRead = (u.cacheRead ?? 0) + 1;
      u.input = (u.input ?? 0) + 1;
    }),
    usage((u) => {
      u.costUsd = (u.costUsd ?? 0) + 0.5;
    }),
    usage((u) => {
      delete u.costUsd;
    }),
    (e) => {
      const hints = e.provenance?.hints;
      if (hints !== undefined) e.provenance!.hints = { ...hints, raw: undefined };
    },
  ];
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...fields.flatMap(own)) },
    { weight: 2, arbitrary: fc.constantFrom(...structural) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom(...fields), editValue).map(
        ([k, v]): Edit =>
          (e) => {
            (e as unknown as Loose)[k] = v;
          },
      ),
    },
  );
}

/** Registers the properties for one codec. */
export function keptLineSuite(options: {
  codec: Codec;
  /** The format id: its fixtures (fixtures/<format>/*.jsonl) are edited field by field. */
  format: string;
  /** One line of the format, terminator included: its records and near misses. */
  line: fc.Arbitrary<string>;
  /** The event fields the codec maps (edits replace them with other values). */
  fields: readonly string[];
  /** Turns the fast path on or off. */
  fastPath: { enabled: boolean };
  /** Writer options that make the output deterministic. */
  writeOptions?: Record<string, unknown>;
  /**
   * Puts an object of the kept record into the event (it is the kept one then) and edits it in
   * place: the fast path must see that, although the kept record changed with the event.
   */
  adopt?: Edit;
  /** Lines where `adopt` applies. */
  adoptLines?: string;
}): void {
  const { codec, line, fields, fastPath } = options;
  const write = (events: AgentEvent[], fast: boolean): string => {
    fastPath.enabled = fast;
    try {
      return codec.stringify(events, options.writeOptions);
    } catch (error) {
      return `threw ${String(error)}`;
    } finally {
      fastPath.enabled = true;
    }
  };

  test('an unedited stream gives its bytes back, with the fast path on and off', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 10 }), (lines) => {
        const { events } = codec.parse(lines.join(''));
        expect(write(events, true)).toBe(write(events, false));
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  test('gives the bytes the general path gives, for any edit of any event, copied or not', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 10 }),
        fc.array(fc.tuple(fc.nat(), edits(fields)), { maxLength: 10 }),
        fc.boolean(),
        (lines, changes, copy) => {
          const decoded = codec.parse(lines.join('')).events;
          const events: AgentEvent[] = copy ? JSON.parse(JSON.stringify(decoded)) : decoded;
          // the events of a line (the derived ones have nothing to write)
          const lined = events.filter((e) => e.provenance?.hints !== undefined);
          const targets = lined.length > 0 ? lined : events;
          for (const [at, change] of changes) change(targets[at % targets.length]!);
          expect(write(events, true)).toBe(write(events, false));
        },
      ),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  test('every field of every event of the fixtures, changed alone, gives the bytes the general path gives', () => {
    for (const name of readdirSync(`fixtures/${options.format}`).filter((f) => f.endsWith('.jsonl'))) {
      const input = readFileSync(`fixtures/${options.format}/${name}`, 'utf8');
      const count = codec.parse(input).events.length;
      for (let i = 0; i < count; i++) {
        const keys = Object.keys(codec.parse(input).events[i]!);
        for (const key of keys) {
          if (key === 'type' || key === 'provenance') continue;
          for (const change of [bumpKey, shortenKey, deleteKey]) {
            const events = codec.parse(input).events;
            change(events[i] as unknown as Loose, key);
            expect(write(events, true), `${name} event ${i} ${key}`).toBe(write(events, false));
          }
        }
      }
    }
  });

  const { adopt, adoptLines } = options;
  if (adopt === undefined || adoptLines === undefined) return;
  test('an event given an object of the kept record itself, edited in place, is written as edited', () => {
    const events = codec.parse(adoptLines).events;
    for (const e of events) adopt(e);
    const out = write(events, true);
    expect(out).toBe(write(events, false));
    expect(out).not.toBe(adoptLines);
  });
}

/**
 * The fast path is taken for decoded events as they come, and what it trusts: the kept record
 * is what the kept line parses to. Editing only the kept record shows the difference.
 */
export function trustsKeptRecord(
  codec: Codec,
  fastPath: { enabled: boolean },
  line: string,
  eventType: AgentEvent['type'],
  edit: (record: Loose) => void,
): void {
  const { events } = codec.parse(line);
  const event = events.find((e) => e.type === eventType)!;
  edit(event.provenance!.hints!.record as Loose);
  expect(codec.stringify(events)).toBe(line);
  fastPath.enabled = false;
  try {
    expect(codec.stringify(events)).not.toBe(line);
  } finally {
    fastPath.enabled = true;
  }
}
