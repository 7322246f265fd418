import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import { type IsoClock, newIsoClock, readIso } from '../../iso';
import {
  assertCallWritable,
  assertEncodable,
  assertFieldsWritable,
  assertFiniteNumber,
  assertText,
  assertTimeWritable,
  isJsonObject,
  type JsonObject,
  jsonString,
  jsonText,
  rawIfSame,
  requireText,
  setOwn,
} from '../../json';
import { LossReporter } from '../../loss';
import type { AgentEvent, AgentEventOf, ModelUsage, Provenance, Usage } from '../../model';
import { hintsFrom, joinRecord } from '../../record';
import { assertByModelFigures, assertUsageFigures } from '../../usage';
import {
  GEMINI_CANCELLED_ERROR_TYPE,
  GEMINI_CANCELLED_MESSAGES,
  GEMINI_KEY_ORDER,
  GEMINI_RUN_ERROR_TYPE,
  GEMINI_STDOUT_NOTICE,
  GEMINI_TOOL_ERROR_TYPE,
  GEMINI_UNKNOWN_MODEL,
  GEMINI_WARNING_NOTICE,
  type GeminiHints,
  type GeminiRecordType,
  IsoWriter,
  isGeminiModelStats,
} from './wire';

/** Options of the Gemini writer. */
export interface GeminiEncodeOptions extends EncodeOptions {
  /**
   * The clock for `timestamp`s of events that have no `ts` (events built by hand or converted),
   * in ms since the epoch. Default `Date.now`; inject one for deterministic output.
   */
  clock?: () => number;
  /**
   * Makes the `session_id` of an `init` the events do not give one (a stream converted from a
   * format without sessions). Default `crypto.randomUUID()`.
   */
  idSource?: () => string;
}

const FORMAT = 'gemini' as const;
/** Most events kept waiting for a run; more are reported lost. */
const MAX_OUTSIDE = 1024;
/** Most lines a run's output waits for its outcome (see `pending`); past it they go as errors. */
const MAX_PENDING = 4096;

// Fields each event type carries into Gemini stream-json; anything else set is a `loss`. The
// session id is written once, in `init`: every event of the session has it there.
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'session.start': ['ts', 'session', 'model'],
  'run.start': ['session', 'ts', 'input'],
  'user.message': ['session', 'ts', 'text'],
  'text.delta': ['session', 'ts', 'text'],
  'tool.start': ['session', 'ts', 'call', 'name', 'args'],
  'tool.end': ['session', 'ts', 'call', 'name', 'ok', 'text', 'error', 'endedAt'],
  error: ['session', 'ts', 'message', 'fatal', 'code'],
  notice: ['session', 'ts', 'kind', 'message', 'severity'],
  'run.end': ['session', 'ts', 'status', 'reason', 'error', 'durationMs', 'usage', 'answer'],
  // Structure Gemini does not mark: nothing of it is lost while these fields are all it has.
  'message.start': ['session', 'role', 'message'],
  'message.end': ['session', 'message'],
  'round.start': ['session'],
  'round.end': ['session', 'message'],
  unknown: ['session', 'ts', 'record', 'recordType'],
};

// Usage fields Gemini's stats hold (per model: the counts).
const USAGE_CARRIED: readonly string[] = ['input', 'output', 'cacheRead', 'byModel', 'scope'];
const MODEL_USAGE_CARRIED: readonly string[] = ['input', 'output', 'cacheRead'];

/**
 * The kept-line fast path (`keptLine`): a line the Gemini decoder read is written back as it
 * is, without building it, while its event says what the decoder kept of it. Off, only the
 * general path runs; test/gemini/writer-kept.test.ts holds the two equal (docs/performance.md,
 * "Kept lines").
 */
export const GEMINI_KEPT_LINES: { enabled: boolean } = { enabled: true };

/**
 * Whether the general path would write the kept line for `event`, once its own fields are known
 * to be the kept ones: the line's `timestamp` (`time`; the decoder keeps values only for one in
 * `toISOString`'s form) is the event's time, and the provenance has not been given extra fields
 * since (the decoder keeps values only for a line of its own keys). The built line would then say
 * what the kept line says, in whatever key order, and `rawIfSame` would give the kept line back.
 */
function keptLine(event: AgentEvent, time: unknown, at: number, clock: IsoClock): boolean {
  return (
    GEMINI_KEPT_LINES.enabled &&
    event.provenance!.extra === undefined &&
    typeof time === 'string' &&
    keptMs(clock, time, at) === event.ts
  );
}

/**
 * The time of the timestamp at `at` in `s`, which the decoder left there in `toISOString`'s form
 * (it keeps values only for such a line). In the minute of the last one it is read in place, its
 * seconds and milliseconds only; else by {@link readIso}, which remembers the new minute.
 */
function keptMs(clock: IsoClock, s: string, at: number): number {
  const minute = clock[0];
  if (minute !== '' && s.indexOf(minute, at) === at) {
    const c = (i: number) => s.charCodeAt(at + i) - 48;
    return clock[1] + (c(17) * 10 + c(18)) * 1000 + c(20) * 100 + c(21) * 10 + c(22);
  }
  return readIso(clock, s.slice(at, at + 24));
}

// Where a delta read by the decoder's shortcut has its timestamp (the line is spelled exactly as
// Gemini CLI writes it): after `{"type":"message","timestamp":"`, 24 characters.
const DELTA_TIME = 31;

// A failed result's fields after `timestamp`: the status and the error (`kept`: see `errorObject`).
function errorFields(type: string, message: string, kept: JsonObject | undefined): string {
  return `,"status":"error","error":${errorObject(type, message, kept)}`;
}

/**
 * `{"type":…,"message":…}`: a tool result's or a run's error. `kept`: the error as its line had
 * it, with keys of its own (`hints.error`), written with the type and message put in (in their
 * places), so that no key of a later Gemini CLI's is dropped.
 */
function errorObject(type: string, message: string, kept: JsonObject | undefined): string {
  if (kept === undefined) return `{"type":${jsonString(type)},"message":${jsonString(message)}}`;
  return JSON.stringify({ ...kept, type, message });
}

function geminiHints(event: AgentEvent): GeminiHints | undefined {
  return hintsFrom<GeminiHints>(event, FORMAT);
}

function defaultId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID !== undefined) return c.randomUUID();
  return `session-${Date.now().toString(36)}`;
}

/**
 * The Gemini CLI stream-json writer: canonical events → records as Gemini CLI writes them
 * (`JSON.stringify` of the emit sites' object literals, `timestamp` first after `type`). A line
 * the Gemini decoder read comes back as written while its events say what they said.
 *
 * `session.start` → `init` (one is written first when the events start without it);
 * `run.start` / `user.message` → the user `message`; `text.delta` → an assistant `message` with
 * `delta: true`; `tool.start` / `tool.end` → `tool_use` / `tool_result`; `error` (not fatal) →
 * `error` of severity `error`, a `notice` of severity `warning` → `error` of severity `warning`;
 * `run.end` → `result` (with the last fatal `error`'s code and message when it failed; Gemini
 * CLI's cancellation error when it was cancelled; `stats` from its usage). A run that ended
 * `incomplete` writes no `result`: Gemini's way to say it.
 */
export class GeminiEncoder implements Encoder {
  private readonly loss: LossReporter;
  private readonly clock: () => number;
  private readonly idSource: () => string;
  private wroteRecord = false;
  private fatal: AgentEventOf<'error'> | undefined;
  // A foreign non-fatal error's line, held one event: when the run's end repeats its message,
  // `result.error` says it once (another format's error + failed end would otherwise come back
  // as two records, and grow by one on every round trip). Said at another time than the end, the
  // error's line stays: its time is something the result's cannot say.
  private held: { event: AgentEventOf<'error'>; message: string; ts: number | undefined } | undefined;
  private toolCalls = 0;
  private readonly isoWriter = new IsoWriter();
  /** Reads the kept lines' timestamps (`keptLine`). */
  private readonly isoClock: IsoClock = newIsoClock();
  /** Between a run's start and its end (any event's): what comes outside a run waits. */
  private inRun = false;
  /** An error record of severity `error` was written in the run (Gemini then reads it failed). */
  private saidFailed = false;
  /** A non-fatal error of another format was written in the run as an error record. */
  private foreignError = false;
  /**
   * The run's output from a foreign non-fatal error on, waiting for the run's end: its lines and
   * the errors, whose severity the outcome decides. In a run that completes such an error is
   * Gemini's warning (an error record reads the run back failed); in one that fails it stays an
   * error record. Only runs with such an error wait: the others stream line by line.
   */
  private pending: Array<string | AgentEventOf<'error'>> | undefined;
  /** The last run ended incomplete (no `result`): the next run needs an `init` of its own. */
  private openEnded = false;
  /** A run started since the last `init` (one written after it already ends it for Gemini). */
  private runSinceInit = false;
  /** The session id and model of the last `init` written, for the one a run after a cut-off run needs. */
  private session: string | undefined;
  private model: string | undefined;
  /**
   * Events of another format outside any run: Gemini reads every record but `init` as part of a
   * run (one with no user message gets a derived start), so they wait for the next run's start.
   */
  private outside: AgentEvent[] = [];

  /** Creates a writer reporting losses to `sink`. */
  constructor(options: GeminiEncodeOptions, sink: DiagnosticSink) {
    this.loss = new LossReporter(FORMAT, sink);
    this.clock = options.clock ?? Date.now;
    this.idSource = options.idSource ?? defaultId;
  }

  write(event: AgentEvent): string {
    // Refused, if at all, before anything is written, held, counted or reported for it.
    assertWritable(event);
    const type = event.type;
    if (type === 'run.start' || type === 'run.end') return this.runEdge(event);
    if (!this.inRun && type !== 'session.start' && event.provenance?.format !== FORMAT) {
      // Refused now if at all (a value JSON cannot hold, in any of its fields): held, it is written
      // at the run's start, which its refusal would take down with it (found by
      // test/fuzz/structured.test.ts), as the AG-UI and AI SDK writers do.
      assertFieldsWritable(event, FORMAT);
      if (this.outside.length < MAX_OUTSIDE) this.outside.push(event);
      else this.loss.report(event, type, 'too many events outside a run');
      return '';
    }
    return this.writeHeld(event);
  }

  /**
   * A run's start, then the events that waited for it; a run's end (one with no start before
   * it ends the events that waited: they were its run).
   */
  private runEdge(event: AgentEvent): string {
    let out = '';
    if (event.type === 'run.start') {
      // Gemini ends a run with its `result` or a new `init`; without either a cut-off run and
      // the next read back as one run (the next user message a `user.message` of the first).
      if ((this.openEnded || this.inRun) && this.runSinceInit && this.wroteRecord) out = this.reinit(event);
      out += this.writeHeld(event);
      this.inRun = true;
      this.runSinceInit = true;
    } else if (!this.inRun && this.outside.length > 0) this.inRun = true;
    const outside = this.outside;
    this.outside = [];
    for (const e of outside) out += this.writeHeld(e);
    if (event.type === 'run.end') {
      out += this.writeHeld(event);
      this.inRun = false;
      this.openEnded = event.status === 'incomplete';
    }
    return out;
  }

  /** An `init` repeating the last one's session, ending the cut-off run before `event`'s. */
  private reinit(event: AgentEvent): string {
    let out = this.settle(false);
    this.openEnded = false;
    const start: AgentEventOf<'session.start'> = { type: 'session.start' };
    if (this.session !== undefined) start.session = this.session;
    if (this.model !== undefined) start.model = this.model;
    if (event.ts !== undefined) start.ts = event.ts;
    out += this.init(start, undefined);
    return out;
  }

  private writeHeld(event: AgentEvent): string {
    const held = this.held;
    if (held !== undefined) {
      this.held = undefined;
      // A cancelled run's error that says Gemini's cancellation is the cancellation the result
      // says (another format's reading of Gemini's result, which names no error on its end).
      const repeated =
        event.type === 'run.end' &&
        event.ts === held.ts &&
        ((event.status === 'failed' && event.error === held.message) ||
          (event.status === 'cancelled' &&
            (event.error === held.message || GEMINI_CANCELLED_MESSAGES.includes(held.message))));
      if (!repeated) this.hold(held.event);
    }
    const pending = this.pending;
    if (pending === undefined) return this.writeOne(event);
    const line = this.writeOne(event);
    if (line !== '') pending.push(line);
    if (event.type === 'run.end') return this.settle(event.status === 'completed');
    // Too long a wait: said as error records now (a run that then completes is a loss there).
    if (pending.length > MAX_PENDING) return this.settle(false);
    return '';
  }

  /**
   * A foreign non-fatal error waits for its run's outcome (see `pending`), with its time fixed
   * now and the stream's `init` written before it when it is the first record.
   */
  private hold(event: AgentEventOf<'error'>): void {
    const fixed = event.ts === undefined ? { ...event, ts: this.clock() } : event;
    const pending = (this.pending ??= []);
    if (!this.wroteRecord) {
      this.wroteRecord = true;
      pending.push(this.init({ type: 'session.start' }, undefined));
    }
    pending.push(fixed);
    // A failed run's `success` result needs its error record (see `result`).
    this.saidFailed = true;
  }

  /**
   * The waiting output, each foreign error a warning when its run `completed` (a `loss`: it reads
   * back as a warning notice) and an error record otherwise.
   */
  private settle(completed: boolean): string {
    const pending = this.pending;
    if (pending === undefined) return '';
    this.pending = undefined;
    let out = '';
    for (const part of pending) {
      if (typeof part === 'string') out += part;
      else if (completed) {
        this.loss.report(
          part,
          'error',
          'a non-fatal error in a run that completes is a Gemini warning (an error record fails the run)',
        );
        out += this.error(part, 'warning', part.message, undefined);
      } else {
        out += this.error(part, 'error', part.message, undefined);
        this.foreignError = true;
      }
    }
    return out;
  }

  private writeOne(event: AgentEvent): string {
    const carried = CARRIED[event.type];
    if (carried === undefined) {
      this.loss.report(event, event.type, 'Gemini stream-json has no record for this event');
      return '';
    }
    this.loss.check(event, carried);
    const hints = geminiHints(event);
    // A line that was not JSON (a banner, a broken record) goes back as it was.
    if (hints?.text !== undefined && this.stillText(event, hints.text))
      return this.emit(hints.text, event, false);
    switch (event.type) {
      case 'session.start':
        // Gemini reads an init with no run after it as a run cut off (an auth failure): another
        // format's second session start before any run would read back as one more run.
        if (
          hints === undefined &&
          this.wroteRecord &&
          !this.runSinceInit &&
          event.provenance?.format !== FORMAT
        ) {
          this.loss.report(
            event,
            'session.start',
            'an init with no run after it reads back as a run cut off: a second session start before any run has no record',
          );
          return '';
        }
        return this.init(event, hints);
      case 'run.start':
        this.fatal = undefined;
        this.toolCalls = 0;
        this.saidFailed = false;
        this.foreignError = false;
        return event.input === undefined ? '' : this.userMessage(event, event.input, hints);
      case 'user.message':
        return this.userMessage(event, event.text, hints);
      case 'text.delta':
        return this.textDelta(event, hints);
      case 'tool.start': {
        const line = this.toolUse(event, hints);
        this.toolCalls++;
        return line;
      }
      case 'tool.end':
        return this.toolResult(event, hints);
      case 'error':
        if (event.fatal) {
          // The run's end carries it (`result.error`).
          this.fatal = event;
          return '';
        }
        if (event.code !== undefined)
          this.loss.report(event, 'error.code', 'a Gemini error record has no code');
        if (hints === undefined) {
          this.held = {
            event,
            message: event.message,
            ts: event.ts,
          };
          return '';
        }
        return this.error(event, 'error', event.message, hints);
      case 'notice':
        return this.notice(event, hints);
      case 'run.end':
        return this.result(event, hints);
      case 'unknown':
        return this.unknown(event, hints);
      case 'round.end':
        if (event.usage !== undefined)
          this.loss.report(event, 'round.end.usage', 'Gemini reports usage per run only');
        return '';
      default:
        return '';
    }
  }

  end(): string {
    const held = this.held;
    this.held = undefined;
    // No run follows to carry them: a Gemini record outside a run would read back as one.
    for (const e of this.outside) this.loss.report(e, e.type, 'no run follows to carry it');
    this.outside = [];
    // A run with no result reads back incomplete whatever its error records say.
    const out = this.settle(false);
    return held === undefined ? out : out + this.error(held.event, 'error', held.message, undefined);
  }

  private stillText(event: AgentEvent, text: string): boolean {
    if (event.type === 'notice') return event.kind === GEMINI_STDOUT_NOTICE && event.message === text;
    return event.type === 'unknown' && event.record === text;
  }

  /** The line for `text`, after an `init` when the stream has none yet (`needsInit`). */
  private emit(text: string, event: AgentEvent, needsInit: boolean): string {
    let head = '';
    if (!this.wroteRecord) {
      this.wroteRecord = true;
      // Events from a Gemini stream say themselves whether it had an init; others get one.
      if (needsInit && event.provenance?.format !== FORMAT)
        head = this.init({ type: 'session.start' }, undefined);
    }
    return `${head + text}\n`;
  }

  private timestamp(event: AgentEvent, hints: GeminiHints | undefined): string | undefined {
    if (hints?.timestamp !== undefined) {
      if (hints.timestamp === null) return event.ts === undefined ? undefined : this.iso(event.ts);
      return hints.timestamp;
    }
    return this.iso(event.ts ?? this.clock());
  }

  // An ISO timestamp has nothing JSON escapes: it goes between quotes as it is.
  private iso(ms: number): string {
    return `"${this.isoWriter.write(ms)}"`;
  }

  /** `{"type":"<type>","timestamp":"…"`: how every record begins. */
  private head(type: GeminiRecordType, event: AgentEvent, hints: GeminiHints | undefined): string {
    const ts = this.timestamp(event, hints);
    if (ts === undefined) return `{"type":"${type}"`;
    return `{"type":"${type}","timestamp":${hints?.timestamp != null ? jsonString(ts) : ts}`;
  }

  /**
   * The record: `head` + `fields` in Gemini's order, or through {@link joinRecord} when the
   * decoded line had fields the model has no slot for or another key order. The decoded line
   * comes back as written while it says the same.
   */
  private record(
    type: GeminiRecordType,
    event: AgentEvent,
    hints: GeminiHints | undefined,
    fields: string,
    needsInit = true,
  ): string {
    const p = event.provenance?.format === FORMAT ? event.provenance : undefined;
    let text: string;
    if (p?.extra !== undefined || p?.order !== undefined) text = this.joined(type, event, hints, fields, p);
    else text = `${this.head(type, event, hints)}${fields}}`;
    return this.emit(rawIfSame(hints?.raw, text), event, needsInit);
  }

  // The slow path for a line with extra fields or its own key order: parse our own text back into
  // pairs (it is JSON we just wrote), add the extra fields, order as the line was.
  private joined(
    type: GeminiRecordType,
    event: AgentEvent,
    hints: GeminiHints | undefined,
    fields: string,
    p: Provenance,
  ): string {
    const own = JSON.parse(`${this.head(type, event, hints)}${fields}}`) as JsonObject;
    const pieces: Array<[string, string]> = Object.keys(own).map((k) => [k, JSON.stringify(own[k])]);
    return joinRecord(
      pieces,
      { extra: p.extra, order: p.order ?? GEMINI_KEY_ORDER[type] },
      JSON.stringify,
      FORMAT,
    );
  }

  private init(event: AgentEventOf<'session.start'>, hints: GeminiHints | undefined): string {
    const session = event.session ?? this.idSource();
    const model = event.model ?? GEMINI_UNKNOWN_MODEL;
    const fields = `,"session_id":${jsonString(session)},"model":${jsonString(model)}`;
    if (!this.wroteRecord) this.wroteRecord = true;
    this.session = session;
    this.model = model;
    this.openEnded = false;
    this.runSinceInit = false;
    return this.record('init', event, hints, fields, false);
  }

  private userMessage(event: AgentEvent, text: string, hints: GeminiHints | undefined): string {
    return this.record('message', event, hints, `,"role":"user","content":${jsonString(text)}`);
  }

  private textDelta(event: AgentEventOf<'text.delta'>, hints: GeminiHints | undefined): string {
    const kept = hints?.content;
    if (kept !== undefined && kept === event.text) {
      const raw = hints!.raw;
      if (typeof raw === 'string' && keptLine(event, raw, DELTA_TIME, this.isoClock))
        return this.emit(raw, event, true);
    }
    const delta = hints?.whole === true ? '' : ',"delta":true';
    return this.record(
      'message',
      event,
      hints,
      `,"role":"assistant","content":${jsonString(event.text)}${delta}`,
    );
  }

  private toolUse(event: AgentEventOf<'tool.start'>, hints: GeminiHints | undefined): string {
    const args = event.args ?? {};
    if (event.args === undefined && event.argsSummary !== undefined) {
      this.loss.report(event, 'tool.start.argsSummary', 'Gemini writes arguments as an object only');
    }
    const fields = `,"tool_name":${jsonString(event.name)},"tool_id":${jsonString(event.call)},"parameters":${JSON.stringify(args)}`;
    return this.record('tool_use', event, hints, fields);
  }

  private toolResult(event: AgentEventOf<'tool.end'>, hints: GeminiHints | undefined): string {
    const r = hints?.record;
    if (r !== undefined && sameResult(event, r)) {
      const raw = hints!.raw;
      if (typeof raw === 'string' && keptLine(event, r.timestamp, 0, this.isoClock))
        return this.emit(raw, event, true);
    }
    let fields = `,"tool_id":${jsonString(event.call)},"status":"${event.ok ? 'success' : 'error'}"`;
    let output = event.text;
    if (output === undefined && event.result !== undefined) {
      output = typeof event.result === 'string' ? event.result : JSON.stringify(event.result);
    }
    if (output !== undefined) fields += `,"output":${jsonText(output)}`;
    const error = toolError(event, hints?.errorType ?? GEMINI_TOOL_ERROR_TYPE, hints?.error);
    if (error !== undefined) fields += `,"error":${error}`;
    return this.record('tool_result', event, hints, fields);
  }

  private error(
    event: AgentEvent,
    severity: 'error' | 'warning',
    message: string,
    hints: GeminiHints | undefined,
  ): string {
    const written = hints?.severity ?? severity;
    if (written !== 'warning') this.saidFailed = true;
    return this.record(
      'error',
      event,
      hints,
      `,"severity":${jsonString(written)},"message":${jsonString(message)}`,
    );
  }

  private notice(event: AgentEventOf<'notice'>, hints: GeminiHints | undefined): string {
    if (event.severity !== 'warning' || event.message === undefined) {
      this.loss.report(
        event,
        'notice',
        'Gemini stream-json writes warnings only (an error record of severity warning)',
      );
      return '';
    }
    if (event.kind !== GEMINI_WARNING_NOTICE) {
      this.loss.report(event, 'notice.kind', 'a Gemini warning has no kind');
    }
    if (event.data !== undefined) this.loss.report(event, 'notice.data', 'a Gemini warning has no data');
    return this.error(event, 'warning', event.message, hints);
  }

  private result(event: AgentEventOf<'run.end'>, hints: GeminiHints | undefined): string {
    const fatal = this.fatal;
    this.fatal = undefined;
    const toolCalls = this.toolCalls;
    this.toolCalls = 0;
    if (event.status === 'incomplete') return ''; // Gemini says it by writing no result
    if (event.answer !== undefined) {
      this.loss.report(event, 'run.end.answer', 'Gemini streams the answer as messages only');
    }
    const saidFailed = this.saidFailed;
    this.saidFailed = false;
    const foreignError = this.foreignError;
    this.foreignError = false;
    // Gemini reads a success after an error record as failed: a run that completed says so only
    // as a loss (its error is kept, which a warning would not keep as an error).
    if (event.status === 'completed' && foreignError)
      this.loss.report(event, 'run.end.status', 'after a Gemini error record a success reads back as failed');
    let fields: string;
    // `success` after an error record is Gemini's failed run; without one it would read as done.
    if (
      event.status === 'completed' ||
      (event.status === 'failed' && event.reason === 'success' && saidFailed)
    ) {
      fields = ',"status":"success"';
    } else if (event.status === 'cancelled') {
      // In Gemini CLI's own words, which read back cancelled (GEMINI_CANCELLED_MESSAGES): a
      // message of another run's error has no place then.
      const said = event.error ?? fatal?.message;
      const message =
        said !== undefined && GEMINI_CANCELLED_MESSAGES.includes(said) ? said : GEMINI_CANCELLED_MESSAGES[0]!;
      if (said !== undefined && said !== message)
        this.loss.report(
          event,
          'run.end.error',
          "a cancelled Gemini result says Gemini's cancellation message",
        );
      fields = errorFields(
        hints?.errorType ?? fatal?.code ?? GEMINI_CANCELLED_ERROR_TYPE,
        message,
        hints?.error,
      );
    } else {
      fields = errorFields(
        fatal?.code ?? GEMINI_RUN_ERROR_TYPE,
        fatal?.message ?? event.error ?? 'the run failed',
        hints?.error,
      );
    }
    const stats = statsOf(event, hints, toolCalls, this);
    if (stats !== undefined) fields += `,"stats":${JSON.stringify(stats)}`;
    return this.record('result', event, hints, fields);
  }

  /** Reports one field the writer could not carry. */
  reportLoss(event: AgentEvent, field: string, why: string): void {
    this.loss.report(event, field, why);
  }

  /** Reports the usage fields Gemini's stats have no place for (once each). */
  reportUsageLoss(event: AgentEvent, usage: Usage): void {
    for (const key of Object.keys(usage)) {
      if (USAGE_CARRIED.indexOf(key) === -1 && usage[key as keyof Usage] !== undefined) {
        this.loss.report(event, `${event.type}.usage.${key}`, `Gemini stats have no ${key}`);
      }
    }
    if (usage.byModel === undefined) return;
    for (const m of Object.values(usage.byModel)) {
      for (const key of Object.keys(m)) {
        if (MODEL_USAGE_CARRIED.indexOf(key) === -1 && m[key as keyof ModelUsage] !== undefined) {
          this.loss.report(event, `${event.type}.usage.byModel.${key}`, `Gemini model stats have no ${key}`);
        }
      }
    }
  }

  private unknown(event: AgentEventOf<'unknown'>, hints: GeminiHints | undefined): string {
    if (event.provenance?.format !== FORMAT) {
      this.loss.report(event, 'unknown', 'a record of another format has no place in a Gemini stream');
      return '';
    }
    if (!isJsonObject(event.record)) {
      // A line that was not JSON and has been edited: write the text it now holds.
      if (typeof event.record === 'string') return this.emit(event.record, event, false);
      return this.emit(rawIfSame(hints?.raw, JSON.stringify(event.record)), event, false);
    }
    return this.emit(rawIfSame(hints?.raw, JSON.stringify(event.record)), event, false);
  }
}

/**
 * Throws now what writing `event` would throw for a value JSON cannot hold (the free-form values
 * the writer writes as JSON: a call's arguments, a result or error it writes as JSON text, a
 * line of its own format's, a run's usage figures) or a time no `timestamp` can hold. Asked at the write's start, the refusal is
 * the event's own: a check where the value is written came after the writer had flushed a held
 * error, counted the call or reported the event's losses (each report said once: a refused event
 * took a later one's report with it).
 */
function assertWritable(event: AgentEvent): void {
  // A time no record's `timestamp` can hold (NaN, an infinity; a string or other non-number from
  // an untyped caller, which `iso` would write as `""` or an invalid date): refused for every
  // event type, as the OpenCode and AG-UI writers refuse it.
  assertTimeWritable(event, FORMAT);
  // Each field the event's record is spelled from, read as the record reads it (a caller
  // building events by hand from JSON may send no string, or none at all, where one belongs):
  // one JSON cannot hold (a BigInt) threw where it was spelled, after the writer had held an
  // event that waited, written an init, or kept a fatal error or a warning for a later record,
  // which a refusal there would take down (round thirty-seven).
  switch (event.type) {
    case 'session.start':
      // The init's `session_id` and `model`, kept for the init a later run may need (`reinit`).
      assertText(event.session, event, 'session', FORMAT);
      assertText(event.model, event, 'model', FORMAT);
      return;
    case 'run.start':
      assertText(event.input, event, 'input', FORMAT);
      return;
    case 'user.message':
    case 'text.delta':
      requireText(event.text, event, 'text', FORMAT);
      return;
    case 'tool.start':
      requireText(event.call, event, 'call', FORMAT);
      requireText(event.name, event, 'name', FORMAT);
      assertCallWritable(event, FORMAT);
      return;
    case 'tool.end':
      requireText(event.call, event, 'call', FORMAT);
      // Its text, read as text (a caller building events by hand from JSON may send no string).
      assertText(event.text, event, 'text', FORMAT);
      // (A failure without text says the tool's name.)
      assertText(event.name, event, 'name', FORMAT);
      assertCallWritable(event, FORMAT);
      return;
    case 'error':
      // Held (a fatal one for its run's `result`, another for its run's outcome): its message
      // and code are spelled at a later event's write.
      requireText(event.message, event, 'message', FORMAT);
      assertText(event.code, event, 'code', FORMAT);
      return;
    case 'notice':
      assertText(event.message, event, 'message', FORMAT);
      return;
    case 'unknown':
      if (event.provenance?.format === FORMAT && typeof event.record !== 'string')
        assertEncodable(event.record, 'unknown.record', undefined, FORMAT);
      return;
    case 'run.end':
      assertText(event.error, event, 'error', FORMAT);
      // JSON.stringify would write a NaN count as null: refused, as every writer refuses it.
      if (event.usage !== undefined) {
        assertUsageFigures(event.usage, 'run.end.usage', FORMAT);
        // Its models' figures, summed into their stats (`counts`).
        assertByModelFigures(event.usage, 'run.end.usage', FORMAT);
        // Written beside the figures, in the result's stats.
        if (event.durationMs !== undefined)
          assertFiniteNumber(event.durationMs, 'run.end.durationMs', FORMAT);
      }
      return;
  }
}

/**
 * Whether `event` says what the kept `tool_result` record `r` says, as the general path writes it:
 * the call, the status, the output, and the error's message (`r`'s error type is the hints'
 * `errorType`, which the general path writes too); without an error the call succeeded (a failed
 * call without one is written with one).
 */
function sameResult(event: AgentEventOf<'tool.end'>, r: JsonObject): boolean {
  const error = r.error as { message: string } | undefined;
  return (
    event.call === r.tool_id &&
    event.ok === (r.status === 'success') &&
    event.text === r.output &&
    (error === undefined ? event.ok && event.error === undefined : event.error === error.message)
  );
}

/** `tool_result.error` as JSON text (`kept`: see `errorObject`), or `undefined` when the call has none. */
function toolError(
  event: AgentEventOf<'tool.end'>,
  type: string,
  kept: JsonObject | undefined,
): string | undefined {
  const error = event.error;
  let message: string;
  if (error === undefined || error === null) {
    if (event.ok) return undefined;
    // Gemini CLI's own words for a failure without text (`${name} failed`).
    message = event.text ?? `${event.name ?? 'the tool'} failed`;
  } else if (typeof error === 'string') message = error;
  else {
    // An error value of another format: its message when it has one, else the value as JSON.
    message =
      isJsonObject(error) && typeof error.message === 'string' ? error.message : JSON.stringify(error);
  }
  return errorObject(type, message, kept);
}

function counts(u: ModelUsage, base: JsonObject | undefined): JsonObject {
  const out: JsonObject = {};
  if (base !== undefined) {
    // As written, with the model's figures patched in (unchanged figures give the line back).
    for (const k of Object.keys(base)) setOwn(out, k, base[k]);
    patch(out, 'input_tokens', u.input);
    patch(out, 'output_tokens', u.output);
    patch(out, 'cached', u.cacheRead);
    return out;
  }
  const input = u.input ?? 0;
  const output = u.output ?? 0;
  const cached = u.cacheRead ?? 0;
  out.total_tokens = input + output;
  out.input_tokens = input;
  out.output_tokens = output;
  out.cached = cached;
  out.input = Math.max(0, input - cached);
  return out;
}

function patch(out: JsonObject, key: string, value: number | undefined): void {
  if (value === undefined) delete out[key];
  else out[key] = value;
}

/** `result.stats` for a run's end: the written stats patched, or built from the usage. */
function statsOf(
  event: AgentEventOf<'run.end'>,
  hints: GeminiHints | undefined,
  toolCalls: number,
  encoder: GeminiEncoder,
): JsonObject | undefined {
  const usage = event.usage;
  if (usage !== undefined) encoder.reportUsageLoss(event, usage);
  const written = hints?.stats;
  if (usage === undefined && written === undefined) {
    // A stats record without token figures would invent them.
    if (event.durationMs !== undefined)
      encoder.reportLoss(
        event,
        'run.end.durationMs',
        'Gemini writes the duration in stats, with the usage only',
      );
    return undefined;
  }
  const stats = counts(usage ?? {}, written);
  if (written === undefined) {
    stats.duration_ms = event.durationMs ?? 0;
    stats.tool_calls = toolCalls;
  } else patch(stats, 'duration_ms', event.durationMs);
  const byModel = usage?.byModel;
  const writtenModels = isJsonObject(written?.models) ? (written.models as JsonObject) : undefined;
  if (byModel !== undefined || written === undefined) {
    const models: JsonObject = {};
    // As written first: a model the usage still has with its figures patched in, a key that is no
    // model (`isGeminiModelStats`: the decoder read no usage from it; a later Gemini CLI's) as it
    // was.
    if (writtenModels !== undefined)
      for (const name of Object.keys(writtenModels)) {
        const base = writtenModels[name];
        if (Object.hasOwn(byModel!, name))
          setOwn(models, name, counts(byModel![name]!, isGeminiModelStats(base) ? base : undefined));
        else if (!isGeminiModelStats(base)) setOwn(models, name, base);
      }
    for (const name of Object.keys(byModel ?? {}))
      if (!Object.hasOwn(models, name)) setOwn(models, name, counts(byModel![name]!, undefined));
    stats.models = models;
  }
  return stats;
}
