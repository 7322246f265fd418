import fc from 'fast-check';
import { expect, test } from 'vitest';
import { encodePieces, PIECE_BYTES } from '../src/write-pieces';

// Issue #24: the CLI writes a long text to a file or a pipe through one reused buffer (src/write-pieces.ts)
// instead of `writeSync(fd, text)`, which writes the text's UTF-8 with a lone surrogate as U+FFFD
// (what `Buffer.from(text)` gives). The pieces must add up to those bytes, whatever the buffer's
// size and wherever a multi-byte character or a surrogate pair meets a piece's end.

function piecesOf(text: string, size: number): Buffer {
  const parts: Buffer[] = [];
  const piece = new Uint8Array(size);
  for (const length of encodePieces(text, piece)) parts.push(Buffer.from(piece.subarray(0, length)));
  return Buffer.concat(parts);
}

// Text of every width: ASCII, two- and three-byte characters, pairs and lone surrogates.
const units = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 2, arbitrary: fc.constantFrom('é', 'ß', '€', '漢', '\u2028', '😀', '𝄞') },
  { weight: 1, arbitrary: fc.constantFrom('\uD800', '\uDFFF', '\uDBFF\uDBFF', '\uDC00\uD800') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
);
const texts = fc.array(units, { maxLength: 80 }).map((parts) => parts.join(''));

test('the pieces are the whole text UTF-8, whatever the piece size', () => {
  fc.assert(
    fc.property(texts, fc.integer({ min: 4, max: 40 }), (text, size) => {
      expect(piecesOf(text, size).equals(Buffer.from(text))).toBe(true);
    }),
    { numRuns: 2000 },
  );
});

test('a text longer than a piece, at the CLI piece size', () => {
  const text = `${'a'.repeat(PIECE_BYTES - 1)}😀${'€'.repeat(PIECE_BYTES)}\uD800${'x"\n'.repeat(9000)}`;
  expect(piecesOf(text, PIECE_BYTES).equals(Buffer.from(text))).toBe(true);
  expect(piecesOf('', PIECE_BYTES).length).toBe(0);
});
