import { expect, test } from 'vitest';
import { type AgentEvent, cursor } from '../../src/all';
import { loadFixture } from '../../src/node/fixtures';

// A run's duration or usage, or a call's start or end time, taken out of an event read from
// Cursor must not read back from its kept record (test/edits-kept-structured.test.ts holds that
// for every fixture): the duration, which a result requires, is written as one made anew is (0),
// the usage goes, and a call's time is its line's, as anew.

const quiet = { onDiagnostic() {} } as never;

function runEndWithout(field: 'durationMs' | 'usage'): { before: AgentEvent; after: AgentEvent } {
  const text = new TextDecoder().decode(loadFixture('cursor', 'tools').bytes);
  const { events } = cursor.parse(text);
  expect(cursor.stringify(events, quiet)).toBe(text);
  const i = events.findIndex((e) => e.type === 'run.end');
  const { [field]: _gone, ...rest } = events[i] as AgentEvent & Record<string, unknown>;
  const out = cursor.stringify(
    events.map((e, j) => (j === i ? (rest as AgentEvent) : e)),
    quiet,
  );
  return { before: events[i]!, after: cursor.parse(out).events.find((e) => e.type === 'run.end')! };
}

test("a run's duration taken out reads back as none of the kept one", () => {
  const { before, after } = runEndWithout('durationMs');
  expect(before).toHaveProperty('durationMs');
  expect((after as AgentEvent & { durationMs?: number }).durationMs).not.toBe(
    (before as AgentEvent & { durationMs?: number }).durationMs,
  );
});

test("a run's usage taken out reads back as none", () => {
  const { before, after } = runEndWithout('usage');
  expect(before).toHaveProperty('usage');
  expect(after).not.toHaveProperty('usage');
});

test("a call's start or end time taken out reads back as its line's time, not the kept one", () => {
  const text = new TextDecoder().decode(loadFixture('cursor', 'tools').bytes);
  const { events } = cursor.parse(text);
  for (const [type, field] of [
    ['tool.start', 'startedAt'],
    ['tool.end', 'endedAt'],
  ] as const) {
    const i = events.findIndex((e) => e.type === type);
    const before = events[i] as AgentEvent & Record<string, unknown>;
    expect(before[field]).not.toBe(before.ts);
    const { [field]: _gone, ...rest } = before;
    const out = cursor.stringify(
      events.map((e, j) => (j === i ? (rest as AgentEvent) : e)),
      quiet,
    );
    const after = cursor.parse(out).events.filter((e) => e.type === type)[0] as AgentEvent &
      Record<string, unknown>;
    expect(after[field]).not.toBe(before[field]);
  }
});
