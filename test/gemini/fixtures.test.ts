import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { detectFormat, gemini } from '../../src/all';
import { expectGolden, expectSameAtAnyChunking } from '../golden';

const dir = 'fixtures/gemini';
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();

describe.each(fixtures)('fixture %s', (name) => {
  const bytes = new Uint8Array(readFileSync(`${dir}/${name}`));
  const text = new TextDecoder().decode(bytes);
  const parsed = gemini.parse(bytes);

  test('decodes to the committed golden events and diagnostics, none of them an error', () => {
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expectGolden(`${dir}/${name.replace(/\.jsonl$/, '.golden.json')}`, parsed);
  });

  test('stringify(parse(x).events) === x, byte for byte', () => {
    expect(gemini.stringify(parsed.events)).toBe(text);
  });

  test('is detected as gemini', () => {
    expect(detectFormat(bytes)?.format).toBe('gemini');
  });

  test('string input and byte input decode alike', () => {
    expect(gemini.parse(text)).toEqual(parsed);
  });

  test('any chunking, and byte by byte, gives the same events', () => {
    expectSameAtAnyChunking(() => gemini.createDecoder(), bytes, parsed.events);
  });

  test('encode() in pieces gives the same bytes as stringify()', async () => {
    let streamed = '';
    for await (const piece of gemini.encode(parsed.events)) streamed += piece;
    expect(streamed).toBe(text);
  });
});
