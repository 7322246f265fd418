import { type ChunkSource, toAsyncIterator } from './codec';
import { type ConvertCodecs, type ConvertOptions, convertChunks, usage } from './convert-stream';
import { type ConvertResult, convertWith } from './convert-with';
import { detectFormat } from './detect';
import { detectFromStream } from './detect-stream';
import type { Format } from './diagnostics';
import { codecFor } from './formats/index';

export type { ConvertOptions } from './convert-stream';
export type { ConvertResult } from './convert-with';

/**
 * Converts a whole input from one format to another: decode → canonical events → encode. What
 * the target cannot hold is reported as `loss` diagnostics; nothing is dropped silently. Throws
 * `AgentwireError` when `from` is not given and cannot be detected.
 */
export function convert(input: string | Uint8Array, options: ConvertOptions): ConvertResult {
  const from = options.from ?? detectFormat(input)?.format;
  if (from === undefined) throw usage('cannot detect the input format; pass options.from');
  const { source, target } = codecsFor(from, options.to);
  return convertWith(input, { ...options, from: source, to: target });
}

/**
 * Converts a stream: chunks in, text out, one piece per event that produced any (so a pipe from a
 * running agent is converted line by line), or with `batch: true` one piece per input chunk that
 * produced any. `from`, when not given, is detected from the stream's first line (chunks are read
 * until it is complete, up to `DETECT_BYTES`); the generator throws `AgentwireError`
 * when it cannot be.
 */
export async function* convertStream(source: ChunkSource, options: ConvertOptions): AsyncGenerator<string> {
  const iterator = toAsyncIterator(source);
  let head: Array<Uint8Array | string> = [];
  let from = options.from;
  if (from === undefined) {
    const detected = await detectFromStream(iterator);
    head = detected.head;
    from = detected.detection?.format;
    if (from === undefined) throw usage('cannot detect the input format; pass options.from');
  }
  yield* convertChunks(iterator, { ...options, from }, codecsFor(from, options.to), head);
}

// The two codecs of a conversion by format id, from the registry (a usage error for an id it
// does not have).
function codecsFor(from: Format, to: Format): ConvertCodecs {
  const source = codecFor(from);
  const target = codecFor(to);
  if (source === undefined) throw usage(`no codec for ${from}`);
  if (target === undefined) throw usage(`no codec for ${to}`);
  return { source, target };
}

export { detectFromStream } from './detect-stream';
