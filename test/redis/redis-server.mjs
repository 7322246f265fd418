// A real redis-server for tests and benchmarks (Debian's `redis-server` package): started on a
// free loopback port with its own temporary directory, stopped (and the directory removed) by
// `stop()`, and killed when this process exits, so no server outlives its test run.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HOST = '127.0.0.1';
const live = new Set();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** A free TCP port on 127.0.0.1 (the kernel's choice). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// One PING over a raw socket: true when the server answers +PONG (a loading AOF answers -LOADING).
function ping(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: HOST, port });
    let text = '';
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n')) done(text.startsWith('+PONG'));
    });
  });
}

async function waitFor(check, what, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; Date.now() < deadline; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, Math.min(5 * 2 ** i, 100)));
  }
  throw new Error(`redis-server: ${what} within ${timeoutMs} ms`);
}

/**
 * Starts redis-server. Options: `appendonly` (default false), `appendfsync` (`always` makes
 * every acknowledged write survive a SIGKILL), `port` (default: a free one), `dir` (default: a
 * new temporary directory, removed by `stop()`).
 */
export async function startRedis(options = {}) {
  const port = options.port ?? (await freePort());
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'agentwire-redis-'));
  const args = ['--port', String(port), '--bind', HOST, '--dir', dir, '--save', '', '--daemonize', 'no'];
  args.push('--appendonly', options.appendonly ? 'yes' : 'no');
  if (options.appendfsync !== undefined) args.push('--appendfsync', options.appendfsync);
  let child;
  let exited;
  const launch = async () => {
    child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'inherit'] });
    live.add(child);
    exited = new Promise((resolve) => {
      child.once('exit', () => {
        live.delete(child);
        resolve();
      });
      child.once('error', (error) => {
        live.delete(child);
        resolve();
        child.spawnError = error;
      });
    });
    await waitFor(
      async () => {
        if (child.spawnError !== undefined) throw child.spawnError;
        if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
        return ping(port);
      },
      'no PONG',
      15_000,
    );
  };
  const halt = async (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  await launch();
  return {
    port,
    url: `redis://${HOST}:${port}`,
    dir,
    /** Kills the server (SIGKILL by default: nothing flushed that was not already). */
    kill: (signal = 'SIGKILL') => halt(signal),
    /** Starts it again on the same port and directory (the AOF is replayed). */
    restart: () => launch(),
    /** Stops the server and removes its directory. */
    stop: async () => {
      await halt('SIGKILL');
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
