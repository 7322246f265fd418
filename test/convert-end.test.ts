import { expect, test } from 'vitest';
import type { Codec } from '../src/codec';
import { convertStreamWith, convertWith } from '../src/convert-with';
import { AgentwireError, type Diagnostic, isAgentwireError } from '../src/diagnostics';
import { hep } from '../src/formats/hep/index';
import { highbar } from '../src/formats/highbar/index';

// A writer whose end() refuses: the conversion reports it as an error diagnostic and returns
// what was written, as for a refused event; with `strict` it throws. The writers refuse at the
// event that brought a value they cannot hold; this is the net for one that does not
// (test/fuzz/structured.test.ts found three that threw out of `convert` at the end).
const refusing: Codec = {
  ...hep,
  createEncoder(options) {
    const inner = hep.createEncoder(options);
    return {
      write: (event) => inner.write(event),
      end() {
        throw new AgentwireError({
          code: 'unencodable',
          severity: 'error',
          message: 'held value',
          format: 'hep',
        });
      },
    };
  },
};

const input = '{"v": 1, "type": "hello", "ts": 1.5, "sdk": "x"}\n';

test('a refusal at end() is an error diagnostic, not a throw', () => {
  const { output, diagnostics } = convertWith(input, { from: highbar, to: refusing });
  expect(output).toContain('hep_header');
  const ends = diagnostics.filter((d) => d.message.startsWith('the end not written'));
  expect(ends).toEqual([
    { code: 'unencodable', severity: 'error', message: 'the end not written: held value', format: 'hep' },
  ]);
});

test('the same through the stream, and strict still throws', async () => {
  const seen: Diagnostic[] = [];
  const pieces: string[] = [];
  for await (const piece of convertStreamWith([input], {
    from: highbar,
    to: refusing,
    onDiagnostic: (d) => seen.push(d),
  }))
    pieces.push(piece);
  expect(pieces.join('')).toContain('hep_header');
  expect(seen.map((d) => d.message)).toContain('the end not written: held value');
  let thrown: unknown;
  try {
    convertWith(input, { from: highbar, to: refusing, decode: { strict: true } });
  } catch (error) {
    thrown = error;
  }
  expect(isAgentwireError(thrown)).toBe(true);
});
