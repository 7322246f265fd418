import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, convert, cursor, type Diagnostic } from '../../src/all';

// Round ten (#19): the Cursor writer against another format's tool outcome and usage.
const ends = (text: string) =>
  cursor
    .parse(text)
    .events.filter((e) => e.type === 'tool.end')
    .map((e) => [e.call, e.ok, e.denied === true]);
const runEnd = (text: string) => cursor.parse(text).events.find((e) => e.type === 'run.end');
const write = (events: AgentEvent[]) => {
  const losses: Diagnostic[] = [];
  const text = cursor.stringify(events, { onDiagnostic: (d) => losses.push(d) });
  return { text, lost: losses.filter((d) => d.code === 'loss').map((d) => d.field) };
};

describe('Cursor writer: a foreign result never decides ok', () => {
  test('a result that looks like the other outcome goes inside the wrapper ok says', () => {
    const { text } = write([
      { type: 'run.start' },
      { type: 'tool.start', call: 'c1', name: 'lookup' },
      { type: 'tool.end', call: 'c1', name: 'lookup', ok: true, result: { error: 'data' } },
      { type: 'tool.start', call: 'c2', name: 'lookup' },
      {
        type: 'tool.end',
        call: 'c2',
        name: 'lookup',
        ok: false,
        error: 'boom',
        result: { success: { x: 1 } },
      },
      { type: 'tool.start', call: 'c3', name: 'lookup' },
      {
        type: 'tool.end',
        call: 'c3',
        name: 'lookup',
        ok: false,
        denied: true,
        error: 'no',
        result: { error: {} },
      },
      { type: 'run.end', status: 'completed' },
    ]);
    expect(ends(text)).toEqual([
      ['c1', true, false],
      ['c2', false, false],
      ['c3', false, true],
    ]);
    const back = cursor.parse(text).events.filter((e) => e.type === 'tool.end');
    expect(back[0]).toMatchObject({ result: { success: { result: { error: 'data' } } } });
    expect(back[1]).toMatchObject({
      error: 'boom',
      result: { error: { errorMessage: 'boom', result: { success: { x: 1 } } } },
    });
  });

  test('a result that says the same outcome is written as it is', () => {
    const { text } = write([
      { type: 'run.start' },
      { type: 'tool.start', call: 'c1', name: 'lookup' },
      { type: 'tool.end', call: 'c1', name: 'lookup', ok: false, result: { error: { errorMessage: 'x' } } },
      { type: 'run.end', status: 'completed' },
    ]);
    expect(text).toContain('"result":{"error":{"errorMessage":"x"}}');
  });

  test('fixture highbar/failed-as-data keeps every call ok flag', () => {
    const hb = readFileSync('fixtures/highbar/failed-as-data.jsonl', 'utf8');
    const { output } = convert(hb, { from: 'highbar', to: 'cursor' });
    expect(ends(output).map(([, ok]) => ok)).toEqual([false, false, true, true]);
  });

  test('a read line whose ok was edited is rebuilt, not written as read', () => {
    const text = readFileSync('fixtures/cursor/tools.jsonl', 'utf8');
    const events = cursor.parse(text).events;
    const end = events.find((e) => e.type === 'tool.end' && e.ok)!;
    (end as { ok: boolean }).ok = false;
    const back = cursor
      .parse(cursor.stringify(events))
      .events.find((e) => e.type === 'tool.end' && e.call === (end as { call: string }).call);
    expect(back).toMatchObject({ ok: false });
  });
});

describe('Cursor writer: the run total', () => {
  const run = (round: object | undefined, total: object | undefined): AgentEvent[] => [
    { type: 'run.start', input: 'q' },
    { type: 'round.start' },
    { type: 'text.delta', text: 'a' },
    { type: 'round.end', message: 'a', ...(round ? { usage: round } : {}) } as AgentEvent,
    { type: 'round.start' },
    { type: 'text.delta', text: 'b' },
    { type: 'round.end', message: 'b', ...(round ? { usage: round } : {}) } as AgentEvent,
    { type: 'run.end', status: 'completed', ...(total ? { usage: total } : {}) } as AgentEvent,
  ];

  test('usage per round only: result.usage is their sum, cost and reasoning are losses', () => {
    const { text, lost } = write(
      run({ input: 100, output: 5, cacheRead: 80, reasoning: 1, costUsd: 0.25 }, undefined),
    );
    expect(runEnd(text)?.usage).toEqual({ input: 200, output: 10, cacheRead: 160, cacheWrite: 0 });
    expect(lost).toEqual(expect.arrayContaining(['usage.costUsd', 'usage.reasoning']));
  });

  test('a run total wins over the rounds, and no cost is invented', () => {
    const { text, lost } = write(run({ input: 1, output: 1 }, { input: 300, output: 12 }));
    expect(runEnd(text)?.usage).toEqual({ input: 300, output: 12, cacheRead: 0, cacheWrite: 0 });
    expect(lost).not.toContain('usage.costUsd');
  });

  test('fixture opencode/tool-then-text keeps its total of 44202 input tokens', () => {
    const oc = readFileSync('fixtures/opencode/tool-then-text.jsonl', 'utf8');
    const { output } = convert(oc, { from: 'opencode', to: 'cursor' });
    expect(runEnd(output)?.usage?.input).toBe(44202);
  });
});

describe('Cursor writer: counts the source did not know (round eleven, #19)', () => {
  test('absent cache counts are written 0 (Cursor always has them) and each is a loss', () => {
    const { text, lost } = write([
      { type: 'run.start' },
      { type: 'run.end', status: 'completed', usage: { input: 10, output: 2 } },
    ]);
    expect(text).toContain(
      '"usage":{"inputTokens":10,"outputTokens":2,"cacheReadTokens":0,"cacheWriteTokens":0}',
    );
    expect(lost).toEqual(expect.arrayContaining(['usage.cacheRead', 'usage.cacheWrite']));
    expect(lost).not.toContain('usage.input');
  });
  test('known cache counts: no loss', () => {
    const { lost } = write([
      { type: 'run.start' },
      {
        type: 'run.end',
        status: 'completed',
        usage: { input: 10, output: 2, cacheRead: 8, cacheWrite: 0 },
      },
    ]);
    expect(lost.filter((f) => f?.startsWith('usage.'))).toEqual([]);
  });
});
