import { describe, expect, test } from 'vitest';
import { type AgentEvent, codex, detectFormat, isAgentwireError } from '../../src/all';
import { CODEX_MAX_LINE_BYTES } from '../../src/formats/codex/index';
import { scanItemIds } from '../../src/formats/codex/wire';
import { isAgentEvent } from '../../src/model-guard';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const types = (events: AgentEvent[]) => events.map((e) => e.type);

// A turn whose collab call spawns agent t2 and then waits for it: the wait says t2's `status`
// and `message`.
function collabWait(status: string, message: string): string {
  const spawn =
    '{"id":"item_0","type":"collab_tool_call","tool":"spawn_agent","sender_thread_id":"t1","receiver_thread_ids":["t2"],"prompt":"look","agents_states":{"t2":{"status":"running","message":null}},"status":"completed"}';
  const wait = `{"id":"item_1","type":"collab_tool_call","tool":"wait","sender_thread_id":"t1","receiver_thread_ids":["t2"],"prompt":null,"agents_states":{"t2":{"status":${JSON.stringify(status)},"message":${JSON.stringify(message)}}},"status":"completed"}`;
  return lines(
    '{"type":"thread.started","thread_id":"t1"}',
    '{"type":"turn.started"}',
    `{"type":"item.completed","item":${spawn}}`,
    `{"type":"item.completed","item":${wait}}`,
    '{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}',
  );
}

describe('detectFormat tells Codex from the others by its first line', () => {
  test.each([
    ['{"type":"thread.started","thread_id":"0199"}', 'certain'],
    ['{"type":"turn.started"}', 'likely'],
    ['{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hi"}}', 'likely'],
    [
      '{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}',
      'likely',
    ],
    ['{"type":"turn.failed","error":{"message":"x"}}', 'likely'],
    ['{"type":"error","message":"{\\"type\\":\\"error\\"}"}', 'likely'],
    ['{"type":"session.created","id":"legacy"}', 'likely'],
  ])('%s → codex (%s)', (line, confidence) => {
    expect(detectFormat(`${line}\n`)).toMatchObject({ format: 'codex', confidence });
  });

  test.each([
    // Claude Code, Gemini CLI, HEP, nativeharness first lines
    '{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":[],"model":"claude"}',
    '{"type":"init","timestamp":"2026-01-01T00:00:00.000Z","session_id":"s","model":"auto"}',
    '{"type":"error","timestamp":"2026-01-01T00:00:00.000Z","severity":"warning","message":"Loop detected"}',
    '{"type":"message","timestamp":"2026-01-01T00:00:00.000Z","role":"user","content":"hi"}',
  ])('%s is not codex', (line) => {
    expect(detectFormat(`${line}\n`)?.format).not.toBe('codex');
  });
});

describe('the Codex decoder', () => {
  test('maxLineBytes defaults to 16 MiB', () => {
    expect(CODEX_MAX_LINE_BYTES).toBe(16 * 1024 * 1024);
    const text = 'x'.repeat(2 * 1024 * 1024);
    const line = `{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"${text}"}}\n`;
    const { events, diagnostics } = codex.parse(line);
    expect(diagnostics).toEqual([]);
    expect(events[1]).toMatchObject({ type: 'text.delta', text });
    expect(codex.parse(line, { maxLineBytes: 1024 }).diagnostics[0]?.code).toBe('line_too_long');
  });

  test('the legacy pre-2025-10 shape is reported as unsupported_version and kept as unknown, never misread', () => {
    const legacy = lines(
      '{"type":"session.created","session_id":"abc"}',
      '{"type":"item.completed","item":{"id":"itm_0","item_type":"assistant_message","text":"hi"}}',
    );
    const { events, diagnostics } = codex.parse(legacy);
    expect(diagnostics.map((d) => d.code)).toEqual(['unsupported_version']);
    expect(types(events)).toEqual(['unknown', 'unknown']);
    expect(codex.stringify(events)).toBe(legacy);
    expect(() => codex.parse(legacy, { strict: true })).toThrow(/pre-2025-10/);
    // an item_type item on its own is legacy too
    const item = lines(
      '{"type":"item.completed","item":{"id":"itm_0","item_type":"assistant_message","text":"hi"}}',
    );
    expect(codex.parse(item).diagnostics[0]?.code).toBe('unsupported_version');
  });

  test('bad lines are diagnostics with line and byte offset, and the stream goes on', () => {
    const input = lines(
      '{"type":"thread.started","thread_id":"t"}',
      '# a comment',
      '',
      '[1,2]',
      '{"type":"turn.completed","usage":{"input_tokens":-1,"output_tokens":1}}',
      '{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":7}}',
      '{"type":"turn.started"}',
    );
    const { events, diagnostics } = codex.parse(input);
    expect(diagnostics.map((d) => `${d.severity} ${d.code} @${d.line}:${d.offset}`)).toEqual([
      'error invalid_json @2:42',
      'info invalid_json @3:54',
      'error invalid_json @4:55',
      'error invalid_record @5:61',
      'error invalid_record @6:133',
    ]);
    // the invalid records are kept (as unknown), the run still opens and is ended as incomplete
    expect(types(events)).toEqual(['session.start', 'unknown', 'unknown', 'run.start', 'run.end']);
    expect(events.at(-1)).toMatchObject({ status: 'incomplete', provenance: { synthetic: true } });
  });

  test('a turn that never ends is incomplete; a new turn.started ends the open one as incomplete', () => {
    const { events } = codex.parse(lines('{"type":"turn.started"}', '{"type":"turn.started"}'));
    expect(events.map((e) => (e.type === 'run.end' ? e.status : e.type))).toEqual([
      'run.start',
      'incomplete',
      'run.start',
      'incomplete',
    ]);
    expect(codex.stringify(events)).toBe(lines('{"type":"turn.started"}', '{"type":"turn.started"}'));
  });

  test('usage is the difference from the thread’s previous running total, per thread', () => {
    const input = lines(
      '{"type":"thread.started","thread_id":"a"}',
      '{"type":"turn.started"}',
      '{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":10,"output_tokens":5}}',
      '{"type":"thread.started","thread_id":"b"}',
      '{"type":"turn.started"}',
      '{"type":"turn.completed","usage":{"input_tokens":7,"cached_input_tokens":0,"output_tokens":1}}',
      '{"type":"thread.started","thread_id":"a"}',
      '{"type":"turn.started"}',
      '{"type":"turn.completed","usage":{"input_tokens":250,"cached_input_tokens":90,"output_tokens":12}}',
    );
    const { events, diagnostics } = codex.parse(input);
    expect(diagnostics).toEqual([]);
    const ends = events.filter((e) => e.type === 'run.end');
    expect(ends.map((e) => [e.session, e.usage])).toEqual([
      ['a', { input: 100, cacheRead: 10, output: 5 }],
      ['b', { input: 7, cacheRead: 0, output: 1 }],
      ['a', { input: 150, cacheRead: 80, output: 7 }],
    ]);
    expect(ends.every((e) => e.usage?.costUsd === undefined && e.usage?.model === undefined)).toBe(true);
    expect(codex.stringify(events)).toBe(input);
  });

  test('a running total that goes down is a warning and a new total; written back as it was', () => {
    const input = lines(
      '{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":5}}',
      '{"type":"turn.completed","usage":{"input_tokens":40,"cached_input_tokens":0,"output_tokens":2}}',
    );
    const { events, diagnostics } = codex.parse(input);
    expect(diagnostics.map((d) => `${d.severity} ${d.code} @${d.line}`)).toEqual(['warning order @2']);
    expect(events.filter((e) => e.type === 'run.end').map((e) => e.usage?.input)).toEqual([100, 40]);
    expect(codex.stringify(events)).toBe(input);
  });

  test('unknown usage fields, record fields and another key order come back byte for byte', () => {
    const input = lines(
      '{"type":"thread.started","thread_id":"t","timestamp":"2026-01-01T00:00:00Z"}',
      '{"type":"turn.completed","usage":{"output_tokens":3,"input_tokens":9,"cached_input_tokens":0,"audio_tokens":2}}',
      '{"item":{"type":"agent_message","id":"item_0","text":"hi"},"type":"item.completed"}',
      '{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"caf\\u00e9"},"seq":4}',
      '{"type": "turn.failed", "error": {"message": "x", "code": 1}}',
    );
    const { events, diagnostics } = codex.parse(input);
    expect(diagnostics).toEqual([]);
    expect(codex.stringify(events)).toBe(input);
  });

  test('a web search item’s two ids: the item id is the call, the search id is kept and written back', () => {
    const line =
      '{"type":"item.completed","item":{"id":"item_2","type":"web_search","id":"ws_1","query":"q","action":{"type":"search","query":"q"}}}';
    const { events } = codex.parse(`${line}\n`);
    const end = events.find((e) => e.type === 'tool.end')!;
    expect(end).toMatchObject({ call: 'item_2', provenance: { extra: { id: 'ws_1' } } });
    // written from the model (the kept line dropped): both ids again
    delete end.provenance!.hints;
    expect(codex.stringify(events)).toBe(`${line}\n`);
    expect(scanItemIds(line, line.indexOf('"item":') + 7)).toEqual(['item_2', 'ws_1']);
  });

  // Newer exec writes a collab agent whose turn was stopped as `interrupted`
  // (openai/codex:codex-rs/exec/src/event_processor_with_jsonl_output.rs): its lane ends, cancelled.
  test('a collab agent state interrupted ends its child lane as cancelled', () => {
    const input = collabWait('interrupted', 'stopped');
    const { events, diagnostics } = codex.parse(input);
    expect(diagnostics).toEqual([]);
    const children = events.filter((e) => e.type === 'child.start' || e.type === 'child.end');
    expect(children).toMatchObject([
      { type: 'child.start', child: 't2', call: 'item_0', task: 'look' },
      { type: 'child.end', child: 't2', status: 'cancelled', result: 'stopped' },
    ]);
    expect(codex.stringify(events)).toBe(input);
  });

  // Found by test/fuzz/structured.test.ts: a state named after an Object.prototype member was
  // looked up as one, and `__proto__` ended the lane with `{}` as its status (no model event).
  test('a collab agent state named after an Object.prototype member ends no lane', () => {
    for (const status of ['__proto__', 'toString', 'constructor', 'hasOwnProperty']) {
      const input = collabWait(status, 'x');
      const { events } = codex.parse(input);
      expect(
        events.filter((e) => e.type === 'child.end'),
        status,
      ).toEqual([]);
      expect(
        events.filter((e) => !isAgentEvent(e)),
        status,
      ).toEqual([]);
      expect(codex.stringify(events), status).toBe(input);
    }
  });

  test('a provider error with JSON inside its message: kept as text, parsed into data', () => {
    const { events } = codex.parse(
      lines('{"type":"error","message":"{\\"error\\":{\\"type\\":\\"overloaded\\"},\\"status\\":529}"}'),
    );
    expect(events[0]).toMatchObject({
      type: 'error',
      fatal: true,
      message: '{"error":{"type":"overloaded"},"status":529}',
      data: { error: { type: 'overloaded' }, status: 529 },
    });
    const plain = codex.parse(lines('{"type":"error","message":"{not json"}')).events[0];
    expect(plain).not.toHaveProperty('data');
  });

  test('numbers JSON cannot hold exactly in free-form fields are reported', () => {
    const { diagnostics } = codex.parse(
      lines(
        '{"type":"item.completed","item":{"id":"i","type":"mcp_tool_call","server":"s","tool":"t","arguments":{"n":9007199254740993},"result":null,"error":null,"status":"completed"}}',
      ),
    );
    expect(diagnostics.map((d) => d.code)).toEqual(['invalid_record']);
  });

  test('deep free-form values are refused at maxDepth', () => {
    const deep = `${'['.repeat(80)}${']'.repeat(80)}`;
    const { diagnostics, events } = codex.parse(
      lines(
        `{"type":"item.completed","item":{"id":"i","type":"mcp_tool_call","server":"s","tool":"t","arguments":{"a":${deep}},"result":null,"error":null,"status":"completed"}}`,
      ),
    );
    expect(diagnostics.map((d) => d.code)).toEqual(['nesting_too_deep']);
    expect(events).toEqual([]);
  });

  test('never throws on a hostile line; strict mode throws an AgentwireError', () => {
    for (const line of [
      '{"type":"item.completed","item":null}',
      '{"type":"item.started","item":{"id":1}}',
      '{"type":"turn.failed","error":"x"}',
      '{"type":"turn.completed"}',
      '{"type":"thread.started"}',
      '{"type":"error"}',
      '{"type":"item.updated","item":{"id":"i","type":"todo_list","items":[null]}}',
      '{"type":"item.completed","item":{"id":"i","type":"file_change","changes":[{"path":1}],"status":"x"}}',
      '{"type":"__proto__","__proto__":{"polluted":true}}',
    ]) {
      expect(() => codex.parse(`${line}\n`)).not.toThrow();
      try {
        codex.parse(`${line}\n`, { strict: true });
      } catch (e) {
        expect(isAgentwireError(e)).toBe(true);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
