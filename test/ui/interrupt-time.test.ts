import { describe, test } from 'vitest';
import { agui } from '../../src/formats/ag-ui/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, NON_FINITE, nonFiniteRefusal, refusingWriter } from '../refused-writes';

// Round thirty-two: a request (an approval, a question) still open when its run ends is an
// interrupt of the run's `RUN_FINISHED`, whose metadata says its time: one JSON cannot hold (NaN,
// Infinity) was refused only there, with the run's end (a clean event) and after the request's
// own record was written. Now refused at the request's own write, before anything (since round
// thirty-three by the writer's check of every event's `ts`).

const write = refusingWriter((o) => agui.createEncoder(o));

const requests: ReadonlyArray<(ts: number) => AgentEvent> = [
  (ts) => ({ type: 'approval.request', approval: 'a1', tool: 'bash', args: { command: 'ls' }, ts }),
  (ts) => ({ type: 'question', question: 'q1', questions: [{ text: 'Which one?' }], ts }),
];

describe('AG-UI: a request whose time JSON cannot hold is refused at its own write', () => {
  for (const [name, n] of NON_FINITE) {
    for (const [i, request] of requests.entries()) {
      test(`${i === 0 ? 'an approval' : 'a question'} with a time of ${name}`, () => {
        const bad = request(n);
        const stream: AgentEvent[] = [
          { type: 'run.start', input: 'go', ts: 0 },
          { type: 'text.delta', text: 'hi', ts: 1 },
          bad,
          { type: 'text.delta', text: ' there', ts: 2 },
          { type: 'run.end', status: 'completed', ts: 3 },
        ];
        // (Round thirty-three: refused as every event with such a time is, up front, naming it.)
        const type = i === 0 ? 'approval\\.request' : 'question';
        expectRefusedAlone(write, stream, bad, nonFiniteRefusal(`${type}\\.ts`, name));
      });
    }
  }
});
