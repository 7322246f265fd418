import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  constants,
  existsSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AgentEvent, connect } from '../src/all';
import { waitFor } from './wait';

// The command line at its edges, as a careless user or a supervisor meets it: options given
// oddly, inputs that are not files, signals while the input is still open.
const CLI = resolve('dist/cli.js');
const HEP = 'fixtures/hep/single-round.jsonl';
const HEADER = '{"type":"hep_header","hep":"v1","fah":"1","session":"edges"}\n';
let dir: string;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error('build first: npm run build');
  dir = mkdtempSync(join(tmpdir(), 'agentwire-cli-edges-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], options: { input?: string; stdin?: number } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(options.stdin === undefined ? {} : { stdio: [options.stdin, 'pipe', 'pipe'] }),
    encoding: 'utf8',
    // A refused option ends at once; one wrongly taken starts a server that would run for ever.
    timeout: 8_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function start(args: string[]): { child: ChildProcess; err: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  return { child, err: () => err };
}

function exited(child: ChildProcess, ms: number): Promise<number | null | 'still running'> {
  return new Promise((done) => {
    const timer = setTimeout(() => done('still running'), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done(code);
    });
  });
}

describe('serve ends on a signal, whatever its input is doing', () => {
  // A supervisor (docker stop, systemd) sends SIGTERM to serve alone: the writer of its input
  // goes on. serve used to stop serving but stay alive until that input ended.
  test.each([['SIGTERM'], ['SIGINT']] as const)('%s while standard input is still open', async (signal) => {
    const { child, err } = start(['serve', '--port', '0', '-']);
    try {
      child.stdin!.write(HEADER);
      await waitFor(() => err().includes('viewer at'));
      child.kill(signal);
      expect(await exited(child, 5_000)).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('SIGTERM while a command that ignores SIGTERM still runs', async () => {
    // The bad line is printed once SIGTERM is ignored: its diagnostic says the command is ready.
    const script = `process.on('SIGTERM', () => {}); process.stdout.write(${JSON.stringify(`${HEADER}not json\n`)}); setTimeout(() => {}, 60000)`;
    const { child, err } = start(['serve', '--port', '0', '--', process.execPath, '-e', script]);
    try {
      await waitFor(() => err().includes('invalid_json'));
      child.kill('SIGTERM');
      expect(await exited(child, 5_000)).toBe(1);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

// A FIFO named as the file was opened, then read, on a thread-pool thread that blocks until a
// writer comes (and then until it writes): Node joins that thread before it exits, so serve and
// otel waited on a signal for the writer; with no writer yet, serve had not even started and the
// signal killed it (status 143, not the command's exit code).
describe('serve and otel end on a signal while a FIFO they read says nothing', () => {
  const commands = [
    ['serve', ['serve', '--port', '0'], 'viewer at'],
    ['otel', ['otel', '--format', 'hep', '--endpoint', 'http://127.0.0.1:9'], 'Ctrl-C flushes'],
  ] as const;
  test.each(
    commands.flatMap(([name, args, ready]) =>
      (['no writer', 'a silent writer'] as const).map((writer) => [name, writer, args, ready] as const),
    ),
  )('%s, %s: SIGTERM ends it with exit 0', async (_name, writer, args, ready) => {
    const fifo = join(dir, `signal-${args[0]}-${writer.length}.fifo`);
    execFileSync('mkfifo', [fifo]);
    const { child, err } = start([...args, fifo]);
    let writerFd: number | undefined;
    try {
      await waitFor(() => err().includes(ready), 8_000);
      // Opened without blocking the test: it succeeds only once the command holds the read end.
      if (writer === 'a silent writer') writerFd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      child.kill('SIGTERM');
      expect(await exited(child, 5_000)).toBe(0);
    } finally {
      child.kill('SIGKILL');
      if (writerFd !== undefined) closeSync(writerFd);
    }
  });
});

describe('numbers are whole numbers written in digits', () => {
  // Number() took '' as 0 (`--port "$PORT"` with PORT unset: any free port), '0x10' as 16,
  // ' 80' as 80, '1e3' as 1000 and '1.0' as 1.
  test.each([[''], [' 80'], ['0x10'], ['1e3'], ['1.0'], ['+80']])('serve --port %j: exit 64', (port) => {
    const r = run(['serve', '--port', port, HEP]);
    expect(r.code).toBe(64);
    expect(r.stderr).toBe('agentwire: serve: --port takes 0 to 65535 (see agentwire --help)\n');
  });

  test.each([['0x10'], ['1e3'], [' 5']])('serve --retain %j: exit 64', (retain) => {
    const r = run(['serve', '--port', '0', '--retain', retain, HEP]);
    expect(r.code).toBe(64);
    expect(r.stderr).toBe('agentwire: serve: --retain takes a positive integer (see agentwire --help)\n');
  });
});

// The URL it printed (`/workspaces//sessions/live/stream`) answered 404.
test.each([['--workspace'], ['--session']])('serve %s "": exit 64, not a URL that answers 404', (option) => {
  const r = run(['serve', '--port', '0', option, '', HEP]);
  expect(r.code).toBe(64);
  expect(r.stderr).toBe(`agentwire: serve: ${option} takes a non-empty id (see agentwire --help)\n`);
});

describe('inputs that are not a stream', () => {
  test('standard input that is a directory: exit 66, not an empty stream', () => {
    const fd = openSync(dir, 'r');
    try {
      for (const command of [['decode'], ['check'], ['convert', '--to', 'hep']]) {
        const r = run([...command, '-'], { stdin: fd });
        expect(r.code, command.join(' ')).toBe(66);
        expect(r.stderr).toBe('agentwire: <stdin>: is a directory, not a stream\n');
      }
    } finally {
      closeSync(fd);
    }
  });

  // What view --follow refused with exit 66, otel --follow took: a directory as an internal error
  // (exit 70), a FIFO by waiting silently for ever.
  test('otel --follow refuses a directory and a FIFO as view --follow does', () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    for (const [target, message] of [
      [dir, `agentwire: ${dir}: is a directory, not a stream\n`],
      [fifo, `agentwire: ${fifo}: --follow follows a regular file; read a FIFO or a device without it\n`],
    ] as const) {
      for (const command of [['view'], ['otel', '--endpoint', 'http://127.0.0.1:9']]) {
        const r = run([...command, '--follow', target]);
        expect(r.code, `${command[0]} ${target}`).toBe(66);
        expect(r.stderr).toBe(message);
      }
    }
    expect(run(['otel', '--follow']).stderr).toBe(
      'agentwire: otel: --follow needs a file (see agentwire --help)\n',
    );
  });
});

describe('options that contradict or do nothing are usage errors', () => {
  test('convert --from and --format naming different formats', () => {
    const r = run(['convert', '--to', 'hep', '--from', 'hep', '--format', 'bogus', HEP]);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('--from "hep" and --format "bogus"');
    expect(run(['convert', '--to', 'hep', '--from', 'hep', '--format', 'hep', HEP]).code).toBe(0);
    // The option named in the message is the one given.
    expect(run(['convert', '--to', 'hep', '--from=', HEP]).stderr).toMatch(
      /^agentwire: --from: unknown format ""/,
    );
  });

  test('view --port without --web; otel --follow with a command', () => {
    const view = run(['view', '--port', '5000', HEP]);
    expect(view.code).toBe(64);
    expect(view.stdout).toBe('');
    expect(view.stderr).toBe('agentwire: view: --port is for --web (see agentwire --help)\n');
    const otel = run(['otel', '--endpoint', 'http://127.0.0.1:9', '--follow', '--', 'cat', HEP]);
    expect(otel.code).toBe(64);
    expect(otel.stderr).toBe(
      'agentwire: otel: --follow follows a file, not a command (see agentwire --help)\n',
    );
  });

  // Only a request whose Origin is exactly the value gets CORS headers: '*' or a URL with a path
  // (a trailing slash) never matched, and the browser was refused with nothing said.
  test.each([['*'], ['http://localhost:3000/'], ['localhost:3000'], ['http://localhost:3000/app']])(
    'serve --cors %j: exit 64',
    (cors) => {
      const r = run(['serve', '--port', '0', '--cors', cors, HEP]);
      expect(r.code).toBe(64);
      expect(r.stderr).toContain('--cors takes one origin');
    },
  );
});

test('view --web --follow serves what is appended to the file, as view --follow prints it', async () => {
  const file = join(dir, 'web-follow.jsonl');
  writeFileSync(file, HEADER);
  const { child, err } = start(['view', '--web', '--follow', '--port', '0', file]);
  const controller = new AbortController();
  try {
    await waitFor(() => err().includes('viewer at'));
    const url = /(http:\/\/127\.0\.0\.1:\d+\/\S+\/stream)/.exec(err())![1]!;
    const events: AgentEvent[] = [];
    const reading = (async () => {
      for await (const e of connect(url, { signal: controller.signal })) events.push(e);
    })();
    await waitFor(() => events.some((e) => e.type === 'session.start'));
    appendFileSync(
      file,
      '{"type":"agent_start","turn_id":1}\n{"type":"message_start","turn_id":1,"role":"assistant"}\n{"type":"message_delta","turn_id":1,"delta":"appended later"}\n',
    );
    await waitFor(() => events.some((e) => e.type === 'text.delta' && e.text === 'appended later'));
    expect(err()).not.toContain('the session is complete');
    controller.abort();
    await reading;
    child.kill('SIGINT');
    expect(await exited(child, 5_000)).toBe(0);
  } finally {
    controller.abort();
    child.kill('SIGKILL');
  }
});

// useChat and AG-UI's HttpAgent POST JSON to …/stream: a cross-origin page first asks (a
// preflight) for POST with Content-Type, which serve --cors answered with GET and HEAD only.
test.each([['ai-sdk'], ['ag-ui']])(
  'serve --as %s --cors: the preflight allows the POST its client sends',
  async (as) => {
    const origin = 'http://localhost:3000';
    const { child, err } = start(['serve', '--port', '0', '--as', as, '--cors', origin, '--quiet', HEP]);
    try {
      await waitFor(() => err().includes('serving'));
      const url = /(http:\/\/127\.0\.0\.1:\d+\/\S+\/stream)/.exec(err())![1]!;
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
      const methods = preflight.headers.get('access-control-allow-methods')!.split(/,\s*/);
      expect(methods).toContain('POST');
      const headers = preflight.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/);
      expect(headers).toContain('content-type');
      const posted = await fetch(url, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(posted.status).toBe(200);
      expect(posted.headers.get('access-control-allow-origin')).toBe(origin);
      await posted.body?.cancel();
    } finally {
      child.kill('SIGKILL');
    }
  },
);
