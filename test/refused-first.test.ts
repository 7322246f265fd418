import { describe, expect, test } from 'vitest';
import type { EncodeOptions } from '../src/codec';
import type { Diagnostic, Format } from '../src/diagnostics';
import { codecFor } from '../src/formats/index';
import type { AgentEvent } from '../src/model';
import { cycle, type RefusedWrites, writeRefusing } from './refused-writes';

// The house rule (rounds 29-31): a writer that refuses an event leaves its state and output as
// if it had never been given: nothing written, no loss reported, no id taken, no run or lane
// opened. Round thirty-one: the AI SDK writer opened a run for a run's end (or start) on a lane
// with no run open, and closed the run's parts and step for a run's end, before the end's own
// checks; the highbar writer reported losses (a field it has no place for, a run's status, an ok
// call's error), and wrote a run's open calls, before its record refused the event; the Codex
// writer wrote the message it held, and reported the event's losses, before a file change's
// changes were refused; the nativeharness writer took the event's hop, call and losses (and, under
// conform, wrote the session_created a first event gets) before its seq was refused.

interface Writes extends RefusedWrites {
  /** Each diagnostic with the event whose write reported it (the last for the stream's end). */
  diagnostics: Array<[AgentEvent | undefined, string]>;
}

/** `events` through a new `format` writer, as a conversion writes them, with its diagnostics. */
function write(format: Format, events: readonly AgentEvent[], options: Record<string, unknown> = {}): Writes {
  const diagnostics: Array<[AgentEvent | undefined, string]> = [];
  let n = 0;
  let at = 0;
  const all = {
    clock: () => 1_767_225_600_000,
    idSource: () => `id${n++}`,
    // A loss names its event by index: the dirty stream has one more before it.
    onDiagnostic: (d: Diagnostic) =>
      diagnostics.push([events[at], d.message.replace(/\(event \d+\)/, '(event)')]),
    ...options,
  };
  const encoder = codecFor(format)!.createEncoder(all as EncodeOptions);
  const written = writeRefusing(encoder, events, (i) => {
    at = i;
  });
  return { ...written, diagnostics };
}

/**
 * `format` refuses `bad` alone (one refusal, matching `why`), and writes, and says, what the
 * stream without it gets: the same bytes, and the same diagnostics for the same events but for
 * the refusal (none reported for the refused event, none of a later event's used up by it).
 */
function expectUntouched(
  format: Format,
  events: readonly AgentEvent[],
  bad: AgentEvent,
  why: RegExp,
  options?: Record<string, unknown>,
): Writes {
  const dirty = write(format, events, options);
  const clean = write(
    format,
    events.filter((e) => e !== bad),
    options,
  );
  expect(dirty.refusals).toHaveLength(1);
  expect(dirty.refusals[0]).toMatch(why);
  expect(dirty.text).toBe(clean.text);
  expect(dirty.diagnostics.filter(([, m]) => !why.test(m))).toEqual(clean.diagnostics);
  return dirty;
}

describe('AI SDK: a refused run-level event opens, closes and reports nothing', () => {
  test("a run's end on a lane with no run open does not open the run (its waiting events stay)", () => {
    const bad: AgentEvent = {
      type: 'run.end',
      status: 'completed',
      lane: 'child',
      usage: { input: 1, output: Number.NaN },
    };
    const stream: AgentEvent[] = [
      { type: 'tool.start', call: 'c', name: 'n', workspace: 'w' },
      bad,
      { type: 'run.start' },
      { type: 'text.delta', text: 'hi' },
      { type: 'run.end', status: 'completed' },
    ];
    const { text } = expectUntouched('ai-sdk', stream, bad, /run\.end\.usage\.output: NaN/);
    expect(text.match(/"type":"start"/g)).toHaveLength(1);
  });

  test("a run's start on a lane with no run open does not open the run", () => {
    const bad: AgentEvent = { type: 'run.start', lane: 'child', context: { v: cycle() } };
    const stream: AgentEvent[] = [
      bad,
      { type: 'text.delta', text: 'waits for the run' },
      { type: 'run.start', run: 'r' },
      { type: 'run.end', status: 'completed' },
    ];
    expectUntouched('ai-sdk', stream, bad, /a cycle/);
  });

  test("a run's end refused for its figures leaves the run, its parts and step open", () => {
    for (const bad of [
      { type: 'run.end', status: 'completed', durationMs: Number.POSITIVE_INFINITY, workspace: 'w' },
      { type: 'run.end', status: 'failed', error: 'e', usage: { input: Number.NaN }, workspace: 'w' },
    ] as AgentEvent[]) {
      const stream: AgentEvent[] = [
        { type: 'run.start' },
        { type: 'round.start' },
        { type: 'text.delta', text: 'hi' },
        bad,
        { type: 'text.delta', text: ' there' },
        { type: 'run.end', status: 'completed', workspace: 'w' },
      ];
      expectUntouched('ai-sdk', stream, bad, /run\.end\.(durationMs|usage\.input)/);
    }
  });

  test("a round's usage that is no number is refused with its round, not with the run's end", () => {
    const bad: AgentEvent = { type: 'round.end', message: 'm', usage: { input: 1, output: Number.NaN } };
    const stream: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'round.start' },
      bad,
      { type: 'round.start' },
      { type: 'round.end', message: 'm', usage: { input: 2, output: 3 } },
      { type: 'run.end', status: 'completed' },
    ];
    const { text } = expectUntouched('ai-sdk', stream, bad, /round\.end\.usage\.output: NaN/);
    expect(text).toContain('"finish"');
  });
});

describe('highbar: a refused event reports no loss and writes no open call', () => {
  test("a run's end refused for its context: the run's open calls stay open, nothing said", () => {
    const bad: AgentEvent = {
      type: 'run.end',
      status: 'failed',
      workspace: 'w',
      context: { v: Number.NaN },
    };
    const stream: AgentEvent[] = [
      { type: 'run.start', input: 'go' },
      { type: 'tool.start', call: 'hb-1', name: 'n', args: {} },
      bad,
      { type: 'tool.end', call: 'hb-1', ok: true, text: 'done' },
      { type: 'run.end', status: 'completed', answer: 'a' },
    ];
    expectUntouched('highbar', stream, bad, /context\.v: NaN/);
  });

  test("an ok call's end refused for its result reports no loss of its error", () => {
    const bad: AgentEvent = {
      type: 'tool.end',
      call: 'hb-1',
      ok: true,
      error: 'x',
      result: { v: BigInt(7) },
    };
    const stream: AgentEvent[] = [
      { type: 'tool.start', call: 'hb-1', name: 'n', args: {} },
      bad,
      { type: 'tool.end', call: 'hb-1', ok: true, error: 'y', result: 1 },
    ];
    expectUntouched('highbar', stream, bad, /result\.v: a BigInt/);
  });

  test("a call's start whose time is no number is refused at the start, not with its end", () => {
    const bad: AgentEvent = {
      type: 'tool.start',
      call: 'c2',
      name: 'n',
      startedAt: Number.NaN,
      workspace: 'w',
    };
    const stream: AgentEvent[] = [
      bad,
      { type: 'tool.start', call: 'c1', name: 'n', args: {} },
      { type: 'run.end', status: 'completed', answer: 'a' },
    ];
    expectUntouched('highbar', stream, bad, /started_at: NaN/);
  });

  test('a record refused for its value reports nothing (an unknown line, a hello)', () => {
    for (const bad of [
      { type: 'unknown', recordType: 't', record: { type: 't', v: cycle() }, workspace: 'w' },
      { type: 'session.start', producer: 'p', tools: [{ v: Number.NaN }], workspace: 'w' },
    ] as AgentEvent[]) {
      const stream: AgentEvent[] = [
        bad,
        { type: 'unknown', recordType: 't', record: { type: 't' }, workspace: 'w' },
      ];
      expectUntouched('highbar', stream, bad, /(cycle|NaN)/);
    }
  });
});

describe('Codex: a refused record writes no held message and reports nothing', () => {
  test('a file change whose changes JSON cannot hold: the held message is not written for it', () => {
    const bad = {
      type: 'file.change',
      call: 'f',
      workspace: 'w',
      changes: [{ path: 'p', kind: 'add', v: Number.POSITIVE_INFINITY }],
    } as unknown as AgentEvent;
    const stream: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'text.delta', text: 'hel' },
      bad,
      { type: 'text.delta', text: 'lo' },
      { type: 'file.change', changes: [{ path: 'p', kind: 'add' }], workspace: 'w' },
      { type: 'run.end', status: 'completed' },
    ];
    expectUntouched('codex', stream, bad, /file\.change\.changes\[0\]\.v: Infinity/);
  });
});

describe('nativeharness: a seq not above the last is refused before the write changes anything', () => {
  test('its hop, losses and workspace are not taken; the next event is written as without it', () => {
    const bad = {
      type: 'text.delta',
      text: 'x',
      seq: 3,
      round: 7,
      message: 'm',
      workspace: 'w2',
    } as AgentEvent;
    const stream: AgentEvent[] = [
      { type: 'session.start', seq: 1 },
      { type: 'run.start', input: 'go', seq: 4 },
      bad,
      { type: 'text.delta', text: 'y', message: 'm2' },
      { type: 'tool.start', call: 'c', name: 'n', seq: 9 },
    ];
    const { text } = expectUntouched('nativeharness', stream, bad, /text\.delta\.seq: seq 3 is not above/, {
      framing: 'jsonl',
    });
    expect(text).not.toContain('"hop":7');
  });

  test("a call's start with a stale seq is not kept for its hop", () => {
    const bad: AgentEvent = { type: 'tool.start', call: 'c', name: 'n', seq: 2 };
    const stream: AgentEvent[] = [
      { type: 'run.start', seq: 5 },
      bad,
      { type: 'round.end', message: 'm' },
      { type: 'run.end', status: 'completed' },
    ];
    expectUntouched('nativeharness', stream, bad, /tool\.start\.seq: seq 2/, { framing: 'jsonl' });
  });

  test('under conform, a first event whose seq the session_created takes is refused before it', () => {
    const bad: AgentEvent = { type: 'text.delta', text: 'x', seq: 1 };
    const stream: AgentEvent[] = [bad, { type: 'run.start', input: 'go' }];
    const { text } = expectUntouched(
      'nativeharness',
      stream,
      bad,
      /text\.delta\.seq: seq 1 is not above the previous seq 1/,
      {
        framing: 'jsonl',
        conform: true,
      },
    );
    expect(text).toContain('"session_created"');
  });

  test("under conform, a run's end whose seq the open calls' results take is refused before them", () => {
    const bad: AgentEvent = { type: 'run.end', status: 'completed', seq: 4 };
    const stream: AgentEvent[] = [
      { type: 'run.start', input: 'go', seq: 2 },
      { type: 'tool.start', call: 'c', name: 'n', seq: 3 },
      bad,
      { type: 'run.end', status: 'completed', seq: 6 },
    ];
    expectUntouched('nativeharness', stream, bad, /run\.end\.seq: seq 4 is not above the previous seq 4/, {
      framing: 'jsonl',
      conform: true,
    });
  });
});
