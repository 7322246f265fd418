import { readdirSync, readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { hep } from '../../src/index';

for (const f of readdirSync('fixtures/hep').filter((f) => f.endsWith('.jsonl'))) {
  test(f, () => {
    const text = readFileSync(`fixtures/hep/${f}`, 'utf8');
    const { events, diagnostics } = hep.parse(text);
    expect(diagnostics).toEqual([]);
    expect(hep.stringify(events)).toBe(text);
    expect(hep.check(text)).toEqual([]);
  });
}
