import { describe, expect, test } from 'vitest';
import type { Codec } from '../src/codec';
import { hep } from '../src/formats/hep/index';
import { highbar } from '../src/formats/highbar/index';
import { nativeharness } from '../src/formats/nativeharness/index';
import type { AgentEvent } from '../src/model';
import { expectRefusedAlone, writeNotingLosses } from './refused-writes';

// The writers whose readers check integer fields (HEP, highbar, nativeharness: `z.int()`, a
// nativeharness seq non-negative too). A value such a field cannot hold was written and its own
// reader rejected the record with a bare `pid: Invalid input` (highbar's pid 1.5, nativeharness's
// seq -1), or refused with a message naming neither the event's field nor what the wire needs
// (HEP's `usage.input`, `round`); HEP checked the figures where it wrote them, after it had
// ended the round (its held tool results gone), written its header or reported its losses. Each
// is refused first now, naming the event's field, the value and the wire field.

/** `events` through a new encoder of `codec`: the text, refusals and losses. */
function writer(codec: Codec) {
  return (events: readonly AgentEvent[]) =>
    writeNotingLosses(
      // A fixed clock: nativeharness stamps an event without a time with it.
      (onDiagnostic) => {
        const options = { idSource: () => 's', clock: () => 1_767_225_600_000, onDiagnostic };
        return codec.createEncoder(options);
      },
      events,
    );
}

/** The message `codec`'s writer refuses `bad` with (written after `before`). */
function refusal(codec: Codec, bad: AgentEvent, before: readonly AgentEvent[] = []): string | undefined {
  const { refusals } = writer(codec)([...before, bad]);
  expect(refusals.length).toBeLessThanOrEqual(1);
  return refusals[0];
}

const run: AgentEvent = { type: 'run.start' };

describe('HEP: an integer field it cannot hold is refused naming the field, the value and the wire field', () => {
  test.each([
    [
      { type: 'round.end', message: '', usage: { input: 1.5 } },
      "round.end.usage.input: 1.5 is not a safe integer, as HEP's turn_done.usage.input must be",
    ],
    [
      { type: 'round.end', message: '', usage: { output: 2 ** 60 } },
      `round.end.usage.output: ${2 ** 60} is not a safe integer, as HEP's turn_done.usage.output must be`,
    ],
    [
      { type: 'run.end', status: 'completed', usage: { input: Number.NaN } },
      "run.end.usage.input: NaN is not a safe integer, as HEP's turn_done.usage.input must be",
    ],
    [
      { type: 'tool.liveness', call: 'c', name: 'n', action: 'a', elapsedMs: 0.5 },
      "tool.liveness.elapsedMs: 0.5 is not a safe integer, as HEP's tool_liveness.elapsed_ms must be",
    ],
    [
      { type: 'tool.liveness', call: 'c', name: 'n', action: 'a', elapsedMs: 1, outputBytes: 1.25 },
      "tool.liveness.outputBytes: 1.25 is not a safe integer, as HEP's tool_liveness.output_bytes must be",
    ],
    [
      { type: 'compaction.end', tokensFreed: Number.POSITIVE_INFINITY },
      "compaction.end.tokensFreed: Infinity is not a safe integer, as HEP's compaction_end.tokens_freed must be",
    ],
    [
      { type: 'text.delta', text: 'x', round: 1.5 },
      "text.delta.round: 1.5 is not a safe integer, as HEP's turn_id must be",
    ],
    [
      { type: 'compaction.start', round: 2.5 },
      "compaction.start.round: 2.5 is not a safe integer, as HEP's turn_id must be",
    ],
  ] as Array<[AgentEvent, string]>)('%o', (bad, message) => {
    expect(refusal(hep, bad, [run])).toBe(message);
  });

  test("a round's end refused for its usage leaves the round open with its held tool results", () => {
    const bad: AgentEvent = { type: 'round.end', round: 1, message: '', usage: { input: 1.5 } };
    const stream: AgentEvent[] = [
      { type: 'run.start', round: 1 },
      { type: 'tool.start', call: 'c', name: 'n', args: {}, round: 1 },
      { type: 'tool.end', call: 'c', name: 'n', ok: true, text: 'done', round: 1 },
      bad,
      { type: 'round.end', round: 1, message: 'ok', usage: { input: 2 } },
      { type: 'run.end', status: 'completed' },
    ];
    const { text } = expectRefusedAlone(writer(hep), stream, bad, /round\.end\.usage\.input: 1\.5/);
    expect(text).toContain('"tool_results":[{"id":"c","name":"n","ok":true,"text":"done"}]');
  });

  test('a first event refused for its round does not take the header written for it down', () => {
    const bad: AgentEvent = { type: 'text.delta', text: 'x', round: 1.5 };
    const stream: AgentEvent[] = [bad, { type: 'text.delta', text: 'y', round: 1 }];
    const { text } = expectRefusedAlone(writer(hep), stream, bad, /text\.delta\.round: 1\.5/);
    expect(text.startsWith('{"type":"hep_header"')).toBe(true);
  });

  test("a refused event's losses are not reported", () => {
    // A usage's cache count has no place in HEP: reported lost by the round end that writes it.
    const bad: AgentEvent = { type: 'round.end', message: '', usage: { input: 0.5, cacheRead: 1 } };
    const good: AgentEvent = { type: 'round.end', message: '', usage: { input: 1, cacheRead: 1 } };
    const { refusals, losses } = writer(hep)([run, bad, good]);
    expect(refusals).toHaveLength(1);
    expect(losses.map(([at, d]) => [at, d.field])).toEqual([[2, 'round.end.usage.cacheRead']]);
  });

  test('a negative count is an integer: written, and read back', () => {
    const { text, refusals } = writer(hep)([run, { type: 'round.end', message: '', usage: { input: -1 } }]);
    expect(refusals).toEqual([]);
    expect(hep.parse(text).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});

describe("highbar: a pid that is not a safe integer is refused, not written for its reader's `Invalid input`", () => {
  test.each([1.5, 2 ** 60, Number.NaN])('%s', (pid) => {
    const bad = { type: 'session.start', session: 's', pid } as AgentEvent;
    expect(refusal(highbar, bad)).toBe(
      `session.start.pid: ${pid} is not a safe integer, as highbar's hello.pid must be`,
    );
  });

  test('refused alone', () => {
    const bad = { type: 'session.start', session: 's', pid: 1.5 } as AgentEvent;
    expectRefusedAlone(writer(highbar), [bad, run, { type: 'text.delta', text: 'x' }], bad, /pid: 1\.5/);
  });
});

describe("nativeharness: a negative seq is refused, not written for its reader's `Invalid input`", () => {
  test('its message names the field, the value and what the envelope needs', () => {
    expect(refusal(nativeharness, { type: 'run.start', seq: -1 })).toBe(
      "run.start.seq: -1 is not a non-negative safe integer, as nativeharness's seq must be",
    );
    expect(refusal(nativeharness, { type: 'run.start', seq: 1.5 })).toBe(
      "run.start.seq: 1.5 is not a non-negative safe integer, as nativeharness's seq must be",
    );
  });

  test('refused alone', () => {
    const bad: AgentEvent = { type: 'text.delta', text: 'x', seq: -1 };
    expectRefusedAlone(writer(nativeharness), [run, bad, { type: 'text.delta', text: 'y' }], bad, /seq: -1/);
  });
});

describe('nativeharness: a seq refused takes nothing else down', () => {
  /** A conversion's writer: from another format, made a conforming session. */
  const conform = (events: readonly AgentEvent[]) =>
    writeNotingLosses((onDiagnostic) => {
      const options = { idSource: () => 's', clock: () => 1_767_225_600_000, conform: true, onDiagnostic };
      return nativeharness.createEncoder(options);
    }, events);

  test("a first event's session_created is not taken down", () => {
    const bad: AgentEvent = { type: 'run.start', seq: -1 };
    expectRefusedAlone(conform, [bad, run, { type: 'text.delta', text: 'y' }], bad, /seq: -1/);
  });

  test("a call's start is not counted for its hop", () => {
    const bad: AgentEvent = { type: 'tool.start', call: 'c', name: 'n', args: {}, seq: 1.5 };
    const stream: AgentEvent[] = [
      run,
      { type: 'text.delta', text: 'y' },
      bad,
      { type: 'round.end', message: 'm' },
    ];
    expectRefusedAlone(conform, stream, bad, /seq: 1\.5/);
  });
});
