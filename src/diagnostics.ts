/**
 * Every code a diagnostic can carry. Stable: tools may match on them.
 *
 * - `line_too_long`: a line passed `maxLineBytes`; the rest of it was discarded.
 * - `event_too_large`: an SSE event passed `maxEventBytes`; the event was discarded.
 * - `nesting_too_deep`: a JSON value nested deeper than `maxDepth`; the line was refused unparsed.
 * - `invalid_utf8`: a line is not valid UTF-8; the line was skipped.
 * - `invalid_json`: a line is not a JSON object.
 * - `invalid_record`: a known record type with missing fields or fields of the wrong type.
 * - `unsupported_version`: a protocol version this library does not read.
 * - `unknown_record`: a record type this library does not know (kept as an `unknown` event, or
 *   skipped where the format says so).
 * - `incomplete_line`: the input ended inside a line.
 * - `order`: a stream breaks its format's ordering rules (from the checkers).
 * - `loss`: a writer had no place for a field of an event (conversion).
 * - `unencodable`: a writer was handed a value it cannot write (a non-finite number, a BigInt).
 * - `gap`: events between a resume cursor and the live stream are no longer available.
 * - `rotated`: a tailed file shrank or was replaced and is read again from its start.
 * - `connection`: a network source failed (HTTP status, refused connection, gave up retrying).
 * - `text_too_long`: a round's text reached `MAX_ROUND_TEXT` characters; its `round.end.message`
 *   holds the first of them (its `text.delta` events carry it all).
 */
export type DiagnosticCode =
  | 'line_too_long'
  | 'event_too_large'
  | 'nesting_too_deep'
  | 'invalid_utf8'
  | 'invalid_json'
  | 'invalid_record'
  | 'unsupported_version'
  | 'unknown_record'
  | 'incomplete_line'
  | 'order'
  | 'loss'
  | 'unencodable'
  | 'gap'
  | 'rotated'
  | 'connection'
  | 'text_too_long';

/** How bad a diagnostic is. Only `error` makes strict mode throw. */
export type Severity = 'error' | 'warning' | 'info';

/**
 * Every format id agentwire knows, in the order the docs list them: the seed formats, the CLI
 * agents, the UI protocols. A build may lack a codec for some (`codecFor` says).
 */
export const FORMATS = [
  'hep',
  'highbar',
  'nativeharness',
  'claude',
  'codex',
  'gemini',
  'opencode',
  'cursor',
  'amp',
  'copilot',
  'ag-ui',
  'ai-sdk',
] as const;

/** The wire formats agentwire reads and writes. */
export type Format = (typeof FORMATS)[number];

/**
 * One finding about the input (or, for `loss`, about the output). Decoders report and go on;
 * nothing is skipped without one.
 */
export interface Diagnostic {
  /** Stable machine-readable code. */
  code: DiagnosticCode;
  /** `error` for unusable input, `warning` for usable but suspicious, `info` for notes. */
  severity: Severity;
  /** One line of English naming what happened, where, and the limit involved if any. */
  message: string;
  /** 1-based line number in the input, when the finding is tied to a line. */
  line?: number;
  /** Byte offset of the start of that line in the input (BOM included). */
  offset?: number;
  /** The format whose rules produced the finding. */
  format?: Format;
  /** For `loss`: the field that could not be carried, as `eventType.field`. */
  field?: string;
}

/** A function that receives diagnostics as they are found. */
export type DiagnosticHandler = (diagnostic: Diagnostic) => void;

/**
 * The one error type agentwire throws: in strict mode at the first `error` diagnostic, and from
 * writers handed values no format can hold. Carries the diagnostic that caused it.
 */
export class AgentwireError extends Error {
  /** Literal tag, so the error is recognisable across realms and bundles. */
  readonly type: 'AgentwireError' = 'AgentwireError';
  /** The diagnostic's code. */
  readonly code: DiagnosticCode;
  /** The diagnostic that caused the error. */
  readonly diagnostic: Diagnostic;

  /** Wraps `diagnostic`; the message is the diagnostic's own. */
  constructor(diagnostic: Diagnostic) {
    super(diagnostic.message);
    this.name = 'AgentwireError';
    this.code = diagnostic.code;
    this.diagnostic = diagnostic;
  }
}

/** True for an {@link AgentwireError}, also one from another copy of the library. */
export function isAgentwireError(value: unknown): value is AgentwireError {
  return (
    value instanceof AgentwireError ||
    (typeof value === 'object' &&
      value !== null &&
      (value as { type?: unknown }).type === 'AgentwireError' &&
      typeof (value as { diagnostic?: unknown }).diagnostic === 'object')
  );
}

/** Where a decoder sends what it finds: to the caller's handler, or a throw in strict mode. */
export interface DiagnosticSink {
  report(diagnostic: Diagnostic): void;
}

/**
 * Builds the sink every decoder uses: strict mode throws at the first `error`; otherwise each
 * diagnostic goes to `handler` (and to `collect`, when given).
 */
export function createDiagnosticSink(
  strict: boolean,
  handler: DiagnosticHandler | undefined,
  collect?: Diagnostic[],
): DiagnosticSink {
  return {
    report(diagnostic: Diagnostic): void {
      if (strict && diagnostic.severity === 'error') throw new AgentwireError(diagnostic);
      collect?.push(diagnostic);
      handler?.(diagnostic);
    },
  };
}

/** Formats the `line N (byte O)` prefix of a message, the way every diagnostic names a place. */
export function describePlace(line: number, offset: number): string {
  return `line ${line} (byte ${offset})`;
}

/**
 * A diagnostic tied to a line: its message starts with `line N (byte O): `. The one way every
 * reader, decoder and checker builds one. (`format` may be left out only by a reader used
 * without one, such as a bare `LineSplitter`.)
 */
export function diagnosticAt(
  code: DiagnosticCode,
  severity: Severity,
  line: number,
  offset: number,
  what: string,
  format: Format | undefined,
): Diagnostic {
  const d: Diagnostic = { code, severity, message: `${describePlace(line, offset)}: ${what}`, line, offset };
  if (format !== undefined) d.format = format;
  return d;
}

/**
 * What `check` says of a stream without a single record (no bytes, blank lines only, or lines
 * that are no record, such as the banners Gemini CLI prints before its init): a warning at its
 * start. An agent that wrote nothing ended without its terminal record as surely
 * as one cut off mid-run, so such a stream is never called clean (`--strict` fails it).
 */
export function emptyStream(format: Format | undefined): Diagnostic {
  return diagnosticAt(
    'order',
    'warning',
    1,
    0,
    'the stream has no records, so no run started or ended',
    format,
  );
}

/** Where a decoder reports a line's diagnostic: `(code, severity, line, offset, what)`. */
export type LineReport = (
  code: DiagnosticCode,
  severity: Severity,
  line: number,
  offset: number,
  what: string,
) => void;

/** The `report` of a decoder of `format`: builds each diagnostic with {@link diagnosticAt}. */
export function lineReporter(sink: DiagnosticSink, format: Format): LineReport {
  return (code, severity, line, offset, what) =>
    sink.report(diagnosticAt(code, severity, line, offset, what, format));
}

/**
 * The checkers' one helper: a finding about a decoded event, placed at the event's line when it
 * has a provenance, else unplaced.
 */
export function diagnosticAtEvent(
  code: DiagnosticCode,
  severity: Severity,
  event: { provenance?: { line: number; offset: number } | undefined } | undefined,
  what: string,
  format: Format,
): Diagnostic {
  const p = event?.provenance;
  if (p === undefined) return { code, severity, message: what, format };
  return diagnosticAt(code, severity, p.line, p.offset, what, format);
}
