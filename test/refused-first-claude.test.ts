import { describe, expect, test } from 'vitest';
import type { EncodeOptions } from '../src/codec';
import type { Diagnostic } from '../src/diagnostics';
import { codecFor } from '../src/formats/index';
import type { AgentEvent } from '../src/model';
import { writeRefusing } from './refused-writes';

// The house rule (test/refused-first.test.ts) for the Claude writer, round thirty-one: a number
// JSON cannot hold (NaN, Infinity) in a compaction's counts, a liveness report's elapsed time or
// a run's duration and usage was refused at its record's push, after the event had written an
// init, taken ids, ended the run's messages and answered its open calls (a run's end), or let go
// of the events held outside a run; a round's usage was kept on its message and refused at every
// line of it (and the run's result, a clean event, for the total); a call's arguments or result
// were refused after its own losses (a workspace) were reported.

/** `events` through a new Claude writer as a conversion writes them, with its diagnostics. */
function write(events: readonly AgentEvent[]) {
  const diagnostics: string[] = [];
  let n = 0;
  const options = {
    clock: () => 1_767_225_600_000,
    idSource: () => `id${n++}`,
    onDiagnostic: (d: Diagnostic) => diagnostics.push(d.message.replace(/\(event \d+\)/, '(event)')),
  };
  const encoder = codecFor('claude')!.createEncoder(options as EncodeOptions);
  return { ...writeRefusing(encoder, events), diagnostics };
}

/** The writer refuses `bad` alone and writes, and says, what the stream without it gets. */
function expectUntouched(events: readonly AgentEvent[], bad: AgentEvent, why: RegExp): void {
  const dirty = write(events);
  const clean = write(events.filter((e) => e !== bad));
  expect(dirty.refusals).toEqual([expect.stringMatching(why)]);
  expect(dirty.text).toBe(clean.text);
  expect(dirty.diagnostics.filter((m) => !why.test(m))).toEqual(clean.diagnostics);
}

const call: AgentEvent = { type: 'tool.start', call: 'c1', name: 'Bash', args: { command: 'ls' } };

describe('Claude: a number JSON cannot hold is refused before the event changes anything', () => {
  test("a compaction's count: no init written, no id taken, no loss said", () => {
    const bad: AgentEvent = { type: 'compaction.end', tokensFreed: Number.NaN, workspace: 'w' };
    const stream: AgentEvent[] = [bad, { type: 'run.start' }, { type: 'text.delta', text: 'hi' }];
    expectUntouched(stream, bad, /record\.compact_metadata\.pre_tokens: NaN/);
  });

  test("a liveness report's elapsed time: no init written, no id taken", () => {
    const bad: AgentEvent = {
      type: 'tool.liveness',
      call: 'c1',
      action: 'heartbeat',
      elapsedMs: Number.POSITIVE_INFINITY,
      workspace: 'w',
    };
    const stream: AgentEvent[] = [{ type: 'run.start' }, bad, call, { type: 'run.end', status: 'completed' }];
    expectUntouched(stream, bad, /record\.elapsed_time_seconds: Infinity/);
  });

  test("a round's usage: refused once, at the round's end, not at its lines or the run's result", () => {
    const bad: AgentEvent = { type: 'round.end', message: 'm', usage: { input: Number.NaN, output: 1 } };
    const stream: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'text.delta', text: 'hi' },
      call,
      bad,
      { type: 'round.end', message: 'm' },
      { type: 'run.end', status: 'completed' },
    ];
    expectUntouched(stream, bad, /record\.message\.usage\.input_tokens: NaN/);
  });

  test("a run's duration: its messages not ended, its calls not answered, its id not taken", () => {
    const bad: AgentEvent = {
      type: 'run.end',
      status: 'completed',
      durationMs: Number.NaN,
      workspace: 'w',
    };
    const stream: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'text.delta', text: 'hi' },
      call,
      bad,
      { type: 'text.delta', text: ' there' },
      { type: 'run.end', status: 'completed' },
    ];
    expectUntouched(stream, bad, /record\.duration_ms: NaN/);
  });

  test("a run's usage outside a run: the events held for the next run stay held", () => {
    const bad: AgentEvent = {
      type: 'run.end',
      status: 'failed',
      error: 'e',
      usage: { input: 1, output: Number.POSITIVE_INFINITY },
    };
    const stream: AgentEvent[] = [
      { type: 'text.delta', text: 'before' },
      bad,
      { type: 'run.start' },
      { type: 'run.end', status: 'completed' },
    ];
    expectUntouched(stream, bad, /record\.usage\.output_tokens: Infinity/);
  });
});

test("a call's usage kept for its message: refused at its own write, not at the message's lines", () => {
  const bad: AgentEvent = { type: 'usage', usage: { scope: 'call', input: 1, output: Number.NaN } };
  const stream: AgentEvent[] = [
    { type: 'run.start' },
    { type: 'text.delta', text: 'hi' },
    bad,
    { type: 'round.end', message: 'hi' },
    { type: 'run.end', status: 'completed' },
  ];
  expectUntouched(stream, bad, /record\.message\.usage\.output_tokens: NaN/);
});

describe('Claude: a call refused for what JSON cannot hold reports none of its losses', () => {
  test('a start whose arguments hold Infinity, with a workspace', () => {
    const bad: AgentEvent = {
      type: 'tool.start',
      call: 'c2',
      name: 'n',
      args: { v: Number.POSITIVE_INFINITY },
      workspace: 'w',
    };
    const stream: AgentEvent[] = [{ type: 'run.start' }, call, bad, { type: 'run.end', status: 'completed' }];
    expectUntouched(stream, bad, /tool\.start\.args\.v: Infinity/);
  });

  test('an end whose result holds NaN, with a workspace', () => {
    const bad: AgentEvent = {
      type: 'tool.end',
      call: 'c1',
      name: 'Bash',
      ok: true,
      result: { v: Number.NaN },
      workspace: 'w',
    };
    const stream: AgentEvent[] = [
      { type: 'run.start' },
      call,
      bad,
      { type: 'tool.end', call: 'c1', ok: true, text: 'done' },
      { type: 'run.end', status: 'completed' },
    ];
    expectUntouched(stream, bad, /record\.tool_use_result\.v: NaN/);
  });

  test('a permission request whose arguments hold Infinity, with a workspace, on a new lane', () => {
    const bad: AgentEvent = {
      type: 'approval.request',
      approval: 'a1',
      tool: 'n',
      args: { v: Number.POSITIVE_INFINITY },
      workspace: 'w',
      lane: 'child',
    };
    const stream: AgentEvent[] = [{ type: 'run.start' }, bad, call, { type: 'run.end', status: 'completed' }];
    expectUntouched(stream, bad, /record\.request\.input\.v: Infinity/);
  });
});

describe('Claude: a notice refused for what JSON cannot hold', () => {
  test('a rate limit whose data holds NaN: no id taken, no loss said', () => {
    const bad: AgentEvent = {
      type: 'notice',
      kind: 'rate_limit',
      message: 'm',
      data: { resetsAt: Number.NaN },
      workspace: 'w',
    };
    const stream: AgentEvent[] = [{ type: 'session.start' }, bad, { type: 'run.start' }];
    expectUntouched(stream, bad, /record\.rate_limit_info\.resetsAt: NaN/);
  });
});
