import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { connect } from '../../src/formats/nativeharness/index';
import type { NhLogEntry, SessionFollower } from '../../src/node/session-log';
import { createSseHandler } from '../../src/node/sse-server';
import { type NodeRedisClientLike, RedisLogError, RedisSessionLog } from '../../src/redis/index';
import { expectGap } from '../nativeharness/gap';
import { expectUnknownCursor } from '../nativeharness/unknown-cursor';
import { waitFor } from '../wait';
import { makeEvents } from './events';
import { startRedis, type TestRedis } from './redis-server.mjs';

let redis: TestRedis;
const logs: RedisSessionLog[] = [];
const servers: Server[] = [];

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
  for (const log of logs) await log.quit();
  await redis.stop();
});

function open(options: Partial<ConstructorParameters<typeof RedisSessionLog>[0]> = {}): RedisSessionLog {
  const errors: Error[] = [];
  const log = new RedisSessionLog({
    url: redis.url,
    clock: () => 1_767_225_600_000,
    onError: (e) => errors.push(e),
    ...options,
  });
  logs.push(log);
  return log;
}

async function serve(log: RedisSessionLog): Promise<string> {
  const handler = createSseHandler({ log, heartbeatMs: 0 });
  const server = createServer((req, res) => {
    void handler(req, res).then((handled) => {
      if (!handled) {
        res.writeHead(404);
        res.end();
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// Collects what a follower receives; resolves when it ends or fails.
function collect(): { follower: SessionFollower; seqs: number[]; done: Promise<Error | undefined> } {
  const seqs: number[] = [];
  let finish: (e: Error | undefined) => void = () => {};
  const done = new Promise<Error | undefined>((r) => {
    finish = r;
  });
  return {
    seqs,
    done,
    follower: { entry: (e) => seqs.push(e.seq), end: () => finish(undefined), error: (e) => finish(e) },
  };
}

async function streamIds(key: string): Promise<string[]> {
  const c = createClient({ url: redis.url, RESP: 2 });
  await c.connect();
  const all = (await c.sendCommand(['XRANGE', key, '-', '+'])) as Array<[string, string[]]>;
  c.destroy();
  return all.map(([id]) => id);
}

const clients = {
  'url (ioredis)': () => open(),
  'a node-redis client (RESP3)': () => {
    const client = createClient({ url: redis.url, RESP: 3 });
    client.on('error', () => {});
    const connecting = client.connect();
    const log = open({
      url: undefined as unknown as string,
      client: client as unknown as NodeRedisClientLike,
    });
    const quit = log.quit.bind(log);
    log.quit = async () => {
      await quit();
      await connecting;
      client.destroy();
    };
    return log;
  },
  'an ioredis client (RESP3)': () => {
    const client = new Redis(redis.url);
    client.on('error', () => {});
    const log = open({ url: undefined as unknown as string, client });
    const quit = log.quit.bind(log);
    log.quit = async () => {
      await quit();
      client.disconnect();
    };
    return log;
  },
};

describe.each(Object.entries(clients))('RedisSessionLog over %s', (name, make) => {
  const session = `basic-${name.replace(/\W/g, '')}`;

  test('append, read, follow and close: one stream entry per event, id = seq', async () => {
    const log = make();
    expect(await log.read('w', session, 0)).toBeUndefined();
    const written = await log.append('w', session, makeEvents(5));
    expect(written.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const a = collect();
    log.follow('w', session, 3, a.follower);
    // A second run in the same session: its envelopes continue the seqs.
    const more = await log.append('w', session, makeEvents(0).slice(1));
    expect(more.map((e) => e.seq)).toEqual([10, 11, 12]);
    await log.close('w', session);
    expect(await a.done).toBeUndefined();
    expect(a.seqs).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(await streamIds(log.key('w', session))).toEqual([
      ...Array.from({ length: 12 }, (_, i) => `${i + 1}-0`),
      '12-1',
    ]);
    const snapshot = await log.read('w', session, 7);
    expect(snapshot).toMatchObject({ closed: true, last: 12 });
    expect(snapshot!.entries.map((e) => e.seq)).toEqual([8, 9, 10, 11, 12]);
    expect(snapshot!.entries[0]!.json).toBe(written[7]!.json);
    await expect(log.append('w', session, [{ type: 'session.start' }])).rejects.toMatchObject({
      code: 'closed',
    });
    await log.quit();
  });
});

describe('RedisSessionLog', () => {
  test('idempotent append under retries: replies lost after Redis applied the script', async () => {
    const real = createClient({ url: redis.url, RESP: 2 });
    real.on('error', () => {});
    await real.connect();
    let lose = 0;
    // The transport loses the reply of every second script call after Redis ran it, as a
    // connection reset between the write and the reply does; the log must retry.
    const client: NodeRedisClientLike = {
      sendCommand: async (args) => {
        const reply = await real.sendCommand(args);
        if (args[0]?.startsWith('EVAL') && lose++ % 2 === 0) throw new Error('Socket closed unexpectedly');
        return reply;
      },
      duplicate: () => real.duplicate() as unknown as NodeRedisClientLike,
      connect: () => real.connect(),
      on: () => client,
    };
    const errors: Error[] = [];
    const log = open({ url: undefined as unknown as string, client, onError: (e) => errors.push(e) });
    const events = makeEvents(20);
    const seqs: number[] = [];
    for (let i = 0; i < events.length; i += 3) {
      for (const e of await log.append('w', 'retried', events.slice(i, i + 3))) seqs.push(e.seq);
    }
    await log.close('w', 'retried');
    expect(seqs).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(await streamIds(log.key('w', 'retried'))).toEqual([...seqs.map((s) => `${s}-0`), '24-1']);
    expect(errors.length).toBeGreaterThanOrEqual(8);
    expect(errors.every((e) => e instanceof RedisLogError && e.code === 'unavailable')).toBe(true);
    real.destroy();
  });

  test('a second writer continues after the stored seq; a concurrent one is refused (conflict)', async () => {
    const a = open();
    const b = open();
    await a.append('w', 'two', makeEvents(1));
    const second = (await b.append('w', 'two', makeEvents(0).slice(1))).map((e) => e.seq);
    expect(second[0]).toBe(6);
    // a still believes seq 6 is free: its event is another one, so it is refused, not merged.
    const refused = a.append('w', 'two', [{ type: 'text.delta', round: 1, text: 'other' }]);
    await expect(refused).rejects.toMatchObject({ code: 'conflict' });
    // After the refusal a re-reads the stored seq and goes on.
    const third = await a.append('w', 'two', makeEvents(0).slice(1));
    expect(third[0]?.seq).toBe(second[second.length - 1]! + 1);
  });

  test('retention: maxLen trims, an old cursor gets the gap signal (SSE) and 410 (/events)', async () => {
    const log = open({ maxLen: 5 });
    const base = await serve(log);
    await log.append('w', 'trim', makeEvents(10));
    await log.close('w', 'trim');
    const url = `${base}/workspaces/w/sessions/trim`;
    await expectGap(url);
    const none = await fetch(`${url}/stream`, { headers: { 'last-event-id': '14' } });
    expect(none.status).toBe(204);
    expect((await fetch(`${base}/workspaces/w/sessions/nope/stream`)).status).toBe(404);
  });

  test('a cursor past the last seq is refused (409), not followed; follow() ends with a cursor error', async () => {
    const log = open();
    await expectUnknownCursor(`${await serve(log)}/workspaces/w/sessions`, log, {
      open: 'ahead-open',
      done: 'ahead-done',
    });
    // Of a session with no stream yet: a follow from 0 waits for its first entry; from 3 it is refused.
    const refused = collect();
    log.follow('w', 'ahead-none', 3, refused.follower);
    expect(await refused.done).toMatchObject({ code: 'cursor' });
    const first = collect();
    log.follow('w', 'ahead-none', 0, first.follower);
    await log.append('w', 'ahead-none', makeEvents(0));
    await log.close('w', 'ahead-none');
    expect(await first.done).toBeUndefined();
    expect(first.seqs).toEqual([1, 2, 3, 4]);
  }, 60_000);

  // XREAD BLOCK on a key that is gone blocks like any other: followers waited for ever, and an
  // SSE client with them, as if the session were only quiet.
  test('a stream deleted under blocked followers ends them with a deleted error; one not created yet is waited for', async () => {
    const log = open({ blockMs: 200 });
    const base = await serve(log);
    const within = <T>(p: Promise<T>): Promise<T | 'still waiting'> =>
      Promise.race([p, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), 5_000))]);
    await log.append('w', 'deleted-live', makeEvents(1));
    const f = collect();
    log.follow('w', 'deleted-live', 0, f.follower);
    const diagnostics: Diagnostic[] = [];
    const got: number[] = [];
    const reading = (async () => {
      for await (const e of connect(`${base}/workspaces/w/sessions/deleted-live/stream`, {
        minRetryMs: 0,
        retryMs: 0,
        signal: AbortSignal.timeout(10_000),
        onDiagnostic: (d) => diagnostics.push(d),
      }))
        got.push(e.seq!);
    })();
    const later = collect();
    log.follow('w', 'deleted-later', 0, later.follower);
    await waitFor(() => f.seqs.length === 5 && got.length === 5);
    // Blocked for a few rounds with nothing new: still following, not ended.
    await new Promise((r) => setTimeout(r, 500));
    const c = createClient({ url: redis.url, RESP: 2 });
    await c.connect();
    await c.sendCommand(['DEL', log.key('w', 'deleted-live')]);
    c.destroy();
    const error = await within(f.done);
    expect(error).toBeInstanceOf(RedisLogError);
    expect(error).toMatchObject({ code: 'deleted' });
    expect((error as Error).message).toContain('the stream was deleted under its followers');
    expect(f.seqs).toEqual([1, 2, 3, 4, 5]);
    // The SSE client's response ends; its reconnect finds no session (404) and it stops, told why.
    expect(await within(reading)).toBeUndefined();
    expect(got).toEqual([1, 2, 3, 4, 5]);
    expect(diagnostics.map((d) => d.code)).toEqual(['connection']);
    expect(diagnostics[0]!.message).toContain('HTTP 404');
    // A session whose stream was never there is one not started yet: its follower still waits.
    await log.append('w', 'deleted-later', makeEvents(0));
    await log.close('w', 'deleted-later');
    expect(await within(later.done)).toBeUndefined();
    expect(later.seqs).toEqual([1, 2, 3, 4]);
  }, 60_000);

  test('trim by seq (MINID) under a follower: the follower is told (gap), a reader gets the gap', async () => {
    const log = open();
    await log.append('w', 'minid', makeEvents(6));
    expect(await log.trim('w', 'minid', 5)).toBe(4);
    const snapshot = await log.read('w', 'minid', 1);
    expect(snapshot?.gap).toEqual({ after: 1, next: 5 });
    expect(snapshot?.entries[0]?.seq).toBe(5);
    const f = collect();
    log.follow('w', 'minid', 1, f.follower);
    const error = await f.done;
    expect(error).toBeInstanceOf(RedisLogError);
    expect((error as RedisLogError).code).toBe('gap');
    expect(f.seqs).toEqual([]);
  });

  test("a source's own seqs with holes (a replayed log without its tokens) are not a gap; a trim across one is", async () => {
    const log = open();
    // What `serve --redis` stores from a persisted nativeharness log: the envelopes keep their seqs.
    const seqs = [1, 2, 3, 5, 6, 9, 10, 11, 14, 15];
    const events = makeEvents(6).map((e, i) => ({ ...e, seq: seqs[i]! }));
    const f = collect();
    log.follow('w', 'holes', 0, f.follower);
    for (const e of events) await log.append('w', 'holes', [e]);
    await log.close('w', 'holes');
    expect(await f.done).toBeUndefined();
    expect(f.seqs).toEqual(seqs);
    const all = await log.read('w', 'holes', 0);
    expect(all?.gap).toBeUndefined();
    expect(all?.entries.map((e) => e.seq)).toEqual(seqs);
    // A log that starts past seq 1 (the tail of a longer one) has lost nothing either.
    await log.append('w', 'tail', events.slice(5));
    expect((await log.read('w', 'tail', 0))?.gap).toBeUndefined();
    // Trimmed up to 6: a reader that had 6 has missed nothing, one that had only 3 has.
    expect(await log.trim('w', 'holes', 9)).toBe(5);
    expect((await log.read('w', 'holes', 6))?.gap).toBeUndefined();
    expect((await log.read('w', 'holes', 3))?.gap).toEqual({ after: 3, next: 9 });
    const late = collect();
    log.follow('w', 'holes', 3, late.follower);
    expect(await late.done).toMatchObject({ code: 'gap' });
    const caughtUp = collect();
    log.follow('w', 'holes', 6, caughtUp.follower);
    expect(await caughtUp.done).toBeUndefined();
    expect(caughtUp.seqs).toEqual([9, 10, 11, 14, 15]);
    // A stream deleted under its live writer is not a hole of the source: a reader from the
    // start is told that entries are gone.
    await log.append('w', 'deleted', makeEvents(2));
    const c = createClient({ url: redis.url, RESP: 2 });
    await c.connect();
    await c.sendCommand(['DEL', log.key('w', 'deleted')]);
    c.destroy();
    await log.append('w', 'deleted', [{ type: 'text.delta', round: 1, text: 'more' }]);
    expect((await log.read('w', 'deleted', 0))?.gap).toEqual({ after: 0, next: 7 });
  });

  test('/events of an open session is every stored entry, not the first read page', async () => {
    const log = open({ batchSize: 7 });
    const base = await serve(log);
    await log.append('w', 'paged', makeEvents(30));
    const url = `${base}/workspaces/w/sessions/paged/events`;
    const all = (await (await fetch(url)).json()) as Array<{ seq: number }>;
    expect(all.map((e) => e.seq)).toEqual(Array.from({ length: 34 }, (_, i) => i + 1));
    const after = (await (await fetch(`${url}?after=20`)).json()) as Array<{ seq: number }>;
    expect(after.map((e) => e.seq)).toEqual(Array.from({ length: 14 }, (_, i) => i + 21));
    expect(await (await fetch(`${url}?after=34`)).json()).toEqual([]);
  });

  test('SSE clients that give up while Redis is slow leave no follower and no connection behind', async () => {
    const log = open();
    const base = await serve(log);
    await log.append('w', 'gave-up', makeEvents(1));
    const admin = createClient({ url: redis.url, RESP: 2 });
    admin.on('error', () => {});
    await admin.connect();
    onTestFinished(() => admin.destroy());
    const connections = async () =>
      String(await admin.sendCommand(['CLIENT', 'LIST']))
        .trim()
        .split('\n').length;
    const before = await connections();
    redis.pause();
    try {
      // Each client gives up before its read is answered.
      const attempts = Array.from({ length: 5 }, () =>
        fetch(`${base}/workspaces/w/sessions/gave-up/stream`, { signal: AbortSignal.timeout(300) }).then(
          () => 'answered',
          () => 'gave up',
        ),
      );
      expect(await Promise.all(attempts)).toEqual(Array(5).fill('gave up'));
    } finally {
      redis.resume();
    }
    // Answered after the five reads on the same connection: the handlers have had theirs.
    await log.read('w', 'gave-up', 0);
    await new Promise((r) => setTimeout(r, 50));
    expect((log as unknown as { tails: Map<string, unknown> }).tails.size).toBe(0);
    // Nor a blocking connection opened for them (it would come a moment later).
    const deadline = Date.now() + 2000;
    while (Date.now() < deadline && (await connections()) === before)
      await new Promise((r) => setTimeout(r, 50));
    expect(await connections()).toBe(before);
  });

  test('followers that join behind the shared reader catch up, each entry once, in order', async () => {
    const log = open({ batchSize: 7 });
    await log.append('w', 'late', makeEvents(30));
    const first = collect();
    log.follow('w', 'late', 30, first.follower);
    const followers = [collect(), collect(), collect()];
    const feeding = (async () => {
      for (let i = 0; i < 20; i++) {
        await log.append('w', 'late', [{ type: 'text.delta', round: 1, text: `late ${i}` }]);
        await new Promise((r) => setTimeout(r, 2));
      }
      await log.close('w', 'late');
    })();
    await new Promise((r) => setTimeout(r, 10));
    for (const [i, f] of followers.entries()) log.follow('w', 'late', i * 9, f.follower);
    await feeding;
    for (const [i, f] of [first, ...followers].entries()) {
      expect(await f.done).toBeUndefined();
      const from = i === 0 ? 30 : (i - 1) * 9;
      expect(f.seqs).toEqual(Array.from({ length: 54 - from }, (_, k) => from + k + 1));
    }
  });

  test('100 concurrent SSE clients on one session all receive every event', async () => {
    const log = open();
    const base = await serve(log);
    await log.append('w', 'crowd', makeEvents(0).slice(0, 2));
    const url = `${base}/workspaces/w/sessions/crowd/stream`;
    const readers = Array.from({ length: 100 }, async () => {
      const seqs: number[] = [];
      for await (const e of connect(url, { minRetryMs: 0, retryMs: 10 }))
        if (e.seq !== undefined) seqs.push(e.seq);
      return seqs;
    });
    const written: NhLogEntry[] = [];
    for (let i = 0; i < 200; i++) {
      written.push(...(await log.append('w', 'crowd', [{ type: 'text.delta', round: 1, text: `t${i}` }])));
    }
    written.push(...(await log.append('w', 'crowd', makeEvents(0).slice(2))));
    await log.close('w', 'crowd');
    const expected = [1, 2, ...written.map((e) => e.seq)];
    for (const seqs of await Promise.all(readers)) expect(seqs).toEqual(expected);
  });

  test('persist, then emit: a follower sees nothing before Redis has the entry', async () => {
    const real = createClient({ url: redis.url, RESP: 2 });
    real.on('error', () => {});
    await real.connect();
    let gate: Promise<void> = Promise.resolve();
    // Script calls wait at the gate before they reach Redis.
    const client: NodeRedisClientLike = {
      sendCommand: async (args) => {
        if (args[0]?.startsWith('EVAL') && args.length > 8) await gate;
        return real.sendCommand(args);
      },
      duplicate: () => real.duplicate() as unknown as NodeRedisClientLike,
      connect: () => real.connect(),
      on: () => client,
    };
    const log = open({ url: undefined as unknown as string, client });
    await log.append('w', 'gated', makeEvents(0).slice(0, 1));
    const f = collect();
    log.follow('w', 'gated', 1, f.follower);
    let release: () => void = () => {};
    gate = new Promise((r) => {
      release = r;
    });
    const appending = log.append('w', 'gated', [{ type: 'run.start', run: 't' }]);
    await new Promise((r) => setTimeout(r, 100));
    expect(f.seqs).toEqual([]);
    expect(await streamIds(log.key('w', 'gated'))).toEqual(['1-0']);
    release();
    await appending;
    await log.close('w', 'gated');
    await f.done;
    expect(f.seqs).toEqual([2]);
    real.destroy();
  });

  test('Redis down past the retry window: append and follow fail loudly; queued entries are written once after', async () => {
    const own = await startRedis({ appendonly: true, appendfsync: 'always' });
    try {
      const errors: Error[] = [];
      const log = new RedisSessionLog({
        url: own.url,
        retryForMs: 300,
        attemptTimeoutMs: 200,
        blockMs: 100,
        onError: (e) => errors.push(e),
      });
      logs.push(log);
      await log.append('w', 'down', makeEvents(0).slice(0, 2));
      const f = collect();
      log.follow('w', 'down', 2, f.follower);
      await own.kill();
      const failed = log.append('w', 'down', [{ type: 'text.delta', round: 1, text: 'kept' }]);
      await expect(failed).rejects.toMatchObject({ name: 'RedisLogError', code: 'unavailable' });
      const followError = await f.done;
      expect(followError).toMatchObject({ name: 'RedisLogError', code: 'unavailable' });
      expect(errors.length).toBeGreaterThan(2);
      await own.restart();
      // Bounded: the client reconnects within its backoff cap.
      for (
        let i = 0;
        i < 50 &&
        !(await log.read('w', 'down', 0).then(
          () => true,
          () => false,
        ));
        i++
      ) {
        await new Promise((r) => setTimeout(r, 100));
      }
      // The rejected append's entry (seq 3) is written first, then the new one: no hole, nothing twice.
      const next = await log.append('w', 'down', [{ type: 'text.delta', round: 1, text: 'after' }]);
      expect(next.map((e) => e.seq)).toEqual([4]);
      const snapshot = await log.read('w', 'down', 0);
      expect(snapshot!.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      expect(snapshot!.entries[2]!.json).toContain('kept');
      await log.quit();
    } finally {
      await own.stop();
    }
  });
});
