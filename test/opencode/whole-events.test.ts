import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { opencode } from '../../src/all';
import { OPENCODE_WHOLE_EVENTS } from '../../src/formats/opencode/decode';
import { FUZZ_RUNS } from '../runs';
import { type Decoded, decodeWith, expectSamePaths, type WholeEventsCase } from '../whole-events';

// The OpenCode decoder builds its frequent events (a step's start and end with its usage, text
// and reasoning, a finished call's start and end) whole, each in one literal, beside the general
// path that adds the envelope to a literal afterwards (docs/performance.md, "OpenCode and Cursor
// decoders"). Switched off, only the general path runs. These properties hold the two equal on
// random streams of OpenCode's records and near misses (fields absent or of another type, keys
// moved, extra keys, child sessions, errors, CRLF): the same events (the same JSON text, so the
// same fields in the same order, and no own `undefined` field), the same diagnostics, the same
// bytes written back, under every chunking.

const text = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', 'é', '\u2028', 'a', ' '), maxLength: 6 }),
);
const count = fc.oneof(fc.nat({ max: 50000 }), fc.constantFrom(0.5, -1, 1e21));
/** A field's value: usually of its type, sometimes absent or of another type. */
const maybe = <T>(a: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 6, arbitrary: a },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, null, 'x', 7, { n: 1 }) },
  );
const session = fc.constantFrom('ses_main', 'ses_main', 'ses_main', 'ses_child');
const ts = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1767036059000, max: 1767036069000 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(undefined, '1767036059000'),
  },
);

/** An object without the `undefined` fields (the record as JSON writes it). */
function defined(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

const part = (type: string, sid: unknown, message: unknown, rest: Record<string, unknown>) =>
  defined({ id: 'prt_1', sessionID: sid, messageID: message, type, ...rest });

type Rec = [string, Record<string, unknown> | undefined];
const messageId = maybe(fc.constant('msg_1'));

const record: fc.Arbitrary<Rec> = fc.oneof(
  fc
    .record({ sid: session, m: messageId })
    .map(({ sid, m }): Rec => ['step_start', part('step-start', sid, m, { snapshot: 'abc' })]),
  {
    weight: 3,
    arbitrary: fc
      .record({ sid: session, m: messageId, kind: fc.constantFrom('text', 'reasoning'), t: maybe(text) })
      .map(({ sid, m, kind, t }): Rec => [kind, part(kind, sid, m, { text: t, time: { start: 1, end: 2 } })]),
  },
  {
    weight: 3,
    arbitrary: fc
      .record({
        sid: session,
        m: messageId,
        tool: fc.constantFrom('bash', 'bash', 'read', 'task'),
        status: fc.constantFrom('completed', 'completed', 'error', 'running'),
        input: maybe(fc.record({ command: maybe(text), description: text }, { requiredKeys: [] })),
        output: maybe(text),
        error: fc.option(maybe(text), { nil: undefined }),
        metadata: fc.option(
          fc.record(
            {
              exit: maybe(fc.integer({ min: -1, max: 2 })),
              sessionId: fc.constantFrom('ses_child', 'ses_other'),
            },
            { requiredKeys: [] },
          ),
          { nil: undefined },
        ),
        time: maybe(fc.record({ start: maybe(count), end: maybe(count) }, { requiredKeys: [] })),
        callID: maybe(fc.constantFrom('call_1', 'call_2')),
      })
      .map(({ sid, m, tool, status, input, output, error, metadata, time, callID }): Rec => {
        const state = defined({ status, input, output, error, title: 't', metadata, time });
        return ['tool_use', part('tool', sid, m, { callID, tool, state })];
      }),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        sid: session,
        m: messageId,
        reason: maybe(fc.constantFrom('stop', 'tool-calls')),
        cost: maybe(count),
        tokens: maybe(
          fc.record(
            {
              input: maybe(count),
              output: maybe(count),
              reasoning: maybe(count),
              cache: maybe(fc.record({ read: maybe(count), write: maybe(count) }, { requiredKeys: [] })),
            },
            { requiredKeys: [] },
          ),
        ),
      })
      .map(
        ({ sid, m, reason, cost, tokens }): Rec => [
          'step_finish',
          part('step-finish', sid, m, { reason, snapshot: 'abc', cost, tokens }),
        ],
      ),
  },
  fc.constantFrom<Rec>(
    ['error', undefined],
    ['done', undefined],
    ['step_update', undefined],
    ['text', { nope: 1 }],
  ),
);

const line = fc
  .tuple(record, ts, fc.nat({ max: 7 }), fc.constantFrom('ses_main', 'ses_main', 'ses_child', undefined))
  .map(([[type, p], t, shape, sid]) => {
    const base: Record<string, unknown> = defined({ type, timestamp: t, sessionID: sid });
    if (type === 'error') base.error = { name: 'APIError', data: { message: 'boom' } };
    if (p !== undefined) base.part = p;
    if (shape === 1) return JSON.stringify(defined({ sessionID: sid, part: p, type, timestamp: t }));
    if (shape === 2) return JSON.stringify({ ...base, extra: 1 });
    if (shape === 3) return JSON.stringify(base).replace(/"text":"a/, '"text":"\\u0061');
    return JSON.stringify(base);
  });

const stream = fc
  .tuple(fc.array(line, { minLength: 1, maxLength: 10 }), fc.boolean())
  .map(([lines, crlf]) => lines.join(crlf ? '\r\n' : '\n') + (crlf ? '\r\n' : '\n'));

const WRITE = { idSource: () => 'id', clock: () => 0 };

const CASE: WholeEventsCase = {
  codec: opencode,
  whole: OPENCODE_WHOLE_EVENTS,
  write: (events) => opencode.stringify(events, WRITE),
};

const decode = (input: string, whole: boolean): Decoded => decodeWith(CASE, input, whole);

describe('OpenCode decoder: whole events against the general path', () => {
  afterEach(() => {
    OPENCODE_WHOLE_EVENTS.enabled = true;
  });

  test('the same events, diagnostics and written bytes, chunked anywhere', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 4 }), (input, cuts) => {
        expectSamePaths(CASE, input, cuts);
      }),
      { numRuns: FUZZ_RUNS * 2 },
    );
  });

  test('the frequent shapes decode the same either way, and take the whole path', () => {
    const at = (type: string, p: Record<string, unknown>, t: number) =>
      JSON.stringify({ type, timestamp: t, sessionID: 'ses_main', part: { sessionID: 'ses_main', ...p } });
    const input = [
      at('step_start', { messageID: 'm', type: 'step-start' }, 1),
      at('text', { messageID: 'm', type: 'text', text: 'hi' }, 2),
      at('reasoning', { messageID: 'm', type: 'reasoning', text: 'hm' }, 3),
      at(
        'tool_use',
        {
          messageID: 'm',
          type: 'tool',
          callID: 'c1',
          tool: 'bash',
          state: {
            status: 'completed',
            input: { command: 'ls' },
            output: 'x',
            metadata: { exit: 0 },
            time: { start: 4, end: 5 },
          },
        },
        4,
      ),
      at(
        'tool_use',
        {
          messageID: 'm',
          type: 'tool',
          callID: 'c2',
          tool: 'read',
          state: { status: 'error', input: { path: 'a' }, error: 'no', time: { start: 6, end: 7 } },
        },
        6,
      ),
      at(
        'step_finish',
        {
          messageID: 'm',
          type: 'step-finish',
          reason: 'stop',
          cost: 0.5,
          tokens: { input: 1, output: 2, reasoning: 3, cache: { read: 4, write: 5 } },
        },
        8,
      ),
    ].join('\n');
    const whole = decode(`${input}\n`, true);
    expect(whole.json).toBe(decode(`${input}\n`, false).json);
    expect(whole.events.map((e) => e.type)).toEqual([
      'run.start',
      'round.start',
      'text.delta',
      'reasoning.delta',
      'tool.start',
      'tool.end',
      'tool.start',
      'tool.end',
      'round.end',
      'run.end',
    ]);
  });
});
