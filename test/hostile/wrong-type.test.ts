import { describe, expect, test } from 'vitest';
import type { AgentEvent } from '../../src/model';
import { FREE, goldens, type Path, thrownBy, withAt, writer, writers } from './golden-sweep';

// Round thirty-five. The model's types say an event's text fields are strings (`validateEvent` is
// the documented check), but a caller building events by hand from JSON may send a number, an
// object, null or an array. Whatever a writer does with one (writes it by its rule, or refuses
// the event), it throws nothing but an AgentwireError: a TypeError out of a string method
// (`text.slice is not a function`) is what this sweep found in nine writers. Every writer is fed
// the events of every fixture's golden with ONE string field of one event (at any depth, outside
// the fields that hold any JSON) replaced, one at a time. Where a writer refuses the field as no
// string (`refuseNonString`, from its up-front checks), it refuses that event alone: the bytes are the stream's
// without it.

const WRONG: ReadonlyArray<[string, () => unknown]> = [
  ['a number', () => 7],
  ['an object', () => ({ a: 'b' })],
  ['null', () => null],
  ['an array', () => ['x']],
];

/** The paths of every string in `value`, outside the top-level fields in FREE. */
function stringPaths(value: unknown, path: Path, out: Path[]): Path[] {
  if (typeof value === 'string') out.push(path);
  else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) stringPaths(value[i], [...path, i], out);
  } else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value))
      if (!(path.length === 0 && FREE.has(k))) stringPaths(v, [...path, k], out);
  return out;
}

describe.each(writers.map((c) => [c.format, c] as const))('%s writer', (_format, codec) => {
  test('a string field of one event given a number, an object, null or an array: nothing thrown but an AgentwireError', () => {
    const write = writer(codec);
    const found: string[] = [];
    for (const [file, events] of goldens)
      for (const [i, event] of events.entries()) {
        let without: string | undefined;
        // (The type is the event's tag, not a text: another type is another event.)
        for (const path of stringPaths(event, [], []).filter((p) => p[0] !== 'type'))
          for (const [what, make] of WRONG) {
            const bad = withAt(event, path, make()) as AgentEvent;
            const stream = events.map((e, j) => (j === i ? bad : e));
            const where = `${file} event ${i}: ${event.type}.${path.join('.')} given ${what}`;
            const { writes, error } = thrownBy(write, stream);
            if (writes === undefined) {
              found.push(`${where}: ${String(error)}`);
              continue;
            }
            // A refusal of the field as no string is the event's alone.
            const field = `${event.type}.${path.join('.')}: `;
            if (writes.refusals.some((m) => m.startsWith(field) && m.endsWith(', not a string'))) {
              expect(writes.refusals, where).toHaveLength(1);
              without ??= write(events.filter((_, j) => j !== i)).text;
              expect(writes.text, where).toBe(without);
            }
          }
      }
    expect(found).toEqual([]);
  });
});
