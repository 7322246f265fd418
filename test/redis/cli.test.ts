import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Redis from 'ioredis';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { connect } from '../../src/formats/nativeharness/index';
import type { AgentEvent } from '../../src/model';
import { freePort, startRedis } from './redis-server.mjs';

// `agentwire serve --redis`: the flags' rules, as a user meets them. The multi-process runs are
// in failover.test.ts.
const CLI = resolve('dist/cli.js');

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` first');
});

function run(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 20_000, input: '' });
  return { code: r.status, stderr: r.stderr };
}

describe('agentwire serve --redis', () => {
  test('flag rules: usage errors (exit 64) with one line each', () => {
    for (const [args, message] of [
      [['serve', '--read-only'], '--read-only needs --redis'],
      [['serve', '--redis', 'redis://127.0.0.1:1', '--log', 'x.jsonl'], '--log and --redis'],
      [['serve', '--retain', '0'], '--retain takes a positive integer'],
      [['serve', '--redis', 'redis://127.0.0.1:1', '--read-only', 'x.jsonl'], '--read-only serves'],
    ] as const) {
      const r = run([...args]);
      expect(r.code, args.join(' ')).toBe(64);
      expect(r.stderr).toContain(message);
    }
  });

  test('an unreachable Redis is reported before serving: exit 69', async () => {
    const port = await freePort();
    const r = run(['serve', '--redis', `redis://127.0.0.1:${port}`, '--read-only', '--port', '0']);
    expect(r.code).toBe(69);
    expect(r.stderr).toContain('cannot reach Redis');
    expect(r.stderr).toContain('ECONNREFUSED');
    expect(r.stderr).not.toContain('agentwire: serving');
  });

  test('a refused password is reported without the password', async () => {
    const redis = await startRedis();
    try {
      const admin = new Redis(redis.url);
      await admin.call('CONFIG', 'SET', 'requirepass', 'the-right-one');
      admin.disconnect();
      const r = run([
        'serve',
        '--redis',
        `redis://:hunter2@127.0.0.1:${redis.port}/0`,
        '--read-only',
        '--port',
        '0',
      ]);
      expect(r.code).toBe(69);
      expect(r.stderr).toContain(`cannot reach Redis at redis://:***@127.0.0.1:${redis.port}/0`);
      expect(r.stderr).not.toContain('hunter2');
    } finally {
      await redis.stop();
    }
  });

  test('a reader that comes before the first event waits for it (no 404 it would not retry)', async () => {
    const redis = await startRedis();
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--redis', redis.url, '--port', '0', '--format', 'hep', '-'],
      { stdio: ['pipe', 'ignore', 'pipe'] },
    );
    try {
      let err = '';
      const base = await new Promise<string>((resolveBase, reject) => {
        child.stderr!.on('data', (chunk: Buffer) => {
          err += chunk.toString();
          const m = /serving (http:\/\/\S+)\/stream/.exec(err);
          if (m) resolveBase(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
      });
      // Nothing appended yet: the stream key does not exist in Redis.
      expect(await (await fetch(`${base}/events`)).json()).toEqual([]);
      // A cursor is not of this stream yet (another session's, a deleted one's): refused, not
      // followed from seq 5 (the first four events would never reach it).
      const ahead = await fetch(`${base}/stream?after=5`, { signal: AbortSignal.timeout(20_000) });
      expect(ahead.status).toBe(409);
      expect(await ahead.json()).toEqual({ error: 'unknown_cursor', after: 5, last: 0 });
      const diagnostics: Diagnostic[] = [];
      const got: AgentEvent[] = [];
      const reading = (async () => {
        for await (const e of connect(`${base}/stream`, { onDiagnostic: (d) => diagnostics.push(d) }))
          got.push(e);
      })();
      const early = await fetch(`${base}/stream`, { signal: AbortSignal.timeout(20_000) });
      expect(early.status).toBe(200);
      await early.body?.cancel();
      child.stdin!.end(readFileSync('fixtures/hep/tool-then-text.jsonl'));
      await reading;
      expect(diagnostics).toEqual([]);
      const whole = await (await fetch(`${base}/events`)).json();
      expect(got.map((e) => e.seq)).toEqual(whole.map((e: { seq: number }) => e.seq));
      expect(got.at(-1)?.type).toBe('run.end');
    } finally {
      child.kill('SIGKILL');
      await redis.stop();
    }
  });

  test('one serve appends a file to Redis, another serves it read-only: the same stream from both', async () => {
    const redis = await startRedis();
    const children: ChildProcess[] = [];
    // Starts `agentwire serve` and resolves its base URL once it listens.
    const serve = (args: string[]) =>
      new Promise<string>((resolvePort, reject) => {
        const child = spawn(process.execPath, [CLI, 'serve', '--redis', redis.url, '--port', '0', ...args]);
        children.push(child);
        let err = '';
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString();
          const m = /serving (http:\/\/\S+)\/stream/.exec(err);
          if (m) resolvePort(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
      });
    try {
      const writer = await serve(['fixtures/hep/tool-then-text.jsonl']);
      const reader = await serve(['--read-only']);
      // The writer closes the session at the end of its input; both then answer the whole log.
      let a = '';
      for (let i = 0; i < 100 && !a.includes('event: done'); i++) {
        a = await (await fetch(`${writer}/stream`)).text();
      }
      const b = await (await fetch(`${reader}/stream`)).text();
      expect(a).toContain('event: session_created');
      expect(b).toBe(a);
      const resumed = await fetch(`${reader}/stream`, { headers: { 'last-event-id': '2' } });
      expect(await resumed.text()).toBe(a.slice(a.indexOf('id: 3\n')));
    } finally {
      for (const child of children) child.kill('SIGKILL');
      await redis.stop();
    }
  });
});
