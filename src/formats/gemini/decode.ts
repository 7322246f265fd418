import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type Diagnostic, type DiagnosticSink, diagnosticAt } from '../../diagnostics';
import { isFiniteNumber, num } from '../../guards';
import {
  DEPTH_PRECHECK_CHARS,
  isJsonObject,
  type JsonObject,
  mayHoldUnsafeNumber,
  NOT_PARSED,
  parseRecordText,
  refuseTooDeep,
  resolveMaxDepth,
  unsafeNumberMessage,
  valueTooDeep,
} from '../../json';
import type { AgentEvent, AgentEventOf, ModelUsage, Provenance, Usage } from '../../model';
import { HintedProvenance, LineProvenance, plain } from '../../plain';
import { hasExactKeys, incompleteRunEnd, provenanceOf, type RecordRest, splitRecord } from '../../record';
import {
  GEMINI_CANCELLED_ERROR_TYPE,
  GEMINI_CANCELLED_MESSAGES,
  GEMINI_KEY_ORDER,
  GEMINI_STDOUT_NOTICE,
  GEMINI_TOOL_ERROR_TYPE,
  GEMINI_WARNING_NOTICE,
  type GeminiHints,
  type GeminiRecordType,
  geminiRecordProblem,
  IsoReader,
  isGeminiModelStats,
  isGeminiRecordType,
  parseTimestamp,
} from './wire';

/** Options of the Gemini decoder. `maxLineBytes` defaults to 16 MiB here. */
export interface GeminiDecodeOptions extends DecodeOptions {}

const FORMAT = 'gemini' as const;

// Calls whose result has not arrived are remembered for the result's tool name; a stream that
// never answers its calls cannot grow this past the bound (the oldest is forgotten first).
const MAX_OPEN_CALLS = 4096;

/** The state of one line while it is decoded. */
interface LineContext {
  text: string;
  line: number;
  offset: number;
  out: AgentEvent[];
}

/**
 * The Gemini CLI stream-json record decoder: one line → canonical events.
 *
 * `init` is a `session.start`; the user's `message` opens a run (`run.start` with its `input`);
 * assistant `message`s are `text.delta`s; `tool_use` / `tool_result` a call's `tool.start` /
 * `tool.end` (the name taken from the call); an `error` of severity `warning` is a `notice`, any
 * other an `error` that does not end the run; `result` ends the run (`run.end`, usage from
 * `stats`). A `result{status:"success"}` after an `error` of severity `error` (max turns) ends
 * the run `failed` with `reason: "success"`; a `result{status:"error"}` whose error message is
 * Gemini CLI's cancellation (`Operation cancelled.`) ends it `cancelled`; a stream without
 * `result` ends it `incomplete`.
 * Lines that are not JSON are kept as they were: before `init` as `notice`s of kind `stdout`
 * (banners, an `info` diagnostic), after it as `unknown` events (an `error` diagnostic).
 */
export class GeminiRecordDecoder implements RecordDecoder {
  /** Blank lines are kept as events (notices before `init`, unknown after), never an error. */
  readonly keepsBlankLines = true;
  private readonly sink: DiagnosticSink;
  private readonly maxDepth: number;
  private sawInit = false;
  // A run began since the last init (a session that never got one ends with an incomplete run).
  private hadRun = false;
  private runOpen = false;
  // What refused the line being parsed (set by `parseSink`).
  private refusal: Diagnostic | undefined;
  private readonly parseSink: DiagnosticSink;
  // The last line of the open run that started it or the stream (for the synthetic end).
  private lastLine = 0;
  private lastOffset = 0;
  // An `error` record of severity `error` in the open run: the run failed, whatever `result` says.
  private runError: string | undefined;
  private readonly calls = new Map<string, string>();
  private readonly clock = new IsoReader();
  private readonly shortcut: boolean;

  /** Creates a decoder that reports to `sink`. */
  constructor(options: GeminiDecodeOptions, sink: DiagnosticSink, shortcut = true) {
    this.sink = sink;
    this.shortcut = shortcut;
    this.maxDepth = resolveMaxDepth(options.maxDepth);
    // Invalid JSON is not reported as such: the line is kept whole, like any line that is not JSON.
    this.parseSink = {
      report: (d) => {
        this.refusal = d;
        if (d.code !== 'invalid_json') sink.report(d);
      },
    };
  }

  line(text: string, line: number, offset: number, out: AgentEvent[]): void {
    this.lastLine = line;
    this.lastOffset = offset;
    if (this.shortcut && this.delta(text, line, offset, out)) return;
    const ctx: LineContext = { text, line, offset, out };
    const c = text.charCodeAt(0);
    // A record starts with `{`; anything else (a banner, a blank line) is not JSON.
    const record = c === 123 ? this.parse(ctx) : NOT_JSON;
    if (record === NOT_JSON) {
      this.notJson(ctx);
      return;
    }
    if (record === NOT_PARSED) return;
    if (!isJsonObject(record)) {
      if (this.refused(ctx, record)) return;
      this.report(ctx, 'invalid_json', 'error', 'not a JSON object; kept as an unknown event');
      out.push(this.unknown(ctx, record, undefined));
      return;
    }
    const type = record.type;
    if (!isGeminiRecordType(type)) {
      if (this.refused(ctx, record)) return;
      const what =
        typeof type === 'string'
          ? `a record of type ${JSON.stringify(type)} Gemini CLI does not write (yet)`
          : 'a record without a string "type"';
      this.report(ctx, 'unknown_record', 'info', `${what}; kept as an unknown event`);
      out.push(this.unknown(ctx, record, type));
      return;
    }
    const problem = geminiRecordProblem(type, record);
    const rest = problem === undefined ? splitRecord(record, GEMINI_KEY_ORDER[type]) : undefined;
    // A valid record of these types with only its own keys holds strings and booleans, and objects
    // of strings at most: nothing in it can nest deeply or be a number. The rest are measured.
    if (
      (problem !== undefined || rest !== undefined || !SHALLOW[type] || hasOwnErrorKeys(record.error)) &&
      this.refused(ctx, record)
    )
      return;
    if (problem !== undefined) {
      this.report(
        ctx,
        'invalid_record',
        'error',
        `invalid ${type} record: ${problem}; kept as an unknown event`,
      );
      out.push(this.unknown(ctx, record, type));
      return;
    }
    this.record(ctx, type, record, rest);
  }

  end(out: AgentEvent[]): void {
    this.endSession(out);
  }

  /**
   * The shortcut for most of a stream: an assistant `delta` message spelled exactly as Gemini CLI
   * writes it is read without `JSON.parse` of the record (its content alone is parsed when it
   * holds escapes). Gives the
   * same events as the general path (held by the property test "the delta shortcut and the
   * general path agree" in test/gemini/codec.test.ts). False when the line is not such a line.
   */
  private delta(text: string, line: number, offset: number, out: AgentEvent[]): boolean {
    const n = text.length;
    // A long line is measured for depth before it is parsed (an object: one level), and refused
    // under a bound of one level: the general path says so.
    if (n > DEPTH_PRECHECK_CHARS && this.maxDepth < 1) return false;
    if (!deltaShaped(text)) return false;
    let content = text.slice(DELTA_CONTENT, n - DELTA_TAIL.length);
    if (NEEDS_PARSE.test(content)) {
      // Escapes: the content alone is parsed as one JSON string (no object, no keys). When the
      // slice is not exactly one string, the line is not this shape: the general path decides.
      try {
        content = JSON.parse(text.slice(DELTA_CONTENT - 1, n - DELTA_TAIL.length + 1));
      } catch {
        return false;
      }
      if (typeof content !== 'string') return false;
    }
    const ts = this.clock.read(text.slice(DELTA_HEAD.length, DELTA_TIME_END));
    if (Number.isNaN(ts)) return false;
    if (!this.runOpen) this.openRun({ line, offset }, ts, out);
    const hints = new RawHints(text, content) as Record<string, unknown>;
    out.push(new DeltaEvent(content, new HintedProvenance(FORMAT, line, offset, hints), ts));
    return true;
  }

  // No `result`: the process died, hit a ceiling or failed to authenticate. Never a success.
  private endSession(out: AgentEvent[]): void {
    if (this.sawInit && !this.hadRun) this.openRun(this.syntheticAt(), undefined, out);
    this.closeIncomplete(out);
  }

  private parse(ctx: LineContext): unknown {
    this.refusal = undefined;
    const value = parseRecordText(ctx.text, ctx.line, ctx.offset, this.maxDepth, FORMAT, this.parseSink);
    // A refused depth was reported; invalid JSON goes back to the caller as text to keep.
    // (`parseSink` set `refusal` during the call: TypeScript cannot see it.)
    if (value === NOT_PARSED)
      return (this.refusal as Diagnostic | undefined)?.code === 'invalid_json' ? NOT_JSON : NOT_PARSED;
    return value;
  }

  /**
   * The depth bound on a parsed value (a short line is parsed before it is measured) and the
   * check for numbers `JSON.parse` cannot keep exactly. True when the line is refused.
   */
  private refused(ctx: LineContext, value: unknown): boolean {
    if (
      valueTooDeep(ctx.text, value, this.maxDepth) &&
      refuseTooDeep(this.sink, ctx.line, ctx.offset, this.maxDepth, FORMAT)
    )
      return true;
    if (mayHoldUnsafeNumber(value)) {
      const message = unsafeNumberMessage(ctx.text);
      if (message !== undefined) this.report(ctx, 'invalid_record', 'error', message);
    }
    return false;
  }

  private report(
    ctx: LineContext,
    code: Diagnostic['code'],
    severity: Diagnostic['severity'],
    what: string,
  ): void {
    this.sink.report(diagnosticAt(code, severity, ctx.line, ctx.offset, what, FORMAT));
  }

  private notJson(ctx: LineContext): void {
    const hints: GeminiHints = { text: ctx.text };
    if (!this.sawInit) {
      this.report(
        ctx,
        'invalid_json',
        'info',
        'not JSON: a line Gemini CLI printed before init (a banner or warning); kept as a notice',
      );
      ctx.out.push({
        type: 'notice',
        kind: GEMINI_STDOUT_NOTICE,
        message: ctx.text,
        severity: 'info',
        provenance: withHints(provenanceOf(FORMAT, ctx.line, ctx.offset), hints),
      });
      return;
    }
    const blank = ctx.text.trim() === '';
    if (blank) this.report(ctx, 'invalid_json', 'info', 'a blank line; kept as an unknown event');
    else {
      // JSON.parse's own words when it was tried (a line starting with `{`).
      const why =
        this.refusal?.line === ctx.line
          ? this.refusal.message.slice(this.refusal.message.indexOf(': ') + 2)
          : 'not valid JSON';
      this.report(ctx, 'invalid_json', 'error', `${why}; kept as an unknown event`);
    }
    ctx.out.push({
      type: 'unknown',
      record: ctx.text,
      provenance: withHints(provenanceOf(FORMAT, ctx.line, ctx.offset), hints),
    });
  }

  private unknown(ctx: LineContext, record: unknown, type: unknown): AgentEventOf<'unknown'> {
    const e: AgentEventOf<'unknown'> = {
      type: 'unknown',
      record,
      provenance: withHints(provenanceOf(FORMAT, ctx.line, ctx.offset), { raw: ctx.text }),
    };
    if (typeof type === 'string') e.recordType = type;
    if (isJsonObject(record) && typeof record.timestamp === 'string') {
      const t = parseTimestamp(record.timestamp);
      if (!Number.isNaN(t.ms)) e.ts = t.ms;
    }
    return e;
  }

  /** The provenance of a record's event: extra fields, key order and the writer's hints. */
  private provenance(ctx: LineContext, rest: RecordRest | undefined, hints: GeminiHints): Provenance {
    hints.raw = ctx.text;
    if (rest === undefined || (rest.extra === undefined && rest.order === undefined))
      return new HintedProvenance(FORMAT, ctx.line, ctx.offset, hints as Record<string, unknown>);
    const p = new LineProvenance(FORMAT, ctx.line, ctx.offset);
    if (rest.extra !== undefined) p.extra = rest.extra;
    if (rest.order !== undefined) p.order = rest.order;
    p.hints = hints as Record<string, unknown>;
    return p;
  }

  /** Reads `timestamp` into `e.ts`, keeping what ISO printing would not give back in `hints`. */
  private stamp(e: AgentEvent, record: JsonObject, hints: GeminiHints): void {
    const written = record.timestamp;
    if (typeof written !== 'string') {
      // absent (or not a string: the raw line keeps it)
      if (written === undefined) hints.timestamp = null;
      return;
    }
    const ms = this.clock.read(written);
    if (!Number.isNaN(ms)) {
      e.ts = ms;
      return;
    }
    const t = parseTimestamp(written);
    if (!Number.isNaN(t.ms)) e.ts = t.ms;
    if (!t.exact) hints.timestamp = written;
  }

  private record(
    ctx: LineContext,
    type: GeminiRecordType,
    r: JsonObject,
    rest: RecordRest | undefined,
  ): void {
    const hints: GeminiHints = new LineHints();
    const out = ctx.out;
    switch (type) {
      case 'init': {
        // A second init: a second process's output appended to the first's.
        this.endSession(out);
        this.sawInit = true;
        this.hadRun = false;
        const e = new SessionStart(
          r.session_id as string,
          r.model as string,
          this.provenance(ctx, rest, hints),
        );
        this.stamp(e, r, hints);
        out.push(e);
        return;
      }
      case 'message': {
        if (r.role === 'user') {
          const e: AgentEventOf<'run.start'> | AgentEventOf<'user.message'> = this.runOpen
            ? new UserMessage(r.content as string, this.provenance(ctx, rest, hints))
            : new InputRunStart(r.content as string, this.provenance(ctx, rest, hints));
          this.stamp(e, r, hints);
          if (!this.runOpen) this.startRun();
          out.push(e);
          return;
        }
        const e: AgentEventOf<'text.delta'> = new TextDelta(
          r.content as string,
          this.provenance(ctx, rest, hints),
        );
        if (r.delta !== true) hints.whole = true;
        this.stamp(e, r, hints);
        // What the shortcut keeps of a line it reads (a line it left here, or one read with the
        // shortcut off): the same events either way.
        if (
          e.ts !== undefined &&
          rest === undefined &&
          hints.timestamp === undefined &&
          deltaShaped(ctx.text)
        )
          hints.content = e.text;
        this.ensureRun(ctx, e.ts);
        out.push(e);
        return;
      }
      case 'tool_use': {
        const call = r.tool_id as string;
        const name = r.tool_name as string;
        const e = new ToolStart(call, name, r.parameters as JsonObject, this.provenance(ctx, rest, hints));
        this.stamp(e, r, hints);
        this.ensureRun(ctx, e.ts);
        this.remember(call, name);
        out.push(e);
        return;
      }
      case 'tool_result': {
        const call = r.tool_id as string;
        const e = new ToolEnd(call, r.status === 'success', this.provenance(ctx, rest, hints));
        const name = this.calls.get(call);
        if (name !== undefined) {
          e.name = name;
          this.calls.delete(call);
        }
        if (r.output !== undefined) e.text = r.output as string;
        const error = r.error as { type: string; message: string } | undefined;
        if (error !== undefined) {
          // The message is why the call failed; its type is a code the model has no slot for.
          e.error = error.message;
          if (error.type !== GEMINI_TOOL_ERROR_TYPE) hints.errorType = error.type;
          if (hasOwnErrorKeys(error)) hints.error = error;
        }
        this.stamp(e, r, hints);
        if (e.ts !== undefined) {
          e.endedAt = e.ts;
          // The writer's kept-line check compares the event with the record (see `keep`).
          if (rest === undefined && hints.timestamp === undefined && keep(r)) hints.record = r;
        }
        this.ensureRun(ctx, e.ts);
        out.push(e);
        return;
      }
      case 'error': {
        const severity = r.severity as string;
        const message = r.message as string;
        let e: AgentEventOf<'notice'> | AgentEventOf<'error'>;
        if (severity === 'warning') {
          e = new WarningNotice(message, this.provenance(ctx, rest, hints));
        } else {
          if (severity !== 'error') hints.severity = severity;
          e = new RunError(message, this.provenance(ctx, rest, hints));
          this.runError ??= message;
        }
        this.stamp(e, r, hints);
        this.ensureRun(ctx, e.ts);
        out.push(e);
        return;
      }
      case 'result':
        this.result(ctx, r, rest, hints);
        return;
    }
  }

  private result(ctx: LineContext, r: JsonObject, rest: RecordRest | undefined, hints: GeminiHints): void {
    const out = ctx.out;
    const status = r.status as 'success' | 'error';
    const completed = status === 'success' && this.runError === undefined;
    const error = r.error as { type: string; message: string } | undefined;
    // A cancellation is told by its message, never by `error.type`: that is a class name a
    // bundler may rename (GEMINI_CANCELLED_MESSAGES).
    const cancelled =
      status === 'error' && error !== undefined && GEMINI_CANCELLED_MESSAGES.includes(error.message);
    const e = new RunEnd(
      completed ? 'completed' : cancelled ? 'cancelled' : 'failed',
      status,
      this.provenance(ctx, rest, hints),
    );
    this.stamp(e, r, hints);
    this.ensureRun(ctx, e.ts);
    if (hasOwnErrorKeys(error)) hints.error = error as JsonObject;
    if (cancelled) {
      // Not an error of the run: its end says why (the message), and the line's error type is
      // kept for the writer, not made a fatal `error` event (which the writers of other formats
      // would write as a failure).
      e.error = error.message;
      if (error.type !== GEMINI_CANCELLED_ERROR_TYPE) hints.errorType = error.type;
    } else if (error !== undefined) {
      // The run's fatal error, as an event of its own (the code has no place on run.end).
      const fatal: AgentEventOf<'error'> = {
        type: 'error',
        message: error.message,
        fatal: true,
        code: error.type,
        provenance: { format: FORMAT, line: ctx.line, offset: ctx.offset, synthetic: true },
      };
      if (e.ts !== undefined) fatal.ts = e.ts;
      out.push(fatal);
      e.error = error.message;
    } else if (this.runError !== undefined) e.error = this.runError;
    const stats = r.stats as JsonObject | undefined;
    if (stats !== undefined) {
      hints.stats = stats;
      const usage = usageOf(stats);
      if (usage !== undefined) e.usage = usage;
      if (isFiniteNumber(stats.duration_ms)) e.durationMs = stats.duration_ms;
    }
    this.runOpen = false;
    this.runError = undefined;
    out.push(e);
  }

  private remember(call: string, name: string): void {
    if (this.calls.size >= MAX_OPEN_CALLS) this.calls.delete(this.calls.keys().next().value!);
    this.calls.set(call, name);
  }

  private startRun(): void {
    this.runOpen = true;
    this.hadRun = true;
    this.runError = undefined;
  }

  // A record of a run before any user message (a stream cut at its start): the run opens here.
  private ensureRun(ctx: LineContext, ts: number | undefined): void {
    if (!this.runOpen) this.openRun({ line: ctx.line, offset: ctx.offset }, ts, ctx.out);
  }

  private syntheticAt(): { line: number; offset: number } {
    return { line: Math.max(1, this.lastLine), offset: this.lastOffset };
  }

  private openRun(at: { line: number; offset: number }, ts: number | undefined, out: AgentEvent[]): void {
    const e: AgentEventOf<'run.start'> = {
      type: 'run.start',
      provenance: { format: FORMAT, line: at.line, offset: at.offset, synthetic: true },
    };
    if (ts !== undefined) e.ts = ts;
    this.startRun();
    out.push(e);
  }

  private closeIncomplete(out: AgentEvent[]): void {
    if (!this.runOpen) return;
    const at = this.syntheticAt();
    const e = incompleteRunEnd(FORMAT, at.line, at.offset);
    if (this.runError !== undefined) e.error = this.runError;
    this.runOpen = false;
    this.runError = undefined;
    this.calls.clear();
    out.push(e);
  }
}

const NOT_JSON: unique symbol = Symbol('not json');

// A line's events, provenance and hints are made by constructors, not literals: a literal's
// allocation site can be pretenured, and then every line's objects and what they hold live in the
// old generation (src/plain.ts). The keys in the order the literals had; what the literals got
// later (`ts`, a result's `name`, the hints' keys) is still added later.

/** `{ raw, content }`: the hints of a delta read by the shortcut. */
const RawHints = plain(function (this: GeminiHints, raw: string, content: string) {
  this.raw = raw;
  this.content = content;
});

/** `{}`: a record's hints, its keys added as the record is read. */
const LineHints = plain(function (this: GeminiHints) {});

/** `{ type: 'text.delta', text, provenance, ts }`: a delta read by the shortcut. */
const DeltaEvent = plain(function (
  this: AgentEventOf<'text.delta'>,
  text: string,
  provenance: Provenance,
  ts: number,
) {
  this.type = 'text.delta';
  this.text = text;
  this.provenance = provenance;
  this.ts = ts;
});

const TextDelta = plain(function (this: AgentEventOf<'text.delta'>, text: string, provenance: Provenance) {
  this.type = 'text.delta';
  this.text = text;
  this.provenance = provenance;
});

const SessionStart = plain(function (
  this: AgentEventOf<'session.start'>,
  session: string,
  model: string,
  provenance: Provenance,
) {
  this.type = 'session.start';
  this.session = session;
  this.model = model;
  this.provenance = provenance;
});

const UserMessage = plain(function (
  this: AgentEventOf<'user.message'>,
  text: string,
  provenance: Provenance,
) {
  this.type = 'user.message';
  this.text = text;
  this.provenance = provenance;
});

const InputRunStart = plain(function (
  this: AgentEventOf<'run.start'>,
  input: string,
  provenance: Provenance,
) {
  this.type = 'run.start';
  this.input = input;
  this.provenance = provenance;
});

const ToolStart = plain(function (
  this: AgentEventOf<'tool.start'>,
  call: string,
  name: string,
  args: JsonObject,
  provenance: Provenance,
) {
  this.type = 'tool.start';
  this.call = call;
  this.name = name;
  this.args = args;
  this.provenance = provenance;
});

const ToolEnd = plain(function (
  this: AgentEventOf<'tool.end'>,
  call: string,
  ok: boolean,
  provenance: Provenance,
) {
  this.type = 'tool.end';
  this.call = call;
  this.ok = ok;
  this.provenance = provenance;
});

const WarningNotice = plain(function (this: AgentEventOf<'notice'>, message: string, provenance: Provenance) {
  this.type = 'notice';
  this.kind = GEMINI_WARNING_NOTICE;
  this.message = message;
  this.severity = 'warning';
  this.provenance = provenance;
});

const RunError = plain(function (this: AgentEventOf<'error'>, message: string, provenance: Provenance) {
  this.type = 'error';
  this.message = message;
  this.fatal = false;
  this.provenance = provenance;
});

const RunEnd = plain(function (
  this: AgentEventOf<'run.end'>,
  status: 'completed' | 'failed' | 'cancelled',
  reason: string,
  provenance: Provenance,
) {
  this.type = 'run.end';
  this.status = status;
  this.reason = reason;
  this.provenance = provenance;
});

// An assistant delta as Gemini CLI writes it: head, 24-character timestamp, role, content, tail.
const DELTA_HEAD = '{"type":"message","timestamp":"';
const DELTA_TIME_END = DELTA_HEAD.length + 24;
const DELTA_MID = '","role":"assistant","content":"';
const DELTA_CONTENT = DELTA_TIME_END + DELTA_MID.length;
const DELTA_TAIL = '","delta":true}';
const DELTA_MIN = DELTA_CONTENT + DELTA_TAIL.length;
/**
 * Whether `text` is spelled as Gemini CLI writes an assistant delta: head, 24 characters of time,
 * role, content, tail (the content and the time are not looked at).
 */
function deltaShaped(text: string): boolean {
  const n = text.length;
  // indexOf at a position, not startsWith/endsWith: V8 runs those several times slower
  // (docs/performance.md, "Gemini CLI stream-json"). The type's first letter, which tells a
  // message from the records beside it (`tool_use`, `tool_result`…), is compared first.
  return (
    n >= DELTA_MIN &&
    text.charCodeAt(9) === 109 &&
    text.indexOf(DELTA_HEAD) === 0 &&
    text.indexOf(DELTA_MID, DELTA_TIME_END) === DELTA_TIME_END &&
    text.indexOf(DELTA_TAIL, n - DELTA_TAIL.length) === n - DELTA_TAIL.length
  );
}

// Content with a quote, a backslash or a control character is read by JSON.parse (as a string).
const NEEDS_PARSE = /["\\\u0000-\u001f]/;

// Record types whose valid records, with only their own keys, hold no number and nest at most two
// levels (`tool_result.error`); `tool_use.parameters` and `result.stats` are free-form.
const SHALLOW: Readonly<Record<GeminiRecordType, boolean>> = {
  init: true,
  message: true,
  tool_use: false,
  tool_result: true,
  error: true,
  result: false,
};

const ERROR_KEYS: readonly string[] = ['type', 'message'];

/**
 * Whether a record's `error` (valid: its `type` and `message` strings) has keys beside those two:
 * a later Gemini CLI's, kept for the writer (`hints.error`) and measured like any free-form value.
 */
function hasOwnErrorKeys(error: unknown): boolean {
  return isJsonObject(error) && Object.keys(error).length > ERROR_KEYS.length;
}

/**
 * Whether a `tool_result` record (valid, its own keys only) is one the writer writes back from
 * its event alone: it has an `output` (else the writer would write one from a result) and its
 * `error`, if any, holds only `type` and `message` (the writer writes no other key).
 */
function keep(r: JsonObject): boolean {
  const error = r.error;
  return (
    typeof r.output === 'string' && (error === undefined || hasExactKeys(error as JsonObject, ERROR_KEYS))
  );
}

/** Canonical counts of a Gemini token record (`stats` or one of `stats.models`). */
function countsOf(s: JsonObject): ModelUsage {
  const u: ModelUsage = {};
  // input_tokens is the whole prompt; `cached` is the part read from the cache, `input` the rest.
  const input = num(s.input_tokens);
  const output = num(s.output_tokens);
  const cached = num(s.cached);
  if (input !== undefined) u.input = input;
  if (output !== undefined) u.output = output;
  if (cached !== undefined) u.cacheRead = cached;
  return u;
}

/** The run's usage from `result.stats` (with `byModel` from `stats.models`). */
export function usageOf(stats: JsonObject): Usage | undefined {
  const u: Usage = countsOf(stats);
  const models = stats.models;
  if (isJsonObject(models)) {
    const byModel: Record<string, ModelUsage> = {};
    let any = false;
    for (const name of Object.keys(models)) {
      const m = models[name];
      if (!isGeminiModelStats(m)) continue;
      Object.defineProperty(byModel, name, {
        value: countsOf(m),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      any = true;
    }
    if (any) u.byModel = byModel;
  }
  for (const _ in u) return u;
  return undefined;
}

function withHints(p: Provenance, hints: GeminiHints): Provenance {
  for (const _ in hints) {
    p.hints = hints as Record<string, unknown>;
    break;
  }
  return p;
}
