import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';

// A decoder reads a number through the guards (`num`, `finiteOr`, `isFiniteNumber`,
// `nonFiniteSeen`: src/guards.ts), which count a number past a double's range so the record's line
// gets a warning (src/codec.ts `readRecord`). A `Number.isFinite` of its own would leave such a
// field out silently. The calls below may stay, each for its reason; the list only shrinks (a
// count that no longer matches fails too).
const ALLOWED: Readonly<Record<string, { count: number; reason: string }>> = {
  'src/formats/amp/decode.ts': {
    count: 1,
    reason: 'the whole-usage fast path: a sum past a double takes the general path, which counts it',
  },
  'src/formats/opencode/decode.ts': {
    count: 1,
    reason: 'the whole-usage fast path: a sum past a double takes the general path, which counts it',
  },
  'src/formats/ag-ui/wire.ts': {
    count: 1,
    reason: 'count(): tells a non-finite count (counted) from a negative or fractional one',
  },
  'src/formats/highbar/decode.ts': {
    count: 3,
    reason:
      'highbar warns of its times itself (invalidTime); the third keeps a number spelling, the first times an invalid record, which has its error',
  },
};

const root = join(__dirname, '../..');

test('decoders read numbers through the guards that count the non-finite ones', () => {
  const found: Record<string, number> = {};
  for (const format of readdirSync(join(root, 'src/formats'), { withFileTypes: true })) {
    if (!format.isDirectory()) continue;
    for (const file of ['decode.ts', 'wire.ts']) {
      const path = `src/formats/${format.name}/${file}`;
      let text: string;
      try {
        text = readFileSync(join(root, path), 'utf8');
      } catch {
        continue;
      }
      const count = text.split('Number.isFinite(').length - 1;
      if (count > 0) found[path] = count;
    }
  }
  expect(found).toEqual(Object.fromEntries(Object.entries(ALLOWED).map(([path, a]) => [path, a.count])));
});
