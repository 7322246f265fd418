import { expect, test } from 'vitest';
import { type AgentEvent, copilot } from '../../src/all';
import { expectRefusedAlone, NON_FINITE, nonFiniteRefusal, refusingWriter } from '../refused-writes';

// The Copilot writer puts a call's structured result (and a failure's non-text error) into the
// record as JSON text, and an approval's arguments and an answer's values into its data as they
// are. A number JSON cannot hold there (Infinity, NaN) was written as the `null` JSON.stringify
// makes of it, with nothing said; now the event is refused, as the writers that write such a value
// as JSON refuse it, before anything is written or changed for it (a turn opened, a held record
// let go).

const write = refusingWriter((options) => copilot.createEncoder({ ...options, clock: () => 0 }));

const stream = (bad: AgentEvent): AgentEvent[] => [
  { type: 'session.start', session: 's' },
  { type: 'run.start', input: 'go' },
  { type: 'round.start' },
  { type: 'tool.start', call: 'c1', name: 'read', args: { path: 'a' } },
  bad,
  { type: 'tool.end', call: 'c1', name: 'read', ok: true, result: { lines: 3 } },
  { type: 'round.end', message: '' },
  { type: 'run.end', status: 'completed' },
];

const cases: Array<[string, (v: number) => AgentEvent, string]> = [
  [
    'a result',
    (v) => ({ type: 'tool.end', call: 'c1', name: 'read', ok: true, result: { n: v } }),
    'tool\\.end\\.result\\.n',
  ],
  [
    "a failure's error",
    (v) => ({ type: 'tool.end', call: 'c1', name: 'read', ok: false, error: { n: v } }),
    'tool\\.end\\.error\\.n',
  ],
  [
    "an approval's arguments",
    (v) => ({ type: 'approval.request', approval: 'a1', tool: 'read', args: { n: v } }),
    'approval\\.request\\.args\\.n',
  ],
  [
    "an answer's values",
    (v) => ({ type: 'question.answer', question: 'q1', answers: { n: v } }) as AgentEvent,
    'question\\.answer\\.answers\\.n',
  ],
];

for (const [what, make, path] of cases)
  for (const [name, value] of NON_FINITE)
    test(`${what} holding ${name} is refused, not written as null`, () => {
      const bad = make(value);
      expectRefusedAlone(write, stream(bad), bad, nonFiniteRefusal(path, name));
    });

test("refused as a run's first event, the turn it would open is not opened", () => {
  // Outside a turn, a call's end opens one (its turn_start first): refused, none is written.
  const bad: AgentEvent = {
    type: 'tool.end',
    call: 'c1',
    name: 'read',
    ok: true,
    result: { n: Number.POSITIVE_INFINITY },
  };
  const events: AgentEvent[] = [
    { type: 'session.start', session: 's' },
    { type: 'run.start', input: 'go' },
    bad,
    { type: 'text.delta', text: 'hi', message: 'm1' },
    { type: 'run.end', status: 'completed' },
  ];
  const { text } = expectRefusedAlone(write, events, bad, /^tool\.end\.result\.n: Infinity/);
  expect(text.match(/assistant\.turn_start/g)).toHaveLength(1);
});

test('a plain null in a result is still written', () => {
  const ok: AgentEvent = { type: 'tool.end', call: 'c1', name: 'read', ok: true, result: { n: null } };
  const { text, refusals } = write(stream(ok));
  expect(refusals).toEqual([]);
  expect(text).toContain('"result":{"content":"{\\"n\\":null}"}');
});
