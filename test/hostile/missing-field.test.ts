import { describe, expect, test } from 'vitest';
import type { AgentEvent } from '../../src/model';
import { goldens, type Path, propertyPaths, thrownBy, writerNotingRefused, writers } from './golden-sweep';

// Round thirty-six. The model's types say which fields an event must have (`validateEvent` is the
// documented check), but a caller building events by hand may leave one out: a tool's end with no
// call id, a run's end with no status, a usage with no figures, an event with no type. Whatever a
// writer does with one (writes it by its rule, or refuses the event), it throws nothing but an
// AgentwireError, and an event it refuses is refused alone: the bytes are the stream's without
// it, and nothing else is refused for it. Every writer is fed the events of every fixture's golden
// with ONE property of one event deleted (at any depth; a field that holds any JSON is deleted
// whole, never entered; the provenance's own fields are deleted, its kept wire facts not entered),
// one at a time.

/** `value` without the property at `path` (copies along the path only). */
function without(value: unknown, path: Path): unknown {
  const [k, ...rest] = path;
  if (Array.isArray(value)) return value.map((x, i) => (i === k ? without(x, rest) : x));
  const { [k!]: v, ...o } = value as Record<string, unknown>;
  return rest.length === 0 ? o : { ...o, [k!]: without(v, rest) };
}

describe.each(writers.map((c) => [c.format, c] as const))('%s writer', (_format, codec) => {
  test('one property of one event deleted: nothing thrown but an AgentwireError; a refusal is the event’s alone', () => {
    const write = writerNotingRefused(codec);
    const found: string[] = [];
    for (const [file, events] of goldens)
      for (const [i, event] of events.entries()) {
        let clean: ReturnType<typeof write> | undefined;
        for (const path of propertyPaths(event, [], [])) {
          const bad = without(event, path) as AgentEvent;
          const stream = events.map((e, j) => (j === i ? bad : e));
          const where = `${file} event ${i}: ${event.type}.${path.join('.')} deleted`;
          const { writes, error } = thrownBy(write, stream);
          if (writes === undefined) {
            found.push(`${where}: ${String(error)}`);
            continue;
          }
          if (!writes.refused.includes(i)) continue;
          // Refused: the stream's bytes without the event, and no other refusal for it.
          clean ??= write(events.filter((_, j) => j !== i));
          if (writes.text !== clean.text)
            found.push(`${where}: refused, yet its bytes are not the stream's without it`);
          else if (writes.refusals.length !== clean.refusals.length + 1)
            found.push(`${where}: refused, and another refused with it: ${writes.refusals.join('; ')}`);
        }
      }
    expect(found).toEqual([]);
  });
});
