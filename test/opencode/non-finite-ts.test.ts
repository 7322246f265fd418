import { describe, test } from 'vitest';
import { opencode } from '../../src/formats/opencode/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, NON_FINITE, nonFiniteRefusal, refusingWriter } from '../refused-writes';

// Round thirty-three: another format's event whose `ts` is NaN or Infinity was written by the
// OpenCode writer with the `null` JSON.stringify makes of it (the record's `timestamp`, a text
// part's `time`), with nothing said, for every event type but a call's end (refused since round
// thirty-two). Now refused at the event's own write, before anything is written or held for it,
// as the Copilot writer refuses a time no timestamp can hold: a text delta held for its part,
// a call's start held for its end, a round's end held for the run's total likewise.

const write = refusingWriter((o) => opencode.createEncoder({ ...o, clock: () => 5 }));

// One event of each type this writer takes, on the main agent; ids no other event has.
const EVENTS: readonly AgentEvent[] = [
  { type: 'session.start' },
  { type: 'run.start', input: 'again' },
  { type: 'round.start', round: 9 },
  { type: 'message.start', role: 'assistant' },
  { type: 'text.delta', text: 'more' },
  { type: 'reasoning.delta', text: 'think' },
  { type: 'message.end' },
  { type: 'tool.start', call: 'c9', name: 'read', args: { path: 'a' } },
  { type: 'round.end', message: 'm', usage: { input: 1, output: 2 } },
  { type: 'round.end', message: 'm' },
  { type: 'error', message: 'boom', fatal: true },
  { type: 'error', message: 'warn', fatal: false },
  { type: 'notice', kind: 'info', message: 'n', severity: 'info' } as AgentEvent,
  { type: 'unknown', record: { x: 1 }, recordType: 'x' },
  { type: 'run.end', status: 'completed' },
  { type: 'run.end', status: 'failed', error: 'e' },
];

function stream(bad: AgentEvent): AgentEvent[] {
  return [
    { type: 'run.start', input: 'go', ts: 0 },
    { type: 'text.delta', text: 'hi', ts: 1 },
    { type: 'tool.start', call: 'c1', name: 'bash', args: { command: 'ls' }, ts: 2 },
    bad,
    { type: 'tool.end', call: 'c1', ok: true, text: 'ok', ts: 3 },
    { type: 'text.delta', text: 'done', ts: 4 },
    { type: 'round.end', message: 'done', ts: 5 },
    { type: 'run.end', status: 'completed', ts: 6, usage: { input: 3, output: 4 } },
  ];
}

describe("OpenCode: another format's ts JSON cannot hold is refused at its own write", () => {
  for (const [name, n] of NON_FINITE) {
    for (const e of EVENTS) {
      test(`${e.type} (${JSON.stringify(e).slice(0, 60)}) with ts ${name}`, () => {
        const bad = { ...e, ts: n } as AgentEvent;
        expectRefusedAlone(
          write,
          stream(bad),
          bad,
          nonFiniteRefusal(`${e.type.replace('.', '\\.')}\\.ts`, name),
        );
      });
    }
  }
});
