import type { Codec, DecodeOptions, EncodeOptions, Encoder } from './codec';
import {
  AgentwireError,
  type Diagnostic,
  type DiagnosticHandler,
  diagnosticAtEvent,
  type Format,
  isAgentwireError,
} from './diagnostics';
import type { AgentEvent } from './model';

// The streaming conversion with its codecs passed in: no registry and no detection imported, so
// the command line loads only the two codecs a conversion runs (src/engine.ts). convertStream
// (src/convert.ts) detects, finds the codecs in the registry and runs this loop.

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
  /**
   * The clock (ms since the epoch) writers use for timestamps the input does not have (highbar
   * `ts`, nativeharness `ts`). Default `Date.now`; inject one for deterministic output.
   */
  clock?: () => number;
  /** Makes ids the input does not have (HEP session, nativeharness session and turn ids). */
  idSource?: () => string;
  /**
   * {@link convertStream} only: yield the text of each input chunk as one piece instead of one
   * piece per event (fewer, larger writes: what a command line writing to a pipe wants). Default
   * `false`.
   */
  batch?: boolean;
}

/** The error a conversion throws when it cannot start (no format, no codec). */
export function usage(message: string): AgentwireError {
  return new AgentwireError({ code: 'invalid_record', severity: 'error', message });
}

/**
 * The writer's options of a conversion: writers get told when events come from another format,
 * where ids must be allocated anew.
 */
export function encodeOptionsFor(
  from: Format,
  options: ConvertOptions,
  handler: DiagnosticHandler,
): EncodeOptions {
  const base: Record<string, unknown> = { ...options.encode, onDiagnostic: handler };
  // One clock and one id source for every writer, under each writer's own option name.
  if (options.clock !== undefined) {
    base.clock ??= options.clock;
    base.now ??= options.clock;
  }
  if (options.idSource !== undefined) base.idSource ??= options.idSource;
  if (options.to === 'nativeharness' && from !== 'nativeharness') base.conform ??= true;
  if (options.to === 'hep' && from !== 'hep') {
    base.turnIds ??= 'allocate';
    // The reference writes a message_start at the start of every round.
    base.messageStarts ??= 'each-round';
    // full mode keeps an args object readable (up to 4000 characters); summary text cannot be read back.
    base.args ??= 'full';
  }
  return base as EncodeOptions;
}

/** Where a conversion's writer reports an event it refuses, and whether it throws instead. */
export interface RefusalContext {
  /** The target format (the diagnostic's `format`). */
  to: Format;
  /** Receives the refusal as an `error` diagnostic. */
  report: DiagnosticHandler;
  /** Throw the writer's error instead (the decoder's `strict`). */
  strict: boolean;
}

/**
 * One event through a conversion's writer. A writer refuses an event it cannot write as given
 * (a nativeharness `seq` that does not increase: the decoder kept a replayed envelope with an
 * `order` error) by throwing AgentwireError; a conversion reports that as an error at the event's
 * input line and goes on with the next event, unless it runs strict.
 */
export function writeOrReport(encoder: Encoder, event: AgentEvent, ctx: RefusalContext): string {
  try {
    return encoder.write(event);
  } catch (error) {
    if (ctx.strict || !isAgentwireError(error)) throw error;
    const what = `${event.type} not written: ${error.diagnostic.message}`;
    ctx.report(diagnosticAtEvent(error.code, 'error', event, what, ctx.to));
    return '';
  }
}

/**
 * `encoder.end()`, with a refusal reported as one `error` diagnostic (unplaced: it belongs to no
 * event) instead of thrown, as {@link writeOrReport} does for an event. The writers refuse what
 * they cannot hold at the event that brought it; this is the net for one that does not, so that a
 * conversion without `strict` never throws for its input (found by test/fuzz/structured.test.ts).
 */
export function endOrReport(encoder: Encoder, ctx: RefusalContext): string {
  try {
    return encoder.end();
  } catch (error) {
    if (ctx.strict || !isAgentwireError(error)) throw error;
    ctx.report(
      diagnosticAtEvent(
        error.code,
        'error',
        undefined,
        `the end not written: ${error.diagnostic.message}`,
        ctx.to,
      ),
    );
    return '';
  }
}

/** The two codecs of a conversion. */
export interface ConvertCodecs {
  source: Codec;
  target: Codec;
}

/**
 * The loop of {@link convertStream} once the input format is known and its codecs found: `head`
 * (the chunks detection read) first, then the rest of `iterator`. Same pieces, same diagnostics.
 */
export async function* convertChunks(
  iterator: AsyncIterator<Uint8Array | string>,
  options: ConvertOptions & { from: Format },
  codecs: ConvertCodecs,
  head: ReadonlyArray<Uint8Array | string> = [],
): AsyncGenerator<string> {
  const handler = (d: Diagnostic) => options.onDiagnostic?.(d);
  const from = options.from;
  const decoderCodec = codecs.source;
  const encoderCodec = codecs.target;
  const decoder = decoderCodec.createDecoder({ ...options.decode, onDiagnostic: handler });
  const encoder = encoderCodec.createEncoder(encodeOptionsFor(from, options, handler));
  const refusal: RefusalContext = {
    to: options.to,
    report: handler,
    strict: options.decode?.strict === true,
  };
  const emit = options.batch
    ? function* (events: AgentEvent[]) {
        let text = '';
        for (let i = 0; i < events.length; i++) text += writeOrReport(encoder, events[i]!, refusal);
        if (text !== '') yield text;
      }
    : function* (events: AgentEvent[]) {
        for (const e of events) {
          const text = writeOrReport(encoder, e, refusal);
          if (text !== '') yield text;
        }
      };
  try {
    for (const chunk of head) yield* emit(decoder.push(chunk));
    for (;;) {
      const r = await iterator.next();
      if (r.done) break;
      yield* emit(decoder.push(r.value));
    }
    yield* emit(decoder.end());
    const rest = endOrReport(encoder, refusal);
    if (rest !== '') yield rest;
  } finally {
    await iterator.return?.();
  }
}
