import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { cursor } from '../../src/all';
import { cursorFastPath } from '../../src/formats/cursor/encode';
import { keptLineSuite, num, odd, text, trustsKeptRecord, value } from '../kept-suite';

// The Cursor writer's kept-line fast path (src/formats/cursor/encode.ts `kept`) held equal to the
// general path: Cursor's records and near misses (keys moved, an extra key, numbers spelled
// otherwise or read as Infinity, a `\u` escape, no time stamp), their events edited anywhere.

const ts = fc.integer({ min: 1786540600000, max: 1786540700000 });
const S = 'ses-1';
const args = fc.dictionary(fc.constantFrom('command', 'workingDirectory', 'n', '__proto__'), value, {
  maxKeys: 3,
});
const message = (role: string) =>
  fc.oneof(
    text.map((t) => ({ role, content: [{ type: 'text', text: t }] })),
    text.map((t) => ({ role, content: t })),
    fc.tuple(text, text).map(([a, b]) => ({
      role,
      content: [
        { type: 'text', text: a },
        { type: 'text', text: b },
      ],
    })),
  );

const record: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.constant({
    type: 'system',
    subtype: 'init',
    apiKeySource: 'login',
    cwd: '/tmp/wt',
    session_id: S,
    model: 'Auto',
    permissionMode: 'default',
  }),
  message('user').map((m) => ({ type: 'user', message: m, session_id: S })),
  fc
    .tuple(fc.boolean(), text, ts)
    .map(([delta, t, at]) =>
      delta
        ? { type: 'thinking', subtype: 'delta', text: t, session_id: S, timestamp_ms: at }
        : { type: 'thinking', subtype: 'completed', session_id: S, timestamp_ms: at },
    ),
  fc.tuple(message('assistant'), fc.boolean(), ts).map(([m, mc, at]) => ({
    type: 'assistant',
    message: m,
    session_id: S,
    ...(mc ? { model_call_id: 'MC' } : {}),
    timestamp_ms: at,
  })),
  fc
    .record({
      done: fc.boolean(),
      ok: fc.boolean(),
      args,
      out: text,
      started: fc.oneof(ts.map(String), fc.constantFrom('0123', 'x')),
      at: ts,
    })
    .map(({ done, ok, args, out, started, at }) => {
      const payload: Record<string, unknown> = { args };
      if (done)
        payload.result = ok
          ? { success: { command: 'ls', exitCode: 0, stdout: out, stderr: '' } }
          : { error: { errorMessage: out, exitCode: 1 } };
      payload.description = 'Run it';
      const toolCall: Record<string, unknown> = {
        shellToolCall: payload,
        hookAdditionalContexts: [],
        toolCallId: 'tool_1',
        startedAtMs: started,
      };
      if (done) toolCall.completedAtMs = String(at + 200);
      return {
        type: 'tool_call',
        subtype: done ? 'completed' : 'started',
        call_id: 'tool_1',
        tool_call: toolCall,
        model_call_id: 'MC',
        session_id: S,
        timestamp_ms: at,
      };
    }),
  fc.tuple(fc.boolean(), text, num).map(([failed, t, n]) => ({
    type: 'result',
    subtype: failed ? 'error' : 'success',
    duration_ms: n,
    duration_api_ms: n,
    is_error: failed,
    result: t,
    session_id: S,
    request_id: 'REQ',
    usage: { inputTokens: n, outputTokens: 2, cacheReadTokens: n, cacheWriteTokens: 0 },
  })),
  fc.constant({ type: 'connection', subtype: 'reconnecting', session_id: S, timestamp_ms: 5 }),
);

const line = fc.tuple(record, fc.nat({ max: 9 }), odd).map(([r, miss, o]) => {
  let text = JSON.stringify(r);
  if (miss === 1) text = JSON.stringify({ session_id: 'other', ...r });
  if (miss === 2) text = JSON.stringify({ ...r, extra: 1 });
  if (miss === 3) text = text.replace(/:(\d+)([,}])/, `:${o}$2`);
  if (miss === 4) text = text.replace(/"a"/, '"\\u0061"');
  if (miss === 5) {
    const { timestamp_ms: _, ...rest } = r;
    text = JSON.stringify(rest);
  }
  return `${text}\n`;
});

const toolLine = `${JSON.stringify({
  type: 'tool_call',
  subtype: 'completed',
  call_id: 'tool_1',
  tool_call: {
    shellToolCall: {
      args: { command: 'ls', o: { deep: 1 } },
      result: { success: { command: 'ls', exitCode: 0, stdout: 'x', stderr: '' } },
      description: 'Run it',
    },
    hookAdditionalContexts: [],
    toolCallId: 'tool_1',
    startedAtMs: '1',
    completedAtMs: '2',
  },
  session_id: S,
  timestamp_ms: 3,
})}\n`;

const startAndEnd = `${toolLine.replace('"completed"', '"started"')}${toolLine}`;

describe('Cursor writer: the kept-line fast path', () => {
  keptLineSuite({
    codec: cursor,
    format: 'cursor',
    line,
    fields: [
      'text',
      'ts',
      'session',
      'input',
      'message',
      'call',
      'name',
      'args',
      'result',
      'startedAt',
      'endedAt',
      'status',
      'reason',
      'durationMs',
      'answer',
      'error',
      'model',
      'cwd',
      'mode',
    ],
    fastPath: cursorFastPath,
    writeOptions: { idSource: () => 'id' },
    adopt: (e) => {
      const record = e.provenance?.hints?.record as
        | { tool_call?: { shellToolCall?: { result?: unknown } } }
        | undefined;
      const result = record?.tool_call?.shellToolCall?.result;
      if (e.type !== 'tool.end' || typeof result !== 'object' || result === null) return;
      e.result = result;
      (result as Record<string, unknown>).adopted = true;
    },
    adoptLines: startAndEnd,
  });

  test('a result edited in place is written as edited (the event holds a copy of the kept object)', () => {
    const { events } = cursor.parse(`${toolLine.replace('"completed"', '"started"')}${toolLine}`);
    const end = events.find((e) => e.type === 'tool.end');
    if (end?.type !== 'tool.end') throw new Error('no tool.end');
    (end.result as { success: Record<string, unknown> }).success.stdout = 'edited';
    const out = cursor.stringify(events).split('\n')[1]!;
    expect(JSON.parse(out).tool_call.shellToolCall.result.success.stdout).toBe('edited');
  });

  test('decoded events take it as they come; it trusts the kept record to be what the line parses to', () => {
    trustsKeptRecord(cursor, cursorFastPath, toolLine, 'tool.end', (r) => {
      ((r.tool_call as Record<string, unknown>).shellToolCall as Record<string, unknown>).description =
        'edited';
    });
  });
});
