import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

// The command line at its edges, as a careless user or a supervisor meets it: options given
// oddly, inputs that are not files, signals while the input is still open.
const CLI = resolve('dist/cli.js');
const HEP = 'fixtures/hep/single-round.jsonl';
let dir: string;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error('build first: npm run build');
  dir = mkdtempSync(join(tmpdir(), 'agentwire-cli-edges-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], options: { input?: string; stdin?: number } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(options.stdin === undefined ? {} : { stdio: [options.stdin, 'pipe', 'pipe'] }),
    encoding: 'utf8',
    // A refused option ends at once; one wrongly taken starts a server that would run for ever.
    timeout: 8_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function start(args: string[]): { child: ChildProcess; err: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  return { child, err: () => err };
}

describe('serve --cors', () => {
  // Only a request whose Origin is exactly the value gets CORS headers: '*' or a URL with a path
  // (a trailing slash) never matched, and the browser was refused with nothing said.
  test.each([['*'], ['http://localhost:3000/'], ['localhost:3000'], ['http://localhost:3000/app']])(
    'serve --cors %j: exit 64',
    (cors) => {
      const r = run(['serve', '--port', '0', '--cors', cors, HEP]);
      expect(r.code).toBe(64);
      expect(r.stderr).toContain('--cors takes one origin');
    },
  );
});

// useChat and AG-UI's HttpAgent POST JSON to …/stream: a cross-origin page first asks (a
// preflight) for POST with Content-Type, which serve --cors answered with GET and HEAD only.
test.each([['ai-sdk'], ['ag-ui']])(
  'serve --as %s --cors: the preflight allows the POST its client sends',
  async (as) => {
    const origin = 'http://localhost:3000';
    const { child, err } = start(['serve', '--port', '0', '--as', as, '--cors', origin, '--quiet', HEP]);
    try {
      await waitFor(() => err().includes('serving'));
      const url = /(http:\/\/127\.0\.0\.1:\d+\/\S+\/stream)/.exec(err())![1]!;
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
      const methods = preflight.headers.get('access-control-allow-methods')!.split(/,\s*/);
      expect(methods).toContain('POST');
      const headers = preflight.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/);
      expect(headers).toContain('content-type');
      const posted = await fetch(url, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(posted.status).toBe(200);
      expect(posted.headers.get('access-control-allow-origin')).toBe(origin);
      await posted.body?.cancel();
    } finally {
      child.kill('SIGKILL');
    }
  },
);

async function waitFor(condition: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
