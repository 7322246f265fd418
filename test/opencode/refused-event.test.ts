import { test } from 'vitest';
import { opencode } from '../../src/formats/opencode/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, type RefusedWrites, writeRefusing } from '../refused-writes';

// Found by test/fuzz/refusal.test.ts: the OpenCode writer writes another format's failed call's
// error as JSON text, with JSON.stringify alone: a BigInt or a cycle there threw a TypeError out
// of the writer (after it had written the step's start), and Infinity was written as null. Now
// the error is checked at the event's write, before anything, and refused as every value JSON
// cannot hold is.

function write(events: readonly AgentEvent[]): RefusedWrites {
  return writeRefusing(opencode.createEncoder({ clock: () => 0, onDiagnostic() {} }), events);
}

for (const [what, v] of [
  ['a BigInt', BigInt(7)],
  ['Infinity', Number.POSITIVE_INFINITY],
] as const) {
  test(`a failed call's error holding ${what} is refused, nothing else taken down`, () => {
    const refused: AgentEvent = { type: 'tool.end', call: 'c', name: 'n', ok: false, error: { v } };
    const stream: AgentEvent[] = [
      { type: 'run.start', input: 'go', ts: 0 },
      { type: 'text.delta', text: 'hi', ts: 0 },
      refused,
      { type: 'run.end', status: 'completed', ts: 0 },
    ];
    expectRefusedAlone(write, stream, refused, /tool\.end\.error\.v/);
  });
}
