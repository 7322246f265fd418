import { describe, expect, test } from 'vitest';
import { hep } from '../../src/formats/hep/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, formatWriter, writeNotingLosses, wrong } from '../refused-writes';

// Round thirty-seven: what the wrong-shape property (test/fuzz/wrong-shape.test.ts) found in the
// HEP, highbar, nativeharness and Codex writers, each as the small stream of its shrunk
// counterexample. A field left out or of another shape is refused with its event alone, at the
// event's own write: the bytes are the stream's without it (no header marked written for it, no
// turn id or hop or seq taken, no held call or run input kept to be refused later), and nothing
// but an AgentwireError is thrown.

const writer = formatWriter;

// HEP: the bad event first, so that a header it marked written (and a turn id it took) shows in
// the bytes of the events after it; their rounds are the writer's own (allocated lazily).
function hepStream(bad: AgentEvent): AgentEvent[] {
  return [
    bad,
    { type: 'run.start' },
    { type: 'text.delta', text: 'hi' },
    { type: 'tool.start', call: 'c', name: 'n', args: { a: 1 } },
    { type: 'tool.output', call: 'c', text: 'streamed' },
    { type: 'tool.end', call: 'c', name: 'n', ok: true },
    { type: 'round.end', message: 'm' },
    { type: 'run.end', status: 'completed' },
  ];
}

// highbar: a run whose input is held for its turn, the bad event after its start; a call whose
// start is held for its end.
function highbarStream(bad: AgentEvent): AgentEvent[] {
  return [
    { type: 'run.start', input: 'q' },
    bad,
    { type: 'tool.start', call: 'c', name: 'n', args: { a: 1 } },
    { type: 'tool.end', call: 'c', ok: true, text: 'out' },
    { type: 'run.end', status: 'completed', answer: 'a' },
  ];
}

// nativeharness: the bad event names round 5, the events after it none, so that a hop it took
// shows in their payloads (and a seq it took in their envelopes).
function nhStream(bad: AgentEvent): AgentEvent[] {
  return [
    { type: 'run.start', run: 'r', session: 's' },
    { type: 'text.delta', text: 'a' },
    bad,
    { type: 'text.delta', text: 'b' },
    { type: 'tool.start', call: 'c', name: 'n', args: {} },
    { type: 'tool.end', call: 'c', name: 'n', ok: true, text: 'out' },
    { type: 'round.end', message: 'm' },
    { type: 'run.end', status: 'completed' },
  ];
}

// HEP, the bad event after a round's end: a turn id it took opens a round the run's end then
// closes with a turn_done of its own.
function hepAfterRound(bad: AgentEvent): AgentEvent[] {
  return [
    { type: 'run.start' },
    { type: 'text.delta', text: 'hi' },
    { type: 'round.end', message: 'm' },
    bad,
    { type: 'run.end', status: 'completed' },
  ];
}

const STREAMS: Record<string, (bad: AgentEvent) => AgentEvent[]> = {
  hep: hepStream,
  highbar: highbarStream,
  nativeharness: nhStream,
};

describe.each<[string, string, AgentEvent, RegExp, ((bad: AgentEvent) => AgentEvent[])?]>([
  // HEP: spelled after the header was marked written and the round's turn id taken.
  [
    'hep',
    'tool.start.call deleted',
    { type: 'tool.start', name: 'n' } as unknown as AgentEvent,
    /^tool\.start\.call: missing, not a string$/,
  ],
  [
    'hep',
    'tool.start.name given a number',
    { type: 'tool.start', call: 'd', name: wrong<string>(7) },
    /^tool\.start\.name: a number, not a string$/,
  ],
  [
    'hep',
    'tool.start.argsSummary given an object',
    { type: 'tool.start', call: 'd', name: 'n', argsSummary: wrong<string>({ a: 'b' }) },
    /^tool\.start\.argsSummary: an object, not a string$/,
  ],
  // (A TypeError: the summary read the keys of null.)
  [
    'hep',
    'tool.start.args given null',
    { type: 'tool.start', call: 'd', name: 'n', args: wrong<Record<string, unknown>>(null) },
    /^tool\.start\.args: null, not an object$/,
  ],
  [
    'hep',
    'tool.end.name given a number',
    { type: 'tool.end', call: 'c', name: wrong<string>(7), ok: true },
    /^tool\.end\.name: a number, not a string$/,
  ],
  [
    'hep',
    'text.delta.text given a number',
    { type: 'text.delta', text: wrong<string>(7) },
    /^text\.delta\.text: a number, not a string$/,
  ],
  [
    'hep',
    'tool.output.call given a number',
    { type: 'tool.output', call: wrong<string>(7), text: 'x' },
    /^tool\.output\.call: a number, not a string$/,
  ],
  [
    'hep',
    'tool.liveness.action deleted',
    { type: 'tool.liveness', call: 'c', elapsedMs: 1 } as unknown as AgentEvent,
    /^tool\.liveness\.action: missing, not a string$/,
    hepAfterRound,
  ],
  [
    'hep',
    'tool.liveness.call given an array',
    { type: 'tool.liveness', call: wrong<string>(['x']), action: 'heartbeat', elapsedMs: 1 },
    /^tool\.liveness\.call: an array, not a string$/,
    hepAfterRound,
  ],
  // (TypeErrors: the usage's figures read off null.)
  [
    'hep',
    'round.end.usage given null',
    { type: 'round.end', message: 'm', usage: wrong<object>(null) },
    /^round\.end\.usage: null, not an object$/,
  ],
  [
    'hep',
    'run.end.usage given null',
    { type: 'run.end', status: 'cancelled', usage: wrong<object>(null) },
    /^run\.end\.usage: null, not an object$/,
  ],
  [
    'hep',
    'run.end.error given a number (failed)',
    { type: 'run.end', status: 'failed', error: wrong<string>(7) },
    /^run\.end\.error: a number, not a string$/,
  ],
  // highbar: a call's start and a run's input are held, and were refused at the later write that
  // read them (the call's end, the run's end, the stream's end), which the refusal took down.
  [
    'highbar',
    'tool.start.name given NaN',
    { type: 'tool.start', call: 'd', name: wrong<string>(Number.NaN) },
    /^tool\.start\.name: a number, not a string$/,
  ],
  [
    'highbar',
    'tool.start.name given a BigInt',
    { type: 'tool.start', call: 'd', name: wrong<string>(7n) },
    /^tool\.start\.name: a BigInt, not a string$/,
  ],
  [
    'highbar',
    'run.start.input given a BigInt',
    { type: 'run.start', input: wrong<string>(7n) },
    /^run\.start\.input: a BigInt, not a string$/,
  ],
  // (Refused after the run's open calls were written and its input let go.)
  [
    'highbar',
    'run.end.answer given a BigInt',
    { type: 'run.end', status: 'completed', answer: wrong<string>(7n) },
    /^run\.end\.answer: a BigInt, not a string$/,
  ],
  // nativeharness: spelled after the write took the event's round for the hop (and its seq).
  [
    'nativeharness',
    'approval.request.options given a string',
    { type: 'approval.request', approval: 'a', options: wrong<[]>('x'), round: 5 },
    /^approval\.request\.options: a string, not an array$/,
  ],
  [
    'nativeharness',
    'approval.request.options.0 given null',
    { type: 'approval.request', approval: 'a', options: wrong<[]>([null]), round: 5 },
    /^approval\.request\.options\[0\]: null, not an object$/,
  ],
  [
    'nativeharness',
    'question.questions.0.options given a string',
    {
      type: 'question',
      question: 'q',
      questions: [{ text: 't', options: wrong<[]>('x') }],
      round: 5,
    },
    /^question\.questions\[0\]\.options: a string, not an array$/,
  ],
  [
    'nativeharness',
    'text.delta.text given a number',
    { type: 'text.delta', text: wrong<string>(7), round: 5 },
    /^text\.delta\.text: a number, not a string$/,
  ],
  [
    'nativeharness',
    'text.delta.ts given NaN',
    { type: 'text.delta', text: 'x', ts: Number.NaN, round: 5 },
    /^text\.delta\.ts: NaN is not a finite number/,
  ],
  [
    'nativeharness',
    'tool.output.call given a number',
    { type: 'tool.output', call: wrong<string>(7), text: 'x', round: 5 },
    /^tool\.output\.call: a number, not a string$/,
  ],
  [
    'nativeharness',
    'tool.end.exitCode given null',
    { type: 'tool.end', call: 'c', ok: true, exitCode: wrong<number>(null), round: 5 },
    /^tool\.end\.exitCode: null, not a number$/,
  ],
  [
    'nativeharness',
    'round.end.usage given null',
    { type: 'round.end', message: 'm', usage: wrong<object>(null), round: 5 },
    /^round\.end\.usage: null, not an object$/,
  ],
  [
    'nativeharness',
    'run.end.usage.costUsd given a BigInt',
    { type: 'run.end', status: 'completed', usage: { costUsd: wrong<number>(7n) }, round: 5 },
    /^usage\.costUsd: a BigInt, not a number/,
  ],
  [
    'nativeharness',
    'status.status given a number',
    { type: 'status', status: wrong<string>(7), round: 5 },
    /^status\.status: a number, not a string$/,
  ],
])('%s: %s', (format, _where, bad, why, stream) => {
  test('refused alone, at its own write', () => {
    expectRefusedAlone(writer(format), (stream ?? STREAMS[format]!)(bad), bad, why);
  });
});

describe('hep: session.start.protocol given an array', () => {
  // Refused after the event's losses were counted (a later loss named the wrong event number).
  test("refused before its losses are counted: a later event's report names its own number", () => {
    const bad: AgentEvent = { type: 'session.start', protocol: wrong<string>(['v1']) };
    const write = (events: readonly AgentEvent[]) =>
      writeNotingLosses((onDiagnostic) => hep.createEncoder({ idSource: () => 's', onDiagnostic }), events);
    const rest: AgentEvent[] = [{ type: 'run.start', input: 'x' }];
    const dirty = write([bad, ...rest]);
    const clean = write(rest);
    expect(dirty.refusals).toEqual(['session.start.protocol: an array, not a string']);
    expect(dirty.text).toBe(clean.text);
    expect(dirty.losses.map(([, d]) => d.message)).toEqual(clean.losses.map(([, d]) => d.message));
  });
});

describe('codex: session.start.session given a number', () => {
  test('refused, not written as the text of its digits', () => {
    const bad: AgentEvent = { type: 'session.start', session: wrong<string>(7) };
    const stream: AgentEvent[] = [bad, { type: 'run.start' }, { type: 'run.end', status: 'completed' }];
    expectRefusedAlone(writer('codex'), stream, bad, /^session\.start\.session: a number, not a string$/);
  });
});

describe('nativeharness with extensions: tool.output.context given a BigInt (lead, at the merge)', () => {
  // The writer's `extensions` option carries the fields a type has no slot for in an extension
  // key: a BigInt among them was refused where that key's JSON was made, after the hop was taken.
  test('refused alone, at its own write', () => {
    const write = formatWriter('nativeharness', { extensions: true });
    const bad = wrong<AgentEvent>({ type: 'tool.output', call: 'c', text: 't', round: 5, context: 7n });
    expectRefusedAlone(write, nhStream(bad), bad, /^tool\.output\.agentwire\.context: a BigInt/);
  });
});
