import { expect, test } from 'vitest';
import { type AgentEvent, convert, copilot } from '../../src/all';
import type { Diagnostic } from '../../src/diagnostics';
import { loadFixture } from '../../src/node/fixtures';

// Round eleven's Copilot writer leftovers (#19), each read back through the decoder.

function toCopilot(format: 'highbar' | 'claude' | 'ag-ui', name: string) {
  let n = 0;
  const fx = loadFixture(format, name);
  const result = convert(fx.bytes, {
    from: format,
    to: 'copilot',
    clock: () => 1767225600000,
    idSource: () => `id-${++n}`,
  });
  const records = result.output
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown>; agentId?: string });
  return { fx, result, records };
}

test('a successful highbar tool call is written without an error object', () => {
  for (const name of ['two-writers', 'contract-examples']) {
    const { records } = toCopilot('highbar', name);
    const ok = records.filter((r) => r.type === 'tool.execution_complete' && r.data.success === true);
    expect(ok.length).toBeGreaterThan(0);
    for (const r of ok) expect(r.data.error).toBeUndefined();
    // A failed one keeps its message.
    const failed = records.filter((r) => r.type === 'tool.execution_complete' && r.data.success === false);
    for (const r of failed) expect((r.data.error as { message: string }).message).not.toBe('null');
  }
});

test("a subagent's message written at the main round's end carries its agentId", () => {
  const { fx, records } = toCopilot('claude', 'subagent-foreground');
  const lanes = new Map<string, string | undefined>();
  for (const e of fx.expected.events)
    if (e.type === 'message.start' && e.message) lanes.set(e.message, e.lane);
  const messages = records.filter((r) => r.type === 'assistant.message');
  expect(messages.some((r) => lanes.get(r.data.messageId as string) !== undefined)).toBe(true);
  for (const r of messages) expect(r.agentId).toBe(lanes.get(r.data.messageId as string));
  // Read back, the subagent's message ends in its lane.
  const back = copilot.parse(records.map((r) => JSON.stringify(r)).join('\n'));
  for (const e of back.events)
    if (e.type === 'message.end' && e.message !== undefined && lanes.has(e.message))
      expect(e.lane).toBe(lanes.get(e.message));
});

test('an incomplete run followed by another run is a loss on run.end.status, not a silent merge', () => {
  const { fx, result, records } = toCopilot('ag-ui', 'interrupt-resume');
  const source = fx.expected.events.filter((e) => e.type === 'run.end').map((e) => e.status);
  expect(source).toEqual(['incomplete', 'cancelled']);
  const back = copilot.parse(records.map((r) => JSON.stringify(r)).join('\n'));
  const read = back.events.filter((e) => e.type === 'run.end').map((e) => e.status);
  // Copilot cannot hold the first run's status: the reader merges the two runs, and the writer says so.
  expect(read).not.toEqual(source);
  expect(result.diagnostics.some((d) => d.code === 'loss' && d.field === 'run.end.status')).toBe(true);
});

test('an incomplete run at the end of the stream is no loss (a reader ends it incomplete there)', () => {
  const { result } = toCopilot('highbar', 'contract-examples');
  expect(result.diagnostics.some((d) => d.field === 'run.end.status')).toBe(false);
});

test('a run cut off inside its round, then another run: two runs on read-back, the first incomplete', () => {
  const ts = 1767225600000;
  const events = [
    { type: 'session.start', session: 's1', ts },
    { type: 'run.start', input: 'first', ts },
    { type: 'round.start', round: 1, ts },
    { type: 'message.start', role: 'assistant', message: 'm1', ts },
    { type: 'text.delta', message: 'm1', text: 'half an ans', ts },
    { type: 'run.end', status: 'incomplete', ts },
    { type: 'run.start', input: 'second', ts },
    { type: 'round.start', round: 2, ts },
    { type: 'message.start', role: 'assistant', message: 'm2', ts },
    { type: 'text.delta', message: 'm2', text: 'done', ts },
    { type: 'message.end', message: 'm2', ts },
    { type: 'round.end', round: 2, ts },
    { type: 'run.end', status: 'completed', ts },
  ] as AgentEvent[];
  const diagnostics: Diagnostic[] = [];
  const text = copilot.stringify(events, { onDiagnostic: (d) => diagnostics.push(d) });
  const back = copilot.parse(text);
  expect(back.events.filter((e) => e.type === 'run.start').map((e) => e.input)).toEqual(['first', 'second']);
  expect(back.events.filter((e) => e.type === 'run.end').map((e) => e.status)).toEqual([
    'incomplete',
    'completed',
  ]);
  expect(diagnostics.filter((d) => d.field === 'run.end.status')).toEqual([]);
  // The second run's input says the first ended: `delivery: "idle"`, its turn left open.
  const lines = text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { type: string; data: object });
  expect(lines.filter((r) => r.type === 'user.message').map((r) => r.data)).toEqual([
    { content: 'first' },
    { content: 'second', delivery: 'idle' },
  ]);
  expect(lines.filter((r) => r.type === 'assistant.turn_end')).toHaveLength(1);
  expect(copilot.check(text).filter((d) => d.severity === 'error')).toEqual([]);
});

test('the reader ends a run at an idle user.message as incomplete when its turn is open, else completed', () => {
  const env = (id: number, type: string, data: object) =>
    JSON.stringify({
      id: `e${id}`,
      parentId: id === 1 ? null : `e${id - 1}`,
      timestamp: '2026-01-01T00:00:00.000Z',
      type,
      data,
    });
  const start = env(1, 'session.start', {
    sessionId: 's',
    version: 1,
    producer: 'x',
    copilotVersion: '1',
    startTime: '2026-01-01T00:00:00.000Z',
  });
  const open = [
    start,
    env(2, 'user.message', { content: 'a' }),
    env(3, 'assistant.turn_start', { turnId: '0' }),
    env(4, 'user.message', { content: 'b', delivery: 'idle' }),
  ].join('\n');
  const closed = [
    start,
    env(2, 'user.message', { content: 'a' }),
    env(3, 'assistant.turn_start', { turnId: '0' }),
    env(4, 'assistant.turn_end', { turnId: '0' }),
    env(5, 'user.message', { content: 'b', delivery: 'idle' }),
  ].join('\n');
  const ends = (t: string) =>
    copilot
      .parse(t)
      .events.filter((e) => e.type === 'run.end')
      .map((e) => e.status);
  expect(ends(open)).toEqual(['incomplete', 'incomplete']);
  expect(ends(closed)).toEqual(['completed', 'incomplete']);
});
