import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { opencodeFastPath } from '../../src/formats/opencode/encode';
import { type AgentEvent, opencode } from '../../src/index';
import { FUZZ_RUNS } from '../runs';

// The OpenCode writer gives a line the decoder read back as it was, without rebuilding and
// stringifying its record, when the event still says what the kept record says (the kept-line
// fast path, docs/performance.md "Kept lines"). These properties hold it equal to the general
// path (the record rebuilt from the kept one, stringified, compared with the line): any stream
// of OpenCode's records and near misses, decoded, its events edited anywhere (fields replaced,
// objects edited in place, key orders changed, values of other types), as they are or as JSON
// copies, is written the same with the fast path on and off.

const RUNS = FUZZ_RUNS;

afterEach(() => {
  opencodeFastPath.enabled = true;
});

const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', 'é', '\u2028', 'a', ' ') }),
);
const num = fc.oneof(fc.nat({ max: 2000 }), fc.constantFrom(0, 1, -1, 1.5, 1e21, 2 ** 53 + 2));
const ts = fc.integer({ min: 1767036059000, max: 1767036069000 });
const session = fc.constantFrom('ses_main', 'ses_child');
// A number spelled as OpenCode never does, or one JSON.parse reads as Infinity.
const oddNumber = fc.constantFrom('1e400', '-1e400', '-0', '1.0', '1E2', '0.1000');

const input = fc.dictionary(
  fc.constantFrom('command', 'description', 'path', 'n', '__proto__'),
  fc.oneof(text, num, fc.constant(null), fc.array(num, { maxLength: 2 }), fc.record({ a: num })),
  { maxKeys: 3 },
);

const partOf = (type: string, sid: string, rest: Record<string, unknown>) => ({
  id: 'prt_1',
  sessionID: sid,
  messageID: 'msg_1',
  type,
  ...rest,
});

const record = fc.oneof(
  fc
    .record({ sid: session, snapshot: text })
    .map(({ sid, snapshot }) => ['step_start', partOf('step-start', sid, { snapshot })] as const),
  fc
    .record({ sid: session, kind: fc.constantFrom('text', 'reasoning'), t: text, start: ts })
    .map(
      ({ sid, kind, t, start }) =>
        [kind, partOf(kind, sid, { text: t, time: { start, end: start } })] as const,
    ),
  fc
    .record({
      sid: session,
      ok: fc.boolean(),
      input,
      output: text,
      exit: fc.oneof(num, fc.constant(null)),
      meta: fc.boolean(),
      time: fc.option(fc.record({ start: ts, end: ts }), { nil: undefined }),
    })
    .map(({ sid, ok, input, output, exit, meta, time }) => {
      const state: Record<string, unknown> = ok
        ? { status: 'completed', input, output, title: 'x' }
        : { status: 'error', input, error: output };
      if (meta) state.metadata = { output, exit };
      if (time !== undefined) state.time = time;
      return ['tool_use', partOf('tool', sid, { callID: 'call_1', tool: 'bash', state })] as const;
    }),
  fc
    .record({
      sid: session,
      reason: fc.constantFrom('stop', 'tool-calls'),
      cost: num,
      input: num,
      output: num,
      reasoning: num,
      read: num,
      write: num,
      tokens: fc.boolean(),
    })
    .map(
      ({ sid, reason, cost, input, output, reasoning, read, write, tokens }) =>
        [
          'step_finish',
          partOf('step-finish', sid, {
            reason,
            cost,
            ...(tokens ? { tokens: { input, output, reasoning, cache: { read, write } } } : {}),
          }),
        ] as const,
    ),
);

// A line as OpenCode writes it, or a near miss: keys reordered, an extra key, an odd number.
const line = fc
  .tuple(record, ts, fc.nat({ max: 9 }), oddNumber, fc.boolean())
  .map(([[type, part], t, miss, odd, crlf]) => {
    let text = JSON.stringify({ type, timestamp: t, sessionID: 'ses_main', part });
    if (miss === 1) text = JSON.stringify({ sessionID: 'ses_main', type, timestamp: t, part });
    if (miss === 2) text = JSON.stringify({ type, timestamp: t, sessionID: 'ses_main', part, extra: 1 });
    if (miss === 3) text = text.replace(/"timestamp":\d+/, `"timestamp":${odd}`);
    if (miss === 4) text = text.replace(/:(\d+)([,}])/, `:${odd}$2`);
    if (miss === 5) text = text.replace(/"a"/, '"\\u0061"');
    return text + (crlf ? '\r\n' : '\n');
  });

type Edit = (e: AgentEvent) => void;
const setField =
  (key: string, value: unknown): Edit =>
  (e) => {
    (e as unknown as Record<string, unknown>)[key] = value;
  };
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.constantFrom<Edit>(
    (e) => {
      if ('text' in e && typeof e.text === 'string') e.text += 'x';
    },
    (e) => {
      if ('args' in e && e.args !== undefined) e.args.command = 'edited';
    },
    (e) => {
      // in place, one level down
      const args = 'args' in e ? (e.args as Record<string, unknown> | undefined) : undefined;
      for (const v of Object.values(args ?? {}))
        if (typeof v === 'object' && v !== null) (v as Record<string, unknown>).a = 7;
    },
    (e) => {
      if ('args' in e && e.args !== undefined) e.args = Object.fromEntries(Object.entries(e.args).reverse());
    },
    (e) => {
      if ('usage' in e && e.usage !== undefined) e.usage.input = (e.usage.input ?? 0) + 1;
    },
    (e) => {
      if ('usage' in e && e.usage !== undefined) delete e.usage.costUsd;
    },
    (e) => {
      if ('usage' in e && e.usage !== undefined) e.usage.costUsd = (e.usage.costUsd ?? 0) + 0.5;
    },
    (e) => {
      if ('usage' in e && e.usage !== undefined) e.usage.cacheRead = (e.usage.cacheRead ?? 0) + 1;
    },
    (e) => {
      if ('ok' in e) e.ok = !e.ok;
    },
    (e) => {
      if ('provenance' in e && e.provenance?.hints !== undefined)
        e.provenance.hints = { ...e.provenance.hints, raw: undefined };
    },
    (e) => {
      delete e.ts;
    },
    (e) => {
      if ('call' in e && typeof e.call === 'string') e.call += 'x';
    },
    (e) => {
      if ('name' in e && typeof e.name === 'string') e.name += 'x';
    },
    (e) => {
      if ('exitCode' in e && typeof e.exitCode === 'number') e.exitCode += 1;
    },
    (e) => {
      if (e.lane === undefined) e.lane = 'ses_child';
      else delete e.lane;
    },
    (e) => {
      delete e.session;
    },
  ),
  fc
    .tuple(
      fc.constantFrom(
        'text',
        'ts',
        'session',
        'lane',
        'message',
        'call',
        'name',
        'exitCode',
        'startedAt',
        'endedAt',
        'stopReason',
        'error',
        'args',
        'ok',
      ),
      fc.oneof(
        text,
        num,
        fc.constant(undefined),
        fc.constant(null),
        fc.constant('ses_main'),
        fc.constant('ses_child'),
        fc.constant(true),
        fc.record({ command: text }),
      ),
    )
    .map(([k, v]) => setField(k, v)),
);

function write(events: AgentEvent[], fast: boolean): string {
  opencodeFastPath.enabled = fast;
  try {
    return opencode.stringify(events, { idSource: () => 'id', clock: () => 0 });
  } catch (error) {
    return `threw ${String(error)}`;
  } finally {
    opencodeFastPath.enabled = true;
  }
}

describe('OpenCode writer: the kept-line fast path', () => {
  test('an unedited stream is its own bytes, with the fast path on and off', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), (lines) => {
        const input = lines.join('');
        const { events } = opencode.parse(input);
        expect(write(events, true)).toBe(write(events, false));
      }),
      { numRuns: RUNS },
    );
  });

  test('gives the bytes the general path gives, for any edit of any event, copied or not', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(fc.nat(), edit), { maxLength: 4 }),
        fc.boolean(),
        (lines, edits, copy) => {
          const decoded = opencode.parse(lines.join('')).events;
          const events: AgentEvent[] = copy ? JSON.parse(JSON.stringify(decoded)) : decoded;
          for (const [at, change] of edits) change(events[at % events.length]!);
          expect(write(events, true)).toBe(write(events, false));
        },
      ),
      { numRuns: RUNS * 3 },
    );
  });

  test('an argument edited in place is written as edited (the event holds a copy of the kept object)', () => {
    const line = `${JSON.stringify({
      type: 'tool_use',
      timestamp: 1,
      sessionID: 's',
      part: {
        id: 'p',
        sessionID: 's',
        messageID: 'm',
        type: 'tool',
        callID: 'c',
        tool: 'bash',
        state: {
          status: 'completed',
          input: { command: 'ls', o: { deep: 1 } },
          output: 'x',
          time: { start: 1, end: 2 },
        },
      },
    })}\n`;
    const { events } = opencode.parse(line);
    const start = events.find((e) => e.type === 'tool.start')!;
    if (start.type !== 'tool.start') throw new Error('no tool.start');
    (start.args!.o as Record<string, unknown>).deep = 2;
    const out = opencode.stringify(events);
    expect(JSON.parse(out).part.state.input.o.deep).toBe(2);
    expect(out).toBe(write(events, false));
  });

  test('decoded events take it as they come (what it trusts: the kept record is what the kept line parses to)', () => {
    const line = `${JSON.stringify({
      type: 'tool_use',
      timestamp: 1,
      sessionID: 's',
      part: {
        id: 'p',
        sessionID: 's',
        messageID: 'm',
        type: 'tool',
        callID: 'c',
        tool: 'bash',
        state: {
          status: 'completed',
          input: { command: 'ls' },
          output: 'x',
          title: 't',
          time: { start: 1, end: 2 },
        },
      },
    })}\n`;
    const { events } = opencode.parse(line);
    // Only the hints changed: the general path writes the edited template, the fast path the line.
    const hints = events.find((e) => e.type === 'tool.end')!.provenance!.hints as {
      record: { part: { state: { title: string } } };
    };
    hints.record.part.state.title = 'edited';
    expect(opencode.stringify(events)).toBe(line);
    expect(write(events, false)).toContain('"title":"edited"');
  });
});
