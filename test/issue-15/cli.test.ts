import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { codecs } from '../../src/formats';
import { waitFor } from '../wait';

// Issue #15 items 1–6: the command line as a script sees it — exit codes by one rule for every
// command, per-command help and options, loss summaries, serve on bad input, view --follow.
const CLI = resolve('dist/cli.js');
let dir: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error('build first: npm run build');
  dir = mkdtempSync(join(tmpdir(), 'agentwire-cli15-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const HEP = 'fixtures/hep/tool-then-text.jsonl';
const bad = `${readFileSync(HEP, 'utf8')}not json\n`;

describe('item 2: exit status tells a script the input had errors, the same way for every command', () => {
  test.each([['decode'], ['view'], ['convert', '--to', 'nativeharness']])(
    '%s: 1 on error diagnostics, 0 with --lenient',
    (...args) => {
      expect(run([...args, '-'], 'hello world\n').code).toBe(1);
      expect(run([...args, '-'], bad).code).toBe(1);
      expect(run([...args, '--lenient', '-'], bad).code).toBe(0);
      expect(run([...args, HEP]).code).toBe(0);
    },
  );

  test('66 for a file that cannot be opened, a directory included, on every command', () => {
    for (const cmd of [['decode'], ['view'], ['check'], ['convert', '--to', 'hep']]) {
      for (const target of [join(dir, 'nosuch.jsonl'), dir]) {
        const r = run([...cmd, target]);
        expect(r.code, `${cmd.join(' ')} ${target}`).toBe(66);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
      }
    }
  });

  test('--help lists every exit code used', () => {
    const help = run(['--help']).stdout;
    for (const code of [0, 1, 64, 66, 69, 70]) expect(help).toMatch(new RegExp(`^  ${code}\\s`, 'm'));
  });
});

test('item 3: check fails on errors; warnings are shown and fail only with --strict', () => {
  for (const f of ['fixtures/highbar/failed-as-data.jsonl', 'fixtures/highbar/unknown-types.jsonl']) {
    const r = run(['check', f]);
    expect(r.code, f).toBe(0);
    expect(r.stdout, f).toContain('warning order');
    expect(r.stderr).toContain('warnings fail with --strict');
    expect(run(['check', '--strict', f]).code, f).toBe(1);
  }
  expect(run(['check', '-'], bad).code).toBe(1);
  expect(run(['check', '--strict', HEP]).code).toBe(0);
});

describe('item 4: loss reports summarised', () => {
  const fx = 'fixtures/nativeharness/approvals.sse';
  test('one line per lost field with a count; --quiet hides it; --json lists every report', () => {
    const r = run(['convert', '--to', 'hep', fx]);
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^agentwire: hep has no place for \d+ field\(s\)/);
    const fields = lines.slice(1).map((l) => l.trim().split(/\s+/)[0]);
    expect(new Set(fields).size).toBe(fields.length); // one line per field
    expect(r.stderr).toMatch(/^ {2}seq\s+\d+ event types \(session\.start, /m);
    expect(lines.length).toBeLessThan(20);
    expect(run(['convert', '--to', 'hep', '--quiet', fx]).stderr).toBe('');
    const json = run(['convert', '--to', 'hep', '--json', fx]).stderr.trim().split('\n');
    expect(json.length).toBeGreaterThan(lines.length);
    expect(json.every((l) => (JSON.parse(l) as { code: string }).code === 'loss')).toBe(true);
  });
});

describe('item 5: per-command help, usage, options', () => {
  test('per-subcommand --help', () => {
    for (const cmd of ['decode', 'convert', 'view', 'check', 'serve']) {
      const r = run([cmd, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout.split('\n')[0]).toMatch(new RegExp(`^agentwire ${cmd} `));
      expect(run(['help', cmd]).stdout).toBe(r.stdout);
    }
    expect(run(['decode', '--help']).stdout).not.toContain('--follow');
  });

  test('no arguments: usage on stderr, nothing on stdout, exit 64', () => {
    const r = run([]);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('agentwire decode');
  });

  test('an option of another command is an error naming it, with balanced quotes', () => {
    const r = run(['decode', '--follow', HEP]);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('decode: unknown option --follow (an option of view, otel)');
    for (const args of [
      ['decode', '--bogus'],
      ['check', '--to', 'hep'],
      ['view', '--format'],
    ]) {
      const e = run(args);
      expect(e.code, args.join(' ')).toBe(64);
      expect(e.stderr.trim().split('\n')).toHaveLength(1);
      expect((e.stderr.match(/'/g) ?? []).length % 2, e.stderr).toBe(0);
      expect((e.stderr.match(/"/g) ?? []).length % 2, e.stderr).toBe(0);
    }
  });

  test('convert --framing sse|json|jsonl for nativeharness; refused for a target without framings', () => {
    for (const framing of ['sse', 'json', 'jsonl']) {
      const r = run(['convert', '--to', 'nativeharness', '--framing', framing, HEP]);
      expect(r.code).toBe(0);
      const first = r.stdout.trimStart()[0];
      expect(first).toBe(framing === 'sse' ? 'i' : framing === 'json' ? '[' : '{');
    }
    expect(run(['convert', '--to', 'hep', '--framing', 'json', HEP]).code).toBe(64);
    expect(run(['convert', '--to', 'nativeharness', '--framing', 'xml', HEP]).code).toBe(64);
  });

  test('the help lists every format of this build', () => {
    for (const format of Object.keys(codecs)) expect(run(['--help']).stdout).toContain(format);
  });
});

describe('item 1: serve on bad input', () => {
  test('a file that cannot be opened: exit 66 at once, nothing served', () => {
    const r = run(['serve', '--port', '0', join(dir, 'nosuch.jsonl')]);
    expect(r.code).toBe(66);
    expect(r.stderr).not.toContain('serving');
  });

  test('a command that cannot be started: exit 66, the message names the command', () => {
    const r = run(['serve', '--port', '0', '--', 'agentwire-no-such-command-15', '-x']);
    expect(r.code).toBe(66);
    expect(r.stderr).toContain('agentwire-no-such-command-15');
    expect(r.stderr).not.toContain('serving');
  });

  test("a command's diagnostics and end name the command, not <stdin>", async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      [
        CLI,
        'serve',
        '--port',
        '0',
        '--',
        process.execPath,
        '-e',
        'console.log(\'{"type":"hep_header","hep":"v1","fah":"1","session":"s"}\\nnot json\'); process.exit(3)',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
    });
    try {
      await waitFor(() => err.includes('session is complete'));
      expect(err).toContain(`${process.execPath}:2:`);
      expect(err).toContain('exited (exit status 3)');
      expect(err).not.toContain('<stdin>');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await new Promise((r) => child.once('exit', (code) => r(code)))).toBe(1);
  });
});

test('item 6: view --follow on a HEP file prints "run completed" at the end of the run', async () => {
  const file = join(dir, 'follow.jsonl');
  const lines = readFileSync(HEP, 'utf8').split('\n');
  writeFileSync(file, `${lines.slice(0, 3).join('\n')}\n`);
  const child = spawn(process.execPath, [CLI, 'view', '--follow', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  try {
    await waitFor(() => out.includes('session s-tool-text'));
    appendFileSync(file, `${lines.slice(3).join('\n')}`);
    await waitFor(() => out.includes('run completed'));
    expect(out).toMatch(/■ run completed — total 4130 in \/ 106 out \/ \$0\.0128\n/);
  } finally {
    child.kill('SIGINT');
  }
});
