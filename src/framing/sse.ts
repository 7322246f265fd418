import { type Diagnostic, diagnosticAt, type Format } from '../diagnostics';
import { unencodable } from '../json';
import { DEFAULT_MAX_EVENT_BYTES } from '../limits';
import {
  endInput,
  type LineSplitter,
  newSplitState,
  pushChunk,
  resetSplit,
  type SplitState,
  splitSse,
} from './lines';
import { CONSUMED, LINE_NUMBER, PENDING_LENGTH } from './split-slots';
import {
  BLOCK_BYTES,
  BLOCK_ID,
  BLOCK_LINE,
  BLOCK_OFFSET,
  CURRENT_LINE,
  CURRENT_OFFSET,
  DATA,
  DATA_LINES,
  DISCARDING,
  EVENT_TARGET,
  EVENT_TYPE,
  FORMAT,
  HANDLER,
  IN_BLOCK,
  LAST,
  MAX_EVENT_BYTES,
  ON_EVENT,
  SPLIT,
} from './sse-slots';

export { DEFAULT_MAX_EVENT_BYTES } from '../limits';

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
 * The {@link SseReaderOptions} of a decoder's or a client's options: the format, the bounds they
 * set (a bound left out takes the reader's default) and the id a resumed connection starts from.
 */
export function sseReaderOptions(
  format: Format,
  options: { maxLineBytes?: number; maxEventBytes?: number },
  lastEventId?: string,
): SseReaderOptions {
  const o: SseReaderOptions = { format };
  if (options.maxLineBytes !== undefined) o.maxLineBytes = options.maxLineBytes;
  if (options.maxEventBytes !== undefined) o.maxEventBytes = options.maxEventBytes;
  if (lastEventId !== undefined) o.lastEventId = lastEventId;
  return o;
}

/**
 * What a reader calls with each event, its receiver first, then the reader's state (the event's
 * `id`, sticky last id, line and offset are in its slots: {@link sseBlockId}, {@link sseLastId},
 * {@link sseBlockLine}, {@link sseBlockOffset}) and the event's type and data (a reader of JSON
 * records needs no message object).
 */
export type SseEventFn<T> = (target: T, s: SseState, event: string | undefined, data: string) => void;

/**
 * The reader's state between chunks: one array of named slots ({@link newSseState}), the line
 * splitter's own slots inside it, for the reason {@link SplitState} gives: an array's hidden class
 * belongs to the realm and outlives a full garbage collection, where an object literal made before
 * its allocation site had a boilerplate, or a class instance's fields, die with the last reader
 * and take the optimised per-line code along. The splitter calls the reader's module functions on
 * these slots ({@link readLine}, {@link readDataBlock}, {@link lineDiagnostic}) and each event
 * goes to `onEvent(eventTarget, …)`: no sink, handler or message object made per stream is on the
 * per-line path (docs/performance.md, "The framing's state in slots", round fourteen).
 */
export type SseState = [
  // Diagnostics, `retry` and comments: rare, read through the handler's methods.
  handler: Omit<SseHandler, 'message'>,
  onEvent: SseEventFn<never>,
  // biome-ignore lint/suspicious/noExplicitAny: the receiver's type is `onEvent`'s own.
  eventTarget: any,
  split: SplitState,
  maxEventBytes: number,
  format: Format | undefined,
  last: string,
  blockId: string | undefined,
  blockLine: number,
  blockOffset: number,
  blockBytes: number,
  inBlock: boolean,
  discarding: boolean,
  currentLine: number,
  currentOffset: number,
  // The block's `data` and `event` fields.
  data: string,
  dataLines: number,
  eventType: string | undefined,
];

// What an `onEvent` reads of the event it is called with, beside its type and data.

/** The `id` set inside the dispatched event's block, if any. */
export function sseBlockId(s: SseState): string | undefined {
  return s[BLOCK_ID];
}

/** The sticky last event id after the dispatched event. */
export function sseLastId(s: SseState): string {
  return s[LAST];
}

/** 1-based line number of the dispatched event's first line. */
export function sseBlockLine(s: SseState): number {
  return s[BLOCK_LINE];
}

/** Byte offset of the dispatched event's first line. */
export function sseBlockOffset(s: SseState): number {
  return s[BLOCK_OFFSET];
}

/**
 * A reader's state that sends each event to `onEvent(eventTarget, …)` and the rest to `handler`,
 * driven by {@link pushSse} and {@link endSse}. {@link SseReader} is this with a handler's
 * `message` as `onEvent`.
 *
 * `onEvent` is where the reader's code ends and its caller's begins: pass one module-level function
 * (the same for every stream), not one made per stream. A function made per stream (a closure, a
 * `bind`) is what the reader's optimised code would embed as its call target; it dies at the full
 * GC after its stream and takes that code with it, stream after stream. A stable function is
 * inlined with the caller's objects' hidden classes, which the codec keeps alive (`createReader`
 * holds a quiet decoder: docs/performance.md, rounds thirty-three and thirty-four).
 */
export function newSseState<T>(
  handler: Omit<SseHandler, 'message'>,
  onEvent: SseEventFn<T>,
  eventTarget: T,
  options: SseReaderOptions,
): SseState {
  const max = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const s: SseState = [
    handler,
    onEvent as SseEventFn<never>,
    eventTarget,
    // The splitter is made below: its lines go to this state.
    undefined as unknown as SplitState,
    Number.isFinite(max) && max >= 0 ? Math.floor(max) : DEFAULT_MAX_EVENT_BYTES,
    options.format,
    options.lastEventId ?? '',
    undefined,
    0,
    0,
    0,
    false,
    false,
    0,
    0,
    '',
    0,
    undefined,
  ];
  s[SPLIT] = newSplitState(
    s,
    readLine,
    SSE_DATA_BLOCKS.enabled ? readDataBlock : undefined,
    lineDiagnostic,
    // The splitter reads only the line bound and the format of these.
    options,
    splitSse,
  );
  return s;
}

// A handler's `message` as the reader calls it (one function for every handler).
function handlerMessage(handler: SseHandler, s: SseState, event: string | undefined, data: string): void {
  handler.message({
    id: s[BLOCK_ID],
    event,
    data,
    lastEventId: s[LAST],
    line: s[BLOCK_LINE],
    offset: s[BLOCK_OFFSET],
  });
}

/** {@link SseReader.push} on a state from {@link newSseState}. */
export function pushSse(s: SseState, chunk: Uint8Array | string): void {
  pushChunk(s[SPLIT], chunk);
}

/**
 * A WHATWG `text/event-stream` reader. Lines come from the shared {@link LineSplitter} (CR, LF,
 * CRLF; one BOM; bounded lines; UTF-8 across chunks); each line is read as one field, as WHATWG
 * and `eventsource-parser` read it (test/framing/sse-fields.test.ts compares the two). Beyond a
 * field parser it has a bound on a whole event that discards the event and goes on
 * (`eventsource-parser`'s own `maxBufferSize` stops it for good), the sticky last event id (also
 * committed by a block without data), and diagnostics with line numbers and byte offsets.
 */
export class SseReader {
  // The work is done by module functions on these slots: none of them reads the class's shape.
  private readonly s: SseState;

  /** Creates a reader sending events and diagnostics to `handler`. */
  constructor(handler: SseHandler, options: SseReaderOptions = {}) {
    this.s = newSseState(handler, handlerMessage, handler, options);
  }

  /** The sticky last event id: what a reconnect sends as `Last-Event-ID`. */
  get lastEventId(): string {
    return this.s[LAST];
  }

  /** Bytes taken in so far. */
  get bytesConsumed(): number {
    return this.s[SPLIT][CONSUMED];
  }

  /** Takes the next chunk. */
  push(chunk: Uint8Array | string): void {
    pushSse(this.s, chunk);
  }

  /**
   * Ends the input. An unfinished event is dropped (WHATWG) and reported as `incomplete_line`
   * (severity `warning`); its id is not committed.
   */
  end(): void {
    endSse(this.s);
  }
}

/** {@link SseReader.end} on a state from {@link newSseState}. */
export function endSse(s: SseState): void {
  const split = s[SPLIT];
  // An unterminated last line can only belong to an event that never got its blank line:
  // it is not read (no spurious diagnostics for a line cut mid-character or mid-name).
  endInput(split, 'hold');
  const partial = split[PENDING_LENGTH] > 0;
  if ((s[IN_BLOCK] && !s[DISCARDING]) || (partial && !s[IN_BLOCK])) {
    const line = s[IN_BLOCK] ? s[BLOCK_LINE] : split[LINE_NUMBER];
    const offset = s[IN_BLOCK] ? s[BLOCK_OFFSET] : split[CONSUMED] - split[PENDING_LENGTH];
    s[HANDLER].diagnostic(
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
  resetFields(s);
}

function lineDiagnostic(s: SseState, d: Diagnostic): void {
  // A line we could not read belongs to the event being read: that event is now incomplete, so
  // it is discarded whole rather than dispatched without the line.
  if (s[IN_BLOCK] || d.code !== 'incomplete_line') startDiscarding(s);
  s[HANDLER].diagnostic(d);
}

function dispatch(s: SseState, event: string | undefined, data: string): void {
  s[ON_EVENT](s[EVENT_TARGET] as never, s, event, data);
}

function resetFields(s: SseState): void {
  s[DATA] = '';
  s[DATA_LINES] = 0;
  s[EVENT_TYPE] = undefined;
}

function clearBlock(s: SseState): void {
  s[IN_BLOCK] = false;
  s[DISCARDING] = false;
  s[BLOCK_BYTES] = 0;
  s[BLOCK_ID] = undefined;
}

function startDiscarding(s: SseState): void {
  if (!s[IN_BLOCK]) {
    s[IN_BLOCK] = true;
    s[BLOCK_LINE] = s[SPLIT][LINE_NUMBER];
    s[BLOCK_OFFSET] = s[SPLIT][CONSUMED];
  }
  s[DISCARDING] = true;
  resetFields(s);
}

/**
 * The switch of the reader's fast path for a block of one `data:` line (the UI protocols' every
 * event: `data: {json}`, then an empty line), read at once by {@link readDataBlock} instead of
 * line by line. Read when a reader is made. Tests turn it off to hold the fast path to the
 * general reader (test/framing/sse-blocks.test.ts); nothing else should.
 */
export const SSE_DATA_BLOCKS: { enabled: boolean } = { enabled: true };

// Whether `text` is a `data:` line (the colon, the field's most telling byte, compared first).
// The two one-event readers below ask it, where each spelled the five comparisons.
function isDataLine(text: string): boolean {
  return (
    text.charCodeAt(4) === 58 &&
    text.charCodeAt(0) === 100 &&
    text.charCodeAt(1) === 97 &&
    text.charCodeAt(2) === 116 &&
    text.charCodeAt(3) === 97
  );
}

// The value of a `data:` line: past the colon and the one space that may follow it.
function dataValue(text: string): string {
  return text.slice(text.charCodeAt(5) === 32 ? 6 : 5);
}

/**
 * A `data:` line that an empty line follows, read as {@link readLine} reads the two lines, where
 * no block is open (so no id, event type, data or size is held, and nothing is discarded) and the
 * line fits the event bound: the event dispatched at once; in an open block, see
 * {@link readLastData}. False (nothing done) for anything else, which {@link readLine} then reads.
 */
function readDataBlock(s: SseState, text: string, line: number, offset: number, bytes: number): boolean {
  if (s[IN_BLOCK]) return s[DATA_LINES] === 0 && !s[DISCARDING] && readLastData(s, text, bytes);
  if (bytes + 1 > s[MAX_EVENT_BYTES] || !isDataLine(text)) return false;
  // The state the two lines leave, the block open while its event is handled (as a handler that
  // throws finds it), then closed. (The current line, read only for a line's field errors, is set
  // by every line read after this.)
  s[IN_BLOCK] = true;
  s[BLOCK_LINE] = line;
  s[BLOCK_OFFSET] = offset;
  s[BLOCK_BYTES] = bytes + 1;
  dispatch(s, undefined, dataValue(text));
  s[IN_BLOCK] = false;
  s[BLOCK_BYTES] = 0;
  return true;
}

/**
 * The same for a block already open (its `id` and `event` lines read: nativeharness sends every
 * event so) that has no data yet and is not discarded: its one `data:` line and the empty line
 * after it read as {@link readLine} reads them, the event dispatched at once. False (nothing
 * done) for anything else.
 */
function readLastData(s: SseState, text: string, bytes: number): boolean {
  if (s[BLOCK_BYTES] + bytes + 1 > s[MAX_EVENT_BYTES] || !isDataLine(text)) return false;
  // The state the two lines leave while the event is handled (as a handler that throws finds
  // it): the id committed, the event type taken, then the block closed.
  s[BLOCK_BYTES] += bytes + 1;
  if (s[BLOCK_ID] !== undefined) s[LAST] = s[BLOCK_ID];
  const event = s[EVENT_TYPE];
  s[EVENT_TYPE] = undefined;
  dispatch(s, event, dataValue(text));
  clearBlock(s);
  return true;
}

function readLine(s: SseState, text: string, line: number, offset: number, bytes: number): void {
  s[CURRENT_LINE] = line;
  s[CURRENT_OFFSET] = offset;
  if (text.length === 0) {
    // A blank line: the block ends (dispatched when it had data and was not discarded).
    if (s[BLOCK_ID] !== undefined) s[LAST] = s[BLOCK_ID];
    // WHATWG dispatch: only a block with data lines is an event.
    if (!s[DISCARDING] && s[DATA_LINES] > 0) {
      const data = s[DATA];
      const event = s[EVENT_TYPE];
      s[DATA] = '';
      s[DATA_LINES] = 0;
      s[EVENT_TYPE] = undefined;
      dispatch(s, event, data);
    }
    // A block without data dispatches nothing and still clears its event type (WHATWG).
    s[EVENT_TYPE] = undefined;
    clearBlock(s);
    return;
  }
  if (!s[IN_BLOCK]) {
    s[IN_BLOCK] = true;
    s[BLOCK_LINE] = line;
    s[BLOCK_OFFSET] = offset;
  }
  // WHATWG commits the id also for a block without data, and for a block discarded as too large
  // (a resume must not ask for it again).
  let isId = false;
  // Field names are matched by character codes: `startsWith` and slicing the name cost more
  // than the rest of the line's handling.
  const first = text.charCodeAt(0);
  if (first === 105 && text.charCodeAt(1) === 100 && (text.length === 2 || text.charCodeAt(2) === 58)) {
    isId = true;
    const value = text.length === 2 ? '' : text.slice(text.charCodeAt(3) === 32 ? 4 : 3);
    if (value.indexOf('\0') === -1) s[BLOCK_ID] = value;
  }
  if (s[DISCARDING]) {
    // WHATWG applies `retry` as its line is read, like `id`: also in a block being discarded.
    if (isRetryLine(text)) otherField(s, text);
    return;
  }
  s[BLOCK_BYTES] += bytes + 1;
  if (s[BLOCK_BYTES] > s[MAX_EVENT_BYTES]) {
    tooLarge(s, text);
    return;
  }
  // The id is fully handled above.
  if (isId) return;
  if (first === 100 && text.charCodeAt(1) === 97 && text.charCodeAt(2) === 116 && text.charCodeAt(3) === 97) {
    if (text.length === 4 || text.charCodeAt(4) === 58) {
      const value = text.length === 4 ? '' : dataValue(text);
      s[DATA] = s[DATA_LINES] === 0 ? value : `${s[DATA]}\n${value}`;
      s[DATA_LINES]++;
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
      s[EVENT_TYPE] = value === '' ? undefined : value;
      return;
    }
  }
  otherField(s, text);
}

function tooLarge(s: SseState, text: string): void {
  s[HANDLER].diagnostic(
    diag(
      s,
      'event_too_large',
      'error',
      s[BLOCK_LINE],
      s[BLOCK_OFFSET],
      `event too large, (at least ${s[BLOCK_BYTES]} bytes so far) > maxEventBytes (${s[MAX_EVENT_BYTES]}); the event was discarded`,
    ),
  );
  s[DISCARDING] = true;
  resetFields(s);
  if (isRetryLine(text)) otherField(s, text);
}

/**
 * A line that is not `id`, `data` or `event` (those are read in {@link readLine}): a comment, a
 * `retry`, or a field WHATWG ignores. Field and value split as WHATWG says: the name up to the
 * first colon (the whole line without one), the value after it less one leading space.
 * test/framing/sse-fields.test.ts holds this to `eventsource-parser`'s reading of the same lines.
 */
function otherField(s: SseState, text: string): void {
  if (text.charCodeAt(0) === 58) {
    s[HANDLER].comment?.(text.slice(text.charCodeAt(1) === 32 ? 2 : 1));
    return;
  }
  const colon = text.indexOf(':');
  const field = colon === -1 ? text : text.slice(0, colon);
  const value = colon === -1 ? '' : text.slice(colon + (text.charCodeAt(colon + 1) === 32 ? 2 : 1));
  if (field === 'retry') {
    // WHATWG: only ASCII digits set the reconnection time; anything else is ignored.
    if (/^[0-9]+$/.test(value)) s[HANDLER].retry?.(Number.parseInt(value, 10));
    else
      s[HANDLER].diagnostic(
        diag(
          s,
          'invalid_record',
          'warning',
          s[CURRENT_LINE],
          s[CURRENT_OFFSET],
          `retry value ${JSON.stringify(value)} is not ASCII digits; ignored`,
        ),
      );
    return;
  }
  s[HANDLER].diagnostic(
    diag(
      s,
      'unknown_record',
      'info',
      s[CURRENT_LINE],
      s[CURRENT_OFFSET],
      `unknown SSE field ${JSON.stringify(field.length > 40 ? `${field.slice(0, 40)}…` : field)}; ignored`,
    ),
  );
}

function diag(
  s: SseState,
  code: Diagnostic['code'],
  severity: Diagnostic['severity'],
  line: number,
  offset: number,
  what: string,
): Diagnostic {
  return diagnosticAt(code, severity, line, offset, what, s[FORMAT]);
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
  throw unencodable(
    `SSE ${field} ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)} contains CR, LF or NUL; writing it would let it inject fields or events`,
    'nativeharness',
  );
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
 * `data` containing CR or LF, are refused with an `AgentwireError` (`unencodable`) instead of
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
