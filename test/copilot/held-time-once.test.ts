import { expect, test, vi } from 'vitest';
import { copilot } from '../../src/formats/copilot/index';
import * as iso from '../../src/iso';
import type { AgentEvent } from '../../src/model';

// Round thirty-four: an event with a `ts` written while a held record has none (another format's
// run's start, held for the session's start that may follow) carries two times in one write: the
// event's and the clock's. The writer's one-time cache (round thirty-three, time-format-once)
// held one of them: the up-front checks formatted the event's time, then the clock's, and the
// write formatted the event's again (and, for a session's start, written before the held run's
// start, both again). The cache keeps the last two times: each is formatted once.
vi.mock('../../src/iso', async (original) => {
  const actual = await original<typeof iso>();
  return { ...actual, writeIsoAt: vi.fn(actual.writeIsoAt) };
});

const T = 1_767_225_600_000;
const CLOCK = T + 60_000;

test.each([
  ['a message start', { type: 'message.start', role: 'assistant', message: 'm', ts: T } as AgentEvent],
  [
    "the session's start (written before the held run's start)",
    { type: 'session.start', ts: T } as AgentEvent,
  ],
])('%s with a ts after a held run start without one: each time formatted once', (_, event) => {
  let n = 0;
  const e = copilot.createEncoder({ idSource: () => `id${n++}`, clock: () => CLOCK, onDiagnostic() {} });
  const format = vi.mocked(iso.writeIsoAt);
  // Another format's run's start: held (nothing written), its time the clock's when written.
  expect(e.write({ type: 'run.start', input: 'go' })).toBe('');
  format.mockClear();
  const text = e.write(event);
  expect(format).toHaveBeenCalledTimes(2);
  const times = new Set(text.match(/"timestamp":"[^"]*"/g));
  expect(times).toEqual(
    new Set([`"timestamp":"${new Date(T).toISOString()}"`, `"timestamp":"${new Date(CLOCK).toISOString()}"`]),
  );
});
