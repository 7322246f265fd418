import { expect, test } from 'vitest';
import { cursor } from '../../src/formats/cursor/index';
import type { AgentEvent } from '../../src/model';
import { cycle, expectRefusedAlone, NON_FINITE, nonFiniteRefusal, refusingWriter } from '../refused-writes';

// Found by test/fuzz/refusal.test.ts: the Cursor writer holds another format's thinking until
// the next event closes it, and wrote that `thinking/completed` line before the next event's own;
// a call's end refused only in its line (a BigInt or a cycle in its result or error, which was a
// TypeError out of JSON.stringify) took the thinking down with it. An Infinity in a result, and
// a run's duration of NaN or Infinity, were written as null. Each is refused first now, as an
// AgentwireError.

const write = refusingWriter((options) => cursor.createEncoder(options));

const ends: ReadonlyArray<[string, AgentEvent, RegExp]> = [
  ['a BigInt result', { type: 'tool.end', call: 'c', ok: true, result: { v: BigInt(7) } }, /BigInt/],
  ['a cycle in its error', { type: 'tool.end', call: 'c', ok: false, error: cycle() }, /cycle/],
  ['a BigInt error', { type: 'tool.end', call: 'c', ok: false, error: { v: BigInt(7) } }, /BigInt/],
  [
    'an Infinity result',
    { type: 'tool.end', call: 'c', ok: true, result: { v: Number.POSITIVE_INFINITY } },
    /tool\.end\.result\.v: Infinity/,
  ],
  // Round thirty-two: a run's duration JSON cannot hold was written as `duration_ms: null`.
  ...NON_FINITE.flatMap(([name, value]) =>
    (['completed', 'failed'] as const).map((status): [string, AgentEvent, RegExp] => [
      `a ${status} run's duration of ${name}`,
      { type: 'run.end', status, answer: 'done', durationMs: value },
      nonFiniteRefusal('run\\.end\\.durationMs', name),
    ]),
  ),
];

for (const [what, bad, why] of ends) {
  test(`an event with ${what} is refused; the thinking it would close is written`, () => {
    const stream: AgentEvent[] = [
      { type: 'session.start', session: 's' },
      { type: 'run.start', input: 'go' },
      { type: 'reasoning.delta', text: 'Thinking it over.' },
      bad,
      { type: 'text.delta', text: 'Done.' },
    ];
    expect(expectRefusedAlone(write, stream, bad, why).text).toContain('Thinking it over.');
  });
}
