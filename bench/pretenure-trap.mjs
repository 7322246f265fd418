// Usage: node --expose-gc --allow-natives-syntax --min-semi-space-size=16 bench/pretenure-trap.mjs <abs dist/all.js> opencode|cursor|amp|copilot
// (a diagnosis tool, round eighteen: docs/performance.md "OpenCode and Cursor decoders, round eighteen"); the trap is a race with the GC: run it a few times.
// Sets the pretenuring trap on purpose: decode with the last chunks' events held, scavenge when
// most recent objects are alive, then probe which fresh objects are born in the old generation.
import { generateCursor, generateOpencode } from './agents.mjs';
import { chunk, generateHep } from './corpus.mjs';

const lib = await import(process.argv[2]);
const key = process.argv[3] ?? 'opencode';
const codec = lib[key];
const viaHep = (mb) => {
  const d = lib.hep.createDecoder();
  const e = codec.createEncoder();
  let text = '';
  for (const c of chunk(generateHep({ mb }).buffer, 1 << 20)) for (const ev of d.push(c)) text += e.write(ev);
  for (const ev of d.end()) text += e.write(ev);
  return { buffer: Buffer.from(text + e.end()) };
};
const gen =
  key === 'cursor' ? generateCursor : key === 'opencode' ? generateOpencode : ({ mb }) => viaHep(mb);
const { buffer } = gen({ mb: 4 });
const chunks = chunk(buffer, 64 * 1024);
const held = [];
const d = codec.createDecoder();
for (let i = 0; i < (process.env.NOTRAP ? 0 : chunks.length); i++) {
  held.push(d.push(chunks[i]));
  if (held.length > 8) held.shift();
  if (i % 9 === 8) gc({ type: 'minor' });
}
held.length = 0;
gc();
// V8's natives syntax is not JavaScript a linter parses: the probe is compiled from text (needs --allow-natives-syntax).
const inYoung = new Function('o', 'return %InYoungGeneration(o)');
const young = (o) => (o !== null && typeof o === 'object' ? (inYoung(o) ? 'y' : 'O') : '-');
const seen = new Map();
const note = (k, o) => {
  const v = young(o);
  if (v === '-') return;
  const s = seen.get(k) ?? { y: 0, O: 0 };
  s[v]++;
  seen.set(k, s);
};
const d2 = codec.createDecoder();
const out = d2.push(chunks[1].subarray(0, 32768));
note('out[]', out);
for (const e of out) {
  const t = e.type;
  note(`event ${t}`, e);
  note('provenance', e.provenance);
  note('hints', e.provenance?.hints);
  const r = e.provenance?.hints?.record;
  note('record', r);
  note(`record.part ${r?.part?.type}`, r?.part);
  note(`state.time ${r?.part?.type}`, r?.part?.state?.time ?? r?.part?.time);
  note(`tokens`, r?.part?.tokens);
  note('record.part.state', r?.part?.state);
  note('usage', e.usage);
  note('args', e.args);
}
if (process.env.TIMED) {
  const { buffer: big } = gen({ mb: 20 });
  const cs = chunk(big, 64 * 1024);
  const warm = cs.slice(0, 32);
  const bare = (xs) => {
    for (const c of xs) {
      const t = c.latin1Slice(0, c.length);
      let s = 0;
      for (;;) {
        const e = t.indexOf('\n', s);
        if (e === -1) break;
        try {
          JSON.parse(t.slice(s, e));
        } catch {}
        s = e + 1;
      }
    }
  };
  const dec = (xs) => {
    const x = codec.createDecoder();
    for (const c of xs) x.push(c);
    x.end();
  };
  const cpu = (f) => {
    gc();
    f(warm);
    const c0 = process.cpuUsage();
    f(cs);
    const u = process.cpuUsage(c0);
    return (u.user + u.system) / 1000;
  };
  const rs = [];
  for (let i = 0; i < 5; i++) {
    const b = cpu(bare);
    const t = cpu(dec);
    rs.push(`${b.toFixed(0)}/${t.toFixed(0)}`);
  }
  console.log('  bare/decoder cpu ms per run:', rs.join(' '));
}
console.log(
  key,
  process.argv[2].includes('base') ? 'base' : 'branch',
  [...seen].map(([k, s]) => `${k}:${s.O ? `OLD ${s.O}/${s.O + s.y}` : 'young'}`).join('  '),
);
