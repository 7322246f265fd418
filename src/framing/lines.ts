import { type Diagnostic, diagnosticAt, type Format } from '../diagnostics';
import { UNSET, type Writable } from '../plain';
import { isBomByte } from './bom';
import { allocBytes, decodeUtf8, encodeUtf8, isValidUtf8 } from './utf8';

/** Default `maxLineBytes`: 1 MiB. */
export const DEFAULT_MAX_LINE_BYTES: number = 1024 * 1024;

/**
 * `jsonl`: LF ends a line, a CR right before it belongs to the terminator, a lone CR is content.
 * `sse`: CR, LF and CRLF each end a line (WHATWG event-stream rules).
 */
export type LineMode = 'jsonl' | 'sse';

/**
 * What {@link LineSplitter.end} does with a last line that has no terminator:
 * `deliver` it as a line (a finished stream), `report` it as an `incomplete_line` diagnostic, or
 * `hold` it (a tailed file whose writer may still finish it).
 */
export type IncompleteLinePolicy = 'deliver' | 'report' | 'hold';

/** Options of {@link LineSplitter}. */
export interface LineSplitterOptions {
  /** Line terminator rules. Default `jsonl`. */
  mode?: LineMode;
  /**
   * Most bytes a line may have, terminator excluded. Default {@link DEFAULT_MAX_LINE_BYTES}.
   * Past it, the line is reported as `line_too_long` and its remaining bytes are dropped as they
   * arrive: memory stays bounded by this number whatever the input.
   */
  maxLineBytes?: number;
  /** Stamped on diagnostics. */
  format?: Format;
}

/** Receives the splitter's output, in input order. */
export interface LineSink {
  /**
   * A complete line: its text, 1-based number, the byte offset of its first byte, and its length
   * in bytes (terminator excluded).
   */
  line(text: string, line: number, offset: number, bytes: number): void;
  /** A problem with a line (too long, not UTF-8, incomplete at the end). */
  diagnostic(diagnostic: Diagnostic): void;
  /**
   * Optional: a line (as {@link line} would get it) that an empty line follows in the same
   * chunk, LF-terminated both. Returning true takes both lines (the empty one is then not
   * delivered); false has them delivered one by one through {@link line}. The SSE reader reads a
   * block of one `data:` line here without its per-line field machinery.
   */
  lineBeforeBlank?(text: string, line: number, offset: number, bytes: number): boolean;
}

const LF = 10;
const CR = 13;

/**
 * The splitter's state between chunks, built whole in one object literal ({@link newSplitState}):
 * a literal's hidden class is held by its allocation site and outlives a full garbage collection,
 * where a class instance's fields (map transitions, held weakly) die with the last instance and
 * take the optimised code that embedded them along, the per-chunk split of every format among it
 * (docs/performance.md, "HEP `createDecoder`", Round four).
 */
export interface SplitState {
  readonly mode: LineMode;
  readonly max: number;
  readonly format: Format | undefined;
  readonly sink: LineSink;
  /** Whether the sink takes a line and the empty line after it at once ({@link LineSink.lineBeforeBlank}). */
  readonly pairs: boolean;
  pending: Uint8Array;
  pendingLength: number;
  discarding: boolean;
  discardedBytes: number;
  bomChecked: boolean;
  bomPrefix: Uint8Array | undefined;
  skipLeadingLF: boolean;
  lineNumber: number;
  lineStart: number;
  consumed: number;
}

/**
 * A splitter's state, for readers that hold it in their own literal and drive it by
 * {@link pushChunk} and {@link endInput} (the SSE reader): no {@link LineSplitter} instance, whose
 * class shape would die at a full GC, in their per-chunk path.
 */
export function newSplitState(sink: LineSink, options: LineSplitterOptions): SplitState {
  const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const s: SplitState = {
    mode: options.mode ?? 'jsonl',
    max: Number.isFinite(max) && max >= 0 ? Math.floor(max) : DEFAULT_MAX_LINE_BYTES,
    format: options.format,
    sink: UNSET,
    pairs: sink.lineBeforeBlank !== undefined,
    pending: UNSET,
    pendingLength: 0,
    discarding: false,
    discardedBytes: 0,
    bomChecked: false,
    bomPrefix: undefined,
    skipLeadingLF: false,
    lineNumber: 1,
    lineStart: 0,
    consumed: 0,
  };
  // The object fields set after the literal, first `undefined`: no per-line code depends on
  // their hidden classes (src/plain.ts, `UNSET`).
  const w = s as Writable<SplitState>;
  w.sink = sink;
  w.pending = new Uint8Array(0);
  return s;
}

/**
 * The streaming line splitter every format reads through. Push bytes or strings in any chunking;
 * complete lines come out with their number and byte offset. Linear in the input, memory bounded
 * by `maxLineBytes`, and never stops: a bad line is a diagnostic and the next line is read.
 */
export class LineSplitter {
  /** The terminator rules in force. */
  readonly mode: LineMode;
  /** The byte bound on a line, terminator excluded. */
  readonly maxLineBytes: number;
  // The work is done by module functions on this literal: none of them reads the class's shape.
  private readonly s: SplitState;

  /** Creates a splitter that sends lines and diagnostics to `sink`. */
  constructor(sink: LineSink, options: LineSplitterOptions = {}) {
    const s = newSplitState(sink, options);
    this.s = s;
    this.mode = s.mode;
    this.maxLineBytes = s.max;
  }

  /** Bytes taken in so far (the BOM included). */
  get bytesConsumed(): number {
    return this.s.consumed;
  }

  /** The number the next complete line will get. */
  get nextLineNumber(): number {
    return this.s.lineNumber;
  }

  /** Bytes of the unfinished line held (0 while discarding an oversized one). */
  get pendingBytes(): number {
    return this.s.pendingLength;
  }

  /** Takes the next chunk. Strings are encoded as UTF-8 first. */
  push(chunk: Uint8Array | string): void {
    pushChunk(this.s, chunk);
  }

  /**
   * Ends the input. A last line without terminator is handled per `incomplete` (default
   * `deliver`). The splitter can be reused afterwards only through {@link reset}, except under
   * `hold`, which leaves the held line in place for more input.
   */
  end(incomplete: IncompleteLinePolicy = 'deliver'): void {
    endInput(this.s, incomplete);
  }

  /** Forgets everything: the held line, the line count, the offsets. For a file read anew. */
  reset(): void {
    resetSplit(this.s);
  }
}

/** {@link LineSplitter.reset} on a state from {@link newSplitState}. */
export function resetSplit(s: SplitState): void {
  s.pendingLength = 0;
  s.discarding = false;
  s.discardedBytes = 0;
  s.bomChecked = false;
  s.bomPrefix = undefined;
  s.skipLeadingLF = false;
  s.lineNumber = 1;
  s.lineStart = 0;
  s.consumed = 0;
}

/** {@link LineSplitter.push} on a state from {@link newSplitState}. */
export function pushChunk(s: SplitState, chunk: Uint8Array | string): void {
  let bytes = typeof chunk === 'string' ? encodeUtf8(chunk) : chunk;
  if (bytes.length === 0) return;
  if (!s.bomChecked) {
    const rest = stripBom(s, bytes);
    if (rest === undefined) return;
    bytes = rest;
    if (bytes.length === 0) return;
  }
  if (s.mode === 'jsonl') pushJsonl(s, bytes);
  else pushSse(s, bytes);
}

/** {@link LineSplitter.end} on a state from {@link newSplitState}. */
export function endInput(s: SplitState, incomplete: IncompleteLinePolicy): void {
  if (s.bomPrefix !== undefined) {
    // Fewer than three bytes, all a BOM's prefix: that is content, not a BOM.
    const prefix = s.bomPrefix;
    s.bomPrefix = undefined;
    s.bomChecked = true;
    s.consumed -= prefix.length;
    if (s.mode === 'jsonl') pushJsonl(s, prefix);
    else pushSse(s, prefix);
  }
  if (incomplete === 'hold') return;
  s.skipLeadingLF = false;
  if (s.discarding) {
    s.discarding = false;
    startNextLine(s, s.consumed);
    return;
  }
  if (s.pendingLength === 0) return;
  if (incomplete === 'report') {
    s.sink.diagnostic(
      diag(
        s,
        'incomplete_line',
        'warning',
        `the input ended inside a line (${s.pendingLength} bytes, no line terminator); the line was not used`,
      ),
    );
    s.pendingLength = 0;
    startNextLine(s, s.consumed);
    return;
  }
  if (s.pendingLength > s.max) {
    // Only the CR slack can get here: at the end of input that CR is content, not a terminator.
    s.sink.diagnostic(tooLong(s, s.lineStart, s.pendingLength, true));
    s.pendingLength = 0;
  } else emitPending(s, s.pendingLength);
  startNextLine(s, s.consumed);
}

function stripBom(s: SplitState, bytes: Uint8Array): Uint8Array | undefined {
  let all = bytes;
  if (s.bomPrefix !== undefined) {
    all = new Uint8Array(s.bomPrefix.length + bytes.length);
    all.set(s.bomPrefix, 0);
    all.set(bytes, s.bomPrefix.length);
    s.consumed -= s.bomPrefix.length;
    s.bomPrefix = undefined;
  }
  const n = Math.min(3, all.length);
  for (let i = 0; i < n; i++) {
    if (!isBomByte(all[i]!, i)) {
      s.bomChecked = true;
      return all;
    }
  }
  if (all.length < 3) {
    s.bomPrefix = all.slice();
    s.consumed += all.length;
    return undefined;
  }
  s.bomChecked = true;
  s.consumed += 3;
  s.lineStart = 3;
  return all.subarray(3);
}

function pushJsonl(s: SplitState, bytes: Uint8Array): void {
  const base = s.consumed;
  s.consumed += bytes.length;
  splitOnLF(s, bytes, 0, base);
}

// Splits `bytes[pos, n)` where LF is the only terminator (JSONL, and SSE chunks without CR):
// finish the held line, decode all complete lines at once, hold the rest. A CR right before
// an LF belongs to the terminator (SSE never holds one: there CR ends a line by itself).
function splitOnLF(s: SplitState, bytes: Uint8Array, pos: number, base: number): void {
  const n = bytes.length;
  if (s.pendingLength > 0 || s.discarding) {
    const lf = bytes.indexOf(LF, pos);
    if (lf === -1) {
      appendPending(s, bytes, pos, n);
      return;
    }
    appendPending(s, bytes, pos, lf);
    if (s.discarding) s.discarding = false;
    else {
      let end = s.pendingLength;
      if (end > 0 && s.pending[end - 1] === CR) end--;
      emitPending(s, end);
    }
    pos = lf + 1;
    startNextLine(s, base + pos);
  }
  const last = bytes.lastIndexOf(LF);
  if (last >= pos) {
    emitRegion(s, bytes, pos, last, base);
    pos = last + 1;
  }
  if (pos < n) appendPending(s, bytes, pos, n);
}

// Decodes all complete lines of a chunk at once (one decode per chunk is the fast path), then
// walks the LFs on the bytes for exact byte offsets and lengths.
function emitRegion(s: SplitState, bytes: Uint8Array, start: number, lastLF: number, base: number): void {
  const max = s.max;
  const text = decodeUtf8(bytes, start, lastLF);
  // Equal lengths mean no multi-byte sequence: string and byte indexes coincide.
  const sameIndex = text.length === lastLF - start;
  const mayBeInvalid = text.indexOf('\uFFFD') !== -1;
  const sink = s.sink;
  let bStart = start;
  let sStart = 0;
  for (;;) {
    let lf: number;
    let sEnd: number;
    if (sameIndex) {
      // One byte per character: the string search finds the byte positions too, without a
      // call into Buffer.prototype.indexOf per line.
      sEnd = text.indexOf('\n', sStart);
      if (sEnd === -1) sEnd = text.length;
      lf = start + sEnd;
    } else {
      lf = bytes.indexOf(LF, bStart);
      sEnd = lf === lastLF ? text.length : text.indexOf('\n', sStart);
    }
    let bEnd = lf;
    let sLineEnd = sEnd;
    // CR is ASCII: it is the byte before the LF exactly when it is the character before it
    // (a multi-byte or invalid sequence decodes to a character above U+007F), and a string
    // read costs less than a byte read from a Buffer here.
    if (sEnd > sStart && text.charCodeAt(sEnd - 1) === 13) {
      bEnd--;
      sLineEnd--;
    }
    const offset = base + bStart;
    if (bEnd - bStart > max) {
      sink.diagnostic(tooLong(s, offset, bEnd - bStart, true));
    } else {
      const line = text.slice(sStart, sLineEnd);
      if (mayBeInvalid && line.indexOf('\uFFFD') !== -1 && !isValidUtf8(bytes, bStart, bEnd)) {
        sink.diagnostic(invalidUtf8(s, offset));
      } else if (
        s.pairs &&
        lf !== lastLF &&
        (sEnd + 1 === text.length || text.charCodeAt(sEnd + 1) === 10) &&
        takePair(s, line, offset, bEnd - bStart)
      ) {
        // The sink took this line and the empty one after it (its LF is the byte after this one's).
        s.lineNumber++;
        bStart = lf + 2;
        sStart = sEnd + 2;
        if (lf + 1 === lastLF) break;
        continue;
      } else {
        sink.line(line, s.lineNumber, offset, bEnd - bStart);
      }
    }
    s.lineNumber++;
    bStart = lf + 1;
    sStart = sEnd + 1;
    if (lf === lastLF) break;
  }
  s.lineStart = base + bStart;
}

// Offers a line and the empty line after it to the sink, numbered as when the empty line is
// delivered (what a sink that throws from it leaves); the count is put back when it declines.
function takePair(s: SplitState, line: string, offset: number, bytes: number): boolean {
  s.lineNumber++;
  if (s.sink.lineBeforeBlank!(line, s.lineNumber - 1, offset, bytes)) return true;
  s.lineNumber--;
  return false;
}

function pushSse(s: SplitState, bytes: Uint8Array): void {
  const n = bytes.length;
  const base = s.consumed;
  s.consumed += n;
  let pos = 0;
  if (s.skipLeadingLF) {
    s.skipLeadingLF = false;
    if (bytes[0] === LF) {
      pos = 1;
      s.lineStart = base + 1;
    }
  }
  // No CR in the chunk (the usual case): LF is the only terminator, so the JSONL fast path
  // applies: one decode for all complete lines. A held line never ends with CR in this mode.
  if (bytes.indexOf(CR, pos) === -1) {
    splitOnLF(s, bytes, pos, base);
    return;
  }
  let cr = -2;
  let lf = -2;
  while (pos < n) {
    if (cr !== -1 && cr < pos) cr = bytes.indexOf(CR, pos);
    if (lf !== -1 && lf < pos) lf = bytes.indexOf(LF, pos);
    const t = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
    if (t === -1) {
      appendPending(s, bytes, pos, n);
      return;
    }
    if (s.pendingLength > 0 || s.discarding) {
      appendPending(s, bytes, pos, t);
      if (s.discarding) s.discarding = false;
      else emitPending(s, s.pendingLength);
    } else {
      const offset = base + pos;
      if (t - pos > s.max) s.sink.diagnostic(tooLong(s, offset, t - pos, true));
      else emitBytes(s, bytes, pos, t, offset);
    }
    let next = t + 1;
    if (bytes[t] === CR) {
      if (next < n) {
        if (bytes[next] === LF) next++;
      } else s.skipLeadingLF = true;
    }
    pos = next;
    startNextLine(s, base + pos);
  }
}

function emitBytes(s: SplitState, bytes: Uint8Array, start: number, end: number, offset: number): void {
  const text = decodeUtf8(bytes, start, end);
  if (text.indexOf('\uFFFD') !== -1 && !isValidUtf8(bytes, start, end)) {
    s.sink.diagnostic(invalidUtf8(s, offset));
    return;
  }
  s.sink.line(text, s.lineNumber, offset, end - start);
}

function emitPending(s: SplitState, end: number): void {
  emitBytes(s, s.pending, 0, end, s.lineStart);
  s.pendingLength = 0;
}

function startNextLine(s: SplitState, offset: number): void {
  s.lineNumber++;
  s.lineStart = offset;
  s.discardedBytes = 0;
}

function appendPending(s: SplitState, bytes: Uint8Array, start: number, end: number): void {
  const len = end - start;
  if (len === 0) return;
  if (s.discarding) {
    s.discardedBytes += len;
    return;
  }
  const total = s.pendingLength + len;
  // One byte of slack: in JSONL a CR may end the held bytes and belong to the terminator.
  if (total > s.max) {
    const lastIsCR = s.mode === 'jsonl' && total === s.max + 1 && bytes[end - 1] === CR;
    if (!lastIsCR) {
      s.discarding = true;
      s.discardedBytes = total;
      s.pendingLength = 0;
      s.sink.diagnostic(tooLong(s, s.lineStart, total, false));
      return;
    }
  }
  if (total > s.pending.length) {
    const size = Math.min(Math.max(total, s.pending.length * 2, 256), s.max + 1);
    const grown = allocBytes(size);
    grown.set(s.pending.subarray(0, s.pendingLength), 0);
    s.pending = grown;
  }
  s.pending.set(bytes.subarray(start, end), s.pendingLength);
  s.pendingLength = total;
}

function tooLong(s: SplitState, offset: number, bytes: number, whole: boolean): Diagnostic {
  const size = whole ? `${bytes} bytes` : `at least ${bytes} bytes so far`;
  return diag(
    s,
    'line_too_long',
    'error',
    `line too long, (${size}) > maxLineBytes (${s.max}); the line was skipped`,
    offset,
  );
}

function invalidUtf8(s: SplitState, offset: number): Diagnostic {
  return diag(s, 'invalid_utf8', 'error', 'the line is not valid UTF-8; the line was skipped', offset);
}

function diag(
  s: SplitState,
  code: Diagnostic['code'],
  severity: Diagnostic['severity'],
  what: string,
  offset: number = s.lineStart,
): Diagnostic {
  return diagnosticAt(code, severity, s.lineNumber, offset, what, s.format);
}
