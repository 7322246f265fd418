import { describe, expect, test } from 'vitest';
import { type AgentEvent, claude, type Diagnostic } from '../../src/all';
import { CLAUDE_MAX_HELD_UNNUMBERED } from '../../src/formats/claude/wire';

// Round nineteen: another format's round whose end does not come while its calls' results pile up
// (a highbar trace has no rounds at all) was held whole by the Claude writer: a 1 GiB highbar
// trace converted to claude grew the heap by ~2 MB per MiB. What waits behind a message that has
// not ended is bounded by CLAUDE_MAX_HELD_TEXT (1 Mi characters) now.
const CAP = 1024 * 1024;

function run(n: number, result: string): AgentEvent[] {
  const events: AgentEvent[] = [{ type: 'run.start', input: 'go' }];
  for (let i = 0; i < n; i++) {
    events.push({ type: 'tool.start', call: `toolu_${i}`, name: 'Read', args: { path: `f${i}` } });
    events.push({ type: 'tool.end', call: `toolu_${i}`, name: 'Read', ok: true, text: result });
  }
  events.push({ type: 'run.end', status: 'completed' });
  return events;
}

function write(events: AgentEvent[]): { text: string; early: number; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  let n = 0;
  const encoder = claude.createEncoder({
    idSource: () => `id-${++n}`,
    onDiagnostic: (d) => diagnostics.push(d),
  });
  let text = '';
  for (const e of events.slice(0, -1)) text += encoder.write(e);
  const early = text.length;
  text += encoder.write(events.at(-1)!) + encoder.end();
  return { text, early, diagnostics };
}

describe('Claude writer: a round of calls without its end is not held whole', () => {
  test('what waits behind the open message stays under the cap', () => {
    const { text, early } = write(run(8000, 'y'.repeat(300)));
    expect(text.length).toBeGreaterThan(4 * CAP);
    // Before the run's end the writer has written all but what the cap lets it hold.
    expect(text.length - early).toBeLessThan(2 * CAP);
  });

  test('read back: every call and result, in order, one message, no errors', () => {
    const events = run(8000, 'y'.repeat(300));
    const { text, diagnostics } = write(events);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const back = claude.parse(text);
    expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const calls = (type: string) =>
      back.events.filter((e) => e.type === type).map((e) => (e as { call: string }).call);
    const want = events.filter((e) => e.type === 'tool.start').map((e) => (e as { call: string }).call);
    expect(calls('tool.start')).toEqual(want);
    expect(calls('tool.end')).toEqual(want);
    const ends = back.events.filter((e) => e.type === 'tool.end') as Array<{ text?: string }>;
    expect(ends.every((e) => e.text === 'y'.repeat(300))).toBe(true);
    expect(new Set(back.events.filter((e) => e.type === 'round.end').map((e) => e.round)).size).toBe(1);
    expect(back.events.at(-1)?.type).toBe('run.end');
  });

  test('a small round is written as before: whole, after its end', () => {
    const { text, early } = write(run(3, 'ok'));
    expect(early).toBeLessThan(text.length);
    const back = claude.parse(text);
    expect(back.events.filter((e) => e.type === 'tool.end')).toHaveLength(3);
  });
});

// Round twenty-nine: events without round numbers (highbar's) have no round end to write the
// message at, and what waited behind it up to 1 Mi characters outlived the CLI's young generation:
// highbar → claude promoted 94.7 MiB per 20 MB. Held up to CLAUDE_MAX_HELD_UNNUMBERED (32 Ki) now.
describe('Claude writer: events without round numbers hold 32 Ki behind the open message', () => {
  test('without round numbers, what waits behind the open message stays under 32 Ki', () => {
    const { text, early } = write(run(2000, 'y'.repeat(300)));
    expect(text.length).toBeGreaterThan(CAP / 2);
    expect(text.length - early).toBeLessThan(2 * CLAUDE_MAX_HELD_UNNUMBERED);
  });

  test('with round numbers, a round under 1 Mi is held whole to its end', () => {
    const events = run(2000, 'y'.repeat(300)).map((e) => ({ ...e, round: 1 }));
    const { text, early } = write(events);
    expect(text.length - early).toBeGreaterThan(CAP / 2);
  });
});

// Round twenty-nine: the writer kept every main-agent message of a run (and its blocks, its
// whole text) to sum their usage into the run's `result`; a run of many rounds without its end
// (an OpenCode session, converted) grew the heap by ~1 MiB per MiB. The done messages' usage is
// summed as they go: the same figures, and only the message not done yet stays.
describe('Claude writer: a long run does not keep its messages', () => {
  function rounds(n: number): AgentEvent[] {
    const events: AgentEvent[] = [{ type: 'run.start', input: 'go' }];
    for (let i = 1; i <= n; i++) {
      events.push({ type: 'round.start', round: i });
      events.push({ type: 'text.delta', text: 'x'.repeat(1000), message: `m${i}`, round: i });
      const usage = { input: 3, output: 7, costUsd: 0.1 };
      events.push({ type: 'round.end', round: i, message: '', stopReason: 'end_turn', usage });
    }
    return events;
  }

  test('held messages stay few; the result sums every round', () => {
    const encoder = claude.createEncoder({ onDiagnostic: () => {} });
    let text = '';
    for (const e of rounds(3000)) text += encoder.write(e);
    // White-box: the messages still held for the run's usage (every one of them before).
    expect((encoder as unknown as { runMessages: unknown[] }).runMessages.length).toBeLessThanOrEqual(1);
    text += encoder.write({ type: 'run.end', status: 'completed' }) + encoder.end();
    const result = JSON.parse(text.trimEnd().split('\n').at(-1)!);
    expect(result.type).toBe('result');
    expect(result.usage.input_tokens).toBe(9000);
    expect(result.usage.output_tokens).toBe(21000);
    // Exact decimal sums, in the messages' order (src/usage.ts): as before.
    expect(result.total_cost_usd).toBe(300);
  });
});
