import { describe, expect, test } from 'vitest';
import type { EncodeOptions } from '../src/codec';
import type { Diagnostic, Format } from '../src/diagnostics';
import { codecFor } from '../src/formats/index';
import type { AgentEvent } from '../src/model';
import { writeRefusing } from './refused-writes';

// The house rule (test/refused-first.test.ts) for the AG-UI and Copilot writers, round
// thirty-one: a refused event is refused before anything is said or changed for it. The AG-UI
// writer reported the event's losses (a workspace) before it refused it, opened a step or a call
// for an event then refused for its round or metadata, closed a run's parts for a run's end then
// refused for its metadata, and let an event waiting for a run with a round JSON cannot hold take
// that run's start down with it.

/** `events` through a new `format` writer as a conversion writes them: bytes, refusals, diagnostics. */
function written(format: Format, events: readonly AgentEvent[]) {
  const said: string[] = [];
  let n = 0;
  const options = {
    clock: () => 1_767_225_600_000,
    idSource: () => `id${n++}`,
    // A loss names its event by index: the stream with the refused event has one more.
    onDiagnostic: (d: Diagnostic) => said.push(d.message.replace(/\(event \d+\)/, '(event)')),
  };
  const encoder = codecFor(format)!.createEncoder(options as EncodeOptions);
  return { ...writeRefusing(encoder, events), said };
}

/** `format` refuses `bad` alone (matching `why`) and writes and says what the stream without it gets. */
function expectRefusedFirst(format: Format, events: readonly AgentEvent[], bad: AgentEvent, why: RegExp) {
  const dirty = written(format, events);
  const clean = written(
    format,
    events.filter((e) => e !== bad),
  );
  expect(dirty.refusals).toEqual([expect.stringMatching(why)]);
  expect(dirty.text).toBe(clean.text);
  expect(dirty.said.filter((m) => !why.test(m))).toEqual(clean.said);
}

describe('AG-UI: a refused event says, opens and closes nothing', () => {
  test('an event waiting for a run with a round JSON cannot hold is refused as it comes', () => {
    const bad = { type: 'text.delta', text: 'x', round: Number.NaN } as AgentEvent;
    const stream: AgentEvent[] = [
      bad,
      { type: 'run.start', input: 'go' },
      { type: 'text.delta', text: 'hi' },
      { type: 'run.end', status: 'completed' },
    ];
    expectRefusedFirst('ag-ui', stream, bad, /round: NaN is not a finite number/);
  });

  test("a run's end refused for its metadata leaves the run's message and step open", () => {
    const bad: AgentEvent = { type: 'run.end', status: 'cancelled', durationMs: Number.POSITIVE_INFINITY };
    const stream: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'text.delta', text: 'hel' },
      bad,
      { type: 'text.delta', text: 'lo' },
      { type: 'run.end', status: 'completed' },
    ];
    expectRefusedFirst('ag-ui', stream, bad, /RUN_FINISHED\.metadata\.durationMs: Infinity/);
  });

  test("a call's start refused for its time opens no step and no call", () => {
    const bad: AgentEvent = { type: 'tool.start', call: 'c2', name: 'n', startedAt: Number.NaN };
    const stream: AgentEvent[] = [
      { type: 'run.start' },
      bad,
      { type: 'tool.start', call: 'c1', name: 'n', args: {} },
      { type: 'run.end', status: 'completed' },
    ];
    expectRefusedFirst('ag-ui', stream, bad, /TOOL_CALL_END\.metadata\.startedAt: NaN/);
  });

  test('an event refused for its value reports no loss of its workspace', () => {
    for (const bad of [
      { type: 'tool.end', call: 'c', name: 'n', ok: true, result: { v: Number.NaN }, workspace: 'w' },
      { type: 'notice', kind: 'k', message: 'm', data: { v: Number.NaN }, workspace: 'w' },
      { type: 'round.end', message: 'm', round: Number.NaN, workspace: 'w' },
    ] as AgentEvent[]) {
      const stream: AgentEvent[] = [
        { type: 'run.start' },
        { type: 'tool.start', call: 'c', name: 'n', args: {} },
        bad,
        { type: 'tool.end', call: 'c', name: 'n', ok: true, text: 't', workspace: 'w' },
        { type: 'run.end', status: 'completed' },
      ];
      expectRefusedFirst('ag-ui', stream, bad, /NaN is not a finite number/);
    }
  });
});
