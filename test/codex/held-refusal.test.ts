import { expect, test } from 'vitest';
import { codex } from '../../src/formats/codex/index';
import type { AgentEvent } from '../../src/model';
import { cycle, expectRefusedAlone, refusingWriter } from '../refused-writes';

// Found by test/fuzz/refusal.test.ts: the Codex writer holds another format's message text until
// the next record, and wrote that `agent_message` item before a call's end; an end refused only
// in its item (a result JSON cannot hold) took the message down with it, and let its call go. A
// BigInt or a cycle in a failure's error was a TypeError out of JSON.stringify. The end's item is
// built first now, and a BigInt or a cycle is refused as an AgentwireError.

const write = refusingWriter((options) => codex.createEncoder(options));

const ends: ReadonlyArray<[string, AgentEvent, RegExp]> = [
  [
    'an Infinity result',
    { type: 'tool.end', call: 'c', name: 'lookup', ok: true, result: { v: Number.POSITIVE_INFINITY } },
    /Infinity/,
  ],
  [
    'a BigInt error',
    { type: 'tool.end', call: 'c', name: 'lookup', ok: false, error: { v: BigInt(7) } },
    /BigInt/,
  ],
  [
    'a cycle in its error',
    { type: 'tool.end', call: 'c', name: 'lookup', ok: false, error: cycle() },
    /cycle/,
  ],
];

for (const [what, bad, why] of ends) {
  test(`a call's end with ${what} is refused; the message held before it and its call are not lost`, () => {
    const stream: AgentEvent[] = [
      { type: 'run.start', input: 'go' },
      { type: 'tool.start', call: 'c', name: 'lookup', args: { q: 'x' } },
      { type: 'text.delta', text: 'Looking it up.' },
      bad,
      { type: 'tool.end', call: 'c', name: 'lookup', ok: true, text: 'found' },
      { type: 'run.end', status: 'completed' },
    ];
    expect(expectRefusedAlone(write, stream, bad, why).text).toContain('Looking it up.');
  });
}
