import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { hep } from '../../src/all';
import { expectGolden, expectSameAtAnyChunking } from '../golden';

const dir = 'fixtures/hep';
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();

describe.each(fixtures)('fixture %s', (name) => {
  const bytes = new Uint8Array(readFileSync(`${dir}/${name}`));
  const text = new TextDecoder().decode(bytes);
  const parsed = hep.parse(bytes);

  test('decodes to the committed golden events, without diagnostics', () => {
    expect(parsed.diagnostics).toEqual([]);
    expectGolden(`${dir}/${name.replace(/\.jsonl$/, '.golden.json')}`, parsed);
  });

  test('stringify(parse(x).events) === x, byte for byte', () => {
    expect(hep.stringify(parsed.events)).toBe(text);
  });

  test('conforms: check() reports nothing', () => {
    expect(hep.check(bytes)).toEqual([]);
  });

  test('string input and byte input decode alike', () => {
    expect(hep.parse(text)).toEqual(parsed);
  });

  test('any chunking, and byte by byte, gives the same events', () => {
    expectSameAtAnyChunking(() => hep.createDecoder(), bytes, parsed.events);
  });
});
