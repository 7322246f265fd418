// What V8's allocation-site pretenuring costs each bench row: bench/run.mjs on the given scenarios,
// each run in a process of its own, alternately with V8's defaults and with
// `--no-allocation-site-pretenuring`, and one table of every target row's ratio both ways.
// A row whose default runs read below its flag runs still has an object literal that V8 can
// decide to allocate in old space (docs/performance.md, "Round eight"; src/plain.ts).
//
// `node bench/pretenure.mjs [--only a,b] [--pipes x] [--mb 40] [--runs 5] [--reps 3]`
// (--only, --pipes, --mb, --runs go to run.mjs; --reps is how many processes each way).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { targetRows } from './three.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};
const ONLY = flag(
  'only',
  'ascii64k,highbar,nativeharness,amp,copilot,opencode,cursor,agui,aisdk,codex,gemini,claude',
);
const REPS = Number(flag('reps', '3'));
const passOn = ['--only', ONLY, '--mb', flag('mb', '40'), '--runs', flag('runs', '5')];
if (flag('pipes', undefined) !== undefined) passOn.push('--pipes', flag('pipes'));

const dir = mkdtempSync(join(tmpdir(), 'agentwire-pretenure-'));
const seen = new Map();
try {
  for (let rep = 0; rep < REPS; rep++) {
    // Alternate which way goes first, so a drift of the machine does not favour one.
    const ways = rep % 2 === 0 ? ['default', 'flag'] : ['flag', 'default'];
    for (const way of ways) {
      const out = join(dir, `${way}-${rep}.md`);
      const v8 = way === 'flag' ? ['--no-allocation-site-pretenuring'] : [];
      const r = spawnSync(
        process.execPath,
        ['--expose-gc', ...v8, join(here, 'run.mjs'), ...passOn, '--out', out],
        {
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
      if (r.status !== 0) throw new Error(`bench/run.mjs (${way}, run ${rep + 1}) exited with ${r.status}`);
      for (const row of targetRows(readFileSync(out, 'utf8'))) {
        const key = `${row.section} | ${row.pipeline}`;
        if (!seen.has(key)) seen.set(key, { target: row.target, default: [], flag: [] });
        seen.get(key)[way].push(Number.parseFloat(row.ratio));
      }
      process.stderr.write(`${way} run ${rep + 1} of ${REPS} done\n`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cell = (xs) => `${xs.map((x) => x.toFixed(3)).join(', ')} (median ${median(xs).toFixed(3)})`;
console.log(`| row | target | V8 defaults | --no-allocation-site-pretenuring | gap |`);
console.log('|---|---|---|---|---:|');
for (const [key, v] of seen) {
  const gap = median(v.flag) - median(v.default);
  console.log(
    `| ${key} | ${v.target} | ${cell(v.default)} | ${cell(v.flag)} | ${gap >= 0 ? '+' : ''}${gap.toFixed(3)} |`,
  );
}
