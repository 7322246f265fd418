import { describe, test } from 'vitest';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, formatWriter, wrong } from '../refused-writes';

// Round thirty-seven (helper hB): the wrong-shape property (test/fuzz/wrong-shape.test.ts) found
// the Claude, Gemini, Amp and Copilot writers refusing a field of another shape late: after an
// `init` was written or an id taken for the event, at a later event's write (a field held in a
// gathered line, a held error or run start), or at the end; or throwing a TypeError (a BigInt
// summed, a `null` read as an object). Each case is one of its shrunk counterexamples, by class:
// the event is refused alone at its own write (the bytes are the stream's without it; one
// refusal, its own), whatever comes after it.

const writer = formatWriter;

/**
 * A run with a message, a call and a round, `bad` put in at `at` (1: right after the run's
 * start), `then` right after it; the run ends `status`.
 */
function stream(
  bad: AgentEvent,
  at = 1,
  then: AgentEvent[] = [],
  status: 'completed' | 'failed' = 'completed',
): AgentEvent[] {
  const events: AgentEvent[] = [
    { type: 'run.start', run: 'r', session: 's', input: 'go' },
    { type: 'text.delta', text: 'hi', round: 1 },
    { type: 'tool.start', call: 'c', name: 'n', args: {}, round: 1 },
    { type: 'tool.end', call: 'c', name: 'n', ok: true, text: 'out', round: 1 },
    { type: 'round.end', round: 1, message: 'm', usage: { input: 3, output: 2 } },
    { type: 'run.end', status, usage: { input: 3, output: 2 } },
  ];
  events.splice(at, 0, bad, ...then);
  return events;
}

/** The refusal's one wording (src/json.ts `wrongType`), or an unencodable value's. */
const REFUSED = /(, not (a string|a number|a boolean|an object|an array)|cannot be written as JSON)/;

describe.each<[string, string, AgentEvent, number?, AgentEvent[]?, ('completed' | 'failed')?]>([
  // Written after the run's `init` was (and an id taken for the init).
  ['claude', 'run.start.input given NaN', { type: 'run.start', input: wrong<string>(Number.NaN) }, 0],
  // Held for the message's lines, refused when they were written (the round's end).
  [
    'claude',
    'message.start.message given a BigInt',
    { type: 'message.start', role: 'assistant', message: wrong<string>(7n), round: 1 },
  ],
  // Subtracted in the record's counts: a TypeError.
  [
    'claude',
    'round.end.usage.input given a BigInt',
    { type: 'round.end', round: 1, message: 'm', usage: { input: wrong<number>(7n) } },
    2,
  ],
  [
    'claude',
    'compaction.end.tokensFreed given a BigInt',
    { type: 'compaction.end', tokensFreed: wrong<number>(7n) },
  ],
  [
    'claude',
    'tool.liveness.elapsedMs given a BigInt',
    { type: 'tool.liveness', call: 'c', action: 'heartbeat', elapsedMs: wrong<number>(7n) },
    3,
  ],
  [
    'claude',
    'run.end.usage.byModel.m1 given null',
    {
      type: 'run.end',
      status: 'completed',
      usage: { input: 1, byModel: { m1: wrong<{ input: number }>(null) } },
    },
    6,
  ],
  // Its result block's text: refused after an id was taken for its record.
  [
    'claude',
    'tool.end.text given a BigInt',
    { type: 'tool.end', call: 'c', ok: true, text: wrong<string>(7n), round: 1 },
    3,
  ],
  // The session every later record names; the tools of the `init` written at the next run.
  [
    'claude',
    'text.delta.session given a BigInt',
    { type: 'text.delta', text: 'x', session: wrong<string>(7n), round: 1 },
  ],
  [
    'claude',
    'session.start.tools given [BigInt]',
    { type: 'session.start', tools: wrong<string[]>([7n]) },
    0,
  ],
  // The result's stats: a TypeError in JSON.stringify.
  [
    'gemini',
    'run.end.durationMs given a BigInt',
    { type: 'run.end', status: 'completed', durationMs: wrong<number>(7n), usage: { input: 1 } },
    6,
  ],
  [
    'gemini',
    'run.end.usage.byModel given null',
    {
      type: 'run.end',
      status: 'completed',
      usage: { input: 1, byModel: wrong<Record<string, never>>(null) },
    },
    6,
  ],
  [
    'gemini',
    'tool.start.name given a BigInt',
    { type: 'tool.start', call: 'd', name: wrong<string>(7n), round: 1 },
  ],
  ['gemini', 'session.start.model given a BigInt', { type: 'session.start', model: wrong<string>(7n) }, 0],
  // Held (a non-fatal error for its run's outcome, a fatal one for its run's result).
  ['gemini', 'error.message given a BigInt', { type: 'error', message: wrong<string>(7n), fatal: false }],
  [
    'gemini',
    'error.code given a BigInt',
    { type: 'error', message: 'boom', code: wrong<string>(7n), fatal: true },
    1,
    [],
    'failed',
  ],
  // Held in the gathered assistant line: refused when it was written (the end).
  [
    'amp',
    'tool.start.call given a BigInt',
    { type: 'tool.start', call: wrong<string>(7n), name: 'n', round: 1 },
  ],
  [
    'amp',
    'text.delta.session given a BigInt',
    { type: 'text.delta', text: 'x', session: wrong<string>(7n), round: 1 },
    4,
  ],
  [
    'amp',
    'reasoning.delta.signature given a BigInt',
    { type: 'reasoning.delta', text: 'x', signature: wrong<string>(7n), round: 1 },
  ],
  // Read off nothing when the round's line was written: a TypeError.
  [
    'amp',
    'round.end.usage given null',
    { type: 'round.end', round: 1, message: 'm', usage: wrong<{ input: number }>(null) },
    2,
  ],
  [
    'amp',
    'run.end.usage given null',
    { type: 'run.end', status: 'completed', usage: wrong<{ input: number }>(null) },
    6,
  ],
  // Written after the lines gathered so far were.
  [
    'amp',
    'run.end.answer given a BigInt',
    { type: 'run.end', status: 'completed', answer: wrong<string>(7n) },
    5,
  ],
  // Its call names the subagent's lane in the lines after it.
  [
    'amp',
    'child.start.call given a BigInt',
    { type: 'child.start', child: 'k', call: wrong<string>(7n) },
    1,
    [{ type: 'text.delta', text: 'sub', lane: 'k' }],
  ],
  // Written after the run's start held before it was (its user message, the session's start).
  [
    'copilot',
    'approval.resolve.approval given a BigInt',
    { type: 'approval.resolve', approval: wrong<string>(7n), decision: 'allow' },
  ],
  // Held (the stream's first run start, a non-fatal error) for the event after it.
  ['copilot', 'run.start.input given a BigInt', { type: 'run.start', input: wrong<string>(7n) }, 0],
  ['copilot', 'error.message given a BigInt', { type: 'error', message: wrong<string>(7n), fatal: false }],
  // After the turn was opened for it.
  [
    'copilot',
    'tool.end.ok given a BigInt',
    { type: 'tool.end', call: 'c', ok: wrong<boolean>(7n), round: 1 },
    1,
  ],
  [
    'copilot',
    'text.delta.lane given a BigInt',
    { type: 'text.delta', text: 'x', lane: wrong<string>(7n), round: 1 },
  ],
  // Summed, subtracted, read off nothing: a TypeError.
  [
    'copilot',
    'run.end.usage.input given a BigInt',
    { type: 'run.end', status: 'completed', usage: { input: wrong<number>(7n) } },
    5,
  ],
  [
    'copilot',
    'usage.usage.byModel.m1 given null',
    { type: 'usage', usage: { scope: 'thread', byModel: { m1: wrong<{ input: number }>(null) } } },
  ],
  [
    'copilot',
    'question.questions.0 given null',
    { type: 'question', question: 'q', questions: wrong<[]>([null]) },
  ],
])('%s: %s', (format, _what, bad, at, then, status) => {
  test('refused alone, at its own write', () => {
    expectRefusedAlone(writer(format), stream(bad, at, then, status), bad, REFUSED);
  });
});
