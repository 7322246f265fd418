import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { highbar } from '../../src/formats/highbar/index';
import type { AgentEventOf } from '../../src/model';
import { createHighbarEmitter } from '../../src/node/highbar-emitter';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentwire-emit-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

test('writes the contract: hello, tool, turn, read back byte for byte', () => {
  const path = join(dir, 'trace.jsonl');
  const times = [1792983750.122, 1792983750.124, 1792983750.125, 1792983750.3, 1792983750.31, 1792983750.4];
  const trace = createHighbarEmitter({ path, sdk: 'my-agent/1.0', clock: () => times.shift()! });
  trace.hello(['get_order', 'cancel_order']);
  trace.tool(
    'get_order',
    { order_id: '1042' },
    { result: { status: 'in transit' }, startedAt: 1792983750.2, test: 'T' },
  );
  trace.tool(
    'get_order',
    { order_id: 'é' },
    { error: 'TimeoutError: upstream timed out', startedAt: 1792983750.25 },
  );
  trace.turn('T', { message: 'where?', response: 'here' });
  const text = readFileSync(path, 'utf8');
  expect(text.split('\n')[1]).toBe(
    `{"v": 1, "type": "tool", "ts": 1792983750.125, "fn": "get_order", "args": {"order_id": "1042"}, "result": {"status": "in transit"}, "error": null, "started_at": 1792983750.2, "ended_at": 1792983750.124, "context": {"test": "T"}}`,
  );
  const { events, diagnostics } = highbar.parse(text);
  expect(diagnostics).toEqual([]);
  expect(highbar.stringify(events)).toBe(text);
  expect(events.map((e) => e.type)).toEqual([
    'session.start',
    'run.start',
    'tool.start',
    'tool.end',
    'tool.start',
    'tool.end',
    'run.end',
  ]);
  expect(events[0]).toMatchObject({ producer: 'my-agent/1.0', pid: process.pid });
  expect((events[5] as AgentEventOf<'tool.end'>).ok).toBe(false);
  expect(highbar.matchContext(events, { test: 'T' }).map((e) => e.type)).toEqual([
    'run.start',
    'tool.start',
    'tool.end',
    'run.end',
  ]);
});

test('HIGHBAR_TRACES_URL unset or empty: nothing is written; set (also as a file: URL): appended', () => {
  const path = join(dir, 'env.jsonl');
  const saved = process.env.HIGHBAR_TRACES_URL;
  try {
    delete process.env.HIGHBAR_TRACES_URL;
    const trace = createHighbarEmitter();
    trace.hello([]);
    process.env.HIGHBAR_TRACES_URL = '';
    trace.turn('x');
    expect(existsSync(path)).toBe(false);
    process.env.HIGHBAR_TRACES_URL = path;
    trace.turn('x');
    process.env.HIGHBAR_TRACES_URL = `file://${path}`;
    trace.turn(null);
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines.length).toBe(2);
    expect(lines[1]).not.toContain('context');
  } finally {
    if (saved === undefined) delete process.env.HIGHBAR_TRACES_URL;
    else process.env.HIGHBAR_TRACES_URL = saved;
  }
});

test('several processes appending at once: every line intact, none lost', async () => {
  // The emitter itself, bundled for plain node child processes.
  const bundle = join(dir, 'emitter.mjs');
  buildSync({
    entryPoints: [resolve('src/node/highbar-emitter.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'silent',
  });
  const script = join(dir, 'child.mjs');
  writeFileSync(
    script,
    `import { tool, hello, nowSeconds } from ${JSON.stringify(bundle)};
const [who, count] = [process.argv[2], Number(process.argv[3])];
hello(['f']);
for (let i = 0; i < count; i++) {
  // Sizes up to 20 KB: well past PIPE_BUF, so only the one-write-per-line rule keeps them whole.
  const pad = 'x'.repeat((i * 7919) % 20000);
  tool('f', { who, i, pad }, { result: { ok: true }, startedAt: nowSeconds(), test: who });
}
`,
  );
  const path = join(dir, 'shared.jsonl');
  const writers = 5;
  const count = 100;
  await Promise.all(
    Array.from(
      { length: writers },
      (_, w) =>
        new Promise<void>((done, fail) => {
          const child = spawn(process.execPath, [script, `w${w}`, String(count)], {
            env: { ...process.env, HIGHBAR_TRACES_URL: path },
            stdio: 'ignore',
          });
          child.on('error', fail);
          child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`writer exited with ${code}`))));
        }),
    ),
  );
  const text = readFileSync(path, 'utf8');
  const { events, diagnostics } = highbar.parse(text);
  expect(diagnostics).toEqual([]);
  const seen = new Map<string, number[]>();
  for (const e of events) {
    if (e.type !== 'tool.start') continue;
    const { who, i } = e.args as { who: string; i: number };
    (seen.get(who) ?? seen.set(who, []).get(who)!).push(i);
  }
  expect(seen.size).toBe(writers);
  for (const list of seen.values()) expect(list).toEqual(Array.from({ length: count }, (_, i) => i));
  expect(events.filter((e) => e.type === 'session.start').length).toBe(writers);
  expect(highbar.stringify(events)).toBe(text);
});
