import { describe, expect, test } from 'vitest';
import type { AgentEvent, Diagnostic, Usage } from '../src/all';
import { convert } from '../src/all';
import { loadFixture } from '../src/node/fixtures';
import { addUsage } from '../src/usage';
import { FIXTURES, FORMATS, readBack, T, writeEvents } from './write-through';

// Usage is never lost, invented or double counted by a conversion without a `loss` saying so:
// for every fixture and every target format, and for hand-built runs that stress the rules of
// docs/model.md "Usage" (rounds and their run total, per-call figures with partial snapshots, a
// child's usage beside its parent's, runs cut off or failed), each main-agent run's usage total
// read back from the output equals the input's, figure by figure, or the writer reported a loss
// that covers the figure. A run's total is taken as a consumer takes it: the run.end usage, else
// the sum of its rounds', else its usage events deduped by key.

const FIGS = ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning', 'costUsd'] as const;

type Totals = Partial<Record<(typeof FIGS)[number], number>>;

// Each main-lane run's usage total, as docs/model.md tells a consumer to take it: the run.end
// usage; else the sum of its rounds' usage; else its usage events, deduped by key and without
// partial snapshots (a format that states usage only per API call reads back that way).
function totals(events: readonly AgentEvent[]): Totals[] {
  const out: Totals[] = [];
  let rounds: Totals | undefined;
  let calls = new Map<string, Totals>();
  for (const e of events) {
    if (e.lane !== undefined) continue;
    if (e.type === 'run.start') {
      rounds = undefined;
      calls = new Map();
    } else if (e.type === 'round.end' && e.usage !== undefined)
      rounds = addUsage(rounds ?? {}, pick(e.usage));
    else if (e.type === 'usage' && e.usage.final !== false)
      calls.set(e.usage.key ?? `#${calls.size}`, pick(e.usage));
    else if (e.type === 'run.end') {
      const fromCalls =
        calls.size === 0 ? undefined : [...calls.values()].reduce((t, u) => addUsage(t, u), {});
      out.push(e.usage !== undefined ? pick(e.usage) : (rounds ?? fromCalls ?? {}));
      rounds = undefined;
      calls = new Map();
    }
  }
  return out;
}
function pick(u: Usage): Totals {
  const t: Totals = {};
  for (const k of FIGS) if (u[k] !== undefined) t[k] = u[k];
  return t;
}

// A loss that accounts for a figure read back different: the figure's own field, the whole
// usage, the whole event that held it, or the lane of a child whose usage was folded into the
// main run because the format has no lanes.
function covers(field: string, figure: string): boolean {
  return (
    field.endsWith(`usage.${figure}`) ||
    field.endsWith('usage') ||
    field.endsWith('usage.final') ||
    field === 'round.end' ||
    field === 'run.end' ||
    field.endsWith('.lane')
  );
}

function usageLoss(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics
    .filter((d) => d.code === 'loss' && /usage|^(run|round)\.(start|end)$|\.lane$/.test(d.field ?? ''))
    .map((d) => d.field!);
}

// Each run's figures read back equal, or a loss covers each one that is not.
function expectKept(want: Totals[], got: Totals[], losses: string[]): void {
  if (want.length !== got.length) return; // a run lost or merged: runs-kept.test.ts's business
  const bad: string[] = [];
  for (let i = 0; i < want.length; i++) {
    for (const k of FIGS) {
      const w = want[i]![k];
      const g = got[i]![k];
      // An absent figure and a zero add up the same (a format may require the field).
      if ((w ?? 0) === (g ?? 0)) continue;
      if (losses.some((f) => covers(f, k))) continue;
      bad.push(`run ${i} ${k}: ${w} -> ${g}`);
    }
  }
  expect(`${bad.join('; ')} (losses: ${losses.join(', ')})`).toBe(` (losses: ${losses.join(', ')})`);
}

describe.each(FIXTURES.map((f) => [`${f.format}/${f.name}`, f] as const))('usage of %s', (_label, info) => {
  const fx = loadFixture(info.format, info.name);
  test.each(FORMATS.filter((f) => f !== fx.format))('→ %s', (to) => {
    const r = convert(fx.bytes, { from: fx.format, to, clock: () => T });
    const want = totals(fx.expected.events);
    const got = totals(readBack(to, r.output));
    expectKept(want, got, usageLoss(r.diagnostics));
  });
});

const session = { type: 'session.start', session: 's1', ts: T } as AgentEvent;
const start: AgentEvent = { type: 'run.start', input: 'go', ts: T + 1 } as AgentEvent;
const round = (text: string, usage?: object): AgentEvent[] => [
  { type: 'round.start', ts: T + 2 },
  { type: 'text.delta', text, ts: T + 2 },
  (usage === undefined
    ? { type: 'round.end', message: text, stopReason: 'end_turn', ts: T + 3 }
    : { type: 'round.end', message: text, stopReason: 'end_turn', usage, ts: T + 3 }) as AgentEvent,
];
const end = (status: string, usage?: object): AgentEvent =>
  (usage === undefined
    ? { type: 'run.end', status, ts: T + 9 }
    : { type: 'run.end', status, usage, ts: T + 9 }) as AgentEvent;
const U1 = { input: 1200, output: 30, cacheRead: 1000, costUsd: 0.0042 };
const U2 = { input: 1500, output: 45, cacheRead: 1200, costUsd: 0.0047 };
const SUM = { input: 2700, output: 75, cacheRead: 2200, costUsd: 0.0089 };

const CASES: Record<string, AgentEvent[]> = {
  'rounds with usage and the run their total': [
    session,
    start,
    ...round('a', U1),
    ...round('b', U2),
    end('completed', SUM),
  ],
  'rounds with usage, the run without': [
    session,
    start,
    ...round('a', U1),
    ...round('b', U2),
    end('completed'),
  ],
  'only the run with usage': [session, start, ...round('a'), end('completed', U1)],
  'two runs, each its own usage': [
    session,
    start,
    ...round('a', U1),
    end('completed', U1),
    start,
    ...round('b', U2),
    end('completed', U2),
  ],
  'a run cut off after a round with usage': [
    session,
    start,
    ...round('a', U1),
    ...round('b'),
    end('incomplete'),
  ],
  'a failed run with usage': [session, start, ...round('a', U1), end('failed', U1)],
  'usage per call, a partial snapshot then the final figure': [
    session,
    start,
    { type: 'usage', usage: { input: 1200, output: 1, key: 'm1', final: false }, ts: T + 2 } as AgentEvent,
    ...round('a'),
    { type: 'usage', usage: { ...U1, key: 'm1' }, ts: T + 3 } as AgentEvent,
    end('completed'),
  ],
  "a child's usage beside the run's": [
    session,
    start,
    { type: 'child.start', child: 'c1', name: 'helper', task: 'look', ts: T + 2 } as AgentEvent,
    ...round('c', U2).map((e) => ({ ...e, lane: 'c1' }) as AgentEvent),
    { type: 'child.end', child: 'c1', status: 'completed', usage: U2, ts: T + 4 } as AgentEvent,
    ...round('a', U1),
    end('completed', U1),
  ],
};

describe.each(Object.entries(CASES))('usage of %s', (_name, events) => {
  test.each(FORMATS)('→ %s', (to) => {
    const { output, diagnostics } = writeEvents(to, events);
    expectKept(totals(events), totals(readBack(to, output)), usageLoss(diagnostics));
  });
});
