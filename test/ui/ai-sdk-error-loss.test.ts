import { expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { aisdk } from '../../src/formats/ai-sdk/index';
import type { AgentEvent } from '../../src/model';

// A loss report must be true: it names a field a reader of the written bytes cannot get back.
// The AI SDK writer reported a warning's (a non-fatal error's) code, data and time lost, as if it
// were written as the `error` chunk a fatal error is (which carries its text only); the warning
// goes whole in a `data-agentwire.error` part, which reads back with all three. Reported once per
// field, the false report also took the true one of a later fatal error (its line unnamed).

const start: AgentEvent = { type: 'run.start', run: 'r1' };
const end: AgentEvent = { type: 'run.end', status: 'completed' };

/** The stream written, the `loss` diagnostics of its write, and the stream read back. */
function roundTrip(events: readonly AgentEvent[]): { losses: Diagnostic[]; back: AgentEvent[] } {
  const losses: Diagnostic[] = [];
  let n = 0;
  const encoder = aisdk.createEncoder({
    idSource: () => `id${n++}`,
    onDiagnostic: (d) => {
      if (d.code === 'loss') losses.push(d);
    },
  });
  let text = '';
  for (const e of events) text += encoder.write(e);
  text += encoder.end();
  return { losses, back: aisdk.parse(text).events };
}

// The fields of an error the stream itself states (its run and round) or that name no value.
const ENVELOPE = new Set(['type', 'provenance', 'run', 'round']);

/** The fields of `error` that `back` (its event read back) does not say the same of. */
function notReadBack(error: AgentEvent, back: AgentEvent | undefined): string[] {
  return Object.keys(error)
    .filter((k) => !ENVELOPE.has(k))
    .filter((k) => {
      const v = (back as Record<string, unknown> | undefined)?.[k];
      return JSON.stringify(v) !== JSON.stringify((error as Record<string, unknown>)[k]);
    })
    .map((k) => `error.${k}`)
    .sort();
}

test.each([
  ['a warning (non-fatal)', false],
  ['a fatal error', true],
])('%s: the losses reported are exactly the fields not read back', (_, fatal) => {
  const error: AgentEvent = {
    type: 'error',
    message: 'slow down',
    fatal,
    code: 'rate_limit',
    data: { retryAfter: 20 },
    ts: 1_767_225_600_411,
    session: 's1',
  };
  const { losses, back } = roundTrip([start, error, end]);
  const read = back.find((e) => e.type === 'error');
  expect(read).toBeDefined();
  const reported = losses.map((d) => d.field).filter((f) => f?.startsWith('error.'));
  expect(reported.sort()).toEqual(notReadBack(error, read));
  // What each kind carries: a warning all but its session; a fatal error its text alone.
  expect(reported).toEqual(
    fatal ? ['error.code', 'error.data', 'error.session', 'error.ts'] : ['error.session'],
  );
});

test("a warning's fields are no loss, and a later fatal error's own losses are reported at its line", () => {
  const warning: AgentEvent = { type: 'error', message: 'retrying', fatal: false, code: 'rate_limit', ts: 1 };
  const fatal: AgentEvent = {
    type: 'error',
    message: 'boom',
    fatal: true,
    code: 'provider_error',
    ts: 2,
    provenance: { format: 'nativeharness', line: 7, offset: 400 },
  };
  const { losses } = roundTrip([start, warning, fatal, end]);
  expect(losses.map((d) => d.message)).toEqual([
    'error.code (nativeharness line 7): ai-sdk has no place for code; later events with this field are not reported again',
    'error.ts (nativeharness line 7): ai-sdk has no place for ts; later events with this field are not reported again',
  ]);
});
