import { expect, test } from 'vitest';
import { claude } from '../../src/formats/claude/index';
import type { AgentEvent } from '../../src/model';
import { cycle, expectRefusedAlone, refusingWriter } from '../refused-writes';

// Found by test/fuzz/refusal.test.ts: the Claude writer refused a call's end only when it pushed
// the end's record, after it had taken an id for it (the messages after it got the next ones),
// written a missing init and let the call go; a BigInt or a cycle in its result was a TypeError
// out of JSON.stringify (the result as the block's text). The value the record keeps is checked
// first now, and a BigInt or a cycle is refused as an AgentwireError.

const write = refusingWriter((options) => claude.createEncoder(options));

const ends: ReadonlyArray<[string, AgentEvent, RegExp]> = [
  ['a BigInt result', { type: 'tool.end', call: 'c', ok: true, result: { v: BigInt(7) } }, /BigInt/],
  ['a cycle in its result', { type: 'tool.end', call: 'c', ok: true, result: cycle() }, /cycle/],
  [
    'an Infinity in its error',
    { type: 'tool.end', call: 'c', ok: false, error: { v: Number.POSITIVE_INFINITY } },
    /tool\.end\.error\.v: Infinity/,
  ],
];

for (const [what, bad, why] of ends) {
  test(`a call's end with ${what} is refused; it takes no id from the messages after it`, () => {
    const stream: AgentEvent[] = [
      { type: 'session.start', session: 's' },
      { type: 'run.start', input: 'go' },
      { type: 'text.delta', text: 'Looking.' },
      bad,
      { type: 'message.end' },
      { type: 'text.delta', text: 'Done.' },
      { type: 'run.end', status: 'completed' },
    ];
    expect(expectRefusedAlone(write, stream, bad, why).text).toContain('Done.');
  });
}
