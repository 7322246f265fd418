import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Codec } from '../src/codec';
import type { Diagnostic, Format } from '../src/diagnostics';
import type { AgentEvent } from '../src/model';
import { chunkAt, expectGolden } from './golden';

// The shared suites of the CLI-agent codecs: the real captures in ../shared/captures (reference
// data, read at run time, never copied here) and the project's own fixtures with goldens.

/** The captures folder; the suite fails loudly when it is missing. */
export const CAPTURES = fileURLToPath(new URL('../../shared/captures/', import.meta.url));

/** The capture files of one agent, as `[name, bytes]`. Throws when the folder is missing. */
export function captures(agent: string): Array<[string, Uint8Array]> {
  const dir = `${CAPTURES}${agent}`;
  if (!existsSync(dir)) throw new Error(`the captures folder ${dir} is missing (../shared/captures)`);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
  if (files.length === 0) throw new Error(`no captures in ${dir}`);
  return files.map((f) => [f, new Uint8Array(readFileSync(`${dir}/${f}`))]);
}

/** Events with the kept raw lines taken out: the writer must rebuild every line from the model. */
export function withoutRaw(events: AgentEvent[]): AgentEvent[] {
  return events.map((e) => {
    const hints = e.provenance?.hints;
    if (hints === undefined) return e;
    const { raw: _raw, ...rest } = hints;
    return { ...e, provenance: { ...e.provenance!, hints: rest } };
  });
}

/** Decodes `bytes` pushed in the given pieces. */
export function decodeChunks(codec: Codec, pieces: Uint8Array[]): AgentEvent[] {
  const decoder = codec.createDecoder();
  const events = pieces.flatMap((c) => decoder.push(c));
  events.push(...decoder.end());
  return events;
}

const errors = (ds: Diagnostic[]) => ds.filter((d) => d.severity === 'error');

/** Byte-exact round trips of every capture of `agent`, with no error diagnostics. */
export function captureSuite(codec: Codec, agent: string, format: Format): void {
  describe.each(captures(agent))(`capture ${agent}/%s`, (_name, bytes) => {
    const text = new TextDecoder().decode(bytes);
    const parsed = codec.parse(bytes);

    test('decodes without error diagnostics; stringify gives the bytes back', () => {
      expect(errors(parsed.diagnostics)).toEqual([]);
      expect(codec.stringify(parsed.events)).toBe(text);
    });

    test('the writer rebuilds every line from the model alone (no kept raw line)', () => {
      expect(codec.stringify(withoutRaw(parsed.events))).toBe(text);
    });

    test('is detected as its format', async () => {
      const { detectFormat } = await import('../src/detect');
      expect(detectFormat(bytes)?.format).toBe(format);
    });

    test('any chunking gives the same events', () => {
      fc.assert(
        fc.property(fc.array(fc.nat({ max: bytes.length }), { maxLength: 16 }), (cuts) => {
          expect(decodeChunks(codec, chunkAt(bytes, cuts))).toEqual(parsed.events);
        }),
        { numRuns: 60 },
      );
    });
  });
}

/**
 * The project's own fixtures of a format: golden events and diagnostics, byte-exact round trip,
 * string and bytes alike, any chunking and byte by byte, and `check()` as expected.
 */
export function fixtureSuite(
  codec: Codec & { check(input: Uint8Array): Diagnostic[] },
  format: Format,
  expectCheck: Record<string, string[]> = {},
): void {
  const dir = `fixtures/${format}`;
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
  describe.each(names)(`fixture ${format}/%s`, (name) => {
    const bytes = new Uint8Array(readFileSync(`${dir}/${name}`));
    const text = new TextDecoder().decode(bytes);
    const parsed = codec.parse(bytes);

    test('decodes to the committed golden events and diagnostics', () => {
      expectGolden(`${dir}/${name.replace(/\.jsonl$/, '.golden.json')}`, parsed);
    });

    test('stringify(parse(x).events) === x, byte for byte, also rebuilt from the model', () => {
      // A line that is not JSON yields no event (only its diagnostic): it is the one line missing.
      const refused = new Set(parsed.diagnostics.filter((d) => d.code === 'invalid_json').map((d) => d.line));
      const kept = text
        .split('\n')
        .filter((_, i) => !refused.has(i + 1))
        .join('\n');
      expect(codec.stringify(parsed.events)).toBe(kept);
      expect(codec.stringify(withoutRaw(parsed.events))).toBe(kept);
    });

    test('string input and byte input decode alike', () => {
      expect(codec.parse(text)).toEqual(parsed);
    });

    test('any chunking, and byte by byte, gives the same events', () => {
      fc.assert(
        fc.property(fc.array(fc.nat({ max: bytes.length }), { maxLength: 12 }), (cuts) => {
          expect(decodeChunks(codec, chunkAt(bytes, cuts))).toEqual(parsed.events);
        }),
        { numRuns: 40 },
      );
      const bytewise = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
      expect(decodeChunks(codec, bytewise)).toEqual(parsed.events);
    });

    test('check() finds what the fixture is about, and nothing else', () => {
      const found = codec.check(bytes).map((d) => `${d.severity} ${d.code} @${d.line}`);
      expect(found).toEqual(expectCheck[name.replace(/\.jsonl$/, '')] ?? []);
    });
  });
}
