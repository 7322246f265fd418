import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { opencode } from '../../src/formats/opencode/index';
import type { AgentEvent } from '../../src/model';
import { type RefusedWrites, writeRefusing } from '../refused-writes';
import { FUZZ_RUNS } from '../runs';

// Round thirty-four: the OpenCode writer wrote a clock's time JSON cannot hold (NaN, an infinity)
// as `timestamp: null` for every record without a time of its own. It is refused now, before
// anything is written, held or said for the event: a probe of the write reads the clock (as
// often as the write does, no more) and the write takes its times.

const T = 1_767_225_600_000;

// Another format's events without times: a held step (a main-lane round's end without usage),
// held text, a call that ends and one that never does, a failed run's end.
const stream: AgentEvent[] = [
  { type: 'run.start', input: 'go' },
  { type: 'round.start', round: 1 },
  { type: 'text.delta', text: 'Hello', message: 'm1' },
  { type: 'tool.start', call: 'c1', name: 'read', args: { path: 'a' } },
  { type: 'tool.end', call: 'c1', name: 'read', ok: true, text: 'ok' },
  { type: 'round.end', message: 'm1' },
  { type: 'reasoning.delta', text: 'hmm' },
  { type: 'tool.start', call: 'c2', name: 'bash', args: { command: 'ls' } },
  { type: 'error', message: 'boom', fatal: true },
  { type: 'run.end', status: 'failed', error: 'boom' },
];

/** `events` written with a clock giving `bad` during the write of event `at` only (its end: -1). */
function write(events: readonly AgentEvent[], at?: number, bad: unknown = Number.NaN): RefusedWrites {
  let n = 0;
  let now: unknown = T;
  const clock = () => now as number;
  const encoder = opencode.createEncoder({ idSource: () => `id${n++}`, clock, onDiagnostic() {} });
  let text = '';
  const refusals: string[] = [];
  const r = writeRefusing({ write: (e) => encoder.write(e), end: () => '' }, events, (i) => {
    now = i === at ? bad : T;
  });
  text += r.text;
  refusals.push(...r.refusals);
  now = at === -1 ? bad : T;
  try {
    text += encoder.end();
  } catch (error) {
    refusals.push((error as Error).message);
  }
  return { text, refusals };
}

describe('OpenCode writer: a clock giving a time JSON cannot hold', () => {
  const clean = write(stream);
  test('the stream is written with the clock, never with null', () => {
    expect(clean.refusals).toEqual([]);
    expect(clean.text).not.toContain('null');
    expect(clean.text).toContain(`"timestamp":${T}`);
  });

  for (let at = 0; at < stream.length; at++)
    test(`NaN during event ${at} (${stream[at]!.type}): that event alone is refused, or nothing if it reads no time`, () => {
      const dirty = write(stream, at);
      expect(dirty.text).not.toContain('null');
      if (dirty.refusals.length === 0) {
        expect(dirty.text).toBe(clean.text);
        return;
      }
      expect(dirty.refusals).toEqual(['clock(): NaN is not a finite number; JSON cannot hold it']);
      expect(dirty.text).toBe(write(stream.filter((_, i) => i !== at)).text);
    });

  test.each([
    [Number.POSITIVE_INFINITY, 'clock(): Infinity is not a finite number; JSON cannot hold it'],
    ['soon', 'clock(): a string, not a number'],
  ])('%s is refused as NaN is', (bad, message) => {
    const at = stream.findIndex((e) => e.type === 'round.start');
    const dirty = write(stream, at, bad);
    expect(dirty.refusals).toEqual([message]);
    expect(dirty.text).toBe(write(stream.filter((_, i) => i !== at)).text);
  });

  test("the stream's end: refused, nothing written with null", () => {
    const open = stream.slice(0, 8);
    const dirty = write(open, -1);
    expect(dirty.refusals).toEqual(['clock(): NaN is not a finite number; JSON cannot hold it']);
    expect(dirty.text).not.toContain('null');
  });

  test('some events refuse: those whose records take the clock', () => {
    const refused = stream.map((_, at) => write(stream, at).refusals.length);
    expect(refused).toEqual([0, 1, 0, 1, 1, 0, 1, 1, 1, 1]);
  });
});

// The clock is read as often as before the check, once per record without a time, in order:
// each of its times is written once, in the order read.
test('a counting clock: read once per record without a time, its times written in order', () => {
  let t = 0;
  let n = 0;
  const e = opencode.createEncoder({ idSource: () => `id${n++}`, clock: () => ++t, onDiagnostic() {} });
  const text = stream.map((ev) => e.write(ev)).join('') + e.end();
  const stamps = [...text.matchAll(/"timestamp":(\d+)/g)].map((m) => Number(m[1]));
  expect(t).toBe(READS);
  expect(stamps).toEqual(Array.from({ length: READS }, (_, i) => i + 1));
});

// The reads of the writer before round thirty-four on this stream (one per record: 0, 1, 0, 1, 1,
// 0, 1, 2, 1, 3 by event, none at the end).
const READS = 10;

// The probe runs only where the write may read the clock (`mayReadClock`, a sieve): were the
// sieve to miss a read, the refusal would come after the write began. Random streams of another
// format's events, some with times, each with NaN during one write, hold it to the promise.
test('any event a clock of NaN refuses is refused alone', () => {
  const kinds: AgentEvent[] = [
    ...stream.slice(1),
    { type: 'round.end', message: 'm2', usage: { input: 1, output: 2 } },
    { type: 'round.end', message: 'x', lane: 'sub' },
    { type: 'text.delta', text: 'sub', lane: 'sub' },
    { type: 'message.start', role: 'assistant', message: 'm3' },
    { type: 'run.end', status: 'completed', usage: { input: 3, output: 4 } },
    { type: 'run.start', input: 'again' },
  ];
  const event = fc
    .tuple(fc.constantFrom(...kinds), fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }))
    .map(([e, ts]) => (ts === undefined ? e : { ...e, ts: T + ts }));
  fc.assert(
    fc.property(fc.array(event, { maxLength: 12 }), fc.nat(), (events, k) => {
      const at =
        events.length === 0 ? -1 : k % (events.length + 1) === events.length ? -1 : k % events.length;
      const dirty = write(events, at);
      const clean = write(events);
      expect(dirty.text).not.toContain(':null');
      if (dirty.refusals.length === 0) expect(dirty.text).toBe(clean.text);
      else if (at === -1) expect(dirty.refusals).toHaveLength(1);
      else {
        expect(dirty.refusals).toEqual(['clock(): NaN is not a finite number; JSON cannot hold it']);
        expect(dirty.text).toBe(write(events.filter((_, i) => i !== at)).text);
      }
    }),
    { numRuns: FUZZ_RUNS },
  );
});
