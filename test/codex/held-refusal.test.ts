import { expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { codex } from '../../src/formats/codex/index';
import type { AgentEvent } from '../../src/model';
import { cycle, expectRefusedAlone, refusingWriter, writeRefusing } from '../refused-writes';

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

// Found by test/fuzz/refusal.test.ts (round thirty): a completed run whose usage Codex cannot
// count (a fraction, past 2^53) was refused after its end had written its answer's item (an item
// id taken: every later item numbered one on) and let the run's texts and the rounds' usage go.
test("a run's end with a usage Codex cannot count is refused before it writes or lets go anything", () => {
  for (const input of [0.5, 1e306]) {
    const bad: AgentEvent = { type: 'run.end', status: 'completed', answer: 'the answer', usage: { input } };
    const stream: AgentEvent[] = [
      { type: 'run.start', input: 'go' },
      { type: 'round.end', message: '', usage: { input: 3, output: 1 } },
      bad,
      { type: 'run.start', input: 'again' },
      { type: 'run.end', status: 'completed', answer: 'two' },
    ];
    const { text } = expectRefusedAlone(write, stream, bad, /Codex counts tokens in non-negative integers/);
    expect(text).toContain('"id":"item_0","type":"agent_message","text":"two"');
  }
});

test("a run's end with a usage Codex cannot count does not take the message held ahead of it down", () => {
  const bad: AgentEvent = { type: 'run.end', status: 'completed', usage: { output: 1e306 } };
  const stream: AgentEvent[] = [
    { type: 'run.start', input: 'go' },
    { type: 'text.delta', text: 'Running the suite.' },
    bad,
    { type: 'run.end', status: 'cancelled' },
  ];
  const { text } = expectRefusedAlone(write, stream, bad, /Codex counts tokens in non-negative integers/);
  expect(text).toContain('"text":"Running the suite."');
});

// Found by test/fuzz/refusal.test.ts (round thirty): a round's usage goes into its run's total,
// and one Codex cannot count (a fraction, past 2^53) was taken in without a word; the run's end,
// a clean event, was then refused for it, and the run had no `turn.completed`. The figure is left
// out of the total now, with a loss; the round and the run's end are written.
test("a round's usage Codex cannot count is left out of the run's total, said; nothing is refused", () => {
  for (const input of [0.5, 1e306]) {
    const events: AgentEvent[] = [
      { type: 'run.start', input: 'go' },
      { type: 'round.end', message: 'first', usage: { input: 3, output: 1 } },
      { type: 'round.end', message: 'hi', usage: { input, output: 1 } },
      { type: 'run.end', status: 'completed' },
    ];
    const losses: Diagnostic[] = [];
    const { refusals, text } = writeRefusing(
      codex.createEncoder({ onDiagnostic: (d) => losses.push(d) }),
      events,
    );
    expect(refusals).toEqual([]);
    expect(text).toContain('"text":"hi"');
    expect(text).toContain('"type":"turn.completed","usage":{"input_tokens":3,');
    expect(losses.map((d) => d.field)).toContain('round.end.usage');
  }
});
