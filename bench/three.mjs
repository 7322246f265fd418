// Three full runs of bench/run.mjs, one after the other, each in a process of its own, and one
// page: docs/benchmarks.md is the last run's page with a table in front that gives every row
// with a target its ratio and verdict in each run. A target is met when it passes in all three
// (a shared machine can make one run slow; a row that passes once in three is not met).
//
// `npm run bench:three [-- flags of run.mjs]`: the flags (e.g. --mb, --runs, --only) go to every
// run; `--out` is this script's own (default docs/benchmarks.md, `-` to print only).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keptCliSection } from './cli-section.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const RUNS = 3;

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const OUT = outAt === -1 ? resolve(here, '../docs/benchmarks.md') : args[outAt + 1];
const passOn = outAt === -1 ? args : args.filter((_, i) => i !== outAt && i !== outAt + 1);

/**
 * The rows with a target in one page of run.mjs: section title, pipeline, the ratio text (the
 * "vs baseline" column, or the value of a measure table) and the verdict.
 */
export function targetRows(page) {
  const rows = [];
  let section = '';
  let header;
  let baseline;
  for (const line of page.split('\n')) {
    if (line.startsWith('## ')) {
      section = line.slice(3).trim();
      header = undefined;
      baseline = undefined;
      continue;
    }
    if (!line.startsWith('|')) continue;
    const cells = line
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim());
    if (header === undefined) {
      header = cells;
      continue;
    }
    if (cells.every((c) => /^-*:?-*:?$/.test(c))) continue;
    const at = (name) => cells[header.indexOf(name)];
    const ratios = header.includes('vs baseline');
    // The section's baseline is its first row at 1.00; its speed tells a run whose baseline was
    // slow or fast from one whose pipeline was.
    if (ratios && baseline === undefined && at('vs baseline') === '1.00') baseline = Number(at('MB/s'));
    const verdict = cells.at(-1);
    if (verdict !== 'pass' && verdict !== '**FAIL**') continue;
    const row = { section, pipeline: cells[0], ratio: ratios ? at('vs baseline') : at('value') };
    Object.assign(row, { target: at('target'), pass: verdict === 'pass' });
    if (ratios && baseline !== undefined) row.baseline = baseline;
    rows.push(row);
  }
  return rows;
}

/** How far a run's baseline may stray from the median of the runs before its ratio is flagged. */
const DRIFT = 0.2;

/**
 * For one row's runs, each run's baseline speed as a share of the median over the runs, or
 * `undefined` where it stays within `DRIFT` of it (or the row has no baseline). A ratio against a
 * baseline that ran at half its speed is twice what the pipeline earned: the table flags it, and
 * the verdict still counts it.
 */
export function baselineDrift(each) {
  const speeds = each.map((x) => x?.baseline);
  const known = speeds.filter((v) => v !== undefined).sort((a, b) => a - b);
  if (known.length < 2) return speeds.map(() => undefined);
  const median =
    known.length % 2 === 1
      ? known[(known.length - 1) / 2]
      : (known[known.length / 2 - 1] + known[known.length / 2]) / 2;
  return speeds.map((v) => (v === undefined || Math.abs(v / median - 1) <= DRIFT ? undefined : v / median));
}

export function summary(pages) {
  const runs = pages.map(targetRows);
  // Measured figures inside a row's name (e.g. "1.00 GiB, 4.3 M events in 3.1 s") vary by run.
  const key = (r) => `${r.section}\u0000${r.pipeline.replace(/\d+(\.\d+)?/g, '#')}`;
  const seen = new Map();
  for (const [i, rows] of runs.entries()) {
    for (const r of rows) {
      const k = key(r);
      if (!seen.has(k)) seen.set(k, { ...r, each: Array(RUNS).fill(undefined) });
      seen.get(k).each[i] = r;
    }
  }
  const lines = [
    '## Targets across three runs',
    '',
    `Three full runs of \`npm run bench\` (\`npm run bench:three\`, ${new Date().toISOString().slice(0, 10)}), each in its own`,
    'process; a target is met when it passes in all three. The sections below are the third run.',
    '',
    '| section | pipeline | target | run 1 | run 2 | run 3 | met |',
    '|---|---|---|---:|---:|---:|---|',
  ];
  let met = 0;
  let drifted = 0;
  for (const r of seen.values()) {
    const ok = r.each.every((x) => x?.pass === true);
    if (ok) met++;
    const drift = baselineDrift(r.each);
    const cell = (x, i) => {
      if (x === undefined) return '—';
      const mark = drift[i] === undefined ? '' : ` † ${Math.round(drift[i] * 100)} %`;
      if (mark !== '') drifted++;
      return `${x.ratio}${x.pass ? '' : ' ✗'}${mark}`;
    };
    lines.push(
      `| ${r.section} | ${r.pipeline} | ${r.target} | ${r.each.map(cell).join(' | ')} | ${ok ? 'yes' : '**no**'} |`,
    );
  }
  lines.push('', `${met} of ${seen.size} targets met in all three runs.`, '');
  if (drifted > 0)
    lines.push(
      `† The section's baseline ran at that share of its median speed (MB/s) over the three runs,`,
      `more than ${DRIFT * 100} % off: that run's ratio says as much about its baseline as about the`,
      'pipeline (a slow baseline raises it). The verdict still counts it.',
      '',
    );
  return lines.join('\n');
}

function main() {
  const dir = mkdtempSync(join(tmpdir(), 'agentwire-bench-'));
  try {
    const pages = [];
    for (let i = 1; i <= RUNS; i++) {
      const out = join(dir, `run-${i}.md`);
      process.stderr.write(`bench:three: run ${i} of ${RUNS}\n`);
      const r = spawnSync(process.execPath, ['--expose-gc', join(here, 'run.mjs'), ...passOn, '--out', out], {
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      if (r.status !== 0) {
        process.stderr.write(`bench:three: run ${i} failed (exit ${r.status ?? r.signal})\n`);
        process.exitCode = 1;
        return;
      }
      pages.push(readFileSync(out, 'utf8'));
    }
    const last = pages.at(-1);
    // The table goes after the page's preamble (before its first section).
    const first = last.indexOf('\n## ');
    const page = `${last.slice(0, first + 1)}${summary(pages)}${last.slice(first)}`;
    if (OUT === '-') process.stdout.write(summary(pages));
    else writeFileSync(OUT, page + keptCliSection(OUT));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
