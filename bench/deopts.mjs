// Deoptimizations after warm-up: `npm run bench:deopts` (builds, then `node bench/deopts.mjs`).
//
// For every decoder (`createDecoder().push`, 64 KiB chunks, on the corpus the benchmark gives it)
// and every writer (`createEncoder().write`, on the events the benchmark feeds it) of every format
// in bench/run.mjs, and the HEP → nativeharness convert, one child process runs the same work
// `--rounds` times with `gc()` between rounds under `--single-threaded --trace-deopt-verbose`, and
// this script lists the deopts that happen at round `--warm` or later, per function and reason.
// Timings on a loaded machine are noise; the deopt trace is not: an optimized function that
// deoptimizes again after warm-up, round after round, has seen a hidden class it was not built
// for (often one that died at a full GC: objects given their properties one by one per event, so
// their transition-tree maps are collected and made again), and the round pays a deopt and a
// reoptimization each time (docs/performance.md, "Round thirty-three").
//
// Flags: --only a,b (row ids: `hep`, `hep-writer`, ... ; or format ids, which keep both rows),
// --mb N (corpus size, default 4), --rounds N (default 20), --warm N (first round counted,
// default 4), --lib path (the built library, default ../dist/all.js), --verbose (each late
// deopt's kind and source position in dist/), --json (one JSON object per row: the counts and the
// groups; the regression test test/deopts.test.ts reads it). The harness's own round function is
// left out (it runs once per round: what deopts there is the encoder's construction).
// The child: `--child decode|write|convert --format id --file path` (run by this script).

import { spawnSync } from 'node:child_process';
import {
  closeSync,
  createReadStream,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generateCursor, generateOpencode } from './agents.mjs';
import { chunk, generateClaude, generateCodex, generateGemini, generateHep } from './corpus.mjs';
import { flag } from './flags.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const LIB = resolve(here, String(flag('lib', '../dist/all.js')));
const ROUNDS = Number(flag('rounds', 20));
const KiB = 1024;

/** Writer options as the benchmark gives them (the UI protocols as JSON Lines). */
const ENCODER_OPTIONS = {
  agui: () => ({ framing: 'jsonl' }),
  aisdk: () => ({ framing: 'jsonl' }),
  gemini: () => ({ idSource: () => 's', clock: () => 0 }),
};

// ---------------------------------------------------------------------------------------------
// Child: one row's timed work, a `---- round N` marker before each round, the round times last.

async function child() {
  const lib = await import(pathToFileURL(LIB).href);
  const mode = String(flag('child', ''));
  const key = String(flag('format', ''));
  const bytes = readFileSync(String(flag('file', '')));
  const codec = lib[key];
  const options = ENCODER_OPTIONS[key]?.();
  let work;
  if (mode === 'decode') {
    const chunks = chunk(bytes, 64 * KiB);
    const keep = flag('keep-events', false) === true;
    work = function harnessRound() {
      const d = codec.createDecoder();
      let n = 0;
      const kept = [];
      for (const c of chunks) {
        const events = d.push(c);
        n += events.length;
        if (keep) kept.push(events);
      }
      // --keep-events: this round's events stay alive through the next round (a diagnosis: the
      // late discards that go away are the events' hidden classes dying at a GC).
      if (keep) globalThis.keptEvents = kept;
      return n + d.end().length;
    };
  } else if (mode === 'write') {
    const events = JSON.parse(bytes.toString('utf8'));
    work = function harnessRound() {
      const e = codec.createEncoder(options);
      let n = 0;
      for (const ev of events) n += e.write(ev).length;
      return n + e.end().length;
    };
  } else {
    const chunks = chunk(bytes, 64 * KiB);
    work = function harnessRound() {
      const d = lib.hep.createDecoder();
      const e = lib.nativeharness.createEncoder();
      let n = 0;
      for (const c of chunks) for (const ev of d.push(c)) n += e.write(ev).length;
      for (const ev of d.end()) n += e.write(ev).length;
      return n + e.end().length;
    };
  }
  const times = [];
  for (let r = 0; r < ROUNDS; r++) {
    globalThis.gc();
    console.log(`---- round ${r}`);
    const s = performance.now();
    work();
    times.push(performance.now() - s);
  }
  console.log(`@@times ${times.map((t) => t.toFixed(2)).join(' ')}`);
}

// ---------------------------------------------------------------------------------------------
// Parent: the corpora (written to a temporary directory), one child per row, the table.

/** The HEP corpus re-encoded by format `key`. */
function reencoded(lib, key, buffer) {
  const d = lib.hep.createDecoder();
  const e = lib[key].createEncoder();
  let text = '';
  for (const c of chunk(buffer, 64 * KiB)) for (const ev of d.push(c)) text += e.write(ev);
  for (const ev of d.end()) text += e.write(ev);
  return Buffer.from(text + e.end());
}

/** The events format `key`'s decoder reads from `buffer`, as JSON text (with `types`, only those). */
function eventsText(lib, key, buffer, types) {
  const d = lib[key].createDecoder();
  const out = [];
  const keep = (events) => {
    for (const ev of events) if (types === undefined || types.includes(ev.type)) out.push(ev);
  };
  for (const c of chunk(buffer, 64 * KiB)) keep(d.push(c));
  keep(d.end());
  return JSON.stringify(out);
}

/** The event types highbar has records for (its writer row is fed only these, as in run.mjs). */
const HIGHBAR_WRITES = [
  'session.start',
  'tools.declare',
  'run.start',
  'run.end',
  'tool.start',
  'tool.end',
  'unknown',
];

/** Every row: its id, the child's mode and format, and how to make its input (bytes or text). */
function rows(lib, mb) {
  const hepWire = generateHep({ mb, variant: 'ascii' }).buffer;
  const own = {
    opencode: () => generateOpencode({ mb }).buffer,
    cursor: () => generateCursor({ mb }).buffer,
    codex: () => generateCodex({ mb }).buffer,
    gemini: () => generateGemini({ mb }).buffer,
    claude: () => generateClaude({ mb }).buffer,
  };
  const list = [{ id: 'hep', mode: 'decode', key: 'hep', input: () => hepWire }];
  list.push({ id: 'hep-writer', mode: 'write', key: 'hep', input: () => eventsText(lib, 'hep', hepWire) });
  for (const key of ['highbar', 'nativeharness', 'amp', 'copilot', 'agui', 'aisdk']) {
    list.push({ id: key, mode: 'decode', key, input: () => reencoded(lib, key, hepWire) });
    const types = key === 'highbar' ? HIGHBAR_WRITES : undefined;
    list.push({
      id: `${key}-writer`,
      mode: 'write',
      key,
      input: () => eventsText(lib, 'hep', hepWire, types),
    });
  }
  for (const [key, make] of Object.entries(own)) {
    list.push({ id: key, mode: 'decode', key, input: make });
    list.push({ id: `${key}-writer`, mode: 'write', key, input: () => eventsText(lib, key, make()) });
  }
  list.push({ id: 'convert', mode: 'convert', key: 'convert', input: () => hepWire });
  return list;
}

/**
 * The events of a `--trace-deopt-verbose --trace-opt` log (read line by line: a verbose log runs
 * to hundreds of MB), each with its round (-1: set-up) and kind: a bailout (`deopt-eager`,
 * `deopt-lazy`, ...) with its reason, optimized function, innermost inlined frame and source
 * position; `discarded` (optimized code thrown away without a bailout, as when a map it embeds
 * died at a GC); `optimized` (a TurboFan compilation finished).
 */
async function parseTrace(file) {
  const out = [];
  let round = -1;
  let cur;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line.startsWith('---- round ')) {
      round = Number(line.slice(11));
      continue;
    }
    if (line.startsWith('@@times ')) {
      out.times = line.slice(8);
      continue;
    }
    const b = /^\[bailout \(kind: ([^,]+), reason: (.*)\): begin\. deoptimizing \S+ <JSFunction (\S*)/.exec(
      line,
    );
    if (b !== null) {
      cur = { round, kind: b[1], reason: b[2], fn: b[3] || '(anonymous)', frames: [], at: '' };
      out.push(cur);
      continue;
    }
    const m =
      /^\[marking dependent code \S+ <Code \S+> \(\S+ <SharedFunctionInfo ?([^>]*)>\).* reason: (.*)\]$/.exec(
        line,
      );
    if (m !== null) {
      out.push({ round, kind: 'discarded', reason: m[2], fn: m[1] || '(anonymous)', frames: [], at: '' });
      cur = undefined;
      continue;
    }
    const o = /^\[completed (?:compiling|optimizing) \S+ <JSFunction (\S*)[^>]*> \(target TURBOFAN\)/.exec(
      line,
    );
    if (o !== null) {
      out.push({ round, kind: 'optimized', reason: '', fn: o[1] || '(anonymous)', frames: [], at: '' });
      continue;
    }
    if (cur === undefined) continue;
    const at = /;;; deoptimize at <(.*)>/.exec(line);
    if (at !== null) {
      // The innermost position first, then where it was inlined.
      cur.at = at[1].split('> inlined at <')[0].replace(/^file:\/\/.*\/dist\//, 'dist/');
      continue;
    }
    const f = /^\s+reading input frame (\S*) =>/.exec(line);
    if (f !== null) cur.frames.push(f[1] || '(anonymous)');
    else if (line.startsWith('[bailout end')) cur = undefined;
  }
  return out;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.floor(s.length / 2)];
}

async function runRow(row, dir, opts) {
  const file = join(dir, `${row.id}.in`);
  const log = join(dir, `${row.id}.log`);
  writeFileSync(file, row.input());
  const args = ['--expose-gc', '--single-threaded', '--trace-deopt-verbose', '--trace-opt'];
  args.push(fileURLToPath(import.meta.url), '--child', row.mode, '--format', row.key, '--file', file);
  args.push('--lib', LIB, '--rounds', String(ROUNDS));
  if (opts.keepEvents) args.push('--keep-events');
  const fd = openSync(log, 'w');
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
  closeSync(fd);
  rmSync(file, { force: true });
  const trace = await parseTrace(log);
  rmSync(log, { force: true });
  const timesLine = trace.times;
  if (r.status !== 0 || timesLine === undefined)
    return { row, error: `exit ${r.status}: ${r.stderr.split('\n').slice(0, 3).join(' ')}` };
  const times = timesLine.split(' ').map(Number);
  // The harness's own round function runs once per round: its deopts (the encoder's
  // construction, inlined into it) are the harness's, not the library's per-event code.
  const late = trace.filter((d) => d.round >= opts.warm && d.fn !== 'harnessRound');
  return { row, times, late };
}

/** Late bailouts and discarded code grouped by function, innermost frame and reason, with their rounds. */
function groups(late) {
  const by = new Map();
  for (const d of late) {
    if (d.kind === 'optimized') continue;
    const inner = d.frames.at(-1) ?? d.fn;
    const k = `${d.fn}\u0000${inner}\u0000${d.reason}\u0000${d.kind === 'discarded'}`;
    const g = by.get(k) ?? { fn: d.fn, inner, reason: d.reason, kind: d.kind, rounds: [], at: d.at };
    g.rounds.push(d.round);
    by.set(k, g);
  }
  return [...by.values()];
}

/** A row's result as one JSON object (`--json`): the counts after warm-up and the groups. */
function summary(result, opts) {
  if (result.error !== undefined) return { id: result.row.id, error: result.error };
  const late = result.late;
  return {
    id: result.row.id,
    bailouts: late.filter((d) => d.kind.startsWith('deopt')).length,
    discards: late.filter((d) => d.kind === 'discarded').length,
    optimized: late.filter((d) => d.kind === 'optimized').length,
    medianMs: median(result.times.slice(opts.warm)),
    groups: groups(late),
  };
}

function report(result, opts) {
  const { row } = result;
  if (result.error !== undefined) return [`| ${row.id} | error: ${result.error} | | | |`];
  const t = result.times.slice(opts.warm);
  const count = (kind) =>
    result.late.filter((d) => (kind === 'bailout' ? d.kind.startsWith('deopt') : d.kind === kind)).length;
  const lines = [
    `| **${row.id}** | ${count('bailout')} bailouts, ${count('discarded')} code discards, ${count('optimized')} TurboFan compilations | | | ${median(t).toFixed(1)} / ${Math.max(...t).toFixed(1)} |`,
  ];
  for (const g of groups(result.late)) {
    const fn = g.inner === g.fn ? g.fn : `${g.fn} ← ${g.inner}`;
    const what = g.kind === 'discarded' ? `code discarded: ${g.reason}` : g.reason;
    const rest = opts.verbose && g.at !== '' ? ` (${g.kind}, ${g.at})` : '';
    lines.push(`| ${row.id} | ${fn} | ${what}${rest} | ${g.rounds.join(' ')} | |`);
  }
  return lines;
}

async function parent() {
  const opts = {
    mb: Number(flag('mb', 4)),
    warm: Number(flag('warm', 4)),
    verbose: flag('verbose', false) === true,
    json: flag('json', false) === true,
    keepEvents: flag('keep-events', false) === true,
    only: flag('only', '') === '' ? undefined : String(flag('only', '')).split(','),
  };
  const lib = await import(pathToFileURL(LIB).href);
  const dir = mkdtempSync(join(tmpdir(), 'agentwire-deopts-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  if (!opts.json) header(opts);
  for (const row of rows(lib, opts.mb)) {
    if (opts.only !== undefined && !opts.only.includes(row.id) && !opts.only.includes(row.key)) continue;
    const result = await runRow(row, dir, opts);
    if (opts.json) console.log(JSON.stringify(summary(result, opts)));
    else for (const line of report(result, opts)) console.log(line);
  }
}

function header(opts) {
  console.log(
    `Deopts at round >= ${opts.warm} of ${ROUNDS} (gc() between rounds, --single-threaded), ${opts.mb} MB corpora; ` +
      'round ms: median / max of the rounds counted.\n',
  );
  console.log('| row | function (← innermost inlined frame) | reason | rounds | round ms |');
  console.log('|---|---|---|---|---|');
}

if (flag('child', '') === '') await parent();
else await child();
