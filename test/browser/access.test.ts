import { request as httpRequest, createServer as httpServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, type Served, serve, serveRefused } from './harness';

// Who may look at `agentwire serve`: the Host gate (DNS rebinding), the token (Bearer header or
// the page's cookie), CORS, and what an error response says (nothing of the stream).

const FIXTURE = 'fixtures/nativeharness/approvals.sse';
const STREAM = '/workspaces/local/sessions/live/stream';
// Words of the fixture that must never appear in a refusal.
const SECRET_WORDS = ['rm -rf build', 'ws_acme', 'Fix the flaky test', 'approval'];

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
        // A stream that answered: enough has been read.
        if (body.length > 200) req.destroy();
      });
      const end = () => done({ status: res.statusCode ?? 0, headers: res.headers, body });
      res.on('end', end);
      res.on('close', end);
    });
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : fail(e)));
    req.end();
  });
}

function expectNoLeak(reply: Reply): void {
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(reply.body)).toEqual({ error: expect.any(String) });
  for (const word of SECRET_WORDS) expect(reply.body).not.toContain(word);
  expect(reply.headers['access-control-allow-origin']).toBeUndefined();
}

describe('serve on loopback (no token)', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve([FIXTURE]);
  });
  afterAll(() => served.stop());

  it('answers its own names', async () => {
    for (const host of [`127.0.0.1:${served.port}`, `localhost:${served.port}`]) {
      const r = await get(served.port, STREAM, { host });
      expect(r.status).toBe(200);
      expect(r.body).toContain('session_created');
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('refuses a foreign Host (DNS rebinding) with 421 and nothing of the stream', async () => {
    for (const host of [
      `attacker.example:${served.port}`,
      'attacker.example',
      `127.0.0.1:${served.port + 1}`,
      `127.0.0.1.attacker.example:${served.port}`,
    ]) {
      for (const path of [STREAM, '/', '/info', '/viewer.js', '/workspaces/local/sessions/live/events']) {
        const r = await get(served.port, path, { host });
        expect(r.status, `${host} ${path}`).toBe(421);
        expectNoLeak(r);
      }
    }
  });

  it('view --web serves the same page and stream', async () => {
    const web = await serve([FIXTURE], { command: ['view', '--web'] });
    try {
      const page = await get(web.port, '/');
      expect(page.status).toBe(200);
      expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
      expect(page.body).toContain('<script src="/viewer.js"></script>');
      expect((await get(web.port, STREAM)).body).toContain('session_created');
      expect(JSON.parse((await get(web.port, '/info')).body)).toEqual({
        format: 'nativeharness',
        workspace: 'local',
        session: 'live',
      });
    } finally {
      await web.stop();
    }
  });

  it('refuses to listen beyond loopback without a token', async () => {
    const r = await serveRefused(['--host', '0.0.0.0', '--port', '0', FIXTURE], { AGENTWIRE_TOKEN: '' });
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(/needs a token/);
  });
});

describe('serve with a token', () => {
  const token = 'tok_3b1f0c9e8d7a6b5c4d3e2f1a';
  let served: Served;
  let browser: Browser;
  beforeAll(async () => {
    [served, browser] = await Promise.all([serve(['--token', token, FIXTURE]), launch()]);
  });
  afterAll(async () => {
    await Promise.all([served.stop(), browser.close()]);
  });

  it('refuses no token, a wrong token, a token of another length; accepts the right one', async () => {
    const wrong = token.replace(/.$/, token.endsWith('a') ? 'b' : 'a');
    const cases: Array<[Record<string, string>, number]> = [
      [{}, 401],
      [{ authorization: `Bearer ${wrong}` }, 401],
      [{ authorization: `Bearer ${token}x` }, 401],
      [{ authorization: `Bearer ${token.slice(0, 5)}` }, 401],
      [{ authorization: 'Bearer ' }, 401],
      [{ authorization: `Basic ${token}` }, 401],
      [{ cookie: `agentwire_session=${token}` }, 401],
      [{ authorization: `Bearer ${token}` }, 200],
    ];
    for (const [headers, status] of cases) {
      for (const path of [STREAM, '/', '/info']) {
        const r = await get(served.port, path, headers);
        expect(r.status, `${JSON.stringify(headers)} ${path}`).toBe(status);
        if (status !== 200) expectNoLeak(r);
      }
    }
    const wrongQuery = await get(served.port, `/?token=${wrong}`);
    expect(wrongQuery.status).toBe(401);
    expectNoLeak(wrongQuery);
  });

  it('trades ?token= for an HttpOnly SameSite=Strict cookie and a redirect without it', async () => {
    const r = await get(served.port, `/?token=${token}`);
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/');
    const cookie = String(r.headers['set-cookie']);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain(token);

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${served.origin}/?token=${token}`);
    expect(page.url()).toBe(`${served.origin}/`);
    await page.waitForFunction(() => Number(document.body.dataset.events) > 5);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    // Back in history there is no address with the token either.
    expect(await page.evaluate(() => window.location.search)).toBe('');
    await context.close();
  });
});

describe('a page of another origin in Chromium', () => {
  let served: Served;
  let corsServed: Served;
  let other: Server;
  let otherOrigin: string;
  let browser: Browser;
  beforeAll(async () => {
    other = httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>elsewhere</title>');
    });
    await new Promise<void>((done) => other.listen(0, '127.0.0.1', () => done()));
    const address = other.address();
    otherOrigin = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    [served, corsServed, browser] = await Promise.all([
      serve([FIXTURE]),
      serve(['--cors', otherOrigin, FIXTURE]),
      launch(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([served.stop(), corsServed.stop(), browser.close()]);
    await new Promise<void>((done) => other.close(() => done()));
  });

  it('cannot read the stream, the events or the page', async () => {
    const page = await browser.newPage();
    await page.goto(otherOrigin);
    const results = await page.evaluate(
      async ([origin, stream]) => {
        const out: string[] = [];
        for (const path of [stream, stream.replace(/stream$/, 'events'), '/', '/info']) {
          for (const base of [origin, origin.replace('127.0.0.1', 'localhost')]) {
            try {
              const r = await fetch(base + path);
              out.push(`read ${r.status} ${(await r.text()).slice(0, 40)}`);
            } catch (e) {
              out.push(`refused ${(e as Error).name}`);
            }
          }
        }
        return out;
      },
      [served.origin, STREAM] as const,
    );
    expect(results.every((r) => r.startsWith('refused'))).toBe(true);
    await page.close();
  });

  it('reads it only when serve names its origin with --cors', async () => {
    const page = await browser.newPage();
    await page.goto(otherOrigin);
    const result = await page.evaluate(
      async (url) => {
        try {
          const r = await fetch(url);
          return `read ${r.status}`;
        } catch {
          return 'refused';
        }
      },
      `${corsServed.origin}${STREAM.replace(/stream$/, 'events')}`,
    );
    expect(result).toBe('read 200');
    const r = await get(corsServed.port, STREAM, { origin: 'http://127.0.0.1:1' });
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    await page.close();
  });
});
