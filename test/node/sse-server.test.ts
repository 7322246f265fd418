import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { agui } from '../../src/formats/ag-ui/index';
import { createProtocolHandler, ProtocolLog } from '../../src/node/protocol-server';
import { createSseHandler, NhSessionLog } from '../../src/node/sse-server';

// The response heads of the SSE routes, on a real node:http server: a client resuming at the end
// of a live session learns at once that it is connected, and HEAD is answered, not followed.

const PATH = '/workspaces/w/sessions/s/stream';
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function serve(handler: ReturnType<typeof createSseHandler>): Promise<string> {
  server = createServer((req, res) => {
    void handler(req, res).then((handled) => {
      if (!handled) {
        res.writeHead(404);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function liveLog(): Promise<NhSessionLog> {
  const log = new NhSessionLog({ clock: () => 1_767_225_600_000 });
  await log.append('w', 's', [
    { type: 'session.start', actor: 'user:test', mode: 'build' },
    { type: 'run.start', run: 't1', input: 'go' },
  ]);
  return log;
}

// No heartbeat: without the headers sent at once, nothing would ever reach this client.
const WAIT = 20_000;

describe('SSE response heads', () => {
  test('a resume at the end of a live session gets its headers at once, before any event', async () => {
    const base = await serve(createSseHandler({ log: await liveLog(), heartbeatMs: 0 }));
    const res = await fetch(`${base}${PATH}`, {
      headers: { 'Last-Event-ID': '2' },
      signal: AbortSignal.timeout(WAIT),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    await res.body?.cancel();
  });

  test('the same for a UI protocol stream (serve --as)', async () => {
    const log = new ProtocolLog({ codec: agui });
    await log.append([{ type: 'run.start', run: 't1', input: 'go' }]);
    const handler = createProtocolHandler({ log, heartbeatMs: 0 });
    const base = await serve(handler);
    const after = String(log.entries.at(-1)!.seq);
    const res = await fetch(`${base}/stream`, {
      headers: { 'Last-Event-ID': after },
      signal: AbortSignal.timeout(WAIT),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    await res.body?.cancel();
  });

  // Followed from there, a cursor of another stream skipped every record up to it, or waited.
  test('a UI protocol stream refuses a cursor past its last record (409), open or closed', async () => {
    const log = new ProtocolLog({ codec: agui });
    await log.append([{ type: 'run.start', run: 't1', input: 'go' }]);
    const base = await serve(createProtocolHandler({ log, heartbeatMs: 0 }));
    const last = log.entries.at(-1)!.seq;
    for (const closed of [false, true]) {
      if (closed) await log.close();
      const res = await fetch(`${base}/stream`, {
        headers: { 'Last-Event-ID': String(last + 1) },
        signal: AbortSignal.timeout(WAIT),
      });
      expect(res.status, `closed: ${closed}`).toBe(409);
      expect(await res.json()).toEqual({ error: 'unknown_cursor', after: last + 1, last });
    }
    expect((await fetch(`${base}/stream?after=${last}`)).status).toBe(204);
  });

  test('HEAD of a live stream: the headers, no body, and the session is not followed for it', async () => {
    const log = await liveLog();
    const base = await serve(createSseHandler({ log, heartbeatMs: 0 }));
    const { port } = new URL(base);
    // Two HEADs on one kept-alive connection: the second is answered only once the first ended.
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    const head = () =>
      new Promise<{ status: number; type: string | undefined }>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path: PATH, method: 'HEAD', agent: keepAlive, timeout: WAIT },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'] }));
          },
        );
        req.on('timeout', () => req.destroy(new Error('no answer to HEAD')));
        req.on('error', reject);
        req.end();
      });
    try {
      for (let i = 0; i < 2; i++)
        expect(await head()).toEqual({ status: 200, type: 'text/event-stream; charset=utf-8' });
      expect(log.get('w', 's')!.listeners.size).toBe(0);
    } finally {
      keepAlive.destroy();
    }
  });
});
