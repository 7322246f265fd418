import { describe, expect, test } from 'vitest';
import type { AgentEvent, Diagnostic } from '../src/all';
import { agui, aisdk, claude, gemini } from '../src/all';

type Codec = typeof claude | typeof gemini | typeof agui | typeof aisdk;
const statuses = (c: Codec, text: string): string[] =>
  c.parse(text).events.flatMap((e) => (e.type === 'run.end' ? [e.status] : []));
const write = (c: Codec, events: AgentEvent[]) => {
  const diagnostics: Diagnostic[] = [];
  const out = c.stringify(events, { onDiagnostic: (d: Diagnostic) => diagnostics.push(d) } as object);
  return { out, losses: diagnostics.filter((d) => d.code === 'loss').map((d) => d.field) };
};

const cutThenRun: AgentEvent[] = [
  { type: 'run.start', input: 'one' },
  { type: 'text.delta', text: 'a' },
  { type: 'run.end', status: 'incomplete' },
  { type: 'run.start', input: 'two' },
  { type: 'text.delta', text: 'b' },
  { type: 'run.end', status: 'completed' },
];

const outsideRuns: AgentEvent[] = [
  { type: 'error', message: 'warn early', fatal: false },
  { type: 'run.start', input: 'one' },
  { type: 'text.delta', text: 'a' },
  { type: 'run.end', status: 'completed' },
  { type: 'error', message: 'warn late', fatal: false },
  { type: 'text.delta', text: 'zz' },
];

describe('round ten (#17 #18 #20): runs the source did not have, runs merged or finished', () => {
  test('claude: a cut-off run then a run stay two runs, incomplete then completed', () => {
    expect(statuses(claude, write(claude, cutThenRun).out)).toEqual(['incomplete', 'completed']);
  });
  test('ai-sdk: a cut-off run then a run is never finished as completed', () => {
    expect(statuses(aisdk, write(aisdk, cutThenRun).out)).toEqual(['incomplete', 'completed']);
    const twoStarts: AgentEvent[] = [cutThenRun[0]!, cutThenRun[1]!, ...cutThenRun.slice(3)];
    expect(statuses(aisdk, write(aisdk, twoStarts).out)).toEqual(['incomplete', 'completed']);
  });
  for (const [name, codec] of [
    ['claude', claude],
    ['gemini', gemini],
    ['ag-ui', agui],
    ['ai-sdk', aisdk],
  ] as const) {
    test(`${name}: events before the first run or after the last make no run (the rest: losses)`, () => {
      const { out, losses } = write(codec, outsideRuns);
      // One run, the source's (Gemini writes the error of a run that completes as a warning).
      expect(statuses(codec, out)).toEqual(['completed']);
      expect(losses).toContain('text.delta');
      // The early warning follows the run's start (it is read back inside the run).
      const kind = name === 'gemini' ? 'notice' : 'error';
      expect(codec.parse(out).events.some((e) => e.type === kind && e.message === 'warn early')).toBe(true);
    });
  }
  test('claude: the result totals the rounds when the run end has no usage; no cost is a loss, not a silent 0', () => {
    const { out, losses } = write(claude, [
      { type: 'run.start' },
      { type: 'text.delta', text: 'a' },
      { type: 'round.end', message: 'a', usage: { input: 30, output: 2 } },
      { type: 'text.delta', text: 'b' },
      { type: 'round.end', message: 'b', usage: { input: 20, output: 3 } },
      { type: 'run.end', status: 'completed' },
    ]);
    const end = claude.parse(out).events.find((e) => e.type === 'run.end');
    expect(end?.type === 'run.end' ? [end.usage?.input, end.usage?.output] : []).toEqual([50, 5]);
    expect(losses).toContain('run.end.usage.costUsd');
  });
  test('gemini: a completed run after a non-fatal error stays completed (its error a warning); a cancelled run is written as Gemini CLI cancels', () => {
    const a = write(gemini, [
      { type: 'run.start', input: 'x' },
      { type: 'error', message: 'overloaded; retrying', fatal: false },
      { type: 'text.delta', text: 'done' },
      { type: 'run.end', status: 'completed' },
    ]);
    expect(statuses(gemini, a.out)).toEqual(['completed']);
    expect(a.losses).not.toContain('run.end.status');
    expect(a.losses).toContain('error');
    const b = write(gemini, [
      { type: 'run.start', input: 'x' },
      { type: 'run.end', status: 'cancelled' },
    ]);
    // Gemini CLI's cancellation result (test/gemini/cancelled.test.ts): it reads back cancelled.
    expect(statuses(gemini, b.out)).toEqual(['cancelled']);
    expect(b.losses).not.toContain('run.end.status');
  });
});
