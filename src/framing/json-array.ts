import { type Diagnostic, type Format, type LineReport, lineReporter } from '../diagnostics';
import { isBomByte } from './bom';
import { decodeUtf8, encodeUtf8, isValidUtf8 } from './utf8';

/** Receives the elements of a top-level JSON array, in input order. */
export interface JsonArraySink {
  /**
   * One element's JSON text (trailing whitespace removed), the 1-based line and the byte offset
   * of its first byte.
   */
  element(text: string, line: number, offset: number): void;
  /** A problem: not an array, an element too large or not UTF-8, an unfinished array. */
  diagnostic(diagnostic: Diagnostic): void;
}

/** Options of {@link JsonArrayReader}. */
export interface JsonArrayReaderOptions {
  /** Stamped on diagnostics. */
  format: Format;
  /** Most bytes of one element; a larger one is reported as `event_too_large` and skipped. */
  maxElementBytes: number;
}

/**
 * A JSON array read as a stream (nativeharness's `/events` response): a scanner over bytes that
 * cuts the top-level array into elements without holding more than one element, so any layout
 * (compact on one line, one per line, pretty-printed) is read in bounded memory. It scans bytes,
 * not text: JSON's structural characters are ASCII, which never occurs inside a UTF-8 sequence,
 * so byte offsets are exact and an element with invalid UTF-8 is reported at its own place.
 */
export class JsonArrayReader {
  private readonly sink: JsonArraySink;
  private readonly report: LineReport;
  private readonly maxElementBytes: number;
  private state: 'start' | 'between' | 'element' | 'done' = 'start';
  private buffer: Uint8Array = new Uint8Array(256);
  private bufferBytes = 0;
  private skipping = false;
  private failed = false;
  private depth = 0;
  private inString = false;
  private escape = false;
  private line = 1;
  private byte = 0;
  private elementLine = 1;
  private elementOffset = 0;
  private bomSeen = 0;

  /** Creates a reader that sends elements and diagnostics to `sink`. */
  constructor(sink: JsonArraySink, options: JsonArrayReaderOptions) {
    this.sink = sink;
    this.report = lineReporter({ report: (d) => sink.diagnostic(d) }, options.format);
    this.maxElementBytes = options.maxElementBytes;
  }

  /** Takes the next chunk (strings are encoded as UTF-8 first). */
  push(chunk: Uint8Array | string): void {
    if (this.failed) return;
    const bytes = typeof chunk === 'string' ? encodeUtf8(chunk) : chunk;
    const n = bytes.length;
    let start = 0;
    for (let i = 0; i < n; i++) {
      const c = bytes[i]!;
      if (this.bomSeen === this.byte && isBomByte(c, this.byte)) {
        this.bomSeen++;
        this.byte++;
        continue;
      }
      if (this.state === 'element') {
        if (this.inString) {
          if (this.escape) this.escape = false;
          else if (c === 92) this.escape = true;
          else if (c === 34) this.inString = false;
        } else if (c === 34) this.inString = true;
        else if (c === 123 || c === 91) this.depth++;
        else if (c === 125 || c === 93) {
          this.depth--;
          if (this.depth === 0) {
            this.append(bytes, start, i + 1);
            this.finishElement();
            this.state = 'between';
          } else if (this.depth < 0) {
            // `]` right after a primitive element: the element ends before it, and the array.
            this.append(bytes, start, i);
            this.finishElement();
            this.state = 'done';
          }
        } else if (c === 44 && this.depth === 0) {
          this.append(bytes, start, i);
          this.finishElement();
          this.state = 'between';
        }
      } else if (c === 32 || c === 9 || c === 13 || c === 10) {
        // whitespace
      } else if (this.state === 'start') {
        if (c === 91) this.state = 'between';
        else this.fail('a JSON array must start with "["');
      } else if (this.state === 'between') {
        if (c === 93) this.state = 'done';
        else if (c !== 44) {
          this.state = 'element';
          this.bufferBytes = 0;
          this.skipping = false;
          this.depth = c === 123 || c === 91 ? 1 : 0;
          this.inString = c === 34;
          this.escape = false;
          this.elementLine = this.line;
          this.elementOffset = this.byte;
          start = i;
        }
      } else if (this.state === 'done') {
        this.fail('content after the end of the JSON array');
      }
      if (this.failed) return;
      this.byte++;
      if (c === 10) this.line++;
    }
    if (this.state === 'element') this.append(bytes, start, n);
  }

  /** Ends the input; an unfinished array is reported. */
  end(): void {
    if (this.state === 'between' || this.state === 'element') {
      this.report(
        'incomplete_line',
        'warning',
        this.elementLine,
        this.elementOffset,
        'the input ended inside the JSON array; an unfinished element was not used',
      );
    }
    this.state = 'done';
  }

  private append(bytes: Uint8Array, start: number, end: number): void {
    if (this.skipping || end <= start) return;
    const total = this.bufferBytes + (end - start);
    if (total > this.maxElementBytes) {
      this.skipping = true;
      this.bufferBytes = 0;
      this.report(
        'event_too_large',
        'error',
        this.elementLine,
        this.elementOffset,
        `array element too large, > maxEventBytes (${this.maxElementBytes}); the element was skipped`,
      );
      return;
    }
    if (total > this.buffer.length) {
      const grown = new Uint8Array(Math.min(Math.max(total, this.buffer.length * 2), this.maxElementBytes));
      grown.set(this.buffer.subarray(0, this.bufferBytes), 0);
      this.buffer = grown;
    }
    this.buffer.set(bytes.subarray(start, end), this.bufferBytes);
    this.bufferBytes = total;
  }

  private finishElement(): void {
    if (!this.skipping) {
      const text = decodeUtf8(this.buffer, 0, this.bufferBytes);
      if (text.indexOf('\uFFFD') !== -1 && !isValidUtf8(this.buffer, 0, this.bufferBytes)) {
        this.report(
          'invalid_utf8',
          'error',
          this.elementLine,
          this.elementOffset,
          'the array element is not valid UTF-8; the element was skipped',
        );
      } else {
        this.sink.element(text.trimEnd(), this.elementLine, this.elementOffset);
      }
    }
    this.bufferBytes = 0;
    this.skipping = false;
  }

  private fail(what: string): void {
    this.report('invalid_json', 'error', this.line, this.byte, `${what}; the rest was not read`);
    this.state = 'done';
    this.failed = true;
  }
}
