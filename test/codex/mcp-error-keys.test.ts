import { describe, expect, test } from 'vitest';
import { codex } from '../../src/all';
import type { AgentEvent, AgentEventOf } from '../../src/model';

// A failed mcp_tool_call's `error` with a key of a later Codex's beside its `message`: the line
// came back, but the call's end said the whole object (`{"zz":1,"message":"…"}`) where it said
// the message's text (test/hostile/unknown-keys-wide.test.ts, open until round thirty-two). Now
// the end says the text and the writer puts the key back.

const head = '{"type":"thread.started","thread_id":"t"}\n{"type":"turn.started"}\n';
const item = (error: string): string =>
  `{"type":"item.completed","item":{"id":"item_1","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"result":null,"error":${error},"status":"failed"}}\n`;
const tail =
  '{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}\n';

function endOf(events: AgentEvent[]): AgentEventOf<'tool.end'> {
  const end = events.find((e) => e.type === 'tool.end');
  if (end?.type !== 'tool.end') throw new Error('no tool.end');
  return end;
}

describe('codex: a failed MCP call whose error has a key of its own', () => {
  for (const error of [
    '{"zz_extra":1,"message":"timed out"}',
    '{"message":"timed out","zz_extra":{"a":[1,"x"]}}',
    '{"zz_extra":null,"message":"timed out","zz_extra_2":[]}',
  ])
    test(`${error}: the end says the message, the line comes back`, () => {
      const stream = head + item(error) + tail;
      const { events, diagnostics } = codex.parse(stream);
      expect(diagnostics).toEqual([]);
      const end = endOf(events);
      expect(end.error).toBe('timed out');
      expect(end.ok).toBe(false);
      expect(codex.stringify(events)).toBe(stream);
    });

  test('the same end as the error without the key', () => {
    const plain = endOf(codex.parse(head + item('{"message":"timed out"}') + tail).events);
    const keyed = endOf(codex.parse(head + item('{"zz_extra":1,"message":"timed out"}') + tail).events);
    expect({ ...keyed, provenance: undefined }).toEqual({ ...plain, provenance: undefined });
  });

  test('with the message edited, the line is written from the event, the key kept', () => {
    const { events } = codex.parse(head + item('{"zz_extra":1,"message":"timed out"}') + tail);
    const copy = structuredClone(events);
    endOf(copy).error = 'refused';
    const out = codex.stringify(copy);
    expect(out).toContain('"error":{"message":"refused","zz_extra":1}');
    expect(out).not.toContain('timed out');
  });
});
