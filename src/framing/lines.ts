import { type Diagnostic, diagnosticAt, type Format } from '../diagnostics';
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
}

const LF = 10;
const CR = 13;

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
  private readonly format: Format | undefined;
  private readonly sink: LineSink;

  private pending: Uint8Array = new Uint8Array(0);
  private pendingLength = 0;
  private discarding = false;
  private discardedBytes = 0;
  private bomChecked = false;
  private bomPrefix: Uint8Array | undefined;
  private skipLeadingLF = false;
  private lineNumber = 1;
  private lineStart = 0;
  private consumed = 0;

  /** Creates a splitter that sends lines and diagnostics to `sink`. */
  constructor(sink: LineSink, options: LineSplitterOptions = {}) {
    this.sink = sink;
    this.mode = options.mode ?? 'jsonl';
    const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.maxLineBytes = Number.isFinite(max) && max >= 0 ? Math.floor(max) : DEFAULT_MAX_LINE_BYTES;
    this.format = options.format;
  }

  /** Bytes taken in so far (the BOM included). */
  get bytesConsumed(): number {
    return this.consumed;
  }

  /** The number the next complete line will get. */
  get nextLineNumber(): number {
    return this.lineNumber;
  }

  /** Bytes of the unfinished line held (0 while discarding an oversized one). */
  get pendingBytes(): number {
    return this.pendingLength;
  }

  /** Takes the next chunk. Strings are encoded as UTF-8 first. */
  push(chunk: Uint8Array | string): void {
    let bytes = typeof chunk === 'string' ? encodeUtf8(chunk) : chunk;
    if (bytes.length === 0) return;
    if (!this.bomChecked) {
      const rest = this.stripBom(bytes);
      if (rest === undefined) return;
      bytes = rest;
      if (bytes.length === 0) return;
    }
    if (this.mode === 'jsonl') this.pushJsonl(bytes);
    else this.pushSse(bytes);
  }

  /**
   * Ends the input. A last line without terminator is handled per `incomplete` (default
   * `deliver`). The splitter can be reused afterwards only through {@link reset}, except under
   * `hold`, which leaves the held line in place for more input.
   */
  end(incomplete: IncompleteLinePolicy = 'deliver'): void {
    if (this.bomPrefix !== undefined) {
      // Fewer than three bytes, all a BOM's prefix: that is content, not a BOM.
      const prefix = this.bomPrefix;
      this.bomPrefix = undefined;
      this.bomChecked = true;
      this.consumed -= prefix.length;
      if (this.mode === 'jsonl') this.pushJsonl(prefix);
      else this.pushSse(prefix);
    }
    if (incomplete === 'hold') return;
    this.skipLeadingLF = false;
    if (this.discarding) {
      this.discarding = false;
      this.startNextLine(this.consumed);
      return;
    }
    if (this.pendingLength === 0) return;
    if (incomplete === 'report') {
      this.sink.diagnostic(
        this.diag(
          'incomplete_line',
          'warning',
          `the input ended inside a line (${this.pendingLength} bytes, no line terminator); the line was not used`,
        ),
      );
      this.pendingLength = 0;
      this.startNextLine(this.consumed);
      return;
    }
    if (this.pendingLength > this.maxLineBytes) {
      // Only the CR slack can get here: at the end of input that CR is content, not a terminator.
      this.sink.diagnostic(this.tooLong(this.lineStart, this.pendingLength, true));
      this.pendingLength = 0;
    } else this.emitPending(this.pendingLength);
    this.startNextLine(this.consumed);
  }

  /** Forgets everything: the held line, the line count, the offsets. For a file read anew. */
  reset(): void {
    this.pendingLength = 0;
    this.discarding = false;
    this.discardedBytes = 0;
    this.bomChecked = false;
    this.bomPrefix = undefined;
    this.skipLeadingLF = false;
    this.lineNumber = 1;
    this.lineStart = 0;
    this.consumed = 0;
  }

  private stripBom(bytes: Uint8Array): Uint8Array | undefined {
    let all = bytes;
    if (this.bomPrefix !== undefined) {
      all = new Uint8Array(this.bomPrefix.length + bytes.length);
      all.set(this.bomPrefix, 0);
      all.set(bytes, this.bomPrefix.length);
      this.consumed -= this.bomPrefix.length;
      this.bomPrefix = undefined;
    }
    const n = Math.min(3, all.length);
    for (let i = 0; i < n; i++) {
      if (!isBomByte(all[i]!, i)) {
        this.bomChecked = true;
        return all;
      }
    }
    if (all.length < 3) {
      this.bomPrefix = all.slice();
      this.consumed += all.length;
      return undefined;
    }
    this.bomChecked = true;
    this.consumed += 3;
    this.lineStart = 3;
    return all.subarray(3);
  }

  private pushJsonl(bytes: Uint8Array): void {
    const base = this.consumed;
    this.consumed += bytes.length;
    this.splitOnLF(bytes, 0, base);
  }

  // Splits `bytes[pos, n)` where LF is the only terminator (JSONL, and SSE chunks without CR):
  // finish the held line, decode all complete lines at once, hold the rest. A CR right before
  // an LF belongs to the terminator (SSE never holds one: there CR ends a line by itself).
  private splitOnLF(bytes: Uint8Array, pos: number, base: number): void {
    const n = bytes.length;
    if (this.pendingLength > 0 || this.discarding) {
      const lf = bytes.indexOf(LF, pos);
      if (lf === -1) {
        this.appendPending(bytes, pos, n);
        return;
      }
      this.appendPending(bytes, pos, lf);
      if (this.discarding) this.discarding = false;
      else {
        let end = this.pendingLength;
        if (end > 0 && this.pending[end - 1] === CR) end--;
        this.emitPending(end);
      }
      pos = lf + 1;
      this.startNextLine(base + pos);
    }
    const last = bytes.lastIndexOf(LF);
    if (last >= pos) {
      this.emitRegion(bytes, pos, last, base);
      pos = last + 1;
    }
    if (pos < n) this.appendPending(bytes, pos, n);
  }

  // Decodes all complete lines of a chunk at once (one decode per chunk is the fast path), then
  // walks the LFs on the bytes for exact byte offsets and lengths.
  private emitRegion(bytes: Uint8Array, start: number, lastLF: number, base: number): void {
    const max = this.maxLineBytes;
    const text = decodeUtf8(bytes, start, lastLF);
    // Equal lengths mean no multi-byte sequence: string and byte indexes coincide.
    const sameIndex = text.length === lastLF - start;
    const mayBeInvalid = text.indexOf('\uFFFD') !== -1;
    const sink = this.sink;
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
        sink.diagnostic(this.tooLong(offset, bEnd - bStart, true));
      } else {
        const line = text.slice(sStart, sLineEnd);
        if (mayBeInvalid && line.indexOf('\uFFFD') !== -1 && !isValidUtf8(bytes, bStart, bEnd)) {
          sink.diagnostic(this.invalidUtf8(offset));
        } else {
          sink.line(line, this.lineNumber, offset, bEnd - bStart);
        }
      }
      this.lineNumber++;
      bStart = lf + 1;
      sStart = sEnd + 1;
      if (lf === lastLF) break;
    }
    this.lineStart = base + bStart;
  }

  private pushSse(bytes: Uint8Array): void {
    const n = bytes.length;
    const base = this.consumed;
    this.consumed += n;
    let pos = 0;
    if (this.skipLeadingLF) {
      this.skipLeadingLF = false;
      if (bytes[0] === LF) {
        pos = 1;
        this.lineStart = base + 1;
      }
    }
    // No CR in the chunk (the usual case): LF is the only terminator, so the JSONL fast path
    // applies: one decode for all complete lines. A held line never ends with CR in this mode.
    if (bytes.indexOf(CR, pos) === -1) {
      this.splitOnLF(bytes, pos, base);
      return;
    }
    let cr = -2;
    let lf = -2;
    while (pos < n) {
      if (cr !== -1 && cr < pos) cr = bytes.indexOf(CR, pos);
      if (lf !== -1 && lf < pos) lf = bytes.indexOf(LF, pos);
      const t = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (t === -1) {
        this.appendPending(bytes, pos, n);
        return;
      }
      if (this.pendingLength > 0 || this.discarding) {
        this.appendPending(bytes, pos, t);
        if (this.discarding) this.discarding = false;
        else this.emitPending(this.pendingLength);
      } else {
        const offset = base + pos;
        if (t - pos > this.maxLineBytes) this.sink.diagnostic(this.tooLong(offset, t - pos, true));
        else this.emitBytes(bytes, pos, t, offset);
      }
      let next = t + 1;
      if (bytes[t] === CR) {
        if (next < n) {
          if (bytes[next] === LF) next++;
        } else this.skipLeadingLF = true;
      }
      pos = next;
      this.startNextLine(base + pos);
    }
  }

  private emitBytes(bytes: Uint8Array, start: number, end: number, offset: number): void {
    const text = decodeUtf8(bytes, start, end);
    if (text.indexOf('\uFFFD') !== -1 && !isValidUtf8(bytes, start, end)) {
      this.sink.diagnostic(this.invalidUtf8(offset));
      return;
    }
    this.sink.line(text, this.lineNumber, offset, end - start);
  }

  private emitPending(end: number): void {
    this.emitBytes(this.pending, 0, end, this.lineStart);
    this.pendingLength = 0;
  }

  private startNextLine(offset: number): void {
    this.lineNumber++;
    this.lineStart = offset;
    this.discardedBytes = 0;
  }

  private appendPending(bytes: Uint8Array, start: number, end: number): void {
    const len = end - start;
    if (len === 0) return;
    if (this.discarding) {
      this.discardedBytes += len;
      return;
    }
    const total = this.pendingLength + len;
    // One byte of slack: in JSONL a CR may end the held bytes and belong to the terminator.
    if (total > this.maxLineBytes) {
      const lastIsCR = this.mode === 'jsonl' && total === this.maxLineBytes + 1 && bytes[end - 1] === CR;
      if (!lastIsCR) {
        this.discarding = true;
        this.discardedBytes = total;
        this.pendingLength = 0;
        this.sink.diagnostic(this.tooLong(this.lineStart, total, false));
        return;
      }
    }
    if (total > this.pending.length) {
      const size = Math.min(Math.max(total, this.pending.length * 2, 256), this.maxLineBytes + 1);
      const grown = allocBytes(size);
      grown.set(this.pending.subarray(0, this.pendingLength), 0);
      this.pending = grown;
    }
    this.pending.set(bytes.subarray(start, end), this.pendingLength);
    this.pendingLength = total;
  }

  private tooLong(offset: number, bytes: number, whole: boolean): Diagnostic {
    const size = whole ? `${bytes} bytes` : `at least ${bytes} bytes so far`;
    return this.diag(
      'line_too_long',
      'error',
      `line too long, (${size}) > maxLineBytes (${this.maxLineBytes}); the line was skipped`,
      offset,
    );
  }

  private invalidUtf8(offset: number): Diagnostic {
    return this.diag('invalid_utf8', 'error', 'the line is not valid UTF-8; the line was skipped', offset);
  }

  private diag(
    code: Diagnostic['code'],
    severity: Diagnostic['severity'],
    what: string,
    offset: number = this.lineStart,
  ): Diagnostic {
    return diagnosticAt(code, severity, this.lineNumber, offset, what, this.format);
  }
}
