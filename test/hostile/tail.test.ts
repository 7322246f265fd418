import { appendFileSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { AgentEventOf } from '../../src/model';
import { type TailItem, type TailTraceOptions, tailTrace } from '../../src/node/tail';

// The tailer's hostile cases: what a writer (or a log rotator) can do to a file between two
// reads. Each: the exact file operations, one outcome (the records delivered, by their context
// number, and the diagnostics, by code). Polling only (watch: false), so the cases do not depend
// on fs.watch timing.

let dir: string;
let ac: AbortController;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentwire-hostile-tail-'));
  ac = new AbortController();
});
afterEach(() => {
  ac.abort();
  rmSync(dir, { recursive: true, force: true });
});

const record = (n: number) =>
  `{"v": 1, "type": "tool", "ts": 1792983750.5, "fn": "f", "args": {}, "result": null, "error": null, "started_at": 1792983750.25, "ended_at": 1792983750.5, "context": {"n": ${n}}}\n`;
const records = (...ns: number[]) => ns.map(record).join('');

async function waitFor(what: string, condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function follow(path: string, options: TailTraceOptions = {}) {
  const items: TailItem[] = [];
  const done = (async () => {
    for await (const item of tailTrace(path, { signal: ac.signal, watch: false, pollMs: 20, ...options }))
      items.push(item);
  })();
  const ns = () =>
    items.flatMap((i) =>
      i.type === 'event' && i.event.type === 'tool.end'
        ? [(i.event as AgentEventOf<'tool.end'>).context!.n as number]
        : [],
    );
  const codes = () => items.flatMap((i) => (i.type === 'diagnostic' ? [i.diagnostic.code] : []));
  return { items, done, ns, codes };
}

describe('hostile input: tail', () => {
  test('a partial last line is held until its newline arrives, then delivered once', async () => {
    const path = join(dir, 't.jsonl');
    const line2 = record(2);
    writeFileSync(path, record(1) + line2.slice(0, 40));
    const t = follow(path);
    await waitFor('record 1', () => t.ns().length === 1);
    await sleep(80); // several polls with the partial line pending
    expect(t.ns()).toEqual([1]);
    appendFileSync(path, line2.slice(40));
    await waitFor('record 2', () => t.ns().length === 2);
    expect(t.ns()).toEqual([1, 2]);
    expect(t.codes()).toEqual([]);
  });

  test('a partial line completed one byte per poll is delivered once', async () => {
    const path = join(dir, 't.jsonl');
    const line = record(1);
    writeFileSync(path, '');
    const t = follow(path);
    for (let i = 0; i < line.length; i += 23) {
      appendFileSync(path, line.slice(i, i + 23));
      await sleep(3);
    }
    await waitFor('record 1', () => t.ns().length === 1);
    expect(t.codes()).toEqual([]);
  });

  test('a file that does not exist yet is waited for', async () => {
    const path = join(dir, 'later.jsonl');
    const t = follow(path);
    await sleep(60);
    writeFileSync(path, records(1, 2));
    await waitFor('records', () => t.ns().length === 2);
    expect(t.codes()).toEqual([]);
  });

  test('truncated to empty and written again shorter: rotated, the new records from the start', async () => {
    const path = join(dir, 't.jsonl');
    writeFileSync(path, records(1, 2, 3));
    const t = follow(path);
    await waitFor('records 1-3', () => t.ns().length === 3);
    writeFileSync(path, records(4)); // same inode, smaller than the position reached
    await waitFor('record 4', () => t.ns().length === 4);
    expect(t.ns()).toEqual([1, 2, 3, 4]);
    expect(t.codes()).toEqual(['rotated']);
  });

  // The hard case: the same inode and a size beyond the position reached, so neither a new
  // inode nor a shrink shows the rewrite.
  test('truncated and regrown past the old position between two polls: rotated, nothing lost', async () => {
    const path = join(dir, 't.jsonl');
    writeFileSync(path, records(1, 2));
    const t = follow(path, { pollMs: 150 });
    await waitFor('records 1-2', () => t.ns().length === 2);
    writeFileSync(path, records(10, 11, 12, 13)); // O_TRUNC + write in one synchronous step
    await waitFor('new records', () => t.ns().length >= 6 || t.codes().length > 0);
    await sleep(300);
    expect(t.ns()).toEqual([1, 2, 10, 11, 12, 13]);
    expect(t.codes()).toEqual(['rotated']);
  });

  test('replaced by another file while a partial line is pending: the partial line is dropped, never glued', async () => {
    const path = join(dir, 't.jsonl');
    writeFileSync(path, record(1) + record(99).slice(0, 60));
    const t = follow(path);
    await waitFor('record 1', () => t.ns().length === 1);
    const next = join(dir, 'next.jsonl');
    writeFileSync(next, records(2, 3));
    renameSync(next, path);
    await waitFor('records 2-3', () => t.ns().length === 3);
    expect(t.ns()).toEqual([1, 2, 3]);
    expect(t.codes()).toEqual(['rotated']);
  });

  test('deleted and created again (smaller): rotated, the new file read from its start', async () => {
    const path = join(dir, 't.jsonl');
    writeFileSync(path, records(1, 2, 3));
    const t = follow(path);
    await waitFor('records 1-3', () => t.ns().length === 3);
    unlinkSync(path);
    await sleep(60); // polls that find no file
    writeFileSync(path, records(7));
    await waitFor('record 7', () => t.ns().length === 4);
    expect(t.ns()).toEqual([1, 2, 3, 7]);
    expect(t.codes()).toEqual(['rotated']);
  });

  test('a line longer than maxLineBytes arriving over many appends: one line_too_long, the next line is read', async () => {
    const path = join(dir, 't.jsonl');
    const first = record(1);
    writeFileSync(path, first);
    const t = follow(path, { maxLineBytes: 1000 });
    await waitFor('record 1', () => t.ns().length === 1);
    for (let i = 0; i < 20; i++) {
      appendFileSync(path, 'x'.repeat(300));
      await sleep(3);
    }
    appendFileSync(path, `\n${record(2)}`);
    await waitFor('record 2', () => t.ns().length === 2);
    const diagnostics = t.items.flatMap((i) => (i.type === 'diagnostic' ? [i.diagnostic] : []));
    expect(diagnostics.map((d) => [d.code, d.line, d.offset])).toEqual([['line_too_long', 2, first.length]]);
  });

  test('a bad line appended between good ones: a diagnostic in file order, the tail goes on', async () => {
    const path = join(dir, 't.jsonl');
    writeFileSync(path, record(1));
    const t = follow(path);
    await waitFor('record 1', () => t.ns().length === 1);
    appendFileSync(path, `{not json\n${record(2)}`);
    await waitFor('record 2', () => t.ns().length === 2);
    expect(t.items.map((i) => (i.type === 'diagnostic' ? i.diagnostic.code : i.event.type))).toEqual([
      'run.start',
      'tool.start',
      'tool.end',
      'invalid_json',
      'tool.start',
      'tool.end',
    ]);
  });
});
