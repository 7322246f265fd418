// In-process A/B of one writer in two builds: `node --expose-gc bench/ab.mjs --a <dist> --b <dist>
// --writer <format> [--source hep|<format>] [--mb 10] [--rounds 15]`.
//
// Both builds are loaded into one process and timed in alternation (CPU time, a forced `gc()`
// before each timed run), each against `JSON.stringify` of the same records timed around it, so a
// load that drifts during the run moves both alike: on a loaded machine, where the bench's rows
// spread by ±0.1, a change of a few per cent shows here. The order of loading favours one side a
// little: run it both ways (`--a` and `--b` swapped) and trust a change that shows in both.
// The events: what `--source`'s decoder reads from the bench's corpus (the HEP corpus by default;
// `codex`, `gemini`, `claude`, `opencode`, `cursor` read their own), as JSON copies; the baseline's
// records: what the `--a` build writes for them. docs/performance.md, "Round thirty-four".

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { alternate, OWN_FORMATS, ownCorpus } from './alternate.mjs';
import { chunk } from './corpus.mjs';
import { flag } from './flags.mjs';

const load = (dir) => import(pathToFileURL(resolve(String(dir), 'all.js')).href);
const A = await load(flag('a', 'dist'));
const B = await load(flag('b', 'dist'));
const key = String(flag('writer', 'codex'));
const source = String(flag('source', 'hep'));
const mb = Number(flag('mb', 10));
const rounds = Number(flag('rounds', 15));

/** The encoder options the bench gives each writer (bench/run.mjs). */
const OPTIONS = {
  agui: () => ({ framing: 'jsonl' }),
  aisdk: () => ({ framing: 'jsonl' }),
  gemini: () => ({ idSource: () => 's', clock: () => 0 }),
};
const options = () => OPTIONS[key]?.();

function eventsText() {
  const bytes = ownCorpus(source, mb);
  if (bytes === undefined) throw new Error(`--source: one of ${OWN_FORMATS.join(', ')}`);
  const d = A[source].createDecoder();
  const out = [];
  for (const c of chunk(bytes, 64 * 1024)) for (const ev of d.push(c)) out.push(ev);
  for (const ev of d.end()) out.push(ev);
  return JSON.stringify(out);
}

const text = eventsText();
// Each build its own copies: a writer may keep what it is given.
const eventsA = JSON.parse(text);
const eventsB = JSON.parse(text);
const records = [];
{
  const e = A[key].createEncoder(options());
  // A JSON line is a record; so is an SSE block's data line (the nativeharness writer's default
  // framing), as bench/run.mjs's baseline for that writer is the envelope's JSON.stringify.
  for (const ev of JSON.parse(text))
    for (const line of e.write(ev).split('\n')) {
      if (line.startsWith('{')) records.push(JSON.parse(line));
      else if (line.startsWith('data: {')) records.push(JSON.parse(line.slice(6)));
    }
}

// Every pipeline reads one character of each text it makes: a writer's rope is flattened there,
// as the first write to a stream would (bench/run.mjs does the same).
const writer = (lib, events) =>
  function writeAll() {
    const e = lib[key].createEncoder(options());
    let n = 0;
    for (const ev of events) {
      const t = e.write(ev);
      n += t.length === 0 ? 0 : t.charCodeAt(0);
    }
    return n + e.end().length;
  };
function stringifyAll() {
  let n = 0;
  for (const r of records) n += `${JSON.stringify(r)}\n`.charCodeAt(0);
  return n;
}
const runA = writer(A, eventsA);
const runB = writer(B, eventsB);

const { a, b } = alternate(runA, runB, stringifyAll, rounds);
console.log(
  `${key} writer fed ${source} events (${mb} MB, ${rounds} rounds), × JSON.stringify: a ${a.toFixed(3)}, b ${b.toFixed(3)}, b/a ${(b / a).toFixed(3)}`,
);
