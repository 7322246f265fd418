import { expect, test, vi } from 'vitest';
import { copilot } from '../../src/formats/copilot/index';
import * as iso from '../../src/iso';
import type { AgentEvent } from '../../src/model';

// Round thirty-three: the Copilot writer checks up front the time a write's records will carry
// (the event's `ts`, else the clock's), then formatted it to ISO again where it wrote the record.
// The check now keeps what it formatted for the write: a time that changes is formatted once.
vi.mock('../../src/iso', async (original) => {
  const actual = await original<typeof iso>();
  return { ...actual, writeIsoAt: vi.fn(actual.writeIsoAt) };
});

const T = 1_767_225_600_000;

function encoder(clock: () => number) {
  let n = 0;
  return copilot.createEncoder({ idSource: () => `id${n++}`, clock, onDiagnostic() {} });
}

const events = (ts: boolean): AgentEvent[] =>
  (
    [
      { type: 'tool.start', call: 'c1', name: 'bash', args: {} },
      { type: 'tool.end', call: 'c1', name: 'bash', ok: true, text: 'x' },
      { type: 'tool.start', call: 'c2', name: 'bash', args: {} },
    ] as AgentEvent[]
  ).map((e, i) => (ts ? { ...e, ts: T + (i + 1) * 1000 } : e));

test.each([
  ['the clock', false],
  ["the event's ts", true],
])('%s: each new time is formatted once, the bytes unchanged', (_, ts) => {
  let now = T;
  const e = encoder(() => now);
  // The run's start is held for one event (its session's start may follow): written first.
  e.write({ type: 'run.start', input: 'go', ts: T });
  e.write({ type: 'status', status: 'busy', ts: T });
  const format = vi.mocked(iso.writeIsoAt);
  const texts: string[] = [];
  for (const event of events(ts)) {
    now += 1000;
    format.mockClear();
    texts.push(e.write(event));
    expect(format).toHaveBeenCalledTimes(1);
  }
  const times = texts.map((t) => t.match(/"timestamp":"[^"]*"/g));
  expect(times).toEqual([
    ['"timestamp":"2026-01-01T00:00:01.000Z"', '"timestamp":"2026-01-01T00:00:01.000Z"'],
    ['"timestamp":"2026-01-01T00:00:02.000Z"'],
    ['"timestamp":"2026-01-01T00:00:03.000Z"'],
  ]);
});
