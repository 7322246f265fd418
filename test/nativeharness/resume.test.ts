import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { connect, nativeharness } from '../../src/formats/nativeharness/index';
import type { AgentEvent } from '../../src/model';
import { createSseHandler, NhSessionLog } from '../../src/node/sse-server';
import { prng } from '../prng';
import { expectGap } from './gap';
import { expectUnknownCursor } from './unknown-cursor';

const WS = 'ws_1';
let server: Server;
let base: string;
let log: NhSessionLog;
const persisted: string[] = [];
let cutBudget: (() => number) | undefined;
let serverCuts = 0;

beforeAll(async () => {
  log = new NhSessionLog({
    clock: () => 1_767_225_600_000,
    persist: async (_ws, _s, json) => {
      await Promise.resolve();
      persisted.push(json);
    },
  });
  const handler = createSseHandler({ log, heartbeatMs: 0 });
  server = createServer((req, res) => {
    const budget = cutBudget?.() ?? Number.POSITIVE_INFINITY;
    let sent = 0;
    let cut = false;
    const write = res.write.bind(res) as (chunk: string | Uint8Array) => boolean;
    res.write = ((chunk: string | Uint8Array) => {
      if (cut) return false;
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
      if (sent + bytes.length > budget) {
        // The server dies mid-event: part of the block goes out, then the socket is destroyed.
        cut = true;
        serverCuts++;
        write(bytes.subarray(0, budget - sent));
        setImmediate(() => res.socket?.destroy());
        return false;
      }
      sent += bytes.length;
      return write(chunk);
    }) as typeof res.write;
    void handler(req, res).then((handled) => {
      if (!handled) {
        res.writeHead(404);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function makeEvents(n: number): AgentEvent[] {
  const events: AgentEvent[] = [
    { type: 'session.start', actor: 'user:test', mode: 'build' },
    { type: 'run.start', run: 't_1', input: 'go' },
  ];
  for (let i = 0; i < n; i++) {
    events.push({ type: 'text.delta', round: 1, text: `tok ${i} ✅ 𝄞 <b>${'x'.repeat(i % 50)}</b>\n` });
  }
  events.push({ type: 'round.end', round: 1, message: 'm', stopReason: 'stop' });
  events.push({ type: 'run.end', status: 'completed', stopReason: 'stop' });
  return events;
}

describe('resume over a real node:http server', () => {
  test('cut at random points hundreds of times: exactly the server events, in order, none twice', async () => {
    const random = prng(42);
    const session = 's_resume';
    const events = makeEvents(500);
    // Live: the first events are in the log before the client connects, the rest arrive while
    // it reads (and is cut off), then the session closes.
    await log.append(WS, session, events.slice(0, 50));
    const feeding = (async () => {
      for (let i = 50; i < events.length; i += 10) {
        await new Promise((r) => setTimeout(r, 1));
        await log.append(WS, session, events.slice(i, i + 10));
      }
      await log.close(WS, session);
    })();

    serverCuts = 0;
    cutBudget = () => Math.floor(random() * 900);
    let clientCuts = 0;
    let connections = 0;
    const diagnostics: Diagnostic[] = [];
    const got: AgentEvent[] = [];
    const conn = connect(`${base}/workspaces/${WS}/sessions/${session}/stream`, {
      retryMs: 0,
      minRetryMs: 0,
      maxRetryMs: 5,
      onDiagnostic: (d) => diagnostics.push(d),
      fetch: async (url, init) => {
        connections++;
        const res = await fetch(url, init);
        if (res.status !== 200 || res.body === null || random() < 0.7) return res;
        // The client gives up on this connection after a random number of bytes.
        const limit = Math.floor(random() * 1500);
        const source = res.body.getReader();
        let seen = 0;
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const r = await source.read();
            if (r.done) return controller.close();
            if (seen + r.value.length > limit) {
              clientCuts++;
              controller.enqueue(r.value.subarray(0, limit - seen));
              await source.cancel();
              controller.error(new Error('client abort'));
              return;
            }
            seen += r.value.length;
            controller.enqueue(r.value);
          },
          cancel: () => source.cancel(),
        });
        return new Response(body, { status: res.status, headers: res.headers });
      },
    });
    for await (const e of conn) got.push(e);
    await feeding;
    cutBudget = undefined;

    const expected = nativeharness.parse(persisted.filter((l) => l.includes(session)).join('\n')).events;
    const all = log.get(WS, session)!.entries.map((e) => e.seq);
    expect(got.map((e) => e.seq)).toEqual(all);
    expect(new Set(got.map((e) => e.seq)).size).toBe(got.length);
    expect(got.map(({ provenance: _p, ...e }) => e)).toEqual(expected.map(({ provenance: _p, ...e }) => e));
    expect(got.some((e) => e.provenance?.synthetic === true)).toBe(false);
    expect(diagnostics).toEqual([]);
    expect(serverCuts + clientCuts).toBeGreaterThanOrEqual(200);
    expect(connections).toBeGreaterThan(200);
    expect(conn.lastEventId).toBe(String(all[all.length - 1]));
  });

  test('a cursor older than what the server keeps gets the gap signal, then the rest', async () => {
    const small = new NhSessionLog({ retain: 5, clock: () => 1 });
    const handler = createSseHandler({ log: small, heartbeatMs: 0 });
    const s2 = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => s2.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(s2.address() as AddressInfo).port}/workspaces/w/sessions/s`;
    await small.append('w', 's', makeEvents(10));
    await small.close('w', 's');
    await expectGap(url);
    const events = await fetch(`${url}/events?after=12`);
    const parsed = nativeharness.parse(await events.text());
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.events.filter((e) => e.provenance?.synthetic !== true).map((e) => e.seq)).toEqual([13, 14]);
    s2.closeAllConnections();
    await new Promise((resolve) => s2.close(resolve));
  });

  // The log `serve` and `serve --log FILE` keep: the cursor of another stream is refused.
  test('a cursor past the last seq is refused (409), not followed; follow() ends with an error', async () => {
    const l = new NhSessionLog({ clock: () => 1, persist: () => Promise.resolve() });
    const handler = createSseHandler({ log: l, heartbeatMs: 0 });
    const s2 = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => s2.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(s2.address() as AddressInfo).port}/workspaces/w/sessions`;
      await expectUnknownCursor(url, l, { open: 'open', done: 'done' });
    } finally {
      s2.closeAllConnections();
      await new Promise((resolve) => s2.close(resolve));
    }
  }, 60_000);

  test('persist, then emit: a subscriber sees nothing before persist resolves', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const seen: number[] = [];
    const l = new NhSessionLog({ persist: () => gate, clock: () => 1 });
    l.subscribe('w', 's', (e) => e !== undefined && seen.push(e.seq));
    const done = l.append('w', 's', [{ type: 'session.start' }]);
    await new Promise((r) => setTimeout(r, 5));
    expect(seen).toEqual([]);
    release();
    await done;
    expect(seen).toEqual([1]);
  });

  // A nativeharness input with a replayed envelope: the decoder keeps it (with an `order` error),
  // and the log, which has that seq already, reports it at its line and leaves it out; the rest of
  // the batch and later appends are stored.
  test('an event whose seq the log already has is reported at its line and left out', async () => {
    const diagnostics: Diagnostic[] = [];
    const l = new NhSessionLog({ clock: () => 1, onDiagnostic: (d) => diagnostics.push(d) });
    const at = (line: number) => ({ format: 'nativeharness' as const, line, offset: line * 100 });
    const written = await l.append('w', 's', [
      { type: 'session.start', seq: 1, provenance: at(1) },
      { type: 'text.delta', text: 'a', seq: 2, provenance: at(2) },
      { type: 'text.delta', text: 'a', seq: 2, provenance: at(3) },
      { type: 'text.delta', text: 'b', seq: 3, provenance: at(4) },
    ]);
    expect(written.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(diagnostics.map((d) => `${d.code} ${d.severity} ${d.line}`)).toEqual(['unencodable error 3']);
    expect((await l.append('w', 's', [{ type: 'text.delta', text: 'c' }])).map((e) => e.seq)).toEqual([4]);
  });
});
