// The CLI against jq: `agentwire decode` and `agentwire convert` as whole processes, next to
// `jq -c .` on the same file: wall time and peak RSS. Issue #24's goal: decode ≥ 3 × and convert
// ≥ 2 × faster than `jq -c .`, peak RSS ≤ 64 MiB whatever the file size.
//
// Usage: npm run build && node bench/cli-jq.mjs [--mb 1024] [--formats hep,codex] [--runs 1]
//          [--jq /usr/bin/jq] [--dir /tmp] [--keep] [--out docs/benchmarks.md | -]
// Each format's file is generated (seeded, the generators of bench/corpus.mjs and
// bench/agents.mjs; highbar and the SSE formats are the HEP corpus re-encoded) and streamed to a
// temporary folder, measured, and deleted before the next one is made: one file on disk at a time.
// `--keep` leaves the files (and their folder, printed) for timing other builds on the same bytes.
// Every command's standard output goes to /dev/null. Peak RSS is the kernel's: `/usr/bin/time`'s
// maximum resident set size (wait4) when it is installed (Debian package `time`), else
// /proc/<pid>/status VmHWM polled every 10 ms until the process exits. jq reads JSON only: the SSE
// formats have no jq row.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ALL_FORMATS, generate, MiB, measure, SSE, TIME } from './cli-files.mjs';
import { CLI_END, CLI_START } from './cli-section.mjs';
import { flag } from './flags.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const CLI_NOTE = [
  'Written by `node bench/cli-jq.mjs --out docs/benchmarks.md` (`bench/cli-jq.mjs`). Whole processes, standard',
  'output to /dev/null: `agentwire decode`, `agentwire convert --to hep` and `--to nativeharness`, and `jq -c .` on',
  'the same generated file (jq reads JSON only: the SSE formats have no jq row). × jq = jq wall time / this wall',
  'time; × jq (CPU) the same with user + system CPU seconds (from `/usr/bin/time`), which a loaded machine skews\nless: a busy host shares its cores between processes, and jq has one thread where node has helpers. Issue #24 targets: decode ≥ 3 ×, convert ≥ 2 × as fast as `jq -c .`, peak RSS ≤ 64 MiB whatever the',
  'size. The row `node: JSON.parse + JSON.stringify per line` (`bench/cli-bare.mjs`) is the ceiling: a Node process',
  'that reads each line, parses it and prints it again, with nothing of agentwire. Where the time and the memory',
  'go: [performance.md](performance.md#the-cli-against-jq).',
].join('\n');

const MB = Number(flag('mb', 1024));
const RUNS = Math.max(1, Number(flag('runs', 1)));
const JQ = String(flag('jq', '/usr/bin/jq'));
const CLI = resolve(here, '../dist/cli.js');
const LIB = resolve(here, '../dist/all.js');
const BARE = resolve(here, 'cli-bare.mjs');
const ALL = ALL_FORMATS;
const CEILING = 'node: JSON.parse + JSON.stringify per line';
const FORMATS = String(flag('formats', ALL.join(','))).split(',');

if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build first');
const lib = await import(pathToFileURL(LIB).href);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const jqVersion = spawnSync(JQ, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? 'missing';
const KEEP = flag('keep', false) === true;
const dir = mkdtempSync(join(String(flag('dir', tmpdir())), 'agentwire-cli-jq-'));
const cleanup = () => {
  if (KEEP) console.log(`files kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
};
process.once('SIGINT', () => {
  cleanup();
  process.exit(130);
});

const table = [];
console.log(
  `agentwire CLI against ${jqVersion}, ${MB} MiB per format, node ${process.version}, ` +
    `${RUNS} run(s) each, interleaved (median wall, max RSS); RSS from ${TIME ?? '/proc VmHWM polling'}`,
);
try {
  for (const format of FORMATS) {
    const ext = SSE.has(format) ? 'sse' : 'jsonl';
    const file = join(dir, `${format}.${ext}`);
    const t0 = performance.now();
    const size = await generate(lib, format, file, MB);
    // The file's pages are written back before anything is timed: the kernel's writeback of a
    // freshly written GiB would otherwise share the machine with the first commands.
    spawnSync('sync');
    console.log(
      `\n${format}: ${(size / MiB).toFixed(0)} MiB generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const commands = [];
    if (!SSE.has(format)) {
      commands.push(['jq -c .', [JQ, '-c', '.', file]]);
      // What a Node process pays to read and print each line with nothing of agentwire: the
      // ceiling of any Node CLI, `decode` included (bench/cli-bare.mjs).
      commands.push([CEILING, [process.execPath, BARE, file]]);
    }
    commands.push(['agentwire decode', [process.execPath, CLI, 'decode', '--format', format, file]]);
    const targets = ['hep', 'nativeharness'];
    for (const to of targets)
      commands.push([
        `agentwire convert --to ${to}`,
        [process.execPath, CLI, 'convert', '--quiet', '--from', format, '--to', to, file],
      ]);
    // Runs are interleaved (run r of every command, then run r + 1), so a drift of the machine
    // over the minutes a GiB takes is shared by jq and agentwire; each ratio is the median of the
    // per-run ratios against jq's run in the same round, as in bench/run.mjs.
    const samples = commands.map(() => []);
    for (let i = 0; i < RUNS; i++) {
      for (let c = 0; c < commands.length; c++) samples[c].push(await measure(commands[c][1]));
    }
    const jqAt = commands.findIndex(([name]) => name.startsWith('jq'));
    const perRun = (c, key) =>
      jqAt === -1 || c === jqAt
        ? undefined
        : median(samples[c].map((r, i) => samples[jqAt][i][key] / r[key]));
    for (let c = 0; c < commands.length; c++) {
      const name = commands[c][0];
      const runs = samples[c];
      const r = {
        wall: median(runs.map((x) => x.wall)),
        cpu: median(runs.map((x) => x.cpu)),
        rss: Math.max(...runs.map((x) => x.rss)),
        code: runs.at(-1).code,
        stderr: runs.at(-1).stderr,
      };
      const ratio = perRun(c, 'wall');
      const cpuRatio = perRun(c, 'cpu');
      const line = {
        format,
        mib: size / MiB,
        command: name,
        wall: r.wall,
        rss: r.rss,
        ratio,
        cpu: r.cpu,
        cpuRatio,
        code: r.code,
      };
      table.push(line);
      console.log(
        `  ${name.padEnd(38)} ${r.wall.toFixed(2).padStart(7)} s ${r.cpu.toFixed(2).padStart(7)} s cpu ${r.rss.toFixed(1).padStart(7)} MiB` +
          `${ratio === undefined ? '' : `  ${ratio.toFixed(2)} × jq`}${r.code === 0 ? '' : `  exit ${r.code}: ${r.stderr.trim().split('\n').at(-1)}`}`,
      );
    }
    if (!KEEP) rmSync(file, { force: true });
  }
} finally {
  cleanup();
}

const fixed = (x) => (x === undefined || Number.isNaN(x) ? '' : x.toFixed(2));

// The targets of issue #24: decode ≥ 3 × and convert ≥ 2 × as fast as `jq -c .`, peak RSS ≤ 64 MiB.
// The ceiling row has no target: it says what the targets ask of Node itself.
function verdict(r) {
  if (r.command.startsWith('jq')) return '';
  if (r.command === CEILING) return 'ceiling';
  const speed = r.command.includes('decode') ? 3 : 2;
  const judge = (x) => (x === undefined || Number.isNaN(x) ? undefined : x >= speed ? 'pass' : '**FAIL**');
  const wall = judge(r.ratio);
  const cpu = judge(r.cpuRatio);
  const small = r.rss <= 64 ? 'pass' : '**FAIL**';
  return `${wall === undefined ? '' : `speed ${wall} (wall), ${cpu ?? '?'} (CPU); `}RSS ${small}`;
}

const lines = [
  `- ${new Date().toISOString()}, node ${process.version}, ${jqVersion}, ${cpus()[0]?.model ?? 'cpu'} ×${cpus().length}`,
  `- \`node bench/cli-jq.mjs --mb ${MB} --formats ${FORMATS.join(',')} --runs ${RUNS}\`; runs interleaved, medians (ratios: of the per-run ratios); peak RSS from ${TIME === undefined ? '/proc VmHWM' : '`/usr/bin/time` (wait4)'}`,
  '',
  '| format | MiB | command | wall s | CPU s | peak RSS MiB | × jq (wall) | × jq (CPU) | target (decode ≥ 3 ×, convert ≥ 2 ×, ≤ 64 MiB) |',
  '|---|---:|---|---:|---:|---:|---:|---:|---|',
  ...table.map(
    (r) =>
      `| ${r.format} | ${r.mib.toFixed(0)} | \`${r.command}\` | ${r.wall.toFixed(2)} | ${r.cpu.toFixed(2)} | ${r.rss.toFixed(1)} | ${fixed(r.ratio)} | ${fixed(r.cpuRatio)} | ${verdict(r)}${r.code === 0 ? '' : ` exit ${r.code}`} |`,
  ),
];
console.log(`\n${lines.join('\n')}`);

// --out FILE: the table goes into FILE's "CLI against jq" section, between its markers (added at
// the end the first time); `npm run bench` keeps that section when it rewrites docs/benchmarks.md.
// `--out -` prints only, as run.mjs's does (it wrote a file named `-`).
const OUT = flag('out', undefined);
if (typeof OUT === 'string' && OUT !== '-') {
  const [START, END] = [CLI_START, CLI_END];
  const old = existsSync(OUT) ? readFileSync(OUT, 'utf8') : '';
  const i = old.indexOf(START);
  const j = old.indexOf(END);
  const inner = i === -1 || j === -1 ? '' : old.slice(i + START.length, j);
  // A run replaces the table of an earlier run of the same size and formats; others stay.
  const title = `### ${MB} MiB per format: ${FORMATS.join(', ')}`;
  const others = inner
    .split(/\n(?=### )/)
    .filter((g) => g.startsWith('### ') && !g.startsWith(`${title}\n`))
    .map((g) => g.trimEnd());
  const body = [...others, [title, '', ...lines].join('\n')].join('\n\n');
  const section = `${START}\n## CLI against jq\n\n${CLI_NOTE}\n\n${body}\n${END}\n`;
  const next =
    i === -1 || j === -1
      ? `${old.trimEnd()}\n\n${section}`
      : old.slice(0, i) + section + old.slice(j + END.length).replace(/^\n/, '');
  writeFileSync(OUT, next);
}
