import { describe, test } from 'vitest';
import { opencode } from '../../src/formats/opencode/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, NON_FINITE, nonFiniteRefusal, refusingWriter } from '../refused-writes';

// Round thirty-two: the OpenCode writer wrote a call's `startedAt` or `endedAt` (and its end's
// time stamp and exit code) of NaN or Infinity as the `null` JSON.stringify makes of it, in the
// `tool_use` state's `time` (`metadata.exit`), with nothing said. Now refused at the event's own
// write, as every writer refuses a number JSON cannot hold: a call's start, which waits for its
// end, before it is held.

const write = refusingWriter((o) => opencode.createEncoder({ ...o, clock: () => 5 }));

const start: AgentEvent = { type: 'tool.start', call: 'c1', name: 'bash', args: { command: 'ls' }, ts: 1 };
const end: AgentEvent = { type: 'tool.end', call: 'c1', ok: true, text: 'ok', ts: 2 };

function stream(bad: AgentEvent, at: 'start' | 'end'): AgentEvent[] {
  return [
    { type: 'run.start', input: 'go', ts: 0 },
    { type: 'text.delta', text: 'hi', ts: 0 },
    ...(at === 'start' ? [bad, end] : [start, bad]),
    { type: 'text.delta', text: 'done', ts: 3 },
    { type: 'run.end', status: 'completed', ts: 4 },
  ];
}

describe("OpenCode: a call's time JSON cannot hold is refused at its own write", () => {
  for (const [name, n] of NON_FINITE) {
    test(`a start's startedAt of ${name}: the call waits for no end`, () => {
      const bad: AgentEvent = { ...start, startedAt: n } as AgentEvent;
      expectRefusedAlone(
        write,
        stream(bad, 'start'),
        bad,
        nonFiniteRefusal('tool\\.start\\.startedAt', name),
      );
    });

    for (const field of ['startedAt', 'endedAt', 'ts', 'exitCode'] as const) {
      test(`an end's ${field} of ${name}`, () => {
        const bad = { ...end, [field]: n } as AgentEvent;
        expectRefusedAlone(write, stream(bad, 'end'), bad, nonFiniteRefusal(`tool\\.end\\.${field}`, name));
      });
    }
  }
});
