import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import type { AgentEvent } from '../../src/all';
import { AMP_JOIN_SHORTCUT } from '../../src/formats/amp/encode';
import { FUZZ_RUNS } from '../runs';
import { type Written, writeAmp } from './write-events';

// The Amp writer joins another format's text deltas into one text block. A delta that extends
// the block the last event left (same lane, nothing else gathered since) takes a shortcut beside
// the general path (docs/performance.md, "Amp and Copilot"). These properties hold the two
// equal on random event streams of other formats and of Amp itself: the same bytes, written
// event by event, and the same diagnostics (losses), with the shortcut on and off.

const text = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', 'é', 'a'), maxLength: 4 }),
);
const lane = fc.constantFrom<string | undefined>(undefined, undefined, undefined, 'call_1', 'call_2', '');
const format = fc.constantFrom<'hep' | 'amp' | undefined>('hep', 'hep', undefined, 'amp');

function provenance(f: 'hep' | 'amp' | undefined, line: number): AgentEvent['provenance'] | undefined {
  return f === undefined ? undefined : { format: f, line, offset: line * 10 };
}

const event: fc.Arbitrary<AgentEvent> = fc
  .tuple(
    fc.constantFrom(
      'text',
      'text',
      'text',
      'text-extra',
      'reasoning',
      'tool.start',
      'tool.end',
      'round.end',
      'message.start',
      'run.start',
      'run.end',
      'tool.output',
    ),
    text,
    lane,
    format,
    fc.nat({ max: 3 }),
  )
  .map(([kind, t, l, f, line]) => {
    const e: Record<string, unknown> = (() => {
      switch (kind) {
        case 'text':
          return { type: 'text.delta', text: t, round: 1 };
        case 'text-extra':
          return { type: 'text.delta', text: t, message: 'm1', seq: 3 };
        case 'reasoning':
          return { type: 'reasoning.delta', text: t };
        case 'tool.start':
          return { type: 'tool.start', call: 'c1', name: 'Bash', args: { cmd: t } };
        case 'tool.end':
          return { type: 'tool.end', call: 'c1', ok: true, text: t };
        case 'round.end':
          return { type: 'round.end', message: t, stopReason: 'end_turn', usage: { input: 3, output: 2 } };
        case 'message.start':
          return { type: 'message.start', role: 'assistant' };
        case 'run.start':
          return { type: 'run.start' };
        case 'run.end':
          return { type: 'run.end', status: 'completed', answer: t };
        default:
          return { type: 'tool.output', call: 'c1', text: t };
      }
    })();
    e.session = 's-1';
    if (l !== undefined) e.lane = l;
    const p = provenance(f, line);
    if (p !== undefined) e.provenance = p;
    return e as unknown as AgentEvent;
  });

function write(events: AgentEvent[], shortcut: boolean): Written {
  AMP_JOIN_SHORTCUT.enabled = shortcut;
  const out = writeAmp(events, { session: 'T-1' });
  AMP_JOIN_SHORTCUT.enabled = true;
  return out;
}

describe('Amp writer: the text-join shortcut against the general path', () => {
  afterEach(() => {
    AMP_JOIN_SHORTCUT.enabled = true;
  });

  test('the same bytes after every event, and the same losses', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 24 }), (events) => {
        const copies = JSON.parse(JSON.stringify(events)) as AgentEvent[];
        const general = write(copies, false);
        const shortcut = write(JSON.parse(JSON.stringify(events)) as AgentEvent[], true);
        expect(shortcut.text).toBe(general.text);
        expect(shortcut.diagnostics).toEqual(general.diagnostics);
      }),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });

  test('a run of deltas from another format is one text block', () => {
    const deltas: AgentEvent[] = ['a', 'b', 'c'].map((t) => ({
      type: 'text.delta',
      text: t,
      session: 's-1',
      provenance: { format: 'hep', line: 1, offset: 0 },
    }));
    const end: AgentEvent = { type: 'round.end', message: 'abc', session: 's-1' };
    const out = write([...deltas, end], true).text;
    expect(out).toBe(write([...deltas, end], false).text);
    expect(out).toContain('"content":[{"type":"text","text":"abc"}]');
  });
});
