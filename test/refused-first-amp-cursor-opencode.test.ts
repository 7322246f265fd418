import { describe, expect, test } from 'vitest';
import type { Diagnostic, Format } from '../src/diagnostics';
import type { AgentEvent } from '../src/model';
import { writeAsConversion } from './fuzz/writes';
import { cycle } from './refused-writes';

// The house rule (rounds 29-31, test/fuzz/refusal.test.ts): a writer that refuses an event leaves
// its output and diagnostics as if it had never been given: nothing written, no loss reported for
// it, no id taken, no line, run or lane opened. Round thirty-one, second wave: the Amp writer
// wrote the lines it held (and took a session id, counted a round) before a round's usage, a
// subagent's call usage or a run's duration or total was refused, and reported a call's or run's
// losses (a workspace, a cancelled status) before refusing it; the Cursor and OpenCode writers
// likewise (below).

/** Another format the events come from: a conversion's defaults (src/convert-stream.ts). */
const FROM: Format = 'highbar';

// A loss names the event by its index in the stream, and the dirty stream has one more.
const said = (ds: readonly Diagnostic[]) =>
  ds.map((d) => ({ ...d, message: d.message.replace(/\(event \d+\)/, '(event)') }));

/**
 * `to` refuses `bad` alone (one refusal, matching `why`), and writes, and says, what the stream
 * without it gets: the same bytes, the same diagnostics but for the refusal.
 */
function expectUntouched(to: Format, events: readonly AgentEvent[], bad: AgentEvent, why: RegExp): string {
  const dirty = writeAsConversion(FROM, to, events);
  const clean = writeAsConversion(
    FROM,
    to,
    events.filter((e) => e !== bad),
  );
  const refusals = dirty.diagnostics.filter(
    (d) => d.severity === 'error' && / not written: /.test(d.message),
  );
  expect(refusals.map((d) => d.message)).toEqual([expect.stringMatching(why)]);
  expect(dirty.output).toBe(clean.output);
  expect(said(dirty.diagnostics.filter((d) => !refusals.includes(d)))).toEqual(said(clean.diagnostics));
  return dirty.output;
}

describe('Amp: a refused event writes no held line and reports nothing', () => {
  test("a run's end refused for its duration: the held message is not written, no loss said", () => {
    const bad: AgentEvent = {
      type: 'run.end',
      status: 'cancelled',
      reason: 'stopped',
      durationMs: Number.NaN,
      workspace: 'w',
    };
    const stream: AgentEvent[] = [
      { type: 'run.start', input: 'go' },
      { type: 'text.delta', text: 'hi' },
      bad,
      { type: 'text.delta', text: ' there' },
      { type: 'run.end', status: 'completed', answer: 'a', workspace: 'w' },
    ];
    const out = expectUntouched('amp', stream, bad, /run\.end\.durationMs: NaN/);
    expect(out).toContain('"text":"hi there"');
  });

  test("a run's end refused for a total the lines do not add up to", () => {
    const bad: AgentEvent = {
      type: 'run.end',
      status: 'completed',
      usage: { input: 1, output: Number.POSITIVE_INFINITY },
    };
    const stream: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'text.delta', text: 'hi' },
      bad,
      { type: 'round.end', message: 'm', usage: { input: 1, output: 2 } },
      { type: 'run.end', status: 'completed', usage: { input: 1, output: 2 } },
    ];
    expectUntouched('amp', stream, bad, /usage\.output: Infinity/);
  });

  test("a round's usage refused: its message, another lane's lines and the session id stay as they were", () => {
    const bad: AgentEvent = {
      type: 'round.end',
      message: 'm',
      usage: { input: Number.NaN, output: 1 },
      workspace: 'w',
    };
    for (const lane of [undefined, 'child']) {
      const stream: AgentEvent[] = [
        { type: 'tool.start', call: 'child', name: 'Task', args: {}, lane: 'other' },
        { type: 'text.delta', text: 'main' },
        { ...bad, ...(lane === undefined ? {} : { lane }) } as AgentEvent,
        { type: 'text.delta', text: ' goes on' },
        { type: 'round.end', message: 'm', usage: { input: 2, output: 3 }, workspace: 'w' },
      ];
      expectUntouched('amp', stream, stream[2]!, /usage\.input: NaN/);
    }
  });

  test("a subagent's call usage refused: the subagent's message is not cut", () => {
    const bad: AgentEvent = { type: 'usage', lane: 'child', usage: { input: 1, output: Number.NaN } };
    const stream: AgentEvent[] = [
      { type: 'child.start', child: 'child', call: 'task-1', name: 'Task' },
      { type: 'text.delta', text: 'sub', lane: 'child' },
      bad,
      { type: 'text.delta', text: 'agent', lane: 'child' },
      { type: 'usage', lane: 'child', usage: { input: 1, output: 2 } },
    ];
    const out = expectUntouched('amp', stream, bad, /usage\.output: NaN/);
    expect(out).toContain('"text":"subagent"');
  });

  test("a call's start or end refused for its value reports no loss of its workspace", () => {
    for (const bad of [
      { type: 'tool.start', call: 'c2', name: 'n', args: { v: cycle() }, workspace: 'w' },
      { type: 'tool.end', call: 'c1', ok: true, result: { v: cycle() }, workspace: 'w' },
      { type: 'tool.end', call: 'c1', ok: false, error: { v: Number.NaN }, workspace: 'w' },
    ] as AgentEvent[]) {
      const stream: AgentEvent[] = [
        { type: 'tool.start', call: 'c1', name: 'n', args: {} },
        bad,
        { type: 'tool.end', call: 'c1', ok: true, text: 'done', workspace: 'w' },
      ];
      expectUntouched('amp', stream, bad, /a cycle|NaN/);
    }
  });
});

describe('Cursor: a refused event closes no thinking, takes no id and reports nothing', () => {
  test("a call's time JSON cannot hold: the held thinking stays open, no session id taken", () => {
    for (const bad of [
      { type: 'tool.start', call: 'c2', name: 'n', startedAt: Number.NaN, workspace: 'w' },
      { type: 'tool.end', call: 'c1', ok: true, endedAt: Number.POSITIVE_INFINITY, workspace: 'w' },
      { type: 'tool.end', call: 'c1', ok: true, startedAt: Number.NaN, workspace: 'w' },
    ] as AgentEvent[]) {
      const stream: AgentEvent[] = [
        { type: 'tool.start', call: 'c1', name: 'n', args: {} },
        { type: 'reasoning.delta', text: 'hm' },
        bad,
        { type: 'reasoning.delta', text: 'm' },
        { type: 'tool.end', call: 'c1', ok: true, text: 'done', workspace: 'w' },
      ];
      expectUntouched('cursor', stream, bad, /tool\.(start|end)\.ts: (NaN|Infinity)/);
    }
  });

  test("a run's total JSON cannot hold: refused before its cancelled status is said lost", () => {
    const bad: AgentEvent = {
      type: 'run.end',
      status: 'cancelled',
      usage: { input: 1, output: Number.NaN },
      workspace: 'w',
    };
    const stream: AgentEvent[] = [
      { type: 'reasoning.delta', text: 'hm' },
      bad,
      { type: 'run.end', status: 'cancelled', usage: { input: 1, output: 2 }, workspace: 'w' },
    ];
    expectUntouched('cursor', stream, bad, /run\.end\.usage\.output: NaN/);
  });

  test("a round's usage JSON cannot hold is refused with its round, not with the run's end", () => {
    const bad: AgentEvent = { type: 'round.end', message: 'm', usage: { input: Number.NaN, output: 1 } };
    const stream: AgentEvent[] = [
      { type: 'run.start', input: 'go' },
      { type: 'text.delta', text: 'hi' },
      bad,
      { type: 'round.end', message: 'm', usage: { input: 2, output: 3 } },
      { type: 'run.end', status: 'completed' },
    ];
    const out = expectUntouched('cursor', stream, bad, /round\.end\.usage\.input: NaN/);
    expect(out).toContain('"type":"result"');
  });
});

describe('OpenCode: a refused usage writes no held step or text and reports nothing', () => {
  test("a round's usage JSON cannot hold: the held text and the step's start are not written", () => {
    const bad: AgentEvent = {
      type: 'round.end',
      message: 'm',
      usage: { input: 1, output: Number.NaN },
      workspace: 'w',
    };
    const stream: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'text.delta', text: 'hi' },
      bad,
      { type: 'text.delta', text: ' there' },
      { type: 'round.end', message: 'm', usage: { input: 1, output: 2 }, workspace: 'w' },
      { type: 'run.end', status: 'completed' },
    ];
    const out = expectUntouched('opencode', stream, bad, /round\.end\.usage\.output: NaN/);
    expect(out).toContain('"text":"hi there"');
  });

  test("a run's total put on its last step, JSON cannot hold it: the held step stays held", () => {
    const bad: AgentEvent = {
      type: 'run.end',
      status: 'completed',
      usage: { input: Number.POSITIVE_INFINITY, output: 1 },
    };
    for (const before of [
      // The held round's step (a round without usage).
      [{ type: 'round.end', message: 'm' }],
      // The main step still open, with text held for it.
      [{ type: 'text.delta', text: 'hi' }],
    ] as AgentEvent[][]) {
      const stream: AgentEvent[] = [
        { type: 'run.start' },
        { type: 'round.start' },
        ...before,
        bad,
        { type: 'run.end', status: 'completed', usage: { input: 1, output: 2 } },
      ];
      expectUntouched('opencode', stream, bad, /round\.end\.usage\.input: Infinity/);
    }
  });
});
