import { describe, expect, test } from 'vitest';
import { hep } from '../../src/formats/hep/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, type RefusedWritesAndLosses, writeNotingLosses } from '../refused-writes';

// Found by test/fuzz/refusal.test.ts: the HEP writer checked a tool result JSON cannot hold where
// it wrote it as text, after it had written the stream's header (a refused first event took the
// hep_header down with it), written a held recoverable error's turn_error (lost with it) and
// reported the event's losses (each said once per field: a refused event took a later real
// event's report with it). Now the event is checked first.

// `losses`: each with the index of the event whose write reported it.
function write(events: readonly AgentEvent[]): RefusedWritesAndLosses {
  return writeNotingLosses(
    (onDiagnostic) => hep.createEncoder({ idSource: () => 's', onDiagnostic }),
    events,
  );
}

const refused: AgentEvent = { type: 'tool.end', call: 'c', name: 'n', ok: true, result: { v: BigInt(7) } };

test('a refused first event does not take the header written for it down', () => {
  const stream: AgentEvent[] = [refused, { type: 'run.start' }, { type: 'text.delta', text: 'hi' }];
  const { text } = expectRefusedAlone(write, stream, refused, /tool\.end\.result\.v: a BigInt/);
  expect(text).toContain('"type":"hep_header"');
});

test("a refused event after a recoverable error does not take the error's turn_error down", () => {
  const stream: AgentEvent[] = [
    { type: 'run.start' },
    { type: 'text.delta', text: 'hi' },
    { type: 'error', message: 'rate limited', fatal: false },
    refused,
    { type: 'run.end', status: 'completed' },
  ];
  const { text } = expectRefusedAlone(write, stream, refused, /tool\.end\.result\.v: a BigInt/);
  expect(text).toContain('"type":"turn_error"');
});

test("a refused event's losses are not reported, and a later event's are", () => {
  const stream: AgentEvent[] = [
    { type: 'run.start' },
    refused,
    { type: 'tool.end', call: 'd', name: 'n', ok: true, text: 'out', result: { v: 1 } },
    { type: 'run.end', status: 'completed' },
  ];
  const { refusals, losses } = write(stream);
  expect(refusals).toHaveLength(1);
  // Reported by the later event's write (the third), not the refused one's.
  expect(losses.filter(([, d]) => d.field === 'tool.end.result').map(([i]) => i)).toEqual([2]);
});

// Found by test/fuzz/refusal.test.ts and test/fuzz/orders.test.ts (round thirty): a number HEP
// writes as an integer (a count, a round's number as its turn id) that it cannot write exactly
// was refused where it was formatted, after the write had written the header, a compaction_start
// or taken the round's held tool results. Now it is checked first.
describe('a number HEP cannot write exactly is refused before the write changes anything', () => {
  test('a first event: the header is not taken down', () => {
    const bad: AgentEvent = { type: 'compaction.end', tokensFreed: 1e306 };
    const stream: AgentEvent[] = [bad, { type: 'text.delta', text: 'hi' }];
    const { text } = expectRefusedAlone(
      write,
      stream,
      bad,
      /compaction\.end\.tokensFreed: 1e\+306 is not a safe integer/,
    );
    expect(text).toContain('"type":"hep_header"');
  });

  test("a round's end: the round's held tool results are not taken down", () => {
    const bad: AgentEvent = { type: 'round.end', message: 'm', usage: { input: 0.5, output: 1 } };
    const stream: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'tool.start', call: 'c', name: 'n' },
      { type: 'tool.end', call: 'c', name: 'n', ok: true, text: 'out' },
      bad,
      { type: 'round.end', message: 'm' },
    ];
    const { text } = expectRefusedAlone(
      write,
      stream,
      bad,
      /round\.end\.usage\.input: 0\.5 is not a safe integer/,
    );
    expect(text).toContain('"tool_results":[{"id":"c"');
  });

  test("a run's end whose usage is written", () => {
    const bad: AgentEvent = { type: 'run.end', status: 'completed', usage: { input: 1, output: 2 ** 53 } };
    const stream: AgentEvent[] = [{ type: 'run.start' }, { type: 'text.delta', text: 'hi' }, bad];
    expectRefusedAlone(write, stream, bad, /run\.end\.usage\.output: 9007199254740992 is not a safe integer/);
  });

  test("a liveness frame's counts, and a round's number as the turn id", () => {
    for (const bad of [
      { type: 'tool.liveness', call: 'c', action: 'running', elapsedMs: 1.5 },
      { type: 'tool.liveness', call: 'c', action: 'running', elapsedMs: 1, outputBytes: 1e306 },
      { type: 'text.delta', text: 'x', round: 0.5 },
    ] as AgentEvent[]) {
      const stream: AgentEvent[] = [bad, { type: 'run.start' }, { type: 'text.delta', text: 'hi' }];
      const { text } = expectRefusedAlone(write, stream, bad, /is not a safe integer/);
      expect(text).toContain('"type":"hep_header"');
    }
  });
});
