import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, claude } from '../../src/all';
import { expectGolden, expectSameAtAnyChunking } from '../golden';

const dir = 'fixtures/claude';
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();

describe.each(fixtures)('fixture %s', (name) => {
  const bytes = new Uint8Array(readFileSync(`${dir}/${name}`));
  const text = new TextDecoder().decode(bytes);
  const parsed = claude.parse(bytes);

  test('decodes to the committed golden events, without diagnostics', () => {
    expect(parsed.diagnostics).toEqual([]);
    expectGolden(`${dir}/${name.replace(/\.jsonl$/, '.golden.json')}`, parsed);
  });

  test('stringify(parse(x).events) === x, byte for byte', () => {
    expect(claude.stringify(parsed.events)).toBe(text);
  });

  test('a JSON copy of the events (hints as data) still writes the same bytes', () => {
    const copy = JSON.parse(JSON.stringify(parsed.events)) as AgentEvent[];
    expect(claude.stringify(copy)).toBe(text);
  });

  // A run without its result is incomplete, never clean: one warning where the decoder ended it.
  test('conforms: check() reports nothing (a missing result: one incomplete-run warning)', () => {
    const ended = parsed.events.filter(
      (e) => e.type === 'run.end' && e.status === 'incomplete' && e.provenance?.synthetic === true,
    );
    expect(ended.length > 0).toBe(name === 'missing-result.jsonl');
    expect(claude.check(bytes).map((d) => `${d.severity} ${d.code} ${d.message}`)).toEqual(
      ended.map(
        ({ provenance: p }) =>
          `warning order line ${p!.line} (byte ${p!.offset}): the run ends without its result record: it is incomplete`,
      ),
    );
  });

  test('string input and byte input decode alike', () => {
    expect(claude.parse(text)).toEqual(parsed);
  });

  test('any chunking, and byte by byte, gives the same events', () => {
    expectSameAtAnyChunking(() => claude.createDecoder(), bytes, parsed.events);
  });

  test('the streaming writer gives the same bytes event by event', async () => {
    let out = '';
    for await (const piece of claude.encode(parsed.events)) out += piece;
    expect(out).toBe(text);
  });
});
