// In-process A/B of one decoder in two builds: `node --expose-gc bench/ab-decode.mjs --a <dist>
// --b <dist> --decoder <format> [--mb 10] [--rounds 15]`.
//
// The decoders' twin of bench/ab.mjs: both builds loaded into one process, `createDecoder().push`
// of the same 64 KiB chunks timed in alternation (CPU time, a forced `gc()` before each timed run),
// each against the bare loop (`indexOf(10)`, one text per line, `JSON.parse`) timed around it, so
// a load that drifts during the run moves both alike. Run it both ways (`--a` and `--b` swapped)
// and trust a change that shows in both.
// The corpus: the bench's own for `hep`, `codex`, `gemini`, `claude`, `opencode`, `cursor`; for
// the formats the bench feeds the HEP events re-encoded (`highbar`, `nativeharness`, `amp`,
// `copilot`, `agui`, `aisdk`), what the `--a` build's writer writes for them (JSON Lines where the
// writer has a framing option, as bench/run.mjs). docs/performance.md, "Round thirty-seven".

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { alternate, ownCorpus } from './alternate.mjs';
import { chunk } from './corpus.mjs';
import { flag } from './flags.mjs';

const load = (dir) => import(pathToFileURL(resolve(String(dir), 'all.js')).href);
const A = await load(flag('a', 'dist'));
const B = await load(flag('b', 'dist'));
const key = String(flag('decoder', 'hep'));
const mb = Number(flag('mb', 10));
const rounds = Number(flag('rounds', 15));

/** The writer options that make JSON Lines (bench/run.mjs's re-encoded corpora). */
const JSONL = {
  agui: { framing: 'jsonl' },
  aisdk: { framing: 'jsonl' },
  nativeharness: { framing: 'jsonl' },
};

/** The HEP corpus's events through the `--a` build's `key` writer. */
function reencoded() {
  const d = A.hep.createDecoder();
  const e = A[key].createEncoder(JSONL[key]);
  const parts = [];
  const write = (ev) => {
    try {
      parts.push(e.write(ev));
    } catch {
      // (An event the writer refuses is not in the corpus.)
    }
  };
  for (const c of chunk(ownCorpus('hep', mb), 64 * 1024)) for (const ev of d.push(c)) write(ev);
  for (const ev of d.end()) write(ev);
  parts.push(e.end());
  return Buffer.from(parts.join(''));
}

const bytes = ownCorpus(key, mb) ?? reencoded();
const chunks = chunk(bytes, 64 * 1024);

const decoder = (lib) =>
  function decodeAll() {
    const d = lib[key].createDecoder();
    let n = 0;
    for (const c of chunks) n += d.push(c).length;
    return n + d.end().length;
  };

/** The bare loop: lines by `indexOf(10)`, the partial line carried as text, `JSON.parse` each. */
function bareAll() {
  let n = 0;
  let pending = '';
  for (const c of chunks) {
    let start = 0;
    for (let lf = c.indexOf(10); lf !== -1; lf = c.indexOf(10, start)) {
      const line = pending + c.utf8Slice(start, lf);
      pending = '';
      if (line.length > 0) {
        JSON.parse(line);
        n++;
      }
      start = lf + 1;
    }
    pending += c.utf8Slice(start, c.length);
  }
  return n;
}

const runA = decoder(A);
const runB = decoder(B);
const { a, b } = alternate(runA, runB, bareAll, rounds);
console.log(
  `${key} decoder (${(bytes.length / 1e6).toFixed(1)} MB, ${rounds} rounds), × bare: a ${a.toFixed(3)}, b ${b.toFixed(3)}, b/a ${(b / a).toFixed(3)}`,
);
