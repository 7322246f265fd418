import { expect, test } from 'vitest';
import { gemini } from '../../src/formats/gemini/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, type RefusedWritesAndLosses, writeNotingLosses } from '../refused-writes';

// Found by test/fuzz/refusal.test.ts: the Gemini writer checked a value JSON cannot hold where
// it wrote it, after it had counted the call (a refused tool.start was in the result's
// stats.tool_calls), flushed a held error (a failed run's end no longer said it once) and
// reported the event's losses (each said once per field: a refused event's report took a later
// real event's with it). Now the event is checked first.

// `losses`: each with the index of the event whose write reported it.
function write(events: readonly AgentEvent[]): RefusedWritesAndLosses {
  return writeNotingLosses(
    (onDiagnostic) => gemini.createEncoder({ idSource: () => 's', clock: () => 0, onDiagnostic }),
    events,
  );
}

const usage = { input: 1, output: 1 };

test('a refused tool.start is not counted in the result stats', () => {
  const refused: AgentEvent = { type: 'tool.start', call: 'c', name: 'n', args: { v: BigInt(7) } };
  const stream: AgentEvent[] = [
    { type: 'run.start', input: 'go', ts: 0 },
    refused,
    { type: 'run.end', status: 'completed', usage, ts: 0 },
  ];
  const { text } = expectRefusedAlone(write, stream, refused, /tool\.start\.args\.v: a BigInt/);
  expect(text).toContain('"tool_calls":0');
});

test("a refused event after a held error leaves the failed run's end saying it once", () => {
  const bad: AgentEvent = { type: 'tool.end', call: 'c', name: 'n', ok: false, error: { v: Number.NaN } };
  const stream: AgentEvent[] = [
    { type: 'run.start', input: 'go', ts: 0 },
    { type: 'error', message: 'boom', fatal: false, ts: 5 },
    bad,
    { type: 'run.end', status: 'failed', error: 'boom', ts: 5 },
  ];
  expectRefusedAlone(write, stream, bad, /tool\.end\.error\.v: NaN/);
});

test("a refused event's losses are not reported, and a later event's are", () => {
  const refused: AgentEvent = {
    type: 'tool.end',
    call: 'c',
    ok: true,
    result: { v: Number.POSITIVE_INFINITY },
  };
  const stream: AgentEvent[] = [
    { type: 'run.start', input: 'go', ts: 0 },
    refused,
    { type: 'tool.end', call: 'd', ok: true, text: 'out', result: { v: 1 }, ts: 0 },
    { type: 'run.end', status: 'completed', ts: 0 },
  ];
  const { refusals, losses } = write(stream);
  expect(refusals).toHaveLength(1);
  // Reported by the later event's write (the third), not the refused one's.
  expect(losses.filter(([, d]) => d.field === 'tool.end.result').map(([i]) => i)).toEqual([2]);
});
