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
// that run's start down with it. The Copilot writer reported a refused event's losses, released
// the run's start it held and lost it, opened a turn (a round of NaN), took a figure's key,
// counted it and wrote the open message and snapshots before it refused a count JSON cannot hold.

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

describe('Copilot: a refused event says, writes and counts nothing', () => {
  test("a run's first event refused for its count does not take the held run's start down", () => {
    const bad = { type: 'compaction.end', tokensFreed: Number.POSITIVE_INFINITY } as AgentEvent;
    const stream: AgentEvent[] = [
      { type: 'run.start', input: 'go' },
      bad,
      { type: 'text.delta', text: 'hi' },
      { type: 'run.end', status: 'completed' },
    ];
    expectRefusedFirst('copilot', stream, bad, /compaction\.end\.tokensFreed: Infinity/);
  });

  test('a figure refused for its count takes no key: the next figure of its key is written', () => {
    const bad: AgentEvent = { type: 'usage', usage: { input: Number.NaN, key: 'k' }, round: 1 };
    const stream: AgentEvent[] = [
      { type: 'run.start' },
      bad,
      { type: 'usage', usage: { input: 3, output: 4, key: 'k' } },
      { type: 'run.end', status: 'completed', usage: { input: 5, output: 4 } },
    ];
    expectRefusedFirst('copilot', stream, bad, /usage\.input: NaN/);
  });

  test("a round's end refused for its figure ends no message and no turn", () => {
    const bad: AgentEvent = { type: 'round.end', message: 'm', usage: { input: 1, output: Number.NaN } };
    const stream: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'text.delta', text: 'hel', message: 'm' },
      bad,
      { type: 'text.delta', text: 'lo', message: 'm' },
      { type: 'round.end', message: 'm', usage: { input: 1, output: 2 } },
      { type: 'run.end', status: 'completed' },
    ];
    expectRefusedFirst('copilot', stream, bad, /usage\.output: NaN/);
  });

  test("a run's end refused for its total writes no open message and no snapshot", () => {
    const bad: AgentEvent = { type: 'run.end', status: 'completed', usage: { input: 1, output: Number.NaN } };
    const stream: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'text.delta', text: 'hi', message: 'm' },
      { type: 'usage', usage: { input: 1, output: 1, key: 'k', final: false } },
      bad,
      { type: 'run.end', status: 'completed', usage: { input: 2, output: 2 } },
    ];
    expectRefusedFirst('copilot', stream, bad, /run\.end\.usage\.output: NaN/);
  });

  test('a round JSON cannot hold opens no turn, and a refused call reports no loss', () => {
    for (const bad of [
      { type: 'text.delta', text: 'x', round: Number.NaN },
      { type: 'tool.start', call: 'c', name: 'n', args: { v: Number.NaN }, workspace: 'w' },
    ] as AgentEvent[]) {
      const stream: AgentEvent[] = [
        { type: 'run.start' },
        bad,
        { type: 'text.delta', text: 'hi', workspace: 'w' },
        { type: 'round.end', message: 'm' },
        { type: 'run.end', status: 'completed' },
      ];
      expectRefusedFirst('copilot', stream, bad, /NaN is not a finite number/);
    }
  });
});
