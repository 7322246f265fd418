import { expect, test } from 'vitest';
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
