import { describe, expect, test } from 'vitest';
import type { CheckingCodec, Diagnostic } from '../src/all';
import { codecs } from '../src/formats';
import { listFixtures, loadFixture } from '../src/node/fixtures';

// A stream without a single record is never called clean: `check`, `createChecker` and
// `checkerStream` of every format say it is empty (HEP by its own rule: no hep_header, an error),
// and a stream with records never gets that warning.

const EMPTY = 'line 1 (byte 0): the stream has no records, so no run started or ended';
const CODECS = Object.values(codecs) as CheckingCodec[];

async function viaStream(codec: CheckingCodec, input: string): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  const stream = new Blob([input]).stream().pipeThrough(codec.checkerStream());
  for await (const d of stream as unknown as AsyncIterable<Diagnostic>) out.push(d);
  return out;
}

function viaChecker(codec: CheckingCodec, input: string): Diagnostic[] {
  const checker = codec.createChecker();
  return [...checker.push(input), ...checker.end()];
}

describe.each(CODECS.map((c) => [c.format, c] as const))('%s', (format, codec) => {
  test.each(['', '\n', '\n\n'])(
    'an empty stream (%j) is said to be one, by every checking path',
    async (input) => {
      for (const found of [codec.check(input), viaChecker(codec, input), await viaStream(codec, input)]) {
        const problems = found.filter((d) => d.severity !== 'info');
        if (format === 'hep') {
          expect(problems).toMatchObject([
            { code: 'order', severity: 'error', message: 'the stream is empty: no hep_header' },
          ]);
          continue;
        }
        expect(problems).toEqual([
          { code: 'order', severity: 'warning', message: EMPTY, line: 1, offset: 0, format },
        ]);
      }
    },
  );

  test('a stream with records is never said to be empty', () => {
    for (const info of listFixtures().filter((f) => f.format === format && !f.name.includes('.'))) {
      const fx = loadFixture(format, info.name);
      expect(codec.check(fx.bytes).filter((d) => d.message === EMPTY)).toEqual([]);
    }
  });
});

test('Gemini CLI: banners and no init is a stream without records', () => {
  const found = (codecs.gemini as CheckingCodec).check('Loaded cached credentials.\nError: quota exceeded\n');
  expect(found.filter((d) => d.severity !== 'info')).toMatchObject([
    { code: 'order', severity: 'warning', message: EMPTY },
  ]);
});
