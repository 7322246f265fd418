import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import type { AgentEvent } from '../../src/all';
import { amp } from '../../src/formats/amp/index';

// A run's total is its main-lane assistant lines' sum, or the SDK's optional `result.usage`.
// Edited on an event that kept its `result` line, the total is written as `result.usage` (which
// the reader takes instead of the sum); taken out, a kept `result.usage` goes with it.
const bytes = readFileSync('fixtures/amp/multi-run.jsonl');

test("a run's edited usage reads back edited, the other run's as it was", () => {
  const { events } = amp.parse(bytes);
  const i = events.findIndex((e) => e.type === 'run.end');
  const edited = events.map((e, j) =>
    j === i && e.type === 'run.end' ? ({ ...e, usage: { ...e.usage, output: 4242 } } as AgentEvent) : e,
  );
  const again = amp.parse(amp.stringify(edited)).events.filter((e) => e.type === 'run.end');
  const before = events.filter((e) => e.type === 'run.end');
  expect(again.map((e) => e.type === 'run.end' && e.usage?.output)).toEqual([
    4242,
    before[1]!.type === 'run.end' && before[1]!.usage?.output,
  ]);
  // Unedited, the lines come back byte for byte.
  expect(amp.stringify(events)).toBe(bytes.toString());
});

test('a kept result.usage follows the event: edited, or taken out', () => {
  const withTotal = bytes
    .toString()
    .replace(
      '"result":"4","session_id"',
      '"result":"4","usage":{"input_tokens":1,"output_tokens":2,"service_tier":"standard"},"session_id"',
    );
  const { events } = amp.parse(withTotal);
  expect(amp.stringify(events)).toBe(withTotal);
  const i = events.findIndex((e) => e.type === 'run.end');
  const run = events[i] as AgentEvent & { type: 'run.end' };
  expect(run.usage).toMatchObject({ input: 1, output: 2 });
  const write = (e: AgentEvent) => amp.stringify(events.map((x, j) => (j === i ? e : x)));
  const edited = write({ ...run, usage: { ...run.usage, output: 7 } } as AgentEvent);
  expect(edited).toContain('"usage":{"input_tokens":1,"output_tokens":7,"service_tier":"standard"}');
  const { usage: _gone, ...rest } = run;
  expect(write(rest as AgentEvent)).not.toContain('"service_tier":"standard"},"session_id"');
});
