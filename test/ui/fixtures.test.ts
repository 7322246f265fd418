import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { agui, aisdk } from '../../src/all';
import type { Codec } from '../../src/codec';
import { detectFormat } from '../../src/detect';
import type { Diagnostic, Format } from '../../src/diagnostics';
import { decodeChunks, withoutRaw } from '../agent-suite';
import { chunkAt, expectGolden } from '../golden';

// The UI protocols' own fixtures: golden events and diagnostics, byte-exact round trips (also
// rebuilt from the kept records alone), any chunking and byte by byte, and check() as expected.

const CODECS: Array<[Format, Codec & { check(input: Uint8Array): Diagnostic[] }]> = [
  ['ag-ui', agui],
  ['ai-sdk', aisdk],
];

const CHECK: Record<string, string[]> = {
  'ag-ui/run-error.jsonl': ['error invalid_json @7', 'error invalid_record @9', 'warning order @9'],
  // A run its decoder had to end (no terminal record) is a warning, never a clean stream.
  'ai-sdk/cut-off.sse': ['error invalid_json @9', 'warning order @11'],
};

/** The input without the records the decoder refused as not JSON (they yield no event). */
function withoutRefused(text: string, sse: boolean, diagnostics: Diagnostic[]): string {
  const refused = new Set(diagnostics.filter((d) => d.code === 'invalid_json').map((d) => d.line));
  if (!sse) {
    return text
      .split('\n')
      .filter((_, i) => !refused.has(i + 1))
      .join('\n');
  }
  const blocks = text.split(/(?<=\n\n)/);
  let line = 1;
  return blocks
    .filter((b) => {
      const first = line;
      line += b.split('\n').length - 1;
      return !refused.has(first);
    })
    .join('');
}

describe.each(CODECS)('%s fixtures', (format, codec) => {
  const dir = `fixtures/${format}`;
  const names = readdirSync(dir)
    .filter((f) => /\.(sse|jsonl)$/.test(f))
    .sort();

  describe.each(names)('%s', (name) => {
    const bytes = new Uint8Array(readFileSync(`${dir}/${name}`));
    const text = new TextDecoder().decode(bytes);
    const sse = name.endsWith('.sse');
    const parsed = codec.parse(bytes);
    const golden = sse ? name.replace(/\.sse$/, '.golden.json') : `${name}.golden.json`;

    test('decodes to the committed golden events and diagnostics', () => {
      expectGolden(`${dir}/${golden}`, parsed);
    });

    test('stringify(parse(x).events) === x, byte for byte, also rebuilt from the kept records', () => {
      const kept = withoutRefused(text, sse, parsed.diagnostics);
      expect(codec.stringify(parsed.events)).toBe(kept);
      expect(codec.stringify(withoutRaw(parsed.events))).toBe(kept);
    });

    test('the other framing carries the same events', () => {
      const other = codec.stringify(parsed.events, { framing: sse ? 'jsonl' : 'sse' } as object);
      const again = codec.parse(other);
      const strip = (es: typeof parsed.events) =>
        es.map((e) => {
          const { provenance: _p, ...rest } = e;
          return rest;
        });
      expect(strip(again.events)).toEqual(strip(parsed.events));
    });

    // The framing named by the caller wins over the first byte: a damaged first line (which would
    // make a stream starting with `{` look like JSON Lines, or one starting with `"` like SSE)
    // costs that line only.
    test('framing given: the same events, and a damaged first line costs only itself', () => {
      const framing = sse ? 'sse' : 'jsonl';
      const strip = (es: typeof parsed.events) =>
        es.map((e) => {
          const { provenance: _p, ...rest } = e;
          return rest;
        });
      expect(codec.parse(bytes, { framing } as object)).toEqual(parsed);
      for (const junk of sse ? ['{oops\n\n', '[1]\n\n'] : ['"x"\n', 'data: {}\n']) {
        const damaged = codec.parse(junk + text, { framing } as object);
        expect(strip(damaged.events.filter((e) => e.provenance!.line > 1 + (sse ? 1 : 0)))).toEqual(
          strip(parsed.events),
        );
        expect(damaged.diagnostics.filter((d) => d.line === 1).length).toBeGreaterThan(0);
        // Without the option the first byte decides, and the damaged line takes the stream with it.
        expect(codec.parse(junk + text).events.length).toBeLessThan(parsed.events.length);
      }
    });

    test('string input and byte input decode alike; detected as its format', () => {
      expect(codec.parse(text)).toEqual(parsed);
      expect(detectFormat(bytes)?.format).toBe(format);
    });

    test('any chunking, and byte by byte, gives the same events', () => {
      fc.assert(
        fc.property(fc.array(fc.nat({ max: bytes.length }), { maxLength: 12 }), (cuts) => {
          expect(decodeChunks(codec, chunkAt(bytes, cuts))).toEqual(parsed.events);
        }),
        { numRuns: 40 },
      );
      const oneByOne = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
      expect(decodeChunks(codec, oneByOne)).toEqual(parsed.events);
    });

    test('check() finds what is expected', () => {
      const found = codec
        .check(bytes)
        .map((d) => `${d.severity} ${d.code}${d.line !== undefined ? ` @${d.line}` : ''}`);
      expect(found).toEqual(CHECK[`${format}/${name}`] ?? []);
    });
  });
});
