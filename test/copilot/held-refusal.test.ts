import { expect, test } from 'vitest';
import { copilot } from '../../src/formats/copilot/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, type RefusedWrites, writeRefusing } from '../refused-writes';

// Found by test/fuzz/refusal.test.ts: the Copilot writer holds another format's non-fatal error
// for one event (the failed run's end may follow it) and its first run's start (its session's
// start may follow it), and writes them before the next event's records. A next event it
// refuses (arguments JSON cannot hold) was refused after that, taking the held warning or run
// start down with it; and an event refused as the stream's first record took the session's start
// it wrote before it down. Now the refusal comes first, and the held record is written with the
// next event.

const refused: AgentEvent = {
  type: 'tool.start',
  call: 'c',
  name: 'n',
  args: { x: Number.POSITIVE_INFINITY },
};

function write(events: readonly AgentEvent[]): RefusedWrites {
  let n = 0;
  return writeRefusing(
    copilot.createEncoder({ idSource: () => `id${n++}`, clock: () => 0, onDiagnostic() {} }),
    events,
  );
}

const types = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as { type: string }).type);

test('a held warning is written when the event after it is refused', () => {
  const stream: AgentEvent[] = [
    { type: 'session.start', session: 's' },
    { type: 'run.start', input: 'go' },
    { type: 'error', message: 'rate limited', fatal: false },
    refused,
    { type: 'run.end', status: 'completed' },
  ];
  const { text } = expectRefusedAlone(
    write,
    stream,
    refused,
    /^tool\.start\.args\.x: Infinity is not a finite number; JSON cannot hold it$/,
  );
  expect(types(text)).toContain('session.warning');
});

test("a held first run's start is written when the event after it is refused", () => {
  const stream: AgentEvent[] = [
    { type: 'run.start', input: 'go' },
    refused,
    { type: 'run.end', status: 'completed' },
  ];
  const { text } = expectRefusedAlone(write, stream, refused, /tool\.start\.args\.x: Infinity/);
  expect(types(text)).toEqual(expect.arrayContaining(['session.start', 'user.message']));
});

test("a first record refused: the session's start written for it is not lost, no id taken", () => {
  const approval: AgentEvent = { type: 'approval.request', approval: 'a', tool: 't', args: { v: BigInt(7) } };
  const stream: AgentEvent[] = [
    approval,
    { type: 'notice', kind: 'k', message: 'm' },
    { type: 'run.start', input: 'go' },
  ];
  expectRefusedAlone(write, stream, approval, /approval\.request\..*\.v: a BigInt/);
});

// Found by test/fuzz/structured.test.ts (round thirty): another format's delta opens a message the
// writer holds to its end; a `ts` no timestamp can hold (1e308) went with it and was refused only
// at the stream's end, as "the end not written", the held message lost. It is refused with its
// own event now.
test('a delta whose time no timestamp can hold is refused with it, not at the end', () => {
  const bad: AgentEvent = { type: 'text.delta', message: 'm2', text: 'late', ts: 1e308 };
  const stream: AgentEvent[] = [
    { type: 'run.start', input: 'go', ts: 1_767_225_600_000 },
    { type: 'text.delta', message: 'm1', text: 'hello', ts: 1_767_225_601_000 },
    bad,
    { type: 'run.end', status: 'completed', ts: 1_767_225_602_000 },
  ];
  const { text } = expectRefusedAlone(write, stream, bad, /^ts: 1e\+308 is no time a timestamp can hold/);
  expect(text).toContain('hello');
});

// An approval's arguments and an answer's values were walked twice when a held event went first
// (once before the held record, once again as the record was built); now once, as without one.
// Counted by a getter on the value: each walk reads it once, and the write itself once more.
function reads(held: AgentEvent[], event: (value: Record<string, unknown>) => AgentEvent): number {
  let n = 0;
  const value: Record<string, unknown> = {};
  Object.defineProperty(value, 'x', {
    enumerable: true,
    get() {
      n++;
      return 1;
    },
  });
  const { refusals } = write([...held, event(value)]);
  expect(refusals).toEqual([]);
  return n;
}

for (const [name, event] of [
  [
    'an approval',
    (args: Record<string, unknown>): AgentEvent => ({ type: 'approval.request', approval: 'a1', args }),
  ],
  [
    'an answer',
    (answers: Record<string, unknown>): AgentEvent => ({ type: 'question.answer', question: 'q1', answers }),
  ],
] as const) {
  test(`${name}'s values are checked once after a held event, as without one`, () => {
    const alone = reads(
      [
        { type: 'session.start', session: 's' },
        { type: 'run.start', input: 'go' },
      ],
      event,
    );
    // The first run's start, held for a session's start that may follow it.
    expect(reads([{ type: 'run.start', input: 'go' }], event)).toBe(alone);
    // A non-fatal error, held for a failed run's end that may follow it.
    const warning: AgentEvent = { type: 'error', message: 'rate limited', fatal: false };
    expect(
      reads([{ type: 'session.start', session: 's' }, { type: 'run.start', input: 'go' }, warning], event),
    ).toBe(alone);
  });
}
