// Peak RSS of every conversion: `agentwire decode` and `agentwire convert --to T` for every source
// format × every target format, as whole processes on a generated file of each source. Issue #24
// asks the CLI for a peak RSS ≤ 64 MiB whatever the file size; bench/cli-jq.mjs times three
// commands per format, this sweeps all of them for memory (docs/benchmarks.md, "Peak RSS of every
// conversion").
//
// Usage: npm run build && node bench/cli-rss.mjs [--mb 40] [--from hep,codex] [--to claude,hep]
//          [--dir /tmp/rss] [--keep] [--limit 64] [--json results.json]
// The files are those of bench/cli-jq.mjs (bench/cli-files.mjs), one on disk at a time unless
// --keep, which leaves them in --dir and reuses a file of the same format and size the next run
// (a 200 MiB sweep spends minutes making them). Each command runs once, alone, standard output
// to /dev/null; peak RSS is `/usr/bin/time`'s maximum resident set size. A cell over --limit MiB
// is bold; a cell whose command failed shows its exit code.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ALL_FORMATS, generate, MiB, measure, SSE, TIME } from './cli-files.mjs';
import { flag } from './flags.mjs';

const here = dirname(fileURLToPath(import.meta.url));

const MB = Number(flag('mb', 40));
const LIMIT = Number(flag('limit', 64));
const KEEP = flag('keep', false) === true;
const FROM = String(flag('from', ALL_FORMATS.join(','))).split(',');
const TO = String(flag('to', ['decode', ...ALL_FORMATS].join(','))).split(',');
const CLI = resolve(here, '../dist/cli.js');
const LIB = resolve(here, '../dist/all.js');

if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build first');
const lib = await import(pathToFileURL(LIB).href);

const base = flag('dir', undefined);
if (typeof base === 'string') mkdirSync(base, { recursive: true });
const dir =
  typeof base === 'string' && KEEP
    ? base
    : mkdtempSync(join(typeof base === 'string' ? base : tmpdir(), 'agentwire-cli-rss-'));
const cleanup = () => {
  if (!KEEP) rmSync(dir, { recursive: true, force: true });
};
process.once('SIGINT', () => {
  cleanup();
  process.exit(130);
});

/** The command of one cell: `decode`, or `convert --to target`. */
function argvOf(from, to, file) {
  return to === 'decode'
    ? [process.execPath, CLI, 'decode', '--format', from, file]
    : [process.execPath, CLI, 'convert', '--quiet', '--from', from, '--to', to, file];
}

const results = [];
console.log(
  `agentwire peak RSS, ${MB} MiB per source, node ${process.version}, RSS from ${TIME ?? '/proc VmHWM polling'}`,
);
try {
  for (const from of FROM) {
    const file = join(dir, `${from}-${MB}.${SSE.has(from) ? 'sse' : 'jsonl'}`);
    if (!(KEEP && existsSync(file))) {
      const t0 = performance.now();
      await generate(lib, from, file, MB);
      // Written back before anything is measured: the kernel's writeback would share the machine.
      spawnSync('sync');
      console.log(`${from}: generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    const mib = statSync(file).size / MiB;
    const row = [];
    for (const to of TO) {
      const r = await measure(argvOf(from, to, file));
      const cell = { from, to, mib, rss: r.rss, wall: r.wall, cpu: r.cpu, code: r.code };
      results.push(cell);
      row.push(
        `${to} ${r.rss.toFixed(1)}${r.rss > LIMIT ? '!' : ''}${r.code === 0 || r.code === 1 ? '' : ` exit ${r.code}`}`,
      );
    }
    console.log(`  ${from} (${mib.toFixed(0)} MiB): ${row.join(', ')}`);
    if (!KEEP) rmSync(file, { force: true });
  }
} finally {
  cleanup();
}

// Exit 1 (the input had error diagnostics) is a finished conversion: only other codes are marked.
const cellOf = (from, to) => {
  const r = results.find((x) => x.from === from && x.to === to);
  if (r === undefined) return '';
  const text = r.rss > LIMIT ? `**${r.rss.toFixed(1)}**` : r.rss.toFixed(1);
  return r.code === 0 || r.code === 1 ? text : `${text} (exit ${r.code})`;
};
const over = results.filter((r) => r.rss > LIMIT);
const lines = [
  `- ${new Date().toISOString()}, node ${process.version}, ${cpus()[0]?.model ?? 'cpu'} ×${cpus().length}`,
  `- \`node bench/cli-rss.mjs --mb ${MB}\`: peak RSS in MiB of \`agentwire decode\` (column decode) and \`agentwire convert --to T\` (column T), rows the source; over ${LIMIT} MiB in bold (${over.length} of ${results.length})`,
  '',
  `| source \\ target | ${TO.join(' | ')} |`,
  `|---|${TO.map(() => '---:').join('|')}|`,
  ...FROM.map((from) => `| ${from} | ${TO.map((to) => cellOf(from, to)).join(' | ')} |`),
];
console.log(`\n${lines.join('\n')}`);
const JSON_OUT = flag('json', undefined);
if (typeof JSON_OUT === 'string') writeFileSync(JSON_OUT, `${JSON.stringify(results, null, 1)}\n`);
