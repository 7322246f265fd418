// A real redis-server for tests and benchmarks (Debian's `redis-server` package): started on a
// free loopback port with its own temporary directory, stopped (and the directory removed) by
// `stop()`. No server outlives its test run, even a killed one: redis-server runs under a small
// shell that kills it when its stdin (a pipe from this process) closes, which the kernel does
// however this process ends.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HOST = '127.0.0.1';

// The watchdog: redis-server in the background (stdin from /dev/null), its pid on stdout, then
// one `read` of stdin; end of stdin kills and reaps the server.
const WATCHDOG =
  'redis-server "$@" </dev/null & pid=$!; echo "$pid"; read _; kill -9 "$pid" 2>/dev/null; wait "$pid"';

// A process that is gone or a zombie (Linux /proc) has stopped.
function stopped(pid) {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .startsWith('Z');
  } catch {
    return true;
  }
}

// Whether 127.0.0.1:port can be listened on now.
function bindable(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

/**
 * A free TCP port on 127.0.0.1, below the kernel's ephemeral range: a port from that range can
 * be taken at any moment by one of the many loopback client sockets a test run opens, which
 * would keep a killed redis-server from starting again on its port.
 */
export async function freePort() {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    // not Linux: any port from the range below the usual ephemeral one
  }
  const from = Math.max(1024, Math.min(low, 32768) - 12_000);
  for (let i = 0; i < 100; i++) {
    const port = from + Math.floor(Math.random() * 12_000);
    if (port < low && (await bindable(port))) return port;
  }
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
  // Another process may take a free port before redis-server binds it: then try another one.
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    try {
      return await startOn(port, options);
    } catch (error) {
      if (options.port !== undefined || attempt === 5 || !String(error.message).includes('exited at start'))
        throw error;
    }
  }
}

async function startOn(port, options) {
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'agentwire-redis-'));
  const args = ['--port', String(port), '--bind', HOST, '--dir', dir, '--save', '', '--daemonize', 'no'];
  args.push('--appendonly', options.appendonly ? 'yes' : 'no');
  if (options.appendfsync !== undefined) args.push('--appendfsync', options.appendfsync);
  let shell;
  let pid;
  let exited;
  const launch = async () => {
    shell = spawn('sh', ['-c', WATCHDOG, 'sh', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    exited = new Promise((resolve) => shell.once('close', resolve));
    pid = await new Promise((resolve, reject) => {
      let text = '';
      shell.once('error', reject);
      shell.stdout.on('data', (chunk) => {
        text += chunk.toString();
        if (text.includes('\n')) resolve(Number(text.trim()));
      });
      shell.once('close', () => reject(new Error('redis-server did not start')));
    });
    shell.stdout.resume();
    await waitFor(
      async () => {
        if (stopped(pid)) throw new Error('redis-server exited at start (is it installed?)');
        return ping(port);
      },
      'no PONG',
      15_000,
    );
  };
  // Signals the server itself, waits until it has stopped, then lets the watchdog reap it.
  const halt = async (signal) => {
    if (!stopped(pid)) process.kill(pid, signal);
    await waitFor(async () => stopped(pid), 'still running', 15_000);
    shell.stdin.end();
    await exited;
  };
  try {
    await launch();
  } catch (error) {
    shell.stdin.end();
    await exited;
    if (ownDir) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    url: `redis://${HOST}:${port}`,
    dir,
    /** Kills the server (SIGKILL by default: nothing flushed that was not already); SIGTERM shuts it down. */
    kill: (signal = 'SIGKILL') => halt(signal),
    /** Freezes the server (SIGSTOP): its connections stay open, nothing is answered (a Redis that is slow). */
    pause: () => process.kill(pid, 'SIGSTOP'),
    /** Lets a paused server go on (SIGCONT). */
    resume: () => process.kill(pid, 'SIGCONT'),
    /** Starts it again on the same port and directory (the AOF is replayed). */
    restart: async () => {
      // Bounded: the port may be busy for a moment after the kill.
      for (let attempt = 1; ; attempt++) {
        try {
          return await launch();
        } catch (error) {
          shell.stdin.end();
          await exited;
          if (attempt === 10 || !String(error.message).includes('exited at start')) throw error;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    },
    /** Stops the server and removes its directory. */
    stop: async () => {
      await halt('SIGKILL');
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
