import { type Diagnostic, diagnosticAt, type Format } from '../diagnostics';
import { DEFAULT_MAX_LINE_BYTES } from '../limits';
import { isBomByte } from './bom';
import {
  BOM_CHECKED,
  BOM_PREFIX,
  CONSUMED,
  CR,
  DISCARDED_BYTES,
  DISCARDING,
  FORMAT,
  LF,
  LINE_NUMBER,
  LINE_START,
  MAX,
  ON_DIAGNOSTIC,
  ON_LINE,
  ON_PAIR,
  PENDING,
  PENDING_LENGTH,
  SKIP_LEADING_LF,
  SPLIT,
  TARGET,
} from './split-slots';
import { allocBytes, decodeUtf8, encodeUtf8, isValidUtf8 } from './utf8';

export { DEFAULT_MAX_LINE_BYTES } from '../limits';

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

/** What a splitter calls with each line: a {@link LineSink}'s `line`, its receiver first. */
export type LineFn<T> = (target: T, text: string, line: number, offset: number, bytes: number) => void;
/** A {@link LineSink}'s `lineBeforeBlank`, its receiver first. */
export type PairFn<T> = (target: T, text: string, line: number, offset: number, bytes: number) => boolean;
/** A {@link LineSink}'s `diagnostic`, its receiver first. */
export type DiagnosticFn<T> = (target: T, diagnostic: Diagnostic) => void;

/**
 * The splitter's state between chunks: one array of named slots ({@link newSplitState}). An
 * array's hidden class belongs to the realm, so the optimised per-chunk code that checks it lives
 * through a full garbage collection; an object literal's class (until its allocation site has a
 * boilerplate, which the first splitters of a process are made without) or a class instance's
 * fields (map transitions, held weakly) die with the last splitter at a full GC and take that
 * code along (docs/performance.md, "The framing's state in slots", round fourteen).
 *
 * The receiver of the lines is reached through three functions held in slots, called with the
 * receiver first: the module functions of the reader that owns the splitter (the SSE reader's,
 * on its own slots: nothing of theirs dies at a GC either), or for a {@link LineSink} the
 * adaptors that call its methods ({@link sinkLine}), one function for every sink.
 */
export type SplitState = [
  // How a chunk's bytes are split: by the JSON Lines rules, or by SSE's ({@link splitSse}).
  split: SplitFn,
  max: number,
  format: Format | undefined,
  // biome-ignore lint/suspicious/noExplicitAny: the receiver's type is the three functions' own.
  target: any,
  onLine: LineFn<never>,
  // Set when the receiver takes a line and the empty line after it at once ({@link LineSink.lineBeforeBlank}).
  onPair: PairFn<never> | undefined,
  onDiagnostic: DiagnosticFn<never>,
  pending: Uint8Array,
  pendingLength: number,
  discarding: boolean,
  discardedBytes: number,
  bomChecked: boolean,
  bomPrefix: Uint8Array | undefined,
  skipLeadingLF: boolean,
  lineNumber: number,
  lineStart: number,
  consumed: number,
];

/** True for a `maxLineBytes` that is a bound (a finite number `>= 0`); any other value takes a default. */
export function isLineBound(max: number | undefined): max is number {
  return max !== undefined && Number.isFinite(max) && max >= 0;
}

/**
 * How a splitter splits the bytes of a chunk into lines, the terminator rules of its mode: the
 * JSON Lines rules by default, {@link splitSse} for SSE's. A function in the state rather than the
 * mode's name, so that a JSON Lines reader's bundle holds no byte of the SSE rules.
 */
export type SplitFn = (s: SplitState, bytes: Uint8Array) => void;

/**
 * A splitter's state that sends each line to `onLine(target, …)`, for readers that drive it by
 * {@link pushChunk} and {@link endInput} (the SSE reader, with module functions on its own state).
 * Its lines end by the JSON Lines rules unless `split` says otherwise ({@link splitSse});
 * `options.mode` is the {@link LineSplitter}'s to read.
 */
export function newSplitState<T>(
  target: T,
  onLine: LineFn<T>,
  onPair: PairFn<T> | undefined,
  onDiagnostic: DiagnosticFn<T>,
  options: LineSplitterOptions,
  split: SplitFn = pushJsonl,
): SplitState {
  const max = options.maxLineBytes;
  return [
    split,
    isLineBound(max) ? Math.floor(max) : DEFAULT_MAX_LINE_BYTES,
    options.format,
    target,
    onLine as LineFn<never>,
    onPair as PairFn<never> | undefined,
    onDiagnostic as DiagnosticFn<never>,
    new Uint8Array(0),
    0,
    false,
    0,
    false,
    undefined,
    false,
    1,
    0,
    0,
  ];
}

// A LineSink's methods as the splitter calls them: the same function for every sink, so the
// splitter's call site keeps one target and inlines it (a function per sink would make it bail
// out at each new stream, then call generically).
function sinkLine(sink: LineSink, text: string, line: number, offset: number, bytes: number): void {
  sink.line(text, line, offset, bytes);
}

function sinkPair(sink: LineSink, text: string, line: number, offset: number, bytes: number): boolean {
  return sink.lineBeforeBlank!(text, line, offset, bytes);
}

function sinkDiagnostic(sink: LineSink, diagnostic: Diagnostic): void {
  sink.diagnostic(diagnostic);
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
  // The work is done by module functions on these slots: none of them reads the class's shape.
  private readonly s: SplitState;

  /** Creates a splitter that sends lines and diagnostics to `sink`. */
  constructor(sink: LineSink, options: LineSplitterOptions = {}) {
    const mode = options.mode ?? 'jsonl';
    const s = newSplitState(
      sink,
      sinkLine,
      sink.lineBeforeBlank === undefined ? undefined : sinkPair,
      sinkDiagnostic,
      options,
      mode === 'jsonl' ? pushJsonl : splitSse,
    );
    this.s = s;
    this.mode = mode;
    this.maxLineBytes = s[MAX];
  }

  /** Bytes taken in so far (the BOM included). */
  get bytesConsumed(): number {
    return this.s[CONSUMED];
  }

  /** The number the next complete line will get. */
  get nextLineNumber(): number {
    return this.s[LINE_NUMBER];
  }

  /** Bytes of the unfinished line held (0 while discarding an oversized one). */
  get pendingBytes(): number {
    return this.s[PENDING_LENGTH];
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
  s[PENDING_LENGTH] = 0;
  s[DISCARDING] = false;
  s[DISCARDED_BYTES] = 0;
  s[BOM_CHECKED] = false;
  s[BOM_PREFIX] = undefined;
  s[SKIP_LEADING_LF] = false;
  s[LINE_NUMBER] = 1;
  s[LINE_START] = 0;
  s[CONSUMED] = 0;
}

/** {@link LineSplitter.push} on a state from {@link newSplitState}. */
export function pushChunk(s: SplitState, chunk: Uint8Array | string): void {
  let bytes = typeof chunk === 'string' ? encodeUtf8(chunk) : chunk;
  if (bytes.length === 0) return;
  if (!s[BOM_CHECKED]) {
    const rest = stripBom(s, bytes);
    if (rest === undefined) return;
    bytes = rest;
    if (bytes.length === 0) return;
  }
  s[SPLIT](s, bytes);
}

/** {@link LineSplitter.end} on a state from {@link newSplitState}. */
export function endInput(s: SplitState, incomplete: IncompleteLinePolicy): void {
  if (s[BOM_PREFIX] !== undefined) {
    // Fewer than three bytes, all a BOM's prefix: that is content, not a BOM.
    const prefix = s[BOM_PREFIX];
    s[BOM_PREFIX] = undefined;
    s[BOM_CHECKED] = true;
    s[CONSUMED] -= prefix.length;
    s[SPLIT](s, prefix);
  }
  if (incomplete === 'hold') return;
  s[SKIP_LEADING_LF] = false;
  if (s[DISCARDING]) {
    s[DISCARDING] = false;
    startNextLine(s, s[CONSUMED]);
    return;
  }
  if (s[PENDING_LENGTH] === 0) return;
  if (incomplete === 'report') {
    report(
      s,
      diag(
        s,
        'incomplete_line',
        'warning',
        `the input ended inside a line (${s[PENDING_LENGTH]} bytes, no line terminator); the line was not used`,
      ),
    );
    s[PENDING_LENGTH] = 0;
    startNextLine(s, s[CONSUMED]);
    return;
  }
  if (s[PENDING_LENGTH] > s[MAX]) {
    // Only the CR slack can get here: at the end of input that CR is content, not a terminator.
    report(s, tooLong(s, s[LINE_START], s[PENDING_LENGTH], true));
    s[PENDING_LENGTH] = 0;
  } else emitPending(s, s[PENDING_LENGTH]);
  startNextLine(s, s[CONSUMED]);
}

function stripBom(s: SplitState, bytes: Uint8Array): Uint8Array | undefined {
  let all = bytes;
  if (s[BOM_PREFIX] !== undefined) {
    all = new Uint8Array(s[BOM_PREFIX].length + bytes.length);
    all.set(s[BOM_PREFIX], 0);
    all.set(bytes, s[BOM_PREFIX].length);
    s[CONSUMED] -= s[BOM_PREFIX].length;
    s[BOM_PREFIX] = undefined;
  }
  const n = Math.min(3, all.length);
  for (let i = 0; i < n; i++) {
    if (!isBomByte(all[i]!, i)) {
      s[BOM_CHECKED] = true;
      return all;
    }
  }
  if (all.length < 3) {
    s[BOM_PREFIX] = all.slice();
    s[CONSUMED] += all.length;
    return undefined;
  }
  s[BOM_CHECKED] = true;
  s[CONSUMED] += 3;
  s[LINE_START] = 3;
  return all.subarray(3);
}

function pushJsonl(s: SplitState, bytes: Uint8Array): void {
  const base = s[CONSUMED];
  s[CONSUMED] += bytes.length;
  splitOnLF(s, bytes, 0, base);
}

// Splits `bytes[pos, n)` where LF is the only terminator (JSONL, and SSE chunks without CR):
// finish the held line, decode all complete lines at once, hold the rest. A CR right before
// an LF belongs to the terminator (SSE never holds one: there CR ends a line by itself).
function splitOnLF(s: SplitState, bytes: Uint8Array, pos: number, base: number): void {
  const n = bytes.length;
  if (s[PENDING_LENGTH] > 0 || s[DISCARDING]) {
    const lf = bytes.indexOf(LF, pos);
    if (lf === -1) {
      appendPending(s, bytes, pos, n);
      return;
    }
    appendPending(s, bytes, pos, lf);
    if (s[DISCARDING]) s[DISCARDING] = false;
    else {
      let end = s[PENDING_LENGTH];
      if (end > 0 && s[PENDING][end - 1] === CR) end--;
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
  const max = s[MAX];
  const text = decodeUtf8(bytes, start, lastLF);
  // Equal lengths mean no multi-byte sequence: string and byte indexes coincide.
  const sameIndex = text.length === lastLF - start;
  const mayBeInvalid = text.indexOf('\uFFFD') !== -1;
  const onLine = s[ON_LINE];
  const target = s[TARGET];
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
      report(s, tooLong(s, offset, bEnd - bStart, true));
    } else {
      const line = text.slice(sStart, sLineEnd);
      if (mayBeInvalid && line.indexOf('\uFFFD') !== -1 && !isValidUtf8(bytes, bStart, bEnd)) {
        report(s, invalidUtf8(s, offset));
      } else if (
        s[ON_PAIR] !== undefined &&
        lf !== lastLF &&
        (sEnd + 1 === text.length || text.charCodeAt(sEnd + 1) === 10) &&
        takePair(s, line, offset, bEnd - bStart)
      ) {
        // The sink took this line and the empty one after it (its LF is the byte after this one's).
        s[LINE_NUMBER]++;
        bStart = lf + 2;
        sStart = sEnd + 2;
        if (lf + 1 === lastLF) break;
        continue;
      } else {
        onLine(target as never, line, s[LINE_NUMBER], offset, bEnd - bStart);
      }
    }
    s[LINE_NUMBER]++;
    bStart = lf + 1;
    sStart = sEnd + 1;
    if (lf === lastLF) break;
  }
  s[LINE_START] = base + bStart;
}

// Offers a line and the empty line after it to the sink, numbered as when the empty line is
// delivered (what a sink that throws from it leaves); the count is put back when it declines.
function takePair(s: SplitState, line: string, offset: number, bytes: number): boolean {
  s[LINE_NUMBER]++;
  if (s[ON_PAIR]!(s[TARGET] as never, line, s[LINE_NUMBER] - 1, offset, bytes)) return true;
  s[LINE_NUMBER]--;
  return false;
}

/**
 * The {@link SplitFn} of SSE's rules: CR, LF and CRLF each end a line (WHATWG event-stream), a
 * CRLF split across two chunks included.
 */
export function splitSse(s: SplitState, bytes: Uint8Array): void {
  const n = bytes.length;
  const base = s[CONSUMED];
  s[CONSUMED] += n;
  let pos = 0;
  if (s[SKIP_LEADING_LF]) {
    s[SKIP_LEADING_LF] = false;
    if (bytes[0] === LF) {
      pos = 1;
      s[LINE_START] = base + 1;
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
    if (s[PENDING_LENGTH] > 0 || s[DISCARDING]) {
      appendPending(s, bytes, pos, t);
      if (s[DISCARDING]) s[DISCARDING] = false;
      else emitPending(s, s[PENDING_LENGTH]);
    } else {
      const offset = base + pos;
      if (t - pos > s[MAX]) report(s, tooLong(s, offset, t - pos, true));
      else emitBytes(s, bytes, pos, t, offset);
    }
    let next = t + 1;
    if (bytes[t] === CR) {
      if (next < n) {
        if (bytes[next] === LF) next++;
      } else s[SKIP_LEADING_LF] = true;
    }
    pos = next;
    startNextLine(s, base + pos);
  }
}

function emitBytes(s: SplitState, bytes: Uint8Array, start: number, end: number, offset: number): void {
  const text = decodeUtf8(bytes, start, end);
  if (text.indexOf('\uFFFD') !== -1 && !isValidUtf8(bytes, start, end)) {
    report(s, invalidUtf8(s, offset));
    return;
  }
  s[ON_LINE](s[TARGET] as never, text, s[LINE_NUMBER], offset, end - start);
}

function emitPending(s: SplitState, end: number): void {
  emitBytes(s, s[PENDING], 0, end, s[LINE_START]);
  s[PENDING_LENGTH] = 0;
}

function startNextLine(s: SplitState, offset: number): void {
  s[LINE_NUMBER]++;
  s[LINE_START] = offset;
  s[DISCARDED_BYTES] = 0;
}

function appendPending(s: SplitState, bytes: Uint8Array, start: number, end: number): void {
  const len = end - start;
  if (len === 0) return;
  if (s[DISCARDING]) {
    s[DISCARDED_BYTES] += len;
    return;
  }
  const total = s[PENDING_LENGTH] + len;
  // One byte of slack: in JSONL a CR may end the held bytes and belong to the terminator.
  if (total > s[MAX]) {
    const lastIsCR = s[SPLIT] === pushJsonl && total === s[MAX] + 1 && bytes[end - 1] === CR;
    if (!lastIsCR) {
      s[DISCARDING] = true;
      s[DISCARDED_BYTES] = total;
      s[PENDING_LENGTH] = 0;
      report(s, tooLong(s, s[LINE_START], total, false));
      return;
    }
  }
  if (total > s[PENDING].length) {
    const size = Math.min(Math.max(total, s[PENDING].length * 2, 256), s[MAX] + 1);
    const grown = allocBytes(size);
    grown.set(s[PENDING].subarray(0, s[PENDING_LENGTH]), 0);
    s[PENDING] = grown;
  }
  s[PENDING].set(bytes.subarray(start, end), s[PENDING_LENGTH]);
  s[PENDING_LENGTH] = total;
}

function report(s: SplitState, diagnostic: Diagnostic): void {
  s[ON_DIAGNOSTIC](s[TARGET] as never, diagnostic);
}

function tooLong(s: SplitState, offset: number, bytes: number, whole: boolean): Diagnostic {
  const size = whole ? `${bytes} bytes` : `at least ${bytes} bytes so far`;
  return diag(
    s,
    'line_too_long',
    'error',
    `line too long, (${size}) > maxLineBytes (${s[MAX]}); the line was skipped`,
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
  offset: number = s[LINE_START],
): Diagnostic {
  return diagnosticAt(code, severity, s[LINE_NUMBER], offset, what, s[FORMAT]);
}
