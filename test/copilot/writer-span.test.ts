import fc from 'fast-check';
import { afterEach, expect, test } from 'vitest';
import type { AgentEvent } from '../../src/all';
import type { Diagnostic } from '../../src/diagnostics';
import { COPILOT_SPAN_INLINE, CopilotEncoder } from '../../src/formats/copilot/encode';
import { FUZZ_RUNS } from '../runs';

// The writer follows another format's runs (src/run-span.ts) by calling into it only for a run's
// start and end, noting a byte written itself for every other event (`COPILOT_SPAN_INLINE`). This
// holds it to the general path (`spanBefore` and `spanAfter` around every event) on streams of
// another format's events: runs that end every way, write nothing or something, in the main lane
// or a child's, with the events held back (a first run start, a non-fatal error) among them.

const lane = fc.option(fc.constantFrom('child-1'), { nil: undefined });
const status = fc.constantFrom('completed', 'incomplete', 'failed', 'cancelled');
const event: fc.Arbitrary<AgentEvent> = fc
  .oneof(
    fc.record({
      type: fc.constant('run.start'),
      input: fc.option(fc.constantFrom('hi', ''), { nil: undefined }),
      lane,
    }),
    fc.record({ type: fc.constant('run.end'), status, lane }),
    fc.record({ type: fc.constant('session.start') }),
    fc.record({ type: fc.constant('user.message'), text: fc.constantFrom('q', ''), lane }),
    fc.record({ type: fc.constant('round.start'), round: fc.constantFrom(0, 1), lane }),
    fc.record({ type: fc.constant('round.end'), message: fc.constantFrom('a', ''), lane }),
    fc.record({
      type: fc.constant('message.start'),
      role: fc.constant('assistant'),
      message: fc.constantFrom('m-1', 'm-2'),
      lane,
    }),
    fc.record({
      type: fc.constant('text.delta'),
      text: fc.constantFrom('a', '"b"', ''),
      message: fc.constantFrom('m-1', 'm-2'),
      lane,
    }),
    fc.record({ type: fc.constant('message.end'), message: fc.constantFrom('m-1', 'm-2'), lane }),
    fc.record({
      type: fc.constant('tool.start'),
      call: fc.constantFrom('c-1'),
      name: fc.constant('ls'),
      lane,
    }),
    fc.record({
      type: fc.constant('tool.end'),
      call: fc.constantFrom('c-1'),
      ok: fc.boolean(),
      text: fc.constant('out'),
      lane,
    }),
    fc.record({ type: fc.constant('status'), status: fc.constantFrom('idle', 'busy'), lane }),
    fc.record({ type: fc.constant('error'), message: fc.constantFrom('boom'), fatal: fc.boolean(), lane }),
    fc.record({ type: fc.constant('usage'), usage: fc.constant({ input: 1, output: 2 }), lane }),
  )
  .map((r) => {
    const e: Record<string, unknown> = {
      ts: 1767225600000,
      provenance: { format: 'claude', line: 1, offset: 0 },
    };
    for (const [k, v] of Object.entries(r)) if (v !== undefined) e[k] = v;
    return e as unknown as AgentEvent;
  });

function write(
  events: AgentEvent[],
  inline: boolean,
): { text: string; error?: string; diagnostics: Diagnostic[] } {
  COPILOT_SPAN_INLINE.enabled = inline;
  const diagnostics: Diagnostic[] = [];
  let n = 0;
  const e = new CopilotEncoder(
    { idSource: () => `id-${++n}`, clock: () => 1767225600000 },
    { report: (d) => diagnostics.push(d) },
  );
  let text = '';
  try {
    for (const ev of events) text += e.write(ev);
    text += e.end();
  } catch (error) {
    return { text, error: String(error), diagnostics };
  }
  return { text, diagnostics };
}

afterEach(() => {
  COPILOT_SPAN_INLINE.enabled = true;
});

test('property: the run span followed inline and around every event agree (bytes, losses)', () => {
  fc.assert(
    fc.property(fc.array(event, { maxLength: 12 }), (events) => {
      expect(write(events, true)).toEqual(write(events, false));
    }),
    { numRuns: FUZZ_RUNS * 5 },
  );
});

// Runs in a row, as run-span.ts tells them apart: runs that write nothing, records between runs.
const step: fc.Arbitrary<AgentEvent> = fc
  .constantFrom<Record<string, unknown>>(
    { type: 'run.start' },
    { type: 'run.start', input: 'hi' },
    { type: 'run.end', status: 'incomplete' },
    { type: 'run.end', status: 'completed' },
    { type: 'user.message', text: 'q', lane: 'child-1' },
    { type: 'text.delta', text: 'a', message: 'm-1' },
  )
  .map(
    (e) => ({ ...e, ts: 1767225600000, provenance: { format: 'claude', line: 1, offset: 0 } }) as AgentEvent,
  );

test('property: the same on runs in a row (runs that write nothing, records between runs)', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 10 }), (events) => {
      expect(write(events, true)).toEqual(write(events, false));
    }),
    { numRuns: FUZZ_RUNS * 5 },
  );
});

test('a run that wrote its text and was cut off is no run lost', () => {
  const events = [
    { type: 'run.start', input: 'hi' },
    { type: 'message.start', role: 'assistant', message: 'm-1' },
    { type: 'text.delta', text: 'a', message: 'm-1' },
    { type: 'run.end', status: 'incomplete' },
    { type: 'run.start', input: 'again' },
  ].map(
    (e) => ({ ...e, ts: 1767225600000, provenance: { format: 'claude', line: 1, offset: 0 } }) as AgentEvent,
  );
  for (const inline of [true, false]) {
    const { diagnostics } = write(events, inline);
    expect(diagnostics.map((d) => d.message).join('\n')).not.toMatch(
      /no record for a run that wrote nothing/,
    );
  }
});

test('a run that wrote nothing after records outside any run is a run lost', () => {
  const events = [
    { type: 'run.start', input: 'hi' },
    { type: 'run.end', status: 'completed' },
    { type: 'user.message', text: 'q', lane: 'child-1' },
    { type: 'run.start' },
    { type: 'run.end', status: 'incomplete' },
  ].map(
    (e) => ({ ...e, ts: 1767225600000, provenance: { format: 'claude', line: 1, offset: 0 } }) as AgentEvent,
  );
  for (const inline of [true, false]) {
    const { diagnostics } = write(events, inline);
    expect(diagnostics.map((d) => d.message).join('\n')).toMatch(/no record for a run that wrote nothing/);
  }
});
