import { test } from 'vitest';
import { cursor } from '../../src/formats/cursor/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, NON_FINITE, nonFiniteRefusal, refusingWriter } from '../refused-writes';

// The Cursor writer wrote a run's duration that JSON cannot hold (NaN, Infinity) as the `null`
// JSON.stringify makes of it, with nothing said. It refuses it now, as it refuses a call's time
// or a run's total JSON cannot hold: before the thinking it holds is closed or anything is written.

const write = refusingWriter((options) => cursor.createEncoder(options));

for (const [name, value] of NON_FINITE)
  for (const status of ['completed', 'failed'] as const)
    test(`a ${status} run's duration of ${name} is refused, not written as null`, () => {
      const bad: AgentEvent = { type: 'run.end', status, answer: 'done', durationMs: value };
      const stream: AgentEvent[] = [
        { type: 'session.start', session: 's' },
        { type: 'run.start', input: 'go' },
        { type: 'reasoning.delta', text: 'Thinking it over.' },
        bad,
        { type: 'text.delta', text: 'Done.' },
        { type: 'run.end', status: 'completed', durationMs: 5 },
      ];
      expectRefusedAlone(write, stream, bad, nonFiniteRefusal('run\\.end\\.durationMs', name));
    });
