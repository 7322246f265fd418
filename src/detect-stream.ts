import { DETECT_BYTES, type Detection, detectFormat } from './detect';
import { asChunk } from './framing/utf8';

/**
 * Reads chunks from `iterator` until the format can be told: a complete first non-blank line
 * (past lines that are neither detected nor JSON, as banners a CLI prints before its first
 * record), {@link DETECT_BYTES} bytes, or the end of input. Returns the detection and the chunks read, to
 * be fed to the decoder first.
 */
export async function detectFromStream(
  iterator: AsyncIterator<Uint8Array | string>,
): Promise<{ detection: Detection | undefined; head: Array<Uint8Array | string> }> {
  const head: Array<Uint8Array | string> = [];
  const encoder = new TextEncoder();
  let sample = new Uint8Array(0);
  for (;;) {
    const r = await iterator.next();
    if (r.done) break;
    const chunk = asChunk(r.value);
    head.push(chunk);
    const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    const joined = new Uint8Array(Math.min(sample.length + bytes.length, DETECT_BYTES));
    joined.set(sample.subarray(0, joined.length), 0);
    if (joined.length > sample.length)
      joined.set(bytes.subarray(0, joined.length - sample.length), sample.length);
    sample = joined;
    if (sample.length >= DETECT_BYTES) break;
    if (hasFirstLine(sample)) {
      const detection = detectFormat(sample);
      if (detection !== undefined || hasJsonLine(sample)) return { detection, head };
    }
  }
  return { detection: sample.length === 0 ? undefined : detectFormat(sample), head };
}

/**
 * Where the first line with content starts (1-based line, byte offset), past a UTF-8 BOM and
 * blank lines; undefined when `bytes` hold nothing else (an input of only a BOM and white space
 * is empty, as an empty one is). Names the line an undetectable input's diagnostic is about.
 */
export function firstContent(bytes: Uint8Array): { line: number; offset: number } | undefined {
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let line = 1;
  let start = 0;
  for (; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 10 || (b === 13 && bytes[i + 1] !== 10)) {
      line++;
      start = i + 1;
    } else if (b !== 32 && b !== 9 && b !== 13) return { line, offset: start };
  }
  return undefined;
}

// A complete line that starts with `{` or `[` has arrived: no later line can change the verdict.
function hasJsonLine(bytes: Uint8Array): boolean {
  let start = true;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 10 || b === 13) start = true;
    else if (start && (b === 123 || b === 91))
      return bytes.indexOf(10, i) !== -1 || bytes.indexOf(13, i) !== -1;
    else if (b !== 32 && b !== 9) start = false;
  }
  return false;
}

// A complete non-blank first line (CR, LF or CRLF ended) has arrived.
function hasFirstLine(bytes: Uint8Array): boolean {
  let content = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 10 || b === 13) {
      if (content) return true;
    } else if (b !== 32 && b !== 9 && !(i < 3 && (b === 0xef || b === 0xbb || b === 0xbf))) content = true;
  }
  return false;
}

export { detectFormat } from './detect';
