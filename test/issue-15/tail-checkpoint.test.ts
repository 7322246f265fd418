import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AgentEvent, AgentEventOf } from '../../src/model';
import { type TailCheckpoint, type TailItem, type TailTraceOptions, tailTrace } from '../../src/node/tail';

// Issue #15 item 13: a tail can be resumed where it stopped (byte offset + the file's head):
// nothing reread, nothing lost, line numbers continuing; a file replaced or truncated since is
// read from its start after `rotated`.

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentwire-checkpoint-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hello = '{"v": 1, "type": "hello", "ts": 1792983750.1, "sdk": "t/1", "pid": 7, "tools": ["f"]}\n';
const record = (n: number) =>
  `{"v": 1, "type": "tool", "ts": 1792983750.5, "fn": "f", "args": {}, "result": null, "error": null, "started_at": 1792983750.25, "ended_at": 1792983750.5, "context": {"n": ${n}}}\n`;
const records = (from: number, to: number) => {
  let text = '';
  for (let n = from; n <= to; n++) text += n % 5 === 0 ? `${record(n)}\n` : record(n); // blank lines too
  return text;
};
const n = (e: AgentEvent) => (e as AgentEventOf<'tool.end'>).context?.n as number;

// Reads until `stop` says so after an item; returns the items and the checkpoint taken then.
async function readUntil(
  path: string,
  stop: (items: TailItem[]) => boolean,
  options: TailTraceOptions = {},
): Promise<{ items: TailItem[]; checkpoint: TailCheckpoint; declared: string[] }> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 10_000);
  const tail = tailTrace(path, { signal: ac.signal, pollMs: 5, watch: false, ...options });
  const items: TailItem[] = [];
  let checkpoint = tail.checkpoint();
  for await (const item of tail) {
    items.push(item);
    checkpoint = tail.checkpoint(); // after handling the item, as a supervisor would
    if (stop(items)) break;
  }
  clearTimeout(timer);
  ac.abort();
  return { items, checkpoint, declared: tail.declared.names() };
}

const ends = (items: TailItem[]) =>
  items.flatMap((i) => (i.type === 'event' && i.event.type === 'tool.end' ? [i.event] : []));

test('stop at any item, resume from the checkpoint: every record exactly once, lines continuing', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 3 }), async (k, more) => {
      const path = join(dir, `t-${k}-${more}.jsonl`);
      writeFileSync(path, hello + records(1, 12));
      const first = await readUntil(path, (items) => items.length >= k || ends(items).length === 12);
      appendFileSync(path, records(13, 12 + more) + record(99));
      const second = await readUntil(path, (items) => ends(items).some((e) => n(e) === 99), {
        from: first.checkpoint,
      });
      const all = [...ends(first.items), ...ends(second.items)];
      expect(all.map(n)).toEqual([...Array.from({ length: 12 + more }, (_, i) => i + 1), 99]);
      expect(second.items.filter((i) => i.type === 'diagnostic' && i.diagnostic.code === 'rotated')).toEqual(
        [],
      );
      // Line numbers (and highbar's call ids) are the file's own, not restarted at 1.
      const full = await readUntil(path, (items) => ends(items).some((e) => n(e) === 99));
      const lines = (items: TailItem[]) => ends(items).map((e) => [n(e), e.provenance?.line, e.call]);
      expect([...lines(first.items), ...lines(second.items)]).toEqual(lines(full.items));
      // The tools declared before the checkpoint are known after the resume.
      expect(second.declared).toEqual(['f']);
    }),
    // 12: the checkpoint right after the record before a blank line.
    {
      numRuns: 15,
      examples: [
        [12, 0],
        [13, 1],
      ],
    },
  );
}, 120_000);

test('a file replaced or truncated since the checkpoint is read from its start, with rotated', async () => {
  const path = join(dir, 'replaced.jsonl');
  writeFileSync(path, hello + records(1, 6));
  const first = await readUntil(path, (items) => ends(items).length === 6);
  expect(first.checkpoint.offset).toBe(Buffer.byteLength(hello + records(1, 6)));
  expect(first.checkpoint.line).toBe(9); // hello, six records, one blank line

  // Another file, longer, with another head (another start time in its hello).
  writeFileSync(path, hello.replace('1792983750.1', '1792983999.1') + records(21, 30));
  const replaced = await readUntil(path, (items) => ends(items).length === 10, { from: first.checkpoint });
  expect(replaced.items[0]).toMatchObject({ type: 'diagnostic', diagnostic: { code: 'rotated' } });
  expect(ends(replaced.items).map(n)).toEqual(Array.from({ length: 10 }, (_, i) => i + 21));
  expect(ends(replaced.items)[0]!.provenance?.line).toBe(2);

  // Truncated to fewer bytes than the checkpoint.
  writeFileSync(path, hello + record(41));
  const shorter = await readUntil(path, (items) => ends(items).length === 1, { from: first.checkpoint });
  expect(shorter.items[0]).toMatchObject({ type: 'diagnostic', diagnostic: { code: 'rotated' } });
  expect(ends(shorter.items).map(n)).toEqual([41]);
});
