import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import type { AgentEvent } from '../../src/all';
import { cursor } from '../../src/formats/cursor/index';

// A notice's time (`timestamp_ms` of a `connection` or `retry` line) taken out of the event
// leaves its kept line too, and an edited one is written; the lines come back as read otherwise.
const bytes = readFileSync('fixtures/cursor/missing-result.jsonl');

test("a notice's time deleted or edited reaches the output", () => {
  const { events } = cursor.parse(bytes);
  expect(cursor.stringify(events)).toBe(bytes.toString());
  const i = events.findIndex((e) => e.type === 'notice' && e.ts !== undefined);
  expect(i).toBeGreaterThanOrEqual(0);
  const write = (e: AgentEvent) =>
    cursor.parse(cursor.stringify(events.map((x, j) => (j === i ? e : x)))).events;
  const { ts: _gone, ...rest } = events[i]!;
  expect(write(rest as AgentEvent).filter((e) => e.type === 'notice')[0]!.ts).toBeUndefined();
  expect(
    write({ ...events[i]!, ts: 1786600099999 } as AgentEvent).filter((e) => e.type === 'notice')[0]!.ts,
  ).toBe(1786600099999);
});
