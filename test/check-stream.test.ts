import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import type { CheckingCodec } from '../src/codec';
import type { Diagnostic, Format } from '../src/diagnostics';
import { copilotRules } from '../src/formats/copilot/check';
import { codecs } from '../src/formats/index';
import type { AgentEvent } from '../src/model';
import { RECENT_LIMIT, RecentSet } from '../src/recent';
import { chunkAt } from './golden';
import { FUZZ_RUNS } from './runs';

// Issues #16/#24: `check` in bounded memory. The push checker (`createChecker`) and the Web
// stream (`checkerStream`) give the diagnostics as they are found; `check(input)` is built on the
// same path and sorts them by line. Both must agree for every chunking of every fixture, and the
// CLI must check a stream far larger than its heap.

const CLI = resolve('dist/cli.js');

// A total order (line, then the rest) for comparing diagnostics found in different orders.
const key = (d: Diagnostic) =>
  JSON.stringify([d.line ?? Number.MAX_SAFE_INTEGER, d.offset, d.code, d.message, d.severity]);
const sorted = (ds: readonly Diagnostic[]) =>
  [...ds].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

function fixturesOf(format: string): string[] {
  const dir = join('fixtures', format);
  return readdirSync(dir)
    .filter((f) => !f.endsWith('.golden.json') && !f.endsWith('.md'))
    .map((f) => join(dir, f));
}

function checkingCodec(format: Format): CheckingCodec {
  return codecs[format] as CheckingCodec;
}

describe('createChecker finds what check(input) finds, for every chunking', () => {
  for (const format of Object.keys(codecs) as Format[]) {
    test(format, () => {
      const codec = checkingCodec(format);
      expect(typeof codec.createChecker).toBe('function');
      for (const file of fixturesOf(format)) {
        const bytes = new Uint8Array(readFileSync(file));
        const whole = sorted(codec.check(bytes));
        fc.assert(
          fc.property(fc.array(fc.nat({ max: bytes.length }), { maxLength: 12 }), (cuts) => {
            const checker = codec.createChecker();
            const found: Diagnostic[] = [];
            for (const chunk of chunkAt(bytes, cuts)) found.push(...checker.push(chunk));
            found.push(...checker.end());
            expect(sorted(found), file).toEqual(whole);
          }),
          { numRuns: Math.max(5, Math.round(FUZZ_RUNS / 20)) },
        );
      }
    });
  }
});

test('createChecker hands a finding out with the chunk that reveals it, before the end', () => {
  const codec = checkingCodec('hep');
  const checker = codec.createChecker();
  const header = '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}\n';
  expect(checker.push(header)).toEqual([]);
  // A second header is found at its own line, not held for the end.
  const found = checker.push(header);
  expect(found.map((d) => d.line)).toEqual([2, 2]);
  expect(found.map((d) => d.message).join('\n')).toContain('a second hep_header');
  expect(checker.end()).toEqual([]);
});

test('checkerStream gives the same diagnostics as check(input), one per read', async () => {
  const codec = checkingCodec('claude');
  for (const file of fixturesOf('claude')) {
    const bytes = new Uint8Array(readFileSync(file));
    const found: Diagnostic[] = [];
    const readable = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 97) controller.enqueue(bytes.subarray(i, i + 97));
        controller.close();
      },
    });
    for await (const d of readable.pipeThrough(codec.checkerStream()) as unknown as AsyncIterable<Diagnostic>)
      found.push(d);
    expect(sorted(found), file).toEqual(sorted(codec.check(bytes)));
  }
});

describe('agentwire check holds bounded memory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentwire-check-stream-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Writes `head` once, then `piece(i)` until the file holds about `mb` MB.
  function generate(name: string, mb: number, head: string, piece: (i: number) => string): string {
    const path = join(dir, name);
    const fd = openSync(path, 'w');
    writeSync(fd, head);
    let size = head.length;
    let batch = '';
    for (let i = 1; size < mb * 1_000_000; i++) {
      const text = piece(i);
      batch += text;
      size += text.length;
      if (batch.length > 1 << 20) {
        writeSync(fd, batch);
        batch = '';
      }
    }
    writeSync(fd, batch);
    closeSync(fd);
    return path;
  }

  // Under a 64 MB heap: the old `check` held the whole input and every event decoded from it
  // (about 5x the input) and died of heap exhaustion long before the end of these files.
  function checkUnderSmallHeap(format: string, path: string) {
    const r = spawnSync(
      process.execPath,
      ['--max-old-space-size=64', CLI, 'check', '--format', format, path],
      {
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      },
    );
    return r;
  }

  test('70 MB each of HEP, Claude and Copilot, under --max-old-space-size=64', () => {
    if (!existsSync(CLI)) throw new Error('build first: npm run build');
    // HEP: one run of rounds numbered up, each with a tool call answered in its turn_done.
    const hepHead =
      '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}\n{"type":"agent_start","turn_id":1}\n';
    const hepPath = generate('big.hep.jsonl', 70, hepHead, (i) =>
      [
        `{"type":"message_start","turn_id":${i},"role":"assistant"}`,
        `{"type":"message_delta","turn_id":${i},"delta":"Reading the file for round ${i}, as asked."}`,
        `{"type":"tool_start","turn_id":${i},"id":"call_${i}","name":"read","args_summary":"path=\\"README.md\\""}`,
        `{"type":"tool_delta","turn_id":${i},"id":"call_${i}","update":"# demo ${i}\\n"}`,
        `{"type":"turn_done","turn_id":${i},"message":"Reading the file for round ${i}, as asked.","tool_results":[{"id":"call_${i}","name":"read","ok":true,"text":"# demo ${i}\\n"}],"usage":{"input":2048,"output":96,"cost":0.01},"stop_reason":"toolUse"}`,
        '',
      ].join('\n'),
    );
    // Claude: a capture of one run (init, tool calls, result) again and again, one run each.
    const capture = readFileSync('fixtures/claude/tools.jsonl', 'utf8');
    const claudePath = generate('big.claude.jsonl', 70, '', () => capture);
    // Copilot: a session of many turns, every event id its own (the ids a rule remembers are
    // bounded: RECENT_LIMIT), each turn's first event the child of the previous turn's last.
    const lines = readFileSync('fixtures/copilot/tools.jsonl', 'utf8').split('\n').filter(Boolean);
    const body = `${lines.slice(1).join('\n')}\n`;
    let parent = '00000000-0000-4001-8000-000000000001';
    const copilotPath = generate('big.copilot.jsonl', 70, `${lines[0]}\n`, (k) => {
      const prefix = k.toString(16).padStart(8, '0');
      const turn = body
        .replaceAll('"00000000-', `"${prefix}-`)
        .replace(`"parentId":"${prefix}-0000-4001-8000-000000000001"`, `"parentId":"${parent}"`);
      parent = `${prefix}-0000-4001-8000-000000000013`;
      return turn;
    });
    for (const [format, path] of [
      ['hep', hepPath],
      ['claude', claudePath],
      ['copilot', copilotPath],
    ] as const) {
      const run = checkUnderSmallHeap(format, path);
      expect(run.stderr, format).toBe('ok: no findings\n');
      expect(run.stdout, format).toBe('');
      expect(run.status, format).toBe(0);
    }
  }, 120_000);
});

describe('rules about every earlier record keep a bounded window', () => {
  test('RecentSet remembers the last entries and says when it forgot one', () => {
    const set = new RecentSet<number>(3);
    for (const n of [1, 2, 3]) set.add(n);
    expect(set.forgot).toBe(false);
    set.add(4);
    expect([1, 2, 3, 4].map((n) => set.has(n))).toEqual([false, true, true, true]);
    expect(set.forgot).toBe(true);
    set.clear();
    expect(set.forgot).toBe(false);
    expect(set.has(4)).toBe(false);
  });

  test('Copilot: a duplicate id and a parentId naming no earlier event are still found', () => {
    const [start, second] = readFileSync('fixtures/copilot/tools.jsonl', 'utf8').split('\n');
    const dangling = second!.replace(/"parentId":"[^"]*"/, '"parentId":"nowhere"');
    const found = checkingCodec('copilot').check(`${start}\n${second}\n${second}\n${dangling}\n`);
    const order = found
      .filter((d) => d.code === 'order')
      .map((d) => [d.line, d.message.replace(/^line \d+ \(byte \d+\): /, '')]);
    expect(order).toContainEqual([3, 'event id "00000000-0000-4001-8000-000000000002" was used before']);
    expect(order).toContainEqual([4, 'parentId "nowhere" names no earlier event']);
  });

  test('Copilot: past the window, a parentId is not called dangling (it may name a forgotten event)', () => {
    const rules = copilotRules();
    const record = (id: string, parent: string | null, type = 'user.message') => ({
      type,
      provenance: {
        format: 'copilot' as const,
        line: 1,
        offset: 0,
        hints: {
          record: {
            id,
            parentId: parent,
            timestamp: '2026-01-15T10:00:01.037Z',
            type,
            data: { content: 'x' },
          },
        },
      },
    });
    const push = (id: string, parent: string | null) =>
      rules.push({ text: 'x', ...record(id, parent) } as unknown as AgentEvent);
    expect(push('a', null)).toEqual([]);
    expect(push('b', 'zz').map((d) => d.message)).toEqual([
      expect.stringContaining('names no earlier event'),
    ]);
    for (let i = 0; i < RECENT_LIMIT; i++) push(`id${i}`, null);
    expect(push('c', 'a')).toEqual([]);
  });
});
