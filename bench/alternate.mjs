// What the in-process A/B scripts (bench/ab.mjs, bench/ab-decode.mjs) share: the corpora of the
// formats the bench generates, and the timing loop (two pipelines of two builds timed in
// alternation, each round against a baseline timed before and after them, CPU time with a forced
// `gc()` before each run). docs/performance.md, "How to measure".

import { generateCursor, generateOpencode } from './agents.mjs';
import { generateClaude, generateCodex, generateGemini, generateHep } from './corpus.mjs';

/** The bench's own corpus of each format it generates (`--mb` megabytes), as bytes. */
const OWN = {
  hep: (mb) => generateHep({ mb, variant: 'ascii' }).buffer,
  codex: (mb) => generateCodex({ mb }).buffer,
  gemini: (mb) => generateGemini({ mb }).buffer,
  claude: (mb) => generateClaude({ mb }).buffer,
  opencode: (mb) => generateOpencode({ mb }).buffer,
  cursor: (mb) => generateCursor({ mb }).buffer,
};

/** The formats {@link ownCorpus} generates. */
export const OWN_FORMATS = Object.keys(OWN);

/** `format`'s own corpus of about `mb` MB, or `undefined` for a format the bench does not generate. */
export function ownCorpus(format, mb) {
  return OWN[format]?.(mb);
}

/** CPU microseconds (user + system) of one call of `f`, after a forced full GC. */
function cpu(f) {
  globalThis.gc();
  const s = process.cpuUsage();
  f();
  const u = process.cpuUsage(s);
  return u.user + u.system;
}

const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];

/**
 * `runA` and `runB` timed `rounds` times, alternating which goes first, each against the mean of
 * `baseline` timed around them: the medians of the per-round ratios (baseline time ÷ run time).
 */
export function alternate(runA, runB, baseline, rounds) {
  for (let i = 0; i < 3; i++) for (const f of [runA, runB, baseline]) f();
  const ra = [];
  const rb = [];
  for (let r = 0; r < rounds; r++) {
    const before = cpu(baseline);
    let ta;
    let tb;
    if (r % 2 === 0) {
      ta = cpu(runA);
      tb = cpu(runB);
    } else {
      tb = cpu(runB);
      ta = cpu(runA);
    }
    const base = (before + cpu(baseline)) / 2;
    ra.push(base / ta);
    rb.push(base / tb);
  }
  return { a: median(ra), b: median(rb) };
}
