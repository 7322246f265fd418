import { describe, expect, test } from 'vitest';
import type { AgentEvent } from '../../src/model';
import { formatWriter, type RefusedWrites, wrong } from '../refused-writes';

// Round thirty-seven: what the wrong-shape property (test/fuzz/wrong-shape.test.ts) found in the
// OpenCode, Cursor, AG-UI and AI SDK writers, each case a small stream named after its shrunk
// counterexample. A field of another shape (a BigInt, which `JSON.stringify` throws for; null
// where an object is read) is refused at its event's own write, before the writer changes for it:
// the bytes are the stream's without the event, and it is the one refusal. Before, each was a
// `TypeError`, or a refusal made after an open block was closed, a run opened, a state kept
// (the main session, a held call's start, a held round's end, held text), or at a later write.

const writer = formatWriter;

/** `bad`, then what follows it in a run, after `before` (which opens what `bad` must not close). */
function around(before: AgentEvent[], bad: AgentEvent, after: AgentEvent[] = []): AgentEvent[] {
  return [
    ...before,
    bad,
    ...after,
    { type: 'text.delta', text: 'after' },
    { type: 'tool.start', call: 'c2', name: 'n', args: {} },
    { type: 'tool.end', call: 'c2', name: 'n', ok: true, text: 'out' },
    { type: 'round.end', message: 'm' },
    { type: 'run.end', status: 'completed' },
  ];
}

const RUN: AgentEvent = { type: 'run.start', run: 'r', session: 's' };
const THINKING: AgentEvent = { type: 'reasoning.delta', text: 'thinking' };

/**
 * `expectRefusedAlone` (test/refused-writes.ts) with the bytes asked first: each case's defect
 * shows there (bytes lost or changed by a late refusal, an exception of another kind), not only
 * in the refusal's wording.
 */
function expectBytesAlone(
  write: (events: readonly AgentEvent[]) => RefusedWrites,
  events: readonly AgentEvent[],
  bad: AgentEvent,
  why: RegExp,
): void {
  const dirty = write(events);
  const clean = write(events.filter((e) => e !== bad));
  expect(dirty.text).toBe(clean.text);
  expect(dirty.refusals).toHaveLength(clean.refusals.length + 1);
  expect(dirty.refusals.find((m) => !clean.refusals.includes(m))).toMatch(why);
}

type Case = [name: string, stream: AgentEvent[], bad: AgentEvent, why: RegExp];

function cases(list: Array<[string, AgentEvent[], number, RegExp]>): Case[] {
  return list.map(([name, events, at, why]) => [name, events, events[at]!, why]);
}

const CURSOR: Case[] = cases([
  [
    'session.start.model given a BigInt after a reasoning delta',
    around([THINKING], { type: 'session.start', model: wrong<string>(7n) }),
    1,
    /^session\.start\.model: a BigInt, not a string$/,
  ],
  [
    'tool.start.call given a BigInt after a reasoning delta',
    around([RUN, THINKING], { type: 'tool.start', call: wrong<string>(7n), name: 'n' }),
    2,
    /^tool\.start\.call: a BigInt, not a string$/,
  ],
  [
    'round.end.session given a BigInt (kept as the session of later lines)',
    around([RUN], { type: 'round.end', message: 'm', session: wrong<string>(7n) }),
    1,
    /^round\.end\.session: a BigInt, not a string$/,
  ],
  [
    'tool.end.exitCode given a BigInt after a reasoning delta',
    around([RUN, { type: 'tool.start', call: 'c', name: 'shell' }, THINKING], {
      type: 'tool.end',
      call: 'c',
      ok: true,
      text: 'x',
      exitCode: wrong<number>(7n),
    }),
    3,
    /^tool\.end\.exitCode: a BigInt, not a number/,
  ],
  [
    'run.end.answer given a BigInt after a reasoning delta',
    [RUN, THINKING, { type: 'run.end', status: 'completed', answer: wrong<string>(7n) }, RUN],
    2,
    /^run\.end\.answer: a BigInt, not a string$/,
  ],
  [
    'user.message.text given a BigInt after a reasoning delta',
    around([RUN, THINKING], { type: 'user.message', text: wrong<string>(7n) }),
    2,
    /^user\.message\.text: a BigInt, not a string$/,
  ],
]);

const OPENCODE: Case[] = cases([
  [
    'run.end.usage given null (a run cut off: compared with its steps)',
    [
      RUN,
      { type: 'text.delta', text: 'x' },
      { type: 'run.end', status: 'incomplete', usage: wrong<Record<string, number>>(null) },
      RUN,
      { type: 'text.delta', text: 'y' },
    ],
    2,
    /^run\.end\.usage: null, not an object$/,
  ],
  [
    'message.start.session given a BigInt (kept as the main session)',
    around([], { type: 'message.start', role: 'assistant', session: wrong<string>(7n) }),
    0,
    /^message\.start\.session: a BigInt, not a string$/,
  ],
  [
    'text.delta.lane given a BigInt (its text held)',
    around([RUN], { type: 'text.delta', text: 'x', lane: wrong<string>(7n) }),
    1,
    /^text\.delta\.lane: a BigInt, not a string$/,
  ],
  [
    'text.delta.message given a BigInt (its text held)',
    around([RUN], { type: 'text.delta', text: 'x', message: wrong<string>(7n) }, [{ type: 'round.start' }]),
    1,
    /^text\.delta\.message: a BigInt, not a string$/,
  ],
  [
    'tool.start.name given a BigInt (the start held for its end)',
    around([RUN], { type: 'tool.start', call: 'c', name: wrong<string>(7n) }, [
      { type: 'tool.end', call: 'c', ok: true, text: 'x' },
    ]),
    1,
    /^tool\.start\.name: a BigInt, not a string$/,
  ],
  [
    'round.end.stopReason given a BigInt (the round held for the run end)',
    [
      RUN,
      { type: 'text.delta', text: 'x' },
      { type: 'round.end', message: 'm', stopReason: wrong<string>(7n) },
      { type: 'run.end', status: 'completed' },
    ],
    2,
    /^round\.end\.stopReason: a BigInt, not a string$/,
  ],
  [
    // (Each with its time: no probe of the clock is asked, which would have found it first.)
    'error.data given a BigInt after held text',
    around([RUN, { type: 'text.delta', text: 'x', ts: 1 }], {
      type: 'error',
      message: 'e',
      fatal: true,
      ts: 2,
      data: wrong<Record<string, unknown>>({ a: 7n }),
    }),
    2,
    /^error\.data\.a: a BigInt/,
  ],
  [
    'tool.end.text given a BigInt after held text',
    around([RUN, { type: 'tool.start', call: 'c', name: 'n' }, { type: 'text.delta', text: 'x' }], {
      type: 'tool.end',
      call: 'c',
      ok: true,
      text: wrong<string>(7n),
    }),
    3,
    /^tool\.end\.text: a BigInt, not a string$/,
  ],
]);

const AGUI: Case[] = cases([
  [
    'round.end.usage given null',
    around([RUN], { type: 'round.end', message: 'm', usage: wrong<Record<string, number>>(null) }),
    1,
    /^round\.end\.usage: null, not an object$/,
  ],
  [
    'round.end.usage.byModel given null',
    around([RUN], {
      type: 'round.end',
      message: 'm',
      usage: { input: 1, byModel: wrong<Record<string, { input: number }>>(null) },
    }),
    1,
    /^round\.end\.usage\.byModel: null, not an object$/,
  ],
  [
    'text.delta.lane given a BigInt before a run (written at its start)',
    around([{ type: 'text.delta', text: 'x', lane: wrong<string>(7n) }], RUN),
    0,
    /^text\.delta\.lane: a BigInt, not a string$/,
  ],
  [
    'run.start.run given a BigInt',
    around([], { ...RUN, run: wrong<string>(7n) }, [RUN]),
    0,
    /^run\.start\.run: a BigInt, not a string$/,
  ],
  [
    'message.start.message given a BigInt',
    around([RUN], { type: 'message.start', role: 'assistant', message: wrong<string>(7n) }),
    1,
    /^message\.start\.message: a BigInt, not a string$/,
  ],
  [
    'error.message given a BigInt (fatal: the failed run end says it)',
    [
      RUN,
      { type: 'error', message: wrong<string>(7n), fatal: true },
      { type: 'text.delta', text: 'x' },
      { type: 'run.end', status: 'failed' },
    ],
    1,
    /^error\.message: a BigInt, not a string$/,
  ],
  [
    'tool.end.text given a BigInt (the call opened for it)',
    around([RUN], { type: 'tool.end', call: 'c', name: 'n', ok: true, text: wrong<string>(7n) }),
    1,
    /^tool\.end\.text: a BigInt, not a string$/,
  ],
  [
    'question.questions given deleted, before a run (refused at the run end)',
    around([{ type: 'question', question: 'q', lane: 'lane1', questions: wrong<[]>(undefined) }], RUN),
    0,
    /^question\.questions: missing, not an array$/,
  ],
  [
    'question.questions.0 given null',
    around([RUN], { type: 'question', question: 'q', questions: wrong<[]>([null]) }),
    1,
    /^question\.questions\[0\]: null, not an object$/,
  ],
  [
    'child.end.result given a BigInt',
    around([RUN, { type: 'child.start', child: 'k' }], {
      type: 'child.end',
      child: 'k',
      status: 'completed',
      result: wrong<string>(7n),
    }),
    2,
    /^child\.end\.result: a BigInt, not a string$/,
  ],
]);

const AISDK: Case[] = cases([
  [
    'round.end.usage given null before a run (summed at its start)',
    around([{ type: 'round.end', message: 'm', usage: wrong<Record<string, number>>(null) }], RUN),
    0,
    /^round\.end\.usage: null, not an object$/,
  ],
  [
    'run.start.run given a BigInt',
    around([{ type: 'text.delta', text: 'before' }], { ...RUN, run: wrong<string>(7n) }),
    1,
    /^run\.start\.run: a BigInt, not a string$/,
  ],
  [
    'text.delta.lane given a BigInt before a run (written at its start)',
    around([{ type: 'text.delta', text: 'x', lane: wrong<string>(7n) }], RUN),
    0,
    /^text\.delta\.lane: a BigInt, not a string$/,
  ],
]);

describe.each<[string, Case[]]>([
  ['cursor', CURSOR],
  ['opencode', OPENCODE],
  ['ag-ui', AGUI],
  ['ai-sdk', AISDK],
])('%s writer', (format, list) => {
  const write = writer(format);
  test.each(list)('%s: refused alone, at its own write', (_name, events, bad, why) => {
    expectBytesAlone(write, events, bad, why);
  });
});
