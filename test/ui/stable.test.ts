import { describe, expect, test } from 'vitest';
import { agui, aisdk, claude } from '../../src/all';
import type { Codec } from '../../src/codec';
import type { Format } from '../../src/diagnostics';
import type { AgentEvent } from '../../src/model';

// The rules that make a conversion through a UI protocol stable (a second round trip changes
// nothing more): each written from canonical events, read back, and written again.

const CODECS: Array<[Format, Codec]> = [
  ['ag-ui', agui],
  ['ai-sdk', aisdk],
];

function strip(events: AgentEvent[]): unknown[] {
  return events.map((e) => {
    const { provenance: _p, session: _s, run: _r, ...rest } = e;
    return rest;
  });
}

const opts = () => {
  let n = 0;
  return { idSource: () => `id-${++n}` } as object;
};

describe.each(CODECS)('%s', (_format, codec) => {
  test('events that come before a run are read back before it, and written back as read', () => {
    const events: AgentEvent[] = [
      { type: 'session.start', model: 'm-1', cwd: '/w' },
      { type: 'notice', kind: 'info', message: 'hello' },
      { type: 'run.start' },
      { type: 'text.delta', text: 'Hi.' },
      { type: 'notice', kind: 'info', message: 'in the run' },
      { type: 'run.end', status: 'completed' },
    ];
    const wire = codec.stringify(events, opts());
    const read = codec.parse(wire);
    expect(read.diagnostics).toEqual([]);
    const types = strip(read.events).map((e) => (e as AgentEvent).type);
    expect(strip(read.events).slice(0, 3)).toEqual([
      { type: 'session.start', model: 'm-1', cwd: '/w' },
      { type: 'notice', kind: 'info', message: 'hello' },
      { type: 'run.start' },
    ]);
    // One said later in the run stays in it.
    expect(types.indexOf('notice', 2)).toBeGreaterThan(types.indexOf('text.delta'));
    // Read back, the run's opening record comes first again: the same bytes.
    expect(codec.stringify(read.events)).toBe(wire);
    expect(
      codec.stringify(
        read.events.map(({ provenance: _p, ...e }) => e as AgentEvent),
        opts(),
      ),
    ).toBe(wire);
  });
});

test('ai-sdk: a failed run whose error was already said reads back with that one error', () => {
  const events: AgentEvent[] = [
    { type: 'run.start' },
    { type: 'text.delta', text: 'Working.' },
    { type: 'error', message: 'rate limited', fatal: false },
    { type: 'run.end', status: 'failed', error: 'rate limited' },
  ];
  const wire = aisdk.stringify(events, opts());
  const read = aisdk.parse(wire);
  expect(read.diagnostics).toEqual([]);
  const errors = read.events.filter((e) => e.type === 'error');
  expect(errors.map((e) => e.fatal)).toEqual([false]);
  expect(read.events.at(-1)).toMatchObject({ type: 'run.end', status: 'failed', error: 'rate limited' });
  expect(aisdk.stringify(read.events)).toBe(wire);
  // A fatal error of its own is still one.
  const fatal = aisdk.parse(aisdk.stringify([events[0]!, { type: 'error', message: 'boom', fatal: true }]));
  expect(fatal.events.filter((e) => e.type === 'error').map((e) => e.fatal)).toEqual([true]);
});

describe('ag-ui: what the writer adds to satisfy the protocol reads back as nothing', () => {
  const roundTrip = (events: AgentEvent[]) => {
    const wire = agui.stringify(events, opts());
    const read = agui.parse(wire);
    expect(read.diagnostics).toEqual([]);
    expect(agui.stringify(read.events)).toBe(wire);
    return strip(read.events);
  };

  test('a subagent opened for a lane no child.start named, and closed by the run end', () => {
    const read = roundTrip([
      { type: 'run.start' },
      { type: 'text.delta', text: 'from the child', lane: 'sub_1' },
      { type: 'run.end', status: 'completed' },
    ]);
    expect(read.map((e) => (e as AgentEvent).type)).not.toContain('child.start');
    expect(read.map((e) => (e as AgentEvent).type)).not.toContain('child.end');
  });

  test('a run that did not end before the next one is incomplete, never completed', () => {
    const read = roundTrip([
      { type: 'run.start' },
      { type: 'text.delta', text: 'cut off' },
      { type: 'run.start' },
      { type: 'text.delta', text: 'again' },
      { type: 'run.end', status: 'completed' },
    ]);
    const ends = read.filter((e) => (e as AgentEvent).type === 'run.end') as Array<{ status: string }>;
    expect(ends.map((e) => e.status)).toEqual(['incomplete', 'completed']);
  });

  test('a reasoning signature reads back as a signature, not as redacted content', () => {
    const read = roundTrip([
      { type: 'run.start' },
      { type: 'reasoning.delta', text: 'think', message: 'r1', signature: 'sig' },
      { type: 'reasoning.delta', text: '', message: 'r1', redacted: 'opaque' },
      { type: 'text.delta', text: 'ok' },
      { type: 'run.end', status: 'completed' },
    ]);
    const opaque = read.filter((e) => {
      const r = e as { signature?: string; redacted?: string };
      return r.signature !== undefined || r.redacted !== undefined;
    });
    expect(opaque).toEqual([
      { type: 'reasoning.delta', text: '', message: 'r1', signature: 'sig', round: 1 },
      { type: 'reasoning.delta', text: '', message: 'r1', redacted: 'opaque', round: 1 },
    ]);
  });
});

test('claude writer: a call usage said before the message it names is that message’s usage', () => {
  // The AI SDK has no chunk for a message's start: its usage can read back ahead of it.
  const usage = { input: 10, output: 2, scope: 'call' as const, key: 'msg_1' };
  const events: AgentEvent[] = [
    { type: 'run.start' },
    { type: 'usage', usage },
    { type: 'message.start', role: 'assistant', message: 'msg_1' },
    { type: 'text.delta', text: 'Hi.', message: 'msg_1' },
    { type: 'run.end', status: 'completed' },
  ];
  const diagnostics: unknown[] = [];
  const out = claude.stringify(events, { onDiagnostic: (d: unknown) => diagnostics.push(d) } as object);
  // The one loss: the result's cost, which Claude always states and these events do not.
  expect(diagnostics.map((d) => (d as { field?: string }).field)).toEqual(['run.end.usage.costUsd']);
  const read = claude.parse(out).events.filter((e) => e.type === 'usage');
  expect(read.map((e) => (e.type === 'usage' ? [e.usage.input, e.usage.output, e.usage.key] : []))).toEqual([
    [10, 2, 'msg_1'],
  ]);
});

describe('ag-ui rounds', () => {
  test('a round numbered 0, or the same number twice, reads back with the numbers it was written with', () => {
    const events: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'round.start', round: 0 },
      { type: 'text.delta', text: 'a' },
      { type: 'round.end', round: 0, message: 'a' },
      { type: 'round.start', round: 0 },
      { type: 'text.delta', text: 'b' },
      { type: 'round.end', round: 0, message: 'b' },
      { type: 'run.end', status: 'completed' },
    ];
    const read = agui.parse(agui.stringify(events, opts()));
    const rounds = read.events.filter((e) => e.type === 'round.start').map((e) => e.round);
    expect(rounds).toEqual([0, 0]);
  });
});
