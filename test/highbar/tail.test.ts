import { type ChildProcess, fork } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import type { AgentEventOf } from '../../src/model';
import { type TailItem, tailTrace } from '../../src/node/tail';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentwire-tail-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const record = (n: number) =>
  `{"v": 1, "type": "tool", "ts": ${1792983750 + n / 8}, "fn": "f${n % 3}", "args": {"n": ${n}, "pad": "${'é'.repeat(n % 50)}"}, "result": null, "error": null, "started_at": 1792983750.5, "ended_at": 1792983751.5, "context": {"test": "t", "n": ${n}}}\n`;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function waitFor(what: string, condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function collect(path: string, options: Parameters<typeof tailTrace>[1]) {
  const items: TailItem[] = [];
  const tail = tailTrace(path, options);
  const done = (async () => {
    for await (const item of tail) items.push(item);
  })();
  const ns = () =>
    items.flatMap((i) =>
      i.type === 'event' && i.event.type === 'tool.end'
        ? [(i.event as AgentEventOf<'tool.end'>).context!.n]
        : [],
    );
  const diagnostics = () => items.flatMap((i) => (i.type === 'diagnostic' ? [i.diagnostic] : []));
  return { items, done, ns, diagnostics, tail };
}

function writer(path: string, seed: number): { child: ChildProcess; send: (msg: object) => Promise<void> } {
  const child = fork(join(__dirname, 'helpers/trace-writer.mjs'), [path, String(seed)], { stdio: 'ignore' });
  let id = 0;
  const send = (msg: object) =>
    new Promise<void>((resolve) => {
      const mine = ++id;
      const onMessage = (m: { done?: number }) => {
        if (m.done === mine) {
          child.off('message', onMessage);
          resolve();
        }
      };
      child.on('message', onMessage);
      child.send({ ...msg, id: mine });
    });
  return { child, send };
}

test('a concurrent writer: split lines, truncation and recreation; nothing lost, nothing duplicated', async () => {
  const path = join(dir, 'trace.jsonl');
  const ac = new AbortController();
  const tail = collect(path, { signal: ac.signal, pollMs: 50 }); // the file does not exist yet
  const { child, send } = writer(path, 7);
  try {
    await send({ op: 'append', text: range(1, 60).map(record).join('') });
    await waitFor('records 1-60', () => tail.ns().length >= 60);
    // A line cut in the middle, then the file truncated under it.
    await send({ op: 'append', text: record(999).slice(0, 70) });
    await new Promise((r) => setTimeout(r, 120));
    await send({ op: 'truncate' });
    await waitFor('truncation', () => tail.diagnostics().some((d) => d.code === 'rotated'));
    await send({ op: 'append', text: range(61, 120).map(record).join('') });
    await waitFor('records 61-120', () => tail.ns().length >= 120);
    await send({ op: 'append', text: record(998).slice(0, 50) });
    await new Promise((r) => setTimeout(r, 120));
    await send({ op: 'recreate' });
    await waitFor('recreation', () => tail.diagnostics().filter((d) => d.code === 'rotated').length >= 2);
    await send({ op: 'append', text: range(121, 180).map(record).join('') });
    await waitFor('records 121-180', () => tail.ns().length >= 180);
  } finally {
    child.kill();
    ac.abort();
  }
  await tail.done;
  expect(tail.ns()).toEqual(range(1, 180));
  expect(tail.diagnostics().map((d) => [d.code, d.severity])).toEqual([
    ['rotated', 'info'],
    ['rotated', 'info'],
  ]);
  expect(tail.tail.declared.names()).toEqual(['f1', 'f2', 'f0']);
});

test('from: end scans once for the tools declared since the last hello, then reads what is appended', async () => {
  const path = join(dir, 'trace.jsonl');
  writeFileSync(
    path,
    '{"v": 1, "type": "hello", "ts": 1.5, "sdk": "a", "pid": 1, "tools": ["old"]}\n' +
      '{"v": 1, "type": "tools", "ts": 1.5, "names": ["old2"]}\n' +
      '{"v": 1, "type": "hello", "ts": 2.5, "sdk": "a", "pid": 2, "tools": ["new"]}\n' +
      '{"v": 1, "type": "tools", "ts": 2.5, "names": ["new2"]}\n' +
      record(1) +
      record(2).slice(0, 40),
  );
  const ac = new AbortController();
  const tail = collect(path, { signal: ac.signal, from: 'end', pollMs: 20 });
  await waitFor('the scan', () => tail.tail.declared.names().length === 3);
  expect(tail.tail.declared.names()).toEqual(['new', 'new2', 'f1']);
  // The partial line at the end was not consumed by the scan: its rest completes it.
  appendFileSync(path, record(2).slice(40) + record(3));
  await waitFor('records 2-3', () => tail.ns().length >= 2);
  ac.abort();
  await tail.done;
  expect(tail.ns()).toEqual([2, 3]);
  expect(tail.diagnostics()).toEqual([]);
});

test('polling alone (no fs.watch) also follows the file, and abort ends the iteration', async () => {
  const path = join(dir, 'trace.jsonl');
  const ac = new AbortController();
  const tail = collect(path, { signal: ac.signal, watch: false, pollMs: 10 });
  appendFileSync(path, record(1));
  appendFileSync(path, '{"v": 1, "type": "tool", "fn": \n');
  appendFileSync(path, record(2));
  await waitFor('records', () => tail.ns().length >= 2);
  ac.abort();
  await tail.done;
  expect(tail.ns()).toEqual([1, 2]);
  expect(tail.diagnostics().map((d) => [d.code, d.line])).toEqual([['invalid_json', 2]]);
  // File order: the bad line's diagnostic sits between the events of lines 1 and 3.
  const kinds = tail.items.map((i) => (i.type === 'event' ? i.event.type : i.diagnostic.code));
  expect(kinds).toEqual(['run.start', 'tool.start', 'tool.end', 'invalid_json', 'tool.start', 'tool.end']);
});
