// How the CLI writes a long text to a file or a pipe: encoded into one reused buffer a piece at a
// time, apart from the command line so that a test holds it equal to the whole text's UTF-8.
//
// `writeSync(fd, text)` has Node size a malloc'd buffer for three bytes per character of the
// text, encode into it and free it. For a long tool output (~570 KB) the first such buffer is a
// mapping of its own; freeing it raises glibc's mmap threshold, so the later ones come from the
// main arena, whose pages stay resident, and the peak of a stream of long outputs (`convert`)
// was that much higher (docs/performance.md, "Round forty-nine"). Short texts to a file keep the
// one call: the common case, and the cheaper one. Node's stream writes a string to a pipe the same
// way, the buffer kept until the pipe has taken it all, so to a pipe every text goes in pieces.

/** Texts longer than this many characters are written in pieces; the piece buffer's size too. */
export const PIECE_BYTES = 64 * 1024;

const encoder = new TextEncoder();

/**
 * `text` as UTF-8 (lone surrogates as U+FFFD, as `writeSync` and `Buffer.from` write them),
 * encoded into `piece` one filled part at a time: each step yields the part's length. `piece` is
 * reused, so the caller writes the bytes before it asks for the next part (it may wait for a pipe
 * between parts). `piece` holds at least four bytes, so that every part takes at least one
 * character: a surrogate pair is never split.
 */
export function* encodePieces(text: string, piece: Uint8Array): Generator<number, void, undefined> {
  for (let from = 0; from < text.length; ) {
    // A slice of the text (flat once the first encode has flattened it) is a view, not a copy.
    const { read, written } = encoder.encodeInto(from === 0 ? text : text.slice(from), piece);
    yield written;
    from += read;
  }
}
