import { expect, test } from 'vitest';
import { type AgentEvent, type AgentEventOf, amp } from '../../src/all';
import { loadFixture } from '../../src/node/fixtures';

// A run's duration taken out of an event read from Amp must not read back from its kept result
// (test/edits-kept-structured.test.ts holds that for every fixture): the field being required,
// it is written as one made anew is (0).

test("a run's duration taken out reads back as none of the kept one", () => {
  const quiet = { onDiagnostic() {} } as never;
  const text = new TextDecoder().decode(loadFixture('amp', 'tools').bytes);
  const { events } = amp.parse(text);
  expect(amp.stringify(events, quiet)).toBe(text);
  const i = events.findIndex((e) => e.type === 'run.end');
  const before = events[i] as AgentEventOf<'run.end'>;
  expect(before.durationMs).toBeGreaterThan(0);
  const { durationMs: _gone, ...rest } = before;
  const out = amp.stringify(
    events.map((e, j) => (j === i ? (rest as AgentEvent) : e)),
    quiet,
  );
  const after = amp.parse(out).events.find((e) => e.type === 'run.end') as AgentEventOf<'run.end'>;
  expect(after.durationMs).not.toBe(before.durationMs);
});
