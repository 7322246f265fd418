import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Metafile as EsbuildMetafile } from 'esbuild';
import { describe, expect, test } from 'vitest';
// @ts-expect-error: a plain .mjs helper shared with scripts/size.mjs (no type declarations)
import { bundle } from '../scripts/entries.mjs';
import { FORMATS } from '../src/diagnostics';
import type { AgentEvent } from '../src/model';

// Every format entry exports its codec's two halves, `<codec>Reader` and `<codec>Writer`, beside
// the full codec, which is the two joined (src/codec.ts `joinCodec`): a half reads or writes
// exactly as the full codec does, and a bundle of one half holds no byte of the other's code.

const READER_MEMBERS = [
  'batchDecoderStream',
  'check',
  'checkerStream',
  'createChecker',
  'createDecoder',
  'decode',
  'decoderStream',
  'format',
  'parse',
];
const WRITER_MEMBERS = ['createEncoder', 'encode', 'encoderStream', 'format', 'stringify'];
// A format's own members beyond the shared ones, by half.
const READER_EXTRAS: Record<string, string[]> = { highbar: ['declaredTools', 'matchContext'] };
const WRITER_EXTRAS: Record<string, string[]> = { 'ai-sdk': ['toResponse'] };

interface Half {
  format: string;
  parse(input: string): { events: AgentEvent[]; diagnostics: unknown[] };
  check(input: string): unknown[];
  stringify(events: Iterable<AgentEvent>, options?: object): string;
}

async function entry(format: string): Promise<{ codec: Half; reader: Half; writer: Half }> {
  const module = (await import(`../src/formats/${format}/index.ts`)) as Record<string, Half>;
  const name = format.replaceAll('-', '');
  return { codec: module[name]!, reader: module[`${name}Reader`]!, writer: module[`${name}Writer`]! };
}

// The inputs of a format's fixtures (its goldens are the `.json` files beside them).
function inputs(format: string): string[] {
  const dir = join('fixtures', format);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl') || f.endsWith('.sse'))
    .map((f) => readFileSync(join(dir, f), 'utf8'));
}

// Writer options that make every writer's made-up ids and times the same from call to call.
function fixedOptions(): object {
  let n = 0;
  return { idSource: () => `id-${n++}`, clock: () => 0 };
}

describe.each(FORMATS)('%s: reader and writer halves', (format) => {
  test('each half has its members, and the full codec both', async () => {
    const { codec, reader, writer } = await entry(format);
    const readerKeys = [...READER_MEMBERS, ...(READER_EXTRAS[format] ?? [])].sort();
    const writerKeys = [...WRITER_MEMBERS, ...(WRITER_EXTRAS[format] ?? [])].sort();
    expect(Object.keys(reader).sort()).toEqual(readerKeys);
    expect(Object.keys(writer).sort()).toEqual(writerKeys);
    expect(Object.keys(codec).sort()).toEqual([...new Set([...readerKeys, ...writerKeys])].sort());
    expect(reader.format).toBe(codec.format);
    expect(writer.format).toBe(codec.format);
  });

  test("xReader.parse and xReader.check equal the codec's; xWriter.stringify equals the codec's", async () => {
    const { codec, reader, writer } = await entry(format);
    const texts = inputs(format);
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) {
      const parsed = codec.parse(text);
      expect(reader.parse(text)).toEqual(parsed);
      expect(reader.check(text)).toEqual(codec.check(text));
      expect(writer.stringify(parsed.events, fixedOptions())).toBe(
        codec.stringify(parsed.events, fixedOptions()),
      );
    }
  });
});

type Metafile = { metafile: EsbuildMetafile };

// The sources of a bundle that exports only `name` from a format entry, with the bytes each
// source puts in it (the bundle scripts/size.mjs measures).
async function bundled(format: string, name: string): Promise<Map<string, number>> {
  const result: Metafile = await bundle(`src/formats/${format}/index.ts`, name);
  const output = Object.values(result.metafile.outputs)[0]!;
  const out = new Map<string, number>();
  for (const [path, info] of Object.entries(output.inputs))
    if (info.bytesInOutput > 0) out.set(path, info.bytesInOutput);
  return out;
}

describe('a half bundles alone', () => {
  test.each(FORMATS)(
    '%s: the reader holds no byte of the writer, the writer none of the decoder',
    async (format) => {
      const name = format.replaceAll('-', '');
      const folder = `src/formats/${format}/`;
      const reader = await bundled(format, `${name}Reader`);
      const writer = await bundled(format, `${name}Writer`);
      expect([...reader.keys()].filter((p) => p.startsWith(folder))).not.toContain(`${folder}encode.ts`);
      const writerFiles = [...writer.keys()].filter((p) => p.startsWith(folder));
      expect(writerFiles).not.toContain(`${folder}decode.ts`);
      expect(writerFiles).not.toContain(`${folder}check.ts`);
      // Each half still holds its own side.
      expect(reader.has(`${folder}decode.ts`)).toBe(true);
      expect(writer.has(`${folder}encode.ts`)).toBe(true);
    },
    60_000,
  );
});
