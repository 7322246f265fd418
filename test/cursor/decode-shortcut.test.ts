import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { cursor } from '../../src/all';
import type { Diagnostic } from '../../src/diagnostics';
import { cursorDecodeShortcut } from '../../src/formats/cursor/decode';
import type { AgentEvent } from '../../src/model';
import { chunkAt } from '../golden';
import { num, text, value } from '../kept-suite';
import { FUZZ_RUNS } from '../runs';

// The Cursor decoder's shortcut (src/formats/cursor/decode.ts `shortcut`) held equal to its
// general path (the switch off): the same events, key order included, and the same diagnostics,
// on random streams of Cursor's records and near misses of them (fields absent or of another
// type, subtypes and tool payload keys it does not know, keys moved, extra keys, the run not yet
// open), cut into chunks anywhere.

/** Mostly `usual` (what Cursor writes), else one of the `odd` values (`undefined`: the field left out). */
function mostly<T>(usual: fc.Arbitrary<T>, ...odd: unknown[]): fc.Arbitrary<T | unknown> {
  return fc.oneof({ arbitrary: usual, weight: 5 }, { arbitrary: fc.constantFrom(...odd), weight: 1 });
}

/** Texts from a small pool, so that snapshots repeat streamed segments now and then. */
const said = fc.constantFrom('Hello', ' world', 'Hello world', '', 'x"y\\n');
const session = mostly(fc.constant('S'), undefined, 'T', 5);
const stamp = mostly(num, undefined, '5');
const ms = mostly(
  fc.integer({ min: 1786540600000, max: 1786540700000 }).map(String),
  undefined,
  '0123',
  'x',
  '',
  12,
);

const content = mostly(
  fc.array(
    mostly(
      said.map((t) => ({ type: 'text', text: t })),
      { type: 'image' },
    ),
    { minLength: 1, maxLength: 2 },
  ),
  'Hello',
  7,
  undefined,
);
const message = mostly(
  content.map((c) => (c === undefined ? { role: 'assistant' } : { role: 'assistant', content: c })),
  undefined,
  'text',
  [],
);

const args = mostly(
  fc.record(
    {
      command: mostly(text, undefined, 5),
      workingDirectory: text,
      simpleCommands: fc.constant(['git']),
      n: value,
    },
    { requiredKeys: ['workingDirectory'] },
  ),
  undefined,
  'ls',
  null,
);
const success = fc.record(
  {
    command: text,
    exitCode: mostly(num, undefined, '0'),
    stdout: mostly(text, undefined, 5),
    content: mostly(text, undefined),
    message: mostly(text, undefined),
    stderr: text,
  },
  { requiredKeys: [] },
);
const result = mostly(
  success.map((s) => ({ success: s })),
  undefined,
  { error: { errorMessage: 'no', exitCode: 1 } },
  { rejected: { reason: 'denied' } },
  { success: 'yes' },
  {},
  'done',
);
const payloadKey = mostly(
  fc.constantFrom('shellToolCall', 'shellToolCall', 'readToolCall', 'grepToolCall'),
  'fooToolCall',
  'constructor',
  'toString',
);

const toolCall = fc
  .record({
    key: payloadKey,
    args,
    result,
    startedAtMs: ms,
    completedAtMs: ms,
    toolCallId: mostly(fc.constant('tool_1'), undefined, 5),
  })
  .map(({ key, args, result, startedAtMs, completedAtMs, toolCallId }) =>
    defined({
      [key as string]: defined({ args, result, description: 'Run it' }),
      hookAdditionalContexts: [],
      toolCallId,
      startedAtMs,
      completedAtMs,
    }),
  );

type Rec = Record<string, unknown>;

const body: fc.Arbitrary<Rec> = fc.oneof(
  fc.record({
    type: fc.constant('thinking'),
    subtype: mostly(fc.constantFrom('delta', 'delta', 'completed'), 'started', undefined),
    text: mostly(said, undefined, 5),
  }),
  fc.record({
    type: fc.constant('assistant'),
    message,
    model_call_id: fc.constantFrom('MC', undefined, undefined, 5),
  }),
  fc.record({
    type: fc.constant('tool_call'),
    subtype: mostly(fc.constantFrom('started', 'completed'), 'running', undefined),
    call_id: mostly(fc.constant('tool_1'), undefined, 5),
    tool_call: mostly(toolCall, undefined, 'shell', [], {}),
    model_call_id: fc.constantFrom('MC', undefined),
  }),
  fc.constant({
    type: 'system',
    subtype: 'init',
    apiKeySource: 'login',
    cwd: '/tmp/wt',
    model: 'Auto',
    permissionMode: 'default',
  }),
  message.map((m) => ({ type: 'user', message: m })),
  fc.record({
    type: fc.constant('result'),
    subtype: fc.constantFrom('success', 'error'),
    is_error: fc.boolean(),
    result: said,
    usage: fc.constant({ inputTokens: 3, outputTokens: 2, cacheReadTokens: 1, cacheWriteTokens: 0 }),
  }),
  fc.constant({ type: 'connection', subtype: 'reconnecting' }),
  fc.constant({ type: 'mystery' }),
);

const record: fc.Arbitrary<Rec> = fc
  .record({ body, session, stamp, shape: mostly(fc.constant(0), 1, 2, 3) })
  .map(({ body, session, stamp, shape }) => {
    const r = defined({ ...defined(body), session_id: session, timestamp_ms: stamp });
    // Near misses of the key order and the field set Cursor writes.
    if (shape === 1) return Object.fromEntries(Object.entries(r).reverse());
    if (shape === 2) return { ...r, extra: { deep: [1] } };
    if (shape === 3) {
      const { type: _, ...rest } = r;
      return rest;
    }
    return r;
  });

/** The object without its `undefined` fields (absent keys). */
function defined(o: Rec): Rec {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

interface Decoded {
  events: AgentEvent[];
  json: string;
  diagnostics: Diagnostic[];
}

function decode(chunks: readonly Uint8Array[], shortcut: boolean): Decoded {
  const diagnostics: Diagnostic[] = [];
  cursorDecodeShortcut.enabled = shortcut;
  try {
    const decoder = cursor.createDecoder({ onDiagnostic: (d) => diagnostics.push(d) });
    const events: AgentEvent[] = [];
    for (const c of chunks) events.push(...decoder.push(c));
    events.push(...decoder.end());
    return { events, json: JSON.stringify(events), diagnostics };
  } finally {
    cursorDecodeShortcut.enabled = true;
  }
}

const assistant = (t: string, id?: string): Rec =>
  defined({
    type: 'assistant',
    message: { role: 'assistant', content: [{ type: 'text', text: t }] },
    session_id: 'S',
    model_call_id: id,
    timestamp_ms: 9,
  });

// A turn as Cursor streams it: token deltas, a tool call that closes the segment (or not), the
// snapshot of the segment replayed before or after it, then the call's result.
const turn: fc.Arbitrary<Rec[]> = fc
  .record({
    deltas: fc.array(said, { minLength: 1, maxLength: 3 }),
    tool: fc.constantFrom('none', 'before', 'after'),
    snapshot: mostly(fc.constant(true), false),
    done: success,
    key: payloadKey,
  })
  .map(({ deltas, tool, snapshot, done, key }) => {
    const call = (subtype: string, result?: unknown): Rec => ({
      type: 'tool_call',
      subtype,
      call_id: 'tool_1',
      tool_call: {
        [key as string]: defined({ args: { command: 'ls' }, result }),
        toolCallId: 'tool_1',
        startedAtMs: '1786540600505',
        completedAtMs: '1786540600705',
      },
      session_id: 'S',
      timestamp_ms: 9,
    });
    const out = deltas.map((t) => assistant(t));
    const whole = assistant(deltas.join(''), 'MC');
    if (tool !== 'none') out.push(call('started'));
    if (snapshot && tool !== 'after') out.push(whole);
    if (tool !== 'none') out.push(call('completed', { success: done }));
    if (snapshot && tool === 'after') out.push(whole);
    return out;
  });

const stream = fc
  .array(
    fc.oneof(
      record.map((r) => [r]),
      turn,
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((parts) => {
    const records = parts.flat();
    return new TextEncoder().encode(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  });

describe('Cursor decoder: the shortcut beside the general path', () => {
  test('gives the same events (key order included) and diagnostics, in any chunking', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 6 }), (bytes, cuts) => {
        const general = decode([bytes], false);
        const fast = decode(
          chunkAt(
            bytes,
            cuts.map((c) => c % (bytes.length + 1)),
          ),
          true,
        );
        expect(fast.json).toBe(general.json);
        // toEqual, not toStrictEqual: a record with a `constructor` key defeats its type check.
        expect(fast.events).toEqual(general.events);
        expect(fast.events.filter((e) => Object.values(e).includes(undefined))).toEqual([]);
        expect(fast.diagnostics).toEqual(general.diagnostics);
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  test('takes the frequent records (the property is not vacuous)', () => {
    const line = (r: Rec) => `${JSON.stringify({ ...r, session_id: 'S', timestamp_ms: 7 })}\n`;
    const bytes = new TextEncoder().encode(
      line({ type: 'thinking', subtype: 'delta', text: 'hm' }) +
        line({ type: 'thinking', subtype: 'delta', text: 'hm' }),
    );
    const taken = cursor.createDecoder().push(bytes);
    // The first line opens the run (general path); the second is the shortcut's: same event.
    expect(taken.map((e) => e.type)).toEqual(['run.start', 'reasoning.delta', 'reasoning.delta']);
    expect(JSON.stringify(taken[2])).toBe(
      JSON.stringify({
        type: 'reasoning.delta',
        text: 'hm',
        provenance: taken[2]!.provenance,
        session: 'S',
        ts: 7,
      }),
    );
  });
});

describe('cursor tool kinds', () => {
  test('a payload key that is an Object.prototype name gives no kind (general path, shortcut off)', () => {
    const line = (sub: string) =>
      `{"type":"tool_call","subtype":"${sub}","call_id":"c1","tool_call":{"constructor":{"args":{"x":1}},"startedAtMs":"1"},"session_id":"s","timestamp_ms":1}`;
    const text = `{"type":"system","subtype":"init","session_id":"s","model":"m","cwd":"/","apiKeySource":"login","permissionMode":"default"}\n{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go"}]},"session_id":"s"}\n${line('started')}\n`;
    for (const on of [true, false]) {
      cursorDecodeShortcut.enabled = on;
      try {
        const start = cursor.parse(text).events.find((e) => e.type === 'tool.start');
        expect(start).toBeDefined();
        expect(Object.hasOwn(start!, 'kind')).toBe(false);
      } finally {
        cursorDecodeShortcut.enabled = true;
      }
    }
  });
});
