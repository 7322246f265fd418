import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AgentEvent, codecFor, codecs, connect, type Format, hep } from '../src/all';
import { listFixtures } from '../src/node/fixtures';
import { writeClaudeToolOutputs } from './claude-tool-outputs';
import { waitFor } from './wait';

// The CLI, run as a user runs it: the built binary, real pipes, files and exit codes.
const CLI = resolve('dist/cli.js');
let dir: string;

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'ignore' });
  dir = mkdtempSync(join(tmpdir(), 'agentwire-cli-'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], input?: string | Buffer) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    input,
    encoding: 'utf8',
    timeout: 20_000,
    maxBuffer: 1 << 30,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('agentwire CLI', () => {
  // Issue #24: a convert's large-object budget is half a decode's (src/heap-budget.ts,
  // largeObjectBudget): Claude → nativeharness, whose reader and writer both make a large string
  // per long tool output, collects twice as often as the one-codec budget let it (7 full GCs on
  // this file with it), so its peak at 1 GiB is 1–2 MiB lower (docs/performance.md, round
  // forty-eight: not yet a margin under 64 MiB in every run). The CLI's own full GCs are the
  // ones `--trace-gc` calls "testing".
  test('convert collects large objects on its own, smaller budget', () => {
    const file = writeClaudeToolOutputs(join(dir, 'long-outputs.jsonl'), 40, (i) =>
      'x'.repeat(300 * 1024 + i),
    );
    const r = spawnSync(
      process.execPath,
      ['--trace-gc', CLI, 'convert', '--quiet', '--from', 'claude', '--to', 'nativeharness', file],
      { encoding: 'utf8', timeout: 20_000, maxBuffer: 1 << 30 },
    );
    expect(r.status).toBe(0);
    expect(r.stdout.match(/Mark-Compact[^\n]*?testing/g)?.length ?? 0).toBeGreaterThanOrEqual(10);
  });

  // Issue #24: a text past 64 K characters goes to a file through one reused buffer
  // (src/write-pieces.ts), every text to a pipe through the pipe's own, the rest of a piece
  // through Node's stream when the pipe is full: the same bytes, multi-byte characters and a lone
  // surrogate's U+FFFD across the pieces' ends included (against the library's bytes: the late
  // reader in test/cli-stream.test.ts).
  test('a long output written to a file is the bytes written to a pipe', () => {
    const file = writeClaudeToolOutputs(
      join(dir, 'long-wide.jsonl'),
      1,
      () => `${'é€😀"\n'.repeat(40_000)}\uD800 end`,
    );
    const args = [CLI, 'convert', '--quiet', '--from', 'claude', '--to', 'claude', file];
    const out = join(dir, 'long-wide.out');
    const fd = openSync(out, 'w');
    try {
      expect(
        spawnSync(process.execPath, args, { stdio: ['ignore', fd, 'pipe'], timeout: 20_000 }).status,
      ).toBe(0);
    } finally {
      closeSync(fd);
    }
    const piped = spawnSync(process.execPath, args, { timeout: 20_000, maxBuffer: 1 << 30 });
    expect(piped.status).toBe(0);
    expect(piped.stdout.length).toBeGreaterThan(3 * 65536);
    expect(readFileSync(out).equals(piped.stdout)).toBe(true);
  });

  test('--version and --help', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(run(['--version'])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    const help = run(['--help']);
    expect(help.code).toBe(0);
    for (const cmd of ['decode', 'convert', 'view', 'serve', 'check'])
      expect(help.stdout).toContain(`agentwire ${cmd}`);
  });

  test("--max-line-bytes help states each format's own default", () => {
    const help = run(['decode', '--help']).stdout;
    const m = /--max-line-bytes N .*\(default: 16777216 for ([a-z, -]+); 1048576 for the others\)/.exec(help);
    expect(m).not.toBeNull();
    const large = new Set(m![1]!.split(', '));
    // One JSON Lines line just over 1 MiB: too long exactly for the formats whose default is 1 MiB.
    const line = `{"x":"${'x'.repeat(1024 * 1024)}"}\n`;
    for (const format of Object.keys(codecs) as Format[]) {
      const { diagnostics } = codecFor(format)!.parse(line);
      expect(
        diagnostics.some((d) => d.code === 'line_too_long'),
        format,
      ).toBe(!large.has(format));
    }
  });

  test('bad arguments: a one-line error and exit 64', () => {
    for (const args of [
      ['frob'],
      ['convert', 'x.jsonl'],
      ['convert', '--to', 'nope', 'x'],
      ['check', '--bogus'],
      ['decode', 'a', 'b'],
      [],
    ]) {
      const r = run(args);
      expect(r.code, args.join(' ')).toBe(64);
      if (args.length > 0) expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  test('decode a file: one canonical event per line', () => {
    const r = run(['decode', 'fixtures/hep/single-round.jsonl']);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AgentEvent);
    expect(events).toEqual(hep.parse(readFileSync('fixtures/hep/single-round.jsonl')).events);
  });

  // The writer's private facts (for most agent formats the whole input line) are left out unless
  // asked for; everything else is the library's event, key for key, for every fixture.
  test('decode prints the events without provenance.hints, and with them under --hints', () => {
    let withHints = 0;
    for (const { format, name, path } of listFixtures()) {
      const bytes = readFileSync(path);
      const events = codecFor(format)!.parse(bytes).events;
      const full = events.map((e) => `${JSON.stringify(e)}\n`).join('');
      const args = ['decode', '--format', format, '--lenient'];
      expect(run([...args, '--hints', path]).stdout, `${format}/${name}`).toBe(full);
      const lean = events
        .map((e) => {
          if (e.provenance?.hints === undefined) return `${JSON.stringify(e)}\n`;
          withHints++;
          const { hints: _, ...provenance } = e.provenance;
          return `${JSON.stringify({ ...e, provenance })}\n`;
        })
        .join('');
      const printed = run([...args, path]).stdout;
      expect(printed, `${format}/${name}`).toBe(lean);
      expect(printed).not.toContain('"hints":');
    }
    // The test means something: most agent formats leave hints.
    expect(withHints).toBeGreaterThan(100);
  }, 600_000);

  // Round ten's CLI findings, each as a user meets it.
  test('check: a run without its terminal record is a warning, and fails --strict', () => {
    const path = join(dir, 'no-result.jsonl');
    writeFileSync(path, readFileSync('fixtures/claude/tools.jsonl', 'utf8').split('\n')[0]!.concat('\n'));
    const r = run(['check', path]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'warning order: line 1 (byte 0): the run ends without its result record: it is incomplete',
    );
    expect(run(['check', '--strict', path]).code).toBe(1);
  });

  test('check: an empty stream is a warning, with or without --format, and fails --strict', () => {
    const empty = 'warning order: line 1 (byte 0): the stream has no records, so no run started or ended';
    for (const args of [
      ['check', '-'],
      ['check', '--format', 'claude', '-'],
      ['check', '--format', 'ag-ui', '-'],
    ]) {
      for (const input of ['', '\n\n']) {
        const r = run(args, input);
        expect(r.code, `${args.join(' ')} of ${JSON.stringify(input)}`).toBe(0);
        expect(r.stdout).toContain(empty);
        expect(r.stderr).toContain('1 warning(s)');
        expect(run([...args.slice(0, -1), '--strict', '-'], input).code).toBe(1);
      }
    }
  });

  test('diagnostics never print the control characters of the input raw', () => {
    const lines = readFileSync('fixtures/hep/single-round.jsonl', 'utf8').split('\n');
    lines.splice(2, 0, 'x\u001b]0;pwned\u0007\u001b[2J');
    const path = join(dir, 'escapes.jsonl');
    writeFileSync(path, lines.join('\n'));
    for (const args of [['check'], ['decode'], ['convert', '--to', 'claude'], ['view']]) {
      const r = run([...args, path]);
      expect(r.code, args[0]).toBe(1);
      expect(r.stdout + r.stderr, args[0]).not.toMatch(/[\u001b\u0007]/);
      expect(r.stdout + r.stderr, args[0]).toContain('\\x1b]0;pwned\\x07');
    }
  });

  test('an input of only a BOM is empty; one that cannot be told is an error at its line', () => {
    const bom = join(dir, 'bom.txt');
    writeFileSync(bom, Buffer.from([0xef, 0xbb, 0xbf, 10]));
    expect(run(['check', bom])).toMatchObject({ code: 0 });
    expect(run(['convert', '--to', 'nativeharness', '--framing', 'json', bom])).toMatchObject({
      code: 0,
      stdout: '[]\n',
    });
    const bad = join(dir, 'undetectable.txt');
    writeFileSync(bad, '\n\n  {oops\n');
    const r = run(['check', '--json', bad]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ code: 'invalid_record', line: 3, offset: 2 });
  });

  test('SSE with CR line ends is detected as the protocol it is', () => {
    for (const [fixture, format] of [
      ['fixtures/ag-ui/tool-call.sse', 'ag-ui'],
      ['fixtures/ai-sdk/chat.sse', 'ai-sdk'],
    ] as const) {
      const path = join(dir, `cr-${format}.sse`);
      writeFileSync(path, readFileSync(fixture, 'utf8').replace(/\n/g, '\r'));
      const r = run(['check', path]);
      expect(r.stdout, format).toBe('');
      expect(r.code, format).toBe(0);
      expect(run(['decode', path]).stdout).toContain(`"format":"${format}"`);
    }
  });

  // Opening a FIFO to see that it exists waited for its writer, then closed it on the writer
  // (SIGPIPE), and the follower hung past Ctrl-C.
  test('view --follow refuses a FIFO at once (exit 66), without opening it', () => {
    const fifo = join(dir, 'follow.fifo');
    execFileSync('mkfifo', [fifo]);
    const r = run(['view', '--follow', fifo]);
    expect(r.code).toBe(66);
    expect(r.stderr).toContain('--follow follows a regular file');
  });

  test('an option value that starts with "-" is explained', () => {
    const r = run(['convert', '--to', '-q', 'x']);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('option --to needs a value');
  });

  test('a closed pipe ends the command quietly, with the exit code of what it saw', () => {
    const path = join(dir, 'bad-lines.jsonl');
    writeFileSync(path, Array.from({ length: 50_000 }, (_, i) => `not json ${i}`).join('\n'));
    const script = `node ${CLI} check --format hep ${path} | head -1 >/dev/null; echo \${PIPESTATUS[0]}`;
    const bash = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
    expect(bash.stderr).toBe('');
    expect(bash.stdout.trim()).toBe('1');
  });

  test('convert from stdin through a pipe, format detected', () => {
    const input = readFileSync('fixtures/highbar/contract-examples.jsonl');
    const r = run(['convert', '--to', 'hep', '-'], input);
    expect(r.code).toBe(0);
    // The examples end without a turn record: the run is incomplete, and HEP's last round stays
    // without its terminal frame (never an invented turn_done), which hep.check names.
    expect(hep.check(r.stdout).map((d) => d.message)).toEqual([
      expect.stringMatching(/has no terminal frame/),
    ]);
    expect(r.stderr).toContain('hep has no place for');
  });

  test('convert to the same format is the identity, byte for byte', () => {
    for (const f of [
      'fixtures/hep/full-args.jsonl',
      'fixtures/highbar/reference-emitter.jsonl',
      'fixtures/nativeharness/live-turn.sse',
    ]) {
      expect(
        run([
          'convert',
          '--to',
          f.includes('/hep/') ? 'hep' : f.includes('highbar') ? 'highbar' : 'nativeharness',
          f,
        ]).stdout,
      ).toBe(readFileSync(f, 'utf8'));
    }
  });

  test('check: exit 0 clean, 1 with violations; --json for machines', () => {
    expect(run(['check', 'fixtures/hep/tool-then-text.jsonl']).code).toBe(0);
    const bad = `${readFileSync('fixtures/hep/single-round.jsonl', 'utf8')}{"type":"agent_start","turn_id":2}\n`;
    const human = run(['check', '-'], bad);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('agent_start repeated');
    const json = run(['check', '--json', '--format', 'hep', '-'], bad);
    expect(json.code).toBe(1);
    const findings = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(findings.map((d: { code: string }) => d.code)).toContain('order');
  });

  test('check works for every format, detected from the content', () => {
    expect(run(['check', 'fixtures/nativeharness/approvals.sse']).code).toBe(0);
    expect(run(['check', 'fixtures/highbar/contract-examples.jsonl']).code).toBe(0);
    const log = readFileSync('fixtures/nativeharness/error.jsonl', 'utf8').split('\n');
    const swapped = [log[1], log[0], ...log.slice(2)].join('\n'); // turn_started before session_created
    const r = run(['check', '--json', '-'], swapped);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('does not start with session_created');
  });

  test('view: a timeline, with control sequences neutralised and no colour off a TTY', () => {
    const evil =
      '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}\n{"type":"message_delta","turn_id":1,"delta":"\\u001b]0;pwned\\u0007hi"}\n';
    const r = run(['view', '-'], evil);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('\\x1b]0;pwned\\x07hi');
    expect(r.stdout).not.toContain('\u001b');
  });

  test('a broken pipe ends quietly: exit 0, nothing on stderr', async () => {
    const file = join(dir, 'big.jsonl');
    writeFileSync(file, readFileSync('fixtures/hep/full-args.jsonl', 'utf8').repeat(500));
    const child = spawn(process.execPath, [CLI, 'decode', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    await new Promise<void>((r) => child.stdout.once('data', () => r()));
    child.stdout.destroy(); // the reader goes away, like `| head -c 10`
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(0);
    expect(err).toBe('');
  });

  // A named regular file and standard input redirected from one are read with readSync, a FIFO
  // (opened O_NONBLOCK) and a pipe as sockets in the event loop: the same bytes out of each, past
  // several of the file reader's turns of the event loop (one per MiB) and its 16 KiB chunks.
  test('a file, stdin from a file, a pipe and a FIFO give the same output', async () => {
    const file = join(dir, 'paths.jsonl');
    writeFileSync(file, readFileSync('fixtures/hep/tool-then-text.jsonl', 'utf8').repeat(2500));
    expect(readFileSync(file).length).toBeGreaterThan(3 * 1024 * 1024);
    const args = ['decode', '--format', 'hep'];
    const named = run([...args, file]);
    expect(named.code).toBe(0);
    expect(named.stdout.split('\n').length).toBeGreaterThan(30_000);
    const fd = openSync(file, 'r');
    let redirected: ReturnType<typeof spawnSync>;
    try {
      redirected = spawnSync(process.execPath, [CLI, ...args, '-'], {
        stdio: [fd, 'pipe', 'pipe'],
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      });
    } finally {
      closeSync(fd);
    }
    const piped = run([...args, '-'], readFileSync(file));
    const fifo = join(dir, 'paths.fifo');
    execFileSync('mkfifo', [fifo]);
    const child = spawn(process.execPath, [CLI, ...args, fifo], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    const writer = spawn('sh', ['-c', 'cat "$1" > "$2"', 'sh', file, fifo], { stdio: 'ignore' });
    const [code] = await Promise.all([
      new Promise<number | null>((r) => child.once('close', (c) => r(c))),
      new Promise((r) => writer.once('close', r)),
    ]);
    for (const other of [
      { code: redirected.status, stdout: redirected.stdout, stderr: redirected.stderr },
      piped,
      { code, stdout: out, stderr: err },
    ]) {
      expect(other.code).toBe(named.code);
      expect(other.stderr).toBe(named.stderr);
      expect(other.stdout === named.stdout).toBe(true);
    }
  }, 60_000);

  test('view --follow follows a growing file like tail -f', async () => {
    const file = join(dir, 'follow.jsonl');
    writeFileSync(file, '{"type":"hep_header","hep":"v1","fah":"1","session":"follow-me"}\n');
    const child = spawn(process.execPath, [CLI, 'view', '--follow', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    await waitFor(() => out.includes('follow-me'));
    writeFileSync(
      file,
      '{"type":"hep_header","hep":"v1","fah":"1","session":"follow-me"}\n{"type":"message_delta","turn_id":1,"delta":"later"}\n',
    );
    await waitFor(() => out.includes('later'));
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
  });
});

describe('agentwire serve', () => {
  let server: ChildProcess | undefined;
  afterAll(() => server?.kill('SIGTERM'));

  test('serves a converted stream as SSE that connect() reads whole, with Last-Event-ID resume', async () => {
    const log = join(dir, 'served.jsonl');
    server = spawn(
      process.execPath,
      [CLI, 'serve', '--port', '0', '--log', log, 'fixtures/hep/tool-then-text.jsonl'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    server.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
    });
    await waitFor(() => err.includes('input ended'));
    const url = /(http:\/\/127\.0\.0\.1:\d+\/\S+\/stream)/.exec(err)![1]!;
    const all: AgentEvent[] = [];
    for await (const e of connect(url)) all.push(e);
    expect(all.length).toBeGreaterThan(10);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    // persisted before emitted: the log file holds every event the client saw
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(all.length);
    const resumed: AgentEvent[] = [];
    for await (const e of connect(url, { lastEventId: '5' })) resumed.push(e);
    expect(resumed.map((e) => e.seq)).toEqual(all.slice(5).map((e) => e.seq));
  });

  test('serve -- command: serves what a command prints', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--port', '0', '--session', 'cmd', '--', 'cat', 'fixtures/hep/single-round.jsonl'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    try {
      await waitFor(() => err.includes('input ended'));
      const url = /(http:\/\/127\.0\.0\.1:\d+\/\S+\/stream)/.exec(err)![1]!;
      const events: AgentEvent[] = [];
      for await (const e of connect(url)) events.push(e);
      expect(events.map((e) => e.type)).toContain('text.delta');
      expect(events.every((e) => e.session === 'cmd')).toBe(true);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
