import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { agui } from '../../src/formats/ag-ui/index';
import type { AgentEvent } from '../../src/model';
import { createProtocolHandler, ProtocolLog } from '../../src/node/protocol-server';
import { createSseHandler, NhSessionLog, SSE_CLIENT_AHEAD_BYTES } from '../../src/node/sse-server';

// An SSE client that stops reading (a stalled browser tab, a viewer behind a slow link) must not
// make the server hold the session again for it: the server follows the log only while the
// client's socket takes more, and again from the last entry it sent once the socket drains.
// Written ahead without waiting, every entry appended while it stalled was held in its socket's
// buffer (the test's 32 MB, once per stalled client).

const WS = 'ws_slow';
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

// The most the server's response for one client held unsent, after any write.
function serve(log: NhSessionLog | ProtocolLog): Promise<{ port: number; held: () => number }> {
  const handler =
    log instanceof ProtocolLog
      ? createProtocolHandler({ log, heartbeatMs: 0 })
      : createSseHandler({ log, heartbeatMs: 0 });
  let held = 0;
  server = createServer((req, res: ServerResponse) => {
    const write = res.write.bind(res) as (chunk: string) => boolean;
    res.write = ((chunk: string) => {
      const ok = write(chunk);
      held = Math.max(held, res.writableLength);
      return ok;
    }) as typeof res.write;
    // A last piece written by end() is held the same way.
    const end = res.end.bind(res) as (chunk?: string) => ServerResponse;
    res.end = ((chunk?: string) => {
      const r = end(chunk);
      held = Math.max(held, res.writableLength);
      return r;
    }) as typeof res.end;
    void handler(req, res);
  });
  return new Promise((resolve) =>
    server!.listen(0, '127.0.0.1', () =>
      resolve({ port: (server!.address() as AddressInfo).port, held: () => held }),
    ),
  );
}

function deltas(from: number, n: number, size: number): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (let i = 0; i < n; i++)
    events.push({ type: 'text.delta', text: `${from + i}:${'x'.repeat(size)}`, round: 1 });
  return events;
}

// A raw client: the request, then nothing read until `resume`.
function stalledClient(
  port: number,
  path: string,
): { socket: Socket; text: () => string; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  socket.pause();
  let text = '';
  socket.setEncoding('utf8');
  // The response's last chunk: the server keeps the connection (the SSE response asks for it).
  let ended: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    ended = resolve;
  });
  let tail = '';
  socket.on('data', (c: string) => {
    text += c;
    tail = (tail + c).slice(-7);
    if (tail === '\r\n0\r\n\r\n') ended();
  });
  socket.pause();
  return { socket, text: () => text, closed };
}

const until = async (done: () => boolean) => {
  for (let i = 0; i < 400 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
};

describe('a client that does not read', () => {
  test('the server holds at most SSE_CLIENT_AHEAD_BYTES for it, then sends every entry once, in order', async () => {
    const log = new NhSessionLog({ clock: () => 1_767_225_600_000 });
    await log.append(WS, 's1', [{ type: 'run.start', ts: 1_767_225_600_000 } as AgentEvent]);
    const { port, held } = await serve(log);
    const client = stalledClient(port, `/workspaces/${WS}/sessions/s1/stream`);
    // Connected and following (the snapshot's one entry is in the socket).
    await until(() => held() > 0);
    // 2,000 deltas of 16 KiB while it reads nothing: 32 MB.
    for (let i = 0; i < 20; i++) await log.append(WS, 's1', deltas(i * 100, 100, 16 * 1024));
    await new Promise((r) => setTimeout(r, 100));
    // SSE_CLIENT_AHEAD_BYTES (1 MiB) and the entry that crossed it.
    expect(held()).toBeLessThan(SSE_CLIENT_AHEAD_BYTES + 32 * 1024);
    await log.close(WS, 's1');
    client.socket.resume();
    await client.closed;
    const ids = [...client.text().matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    const stored = (await log.read(WS, 's1', 0))!.entries.map((e) => e.seq);
    expect(stored.length).toBeGreaterThan(2000);
    expect(ids).toEqual(stored);
    const texts = [...client.text().matchAll(/"text":"(\d+):/g)].map((m) => Number(m[1]));
    expect(texts).toEqual(Array.from({ length: 2000 }, (_, i) => i));
  }, 60_000);

  test.each([
    ['live', false],
    ['closed', true],
  ])(
    'connecting to a %s session of 32 MB: the snapshot is sent as the client reads it',
    async (_label, closed) => {
      const log = new NhSessionLog({ clock: () => 1_767_225_600_000 });
      await log.append(WS, 's3', [{ type: 'run.start', ts: 1_767_225_600_000 } as AgentEvent]);
      for (let i = 0; i < 20; i++) await log.append(WS, 's3', deltas(i * 100, 100, 16 * 1024));
      if (closed) await log.close(WS, 's3');
      const { port, held } = await serve(log);
      const client = stalledClient(port, `/workspaces/${WS}/sessions/s3/stream`);
      await until(() => held() > 0);
      await new Promise((r) => setTimeout(r, 200));
      expect(held()).toBeLessThan(SSE_CLIENT_AHEAD_BYTES + 32 * 1024);
      if (!closed) await log.close(WS, 's3');
      client.socket.resume();
      await client.closed;
      const ids = [...client.text().matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      expect(ids).toEqual((await log.read(WS, 's3', 0))!.entries.map((e) => e.seq));
    },
    60_000,
  );

  test('/events of a 32 MB session to a client that reads nothing: the same bound, the same array', async () => {
    const log = new NhSessionLog({ clock: () => 1_767_225_600_000 });
    await log.append(WS, 's4', [{ type: 'run.start', ts: 1_767_225_600_000 } as AgentEvent]);
    for (let i = 0; i < 20; i++) await log.append(WS, 's4', deltas(i * 100, 100, 16 * 1024));
    await log.close(WS, 's4');
    const { port, held } = await serve(log);
    const response = await new Promise<IncomingMessage>((resolve) =>
      get(`http://127.0.0.1:${port}/workspaces/${WS}/sessions/s4/events`, resolve),
    );
    response.pause();
    await until(() => held() > 0);
    await new Promise((r) => setTimeout(r, 200));
    expect(held()).toBeLessThan(SSE_CLIENT_AHEAD_BYTES + 32 * 1024);
    const chunks: Buffer[] = [];
    response.on('data', (c: Buffer) => chunks.push(c));
    response.resume();
    await new Promise((r) => response.once('end', r));
    const body = Buffer.concat(chunks).toString('utf8');
    const entries = (await log.read(WS, 's4', 0))!.entries;
    // Byte for byte what one string of the whole array was.
    expect(body).toBe(`[\n${entries.map((e) => e.json).join(',\n')}\n]\n`);
  }, 60_000);

  test('a client that reads keeps up: the same entries as a snapshot read', async () => {
    const log = new NhSessionLog({ clock: () => 1_767_225_600_000 });
    await log.append(WS, 's2', [{ type: 'run.start', ts: 1_767_225_600_000 } as AgentEvent]);
    const { port } = await serve(log);
    const client = stalledClient(port, `/workspaces/${WS}/sessions/s2/stream`);
    client.socket.resume();
    for (let i = 0; i < 10; i++) await log.append(WS, 's2', deltas(i * 50, 50, 4096));
    await log.close(WS, 's2');
    await client.closed;
    const ids = [...client.text().matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual((await log.read(WS, 's2', 0))!.entries.map((e) => e.seq));
  }, 60_000);

  test('a UI protocol stream (serve --as ag-ui): the same bound, every record once, in order', async () => {
    const log = new ProtocolLog({ codec: agui });
    await log.append([{ type: 'run.start', ts: 1_767_225_600_000 } as AgentEvent]);
    const { port, held } = await serve(log);
    const client = stalledClient(port, '/stream');
    await until(() => held() > 0);
    for (let i = 0; i < 20; i++) await log.append(deltas(i * 100, 100, 16 * 1024));
    await new Promise((r) => setTimeout(r, 100));
    expect(held()).toBeLessThan(SSE_CLIENT_AHEAD_BYTES + 32 * 1024);
    await log.close();
    client.socket.resume();
    await client.closed;
    const ids = [...client.text().matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(log.entries.map((e) => e.seq));
    const texts = [...client.text().matchAll(/"delta":"(\d+):/g)].map((m) => Number(m[1]));
    expect(texts).toEqual(Array.from({ length: 2000 }, (_, i) => i));
  }, 60_000);
});
