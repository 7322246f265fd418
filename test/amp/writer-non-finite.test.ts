import { expect, test } from 'vitest';
import { type AgentEvent, type AgentEventOf, amp } from '../../src/all';
import { expectRefusedAlone, NON_FINITE, nonFiniteRefusal, refusingWriter } from '../refused-writes';

// The Amp writer puts a call's structured result into its tool_result's `content` as JSON text.
// A number JSON cannot hold in it (Infinity, NaN) was written as the `null` JSON.stringify makes
// of it, with nothing said; now the event is refused, as the writers that write the value as JSON
// refuse it, before anything is written or changed for it (the subagent its call started stays
// unanswered, the lines gathered so far stay as they were).

const write = refusingWriter((options) => amp.createEncoder({ ...options, session: 'T-1' }));

const stream = (bad: AgentEvent): AgentEvent[] => [
  { type: 'session.start', session: 'T-1' },
  { type: 'run.start', input: 'go' },
  { type: 'tool.start', call: 'c1', name: 'read', args: { path: 'a' } },
  { type: 'round.end', message: '' },
  bad,
  { type: 'tool.end', call: 'c1', name: 'read', ok: true, result: { lines: 3 } },
  { type: 'text.delta', text: 'done' },
  { type: 'round.end', message: 'done' },
  { type: 'run.end', status: 'completed', answer: 'done' },
];

for (const [name, value] of NON_FINITE) {
  test(`a result holding ${name} is refused, not written as null`, () => {
    const bad: AgentEvent = { type: 'tool.end', call: 'c1', name: 'read', ok: true, result: { n: value } };
    const why = nonFiniteRefusal('tool\\.end\\.result\\.n', name);
    const { text } = expectRefusedAlone(write, stream(bad), bad, why);
    expect(text).toContain('"content":"{\\"lines\\":3}"');
  });
}

test('a plain null in a result is still written', () => {
  const ok: AgentEvent = { type: 'tool.end', call: 'c1', name: 'read', ok: true, result: { n: null } };
  const { text, refusals } = write(stream(ok));
  expect(refusals).toEqual([]);
  expect(text).toContain('"content":"{\\"n\\":null}"');
});

test("a refused answer to a subagent's call leaves the subagent running", () => {
  const bad: AgentEvent = {
    type: 'tool.end',
    call: 'task1',
    name: 'Task',
    ok: true,
    result: { n: Number.POSITIVE_INFINITY },
  };
  const events: AgentEvent[] = [
    { type: 'session.start', session: 'T-1' },
    { type: 'run.start', input: 'go' },
    { type: 'tool.start', call: 'task1', name: 'Task', args: {} },
    { type: 'child.start', child: 'task1', call: 'task1', name: 'helper' },
    { type: 'text.delta', text: 'working', lane: 'task1' },
    { type: 'round.end', message: 'working', lane: 'task1' },
    bad,
    { type: 'child.end', child: 'task1', status: 'failed' },
    { type: 'tool.end', call: 'task1', name: 'Task', ok: false, text: 'it failed' },
    { type: 'run.end', status: 'completed' },
  ];
  expectRefusedAlone(write, events, bad, /^tool\.end\.result\.n: Infinity/);
});

test('an edited call end read from Amp is refused before the lines gathered from other lines', () => {
  const lines = [
    '{"type":"system","subtype":"init","cwd":"/r","session_id":"T-1","tools":[],"mcp_servers":[]}',
    '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go"}]},"parent_tool_use_id":null,"session_id":"T-1"}',
    '{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"c1","name":"read","input":{}}]},"parent_tool_use_id":null,"session_id":"T-1"}',
    '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"3 lines","is_error":false}]},"parent_tool_use_id":null,"session_id":"T-1"}',
    '{"type":"result","subtype":"success","duration_ms":1,"is_error":false,"num_turns":1,"result":"","session_id":"T-1"}',
  ];
  const events = amp.parse(`${lines.join('\n')}\n`).events;
  const end = events.find((e) => e.type === 'tool.end')!;
  // Its text taken out: the result is what the writer writes.
  const bad = { ...end, result: { n: Number.POSITIVE_INFINITY } } as AgentEventOf<'tool.end'>;
  delete bad.text;
  const dirty = write(events.map((e) => (e === end ? bad : e)));
  expect(dirty.refusals).toEqual(['tool.end.result.n: Infinity is not a finite number; JSON cannot hold it']);
  // The assistant line gathered before the refused end is written all the same.
  expect(dirty.text).toContain('"tool_use"');
  expect(dirty.text).toBe(write(events.filter((e) => e !== end)).text);
});
