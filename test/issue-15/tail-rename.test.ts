import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, expect, test } from 'vitest';
import type { AgentEventOf } from '../../src/model';
import { type TailItem, tailTrace } from '../../src/node/tail';

// Issue #15 item 12: a line appended to the trace right before another file is renamed over
// its path is read (the old file is drained to its end before the switch), and writes racing
// renames at random points lose nothing and deliver nothing twice.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentwire-rename-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const record = (n: number) =>
  `{"v": 1, "type": "tool", "ts": 1792983750.5, "fn": "f", "args": {}, "result": null, "error": null, "started_at": 1792983750.25, "ended_at": 1792983750.5, "context": {"n": ${n}}}\n`;

const tick = () => new Promise((r) => setImmediate(r));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function collect(path: string, until: (ns: number[]) => boolean, watch: boolean) {
  const ac = new AbortController();
  const items: TailItem[] = [];
  const ns: number[] = [];
  const timer = setTimeout(() => ac.abort(), 15_000);
  const done = (async () => {
    for await (const item of tailTrace(path, { signal: ac.signal, pollMs: 5, watch })) {
      items.push(item);
      if (item.type === 'event' && item.event.type === 'tool.end')
        ns.push((item.event as AgentEventOf<'tool.end'>).context!.n as number);
      if (until(ns)) ac.abort();
    }
  })();
  return {
    ns,
    items,
    stop: () => ac.abort(),
    done: async () => {
      await done;
      clearTimeout(timer);
    },
  };
}

test('a line appended right before a rename over the path is read, then the new file', async () => {
  const path = join(dir, 'trace.jsonl');
  writeFileSync(path, record(1));
  const t = await collect(path, (ns) => ns.includes(3), false);
  while (t.ns.length < 1) await sleep(5);
  appendFileSync(path, record(2));
  writeFileSync(`${path}.next`, record(3));
  renameSync(`${path}.next`, path);
  await t.done();
  expect(t.ns).toEqual([1, 2, 3]);
  const codes = t.items.flatMap((i) => (i.type === 'diagnostic' ? [i.diagnostic.code] : []));
  expect(codes).toEqual(['rotated']);
});

test('writes racing renames at random points: nothing lost, nothing twice, in order', async () => {
  // Each run: appends, and rotations that append to the old file and at once rename a new file
  // (holding the next records) over the path, with the tailer woken between steps at random. A
  // file replaced before the tailer ever opened it cannot be read by anyone following a path, so
  // a rotation waits until the tailer has read the newest file's first record (appends do not).
  const step = fc.record({
    kind: fc.constantFrom('append' as const, 'rotate' as const),
    before: fc.integer({ min: 0, max: 3 }),
    count: fc.integer({ min: 1, max: 3 }),
    pause: fc.integer({ min: 0, max: 3 }),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), fc.boolean(), async (steps, watch) => {
      rmSync(dir, { recursive: true, force: true });
      dir = mkdtempSync(join(tmpdir(), 'agentwire-rename-'));
      const path = join(dir, 'trace.jsonl');
      let n = 0;
      writeFileSync(path, record(++n));
      let newestFirst = 1;
      let finished = false;
      const t = await collect(path, (ns) => finished && ns[ns.length - 1] === n, watch);
      for (const s of steps) {
        if (s.kind === 'append') for (let i = 0; i < s.count; i++) appendFileSync(path, record(++n));
        else {
          const first = newestFirst;
          while (!t.ns.includes(first)) await sleep(1);
          for (let i = 0; i < s.before; i++) appendFileSync(path, record(++n));
          let text = '';
          newestFirst = n + 1;
          for (let i = 0; i < s.count; i++) text += record(++n);
          writeFileSync(`${path}.next`, text);
          renameSync(`${path}.next`, path);
        }
        for (let i = 0; i < s.pause; i++) await tick();
        if (s.pause === 3) await sleep(8);
      }
      finished = true;
      if (t.ns[t.ns.length - 1] === n) t.stop();
      await t.done();
      expect(t.ns).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    }),
    { numRuns: 25 },
  );
}, 120_000);
