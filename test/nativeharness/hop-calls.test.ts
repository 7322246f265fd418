import { describe, expect, test } from 'vitest';
import { type AgentEvent, type Diagnostic, nativeharness } from '../../src/all';

// Round nineteen: the writer keeps the calls of the hop in progress for the hop record's
// `tool_calls`. A stream with no hops (highbar's traces: one run, calls only) made that list grow
// with the input (a 1 GiB trace converted to nativeharness peaked at 97 MiB); it is bounded now.
const MAX = 16_384;

function calls(n: number): AgentEvent[] {
  const out: AgentEvent[] = [];
  for (let i = 0; i < n; i++) {
    out.push({ type: 'tool.start', call: `c${i}`, name: 'Read' });
    out.push({ type: 'tool.end', call: `c${i}`, name: 'Read', ok: true, text: 'x' });
  }
  return out;
}

// One run with one hop of `n` calls.
function oneHop(n: number): AgentEvent[] {
  return [
    { type: 'run.start', input: 'go' },
    ...calls(n),
    { type: 'round.end', message: '' },
    { type: 'run.end', status: 'completed' },
  ];
}

function write(events: AgentEvent[]): { records: Array<Record<string, unknown>>; losses: Diagnostic[] } {
  const losses: Diagnostic[] = [];
  let n = 0;
  const text = nativeharness.stringify(events, {
    framing: 'jsonl',
    clock: () => 1_767_225_600_000,
    idSource: () => `id-${++n}`,
    onDiagnostic: (d) => {
      if (d.code === 'loss') losses.push(d);
    },
  });
  const records = text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { records, losses };
}

function hop(records: Array<Record<string, unknown>>): Record<string, unknown> {
  const found = records.find((r) => r.type === 'hop');
  if (found === undefined) throw new Error('no hop record');
  return found.payload as Record<string, unknown>;
}

describe('the hop record’s tool_calls, bounded (nativeharness writer)', () => {
  test.each([1, 3, MAX])('a hop of %i calls lists them all, no loss', (n) => {
    const { records, losses } = write(oneHop(n));
    const listed = hop(records).tool_calls as string[];
    expect(listed).toHaveLength(n);
    expect(listed.at(-1)).toBe(`c${n - 1}`);
    expect(losses.filter((d) => d.field === 'round.end.toolCalls')).toEqual([]);
  });

  test.each([MAX + 1, MAX + 2, 2 * MAX])(
    'a hop of %i calls lists the first 16384 and reports the loss',
    (n) => {
      const { records, losses } = write(oneHop(n));
      const listed = hop(records).tool_calls as string[];
      expect(listed).toHaveLength(MAX);
      expect(listed[0]).toBe('c0');
      expect(listed.at(-1)).toBe(`c${MAX - 1}`);
      const loss = losses.filter((d) => d.field === 'round.end.toolCalls');
      expect(loss).toHaveLength(1);
      expect(loss[0]!.message).toContain('more than 16384 tool calls');
    },
  );

  test('the next hop starts its own list', () => {
    const { records } = write([
      { type: 'run.start', input: 'go' },
      ...calls(MAX + 5),
      { type: 'round.end', message: '' },
      ...calls(2),
      { type: 'round.end', message: 'done' },
      { type: 'run.end', status: 'completed' },
    ]);
    const hops = records
      .filter((r) => r.type === 'hop')
      .map((r) => (r.payload as Record<string, unknown>).tool_calls);
    expect(hops.map((h) => (h as string[]).length)).toEqual([MAX, 2]);
  });
});
