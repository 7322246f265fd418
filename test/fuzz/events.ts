import fc from 'fast-check';
import type { AgentEvent } from '../../src/model';

// Canonical events for the writer properties (orders.test.ts, wrong-shape.test.ts): built from
// small pools of ids so that reuse and misordering are the common case, not the rare one.

// Ids from two per kind, now and then one that breaks a lookup keyed by plain objects.
export const ODD_IDS = ['', '__proto__', 'constructor', 'toString'];
export const ID = (prefix: string) =>
  fc.oneof(
    { weight: 9, arbitrary: fc.constantFrom(`${prefix}1`, `${prefix}2`) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_IDS) },
  );
export const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
export const TEXT = fc.constantFrom(
  '',
  'a',
  'hi there',
  '\n',
  '\r\n',
  '{"x":1}',
  'é😀',
  '\ud800',
  '\udc00a',
  '\u2028',
  '\ufeff',
  '__proto__',
);
// Finite numbers at the edges: what a time or a count overflows, rounds or goes negative with.
export const EDGE = fc.constantFrom(
  -1,
  -0,
  0.5,
  Number.MIN_VALUE,
  2 ** 53,
  2 ** 53 + 2,
  8.64e15,
  8.64e15 + 1,
  -8.64e15 - 1,
  1e306,
  -1e306,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
);
export const count = (max: number) =>
  fc.oneof({ weight: 9, arbitrary: fc.nat({ max }) }, { weight: 1, arbitrary: EDGE });
export const TS = fc.oneof(
  { weight: 9, arbitrary: fc.integer({ min: 0, max: 20 }).map((i) => 1_767_225_600_000 + i * 1000) },
  { weight: 1, arbitrary: EDGE },
);

/** The envelope fields a writer groups by: run, round, session, time; each often absent. */
export const envelope = fc.record(
  {
    run: ID('r'),
    round: fc.integer({ min: 0, max: 3 }),
    session: ID('s'),
    ts: TS,
  },
  { requiredKeys: [] },
);

export const usage = fc.record(
  { input: count(100), output: count(100), costUsd: count(1) },
  { requiredKeys: ['input'] },
);
export const status = fc.constantFrom('completed', 'failed', 'cancelled', 'incomplete') as fc.Arbitrary<
  'completed' | 'failed' | 'cancelled' | 'incomplete'
>;
export const args = fc.constantFrom<Record<string, unknown>>({}, { path: 'a.txt' }, { command: 'ls', n: 1 });

/** The body of one event of each type (its envelope added by {@link event}). */
export const bodies: fc.Arbitrary<Record<string, unknown>>[] = [
  fc.record({ type: fc.constant('session.start'), model: maybe(fc.constant('m')) }),
  fc.record({ type: fc.constant('run.start'), input: maybe(TEXT) }),
  fc.record({
    type: fc.constant('run.end'),
    status,
    answer: maybe(TEXT),
    error: maybe(TEXT),
    durationMs: maybe(count(5000)),
    usage: maybe(usage),
  }),
  fc.record({ type: fc.constant('round.start'), model: maybe(fc.constant('m')) }),
  fc.record({ type: fc.constant('round.end'), message: TEXT, usage: maybe(usage) }),
  fc.record({ type: fc.constant('message.start'), role: fc.constant('assistant'), message: maybe(ID('m')) }),
  fc.record({ type: fc.constant('message.end'), message: maybe(ID('m')) }),
  fc.record({ type: fc.constant('text.delta'), text: TEXT, message: maybe(ID('m')) }),
  fc.record({ type: fc.constant('reasoning.delta'), text: TEXT }),
  fc.record({ type: fc.constant('user.message'), text: TEXT }),
  fc.record({
    type: fc.constant('tool.start'),
    call: ID('c'),
    name: ID('tool'),
    args: maybe(args),
    startedAt: maybe(TS),
  }),
  fc.record({ type: fc.constant('tool.args.delta'), call: ID('c'), text: TEXT }),
  fc.record({ type: fc.constant('tool.output'), call: ID('c'), text: TEXT }),
  fc.record({
    type: fc.constant('tool.liveness'),
    call: ID('c'),
    action: fc.constant('running'),
    elapsedMs: count(10_000),
  }),
  fc.record({
    type: fc.constant('tool.end'),
    call: ID('c'),
    name: maybe(ID('tool')),
    ok: fc.boolean(),
    text: maybe(TEXT),
    result: maybe(fc.constantFrom<unknown>('out', { a: 1 }, null)),
    error: maybe(fc.constantFrom<unknown>('boom', { message: 'boom' })),
    exitCode: maybe(count(2)),
    startedAt: maybe(TS),
    endedAt: maybe(TS),
  }),
  fc.record({
    type: fc.constant('approval.request'),
    approval: ID('a'),
    call: maybe(ID('c')),
    tool: maybe(ID('tool')),
  }),
  fc.record({
    type: fc.constant('approval.resolve'),
    approval: ID('a'),
    decision: fc.constantFrom('allow', 'deny'),
  }),
  fc.record({
    type: fc.constant('question'),
    question: ID('q'),
    questions: fc.constant([{ text: 'which?' }]),
    call: maybe(ID('c')),
  }),
  fc.record({
    type: fc.constant('question.answer'),
    question: ID('q'),
    answers: fc.constant({ 'which?': 'a' }),
  }),
  fc.record({ type: fc.constant('plan'), items: fc.constant([{ text: 'step', status: 'pending' }]) }),
  fc.record({
    type: fc.constant('file.change'),
    call: maybe(ID('c')),
    changes: fc.constant([{ path: 'a', kind: 'add' }]),
  }),
  fc.record({ type: fc.constant('notice'), kind: fc.constantFrom('info', 'retry'), message: maybe(TEXT) }),
  fc.record({ type: fc.constant('usage'), usage }),
  fc.record({ type: fc.constant('child.start'), child: ID('k'), call: maybe(ID('c')), task: maybe(TEXT) }),
  fc.record({ type: fc.constant('child.progress'), child: ID('k'), detail: maybe(TEXT) }),
  fc.record({ type: fc.constant('child.end'), child: ID('k'), status, result: maybe(TEXT) }),
  fc.record({ type: fc.constant('compaction.start'), trigger: maybe(fc.constant('auto')) }),
  fc.record({
    type: fc.constant('compaction.end'),
    tokensBefore: maybe(count(1000)),
    tokensFreed: maybe(count(1000)),
  }),
  fc.record({ type: fc.constant('error'), message: TEXT, fatal: fc.boolean() }),
  fc.record({ type: fc.constant('status'), status: fc.constantFrom('idle', 'busy') }),
  fc.record({ type: fc.constant('session.title'), title: TEXT }),
  fc.record({ type: fc.constant('tools.declare'), tools: fc.constant(['tool1', 'tool2']) }),
];

/** One event: a body and an envelope, with the fields a body leaves undefined removed. */
export const event: fc.Arbitrary<AgentEvent> = fc.tuple(fc.oneof(...bodies), envelope).map(([body, env]) => {
  const e: Record<string, unknown> = { ...body, ...env };
  for (const k of Object.keys(e)) if (e[k] === undefined) delete e[k];
  return e as AgentEvent;
});
