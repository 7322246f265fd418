// The Redis session log, measured: `npm run bench:redis` (builds, then `node bench/redis.mjs`).
//
// A real redis-server (Debian's package) is started on a free loopback port and stopped at the
// end. Two scenarios, each run --runs times (default 5) with the contenders interleaved in every
// run, reported as medians (the machine is shared: same-run ratios hold, absolute numbers drift):
//
// - `clients`: the two Node clients on raw stream commands: pipelined XADD (100 in flight),
//   one XADD at a time (a producer awaiting each append), and XREAD of the stream 1000 at a time.
// - `log`: events per second through a session log: appended one event per awaited `append`
//   with nobody reading, and delivered to 1, 10 and 100 SSE clients (`createSseHandler` over
//   node:http, clients reading the raw stream) while a producer appends; the file log
//   (`NhSessionLog` persisting to a JSON Lines file, as `serve --log` does) next to
//   `RedisSessionLog`. Producer, server and clients share this one process.
//
// Flags: --only clients,log   --runs N   --events N (per run, default 1000)   --out path (default
// docs/scaling.md, the block between the bench markers; `-` to only print).

import { readFileSync, writeFileSync } from 'node:fs';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { startRedis } from '../test/redis/redis-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));

function flag(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 || process.argv[i + 1] === undefined ? fallback : process.argv[i + 1];
}
const RUNS = Math.max(3, Number(flag('runs', 5)));
const EVENTS = Number(flag('events', 1000));
const ONLY = String(flag('only', 'clients,log')).split(',');
const OUT = String(flag('out', resolve(here, '../docs/scaling.md')));

const { NhSessionLog, createSseHandler } = await import('../dist/node.js');
const { RedisSessionLog } = await import('../dist/redis.js');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const perSecond = (n, ms) => (n * 1000) / ms;

// ---------------------------------------------------------------------------------------------

async function clientsScenario() {
  const json = JSON.stringify({
    seq: 1,
    ts: 1767225600000,
    type: 'token',
    workspace_id: 'w',
    session_id: 's',
    turn_id: 't1',
    payload: { hop: 1, text: 'x'.repeat(120) },
  });
  const makers = {
    redis: async () => {
      const c = createClient({ url: redis.url, RESP: 2 });
      await c.connect();
      return { send: (a) => c.sendCommand(a), quit: () => c.destroy() };
    },
    ioredis: async () => {
      const c = new Redis(redis.url, { protocol: 2 });
      await new Promise((r) => c.once('ready', r));
      return { send: ([cmd, ...a]) => c.call(cmd, ...a), quit: () => c.disconnect() };
    },
  };
  const results = { redis: [], ioredis: [] };
  for (let run = 0; run < RUNS; run++) {
    const order = run % 2 ? ['ioredis', 'redis'] : ['redis', 'ioredis'];
    for (const name of order) {
      const c = await makers[name]();
      const key = `bench:${name}:${run}`;
      let t = performance.now();
      for (let i = 0; i < EVENTS * 5; i += 100) {
        const batch = [];
        for (let j = i; j < i + 100; j++)
          batch.push(c.send(['XADD', key, `${j + 1}-0`, 't', 'token', 'j', json]));
        await Promise.all(batch);
      }
      const pipelined = perSecond(EVENTS * 5, performance.now() - t);
      t = performance.now();
      for (let j = 0; j < EVENTS; j++)
        await c.send(['XADD', `${key}:1`, `${j + 1}-0`, 't', 'token', 'j', json]);
      const serial = perSecond(EVENTS, performance.now() - t);
      t = performance.now();
      let last = '0-0';
      for (let got = 0; got < EVENTS * 5; ) {
        const reply = await c.send(['XREAD', 'COUNT', '1000', 'STREAMS', key, last]);
        const entries = reply[0][1];
        got += entries.length;
        last = entries[entries.length - 1][0];
      }
      const read = perSecond(EVENTS * 5, performance.now() - t);
      await c.send(['DEL', key, `${key}:1`]);
      c.quit();
      results[name].push({ pipelined, serial, read });
    }
  }
  say('| client | XADD pipelined (entries/s) | XADD one at a time | XREAD 1000 at a time |');
  say('| --- | ---: | ---: | ---: |');
  for (const name of ['redis', 'ioredis']) {
    const r = results[name];
    const m = (k) => fmt(median(r.map((x) => x[k])));
    say(`| \`${name}\` | ${m('pipelined')} | ${m('serial')} | ${m('read')} |`);
  }
  const ratio = (k) =>
    median(results.ioredis.map((x, i) => x[k] / results.redis[i][k]))
      .toFixed(2)
      .concat('×');
  say(`| ioredis / redis, same run | ${ratio('pipelined')} | ${ratio('serial')} | ${ratio('read')} |`);
  say('');
}

// ---------------------------------------------------------------------------------------------

const delta = (i) => ({ type: 'text.delta', round: 1, text: `token ${i} of a model answer ✅ ` });
const opening = [
  { type: 'session.start', actor: 'user:bench', mode: 'build' },
  { type: 'run.start', run: 't_1', input: 'go' },
];

async function fileLog(dir) {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.jsonl`);
  const log = new NhSessionLog({ persist: (_w, _s, json) => appendFile(file, `${json}\n`) });
  return { log, quit: async () => {} };
}

async function redisLog() {
  const log = new RedisSessionLog({ url: redis.url });
  await log.connect();
  return { log, quit: () => log.quit() };
}

// Reads a raw SSE stream until `count` event ids have arrived; resolves the arrival time.
// Ids are counted as "\nid: " across chunk boundaries (the carry is shorter than the pattern,
// so nothing is counted twice; the stream's start counts as a line start).
async function reader(url, count) {
  const response = await fetch(url);
  const body = response.body.getReader();
  const decoder = new TextDecoder();
  let seen = 0;
  let carry = '\n';
  while (seen < count) {
    const r = await body.read();
    if (r.done) break;
    const text = carry + decoder.decode(r.value, { stream: true });
    for (let at = text.indexOf('\nid: '); at !== -1; at = text.indexOf('\nid: ', at + 1)) seen++;
    carry = text.slice(-4);
  }
  await body.cancel().catch(() => {});
  return performance.now();
}

async function deliver(make, clients, session) {
  const { log, quit } = await make();
  await log.append('w', session, opening);
  const handler = createSseHandler({ log, heartbeatMs: 0 });
  const server = createServer((req, res) => void handler(req, res));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/workspaces/w/sessions/${session}/stream`;
  const total = opening.length + EVENTS;
  const readers = Array.from({ length: clients }, () => reader(url, total));
  // Every client is connected (its first block arrived) before the clock starts.
  await new Promise((r) => setTimeout(r, 200));
  const t = performance.now();
  for (let i = 0; i < EVENTS; i++) await log.append('w', session, [delta(i)]);
  const ends = await Promise.all(readers);
  const ms = Math.max(...ends) - t;
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await quit();
  return perSecond(EVENTS, ms);
}

async function appendOnly(make, session) {
  const { log, quit } = await make();
  await log.append('w', session, opening);
  const t = performance.now();
  for (let i = 0; i < EVENTS; i++) await log.append('w', session, [delta(i)]);
  const ms = performance.now() - t;
  await quit();
  return perSecond(EVENTS, ms);
}

async function logScenario() {
  const dir = await mkdtemp(join(tmpdir(), 'agentwire-bench-'));
  const logs = {
    'file log (`NhSessionLog` + JSON Lines file)': fileLog.bind(null, dir),
    '`RedisSessionLog`': redisLog,
  };
  const columns = ['append', 1, 10, 100];
  const results = Object.fromEntries(
    Object.keys(logs).map((k) => [k, Object.fromEntries(columns.map((c) => [c, []]))]),
  );
  let n = 0;
  for (let run = 0; run < RUNS; run++) {
    const names = Object.keys(logs);
    if (run % 2) names.reverse();
    for (const column of columns) {
      for (const name of names) {
        const session = `bench-${n++}`;
        const value =
          column === 'append'
            ? await appendOnly(logs[name], session)
            : await deliver(logs[name], column, session);
        results[name][column].push(value);
      }
    }
  }
  await rm(dir, { recursive: true, force: true });
  say(`Events per second, ${fmt(EVENTS)} text deltas appended one per awaited \`append\`:`);
  say('');
  say('| log | appended, no reader | delivered to 1 client | to 10 clients | to 100 clients |');
  say('| --- | ---: | ---: | ---: | ---: |');
  for (const name of Object.keys(logs)) {
    say(`| ${name} | ${columns.map((c) => fmt(median(results[name][c]))).join(' | ')} |`);
  }
  const [fileName, redisName] = Object.keys(logs);
  const ratios = columns.map((c) =>
    median(results[redisName][c].map((x, i) => x / results[fileName][c][i]))
      .toFixed(2)
      .concat('×'),
  );
  say(`| Redis / file, same run | ${ratios.join(' | ')} |`);
  say('');
}

// ---------------------------------------------------------------------------------------------

const redis = await startRedis();
const lines = [];
const say = (line) => {
  lines.push(line);
  console.log(line);
};

try {
  say(
    `Node ${process.version}, ${cpus().length} cores, ${RUNS} runs, medians; Redis from Debian's redis-server.`,
  );
  say('');
  if (ONLY.includes('clients')) await clientsScenario();
  if (ONLY.includes('log')) await logScenario();
} finally {
  await redis.stop();
}

if (OUT !== '-') {
  const text = readFileSync(OUT, 'utf8');
  const start = '<!-- bench:redis -->';
  const end = '<!-- /bench:redis -->';
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a === -1 || b === -1) throw new Error(`${OUT} has no ${start} … ${end} block`);
  writeFileSync(OUT, `${text.slice(0, a + start.length)}\n${lines.join('\n')}\n${text.slice(b)}`);
  console.log(`written to ${OUT}`);
}
