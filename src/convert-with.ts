import { type ChunkSource, type Codec, toAsyncIterator } from './codec';
import {
  type ConvertOptions,
  convertChunks,
  encodeOptionsFor,
  endOrReport,
  writeOrReport,
} from './convert-stream';
import type { Diagnostic, Format } from './diagnostics';

// Conversion with the two codecs passed in: what `agentwire` offers without bundling every format.
// `convert` and `convertStream` (agentwire/all) find the codecs by format id, then run these.

/** What {@link convertWith} and `convert` return. */
export interface ConvertResult {
  output: string;
  /** Decoder diagnostics and `loss` reports, in the order they arose. */
  diagnostics: Diagnostic[];
  /** The input format (as given or detected). */
  from: Format;
}

/**
 * Options of {@link convertWith} and {@link convertStreamWith}: those of `convert`, with the
 * codecs themselves as `from` and `to` (`import { hep } from 'agentwire/hep'`), so a bundle holds
 * those two formats only.
 */
export interface ConvertWithOptions extends Omit<ConvertOptions, 'from' | 'to'> {
  /** The input's codec. */
  from: Codec;
  /** The output's codec. */
  to: Codec;
}

// The options the by-id loop takes: the two formats, the rest as given.
function byFormat(options: ConvertWithOptions): ConvertOptions & { from: Format } {
  return { ...options, from: options.from.format, to: options.to.format };
}

/**
 * Converts a whole input with the two codecs given: decode → canonical events → encode. What
 * the target cannot hold is reported as `loss` diagnostics; nothing is dropped silently. The same
 * output and diagnostics as `convert` (agentwire/all) with those two formats' ids.
 */
export function convertWith(input: string | Uint8Array, options: ConvertWithOptions): ConvertResult {
  const plain = byFormat(options);
  const diagnostics: Diagnostic[] = [];
  const handler = (d: Diagnostic) => {
    diagnostics.push(d);
    options.onDiagnostic?.(d);
  };
  const { events } = options.from.parse(input, { ...options.decode, onDiagnostic: handler });
  const encoder = options.to.createEncoder(encodeOptionsFor(plain.from, plain, handler));
  const refusal = { to: plain.to, report: handler, strict: options.decode?.strict === true };
  let output = '';
  for (const event of events) output += writeOrReport(encoder, event, refusal);
  output += endOrReport(encoder, refusal);
  return { output, diagnostics, from: plain.from };
}

/**
 * Converts a stream with the two codecs given: chunks in, text out, one piece per event that
 * produced any, or with `batch: true` one piece per input chunk that produced any. The same
 * pieces and diagnostics as `convertStream` (agentwire/all) with those two formats' ids.
 */
export function convertStreamWith(source: ChunkSource, options: ConvertWithOptions): AsyncGenerator<string> {
  return convertChunks(toAsyncIterator(source), byFormat(options), {
    source: options.from,
    target: options.to,
  });
}
