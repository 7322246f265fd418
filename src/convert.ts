import { type ChunkSource, type DecodeOptions, type EncodeOptions, toAsyncIterator } from './codec';
import { DETECT_BYTES, type Detection, detectFormat } from './detect';
import { AgentwireError, type Diagnostic, type DiagnosticHandler, type Format } from './diagnostics';
import { codecFor } from './formats/index';
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
 * running agent is converted line by line), or with `batch: true` one piece per input chunk that
 * produced any. `from` is required or detected from the first chunk.
 */
export async function* convertStream(source: ChunkSource, options: ConvertOptions): AsyncGenerator<string> {
  const handler = (d: Diagnostic) => options.onDiagnostic?.(d);
  const iterator = toAsyncIterator(source);
  let head: Array<Uint8Array | string> = [];
  let from = options.from;
  if (from === undefined) {
    const detected = await detectFromStream(iterator);
    head = detected.head;
    from = detected.detection?.format;
    if (from === undefined) throw usage('cannot detect the input format; pass options.from');
  }
  const decoderCodec = codecFor(from);
  const encoderCodec = codecFor(options.to);
  if (decoderCodec === undefined) throw usage(`no codec for ${from}`);
  if (encoderCodec === undefined) throw usage(`no codec for ${options.to}`);
  const decoder = decoderCodec.createDecoder({ ...options.decode, onDiagnostic: handler });
  const encoder = encoderCodec.createEncoder(encodeOptionsFor(from, options, handler));
  const emit = options.batch
    ? function* (events: AgentEvent[]) {
        let text = '';
        for (let i = 0; i < events.length; i++) text += encoder.write(events[i]!);
        if (text !== '') yield text;
      }
    : function* (events: AgentEvent[]) {
        for (const e of events) {
          const text = encoder.write(e);
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
    const rest = encoder.end();
    if (rest !== '') yield rest;
  } finally {
    await iterator.return?.();
  }
}

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
    head.push(r.value);
    const bytes = typeof r.value === 'string' ? encoder.encode(r.value) : r.value;
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
