import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { connect, nativeharness } from '../../src/formats/nativeharness/index';
import type { AgentEvent } from '../../src/model';
import { createSseHandler } from '../../src/node/sse-server';
import { RedisSessionLog } from '../../src/redis/index';
import { prng } from '../prng';
import { freePort, startRedis, type TestRedis } from './redis-server.mjs';

// Several processes on one Redis: servers killed under a reading client, and Redis itself
// killed under a producer and a reader. The CLI and the producer run from dist/ (`npm test`
// builds first).

const root = new URL('../../', import.meta.url);
const cli = new URL('dist/cli.js', root).pathname;
const producerScript = new URL('test/redis/producer.mjs', root).pathname;
const children = new Set<ChildProcess>();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

interface ServeProcess {
  child: ChildProcess;
  port: number;
}

// `agentwire serve --redis URL --read-only` on a free port; resolves once it listens.
async function startServe(url: string): Promise<ServeProcess> {
  const port = await freePort();
  const args = [cli, 'serve', '--redis', url, '--read-only', '--port', String(port)];
  const child = track(spawn(process.execPath, [...args, '--workspace', 'w', '--session', 's']));
  let err = '';
  child.stdout?.resume();
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes('agentwire: serving')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
  return { child, port };
}

function startProducer(url: string): { child: ChildProcess; acked: number[]; closed: () => boolean } {
  const child = track(spawn(process.execPath, [producerScript, url, 'w', 's']));
  const acked: number[] = [];
  let closed = false;
  let rest = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      if (line === 'closed') closed = true;
      else acked.push(Number(line));
    }
  });
  child.stderr?.resume();
  return { child, acked, closed: () => closed };
}

// The session as stored: the canonical events of its entries, and their seqs.
async function stored(url: string, key: string): Promise<{ seqs: number[]; events: AgentEvent[] }> {
  const c = createClient({ url, RESP: 2 });
  await c.connect();
  const all = (await c.sendCommand(['XRANGE', key, '-', '+'])) as Array<[string, string[]]>;
  c.destroy();
  const lines = all.filter(([id]) => id.endsWith('-0')).map(([, fields]) => fields[3]!);
  return {
    seqs: all.filter(([id]) => id.endsWith('-0')).map(([id]) => Number(id.slice(0, -2))),
    events: nativeharness.parse(lines.join('\n')).events,
  };
}

const strip = (events: AgentEvent[]) =>
  events.filter((e) => e.provenance?.synthetic !== true).map(({ provenance: _p, ...e }) => e);

let redis: TestRedis;

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  redis = await startRedis({ appendonly: true, appendfsync: 'always' });
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await redis.stop();
});

describe('several processes on one Redis', () => {
  test('servers killed under a client 20 times: it resumes on the other with exactly the producer events', async () => {
    const random = prng(7);
    const servers = await Promise.all([startServe(redis.url), startServe(redis.url)]);
    let current = 0;
    const producer = startProducer(redis.url);
    await until(() => producer.acked.length > 0, 'the first append');

    const got: AgentEvent[] = [];
    const diagnostics: Diagnostic[] = [];
    const hits = [0, 0];
    const conn = connect('http://server/workspaces/w/sessions/s/stream', {
      retryMs: 0,
      minRetryMs: 0,
      maxRetryMs: 20,
      onDiagnostic: (d) => diagnostics.push(d),
      fetch: (input, init) => {
        hits[current]!++;
        const target = `http://127.0.0.1:${servers[current]!.port}`;
        return fetch(String(input).replace('http://server', target), init);
      },
    });
    const reading = (async () => {
      for await (const e of conn) got.push(e);
    })();

    let kills = 0;
    // Replacements start while the client reads, so a kill never waits for a process to boot.
    const spares = [startServe(redis.url), startServe(redis.url)];
    for (; kills < 20; kills++) {
      // Mid-stream: the client is reading from the current server when it dies.
      const seen = got.length;
      await until(() => got.length > seen, 'progress before a kill');
      await sleep(Math.floor(random() * 150));
      const victim = current;
      const replacement = await spares.shift()!;
      spares.push(startServe(redis.url));
      current = 1 - current;
      servers[victim]!.child.kill('SIGKILL');
      servers[victim] = replacement;
    }
    for (const spare of await Promise.all(spares)) spare.child.kill('SIGKILL');
    producer.child.stdin?.end();
    await until(producer.closed, 'the producer to close the session');
    await reading;

    const truth = await stored(redis.url, 'agentwire:w:s');
    expect(truth.seqs).toEqual(producer.acked);
    const seqs = got.map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual(strip(truth.events).map((e) => e.seq));
    expect(strip(got)).toEqual(strip(truth.events));
    expect(diagnostics).toEqual([]);
    expect(kills).toBe(20);
    expect(hits[0]! + hits[1]!).toBeGreaterThanOrEqual(21);
    for (const s of servers) s.child.kill('SIGKILL');
  }, 60_000);

  test('serve --redis: Redis away past the retry window does not end the feed; the input waits, then all of it is stored', async () => {
    const lines = readFileSync(new URL('fixtures/nativeharness/cancelled.jsonl', root), 'utf8')
      .trim()
      .split('\n');
    const port = await freePort();
    const args = [cli, 'serve', '--redis', redis.url, '--port', String(port), '--format', 'nativeharness'];
    const child = track(spawn(process.execPath, [...args, '--workspace', 'w', '--session', 'away', '-']));
    let err = '';
    child.stdout?.resume();
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    try {
      await until(() => err.includes('agentwire: serving'), 'serve to listen');
      child.stdin!.write(`${lines.slice(0, 3).join('\n')}\n`);
      const key = 'agentwire:w:away';
      const deadline = Date.now() + 15_000;
      while ((await stored(redis.url, key).catch(() => ({ seqs: [] }))).seqs.length < 3) {
        if (Date.now() > deadline) throw new Error(`the first lines were not stored: ${err}`);
        await sleep(50);
      }
      await redis.kill('SIGKILL');
      child.stdin!.write(`${lines[3]}\n`);
      // serve's log gives up an append after 30 s (retryForMs): the feed must not end there.
      await until(() => err.includes('Redis unreachable for 30000 ms'), 'the retry window to pass', 60_000);
      await redis.restart();
      child.stdin!.end(`${lines.slice(4).join('\n')}\n`);
      await until(() => err.includes('the session is complete'), `the session to close: ${err}`, 30_000);
      expect((await stored(redis.url, key)).seqs).toEqual([1, 2, 3, 4, 5, 6, 7]);
      const c = createClient({ url: redis.url, RESP: 2 });
      await c.connect();
      const last = (await c.sendCommand(['XREVRANGE', key, '+', '-', 'COUNT', '1'])) as Array<[string]>;
      c.destroy();
      expect(last[0]![0]).toBe('7-1');
    } finally {
      child.kill('SIGTERM');
    }
  }, 120_000);

  test('Redis killed (SIGKILL, AOF always) and restarted mid-stream: nothing acknowledged is lost', async () => {
    const errors: Error[] = [];
    const producerLog = new RedisSessionLog({ url: redis.url, onError: (e) => errors.push(e) });
    const serverLog = new RedisSessionLog({ url: redis.url, onError: (e) => errors.push(e) });
    const handler = createSseHandler({ log: serverLog, heartbeatMs: 0 });
    const server: Server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/workspaces/w/sessions/restart/stream`;

    const acked: number[] = [];
    const ack = (entries: { seq: number }[]) => acked.push(...entries.map((e) => e.seq));
    ack(
      await producerLog.append('w', 'restart', [{ type: 'session.start' }, { type: 'run.start', run: 't' }]),
    );
    const got: AgentEvent[] = [];
    const diagnostics: Diagnostic[] = [];
    const reading = (async () => {
      for await (const e of connect(url, {
        minRetryMs: 10,
        retryMs: 10,
        maxRetryMs: 200,
        onDiagnostic: (d) => diagnostics.push(d),
      }))
        got.push(e);
    })();
    let produced = 0;
    let stop = false;
    const producing = (async () => {
      // Bounded: the loop ends when told, or after 5 000 appends.
      for (; !stop && produced < 5000; produced++) {
        ack(
          await producerLog.append('w', 'restart', [{ type: 'text.delta', round: 1, text: `t${produced}` }]),
        );
      }
    })();
    for (let round = 0; round < 2; round++) {
      const before = acked.length;
      await until(() => acked.length > before + 50, 'appends before the kill');
      await redis.kill('SIGKILL');
      await sleep(200);
      await redis.restart();
      const after = acked.length;
      await until(() => acked.length > after + 50, 'appends after the restart');
    }
    stop = true;
    await producing;
    ack(await producerLog.append('w', 'restart', [{ type: 'run.end', status: 'completed' }]));
    await producerLog.close('w', 'restart');
    await reading;

    const truth = await stored(redis.url, 'agentwire:w:restart');
    expect(truth.seqs).toEqual(acked);
    expect(acked).toEqual(Array.from({ length: acked.length }, (_, i) => i + 1));
    expect(got.map((e) => e.seq)).toEqual(strip(truth.events).map((e) => e.seq));
    expect(strip(got)).toEqual(strip(truth.events));
    expect(diagnostics).toEqual([]);
    // The failures were reported while the log retried past them.
    expect(errors.length).toBeGreaterThan(0);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await producerLog.quit();
    await serverLog.quit();
  }, 60_000);
});
