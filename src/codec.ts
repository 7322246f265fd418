import { LD_BLANKS, LD_OUT, LD_RECORDS, LD_SINK } from './codec-slots';
import {
  createDiagnosticSink,
  type Diagnostic,
  type DiagnosticHandler,
  type DiagnosticSink,
  diagnosticAt,
  emptyStream,
  type Format,
} from './diagnostics';
import {
  endInput,
  type IncompleteLinePolicy,
  isLineBound,
  type LineMode,
  newSplitState,
  pushChunk,
  type SplitState,
} from './framing/lines';
import { asChunk } from './framing/utf8';
import { nonFiniteReads } from './guards';
import { nonFiniteDiagnostic } from './json';
import type { AgentEvent } from './model';

/** Options every decoder takes. */
export interface DecodeOptions {
  /**
   * Most bytes in one line, terminator excluded. Default 1 MiB (`DEFAULT_MAX_LINE_BYTES`); 16 MiB
   * for the CLI agent codecs. A value that is not a finite number `>= 0` takes the default.
   */
  maxLineBytes?: number;
  /** Deepest JSON nesting accepted in one record. Default 64 (`DEFAULT_MAX_DEPTH`). */
  maxDepth?: number;
  /** Throw {@link AgentwireError} at the first `error` diagnostic instead of reporting it. */
  strict?: boolean;
  /** Receives every diagnostic, in input order. */
  onDiagnostic?: DiagnosticHandler;
  /**
   * A last line without terminator at the end of input: `deliver` it (default), `report` it as
   * `incomplete_line`, or `hold` it (tailing a file another process still writes).
   */
  incompleteLine?: IncompleteLinePolicy;
  /**
   * The input is followed live (a tailed file, `view --follow`) and has no end: a format whose
   * runs end only with the input (HEP) ends a run where its producer's loop stops instead (HEP:
   * a round that ran no tool and did not stop for one). Default false: a run ends where the
   * input says, or at its end.
   */
  live?: boolean;
}

/** Options every encoder takes. */
export interface EncodeOptions {
  /** Receives `loss` diagnostics: what an event had that the format cannot hold. */
  onDiagnostic?: DiagnosticHandler;
}

/** A push decoder: feed chunks, get the events they complete, synchronously. */
export interface Decoder {
  /**
   * Takes the next chunk and returns the events it completed. A chunk is text or bytes: a
   * `Uint8Array` (a Node `Buffer`), or an `ArrayBuffer` or any view of one, read in place. Any
   * other value throws a `TypeError` (a programming error, not bad input).
   */
  push(chunk: Uint8Array | ArrayBuffer | ArrayBufferView | string): AgentEvent[];
  /** Ends the input and returns the last events. */
  end(): AgentEvent[];
}

/** A push encoder: write events, get text back synchronously. */
export interface Encoder {
  /** Returns the text for `event` (possibly empty: some events wait for a later one). */
  write(event: AgentEvent): string;
  /** Returns whatever the format still has to write. */
  end(): string;
}

/** What {@link CodecReader.parse} returns. */
export interface ParseResult {
  events: AgentEvent[];
  diagnostics: Diagnostic[];
}

/** A source of chunks: an async iterable (a Node stream) or a Web `ReadableStream`. */
export type ChunkSource =
  | AsyncIterable<Uint8Array | string>
  | Iterable<Uint8Array | string>
  | ReadableStream<Uint8Array | string>;

/** A source of events for the encoders. */
export type EventSource = Iterable<AgentEvent> | AsyncIterable<AgentEvent>;

/**
 * The reading half of a codec: everything that turns a format's text into events, and nothing
 * that writes it. A format entry's `<codec>Reader` (e.g. `claudeReader`) is one: an app that only
 * reads (a viewer in a browser) imports it and bundles no byte of the format's writer.
 */
export interface CodecReader<D extends DecodeOptions = DecodeOptions> {
  /** The format this half reads. */
  readonly format: Format;
  /** Decodes a whole input. Never throws except in strict mode. */
  parse(input: string | Uint8Array, options?: D): ParseResult;
  /** Decodes a stream of chunks into events, as they complete. */
  decode(source: ChunkSource, options?: D): AsyncIterable<AgentEvent>;
  /** A push decoder. */
  createDecoder(options?: D): Decoder;
  /** A Web `TransformStream` from chunks to events, one event per read. */
  decoderStream(options?: D): TransformStream<Uint8Array | string, AgentEvent>;
  /**
   * A Web `TransformStream` from chunks to arrays of events: the events each input chunk
   * completes, as one array (chunks that complete none yield nothing; the end of the input may
   * yield one more array). The same events in the same order as {@link CodecReader.decoderStream},
   * at a fraction of its per-event cost: pick it to move events in bulk (a worker, a socket, a
   * store); pick `decoderStream` when the consumer handles one event at a time anyway.
   */
  batchDecoderStream(options?: D): TransformStream<Uint8Array | string, AgentEvent[]>;
}

/**
 * The writing half of a codec: everything that turns events into a format's text, and nothing
 * that reads it. A format entry's `<codec>Writer` (e.g. `claudeWriter`) is one: an app that only
 * writes (an agent that emits a format) imports it and bundles no byte of the format's decoder.
 */
export interface CodecWriter<E extends EncodeOptions = EncodeOptions> {
  /** The format this half writes. */
  readonly format: Format;
  /** Encodes events into the format's text. */
  stringify(events: Iterable<AgentEvent>, options?: E): string;
  /** Encodes a stream of events into text, one piece per event that produced any. */
  encode(events: EventSource, options?: E): AsyncIterable<string>;
  /** A push encoder. */
  createEncoder(options?: E): Encoder;
  /** A Web `TransformStream` from events to text. */
  encoderStream(options?: E): TransformStream<AgentEvent, string>;
}

/**
 * The public shape every format shares: its {@link CodecReader} and {@link CodecWriter} halves in
 * one object ({@link joinCodec}).
 */
export interface Codec<D extends DecodeOptions = DecodeOptions, E extends EncodeOptions = EncodeOptions>
  extends CodecReader<D>,
    CodecWriter<E> {}

/** Turns lines into events for one format; stateful where the format needs it. */
export interface RecordDecoder {
  /**
   * One complete line; push the events it yields onto `out`. `bytes` is the line's length in
   * UTF-8 bytes when the caller knows it (the line splitter does): equal to `text.length`
   * exactly when every character is ASCII, which a decoder may use to skip its own check.
   */
  line(text: string, line: number, offset: number, out: AgentEvent[], bytes?: number): void;
  /** The input ended; push anything the format implies at its end. */
  end(out: AgentEvent[]): void;
  /**
   * `true`: blank and whitespace-only lines reach {@link RecordDecoder.line} (a format that keeps
   * them as events of its own for byte-exact rewrites: Gemini keeps what its CLI printed around
   * the stream). Absent: {@link lineChunkDecoder} skips them, the one rule of every other format.
   */
  readonly keepsBlankLines?: boolean;
}

/** Decodes chunks into events appended to `out` (line-based or not). */
export interface ChunkDecoder {
  push(chunk: Uint8Array | string, out: AgentEvent[]): void;
  end(out: AgentEvent[]): void;
}

/** What a format supplies to {@link createReader}: its decoder and what the reader holds. */
export interface ReaderSpec<D extends DecodeOptions> {
  format: Format;
  createChunkDecoder(options: D, sink: DiagnosticSink): ChunkDecoder;
  /**
   * A short stream of the format's common records, which the reader's held decoder reads once
   * and whose events it keeps for the reader's life ({@link createReader}): an event's hidden
   * class (its fields added one by one) is a transition a full GC frees when no event of it is
   * alive.
   */
  heldInput?: string | undefined;
  /**
   * `true`: the reader also keeps every line of {@link ReaderSpec.heldInput} as `JSON.parse` reads
   * it, for a format whose events keep no part of their records: a parsed object's hidden class
   * is a transition from the realm's root map, which a full GC frees when no value of it is
   * alive, and the per-record code that checked it is thrown away with it. The lines must then be
   * one JSON text each.
   */
  holdsRecords?: boolean | undefined;
}

/** What a format supplies to {@link createWriter}: its encoder and what the writer holds. */
export interface WriterSpec<E extends EncodeOptions> {
  format: Format;
  createEncoder(options: E, sink: DiagnosticSink): Encoder;
  /**
   * Values of the format's own that the writer keeps for its life: an object a writer makes once
   * per stream, whose hidden class no held event has (a full GC frees it when none is alive).
   */
  heldValues?: readonly unknown[] | undefined;
}

/** What a format supplies to {@link createCodec}: both halves' specs. */
export interface FormatSpec<D extends DecodeOptions, E extends EncodeOptions>
  extends ReaderSpec<D>,
    WriterSpec<E> {}

// A line format's chunk decoder state, in slots: the splitter reaches it through the module
// functions below, the same for every decoder, so the splitter's call site keeps one target
// across streams (a closure made per decoder is a new target with each one, and the optimised
// code that inlined the last one is dropped; docs/performance.md, "The framing's state in
// slots", round fourteen).

/**
 * A line format's chunk decoder state: the current `push`'s output, the record decoder, the
 * blank lines skipped and the diagnostic sink. The JSON stream reader of the UI protocols
 * (src/framing/json-stream.ts) drives its JSON Lines on the same slots.
 */
export type LineDecoderState = [
  out: AgentEvent[],
  records: RecordDecoder,
  blanks: BlankLines,
  sink: DiagnosticSink,
];

/**
 * A JSON Lines line of a {@link LineDecoderState}: a record, or a blank line skipped (SSE blank
 * lines end events, and a format may keep them).
 */
export function recordOrBlank(
  d: LineDecoderState,
  text: string,
  line: number,
  offset: number,
  bytes: number,
): void {
  // One compare for the common line: a record starts with `{`, above every blank.
  if (text.length === 0 || (text.charCodeAt(0) <= 32 && isBlankLine(text))) {
    d[LD_BLANKS].skip(line, offset);
    return;
  }
  readRecord(d, text, line, offset, bytes);
}

function everyLine(d: LineDecoderState, text: string, line: number, offset: number, bytes: number): void {
  readRecord(d, text, line, offset, bytes);
}

/**
 * One record of a {@link LineDecoderState} to its record decoder: the one call of every JSON Lines
 * and SSE record, so no decoder can leave out the check after it. A field its decoder left out
 * because its number is past a double's range (the guards count each: `nonFiniteReads`) gets the
 * line one warning ({@link warnNonFinite}).
 */
export function readRecord(
  d: LineDecoderState,
  text: string,
  line: number,
  offset: number,
  bytes: number | undefined,
): void {
  const seen = nonFiniteReads();
  d[LD_RECORDS].line(text, line, offset, d[LD_OUT], bytes);
  if (nonFiniteReads() !== seen) warnNonFinite(d[LD_SINK], d[LD_BLANKS].format, text, line, offset);
}

/**
 * The warning of a record whose reading turned a number past a double's range down: a decoder's
 * records are never read without it (`readRecord`; the framings that call a record decoder
 * themselves compare `nonFiniteReads` around it the same way). Off the hot path.
 */
export function warnNonFinite(
  sink: DiagnosticSink,
  format: Format,
  text: string,
  line: number,
  offset: number,
): void {
  sink.report(nonFiniteDiagnostic(text, line, offset, format));
}

/** A line splitter's diagnostic for a {@link LineDecoderState}: to its sink. */
export function lineDiagnostic(d: LineDecoderState, diagnostic: Diagnostic): void {
  d[LD_SINK].report(diagnostic);
}

/**
 * Builds the chunk decoder of a line-based format: the shared line splitter (with its bounds) in
 * front of the format's record decoder. Lines end by the JSON Lines rules whatever `mode` says
 * (the splitter's default split, so that a JSON Lines reader bundles none of SSE's rules); a `mode`
 * other than `jsonl` only hands blank lines to the records too. SSE goes through `SseReader`.
 */
export function lineChunkDecoder(
  format: Format,
  mode: LineMode,
  options: DecodeOptions,
  sink: DiagnosticSink,
  records: RecordDecoder,
): ChunkDecoder {
  const d: LineDecoderState = [[], records, new BlankLines(format, sink), sink];
  const split = newSplitState(
    d,
    mode === 'jsonl' && records.keepsBlankLines !== true ? recordOrBlank : everyLine,
    undefined,
    lineDiagnostic,
    splitOptions(format, mode, options),
  );
  return splitChunkDecoder(d, split, options, (target) => records.end(target));
}

// The line splitter's options of a decoder: its mode, its format and the line bound it sets (a
// bound left out takes the splitter's default).
function splitOptions(
  format: Format,
  mode: LineMode,
  options: DecodeOptions,
): { mode: LineMode; format: Format; maxLineBytes?: number } {
  const lineOptions: { mode: LineMode; format: Format; maxLineBytes?: number } = { mode, format };
  if (options.maxLineBytes !== undefined) lineOptions.maxLineBytes = options.maxLineBytes;
  return lineOptions;
}

// The chunk decoder over `split`, whose lines go to `d` (a LineDecoderState or SlotsDecoderState:
// the current output in LD_OUT, the blank lines in LD_BLANKS): each call hands `d` its output
// array; the end, unless the input is held for more, ends the blank-line count and then the
// records (`endRecords`).
function splitChunkDecoder(
  d: LineDecoderState | SlotsDecoderState,
  split: SplitState,
  options: DecodeOptions,
  endRecords: (target: AgentEvent[]) => void,
): ChunkDecoder {
  return {
    push(chunk, target) {
      d[LD_OUT] = target;
      pushChunk(split, chunk);
    },
    end(target) {
      d[LD_OUT] = target;
      endInput(split, options.incompleteLine ?? 'deliver');
      if (options.incompleteLine !== 'hold') {
        d[LD_BLANKS].end();
        endRecords(target);
      }
    },
  };
}

/** A {@link Decoder}'s `push`, bound to its chunk decoder: the chunk's events. */
function pushTo(
  this: ChunkDecoder,
  chunk: Uint8Array | ArrayBuffer | ArrayBufferView | string,
): AgentEvent[] {
  const out: AgentEvent[] = [];
  this.push(asChunk(chunk), out);
  return out;
}

/** A {@link Decoder}'s `end`, bound to its chunk decoder: the last events. */
function endOf(this: ChunkDecoder): AgentEvent[] {
  const out: AgentEvent[] = [];
  this.end(out);
  return out;
}

/**
 * A record decoder as slots: its state and the module functions that read one line of it and its
 * end, each with the state first. {@link slotsChunkDecoder} calls them from the line splitter; its
 * optimised code, which inlines `line`, then checks only arrays, whose hidden class is the
 * realm's. A {@link RecordDecoder} object is reached through its own hidden class, which a full
 * garbage collection that finds no decoder alive frees (a literal made before its factory has an
 * allocation site, as the first decoders of a process are), and the per-line code that embedded
 * it is thrown away and compiled again (docs/performance.md, "highbar decode", round sixteen).
 */
export type RecordSlots<S> = [
  state: S,
  line: (state: S, text: string, line: number, offset: number, out: AgentEvent[]) => void,
  end: (state: S, out: AgentEvent[]) => void,
];

// The state of a slots chunk decoder: LineDecoderState's slots, the record decoder as slots.
type SlotsDecoderState = [
  out: AgentEvent[],
  records: RecordSlots<never>,
  blanks: BlankLines,
  sink: DiagnosticSink,
];

function slotsRecordOrBlank(d: SlotsDecoderState, text: string, line: number, offset: number): void {
  // As recordOrBlank: one compare for the common line.
  if (text.length === 0 || (text.charCodeAt(0) <= 32 && isBlankLine(text))) {
    d[LD_BLANKS].skip(line, offset);
    return;
  }
  const records = d[LD_RECORDS];
  // As readRecord: one warning for a line whose reading turned a non-finite number down.
  const seen = nonFiniteReads();
  records[1](records[0], text, line, offset, d[LD_OUT]);
  if (nonFiniteReads() !== seen) warnNonFinite(d[LD_SINK], d[LD_BLANKS].format, text, line, offset);
}

function slotsDiagnostic(d: SlotsDecoderState, diagnostic: Diagnostic): void {
  d[LD_SINK].report(diagnostic);
}

/**
 * {@link lineChunkDecoder} of a JSON Lines format (blank lines skipped) whose record decoder is
 * {@link RecordSlots}: the same splitter, bounds, blank-line rule and end.
 */
export function slotsChunkDecoder<S>(
  format: Format,
  options: DecodeOptions,
  sink: DiagnosticSink,
  records: RecordSlots<S>,
): ChunkDecoder {
  const d: SlotsDecoderState = [
    [],
    records as unknown as RecordSlots<never>,
    new BlankLines(format, sink),
    sink,
  ];
  const split = newSplitState(
    d,
    slotsRecordOrBlank,
    undefined,
    slotsDiagnostic,
    splitOptions(format, 'jsonl', options),
  );
  return splitChunkDecoder(d, split, options, (target) => records[2](records[0], target));
}

/**
 * True for a line of JSON whitespace only (space, tab, CR; LF cannot be inside a line): no record,
 * whatever the format. Empty lines included; what {@link BlankLines} skips.
 */
export function isBlankLine(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

/**
 * The one rule for blank and whitespace-only lines in every JSON Lines format: skipped, never an
 * error; the first is an `info` diagnostic at its place, and the end of the input reports how many
 * there were when more than one (placed at the last), so blank lines cannot flood the handler.
 */
export class BlankLines {
  private count = 0;
  private lastLine = 0;
  private lastOffset = 0;
  constructor(
    /** The format whose blank lines these are (and whose records' warnings `readRecord` says). */
    readonly format: Format,
    private readonly sink: DiagnosticSink,
  ) {}

  skip(line: number, offset: number): void {
    this.lastLine = line;
    this.lastOffset = offset;
    if (this.count++ === 0)
      this.sink.report(
        diagnosticAt(
          'invalid_json',
          'info',
          line,
          offset,
          'a blank line (empty or whitespace only); skipped (later blank lines are counted, not reported)',
          this.format,
        ),
      );
  }

  end(): void {
    if (this.count > 1)
      this.sink.report(
        diagnosticAt(
          'invalid_json',
          'info',
          this.lastLine,
          this.lastOffset,
          `the last of ${this.count} blank lines (empty or whitespace only); all were skipped`,
          this.format,
        ),
      );
  }
}

const DECODER_STREAM_QUEUE: QueuingStrategy<AgentEvent> = { highWaterMark: 64 };

/** Iterates any chunk source: async iterable, iterable or Web `ReadableStream`. */
export function toAsyncIterator<T>(
  source: AsyncIterable<T> | Iterable<T> | ReadableStream<T>,
): AsyncIterator<T> {
  if (typeof (source as AsyncIterable<T>)[Symbol.asyncIterator] === 'function') {
    return (source as AsyncIterable<T>)[Symbol.asyncIterator]();
  }
  if (typeof (source as Iterable<T>)[Symbol.iterator] === 'function') {
    const it = (source as Iterable<T>)[Symbol.iterator]();
    return {
      next: async () => it.next(),
      return: async (value?: unknown) => {
        it.return?.(value);
        return { done: true, value: undefined };
      },
    };
  }
  // A ReadableStream without async iteration (older browsers).
  const reader = (source as ReadableStream<T>).getReader();
  return {
    next: async () => {
      const r = await reader.read();
      return r.done ? { done: true, value: undefined } : { done: false, value: r.value };
    },
    return: async () => {
      await reader.cancel();
      reader.releaseLock();
      return { done: true, value: undefined };
    },
  };
}

// A hand-written iterator over per-chunk batches: no generator frame per event, one await per
// chunk (an async generator's per-`yield` cost is measurable on the hot path).
function batchedEvents(
  source: ChunkSource,
  decoder: Decoder,
): AsyncIterable<AgentEvent> & AsyncIterator<AgentEvent> {
  let chunks: AsyncIterator<Uint8Array | string> | undefined;
  let batch: AgentEvent[] = [];
  let index = 0;
  let finished = false;
  const fill = async (): Promise<IteratorResult<AgentEvent>> => {
    while (index >= batch.length) {
      if (finished) return { done: true, value: undefined };
      chunks ??= toAsyncIterator(source);
      const r = await chunks.next();
      index = 0;
      if (r.done) {
        finished = true;
        batch = decoder.end();
      } else batch = decoder.push(r.value);
    }
    return { done: false, value: batch[index++]! };
  };
  const iterator: AsyncIterable<AgentEvent> & AsyncIterator<AgentEvent> = {
    [Symbol.asyncIterator]() {
      return iterator;
    },
    // Not async: an event already decoded costs one resolved promise, no async function frame.
    next(): Promise<IteratorResult<AgentEvent>> {
      if (index < batch.length) return Promise.resolve({ done: false, value: batch[index++]! });
      return fill();
    },
    async return(): Promise<IteratorResult<AgentEvent>> {
      if (!finished) {
        finished = true;
        batch = [];
        await chunks?.return?.();
      }
      return { done: true, value: undefined };
    },
  };
  return iterator;
}

/**
 * `options` with the line bound of a format that sets its own: `maxLineBytes` as given when it is
 * a bound (finite, not negative), else `fallback`. A bound that is not one takes the format's
 * default, not the splitter's smaller one, so a bad option never refuses records the format writes.
 */
export function withLineBound<D extends DecodeOptions>(options: D, fallback: number): D {
  return isLineBound(options.maxLineBytes) ? options : { ...options, maxLineBytes: fallback };
}

/** What {@link createLineReader} builds a JSON Lines reader from. */
export interface LineReaderSpec<D extends DecodeOptions> {
  format: Format;
  /** The format's line bound when the options set none ({@link withLineBound}). */
  maxLineBytes: number;
  createRecordDecoder(options: D, sink: DiagnosticSink): RecordDecoder;
  /** {@link ReaderSpec.heldInput}. */
  heldInput?: string | undefined;
  /** {@link ReaderSpec.holdsRecords}. */
  holdsRecords?: boolean | undefined;
}

/**
 * {@link createReader} of a JSON Lines format: the shared line splitter with the format's own line
 * bound ({@link withLineBound}) in front of its record decoder, blank lines skipped.
 */
export function createLineReader<D extends DecodeOptions>(spec: LineReaderSpec<D>): CodecReader<D> {
  return createReader<D>({
    format: spec.format,
    createChunkDecoder: (options, sink) =>
      lineChunkDecoder(
        spec.format,
        'jsonl',
        withLineBound(options, spec.maxLineBytes),
        sink,
        spec.createRecordDecoder(options, sink),
      ),
    heldInput: spec.heldInput,
    holdsRecords: spec.holdsRecords,
  });
}

// The events `decoder` reads from `input` (a decoder used for nothing else).
function heldEvents(decoder: ChunkDecoder, input: string | undefined): AgentEvent[] {
  const out: AgentEvent[] = [];
  if (input === undefined) return out;
  decoder.push(input, out);
  decoder.end(out);
  return out;
}

// Each line of `input` as JSON.parse reads it (a codec's held lines: constants, one record each).
function parsedLines(input: string | undefined): unknown[] {
  const out: unknown[] = [];
  if (input === undefined) return out;
  for (const line of input.split('\n')) if (line !== '') out.push(JSON.parse(line));
  return out;
}

// Each half holds, from its first decoder or encoder on and for its life, one quiet instance of
// its own side: an instance's hidden class (and its parts': a class instance's fields, the maps
// and records its constructor makes) is a transition that a full GC frees when no instance is
// alive, and the optimised per-line and per-event code that embedded it goes with it. Streams
// read or written one after another, a full GC between them, compiled that code again for each
// (docs/performance.md, "Round thirty-three"; `npm run bench:deopts`). The reader holds its
// decoder, the events it read from the format's held input and (`holdsRecords`) those records;
// the writer holds its encoder and the format's held values: the events a writer is given are
// its caller's, kept alive by the reader that made them.

/**
 * Assembles the reading half of a codec ({@link CodecReader}) from a format's chunk decoder: the
 * half `<codec>Reader` is, and the full codec's reading members ({@link createCodec}).
 */
export function createReader<D extends DecodeOptions>(spec: ReaderSpec<D>): CodecReader<D> {
  let held: readonly unknown[] | undefined;
  const holdShapes = (): void => {
    if (held !== undefined) return;
    held = []; // set first: a format's factory may parse with this codec
    const decoder = spec.createChunkDecoder({} as D, createDiagnosticSink(false, undefined));
    const records = spec.holdsRecords === true ? parsedLines(spec.heldInput) : [];
    held = [decoder, heldEvents(decoder, spec.heldInput), records];
  };
  const createDecoder = (options: D = {} as D): Decoder => {
    holdShapes();
    const sink = createDiagnosticSink(options.strict ?? false, options.onDiagnostic);
    const chunkDecoder = spec.createChunkDecoder(options, sink);
    // Bound module functions, not closures made per decoder: one function (and its optimised
    // code, which inlines the chunk decoder) for every decoder, which a full GC does not free
    // (docs/performance.md, "Codex decoder", round forty-seven). Still own properties, callable
    // unbound.
    return { push: pushTo.bind(chunkDecoder), end: endOf.bind(chunkDecoder) };
  };
  return {
    format: spec.format,
    parse(input, options = {} as D) {
      const diagnostics: Diagnostic[] = [];
      const handler = options.onDiagnostic;
      const decoder = createDecoder({
        ...options,
        onDiagnostic: (d: Diagnostic) => {
          diagnostics.push(d);
          handler?.(d);
        },
      });
      const events = decoder.push(input);
      for (const e of decoder.end()) events.push(e);
      return { events, diagnostics };
    },
    decode(source, options) {
      return batchedEvents(source, createDecoder(options));
    },
    createDecoder,
    decoderStream(options) {
      const decoder = createDecoder(options);
      return new TransformStream<Uint8Array | string, AgentEvent>(
        {
          transform(chunk, controller) {
            const events = decoder.push(chunk);
            for (let i = 0; i < events.length; i++) controller.enqueue(events[i]!);
          },
          flush(controller) {
            for (const event of decoder.end()) controller.enqueue(event);
          },
        },
        undefined,
        // A few events of room: with none (the default) backpressure flips on every chunk of a
        // few bytes; with a chunk's worth or more (1024) the writable side runs chunks ahead and
        // more events live in the queue when the young generation is collected (the A/B on HEP:
        // docs/performance.md, "Figures behind source comments").
        DECODER_STREAM_QUEUE,
      );
    },
    batchDecoderStream(options) {
      const decoder = createDecoder(options);
      return new TransformStream<Uint8Array | string, AgentEvent[]>(
        {
          transform(chunk, controller) {
            const events = decoder.push(chunk);
            if (events.length > 0) controller.enqueue(events);
          },
          flush(controller) {
            const events = decoder.end();
            if (events.length > 0) controller.enqueue(events);
          },
        },
        undefined,
        // One array per chunk: the default room of one entry keeps at most about a chunk's
        // events queued.
      );
    },
  };
}

/**
 * Assembles the writing half of a codec ({@link CodecWriter}) from a format's encoder factory: the
 * half `<codec>Writer` is, and the full codec's writing members ({@link createCodec}).
 */
export function createWriter<E extends EncodeOptions>(spec: WriterSpec<E>): CodecWriter<E> {
  let held: readonly unknown[] | undefined;
  const holdShapes = (): void => {
    if (held !== undefined) return;
    held = [];
    held = [spec.createEncoder({} as E, createDiagnosticSink(false, undefined)), spec.heldValues];
  };
  const createEncoder = (options: E = {} as E): Encoder => {
    holdShapes();
    return spec.createEncoder(options, createDiagnosticSink(false, options.onDiagnostic));
  };
  return {
    format: spec.format,
    stringify(events, options) {
      const encoder = createEncoder(options);
      let text = '';
      for (const event of events) text += encoder.write(event);
      return text + encoder.end();
    },
    async *encode(events, options) {
      const encoder = createEncoder(options);
      for await (const event of events as AsyncIterable<AgentEvent>) {
        const text = encoder.write(event);
        if (text !== '') yield text;
      }
      const rest = encoder.end();
      if (rest !== '') yield rest;
    },
    createEncoder,
    encoderStream(options) {
      const encoder = createEncoder(options);
      return new TransformStream<AgentEvent, string>({
        transform(event, controller) {
          const text = encoder.write(event);
          if (text !== '') controller.enqueue(text);
        },
        flush(controller) {
          const text = encoder.end();
          if (text !== '') controller.enqueue(text);
        },
      });
    },
  };
}

/**
 * One object with every member of both: how each format's full codec is made from its
 * `<codec>Reader` and `<codec>Writer`, so it behaves as they do, and how a half is given the
 * format's own members (highbar's `declaredTools`, ai-sdk's `toResponse`). A function (called as
 * pure where a module makes a codec at load) rather than a spread in place: a bundler keeps a
 * module-level object spread even when nothing uses it, and with it both halves.
 */
export function joinCodec<A extends object, B extends object>(a: A, b: B): A & B {
  return { ...a, ...b };
}

/** Assembles the public codec from a format's decoder and encoder factories: both halves joined. */
export function createCodec<D extends DecodeOptions, E extends EncodeOptions>(
  spec: FormatSpec<D, E>,
): Codec<D, E> {
  return joinCodec(createReader<D>(spec), createWriter<E>(spec));
}

/**
 * A format's rules, fed one decoded event at a time: each call returns the diagnostics it found
 * (most return none). What a checker keeps is bounded by what is open (tools, runs, messages,
 * steps), never by the stream's length, so checking a stream of any size takes bounded memory.
 */
export interface EventChecker {
  /** Takes the next event and returns the diagnostics it revealed. */
  push(event: AgentEvent): Diagnostic[];
  /** The events ended: returns what only the end reveals (a call never answered, …). */
  end(): Diagnostic[];
}

/** Makes a fresh {@link EventChecker}: one per stream checked. */
export type EventRules = () => EventChecker;

/**
 * Runs a batch form of rules over a whole event list through its incremental form: what the
 * exported `check<Format>Events(events)` functions are.
 */
export function runRules(rules: EventRules, events: Iterable<AgentEvent>): Diagnostic[] {
  const checker = rules();
  const out: Diagnostic[] = [];
  for (const e of events) for (const d of checker.push(e)) out.push(d);
  for (const d of checker.end()) out.push(d);
  return out;
}

/**
 * A push checker: feed chunks, get the diagnostics they revealed, synchronously: the decoder's
 * (schema, JSON, bounds) and the format's rules' (ordering), as they are found. A rule may report
 * an earlier line at a later event (a call never answered is found at its run's end), so the
 * diagnostics come in the order they are found, not always in line order (those of one chunk are
 * in line order); memory stays bounded.
 */
export interface Checker {
  /** Takes the next chunk (bytes or text) and returns the diagnostics it revealed. */
  push(chunk: Uint8Array | ArrayBuffer | ArrayBufferView | string): Diagnostic[];
  /** Ends the input and returns the last diagnostics. */
  end(): Diagnostic[];
}

/** What a reader with rules adds to {@link CodecReader}: checking, whole or streamed. */
export interface CheckingReader<D extends DecodeOptions = DecodeOptions> extends CodecReader<D> {
  /**
   * Validates a whole input: every decoder diagnostic plus the format's own rules, sorted by
   * line. Empty means conforming. The same path as {@link CheckingReader.createChecker} (one
   * push decoder feeding the rules), over the whole input at once.
   */
  check(input: string | Uint8Array, options?: D): Diagnostic[];
  /**
   * A push checker ({@link Checker}): the same diagnostics as {@link CheckingReader.check}, as they
   * are found, in bounded memory (strict mode is off: every diagnostic is seen).
   */
  createChecker(options?: D): Checker;
  /**
   * A Web `TransformStream` from chunks to diagnostics, one diagnostic per read, as they are
   * found ({@link CheckingReader.createChecker}).
   */
  checkerStream(options?: D): TransformStream<Uint8Array | string, Diagnostic>;
}

/**
 * What a codec with rules adds to {@link Codec}: checking, whole or streamed (its reading half is
 * a {@link CheckingReader}).
 */
export interface CheckingCodec<
  D extends DecodeOptions = DecodeOptions,
  E extends EncodeOptions = EncodeOptions,
> extends Codec<D, E>,
    CheckingReader<D> {}

/**
 * A format's rules with the rule every stream shares added: a run its decoder had to end itself
 * (a synthetic `run.end` of status `incomplete`: the input ended, or the next run began, before
 * the run's `terminal` record) is a warning at that event, so `check` never calls such a stream
 * clean (`--strict` fails it). For the formats whose own rules do not say it already.
 */
export function withIncompleteRuns(rules: EventRules, format: Format, terminal: string): EventRules {
  return () => {
    const inner = rules();
    return {
      push(e) {
        const found = inner.push(e);
        if (e.type !== 'run.end' || e.status !== 'incomplete') return found;
        const p = e.provenance;
        if (p?.synthetic !== true || p.format !== format) return found;
        const warning = diagnosticAt(
          'order',
          'warning',
          p.line,
          p.offset,
          `the run ends without ${terminal}: it is incomplete`,
          format,
        );
        return found.length === 0 ? [warning] : [...found, warning];
      },
      end: () => inner.end(),
    };
  };
}

/** Where a diagnostic came from: the decoder, or the format's rules. */
type CheckSink = (d: Diagnostic) => void;

// The one path of `check`, `createChecker` and `checkerStream`: the codec's push decoder (strict
// off) feeding the rules event by event; each diagnostic goes to its source's sink at once.
function runChecker<D extends DecodeOptions>(
  codec: Pick<CodecReader<D>, 'createDecoder' | 'format'>,
  rules: EventRules,
  options: D,
  decoded: CheckSink,
  ruled: CheckSink,
): { push(chunk: Uint8Array | ArrayBuffer | ArrayBufferView | string): void; end(): void } {
  const handler = options.onDiagnostic;
  // Anything seen: an event of a record, or a warning or error of the decoder or the rules (blank
  // lines, an info each, are not a record). A stream without any is empty (`emptyStream`).
  let seen = false;
  const decoder = codec.createDecoder({
    ...options,
    strict: false,
    onDiagnostic: (d: Diagnostic) => {
      if (d.severity !== 'info') seen = true;
      decoded(d);
      handler?.(d);
    },
  });
  const checker = rules();
  const judge = (events: AgentEvent[]) => {
    // A notice is a line that is no record (a banner Gemini CLI prints before its init).
    if (!seen) for (let i = 0; i < events.length; i++) if (events[i]!.type !== 'notice') seen = true;
    for (let i = 0; i < events.length; i++) {
      const found = checker.push(events[i]!);
      for (let j = 0; j < found.length; j++) ruled(found[j]!);
    }
  };
  return {
    push: (chunk) => judge(decoder.push(chunk)),
    end() {
      judge(decoder.end());
      const found = checker.end();
      for (const d of found) ruled(d);
      if (!seen && found.length === 0) ruled(emptyStream(codec.format));
    },
  };
}

const byLine = (a: Diagnostic, b: Diagnostic) =>
  (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER);

/**
 * Builds a codec's checking members ({@link CheckingCodec}) from its rules: `check` (every
 * diagnostic the decoder finds, strict off so all are seen, plus the rules', in line order),
 * `createChecker` and `checkerStream` (the same, as found).
 */
export function createCheckers<D extends DecodeOptions>(
  codec: Pick<CodecReader<D>, 'createDecoder' | 'format'>,
  rules: EventRules,
): Pick<CheckingReader<D>, 'check' | 'createChecker' | 'checkerStream'> {
  const createChecker = (options: D = {} as D): Checker => {
    let out: Diagnostic[] = [];
    const add = (d: Diagnostic) => out.push(d);
    const run = runChecker(codec, rules, options, add, add);
    const take = () => {
      const found = out;
      out = [];
      // In line order within one chunk's findings (the decoder's come before the rules' of the
      // same chunk): bounded by what one chunk reveals.
      if (found.length > 1) found.sort(byLine);
      return found;
    };
    return {
      push(chunk) {
        run.push(chunk);
        return take();
      },
      end() {
        run.end();
        return take();
      },
    };
  };
  return {
    check(input, options = {} as D) {
      // The decoder's diagnostics before the rules' on one line, each in the order found (the
      // sort is stable): the order `check` has always had.
      const decoded: Diagnostic[] = [];
      const ruled: Diagnostic[] = [];
      const run = runChecker(
        codec,
        rules,
        options,
        (d) => decoded.push(d),
        (d) => ruled.push(d),
      );
      run.push(input);
      run.end();
      const all = decoded.concat(ruled);
      all.sort(byLine);
      return all;
    },
    createChecker,
    checkerStream(options) {
      const checker = createChecker(options);
      return new TransformStream<Uint8Array | string, Diagnostic>({
        transform(chunk, controller) {
          for (const d of checker.push(chunk)) controller.enqueue(d);
        },
        flush(controller) {
          for (const d of checker.end()) controller.enqueue(d);
        },
      });
    },
  };
}

/**
 * A reader with its checking members ({@link createCheckers}) beside its own: how each format's
 * `<codec>Reader` is made. A function, called as pure at load, for the reason {@link joinCodec}
 * is one.
 */
export function withCheckers<D extends DecodeOptions, R extends CodecReader<D>>(
  reader: R,
  rules: EventRules,
): R & Pick<CheckingReader<D>, 'check' | 'createChecker' | 'checkerStream'> {
  return { ...reader, ...createCheckers(reader, rules) };
}
