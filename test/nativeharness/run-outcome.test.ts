import { describe, expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { connect, nativeharness } from '../../src/formats/nativeharness/index';
import type { AgentEvent, AgentEventOf } from '../../src/model';

// Issue #16, round ten: a turn the input leaves open, child_done's statuses, done's usage.
const env = (seq: number, type: string, turn: string | null, payload: string): string =>
  `{"seq":${seq},"ts":${1_767_225_600_000 + seq},"type":"${type}","workspace_id":"w","session_id":"s","turn_id":${turn === null ? 'null' : `"${turn}"`},"payload":${payload}}`;

const openTurn = [
  env(1, 'session_created', null, '{"v":1,"actor":"user","mode":"default"}'),
  env(2, 'turn_started', 't1', '{"input":"go"}'),
  env(3, 'token', 't1', '{"hop":1,"text":"working"}'),
];
const jsonl = `${openTurn.join('\n')}\n`;
const sse = openTurn.map((l, i) => `id: ${i + 1}\nevent: ${JSON.parse(l).type}\ndata: ${l}\n\n`).join('');
const json = `[\n${openTurn.join(',\n')}\n]\n`;

const fixed = { clock: () => 1_767_225_600_000, idSource: () => 'id', framing: 'jsonl' as const };

function write(events: AgentEvent[]): { text: string; losses: string[] } {
  const losses: string[] = [];
  const text = nativeharness.stringify(events, {
    ...fixed,
    onDiagnostic: (d: Diagnostic) => {
      if (d.code === 'loss') losses.push(d.field ?? d.message);
    },
  });
  return { text, losses };
}

describe('a turn the input leaves open (bug 9)', () => {
  test.each([
    ['jsonl', jsonl],
    ['sse', sse],
    ['json', json],
  ] as const)(
    '%s: ends with a synthetic run.end incomplete, and is written back without it',
    (framing, text) => {
      const { events, diagnostics } = nativeharness.parse(text);
      expect(diagnostics).toEqual([]);
      const end = events.at(-1) as AgentEventOf<'run.end'>;
      expect(end).toMatchObject({
        type: 'run.end',
        status: 'incomplete',
        run: 't1',
        session: 's',
        workspace: 'w',
      });
      expect(end.provenance?.synthetic).toBe(true);
      expect(events.filter((e) => e.type === 'run.end')).toHaveLength(1);
      expect(nativeharness.stringify(events, { framing })).toBe(text);
    },
  );

  test('a turn with its done, and a session-level event after it, get no synthetic end', () => {
    const text = `${[
      ...openTurn,
      env(
        4,
        'hop',
        't1',
        '{"hop":1,"text":"working","tool_calls":[],"stop_reason":"stop","usage":{"input_tokens":1,"output_tokens":1,"cost_usd":0}}',
      ),
      env(
        5,
        'done',
        't1',
        '{"status":"completed","stop_reason":"stop","usage":{"input_tokens":1,"output_tokens":1,"cost_usd":0}}',
      ),
      env(6, 'error', null, '{"message":"later","recoverable":true}'),
    ].join('\n')}\n`;
    const ends = nativeharness.parse(text).events.filter((e) => e.type === 'run.end');
    expect(ends.map((e) => (e as AgentEventOf<'run.end'>).status)).toEqual(['completed']);
  });

  test('a followed log (incompleteLine: hold) invents no end', () => {
    const decoder = nativeharness.createDecoder({ incompleteLine: 'hold' });
    const events = [...decoder.push(jsonl), ...decoder.end()];
    expect(events.map((e) => e.type)).toEqual(['session.start', 'run.start', 'text.delta']);
  });

  test('a live connection (connect) invents no end for a turn still running', async () => {
    let calls = 0;
    const fetch = async (): Promise<Response> => {
      calls++;
      if (calls > 1) return new Response(null, { status: 204 });
      return new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    };
    const got: AgentEvent[] = [];
    for await (const e of connect('http://x/stream', { fetch, minRetryMs: 1, retryMs: 1 })) got.push(e);
    expect(got.map((e) => e.type)).toEqual(['session.start', 'run.start', 'text.delta']);
  });
});

describe('child_done has no incomplete (bug 8)', () => {
  test('a child.end incomplete is written as failed, with a loss, and reads back without error', () => {
    const { text, losses } = write([
      { type: 'session.start', session: 's' },
      { type: 'run.start', run: 'r', input: 'q' },
      { type: 'child.start', child: 'c1', task: 'find callers' },
      { type: 'child.end', child: 'c1', status: 'incomplete' },
      { type: 'run.end', status: 'completed', usage: { input: 1, output: 1, costUsd: 0 } },
    ]);
    expect(text).toContain('"payload":{"child_id":"c1","status":"failed"}');
    expect(losses).toContain('child.end.status');
    const back = nativeharness.parse(text);
    expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(back.events.find((e) => e.type === 'child.end')).toMatchObject({ child: 'c1', status: 'failed' });
  });
});

describe("done's usage (bug 6) and the counts the wire has no key for (bug 10)", () => {
  const doneUsage = (text: string): unknown =>
    nativeharness.parse(text).events.find((e) => e.type === 'run.end')?.usage;
  const rounds = (a: object, b: object): AgentEvent[] => [
    { type: 'run.start', run: 'r', input: 'q' },
    { type: 'round.end', message: 'a', usage: a },
    { type: 'round.end', message: 'b', usage: b },
  ];

  test('a run.end without usage writes the sum of the hops written, never 0', () => {
    const { text } = write([
      ...rounds({ input: 50, output: 2, costUsd: 0.002 }, { input: 30, output: 5, costUsd: 0.001 }),
      { type: 'run.end', status: 'completed' },
    ]);
    expect(doneUsage(text)).toEqual({ input: 80, output: 7, costUsd: 0.003 });
  });

  test('the hops are summed exactly in decimal: costs 0.1 and 0.2 make done cost_usd 0.3', () => {
    const { text } = write([
      ...rounds({ input: 1, output: 1, costUsd: 0.1 }, { input: 1, output: 1, costUsd: 0.2 }),
      { type: 'run.end', status: 'completed' },
    ]);
    expect(text).toContain('"type":"done"');
    expect(text).toMatch(/"usage":\{"input_tokens":2,"output_tokens":2,"cost_usd":0\.3\}/);
    expect(doneUsage(text)).toEqual({ input: 2, output: 2, costUsd: 0.3 });
  });

  test("the run.end's own usage wins; its missing counts come from the hops", () => {
    const { text } = write([
      ...rounds({ input: 50, output: 2 }, { input: 30, output: 5 }),
      { type: 'run.end', status: 'completed', usage: { input: 100, output: 9, costUsd: 0.5 } },
    ]);
    expect(doneUsage(text)).toEqual({ input: 100, output: 9, costUsd: 0.5 });
    const partial = write([
      ...rounds({ input: 50, output: 2 }, { input: 30, output: 5 }),
      { type: 'run.end', status: 'completed', usage: { costUsd: 0.25 } },
    ]);
    expect(doneUsage(partial.text)).toEqual({ input: 80, output: 7, costUsd: 0.25 });
  });

  test('a turn counts its own hops only', () => {
    const { text } = write([
      ...rounds({ input: 50, output: 2 }, { input: 30, output: 5 }),
      { type: 'run.end', status: 'completed' },
      { type: 'run.start', run: 'r2', input: 'again' },
      { type: 'round.end', message: 'c', usage: { input: 7, output: 1 } },
      { type: 'run.end', status: 'completed' },
    ]);
    const ends = nativeharness.parse(text).events.filter((e) => e.type === 'run.end');
    expect(ends.map((e) => e.usage)).toEqual([
      { input: 80, output: 7, costUsd: 0 },
      { input: 7, output: 1, costUsd: 0 },
    ]);
  });

  test('cacheRead, cacheWrite and reasoning are a loss (they stay counted in input / output)', () => {
    const { text, losses } = write([
      { type: 'run.start', run: 'r', input: 'q' },
      { type: 'round.end', message: 'a', usage: { input: 50, output: 9, cacheRead: 40, reasoning: 3 } },
      { type: 'run.end', status: 'completed', usage: { input: 50, output: 9, cacheWrite: 10 } },
    ]);
    expect(losses).toEqual(
      expect.arrayContaining([
        'round.end.usage.cacheRead',
        'round.end.usage.reasoning',
        'run.end.usage.cacheWrite',
      ]),
    );
    expect(doneUsage(text)).toEqual({ input: 50, output: 9, costUsd: 0 });
  });
});
