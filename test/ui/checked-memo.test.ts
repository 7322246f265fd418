import { describe, expect, test } from 'vitest';
import { agui } from '../../src/formats/ag-ui/index';
import type { AgentEvent } from '../../src/model';

// The AG-UI writer's up-front check of another format's event makes what the write needs (a
// call's arguments and metadata, a call end's content, a round end's metadata, a CUSTOM event's
// value) and the write takes it instead of making it again. What it made belongs to that one
// write: an event object written again after a change, or after its write was refused, is
// written as it is now, the same bytes a fresh object with the same fields gets.

function writer() {
  let n = 0;
  return agui.createEncoder({ idSource: () => `id${n++}`, framing: 'jsonl' });
}

const start: AgentEvent = { type: 'run.start', run: 'r1' } as AgentEvent;

/** The bytes of `events` written by one writer, each event a fresh copy (nothing shared). */
function fresh(events: readonly AgentEvent[]): string {
  const w = writer();
  let out = '';
  for (const e of events) out += w.write(structuredClone(e));
  return out + w.end();
}

describe('what the up-front check made is taken by its own write only', () => {
  test('a call start and end written again after a change', () => {
    const call = { type: 'tool.start', call: 'c1', name: 'ls', args: { a: 1 }, kind: 'read' } as AgentEvent;
    const end = { type: 'tool.end', call: 'c1', ok: true, result: { r: 1 } } as AgentEvent;
    const w = writer();
    let out = w.write(start) + w.write(call) + w.write(end);
    const before = [start, structuredClone(call), structuredClone(end)];
    (call as { call: string }).call = 'c2';
    (call as { args: unknown }).args = { b: 2 };
    (call as { kind: string }).kind = 'edit';
    (end as { call: string }).call = 'c2';
    (end as { result: unknown }).result = { r: 2 };
    out += w.write(call) + w.write(end) + w.end();
    expect(out).toBe(fresh([...before, call, end]));
    expect(out).toContain('{\\"b\\":2}');
    expect(out).toContain('"content":"{\\"r\\":2}"');
  });

  test('a round end and a carried event written again after a change', () => {
    const round = {
      type: 'round.end',
      message: 'm1',
      round: 1,
      stopReason: 'end_turn',
      usage: { inputTokens: 3, outputTokens: 4 },
    } as AgentEvent;
    const output = { type: 'tool.output', call: 'c1', text: 'one' } as AgentEvent;
    const error = { type: 'error', message: 'first', fatal: false } as AgentEvent;
    const w = writer();
    let out = w.write(start) + w.write(round) + w.write(output) + w.write(error);
    const before = [start, structuredClone(round), structuredClone(output), structuredClone(error)];
    (round as { stopReason: string }).stopReason = 'tool_use';
    (round as { usage: unknown }).usage = { inputTokens: 5, outputTokens: 6 };
    (output as { text: string }).text = 'two';
    (output as { stream: string }).stream = 'stderr';
    (error as { message: string }).message = 'second';
    out += w.write(round) + w.write(output) + w.write(error) + w.end();
    expect(out).toBe(fresh([...before, round, output, error]));
    expect(out).toContain('"text":"two"');
    expect(out).toContain('"second"');
  });

  test('an event refused, then written again once it can be', () => {
    const end = { type: 'tool.end', call: 'c1', ok: true, result: { r: Number.NaN } } as AgentEvent;
    const w = writer();
    let out = w.write(start);
    expect(() => w.write(end)).toThrow(/result/);
    (end as { result: unknown }).result = { r: 3 };
    out += w.write(end) + w.end();
    expect(out).toBe(fresh([start, end]));
    expect(out).toContain('"content":"{\\"r\\":3}"');
  });
});
