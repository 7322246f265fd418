import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

// Shared pieces of the browser suite: Debian's chromium driven by playwright-core (no browser
// is ever downloaded), and `agentwire serve` processes from the built CLI.

/** The repository root (tests run from it). */
export const ROOT = resolve(import.meta.dirname, '../..');
/** The built CLI (`npm test` builds first). */
export const CLI = resolve(ROOT, 'dist/cli.js');

/** Where chromium is: `$CHROMIUM`, else `chromium` on the PATH. Fails loudly when missing. */
export function chromiumPath(): string {
  const fromEnv = process.env.CHROMIUM;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  try {
    const found = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
    if (found !== '') return found;
  } catch {
    // reported below
  }
  throw new Error('chromium is not installed: apt-get install -y chromium (.ci/run does it)');
}

/** Launches headless chromium (root in CI: no sandbox). */
export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      s.close(() => done(port));
    });
  });
}

/** A running `agentwire serve`. */
export interface Served {
  port: number;
  origin: string;
  process: ChildProcess;
  stderr: () => string;
  /** Stops it (SIGTERM) and waits for the exit. */
  stop: () => Promise<void>;
}

/** Starts `agentwire serve ARGS` (or another `command`) and waits until it listens. */
export async function serve(
  args: string[],
  options: { port?: number; stdin?: boolean; env?: Record<string, string>; command?: string[] } = {},
): Promise<Served> {
  const port = options.port ?? (await freePort());
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build');
  const command = options.command ?? ['serve'];
  const child = spawn(process.execPath, [CLI, ...command, '--port', String(port), ...args], {
    cwd: ROOT,
    stdio: [options.stdin ? 'pipe' : 'ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let err = '';
  child.stderr!.setEncoding('utf8');
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`serve did not start: ${err}`)), 15_000);
    child.stderr!.on('data', (d: string) => {
      err += d;
      if (err.includes('viewer at')) {
        clearTimeout(timer);
        done();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`serve exited ${code}: ${err}`));
    });
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    process: child,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        // serve still reading its stdin stays alive until the input ends.
        child.stdin?.end();
        const hard = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(hard);
      }
    },
  };
}

/** Runs `agentwire serve ARGS` expecting it to refuse to start: its exit code and stderr. */
export function serveRefused(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, 'serve', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done({ code, stderr });
    });
  });
}
