import { createParser, type EventSourceParser, type ParseError } from 'eventsource-parser';
import { AgentwireError, type Diagnostic, diagnosticAt, type Format } from '../diagnostics';
import { UNSET, type Writable } from '../plain';
import {
  endInput,
  type LineSink,
  type LineSplitter,
  newSplitState,
  pushChunk,
  resetSplit,
  type SplitState,
} from './lines';

/** Default `maxEventBytes`: 4 MiB for all the lines of one SSE event together. */
export const DEFAULT_MAX_EVENT_BYTES: number = 4 * 1024 * 1024;

/** One dispatched SSE event. */
export interface SseMessage {
  /** The `id` set inside this event's block, if any (WHATWG: NUL-containing ids are ignored). */
  id: string | undefined;
  /** The `event` field, if the block had one. */
  event: string | undefined;
  /** The data lines joined with LF. */
  data: string;
  /** The sticky last event id after this event (what a reconnect sends as `Last-Event-ID`). */
  lastEventId: string;
  /** 1-based line number of the block's first line. */
  line: number;
  /** Byte offset of the block's first line. */
  offset: number;
}

/** Receives what an {@link SseReader} finds, in input order. */
export interface SseHandler {
  /** A complete event. */
  message(message: SseMessage): void;
  /** A diagnostic (bounds, bad UTF-8, bad `retry`, unknown fields, an unfinished last event). */
  diagnostic(diagnostic: Diagnostic): void;
  /** A valid `retry` field (milliseconds). */
  retry?(ms: number): void;
  /** A comment line (`: text`), e.g. a keepalive. */
  comment?(text: string): void;
}

/** Options of {@link SseReader}. */
export interface SseReaderOptions {
  /** Most bytes of one line, terminator excluded. Default 1 MiB. */
  maxLineBytes?: number;
  /** Most bytes of one event (all its lines and their terminators). Default {@link DEFAULT_MAX_EVENT_BYTES}. */
  maxEventBytes?: number;
  /** The last event id to start from (a resumed connection). Default `""`. */
  lastEventId?: string;
  /** Stamped on diagnostics. */
  format?: Format;
}

/**
 * The reader's state between chunks, built whole in one object literal ({@link newSseState}),
 * with the line splitter's own literal inside it: a literal's hidden class is held by its
 * allocation site and outlives a full garbage collection, where a class instance's fields die
 * with the last reader and take the optimised per-line code that embedded them along
 * (docs/performance.md, "AG-UI and AI SDK codecs", round five).
 */
interface SseState {
  readonly handler: SseHandler;
  readonly split: SplitState;
  readonly parser: EventSourceParser;
  readonly maxEventBytes: number;
  readonly format: Format | undefined;
  last: string;
  blockId: string | undefined;
  blockLine: number;
  blockOffset: number;
  blockBytes: number;
  inBlock: boolean;
  discarding: boolean;
  currentLine: number;
  currentOffset: number;
  // The block's `data` and `event` fields, kept here (the parser gets the other fields): feeding
  // the parser every data line as its own string costs more than reading these two fields.
  data: string;
  dataLines: number;
  eventType: string | undefined;
}

function newSseState(handler: SseHandler, options: SseReaderOptions): SseState {
  const max = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const lineOptions: { mode: 'sse'; maxLineBytes?: number; format?: Format } = { mode: 'sse' };
  if (options.maxLineBytes !== undefined) lineOptions.maxLineBytes = options.maxLineBytes;
  if (options.format !== undefined) lineOptions.format = options.format;
  // The sink reaches the state through its `s` field, set below before any line is read. Its
  // methods are the same functions for every reader, not closures made per reader: the optimised
  // per-line code that inlines the sink's calls then holds for the next reader too, where a
  // closure of the last reader made it bail out at every new stream ("wrong call target";
  // docs/performance.md, "AG-UI and AI SDK codecs", round twelve).
  const sink = SSE_DATA_BLOCKS.enabled ? new SseBlockSink() : new SseLineSink();
  const parser = createParser({
    onEvent: (e) => dispatch(s, e.event, e.data),
    onRetry: (ms) => s.handler.retry?.(ms),
    onComment: (text) => s.handler.comment?.(text),
    onError: (error) => parseError(s, error),
  });
  const s: SseState = {
    handler: UNSET,
    split: UNSET,
    parser: UNSET,
    maxEventBytes: Number.isFinite(max) && max >= 0 ? Math.floor(max) : DEFAULT_MAX_EVENT_BYTES,
    format: options.format,
    last: options.lastEventId ?? '',
    blockId: undefined,
    blockLine: 0,
    blockOffset: 0,
    blockBytes: 0,
    inBlock: false,
    discarding: false,
    currentLine: 0,
    currentOffset: 0,
    data: '',
    dataLines: 0,
    eventType: undefined,
  };
  // The object fields set after the literal, first `undefined`: no per-line code depends on
  // their hidden classes (src/plain.ts, `UNSET`).
  const w = s as Writable<SseState>;
  w.handler = handler;
  w.split = newSplitState(sink, lineOptions);
  w.parser = parser;
  sink.s = s;
  resetParser(s);
  return s;
}

/** The splitter's sink of a reader: each line read by {@link readLine}. */
class SseLineSink implements LineSink {
  s: SseState | undefined = undefined;
  line(text: string, line: number, offset: number, bytes: number): void {
    readLine(this.s!, text, line, offset, bytes);
  }
  diagnostic(d: Diagnostic): void {
    lineDiagnostic(this.s!, d);
  }
}

/** {@link SseLineSink} with the one-line block fast path ({@link readDataBlock}). */
class SseBlockSink extends SseLineSink {
  lineBeforeBlank(text: string, line: number, offset: number, bytes: number): boolean {
    return readDataBlock(this.s!, text, line, offset, bytes);
  }
}

/**
 * A WHATWG `text/event-stream` reader. Lines come from the shared {@link LineSplitter} (CR, LF,
 * CRLF; one BOM; bounded lines; UTF-8 across chunks); fields are parsed by `eventsource-parser`
 * fed one normalised line at a time. This class adds what that parser leaves to its caller or
 * does differently: a bound on a whole event that discards the event and goes on (the parser's
 * own `maxBufferSize` stops it for good), the sticky last event id (also committed by a block
 * without data), and diagnostics with line numbers and byte offsets.
 */
export class SseReader {
  // The work is done by module functions on this literal: none of them reads the class's shape.
  private readonly s: SseState;

  /** Creates a reader sending events and diagnostics to `handler`. */
  constructor(handler: SseHandler, options: SseReaderOptions = {}) {
    this.s = newSseState(handler, options);
  }

  /** The sticky last event id: what a reconnect sends as `Last-Event-ID`. */
  get lastEventId(): string {
    return this.s.last;
  }

  /** Bytes taken in so far. */
  get bytesConsumed(): number {
    return this.s.split.consumed;
  }

  /** Takes the next chunk. */
  push(chunk: Uint8Array | string): void {
    pushChunk(this.s.split, chunk);
  }

  /**
   * Ends the input. An unfinished event is dropped (WHATWG) and reported as `incomplete_line`
   * (severity `warning`); its id is not committed.
   */
  end(): void {
    endSse(this.s);
  }
}

function endSse(s: SseState): void {
  const split = s.split;
  // An unterminated last line can only belong to an event that never got its blank line:
  // it is not read (no spurious diagnostics for a line cut mid-character or mid-name).
  endInput(split, 'hold');
  const partial = split.pendingLength > 0;
  if ((s.inBlock && !s.discarding) || (partial && !s.inBlock)) {
    const line = s.inBlock ? s.blockLine : split.lineNumber;
    const offset = s.inBlock ? s.blockOffset : split.consumed - split.pendingLength;
    s.handler.diagnostic(
      diag(
        s,
        'incomplete_line',
        'warning',
        line,
        offset,
        'the input ended inside an event (no blank line after it); the event was not dispatched',
      ),
    );
  }
  resetSplit(split);
  clearBlock(s);
  resetParser(s);
}

function lineDiagnostic(s: SseState, d: Diagnostic): void {
  // A line we could not read belongs to the event being read: that event is now incomplete, so
  // it is discarded whole rather than dispatched without the line.
  if (s.inBlock || d.code !== 'incomplete_line') startDiscarding(s);
  s.handler.diagnostic(d);
}

function dispatch(s: SseState, event: string | undefined, data: string): void {
  s.handler.message({
    id: s.blockId,
    event,
    data,
    lastEventId: s.last,
    line: s.blockLine,
    offset: s.blockOffset,
  });
}

function resetParser(s: SseState): void {
  s.data = '';
  s.dataLines = 0;
  s.eventType = undefined;
  s.parser.reset();
  // eventsource-parser strips a BOM from its first chunk; the splitter already removed the one
  // BOM the stream may have, so a second one must stay content (WHATWG).
  s.parser.feed('');
}

function clearBlock(s: SseState): void {
  s.inBlock = false;
  s.discarding = false;
  s.blockBytes = 0;
  s.blockId = undefined;
}

function startDiscarding(s: SseState): void {
  if (!s.inBlock) {
    s.inBlock = true;
    s.blockLine = s.split.lineNumber;
    s.blockOffset = s.split.consumed;
  }
  s.discarding = true;
  resetParser(s);
}

/**
 * The switch of the reader's fast path for a block of one `data:` line (the UI protocols' every
 * event: `data: {json}`, then an empty line), read at once by {@link readDataBlock} instead of
 * line by line. Read when a reader is made. Tests turn it off to hold the fast path to the
 * general reader (test/framing/sse-blocks.test.ts); nothing else should.
 */
export const SSE_DATA_BLOCKS: { enabled: boolean } = { enabled: true };

/**
 * A `data:` line that an empty line follows, read as {@link readLine} reads the two lines, where
 * no block is open (so no id, event type, data or size is held, and nothing is discarded) and the
 * line fits the event bound: the event dispatched at once. False (nothing done) for anything
 * else, which {@link readLine} then reads.
 */
function readDataBlock(s: SseState, text: string, line: number, offset: number, bytes: number): boolean {
  if (
    s.inBlock ||
    bytes + 1 > s.maxEventBytes ||
    text.charCodeAt(4) !== 58 ||
    text.charCodeAt(0) !== 100 ||
    text.charCodeAt(1) !== 97 ||
    text.charCodeAt(2) !== 116 ||
    text.charCodeAt(3) !== 97
  )
    return false;
  // The state the two lines leave, the block open while its event is handled (as a handler that
  // throws finds it), then closed. (The current line, read only for a line's field errors, is set
  // by every line read after this.)
  s.inBlock = true;
  s.blockLine = line;
  s.blockOffset = offset;
  s.blockBytes = bytes + 1;
  dispatch(s, undefined, text.slice(text.charCodeAt(5) === 32 ? 6 : 5));
  s.inBlock = false;
  s.blockBytes = 0;
  return true;
}

function readLine(s: SseState, text: string, line: number, offset: number, bytes: number): void {
  s.currentLine = line;
  s.currentOffset = offset;
  if (text.length === 0) {
    // A blank line: the block ends (dispatched when it had data and was not discarded).
    if (s.blockId !== undefined) s.last = s.blockId;
    // WHATWG dispatch: only a block with data lines is an event. The parser never sees data
    // lines, so it has nothing to dispatch; the id it may hold is never read.
    if (!s.discarding && s.dataLines > 0) {
      const data = s.data;
      const event = s.eventType;
      s.data = '';
      s.dataLines = 0;
      s.eventType = undefined;
      dispatch(s, event, data);
    }
    // A block without data dispatches nothing and still clears its event type (WHATWG).
    s.eventType = undefined;
    clearBlock(s);
    return;
  }
  if (!s.inBlock) {
    s.inBlock = true;
    s.blockLine = line;
    s.blockOffset = offset;
  }
  // The id is tracked here, not taken from the parser: WHATWG commits it also for a block
  // without data, and for a block discarded as too large (a resume must not ask for it again).
  let isId = false;
  // Field names are matched by character codes: `startsWith` and slicing the name cost more
  // than the rest of the line's handling.
  const first = text.charCodeAt(0);
  if (first === 105 && text.charCodeAt(1) === 100 && (text.length === 2 || text.charCodeAt(2) === 58)) {
    isId = true;
    const value = text.length === 2 ? '' : text.slice(text.charCodeAt(3) === 32 ? 4 : 3);
    if (value.indexOf('\0') === -1) s.blockId = value;
  }
  if (s.discarding) {
    // WHATWG applies `retry` as its line is read, like `id`: also in a block being discarded.
    if (isRetryLine(text)) s.parser.feed(`${text}\n`);
    return;
  }
  s.blockBytes += bytes + 1;
  if (s.blockBytes > s.maxEventBytes) {
    tooLarge(s, text);
    return;
  }
  // The id is fully handled above, and the parser's own copy of it is never read: feeding the
  // line would only cost a parser call per event.
  if (isId) return;
  if (first === 100 && text.charCodeAt(1) === 97 && text.charCodeAt(2) === 116 && text.charCodeAt(3) === 97) {
    if (text.length === 4 || text.charCodeAt(4) === 58) {
      const value = text.length === 4 ? '' : text.slice(text.charCodeAt(5) === 32 ? 6 : 5);
      s.data = s.dataLines === 0 ? value : `${s.data}\n${value}`;
      s.dataLines++;
      return;
    }
  } else if (
    first === 101 &&
    text.charCodeAt(1) === 118 &&
    text.charCodeAt(2) === 101 &&
    text.charCodeAt(3) === 110 &&
    text.charCodeAt(4) === 116
  ) {
    if (text.length === 5 || text.charCodeAt(5) === 58) {
      const value = text.length === 5 ? '' : text.slice(text.charCodeAt(6) === 32 ? 7 : 6);
      s.eventType = value === '' ? undefined : value;
      return;
    }
  }
  s.parser.feed(`${text}\n`);
}

function tooLarge(s: SseState, text: string): void {
  s.handler.diagnostic(
    diag(
      s,
      'event_too_large',
      'error',
      s.blockLine,
      s.blockOffset,
      `event too large, (at least ${s.blockBytes} bytes so far) > maxEventBytes (${s.maxEventBytes}); the event was discarded`,
    ),
  );
  s.discarding = true;
  resetParser(s);
  if (isRetryLine(text)) s.parser.feed(`${text}\n`);
}

function parseError(s: SseState, error: ParseError): void {
  if (error.type === 'invalid-retry') {
    s.handler.diagnostic(
      diag(
        s,
        'invalid_record',
        'warning',
        s.currentLine,
        s.currentOffset,
        `retry value ${JSON.stringify(error.value ?? '')} is not ASCII digits; ignored`,
      ),
    );
  } else if (error.type === 'unknown-field') {
    const field = error.field ?? '';
    s.handler.diagnostic(
      diag(
        s,
        'unknown_record',
        'info',
        s.currentLine,
        s.currentOffset,
        `unknown SSE field ${JSON.stringify(field.length > 40 ? `${field.slice(0, 40)}…` : field)}; ignored`,
      ),
    );
  }
}

function diag(
  s: SseState,
  code: Diagnostic['code'],
  severity: Diagnostic['severity'],
  line: number,
  offset: number,
  what: string,
): Diagnostic {
  return diagnosticAt(code, severity, line, offset, what, s.format);
}

// A `retry` field line (`retry`, or `retry:` and a value).
function isRetryLine(text: string): boolean {
  return text.startsWith('retry') && (text.length === 5 || text.charCodeAt(5) === 58);
}

/** The fields of one SSE event to write. */
export interface SseFields {
  /** The `id` line; omitted when undefined. */
  id?: string | undefined;
  /** The `event` line; omitted when undefined. */
  event?: string | undefined;
  /** The payload: written as one `data:` line, so it must not contain CR or LF. */
  data: string;
}

function refuse(field: string, value: string): never {
  throw new AgentwireError({
    code: 'unencodable',
    severity: 'error',
    message: `SSE ${field} ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)} contains CR, LF or NUL; writing it would let it inject fields or events`,
    format: 'nativeharness',
  });
}

// indexOf per character: a native memchr-like search, cheaper than a regular expression here.
function hasLineBreak(value: string): boolean {
  return value.indexOf('\n') !== -1 || value.indexOf('\r') !== -1;
}

function forbidden(value: string): boolean {
  return hasLineBreak(value) || value.indexOf('\0') !== -1;
}

/**
 * Formats one SSE event, injection-proof: `id` and `event` values containing CR, LF or NUL, and
 * `data` containing CR or LF, are refused with {@link AgentwireError} (`unencodable`) instead of
 * being written (or silently altered).
 */
export function formatSseEvent(fields: SseFields): string {
  let text = '';
  if (fields.id !== undefined) {
    if (forbidden(fields.id)) refuse('id', fields.id);
    text += `id: ${fields.id}\n`;
  }
  if (fields.event !== undefined) {
    if (forbidden(fields.event)) refuse('event', fields.event);
    text += `event: ${fields.event}\n`;
  }
  if (hasLineBreak(fields.data)) refuse('data', fields.data);
  return `${text}data: ${fields.data}\n\n`;
}

/**
 * {@link formatSseEvent} for `data` this library produced as JSON text: JSON never holds a raw CR
 * or LF (it escapes every control character), so only `id` and `event` are checked. Scanning the
 * data would also flatten the concatenated payload string on every event.
 */
export function formatSseJsonEvent(id: string | undefined, event: string | undefined, data: string): string {
  let text = '';
  if (id !== undefined) {
    if (forbidden(id)) refuse('id', id);
    text += `id: ${id}\n`;
  }
  if (event !== undefined) {
    if (forbidden(event)) refuse('event', event);
    text += `event: ${event}\n`;
  }
  return `${text}data: ${data}\n\n`;
}
