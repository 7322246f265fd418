import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type Codec, convert, convertStreamWith, convertWith, FORMATS } from '../src/all';
import type { Diagnostic } from '../src/diagnostics';
import { codecFor } from '../src/formats/index';
import { listFixtures, loadFixture } from '../src/node/fixtures';

// convertWith / convertStreamWith (the `agentwire` entry): the codecs passed in, no registry.
// They give what `convert` / `convertStream` by format id give, for every fixture and target,
// and the stream gives the whole input's text and diagnostics under any chunking.

function deterministic() {
  let n = 0;
  return { clock: () => 1767225600000, idSource: () => `id-${++n}` };
}

const said = (ds: Diagnostic[]) => ds.map((d) => `${d.severity} ${d.code} ${d.line ?? ''} ${d.message}`);
const fixtures = listFixtures().filter((f) => !f.name.includes('.'));

describe.each(fixtures.map((f) => [`${f.format}/${f.name}`, f] as const))(
  'convertWith %s',
  (_label, info) => {
    const fx = loadFixture(info.format, info.name);
    const from = codecFor(fx.format) as Codec;

    test.each(FORMATS.filter((f) => f !== fx.format))('→ %s: what convert by id gives', (to) => {
      const byId = convert(fx.bytes, { from: fx.format, to, ...deterministic() });
      const seen: Diagnostic[] = [];
      const withCodecs = convertWith(fx.bytes, {
        from,
        to: codecFor(to) as Codec,
        ...deterministic(),
        onDiagnostic: (d) => seen.push(d),
      });
      expect(withCodecs.output).toBe(byId.output);
      expect(withCodecs.from).toBe(fx.format);
      expect(said(withCodecs.diagnostics)).toEqual(said(byId.diagnostics));
      expect(seen).toEqual(withCodecs.diagnostics);
    });
  },
);

async function collect(pieces: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const p of pieces) out += p;
  return out;
}

async function* chunked(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    yield bytes.subarray(at, c);
    at = c;
  }
  yield bytes.subarray(at);
}

test('convertStreamWith: the whole conversion, in any chunking, per event or batched', async () => {
  const cases = fixtures.map((f) => loadFixture(f.format, f.name));
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: cases.length - 1 }),
      fc.constantFrom(...FORMATS),
      fc.array(fc.nat(), { maxLength: 8 }),
      fc.boolean(),
      async (i, to, raw, batch) => {
        const fx = cases[i]!;
        const cuts = raw.map((n) => n % (fx.bytes.length + 1));
        const options = { from: codecFor(fx.format) as Codec, to: codecFor(to) as Codec };
        const whole = convertWith(fx.bytes, { ...options, ...deterministic() });
        const seen: Diagnostic[] = [];
        const streamed = await collect(
          convertStreamWith(chunked(fx.bytes, cuts), {
            ...options,
            ...deterministic(),
            batch,
            onDiagnostic: (d) => seen.push(d),
          }),
        );
        expect(streamed).toBe(whole.output);
        // The same diagnostics; the order differs by design: the whole conversion decodes the
        // input before it writes, a stream reports each line's as the line goes through.
        expect(said(seen).sort()).toEqual(said(whole.diagnostics).sort());
      },
    ),
    { numRuns: 200 },
  );
});
