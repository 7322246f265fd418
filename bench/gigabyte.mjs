// 1 GB of HEP frames through `hep.decode()`, in a process of its own: RSS only says what the
// decoder retains when nothing else (the big corpora of run.mjs) has grown the heap first.
// Usage: node --expose-gc bench/gigabyte.mjs <library path>; prints one JSON line.
import { pathToFileURL } from 'node:url';
import { hepChunkStream } from './corpus.mjs';

const { hep } = await import(pathToFileURL(process.argv[2]).href);
// A 4 MiB stream of whole rounds, fed again and again (generating 1 GB on the fly would measure
// the generator's garbage too).
const chunks = [...hepChunkStream({ bytes: 4 * 1024 * 1024 })];
const bytes = chunks.reduce((a, c) => a + c.length, 0);
const passes = Math.ceil(1024 ** 3 / bytes);
globalThis.gc?.();
const rss0 = process.memoryUsage.rss();
let rssPeak = rss0;
let heapPeak = 0;
let n = 0;
async function* source() {
  for (let p = 0; p < passes; p++) {
    for (const c of chunks) {
      yield c;
      if ((++n & 255) === 0) {
        const m = process.memoryUsage();
        rssPeak = Math.max(rssPeak, m.rss);
        heapPeak = Math.max(heapPeak, m.heapUsed);
      }
    }
  }
}
let events = 0;
const t0 = performance.now();
for await (const _ of hep.decode(source())) events++;
console.log(
  JSON.stringify({
    gib: (passes * bytes) / 1024 ** 3,
    events,
    seconds: (performance.now() - t0) / 1000,
    rssGrowthMB: (rssPeak - rss0) / 2 ** 20,
    heapPeakMB: heapPeak / 2 ** 20,
  }),
);
