import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { codecFor, convert, convertStream } from '../src/all';
import { listFixtures, loadFixture } from '../src/node/fixtures';
import { writeClaudeToolOutputs } from './claude-tool-outputs';

// Issue #24, the CLI against jq: what makes `decode` and `convert` fast and small must not change
// what they print. The CLI reads a file into one reused buffer, writes one piece per input chunk,
// writes to a file straight from the string, and waits for a slow reader (bounded memory).
const CLI = resolve('dist/cli.js');
let dir: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error('build first: npm run build');
  dir = mkdtempSync(join(tmpdir(), 'agentwire-cli-stream-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Every decoder must be done with a chunk when push() returns: the CLI overwrites it with the next.
describe('no decoder keeps the bytes of a chunk after push()', () => {
  const fixtures = listFixtures();
  test.each(fixtures.map((f) => [`${f.format}/${f.name}`, f.format, f.name] as const))(
    '%s: a reused, overwritten chunk buffer gives the same events and bytes back',
    (_label, format, name) => {
      const fixture = loadFixture(format, name);
      const codec = codecFor(format)!;
      const expected = codec.parse(fixture.bytes);
      for (const size of [1, 7, 64, 4096]) {
        const shared = new Uint8Array(size);
        const decoder = codec.createDecoder();
        const events = [];
        for (let at = 0; at < fixture.bytes.length; at += size) {
          const n = Math.min(size, fixture.bytes.length - at);
          shared.set(fixture.bytes.subarray(at, at + n));
          events.push(...decoder.push(shared.subarray(0, n)));
          shared.fill(0x7b); // `{`: stale bytes read later would parse as garbage
        }
        events.push(...decoder.end());
        expect(JSON.stringify(events), `chunks of ${size}`).toBe(JSON.stringify(expected.events));
        expect(codec.stringify(events), `chunks of ${size}`).toBe(codec.stringify(expected.events));
      }
    },
  );
});

test('convertStream({ batch: true }): the same text, one piece per input chunk', async () => {
  const bytes = readFileSync('fixtures/hep/tool-then-text.jsonl');
  const chunks = [bytes.subarray(0, 300), bytes.subarray(300, 301), bytes.subarray(301)];
  const options = { from: 'hep', to: 'codex' } as const;
  const pieces = async (batch: boolean) => {
    const out: string[] = [];
    for await (const text of convertStream(chunks, { ...options, batch })) out.push(text);
    return out;
  };
  const perEvent = await pieces(false);
  const perChunk = await pieces(true);
  expect(perChunk.join('')).toBe(perEvent.join(''));
  expect(perChunk.join('')).toBe(convert(bytes, options).output);
  // At most one piece per chunk, plus the decoder's end and the writer's end.
  expect(perChunk.length).toBeLessThanOrEqual(chunks.length + 2);
  expect(perEvent.length).toBeGreaterThan(perChunk.length);
});

function cli(args: string[], stdout: 'pipe' | number) {
  return spawnSync(process.execPath, [CLI, ...args], {
    stdio: ['ignore', stdout, 'pipe'],
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 1 << 30,
  });
}

// Larger than one read (64 KiB), with text that is not ASCII, so chunks split UTF-8 sequences and
// the write to a file is shorter in characters than in bytes.
function bigHep(): string {
  const text = readFileSync('fixtures/hep/tool-then-text.jsonl', 'utf8');
  const cjk = text.replace(/"delta":"[^"]*"/g, '"delta":"流式解析 ✅ 🚀 テスト"');
  const path = join(dir, 'big.jsonl');
  writeFileSync(path, (text + cjk).repeat(200));
  return path;
}

describe('decode and convert print the same to a pipe and to a file', () => {
  test.each([[['decode']], [['convert', '--to', 'hep']], [['convert', '--to', 'codex']]])('%j', (args) => {
    const input = bigHep();
    const piped = cli([...args, input], 'pipe');
    expect(piped.status).toBe(0);
    const out = join(dir, 'out.txt');
    const fd = openSync(out, 'w');
    const filed = cli([...args, input], fd);
    closeSync(fd);
    expect(filed.status).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(piped.stdout);
    const bytes = readFileSync(input);
    if (args[0] === 'decode') {
      const lines = piped.stdout.trimEnd().split('\n');
      expect(lines.map((l) => JSON.parse(l))).toEqual(
        JSON.parse(JSON.stringify(codecFor('hep')!.parse(bytes).events)),
      );
    } else if (args[2] === 'hep') {
      expect(piped.stdout).toBe(convert(bytes, { from: 'hep', to: 'hep' }).output);
    }
  });
});

// Issue #24: a text past 64 K characters goes to a pipe a piece at a time through one reused
// buffer, written straight to the pipe while it has room and the rest of a piece through Node's
// stream when it is full (src/cli.ts, `pipePieces`). A reader that starts late finds the pipe full
// at once, and every piece after that meets it full again and again.
describe.runIf(process.platform === 'linux')('a long output to a pipe', () => {
  // Twelve long tool outputs, each its own text (an output out of order shows), with multi-byte
  // characters, pairs and a lone surrogate (U+FFFD) across the pieces' ends.
  function longOutputs(): string {
    return writeClaudeToolOutputs(
      join(dir, 'long-outputs-wide.jsonl'),
      12,
      (i) => `${i}:${`é€😀"\n${i}`.repeat(15_000 + i)}\uD800 end`,
    );
  }

  test('a reader that starts late gets every byte, in order', async () => {
    const path = longOutputs();
    const args = ['convert', '--quiet', '--from', 'claude', '--to', 'claude', path];
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pause();
    const parts: Buffer[] = [];
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    await new Promise((r) => setTimeout(r, 500));
    child.stdout.on('data', (c: Buffer) => parts.push(c));
    child.stdout.resume();
    const code = await new Promise((r) => child.once('close', r));
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const expected = Buffer.from(convert(readFileSync(path), { from: 'claude', to: 'claude' }).output);
    expect(expected.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(Buffer.concat(parts).equals(expected)).toBe(true);
  }, 60_000);

  test('a reader that goes away ends the command quietly', () => {
    const path = longOutputs();
    const script = `node ${CLI} decode ${path} | head -c 1000 >/dev/null; echo \${PIPESTATUS[0]}`;
    const bash = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
    expect(bash.stderr).toBe('');
    expect(bash.stdout.trim()).toBe('0');
  });
});

// /proc/<pid>/status: the peak resident set so far (VmHWM), in MiB.
function peakMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? Number.NaN : Number(m[1]) / 1024;
}

describe.runIf(process.platform === 'linux')('a reader that does not read holds the CLI back', () => {
  test('decode into a pipe nobody reads stays small, then finishes when read', async () => {
    // About 48 MB of output: held in memory, it would show in the peak.
    const one = readFileSync('fixtures/hep/tool-then-text.jsonl', 'utf8');
    const path = join(dir, 'stall.jsonl');
    writeFileSync(path, one.repeat(Math.ceil((36 * 1024 * 1024) / one.length)));
    const child = spawn(process.execPath, [CLI, 'decode', path], { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.pause();
    // Until the pipe is full and the CLI is waiting: its peak no longer moves.
    let last = 0;
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const now = peakMiB(child.pid!);
      if (now === last && i > 5) break;
      last = now;
    }
    const stalled = peakMiB(child.pid!);
    let bytes = 0;
    child.stdout.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    child.stdout.resume();
    const code = await new Promise((r) => child.once('close', r));
    expect(code).toBe(0);
    expect(bytes).toBeGreaterThan(40 * 1024 * 1024);
    // The CLI's own size (about 60 MiB, most of it Node) plus what a full pipe holds back, never
    // the output.
    expect(stalled).toBeLessThan(90);
  }, 120_000);
});

// /proc/<pid>/stat: user + system CPU time so far, in clock ticks.
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

describe.runIf(process.platform === 'linux')(
  'a reader of standard error that does not read holds the CLI back',
  () => {
    test('300,000 bad lines: the diagnostics wait for their reader instead of piling up in memory', async () => {
      // Each bad line is a diagnostic of about 120 bytes (36 MB). Node writes standard error to a
      // pipe asynchronously: written without waiting, every one was held (with its write request)
      // in the CLI's memory while the reader was behind; 3 million of them reached 850 MiB.
      const lines = 300_000;
      const path = join(dir, 'stall-err.jsonl');
      writeFileSync(path, 'x\n'.repeat(lines));
      const child = spawn(process.execPath, [CLI, 'decode', '--format', 'hep', path], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      child.stderr.pause();
      // Until the CLI stops working (its CPU time stands still for half a second): waiting for the
      // reader, or (as it was) done with the whole input and holding every diagnostic. Its peak
      // memory grows in steps, so a pause in the peak says nothing.
      let last = -1;
      let still = 0;
      for (let i = 0; i < 600 && still < 5; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const now = cpuTicks(child.pid!);
        still = now === last ? still + 1 : 0;
        last = now;
      }
      const stalled = peakMiB(child.pid!);
      let text = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (c: string) => {
        text += c;
      });
      child.stderr.resume();
      const code = await new Promise((r) => child.once('close', r));
      expect(code).toBe(1);
      const said = text.split('\n').filter((l) => l !== '');
      expect(said.length).toBe(lines);
      expect(said[lines - 1]).toBe(
        `${path}:${lines}:${2 * (lines - 1)}: error invalid_json: line ${lines} (byte ${2 * (lines - 1)}): not valid JSON (Unexpected token 'x', "x" is not valid JSON)`,
      );
      expect(stalled).toBeLessThan(90);
    }, 120_000);
  },
);

test.runIf(existsSync('/proc/self/mem'))('an input whose read fails (EIO) exits 66 and says so', () => {
  // Reading /proc/self/mem at offset 0 fails with EIO: it was exit 70, "internal error".
  const r = spawnSync(process.execPath, [CLI, 'decode', '--format', 'hep', '/proc/self/mem'], {
    encoding: 'utf8',
  });
  expect(r.status).toBe(66);
  expect(r.stderr).toMatch(/^agentwire: \/proc\/self\/mem: cannot read: EIO/m);
});

test('serve --log to a path that cannot be written: exit 74 before anything is served', () => {
  // It served, and failed at the first event with the input's name on the message.
  for (const log of [join(dir, 'no-such-dir', 'x.jsonl'), dir]) {
    const r = spawnSync(
      process.execPath,
      [CLI, 'serve', '--port', '0', '--log', log, 'fixtures/hep/tool-then-text.jsonl'],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(r.status, log).toBe(74);
    expect(r.stderr).toContain(`agentwire: serve: --log ${log}: cannot be written:`);
    expect(r.stderr).not.toMatch(/serving http/);
  }
});

describe.runIf(existsSync('/dev/full'))('an output that cannot be written', () => {
  // /dev/full: every write fails with ENOSPC, as on a full disk. Not a bug in agentwire (it was
  // exit 70, "internal error"), and not a closed reader (EPIPE stays quiet).
  test.each([
    ['decode', 'fixtures/hep/tool-then-text.jsonl'],
    ['convert', '--to', 'hep', 'fixtures/claude/tools.jsonl'],
    ['view', 'fixtures/claude/tools.jsonl'],
  ])('%s to a full device: exit 74 and what failed', (...args) => {
    const out = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [CLI, ...args], {
        stdio: ['ignore', out, 'pipe'],
        encoding: 'utf8',
      });
      expect(r.status).toBe(74);
      expect(r.stderr).toMatch(/^agentwire: cannot write the output: ENOSPC/m);
      expect(r.stderr).not.toMatch(/internal error/);
    } finally {
      closeSync(out);
    }
  });

  test('diagnostics to a full device are given up: the events are all written, the exit code says the errors', () => {
    const err = openSync('/dev/full', 'w');
    try {
      const path = join(dir, 'bad-and-good.jsonl');
      const good = readFileSync('fixtures/hep/tool-then-text.jsonl', 'utf8');
      writeFileSync(path, `${good}x\n`.repeat(200));
      const r = spawnSync(process.execPath, [CLI, 'decode', '--format', 'hep', path], {
        stdio: ['ignore', 'pipe', err],
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(r.status).toBe(1);
      const quiet = spawnSync(process.execPath, [CLI, 'decode', '--format', 'hep', path], {
        stdio: ['ignore', 'pipe', 'ignore'],
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(quiet.stdout.length).toBeGreaterThan(100_000);
      expect(r.stdout).toBe(quiet.stdout);
    } finally {
      closeSync(err);
    }
  });
});

// The CLI's chunks share one buffer: whatever holds a chunk past the next read (the lines read to
// detect the format, `check` reading all of it) must hold a copy.
describe('chunks held past the next read are copies', () => {
  // A first line longer than one read (16 KiB): detection reads several chunks before it decides.
  function longFirstLine(): { path: string; bytes: Buffer } {
    const fixture = loadFixture('claude', 'tools');
    const text = Buffer.from(fixture.bytes).toString('utf8');
    const [first, ...rest] = text.split('\n');
    const init = JSON.parse(first!) as Record<string, unknown>;
    const padded = { ...init, tools: Array.from({ length: 8000 }, (_, i) => `Tool${i}`) };
    const bytes = Buffer.from([JSON.stringify(padded), ...rest].join('\n'));
    const path = join(dir, 'long-first-line.jsonl');
    writeFileSync(path, bytes);
    return { path, bytes };
  }

  test('decode detects the format across several reads and prints what the library reads', () => {
    const { path, bytes } = longFirstLine();
    expect(bytes.indexOf(10)).toBeGreaterThan(3 * 16 * 1024);
    const r = cli(['decode', '--hints', path], 'pipe');
    expect(r.stderr).toBe('');
    const expected = codecFor('claude')!.parse(bytes).events;
    expect(r.stdout).toBe(expected.map((e) => `${JSON.stringify(e)}\n`).join(''));
  });

  test('decode detects the format past comment lines, reports each of them, and decodes the rest', () => {
    const body = readFileSync('fixtures/codex/collab.jsonl', 'utf8');
    const path = join(dir, 'commented.jsonl');
    writeFileSync(path, `# a capture's note\n# scrubbed\n${body}`);
    const r = cli(['decode', path], 'pipe');
    // The two comment lines are bad input (exit 1, one diagnostic each), not a format error.
    expect(r.status).toBe(1);
    expect(r.stderr).not.toMatch(/cannot tell/);
    expect(r.stderr).toMatch(/invalid_json: line 1 \(byte 0\)/);
    expect(r.stderr).toMatch(/invalid_json: line 2 \(byte 19\)/);
    expect(r.stderr.match(/invalid_json/g)?.length).toBe(2);
    const expected = codecFor('codex')!
      .parse(body)
      .events.map(({ provenance: _p, ...e }) => e);
    const got = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.type !== 'unknown')
      .map(({ provenance: _p, ...e }) => e);
    expect(got).toEqual(expected);
  });

  test('check reads a file of many reads whole', () => {
    const { path } = longFirstLine();
    const r = cli(['check', path], 'pipe');
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/invalid_json|cannot tell/);
  });
});
