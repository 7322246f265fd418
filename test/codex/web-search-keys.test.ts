import { describe, expect, test } from 'vitest';
import { codex } from '../../src/all';
import type { AgentEvent } from '../../src/model';

// A web_search item spells `id` twice (the item's, then the search's), and JSON.parse keeps the
// second only. The writer put the kept line back only if it began `"item":{"id":<call>,`: an item
// with a key of a later Codex's before its ids was written in Codex's order, the key moved, and
// nothing said (test/hostile/unknown-keys.test.ts, exempted until round thirty-two). Now the ids
// are read from the kept line wherever they stand.

const head = '{"type":"thread.started","thread_id":"t"}\n{"type":"turn.started"}\n';
const started =
  '{"type":"item.started","item":{"zz_extra":1,"id":"item_1","type":"web_search","id":"ws_1","query":"","action":{"type":"other"}}}\n';
const completed =
  '{"type":"item.completed","item":{"zz_extra":{"a":[1,"x"]},"id":"item_1","type":"web_search","id":"ws_1","query":"q","action":{"type":"search","query":"q"}}}\n';
const tail =
  '{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}\n';
const stream = head + started + completed + tail;

function edited(events: AgentEvent[], edit: (e: AgentEvent) => void): AgentEvent[] {
  const copy = structuredClone(events);
  for (const e of copy) if (e.type === 'tool.start' || e.type === 'tool.end') edit(e);
  return copy;
}

describe('codex: a web_search item with a key of its own before its ids', () => {
  test('comes back byte for byte', () => {
    const { events, diagnostics } = codex.parse(stream);
    expect(diagnostics).toEqual([]);
    expect(codex.stringify(events)).toBe(stream);
  });

  test("with the call's id edited, the item is written from the event (the key kept, the new id)", () => {
    const { events } = codex.parse(stream);
    const out = codex.stringify(
      edited(events, (e) => {
        (e as { call: string }).call = 'item_9';
      }),
    );
    expect(out).not.toContain('"id":"item_1"');
    expect(out).toContain('{"zz_extra":1,"id":"item_9","id":"ws_1","type":"web_search"');
  });

  test("with the search's id edited, the item is written from the event", () => {
    const { events } = codex.parse(stream);
    const out = codex.stringify(
      edited(events, (e) => {
        e.provenance!.extra!.id = 'ws_2';
      }),
    );
    expect(out).not.toContain('ws_1');
    expect(out).toContain('"id":"item_1","id":"ws_2"');
  });

  test("with a search id equal to the call's taken out, the kept line (two ids) is not put back", () => {
    const line =
      '{"type":"item.completed","item":{"id":"item_1","type":"web_search","id":"item_1","query":"q","action":{"type":"other"}}}\n';
    const { events } = codex.parse(head + line + tail);
    const out = codex.stringify(
      edited(events, (e) => {
        delete e.provenance!.extra!.id;
      }),
    );
    expect(out.match(/"id":"item_1"/g)).toHaveLength(1);
  });
});
