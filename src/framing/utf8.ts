// Byte → text decoding for the line splitter. Node gets its ASCII fast path (latin1 decoding of a
// region `isAscii` vouches for) through runtime detection, never an import, so the core stays
// loadable in browsers.

interface NodeBuffer extends Uint8Array {
  toString(encoding?: string, start?: number, end?: number): string;
}

interface NodeBufferModule {
  Buffer: {
    new (...args: never[]): NodeBuffer;
    from(buffer: ArrayBufferLike, byteOffset: number, length: number): NodeBuffer;
    allocUnsafeSlow(size: number): NodeBuffer;
  };
  isAscii?: (input: Uint8Array) => boolean;
}

function loadNodeBuffer(): NodeBufferModule | undefined {
  try {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const mod = proc?.getBuiltinModule?.('node:buffer') as NodeBufferModule | undefined;
    return mod && typeof mod.isAscii === 'function' ? mod : undefined;
  } catch {
    return undefined;
  }
}

const nodeBuffer = loadNodeBuffer();
// ignoreBOM: a BOM anywhere but byte 0 of the stream is content, and the splitter strips that one.
const lenientDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
const fatalDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

// Below this many bytes a Buffer's own UTF-8 decode beats `isAscii` + latin1 (docs/
// performance.md, "Figures behind source comments"): views and a check cost more than they save.
const SHORT_DECODE = 1024;

/**
 * Bytes for the splitter's held line: a Node `Buffer` where there is one, so a held line is
 * decoded in place ({@link decodeUtf8}), else a `Uint8Array`.
 */
export function allocBytes(size: number): Uint8Array {
  return nodeBuffer !== undefined ? nodeBuffer.Buffer.allocUnsafeSlow(size) : new Uint8Array(size);
}

/** Decodes `bytes[start, end)`; invalid sequences become U+FFFD (checked separately). */
export function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  if (start === end) return '';
  if (nodeBuffer !== undefined) {
    // A line held across chunks (every line, with small chunks) is short and in a Buffer.
    if (end - start < SHORT_DECODE && bytes instanceof nodeBuffer.Buffer)
      return bytes.toString('utf8', start, end);
    const view = bytes.subarray(start, end);
    const buf = nodeBuffer.Buffer.from(view.buffer, view.byteOffset, view.byteLength);
    return nodeBuffer.isAscii!(view) ? buf.toString('latin1') : buf.toString('utf8');
  }
  return lenientDecoder.decode(bytes.subarray(start, end));
}

/** True when `bytes[start, end)` is well-formed UTF-8 (no overlongs, no encoded surrogates). */
export function isValidUtf8(bytes: Uint8Array, start: number, end: number): boolean {
  try {
    fatalDecoder.decode(bytes.subarray(start, end));
    return true;
  } catch {
    return false;
  }
}

/** UTF-8 bytes of `text` (lone surrogates become U+FFFD, as in every UTF-8 encoder). */
export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * A chunk as the framing reads it: a string or a `Uint8Array` as given; any other binary a caller
 * may hold (an `ArrayBuffer`, a `DataView`, another typed array, a `Uint8Array` of another realm)
 * as a `Uint8Array` view of the same bytes, never a copy. Anything else is a programming error,
 * thrown at once as a `TypeError` that says what a chunk may be (read on, it would fail deep in
 * the splitter with a message that names none of this).
 */
export function asChunk(chunk: unknown): Uint8Array | string {
  if (typeof chunk === 'string' || chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (typeof SharedArrayBuffer !== 'undefined' && chunk instanceof SharedArrayBuffer)
    return new Uint8Array(chunk);
  const what = chunk === null ? 'null' : Array.isArray(chunk) ? 'an array' : typeof chunk;
  throw new TypeError(
    `agentwire: a chunk is a string, a Uint8Array, an ArrayBuffer or a view of one, not ${what}`,
  );
}
