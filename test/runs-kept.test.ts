import { describe, expect, test } from 'vitest';
import type { AgentEvent, Diagnostic } from '../src/all';
import { convert } from '../src/all';
import { loadFixture } from '../src/node/fixtures';
import { FIXTURES, FORMATS, readBack, T, writeEvents } from './write-through';

// No run is dropped, invented or given another outcome by a conversion without a `loss` saying
// so: for every fixture and every target format, and for hand-built runs that stress the edges
// (runs cut off, empty, one after another, a second session start), the main agent's runs read
// back from the output have the outcomes the input's had, or the writer reported a loss on
// `run.start`, `run.end` or `run.end.status`. Outcomes are compared as a multiset: a format whose
// runs can overlap (nativeharness) says a run was cut off where its stream ends, after the runs
// that ended.

const RUN_FIELDS = new Set(['run.start', 'run.end', 'run.end.status']);

function outcomes(events: readonly AgentEvent[]): string {
  return events
    .filter((e): e is AgentEvent & { type: 'run.end' } => e.type === 'run.end' && e.lane === undefined)
    .map((e) => e.status)
    .sort()
    .join(',');
}

function runLoss(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.code === 'loss' && RUN_FIELDS.has(d.field ?? ''));
}

describe.each(FIXTURES.map((f) => [`${f.format}/${f.name}`, f] as const))('runs of %s', (_label, info) => {
  const fx = loadFixture(info.format, info.name);
  test.each(FORMATS.filter((f) => f !== fx.format))('→ %s: kept, or their loss reported', (to) => {
    const r = convert(fx.bytes, { from: fx.format, to, clock: () => T });
    if (runLoss(r.diagnostics)) return;
    expect(outcomes(readBack(to, r.output))).toBe(outcomes(fx.expected.events));
  });
});

const session = { type: 'session.start', session: 's1', ts: T } as AgentEvent;
const start = (input?: string): AgentEvent =>
  (input === undefined
    ? { type: 'run.start', ts: T + 1 }
    : { type: 'run.start', input, ts: T + 1 }) as AgentEvent;
const end = (status: string, more: object = {}): AgentEvent =>
  ({ type: 'run.end', status, ts: T + 9, ...more }) as AgentEvent;
const call = (id: string): AgentEvent[] => [
  { type: 'tool.start', call: id, name: 'ls', args: {}, ts: T + 2 },
  { type: 'tool.end', call: id, name: 'ls', ok: true, result: 'x', ts: T + 3 },
];
const message = (id: string): AgentEvent[] => [
  { type: 'message.start', role: 'assistant', message: id, ts: T + 2 },
  { type: 'text.delta', message: id, text: 'hi', ts: T + 2 },
  { type: 'message.end', message: id, ts: T + 3 },
];

const CASES: Record<string, AgentEvent[]> = {
  'an empty run cut off': [session, start('go'), end('incomplete')],
  'an empty run cut off, no input': [session, start(), end('incomplete')],
  'an empty run that completed': [session, start('go'), end('completed')],
  'an empty run that completed, no input': [session, start(), end('completed')],
  'two empty runs': [session, start('a'), end('completed'), start('b'), end('completed')],
  'a run, then one cut off': [
    session,
    start('a'),
    ...call('c1'),
    end('completed'),
    start(),
    ...call('c2'),
    end('incomplete'),
  ],
  'a run cut off, then one': [
    session,
    start('a'),
    ...call('c1'),
    end('incomplete'),
    start('b'),
    ...call('c2'),
    end('completed'),
  ],
  'a run cut off, then one, no inputs': [
    session,
    start(),
    ...call('c1'),
    end('incomplete'),
    start(),
    ...call('c2'),
    end('completed'),
  ],
  'a message cut off, then one': [
    session,
    start('a'),
    ...message('m1'),
    end('incomplete'),
    start('b'),
    ...message('m2'),
    end('completed'),
  ],
  'a failed run': [session, start('a'), ...call('c1'), end('failed', { error: 'boom' })],
  'a cancelled run': [session, start('a'), ...call('c1'), end('cancelled')],
  'two session starts before a run': [
    session,
    { ...session, session: 's2' } as AgentEvent,
    start('a'),
    ...call('c1'),
    end('completed'),
  ],
  'runs without a session start': [
    start('a'),
    ...call('c1'),
    end('completed'),
    start('b'),
    ...call('c2'),
    end('completed'),
  ],
};

describe.each(Object.entries(CASES))('runs of %s', (_name, events) => {
  test.each(FORMATS)('→ %s: kept, or their loss reported', (to) => {
    const { output, diagnostics } = writeEvents(to, events);
    if (runLoss(diagnostics)) return;
    expect(outcomes(readBack(to, output))).toBe(outcomes(events));
  });
});
