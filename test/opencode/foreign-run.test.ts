import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  type AgentEvent,
  addUsage,
  codecFor,
  convert,
  type Diagnostic,
  opencode,
  type Usage,
} from '../../src/all';

// Round ten (#19): the OpenCode writer against another format's non-fatal errors and run totals.
const write = (events: AgentEvent[]) => {
  const losses: Diagnostic[] = [];
  const text = opencode.stringify(events, { onDiagnostic: (d) => losses.push(d) });
  return { text, lost: losses.filter((d) => d.code === 'loss').map((d) => d.field) };
};
// What a consumer of OpenCode totals: the steps' usage (OpenCode has no run total).
const stepsTotal = (text: string): Usage => {
  const total: Usage = {};
  for (const e of opencode.parse(text).events)
    if (e.type === 'round.end' && e.usage) addUsage(total, e.usage);
  return total;
};

describe('OpenCode writer: a non-fatal error', () => {
  test('is a loss, and the completed run reads back completed', () => {
    const { text, lost } = write([
      { type: 'run.start' },
      { type: 'text.delta', text: 'Working. ' },
      { type: 'error', message: 'provider 529 overloaded; retrying', fatal: false },
      { type: 'text.delta', text: 'Done.' },
      { type: 'run.end', status: 'completed' },
    ]);
    expect(opencode.parse(text).events.find((e) => e.type === 'run.end')?.status).toBe('completed');
    expect(text).not.toContain('"type":"error"');
    expect(lost).toContain('error.fatal');
  });

  test('a fatal one is still written, and fails the run', () => {
    const { text } = write([
      { type: 'run.start' },
      { type: 'error', message: 'boom', fatal: true },
      { type: 'run.end', status: 'failed' },
    ]);
    expect(opencode.parse(text).events.find((e) => e.type === 'run.end')?.status).toBe('failed');
    expect(text.match(/"type":"error"/g)).toHaveLength(1);
  });
});

describe('OpenCode writer: the run total', () => {
  const rounds = (usage: Usage | undefined, total: Usage | undefined): AgentEvent[] => [
    { type: 'run.start', input: 'q' },
    { type: 'round.start' },
    { type: 'text.delta', text: 'a' },
    { type: 'round.end', message: 'a', ...(usage ? { usage } : {}) } as AgentEvent,
    { type: 'round.start' },
    { type: 'text.delta', text: 'b' },
    { type: 'round.end', message: 'b', ...(usage ? { usage } : {}) } as AgentEvent,
    { type: 'run.end', status: 'completed', ...(total ? { usage: total } : {}) } as AgentEvent,
  ];

  test('a run total with rounds without usage goes on the last step_finish', () => {
    const { text, lost } = write(rounds(undefined, { input: 300, output: 12, cacheRead: 80, costUsd: 0.7 }));
    expect(stepsTotal(text)).toMatchObject({ input: 300, output: 12, cacheRead: 80, costUsd: 0.7 });
    expect(lost).not.toContain('run.end.usage');
  });

  test('a run total without any rounds goes on the step the run end closes', () => {
    const { text } = write([
      { type: 'run.start', input: 'q' },
      { type: 'text.delta', text: 'a' },
      { type: 'run.end', status: 'completed', usage: { input: 3050, output: 2 } },
    ]);
    expect(stepsTotal(text)).toMatchObject({ input: 3050, output: 2 });
  });

  test('no cost is invented: a step without a known cost has no cost', () => {
    const { text } = write(rounds({ input: 10, output: 1 }, undefined));
    expect(text).not.toContain('"cost"');
    expect(stepsTotal(text).costUsd).toBeUndefined();
    expect(write(rounds(undefined, { input: 5, output: 1 })).text).not.toContain('"cost"');
  });

  test('a total the rounds do not add up to is a loss', () => {
    const { lost } = write(rounds({ input: 10, output: 1 }, { input: 99, output: 9 }));
    expect(lost).toContain('run.end.usage');
    expect(write(rounds({ input: 10, output: 1 }, { input: 20, output: 2 })).lost).not.toContain(
      'run.end.usage',
    );
  });

  test.each([
    ['claude', 'tools.jsonl'],
    ['gemini', 'tool-roundtrip.jsonl'],
    ['cursor', 'tools.jsonl'],
  ] as const)('fixture %s/%s keeps its run total, cost not invented', (from, file) => {
    const text = readFileSync(`fixtures/${from}/${file}`, 'utf8');
    const end = codecFor(from)
      ?.parse(text)
      .events.find((e) => e.type === 'run.end');
    const total = end?.type === 'run.end' ? end.usage : undefined;
    if (total === undefined) throw new Error(`${from}/${file} has no run total`);
    expect(total.input).toBeGreaterThan(0);
    const back = stepsTotal(convert(text, { from, to: 'opencode' }).output);
    expect(back.input).toBe(total.input);
    expect(back.output).toBe(total.output);
    expect(back.costUsd).toBe(total.costUsd);
  });
});

describe('OpenCode writer: a round without usage (round eleven, #19)', () => {
  test('is written with the zero tokens step_finish requires, and the invented zeros are a loss', () => {
    const { text, lost } = write([
      { type: 'run.start' },
      { type: 'text.delta', text: 'a' },
      { type: 'round.end', message: 'a' },
      { type: 'text.delta', text: 'b' },
      { type: 'round.end', message: 'b', usage: { input: 5, output: 1 } },
      { type: 'run.end', status: 'completed' },
    ]);
    expect(text).toContain('"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}}');
    expect(lost.filter((f) => f === 'round.end.usage')).toEqual(['round.end.usage']);
  });
  test('a round with usage: no loss', () => {
    const { lost } = write([
      { type: 'run.start' },
      { type: 'round.end', message: 'b', usage: { input: 5, output: 1 } },
      { type: 'run.end', status: 'completed' },
    ]);
    expect(lost).not.toContain('round.end.usage');
  });
});

describe('OpenCode writer: a round end without its message (an event built by hand off the model)', () => {
  test('writes no text part, so what it writes reads back without error', () => {
    const roundEnd = { type: 'round.end', round: 1 } as unknown as AgentEvent;
    const { text } = write([
      { type: 'run.start', round: 1 },
      roundEnd,
      { type: 'run.end', status: 'completed' },
    ]);
    const back = opencode.parse(text);
    expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(back.events.some((e) => e.type === 'text.delta')).toBe(false);
  });
});
