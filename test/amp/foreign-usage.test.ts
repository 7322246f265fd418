import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, amp, convert, type Diagnostic } from '../../src/all';

// Round ten (#19): the Amp writer against another format's usage.
const write = (events: AgentEvent[]) => {
  const losses: Diagnostic[] = [];
  const text = amp.stringify(events, { onDiagnostic: (d) => losses.push(d) });
  return { text, lost: losses.filter((d) => d.code === 'loss').map((d) => d.field) };
};
const U = { input: 100, output: 5, cacheRead: 80, cacheWrite: 10, reasoning: 2 };

describe('Amp writer: usage', () => {
  test.each([true, false])('a reasoning count is a loss (round and run total; templates %s)', (round) => {
    const events: AgentEvent[] = [
      { type: 'session.start', session: 's' },
      { type: 'run.start', input: 'q' },
      { type: 'round.start' },
      { type: 'text.delta', text: 'hi' },
      { type: 'round.end', message: 'hi', stopReason: 'stop', ...(round ? { usage: U } : {}) },
      { type: 'run.end', status: 'completed', usage: U },
    ];
    const { text, lost } = write(events);
    expect(lost).toContain('usage.reasoning');
    expect(amp.parse(text).events.find((e) => e.type === 'run.end')?.usage).toMatchObject({
      input: 100,
      output: 5,
    });
  });

  test("a subagent's line usage does not stand in for the main lane's run total", () => {
    const text = readFileSync('fixtures/claude/subagent-foreground.jsonl', 'utf8');
    const { output } = convert(text, { from: 'claude', to: 'amp' });
    expect(amp.parse(output).events.find((e) => e.type === 'run.end')?.usage).toMatchObject({
      input: 46396,
      output: 96,
    });
  });
});
