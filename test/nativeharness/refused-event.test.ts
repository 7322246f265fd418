import { expect, test } from 'vitest';
import { nativeharness } from '../../src/formats/nativeharness/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, type RefusedWrites, writeRefusing } from '../refused-writes';

// Found by test/fuzz/refusal.test.ts: the nativeharness writer (conform, as convert writes)
// checked a call's arguments where it wrote them, after it had written the session_created a
// first event gets (taken down with the refusal) and marked the call open (a tool_result made up
// for a call never written at its turn's done). Now the event is checked first.

function write(events: readonly AgentEvent[]): RefusedWrites {
  let n = 0;
  const e = nativeharness.createEncoder({
    conform: true,
    framing: 'jsonl',
    clock: () => 0,
    idSource: () => `id${n++}`,
    onDiagnostic() {},
  });
  return writeRefusing(e, events);
}

const refused: AgentEvent = { type: 'tool.start', call: 'c', name: 'n', args: { v: BigInt(7) } };

test('a refused first event does not take the session_created written for it down', () => {
  const stream: AgentEvent[] = [refused, { type: 'run.start', input: 'go' }];
  const { text } = expectRefusedAlone(write, stream, refused, /tool\.start\.args\.v: a BigInt/);
  expect(text).toContain('"session_created"');
});

test('a refused tool.start is not left open for a made-up result', () => {
  const stream: AgentEvent[] = [
    { type: 'run.start', input: 'go' },
    refused,
    { type: 'run.end', status: 'completed' },
  ];
  const { text } = expectRefusedAlone(write, stream, refused, /tool\.start\.args\.v: a BigInt/);
  expect(text).not.toContain('tool_result');
});
