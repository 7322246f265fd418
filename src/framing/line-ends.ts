import type { ChunkDecoder } from '../codec';
import type { AgentEvent } from '../model';

const CR = 13;
const encoder = new TextEncoder();

/**
 * What ended a line: `\n`, `\r\n`, or nothing (the last line of an input without a final
 * terminator).
 */
export type LineEnd = '\n' | '\r\n' | '';

/**
 * Tells, for every line the shared JSON Lines splitter delivers, which terminator it had: the
 * splitter drops a CR before an LF, and a writer that gives a Windows stream back byte for byte
 * needs it. It watches the raw chunks on their way to the splitter: a line delivered while a
 * chunk is being split ends at byte `offset + bytes` of the input, which lies in that chunk or
 * is the last byte of the one before. A chunk without any CR costs one `indexOf`.
 *
 * State in one object literal ({@link newLineEnds}) read by module functions: a literal's hidden
 * class outlives a full GC, where a class instance's fields die with the last instance and take
 * the optimised decoders that read them along (docs/performance.md, "OpenCode and Cursor
 * decoders").
 */
export interface LineEnds {
  chunk: Uint8Array | undefined;
  base: number;
  consumed: number;
  previousEndsWithCR: boolean;
  lastOfPrevious: boolean;
  ended: boolean;
}

/** A fresh {@link LineEnds}: no chunk seen yet. */
export function newLineEnds(): LineEnds {
  return {
    chunk: undefined,
    base: 0,
    consumed: 0,
    previousEndsWithCR: false,
    lastOfPrevious: false,
    ended: false,
  };
}

/**
 * Takes the next raw chunk before the splitter sees it; returns what to give the splitter (a
 * string holding a CR comes back as its UTF-8 bytes, so positions are byte positions).
 */
export function takeChunk(ends: LineEnds, chunk: Uint8Array | string): Uint8Array | string {
  let bytes: Uint8Array;
  if (typeof chunk === 'string') {
    if (chunk.indexOf('\r') === -1 && !ends.previousEndsWithCR) {
      // No CR anywhere near: positions are not needed, only the byte count moves on.
      ends.chunk = undefined;
      ends.consumed += utf8Length(chunk);
      ends.previousEndsWithCR = false;
      return chunk;
    }
    bytes = encoder.encode(chunk);
  } else bytes = chunk;
  if (bytes.length === 0) return chunk;
  const hasCR = ends.previousEndsWithCR || bytes.indexOf(CR) !== -1;
  ends.chunk = hasCR ? bytes : undefined;
  ends.base = ends.consumed;
  ends.consumed += bytes.length;
  ends.lastOfPrevious = ends.previousEndsWithCR;
  ends.previousEndsWithCR = bytes[bytes.length - 1] === CR;
  return bytes;
}

/** The terminator of the line that starts at byte `offset` and has `bytes` bytes. */
export function lineEndAt(ends: LineEnds, offset: number, bytes: number): LineEnd {
  const p = offset + bytes;
  if (ends.ended && p >= ends.consumed) return '';
  const chunk = ends.chunk;
  if (chunk === undefined) return '\n';
  const i = p - ends.base;
  if (i >= 0) return chunk[i] === CR ? '\r\n' : '\n';
  return i === -1 && ends.lastOfPrevious ? '\r\n' : '\n';
}

/** UTF-8 byte length of a string, without encoding it. */
function utf8Length(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 2;
        i++;
      } else n += 2;
    } else n += 2;
  }
  return n;
}

/**
 * Wraps a line-based chunk decoder so that `ends` knows every line's terminator while the
 * record decoder behind it reads the line.
 */
export function withLineEnds(inner: ChunkDecoder, ends: LineEnds): ChunkDecoder {
  return {
    push(chunk, out: AgentEvent[]) {
      inner.push(takeChunk(ends, chunk), out);
    },
    end(out: AgentEvent[]) {
      // The input ended: lines delivered from now on had no terminator.
      ends.ended = true;
      inner.end(out);
    },
  };
}
