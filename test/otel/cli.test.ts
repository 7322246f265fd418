import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { attr, startReceiver } from './otlp-receiver';

// `agentwire otel` as a process (the built CLI), against a loopback OTLP/HTTP collector.
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let dir: string;
beforeEach(async () => {
  receiver = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), 'aw-otel-'));
});
afterEach(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[]): {
  done: Promise<number>;
  kill(signal: NodeJS.Signals): void;
  stderr: () => string;
} {
  const child = spawn(process.execPath, ['dist/cli.js', 'otel', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const done = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return { done, kill: (s) => child.kill(s), stderr: () => stderr };
}

test('a shipped fixture arrives as one trace: run → rounds → tools, service name set', async () => {
  const run = cli([
    'fixtures/hep/tool-then-text.jsonl',
    '--endpoint',
    receiver.url,
    '--service-name',
    'svc-cli',
  ]);
  expect(await run.done).toBe(0);
  const spans = receiver.spans;
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const runs = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'invoke_agent');
  expect(runs.map((s) => s.name)).toEqual(['invoke_agent fa']);
  const rounds = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'chat');
  const tools = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'execute_tool');
  expect(rounds.length).toBe(3);
  expect(tools.map((s) => attr(s, 'gen_ai.tool.name')).sort()).toEqual(['bash', 'edit']);
  for (const r of rounds) expect(r.parentSpanId).toBe(runs[0]!.spanId);
  for (const t of tools) expect(byId.get(t.parentSpanId!)?.name).toBe('chat');
  for (const s of spans) expect(BigInt(s.endTimeUnixNano) >= BigInt(s.startTimeUnixNano)).toBe(true);
  expect(JSON.stringify(receiver.resources)).toContain('svc-cli');
});

test('--follow: SIGINT flushes, and the open run is ended as incomplete', async () => {
  const file = join(dir, 'live.jsonl');
  writeFileSync(
    file,
    '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}\n{"type":"agent_start","turn_id":1}\n',
  );
  const run = cli(['--follow', file, '--endpoint', receiver.url]);
  // The status line says the signal handlers are in place.
  for (let i = 0; i < 200 && !run.stderr().includes('Ctrl-C flushes'); i++)
    await new Promise((r) => setTimeout(r, 50));
  appendFileSync(file, '{"type":"tool_start","turn_id":1,"id":"c1","name":"bash","args_summary":"ls"}\n');
  await new Promise((r) => setTimeout(r, 1000));
  run.kill('SIGINT');
  await run.done;
  const runs = receiver.spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'invoke_agent');
  expect(runs.length).toBe(1);
  expect(attr(runs[0]!, 'agentwire.run.status')).toBe('incomplete');
  const tool = receiver.spans.find((s) => attr(s, 'gen_ai.operation.name') === 'execute_tool');
  expect(attr(tool!, 'agentwire.tool.status')).toBe('incomplete');
}, 20_000);

test('a collector that cannot be reached: said once on stderr, exit 69, never "internal error"', async () => {
  // A port nothing listens on: taken, then given back.
  const free = createServer();
  await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
  const port = (free.address() as AddressInfo).port;
  await new Promise((resolve) => free.close(resolve));
  const run = cli(['fixtures/hep/tool-then-text.jsonl', '--endpoint', `http://127.0.0.1:${port}`]);
  expect(await run.done).toBe(69);
  const said = run.stderr();
  expect(said).not.toMatch(/internal error/);
  expect(said.match(/cannot export spans to/g)?.length).toBe(1);
  expect(said).toMatch(
    /batch\(es\) of spans could not be exported to http:\/\/127\.0\.0\.1:\d+ \(.*ECONNREFUSED.*\); those spans are lost/,
  );
}, 20_000);

test('an --endpoint that is not an http(s) URL is a usage error (64)', async () => {
  for (const endpoint of ['notaurl', 'ftp://127.0.0.1/x']) {
    const run = cli(['fixtures/hep/tool-then-text.jsonl', '--endpoint', endpoint]);
    expect(await run.done).toBe(64);
    expect(run.stderr()).toMatch(/--endpoint takes an http:\/\/ or https:\/\/ URL/);
  }
  expect(receiver.spans).toEqual([]);
});

test('an input that cannot be opened exits 66 and sends nothing', async () => {
  const run = cli([join(dir, 'nosuch.jsonl'), '--endpoint', receiver.url]);
  expect(await run.done).toBe(66);
  expect(receiver.spans).toEqual([]);
});
