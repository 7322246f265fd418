import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { codex, validateEvent } from '../../src/all';
import { expectGolden, expectSameAtAnyChunking } from '../golden';

const dir = 'fixtures/codex';
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();

// What check() must say beyond nothing, per fixture.
const CHECK: Record<string, string[]> = {
  'incomplete.jsonl': ['error order @2', 'warning order @3'],
};

describe.each(fixtures)('fixture %s', (name) => {
  const bytes = new Uint8Array(readFileSync(`${dir}/${name}`));
  const text = new TextDecoder().decode(bytes);
  const parsed = codex.parse(bytes);

  test('decodes to the committed golden events, without diagnostics', () => {
    expect(parsed.diagnostics).toEqual([]);
    expectGolden(`${dir}/${name.replace(/\.jsonl$/, '.golden.json')}`, parsed);
  });

  test('every event is a valid canonical event', () => {
    for (const e of parsed.events) expect(validateEvent(e).success, JSON.stringify(e)).toBe(true);
  });

  test('stringify(parse(x).events) === x, byte for byte', () => {
    expect(codex.stringify(parsed.events)).toBe(text);
  });

  test('check() finds only what the fixture is about', () => {
    expect(codex.check(bytes).map((d) => `${d.severity} ${d.code} @${d.line}`)).toEqual(CHECK[name] ?? []);
  });

  test('string input and byte input decode alike', () => {
    expect(codex.parse(text)).toEqual(parsed);
  });

  test('any chunking, and byte by byte, gives the same events', () => {
    expectSameAtAnyChunking(() => codex.createDecoder(), bytes, parsed.events);
  });

  test('the push encoder gives the same bytes event by event', () => {
    const encoder = codex.createEncoder();
    let out = '';
    for (const e of parsed.events) out += encoder.write(e);
    expect(out + encoder.end()).toBe(text);
  });
});
