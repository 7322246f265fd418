import fc from 'fast-check';
import { expect, test } from 'vitest';
import { type Diagnostic, FORMATS, type Format } from '../../src/diagnostics';
import { codecFor } from '../../src/formats/index';
import type { AgentEvent } from '../../src/model';
import { isAgentEvent } from '../../src/model-guard';
import { FUZZ_RUNS } from '../runs';
import { event } from './events';
import { viewAndTrace } from './views';
import { writeAsConversion } from './writes';

// Writers fed events in orders no decoder produces. A decoder hands a writer a run's events in
// the order its format has them; a supervisor's own code (or a damaged stream) may hand it
// anything: a tool's end before its start or with no start, a delta after the run's end, the same
// call, run or round id reused across runs, a round that never starts, a child that ends twice.
// The promise: a writer never throws (it refuses an event it cannot write, as an error
// diagnostic), and what it writes its own decoder reads back without an error of its own, each
// event read back a canonical event. The events here are built from small pools of ids so that
// reuse and misordering are the common case, not the rare one.

const errors = (ds: readonly Diagnostic[]) => ds.filter((d) => d.severity === 'error');

function readsBack(to: Format, from: Format, events: readonly AgentEvent[]): void {
  const written = writeAsConversion(from, to, events);
  const said = written.diagnostics.map((d) => `${d.severity}: ${d.message}`).join('\n');
  const what = `${to} (as from ${from}) of ${JSON.stringify(events)}\nwrote:\n${written.output}\nsaid:\n${said}`;
  const back = codecFor(to)!.parse(written.output, { maxLineBytes: 64 * 1024 * 1024, maxDepth: 256 });
  expect(
    errors(back.diagnostics).map((d) => `line ${d.line}: ${d.message}`),
    `${what}\n${to} reads back what it wrote`,
  ).toEqual([]);
  for (const e of back.events) expect(isAgentEvent(e), `${what}\nread back: ${JSON.stringify(e)}`).toBe(true);
}

// A case is 13 writers twice and 13 reads of a few dozen events.
const RUNS = Math.max(50, Math.floor(FUZZ_RUNS / 2));

test('every writer, fed events in orders no decoder produces, writes what its decoder reads back', () => {
  fc.assert(
    fc.property(fc.array(event, { maxLength: 30 }), fc.boolean(), (events, converted) => {
      for (const to of FORMATS) {
        // A conversion from another format (the writers' conversion defaults: ids allocated,
        // envelopes conformed) or the writer's own format (the events a library user builds).
        const from: Format = converted ? (to === 'hep' ? 'codex' : 'hep') : to;
        readsBack(to, from, events);
      }
    }),
    { numRuns: RUNS },
  );
});

test('the timeline and the tracer take events in any order, and the tracer ends every span', () => {
  fc.assert(
    fc.property(fc.array(event, { maxLength: 40 }), (events) => viewAndTrace(events)),
    { numRuns: RUNS },
  );
});
