import { expect, test } from 'vitest';
import { copilot } from '../../src/formats/copilot/index';
import type { AgentEvent } from '../../src/model';
import { type RefusedWrites, writeRefusing } from '../refused-writes';

// The Copilot writer checks an event's `ts` before it writes anything for it, but a record
// without one takes the clock's time, which was checked only where the record was written: a
// clock giving no time a timestamp can hold (NaN) refused the event after the run's start held
// before it was let go (lost) and an id taken. The clock is read once per write now, up front,
// and its time checked there; the records of the write share it.

const T = 1_767_225_600_000;

/** `events` written with a clock that gives NaN during the write of event `bad` only. */
function write(events: readonly AgentEvent[], bad?: number): RefusedWrites {
  let n = 0;
  let now = T;
  const encoder = copilot.createEncoder({ idSource: () => `id${n++}`, clock: () => now, onDiagnostic() {} });
  return writeRefusing(encoder, events, (i) => {
    now = i === bad ? Number.NaN : T;
  });
}

const stream: AgentEvent[] = [
  { type: 'run.start', input: 'go' },
  { type: 'text.delta', text: 'Hello', message: 'm1' },
  { type: 'tool.start', call: 'c1', name: 'read', args: { path: 'a' } },
  { type: 'tool.end', call: 'c1', name: 'read', ok: true, text: 'ok' },
  { type: 'text.delta', text: 'Done.', message: 'm2' },
  { type: 'run.end', status: 'completed' },
];

for (let bad = 1; bad < stream.length; bad++)
  test(`a clock of NaN refuses event ${bad} (${stream[bad]!.type}) alone`, () => {
    const dirty = write(stream, bad);
    expect(dirty.refusals).toEqual(['ts: NaN is no time a timestamp can hold']);
    expect(dirty.text).toBe(write(stream.filter((_, i) => i !== bad)).text);
  });
