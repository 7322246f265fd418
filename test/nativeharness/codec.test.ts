import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type NhFraming, nativeharness } from '../../src/formats/nativeharness/index';
import type { AgentEvent } from '../../src/model';
import { chunkAt, expectGolden } from '../golden';

const DIR = 'fixtures/nativeharness';
const names = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => f.slice(0, -'.jsonl'.length));
const EXT: Record<NhFraming, string> = { sse: 'sse', json: 'json', jsonl: 'jsonl' };

function withoutPlace(events: AgentEvent[]): unknown[] {
  return events.map((e) => {
    if (e.provenance === undefined) return e;
    const { line: _l, offset: _o, ...rest } = e.provenance;
    return { ...e, provenance: rest };
  });
}

function decodeChunks(chunks: Uint8Array[], framing?: NhFraming): AgentEvent[] {
  const decoder = nativeharness.createDecoder(framing === undefined ? {} : { framing });
  const events: AgentEvent[] = [];
  for (const c of chunks) events.push(...decoder.push(c));
  events.push(...decoder.end());
  return events;
}

describe('fixtures', () => {
  for (const name of names) {
    test(`${name}: golden, byte-exact in every framing, same events in every framing`, () => {
      const sseText = readFileSync(`${DIR}/${name}.sse`, 'utf8');
      const golden = nativeharness.parse(sseText);
      expectGolden(`${DIR}/${name}.golden.json`, golden);
      expect(golden.diagnostics).toEqual([]);
      for (const framing of ['sse', 'json', 'jsonl'] as const) {
        const text = readFileSync(`${DIR}/${name}.${EXT[framing]}`, 'utf8');
        const { events, diagnostics } = nativeharness.parse(text);
        expect(diagnostics).toEqual([]);
        expect(withoutPlace(events)).toEqual(withoutPlace(golden.events));
        expect(nativeharness.stringify(events, { framing })).toBe(text);
        // Converted across framings, too.
        const other = framing === 'sse' ? 'jsonl' : 'sse';
        expect(nativeharness.stringify(events, { framing: other })).toBe(
          readFileSync(`${DIR}/${name}.${EXT[other]}`, 'utf8'),
        );
      }
    });
  }
});

describe('chunking invariance', () => {
  for (const name of names) {
    for (const framing of ['sse', 'json', 'jsonl'] as const) {
      test(`${name}.${framing}: any chunking, byte by byte, detected or given framing`, () => {
        const bytes = readFileSync(`${DIR}/${name}.${EXT[framing]}`);
        const whole = nativeharness.parse(bytes).events;
        expect(decodeChunks([...bytes].map((b) => Uint8Array.of(b)))).toEqual(whole);
        fc.assert(
          fc.property(fc.array(fc.nat(bytes.length), { maxLength: 12 }), fc.boolean(), (cuts, given) => {
            const events = decodeChunks(chunkAt(bytes, cuts), given ? framing : undefined);
            expect(events).toEqual(whole);
          }),
          { numRuns: 25 },
        );
      });
    }
  }
});
