import { describe, expect, test } from 'vitest';
import { AgentwireError } from '../../src/diagnostics';
import { nativeharness } from '../../src/formats/nativeharness/index';
import type { AgentEvent } from '../../src/model';

// The SSE writer's `retry` option was checked where the first block was framed, after the first
// write had taken its seq (and, conforming, made its session): the refusal left the writer past
// the event it refused, and every later write went on from there. A `retry` an SSE reader would
// ignore (not ASCII digits: `-1`) was written. The option is checked when the writer is made.

const events: AgentEvent[] = [
  { type: 'run.start', input: 'go', ts: 1 },
  { type: 'text.delta', text: 'hi', ts: 2 },
];

function encoder(retry: number) {
  let n = 0;
  return nativeharness.createEncoder({ retry, conform: true, clock: () => 0, idSource: () => `id${n++}` });
}

describe('nativeharness writer: the SSE retry option', () => {
  test.each([
    [1.5, /retry: 1\.5 is not a safe integer/],
    [Number.NaN, /retry: NaN is not a safe integer/],
    [2 ** 53, /retry: 9007199254740992 is not a safe integer/],
    [-1, /retry: -1 is no wait an SSE reader takes/],
    ['10' as unknown as number, /retry: a string, not a number/],
  ])('retry %s is refused when the writer is made, before any write', (retry, message) => {
    let thrown: unknown;
    try {
      encoder(retry);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AgentwireError);
    expect((thrown as AgentwireError).diagnostic.code).toBe('unencodable');
    expect((thrown as AgentwireError).message).toMatch(message);
  });

  test('a good retry is written once, before the first event', () => {
    const e = encoder(2500);
    const text = events.map((ev) => e.write(ev)).join('') + e.end();
    expect(text.startsWith('retry: 2500\n\n')).toBe(true);
    expect(text.split('retry:').length).toBe(2);
    expect(encoder(0).write(events[0]!).startsWith('retry: 0\n\n')).toBe(true);
  });

  test('other framings have no retry: the option is not read', () => {
    for (const framing of ['jsonl', 'json'] as const) {
      const e = nativeharness.createEncoder({ retry: -1, framing, clock: () => 0, idSource: () => 'id' });
      expect(e.write(events[0]!)).not.toContain('retry');
    }
  });
});
