import { afterEach, describe, expect, test, vi } from 'vitest';
import { codex } from '../../src/all';
import type { AgentEvent } from '../../src/model';

// A to-do list whose entries have fields of their own is kept as written, and the writer reads
// the kept entries back to write an entry that still says what the event says with its fields.
// Round thirty-two: it parsed the kept line for the entries, then `rawIfSame` parsed it again to
// compare; now it is parsed once per write and the parsed value passed along. What is written is
// the same.

const item =
  '{"type":"item.updated","item":{"id":"item_0","type":"todo_list","items":[{"text":"a","completed":true,"zz_extra":1},{"text":"b","completed":false}]}}';
const stream = `{"type":"thread.started","thread_id":"t"}\n{"type":"turn.started"}\n${item}\n`;

function plans(): AgentEvent[] {
  return codex.parse(stream).events;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('codex: a kept to-do line is parsed once per write', () => {
  test('an unchanged list comes back byte for byte', () => {
    expect(codex.stringify(plans())).toBe(stream);
  });

  test('an edited list keeps the fields of the entries it still has, and parses the kept line once', () => {
    const events = plans();
    for (const e of events) if (e.type === 'plan') e.items[1]!.text = 'c';
    const parse = vi.spyOn(JSON, 'parse');
    const out = codex.stringify(events);
    const ofKept = parse.mock.calls.filter(([text]) => text === item).length;
    expect(out).toContain(
      '"items":[{"text":"a","completed":true,"zz_extra":1},{"text":"c","completed":false}]',
    );
    expect(ofKept).toBe(1);
  });
});
