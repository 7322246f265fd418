import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { cursor } from '../../src/all';

// A call's payload sits under a key naming its tool (`readToolCall`). An object under a key no
// reader knows put before it in `tool_call` was taken for the payload: the call became a
// `zz_extra` call of no kind and no arguments (found by a test now folded into
// test/hostile/unknown-keys-wide.test.ts, where the completion's line then lost the key). A
// `…ToolCall` key is the payload now, wherever it stands.

const lines = readFileSync('fixtures/cursor/tools.jsonl', 'utf8').split('\n');

test('an object under a key no reader knows before the payload is not the tool', () => {
  const input = lines
    .map((l) => l.replace('"tool_call":{"readToolCall"', '"tool_call":{"zz":{"a":[1,"x"]},"readToolCall"'))
    .join('\n');
  expect(input).not.toBe(lines.join('\n'));
  const { events } = cursor.parse(input);
  const start = events.find((e) => e.type === 'tool.start' && e.call === 'tool_r1');
  const end = events.find((e) => e.type === 'tool.end' && e.call === 'tool_r1');
  expect(start).toMatchObject({ name: 'read', kind: 'read', args: { path: '/home/dev/repo/README.md' } });
  expect(end).toMatchObject({ name: 'read', ok: true });
  expect(cursor.stringify(events)).toBe(input);
});
