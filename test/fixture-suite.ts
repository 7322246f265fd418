import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Codec } from '../src/codec';
import type { Diagnostic } from '../src/diagnostics';
import type { AgentEvent } from '../src/model';
import { chunkAt, expectGolden } from './golden';
import { FUZZ_RUNS } from './runs';

/** A codec with its checker, as every JSON Lines agent format exports it. */
export interface CheckedCodec extends Codec {
  check(input: string | Uint8Array): Diagnostic[];
}

/**
 * The suite every fixture of a JSON Lines format passes: golden events (and the diagnostics the
 * fixture is meant to raise), byte-exact `stringify(parse(x))`, the checker's findings pinned,
 * string and byte input alike, and the same events at every chunking (a property) and byte by byte.
 */
export function fixtureSuite(codec: CheckedCodec, dir: string): void {
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
  describe.each(names)(`${codec.format} fixture %s`, (name) => {
    const bytes = new Uint8Array(readFileSync(`${dir}/${name}`));
    const text = new TextDecoder().decode(bytes);
    const parsed = codec.parse(bytes);
    const base = `${dir}/${name.replace(/\.jsonl$/, '')}`;

    test('decodes to the committed golden events and diagnostics', () => {
      expectGolden(`${base}.golden.json`, parsed);
    });

    test('stringify(parse(x).events) === x, byte for byte', () => {
      expect(codec.stringify(parsed.events)).toBe(text);
    });

    test('check() findings are the committed ones', () => {
      expectGolden(
        `${base}.check.json`,
        codec.check(bytes).map((d) => `${d.severity} ${d.code} @${d.line ?? '-'}: ${d.message}`),
      );
    });

    test('string input and byte input decode alike', () => {
      expect(codec.parse(text)).toEqual(parsed);
    });

    test('any chunking, and byte by byte, gives the same events', () => {
      const decodeChunks = (chunks: Uint8Array[]): AgentEvent[] => {
        const decoder = codec.createDecoder();
        const events = chunks.flatMap((c) => decoder.push(c));
        events.push(...decoder.end());
        return events;
      };
      fc.assert(
        fc.property(fc.array(fc.nat({ max: bytes.length }), { maxLength: 12 }), (cuts) => {
          expect(decodeChunks(chunkAt(bytes, cuts))).toEqual(parsed.events);
        }),
        { numRuns: Math.max(20, Math.floor(FUZZ_RUNS / 5)) },
      );
      const single = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
      expect(decodeChunks(single)).toEqual(parsed.events);
    });

    test('events written from the model alone (no kept records) decode to the same story', () => {
      // Derived events keep their provenance: they say what their record implied, not a record.
      const bare = parsed.events.map((e) => {
        if (e.provenance?.synthetic) return e;
        const { provenance: _, ...rest } = e;
        return rest as AgentEvent;
      });
      const again = codec.parse(codec.stringify(bare));
      expect(again.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const story = (events: AgentEvent[]) =>
        events
          .filter((e) => e.type !== 'unknown')
          .map((e) => (e.type === 'run.end' ? `${e.type}:${e.status}` : e.type));
      expect(story(again.events)).toEqual(story(parsed.events));
    });
  });
}
