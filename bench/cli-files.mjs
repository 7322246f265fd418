// The generated files and the whole-process measurement shared by the CLI benches
// (bench/cli-jq.mjs: the CLI against jq; bench/cli-rss.mjs: the peak RSS of every conversion).
// Each format's file is seeded (the generators of bench/corpus.mjs and bench/agents.mjs; highbar
// and the SSE formats are the HEP corpus re-encoded) and streamed to disk, never held in memory.
// Peak RSS is the kernel's: `/usr/bin/time`'s maximum resident set size (wait4) when it is
// installed (Debian package `time`), else /proc/<pid>/status VmHWM polled every 10 ms.
import { spawn } from 'node:child_process';
import { closeSync, createWriteStream, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { cursorLines, opencodeLines } from './agents.mjs';
import { claudeGroups, codexLines, geminiLines, hepPieces } from './corpus.mjs';

export const MiB = 1024 * 1024;
export const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** Every format the CLI reads and writes, in the order the tables list them. */
export const ALL_FORMATS = [
  'hep',
  'highbar',
  'nativeharness',
  'codex',
  'claude',
  'opencode',
  'cursor',
  'gemini',
  'amp',
  'copilot',
  'ag-ui',
  'ai-sdk',
];

/** The formats whose files are Server-Sent Events (the rest are JSON Lines). */
export const SSE = new Set(['nativeharness', 'ag-ui', 'ai-sdk']);

/** Lines (without newline) to Buffers of about 1 MiB. */
function* piecesOf(lines) {
  let piece = '';
  for (const line of lines) {
    piece += `${line}\n`;
    if (piece.length >= MiB) {
      yield Buffer.from(piece);
      piece = '';
    }
  }
  if (piece !== '') yield Buffer.from(piece);
}

function* flat(groups) {
  for (const group of groups) yield* group;
}

/** The HEP corpus re-encoded by `format`'s writer (`lib`: dist/all.js), piece by piece. */
// Pieces end after whole rounds, so a file cut after any piece is whole records; the caller stops.
function* reencoded(lib, format) {
  const decoder = lib.hep.createDecoder();
  const encoder = lib.codecFor(format).createEncoder();
  for (const piece of hepPieces({ bytes: Number.POSITIVE_INFINITY })) {
    let text = '';
    for (const event of decoder.push(piece)) text += encoder.write(event);
    yield Buffer.from(text);
  }
}

/** About `bytes` bytes of `format`, as Buffers (the last may overshoot by a piece). */
function* source(lib, format, bytes) {
  switch (format) {
    case 'hep':
      yield* hepPieces({ bytes });
      return;
    case 'codex':
      yield* piecesOf(codexLines(1));
      return;
    case 'gemini':
      yield* piecesOf(geminiLines(1));
      return;
    case 'claude':
      yield* piecesOf(flat(claudeGroups(7)));
      return;
    case 'opencode':
      yield* piecesOf(opencodeLines(7));
      return;
    case 'cursor':
      yield* piecesOf(cursorLines(11));
      return;
    default:
      yield* reencoded(lib, format);
  }
}

/** Streams about `mb` MiB of `format` to `path`; returns its size in bytes. */
export async function generate(lib, format, path, mb) {
  const bytes = mb * MiB;
  const out = createWriteStream(path);
  let written = 0;
  for (const piece of source(lib, format, bytes)) {
    if (!out.write(piece)) await new Promise((r) => out.once('drain', r));
    written += piece.length;
    if (written >= bytes) break;
  }
  await new Promise((r, j) => out.end((e) => (e ? j(e) : r())));
  return statSync(path).size;
}

/** Peak RSS (KiB) read from /proc while the process runs. */
function pollHwm(pid) {
  let peak = 0;
  const read = () => {
    try {
      const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m !== null) peak = Math.max(peak, Number(m[1]));
    } catch {}
  };
  read();
  const timer = setInterval(read, 10);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

/** Runs `argv` with stdout to /dev/null: wall seconds, CPU seconds, peak RSS in MiB, exit code. */
export async function measure(argv) {
  const devnull = openSync('/dev/null', 'w');
  const cmd = TIME === undefined ? argv : [TIME, '-f', '%e %M %U %S', ...argv];
  const t0 = performance.now();
  const child = spawn(cmd[0], cmd.slice(1), { stdio: ['ignore', devnull, 'pipe'] });
  const stop = TIME === undefined ? pollHwm(child.pid) : undefined;
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s) => {
    // Only the last lines matter (time's report, or an error): never hold a flood of diagnostics.
    stderr = (stderr + s).slice(-4096);
  });
  const code = await new Promise((r) => child.once('close', r));
  const wall = (performance.now() - t0) / 1000;
  closeSync(devnull);
  let kib = stop?.();
  let cpu = Number.NaN;
  if (TIME !== undefined) {
    const m = /(\d+(?:\.\d+)?) (\d+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)\s*$/.exec(stderr);
    kib = m === null ? Number.NaN : Number(m[2]);
    if (m !== null) cpu = Number(m[3]) + Number(m[4]);
  }
  const exit = TIME !== undefined && /Command exited with non-zero status (\d+)/.exec(stderr);
  return { wall, cpu, rss: kib / 1024, code: exit ? Number(exit[1]) : code, stderr };
}
