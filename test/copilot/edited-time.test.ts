import { expect, test } from 'vitest';
import { type AgentEvent, copilot } from '../../src/all';
import { loadFixture } from '../../src/node/fixtures';

// An edited time of an event read from Copilot reaches its record's `timestamp` (ISO 8601, as
// Copilot spells every time), and reads back as the edit: the shutdown's kept data keeps its
// `sessionStartTime`, the session's start, which is no time of the figure (a shutdown written
// anew has only the event's time to put there). test/edits-kept-structured.test.ts listed the
// figure's `ts` as dropped for finding the number only as digits; it finds the ISO form too.

test("an edited time of the session's closing figure is its shutdown's timestamp", () => {
  const fx = loadFixture('copilot', 'usage');
  const quiet = { onDiagnostic() {} } as never;
  const { events } = copilot.parse(fx.bytes);
  const i = events.findIndex((e) => e.type === 'usage' && e.usage.scope === 'thread');
  expect(i).toBeGreaterThanOrEqual(0);
  const ts = 987654321;
  const out = copilot.stringify(
    events.map((e, j) => (j === i ? ({ ...e, ts } as AgentEvent) : e)),
    quiet,
  );
  expect(out).toContain(`"timestamp":"${new Date(ts).toISOString()}"`);
  expect(out).toContain('"sessionStartTime":1768471200000');
  const back = copilot.parse(out).events.find((e) => e.type === 'usage' && e.usage.scope === 'thread');
  expect(back?.ts).toBe(ts);
});

test("a time taken out of an event is not its kept record's: the clock's is written, as anew", () => {
  const fx = loadFixture('copilot', 'usage');
  const text = new TextDecoder().decode(fx.bytes);
  const { events } = copilot.parse(text);
  const i = events.findIndex((e) => e.type === 'usage' && e.usage.scope === 'thread');
  const kept = new Date(events[i]!.ts!).toISOString();
  const { ts: _gone, ...rest } = events[i]!;
  const clock = () => 1234567890000;
  const out = copilot.stringify(
    events.map((e, j) => (j === i ? (rest as AgentEvent) : e)),
    { clock, onDiagnostic() {} } as never,
  );
  expect(out).not.toContain(kept);
  expect(out).toContain(`"timestamp":"${new Date(clock()).toISOString()}"`);
  // A record whose time reads as none has an event with no `ts`: it is written as read.
  const odd = text.replace(`"timestamp":"${kept}"`, '"timestamp":"not a time"');
  expect(odd).not.toBe(text);
  expect(copilot.stringify(copilot.parse(odd).events, { clock } as never)).toBe(odd);
});
