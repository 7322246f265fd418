import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { freePort } from './redis-server.mjs';

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

  test('an unreachable Redis is reported before serving, and serve fails', async () => {
    const port = await freePort();
    const r = run(['serve', '--redis', `redis://127.0.0.1:${port}`, '--read-only', '--port', '0']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('ECONNREFUSED');
    expect(r.stderr).not.toContain('agentwire: serving');
  });
});
