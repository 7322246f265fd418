import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { cursor } from '../../src/all';
import { cursorCanonicalLines, newLineReader, readCanonicalLine } from '../../src/formats/cursor/decode';
import { valueExceedsDepth } from '../../src/json';
import { decoderProperties, depth, mostly, parsed, same } from '../canonical-lines';
import { text as anyText } from '../kept-suite';
import { FUZZ_RUNS } from '../runs';
import type { WholeEventsCase } from '../whole-events';

// The Cursor decoder's canonical-line reader (src/formats/cursor/decode.ts `readCanonicalLine`)
// held equal to `JSON.parse`: on Cursor's frequent lines as it writes them and on near misses of
// them (keys moved, extra keys, spaces, numbers spelled otherwise, `\u` escapes, quotes and
// backslashes in every string, the fixed text of the heads inside values, CRLF, lines cut short
// or with a character changed, payloads nested near the depth bound), the record it reads, when
// it reads one, is the one `JSON.parse` gives (same keys in the same order, same values), within
// the bound; and the decoder gives the same events, diagnostics and written bytes with the reader
// on or off, in any chunking.

type Rec = Record<string, unknown>;

/** Text with what JSON escapes, the heads' fixed text, and a marker spelled `\u00a7` later. */
const text = fc.oneof(
  anyText,
  fc.constantFrom(
    '',
    'Hello',
    'say "hi"',
    'a\\b',
    '§',
    '}]},"session_id":"S',
    '","session_id":"S","timestamp_ms":1}',
    ',"model_call_id":"MC","session_id":"S","timestamp_ms":1}',
    '},"hookAdditionalContexts":[],"toolCallId":"',
  ),
);
// `a\\b` then `a\b` (a backspace, written `a\b`): a reader that kept an escaped id as plain
// would find it again in the second.
const session = mostly(fc.constant('S'), fc.constantFrom('S2', '', 'a"b', 'a\\b', 'a\b', '§'));
const id = mostly(fc.constantFrom('tool_1', 'MC'), text);
const stamp = mostly(
  fc.integer({ min: 1786540600000, max: 1786540700000 }),
  fc.constantFrom(0, 7, 1.5, -3, 1e21, 2 ** 53 + 2, 123456789012345, 1234567890123456),
);
const digits = mostly(fc.integer({ min: 1786540600000, max: 1786540700000 }).map(String), text);

/** A JSON value nested `n` levels (arrays in objects), for the depth bound. */
const nested = fc.nat({ max: 9 }).map((n) => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = i % 2 === 0 ? [v] : { v };
  return v;
});
const args = fc.record(
  {
    command: text,
    workingDirectory: text,
    timeout: stamp,
    simpleCommands: fc.constant(['git']),
    deep: nested,
  },
  { requiredKeys: ['command'] },
);
const payload = fc.record(
  {
    args,
    result: fc.oneof(
      fc.record({ success: fc.record({ exitCode: stamp, stdout: text, stderr: text }) }),
      fc.record({ error: fc.record({ errorMessage: text }) }),
    ),
    description: text,
  },
  { requiredKeys: ['args'] },
);

const toolCall = fc
  .record({
    key: fc.constantFrom('shellToolCall', 'shellToolCall', 'editToolCall'),
    payload: fc.oneof(
      { arbitrary: payload, weight: 5 },
      { arbitrary: fc.constantFrom('x', [], null), weight: 1 },
    ),
    hooks: fc.constantFrom([], [], ['x']),
    id,
    startedAtMs: digits,
    completedAtMs: fc.option(digits, { nil: undefined }),
  })
  .map(({ key, payload, hooks, id, startedAtMs, completedAtMs }) =>
    defined({ [key]: payload, hookAdditionalContexts: hooks, toolCallId: id, startedAtMs, completedAtMs }),
  );

/** The records Cursor writes most, in its key order (the reader's shapes), and their kin. */
const record: fc.Arbitrary<Rec> = fc.oneof(
  fc.record({
    type: fc.constant('thinking'),
    subtype: fc.constant('delta'),
    text,
    session_id: session,
    timestamp_ms: stamp,
  }),
  fc.record({
    type: fc.constant('thinking'),
    subtype: fc.constant('completed'),
    session_id: session,
    timestamp_ms: stamp,
  }),
  fc
    .record({
      blocks: fc.array(text, { minLength: 1, maxLength: 2 }),
      role: fc.constantFrom('assistant', 'assistant', 'user'),
      session_id: session,
      model_call_id: fc.option(id, { nil: undefined }),
      timestamp_ms: fc.option(stamp, { nil: undefined }),
    })
    .map(({ blocks, role, ...rest }) =>
      defined({
        type: 'assistant',
        message: { role, content: blocks.map((t) => ({ type: 'text', text: t })) },
        ...rest,
      }),
    ),
  fc.record(
    {
      type: fc.constant('system'),
      subtype: mostly(fc.constant('init'), text),
      apiKeySource: mostly(fc.constant('login'), text),
      cwd: text,
      session_id: session,
      model: mostly(fc.constant('Auto'), text),
      permissionMode: mostly(fc.constant('default'), text),
    },
    { requiredKeys: ['type', 'subtype', 'apiKeySource', 'cwd', 'session_id', 'model'] },
  ),
  fc
    .record({
      blocks: fc.array(text, { minLength: 1, maxLength: 2 }),
      role: fc.constantFrom('user', 'user', 'assistant'),
      session_id: session,
      timestamp_ms: fc.option(stamp, { nil: undefined, freq: 4 }),
    })
    .map(({ blocks, role, ...rest }) =>
      defined({
        type: 'user',
        message: { role, content: blocks.map((t) => ({ type: 'text', text: t })) },
        ...rest,
      }),
    ),
  fc.record({
    type: fc.constant('result'),
    subtype: mostly(fc.constant('success'), text),
    duration_ms: stamp,
    duration_api_ms: stamp,
    is_error: mostly(fc.boolean(), fc.constantFrom<unknown>(null, 'false', 0, 'abc', 12345)),
    result: text,
    session_id: session,
    request_id: mostly(fc.constant('REQ'), text),
    usage: mostly(
      fc.record({ inputTokens: stamp, outputTokens: stamp, cacheReadTokens: stamp, cacheWriteTokens: stamp }),
      fc.oneof(
        fc.record({ inputTokens: stamp, outputTokens: stamp }),
        fc.record({ input: stamp, output: stamp, cacheRead: stamp, cacheWrite: stamp }),
        fc.constantFrom<unknown>(null, [], {}),
      ),
    ),
  }),
  fc
    .record({
      subtype: fc.constantFrom('started', 'completed', 'running'),
      call_id: id,
      tool_call: toolCall,
      model_call_id: fc.option(id, { nil: undefined, freq: 5 }),
      session_id: session,
      timestamp_ms: stamp,
    })
    .map((r) => defined({ type: 'tool_call', ...r })),
);

/** The object without its `undefined` fields (absent keys). */
function defined(o: Rec): Rec {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** How a line is spelled: as Cursor writes it, or a near miss of that. */
const spelling = fc.oneof(
  { arbitrary: fc.constant({ kind: 'as written' as const, at: 0 }), weight: 6 },
  {
    arbitrary: fc.record({
      kind: fc.constantFrom(
        'u-escape',
        'keys reversed',
        'extra key',
        'space',
        'ts .0',
        'ts e0',
        'ts leading zero',
        'ts minus',
        'ts 17 digits',
        'crlf',
        'cut',
        'changed',
      ),
      at: fc.nat(),
    }),
    weight: 4,
  },
);

function spell(r: Rec, how: { kind: string; at: number }): string {
  const line = JSON.stringify(r);
  // The time, or a result's duration or first count: the first of them on the line.
  const ts = /("(?:timestamp_ms|duration_ms|inputTokens)":)(\d+)/;
  switch (how.kind) {
    case 'u-escape':
      return line.replaceAll('§', '\\u00a7').replaceAll('S', '\\u0053');
    case 'keys reversed':
      return JSON.stringify(Object.fromEntries(Object.entries(r).reverse()));
    case 'extra key':
      return JSON.stringify({ ...r, extra: 1 });
    case 'space': {
      const i = how.at % line.length;
      return `${line.slice(0, i)} ${line.slice(i)}`;
    }
    case 'ts .0':
      return line.replace(ts, '$1$2.0');
    case 'ts e0':
      return line.replace(ts, '$1$2e0');
    case 'ts leading zero':
      return line.replace(ts, '$10$2');
    case 'ts minus':
      return line.replace(ts, '$1-$2');
    case 'ts 17 digits':
      // A digit-by-digit sum rounds these digits otherwise than JSON.parse.
      return line.replace(ts, '$171481791153682067');
    case 'crlf':
      return `${line}\r`;
    case 'cut':
      return line.slice(0, how.at % line.length);
    case 'changed': {
      const i = how.at % line.length;
      return `${line.slice(0, i)}${['"', '\\', '}', 'x', ']'][how.at % 5]}${line.slice(i + 1)}`;
    }
    default:
      return line;
  }
}

const line = fc.tuple(record, spelling).map(([r, how]) => spell(r, how));

const CASE: WholeEventsCase = {
  codec: cursor,
  whole: cursorCanonicalLines,
  write: (events) => cursor.stringify(events),
};

const OPENING =
  '{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/tmp/wt","session_id":"S","model":"Auto","permissionMode":"default"}\n' +
  '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go"}]},"session_id":"S"}\n';

describe('Cursor decoder: the canonical-line reader beside JSON.parse', () => {
  // Found by the property below (seed -314282463): the shell payload's shortcut checked where the
  // `tool_call` object's last string ended, not that a `}` closed the object there.
  test.each(['started', 'completed'])(
    'a %s shell call whose object is not closed by } is not read',
    (subtype) => {
      const toolCall: Rec = {
        shellToolCall: { args: { command: 'ls' }, description: 'd' },
        hookAdditionalContexts: [],
        toolCallId: 'MC',
        startedAtMs: '1786540600000',
      };
      if (subtype === 'completed') toolCall.completedAtMs = '1786540600001';
      const good = JSON.stringify({
        type: 'tool_call',
        subtype,
        call_id: 'MC',
        tool_call: toolCall,
        model_call_id: 'tool_1',
        session_id: 'S',
        timestamp_ms: 1786540600000,
      });
      const close = good.indexOf(',"model_call_id"') - 1;
      expect(same(readCanonicalLine(newLineReader(64), good), parsed(good))).toBe(true);
      for (const c of [']', '"', 'x', ' ']) {
        const bad = `${good.slice(0, close)}${c}${good.slice(close + 1)}`;
        expect(readCanonicalLine(newLineReader(64), bad), bad).toBeUndefined();
      }
    },
  );

  test('reads, when it reads a line, the record JSON.parse gives, within the depth bound', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), depth, (lines, maxDepth) => {
        // One reader across the lines, as in a decoder: the session id it keeps carries over.
        const r = newLineReader(maxDepth);
        for (const text of lines) {
          const got = readCanonicalLine(r, text);
          if (got === undefined) continue;
          const want = parsed(text);
          expect(same(got, want)).toBe(true);
          expect(valueExceedsDepth(want, maxDepth)).toBe(false);
        }
      }),
      { numRuns: FUZZ_RUNS * 10 },
    );
  });

  decoderProperties(CASE, line, OPENING);

  test('takes the frequent lines (the properties are not vacuous)', () => {
    const r = newLineReader(64);
    const lines = [
      '{"type":"thinking","subtype":"delta","text":"Creating hi.txt","session_id":"S","timestamp_ms":1786540600505}',
      '{"type":"thinking","subtype":"completed","session_id":"S","timestamp_ms":1786540600508}',
      '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a \\"b\\"\\n"}]},"session_id":"S","model_call_id":"MC","timestamp_ms":1786540600509}',
      '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"x"}]},"session_id":"S","timestamp_ms":1786540600509}',
      '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"x"}]},"session_id":"S"}',
      '{"type":"tool_call","subtype":"started","call_id":"tool_1","tool_call":{"shellToolCall":{"args":{"command":"ls"}},"hookAdditionalContexts":[],"toolCallId":"tool_1","startedAtMs":"1786540600880"},"model_call_id":"MC","session_id":"S","timestamp_ms":1786540600509}',
      '{"type":"tool_call","subtype":"completed","call_id":"tool_1","tool_call":{"shellToolCall":{"args":{"command":"ls"},"result":{"success":{"exitCode":0}}},"hookAdditionalContexts":[],"toolCallId":"tool_1","startedAtMs":"1","completedAtMs":"2"},"model_call_id":"MC","session_id":"S","timestamp_ms":1786540608556}',
      '{"type":"tool_call","subtype":"completed","call_id":"tool_1","tool_call":{"editToolCall":{"args":{"path":"/x"}},"hookAdditionalContexts":[],"toolCallId":"tool_1","startedAtMs":"1"},"model_call_id":"MC","session_id":"S","timestamp_ms":1786540608556}',
      '{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/tmp/wt","session_id":"S","model":"Auto","permissionMode":"default"}',
      '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go \\"x\\"\\n"}]},"session_id":"S"}',
    ];
    for (const text of lines) expect(same(readCanonicalLine(r, text), JSON.parse(text))).toBe(true);
    // The session id, once read, is found again in place.
    expect(r[1]).toBe('S');
  });
});
