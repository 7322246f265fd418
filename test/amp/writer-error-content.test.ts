import { expect, test } from 'vitest';
import { type AgentEvent, amp, type Diagnostic } from '../../src/all';
import { NON_FINITE, nonFiniteRefusal, writeRefusing } from '../refused-writes';

// A failed call's end with no text and no result: the Amp writer put a text error into its
// tool_result's `content` and any other error (`{ code, message }`, a number) nowhere, with
// `content: ""` and no loss said (`error` is carried). Now such an error is written as JSON text,
// as a structured result is; an error beside a text or a result (one content has no room for
// both) is reported lost.

function write(end: AgentEvent): { text: string; refusals: string[]; losses: string[] } {
  const diagnostics: Diagnostic[] = [];
  const encoder = amp.createEncoder({ session: 'T-1', onDiagnostic: (d) => diagnostics.push(d) });
  const events: AgentEvent[] = [
    { type: 'session.start', session: 'T-1' },
    { type: 'run.start', input: 'go' },
    { type: 'tool.start', call: 'c1', name: 'deploy', args: {} },
    { type: 'round.end', message: '' },
    end,
    { type: 'run.end', status: 'completed' },
  ];
  const { text, refusals } = writeRefusing(encoder, events);
  const losses = diagnostics.filter((d) => d.code === 'loss').map((d) => d.field ?? '');
  return { text, refusals, losses };
}

const failed = (fields: Partial<AgentEvent & { type: 'tool.end' }>): AgentEvent =>
  ({ type: 'tool.end', call: 'c1', name: 'deploy', ok: false, ...fields }) as AgentEvent;

for (const [name, error, json] of [
  ['an object', { code: 403, message: 'denied' }, '{"code":403,"message":"denied"}'],
  ['a number', 7, '7'],
  ['a list', ['a', 'b'], '["a","b"]'],
] as const) {
  test(`a failed call's error that is ${name} is written as JSON text and read back as its text`, () => {
    const { text, refusals, losses } = write(failed({ error }));
    expect(refusals).toEqual([]);
    expect(losses).not.toContain('tool.end.error');
    const end = amp.parse(text).events.find((e) => e.type === 'tool.end');
    expect(end).toMatchObject({ call: 'c1', ok: false, text: json });
  });
}

test("a failed call's text error is written as it was", () => {
  const { text, losses } = write(failed({ error: 'denied by policy' }));
  expect(losses).not.toContain('tool.end.error');
  expect(amp.parse(text).events.find((e) => e.type === 'tool.end')).toMatchObject({
    text: 'denied by policy',
  });
});

for (const [name, value] of NON_FINITE) {
  test(`an error holding ${name} is refused, not written as null`, () => {
    const { refusals } = write(failed({ error: { n: value } }));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatch(nonFiniteRefusal('tool\\.end\\.error\\.n', name));
  });
}

for (const [name, fields] of [
  ['a text', { text: '', error: 'denied by policy' }],
  ['a result', { result: { lines: 0 }, error: { code: 1 } }],
] as const) {
  test(`an error beside ${name} is reported lost`, () => {
    const { refusals, losses } = write(failed(fields));
    expect(refusals).toEqual([]);
    expect(losses).toContain('tool.end.error');
  });
}

test('an error that says what the text says is not reported lost', () => {
  const { losses } = write(failed({ text: 'not allowed', error: 'Error: not allowed' }));
  expect(losses).not.toContain('tool.end.error');
});
