import { type ChunkSource, type DecodeOptions, type EncodeOptions, toAsyncIterator } from './codec';
import { detectFormat } from './detect';
import { AgentwireError, type Diagnostic, type DiagnosticHandler, type Format } from './diagnostics';
import { codecFor } from './formats';
import type { AgentEvent } from './model';

/** Options of {@link convert} and {@link convertStream}. */
export interface ConvertOptions {
  /** The input format. Default: detected from the first line ({@link detectFormat}). */
  from?: Format;
  /** The output format. */
  to: Format;
  /** Options for the decoder (bounds, strict, …). */
  decode?: DecodeOptions & Record<string, unknown>;
  /** Options for the encoder (ids, clock, args mode, …). */
  encode?: EncodeOptions & Record<string, unknown>;
  /** Receives every diagnostic: the decoder's and the writer's `loss` reports. */
  onDiagnostic?: DiagnosticHandler;
}

/** What {@link convert} returns. */
export interface ConvertResult {
  output: string;
  /** Decoder diagnostics and `loss` reports, in the order they arose. */
  diagnostics: Diagnostic[];
  /** The input format (as given or detected). */
  from: Format;
}

function usage(message: string): AgentwireError {
  return new AgentwireError({ code: 'invalid_record', severity: 'error', message });
}

// Writers get told when events come from another format, where ids must be allocated anew.
function encodeOptionsFor(from: Format, options: ConvertOptions, handler: DiagnosticHandler): EncodeOptions {
  const base: Record<string, unknown> = { ...options.encode, onDiagnostic: handler };
  if (options.to === 'hep' && from !== 'hep' && base.turnIds === undefined) base.turnIds = 'allocate';
  return base as EncodeOptions;
}

/**
 * Converts a whole input from one format to another: decode → canonical events → encode. What
 * the target cannot hold is reported as `loss` diagnostics; nothing is dropped silently.
 */
export function convert(input: string | Uint8Array, options: ConvertOptions): ConvertResult {
  const from = options.from ?? detectFormat(input)?.format;
  if (from === undefined) throw usage('cannot detect the input format; pass options.from');
  const source = codecFor(from);
  const target = codecFor(options.to);
  if (source === undefined) throw usage(`no codec for ${from}`);
  if (target === undefined) throw usage(`no codec for ${options.to}`);
  const diagnostics: Diagnostic[] = [];
  const handler = (d: Diagnostic) => {
    diagnostics.push(d);
    options.onDiagnostic?.(d);
  };
  const { events } = source.parse(input, { ...options.decode, onDiagnostic: handler });
  const output = target.stringify(events, encodeOptionsFor(from, options, handler));
  return { output, diagnostics, from };
}

/**
 * Converts a stream: chunks in, text out, one piece per event that produced any (so a pipe from a
 * running agent is converted line by line). `from` is required or detected from the first chunk.
 */
export async function* convertStream(source: ChunkSource, options: ConvertOptions): AsyncGenerator<string> {
  const handler = (d: Diagnostic) => options.onDiagnostic?.(d);
  const iterator = toAsyncIterator(source);
  let first: IteratorResult<Uint8Array | string> | undefined;
  let from = options.from;
  if (from === undefined) {
    first = await iterator.next();
    if (!first.done) from = detectFormat(first.value)?.format;
    if (from === undefined) throw usage('cannot detect the input format; pass options.from');
  }
  const decoderCodec = codecFor(from);
  const encoderCodec = codecFor(options.to);
  if (decoderCodec === undefined) throw usage(`no codec for ${from}`);
  if (encoderCodec === undefined) throw usage(`no codec for ${options.to}`);
  const decoder = decoderCodec.createDecoder({ ...options.decode, onDiagnostic: handler });
  const encoder = encoderCodec.createEncoder(encodeOptionsFor(from, options, handler));
  const emit = function* (events: AgentEvent[]) {
    for (const e of events) {
      const text = encoder.write(e);
      if (text !== '') yield text;
    }
  };
  try {
    if (first !== undefined && !first.done) yield* emit(decoder.push(first.value));
    for (;;) {
      const r = await iterator.next();
      if (r.done) break;
      yield* emit(decoder.push(r.value));
    }
    yield* emit(decoder.end());
    const rest = encoder.end();
    if (rest !== '') yield rest;
  } finally {
    await iterator.return?.();
  }
}
