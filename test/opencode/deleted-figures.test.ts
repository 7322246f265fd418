import { expect, test } from 'vitest';
import { type AgentEvent, opencode } from '../../src/all';
import { loadFixture } from '../../src/node/fixtures';

// A figure taken out of an event read from OpenCode must not read back from its kept line: a
// round's usage (its step_finish's tokens and cost: the tokens, which OpenCode requires, are
// written as zeros, as anew) and a call's end time (its state's `time.end`: the event's time, as
// anew). test/edits-kept-structured.test.ts holds that for every fixture.

const quiet = { onDiagnostic() {} } as never;

function deleting(type: AgentEvent['type'], field: string): { before: AgentEvent; after: AgentEvent } {
  const text = new TextDecoder().decode(loadFixture('opencode', 'tool-then-text').bytes);
  const { events } = opencode.parse(text);
  const i = events.findIndex((e) => e.type === type);
  const { [field]: _gone, ...rest } = events[i] as unknown as Record<string, unknown>;
  const out = opencode.stringify(
    events.map((e, j) => (j === i ? (rest as unknown as AgentEvent) : e)),
    quiet,
  );
  return { before: events[i]!, after: opencode.parse(out).events.filter((e) => e.type === type)[0]! };
}

test("a round's usage taken out reads back as none of its figures", () => {
  const { before, after } = deleting('round.end', 'usage');
  expect(before).toHaveProperty('usage.costUsd');
  expect((after as AgentEvent & { usage?: object }).usage).not.toEqual(
    (before as AgentEvent & { usage?: object }).usage,
  );
  expect(after).not.toHaveProperty('usage.costUsd');
});

test("a call's end time taken out reads back as its record's time, not the kept end", () => {
  const { before, after } = deleting('tool.end', 'endedAt');
  expect(before).toHaveProperty('endedAt');
  expect((after as AgentEvent & { endedAt?: number }).endedAt).not.toBe(
    (before as AgentEvent & { endedAt?: number }).endedAt,
  );
});
