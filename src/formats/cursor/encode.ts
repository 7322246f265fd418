import { ownString } from '../../bounded';
import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import {
  assertArgsWritable,
  assertEncodable,
  assertEndWritable,
  assertFiniteNumber,
  assertText,
  assertTimeWritable,
  encodeJson,
  isJsonObject,
  type JsonObject,
  rawIfSame,
  requireText,
  sameJson,
  unencodable,
} from '../../json';
import { isStableJson, keptRecord, sameAsKept } from '../../kept';
import { checkCarried, LossReporter, writesOwnRecord } from '../../loss';
import type { AgentEvent, AgentEventOf, Usage } from '../../model';
import { hintsFrom } from '../../record';
import { newRunSpan, spanAfter, spanBefore } from '../../run-span';
import { addUsage, assertUsageFigures } from '../../usage';
import {
  CURSOR_KEY_FOR_KIND,
  CURSOR_MAX_HELD_TEXT,
  CURSOR_TOOL_KEY_SUFFIX,
  CURSOR_TOOL_KINDS,
  type CursorHints,
  msOf,
  toolKeyOf,
  usageFromWire,
  usageToWire,
} from './wire';

/** The usage counts `result.usage` always has (`usageToWire`). */
const WIRE_COUNTS = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;

/** Options of the Cursor writer. */
export interface CursorEncodeOptions extends EncodeOptions {
  /** Makes the session id events do not have. Default: a counter. */
  idSource?: () => string;
}

const FORMAT = 'cursor' as const;

// A time in milliseconds as Cursor spells it (a string); one JSON cannot hold as a number (NaN,
// an infinity) is refused as any unwritable value is.
function msText(ms: number, field: string): string {
  assertFiniteNumber(ms, field, FORMAT);
  return String(ms);
}
const ENV = ['session', 'ts'];

// The events whose line is stamped with their time (`stampTs`, `timestamp_ms`); a run's start and
// end, a user's message and the session's `init` carry none.
const STAMPED: ReadonlySet<AgentEvent['type']> = new Set([
  'reasoning.delta',
  'text.delta',
  'message.end',
  'tool.start',
  'tool.end',
  'notice',
]);

// Fields each event type carries into Cursor records; the rest are `loss`es.
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'session.start': [...ENV, 'model', 'cwd', 'mode'],
  'run.start': [...ENV, 'input'],
  'user.message': [...ENV, 'text'],
  'reasoning.delta': [...ENV, 'text'],
  'text.delta': [...ENV, 'text', 'message'],
  'message.start': [...ENV, 'role', 'message'],
  'message.end': [...ENV, 'message'],
  'tool.start': [...ENV, 'call', 'name', 'kind', 'args', 'command', 'startedAt'],
  'tool.end': [
    ...ENV,
    'call',
    'name',
    'ok',
    'text',
    'result',
    'error',
    'exitCode',
    'denied',
    'startedAt',
    'endedAt',
  ],
  'run.end': [...ENV, 'status', 'reason', 'durationMs', 'answer', 'error', 'usage'],
  notice: [...ENV, 'kind', 'message'],
  unknown: [...ENV, 'record', 'recordType'],
};
const CARRIED_TOOL_START_ARGS: readonly string[] = [...CARRIED['tool.start']!, 'argsSummary'];

function ownHints(event: AgentEvent | undefined): CursorHints | undefined {
  return hintsFrom<CursorHints>(event, FORMAT);
}

function template(hints: CursorHints | undefined): JsonObject | undefined {
  const record = hints?.record;
  return isJsonObject(record) ? record : undefined;
}

/**
 * Test hook: `enabled: false` makes the writer rebuild every line the general way, so that
 * test/cursor/fast-path.test.ts can hold the kept-line fast path equal to it.
 */
export const cursorFastPath: { enabled: boolean } = { enabled: true };

// What `envelope` and `stampTs` put back: the kept session and time stamp. A session the line
// says (as the decoder reads it) that the event no longer has was deleted: not the kept line.
function sameEnvelope(event: AgentEvent, t: JsonObject, stamped: boolean): boolean {
  if (event.session === undefined) {
    if (typeof t.session_id === 'string') return false;
  } else if ('session_id' in t && t.session_id !== event.session) return false;
  if (!stamped) return true;
  return event.ts !== undefined ? t.timestamp_ms === event.ts : !Object.hasOwn(t, 'timestamp_ms');
}

// What `textMessage` puts back: the kept message with the kept text.
function sameMessage(text: string, t: JsonObject): boolean {
  const tm = t.message;
  if (!isJsonObject(tm)) return false;
  const content = tm.content;
  if (typeof content === 'string') return content === text;
  return (
    Array.isArray(content) && content.length === 1 && isJsonObject(content[0]) && content[0].text === text
  );
}

// What `toolCall` puts back into a kept `tool_call` record: its payload key, the arguments, the
// result, the call id and the start and end times (`msOf` of the kept strings).
function sameCall(
  start: AgentEventOf<'tool.start'> | undefined,
  end: AgentEventOf<'tool.end'> | undefined,
  t: JsonObject,
): boolean {
  const tc0 = t.tool_call;
  if (!isJsonObject(tc0)) return false;
  const key = toolKeyOf(tc0);
  if (key === undefined) return false;
  const p0 = tc0[key] as JsonObject;
  if (t.call_id !== (end?.call ?? start?.call)) return false;
  if (start?.args !== undefined && !sameAsKept(start.args, p0.args) && !keepsOwnArgs(start, end, p0))
    return false;
  if (start !== undefined && start.args === undefined && keptArgs(start) !== undefined) return false;
  if (end !== undefined && (end.result === undefined || !sameAsKept(end.result, p0.result))) return false;
  // The kept result says the kept outcome: an edited `ok`/`denied` rebuilds the line.
  if (end !== undefined && !saysOutcome(p0.result, end)) return false;
  // A time the decoder read from the line and the event no longer has was taken out.
  const startedAt = end?.startedAt ?? start?.startedAt;
  if (msOf(tc0.startedAtMs) !== startedAt) return false;
  return end === undefined || msOf(tc0.completedAtMs) === end.endedAt;
}

/**
 * Whether a call's completion is written with the arguments its own kept line repeats (`p0`, its
 * payload) rather than the start's: while the start still says what its own line said (not
 * edited), the completion's copy is the line's own, keys the start never had included (a key no
 * reader knows). An edited start's arguments go on every line of the call.
 */
function keepsOwnArgs(
  start: AgentEventOf<'tool.start'>,
  end: AgentEventOf<'tool.end'> | undefined,
  p0: JsonObject,
): boolean {
  if (end === undefined || !isJsonObject(p0.args)) return false;
  const kept = keptArgs(start);
  // \`sameJson\`, not \`sameAsKept\`: this says which of the call's own copies the completion
  // writes, not whether a line may be written as kept, and \`sameAsKept\` refuses a \`null\` (a
  // JSON copy's stand-in for a lost number), which took a start with a \`null\` argument for an
  // edited one. The kept object itself (not a copy) is still an edit.
  return kept !== undefined && start.args !== kept && sameJson(start.args, kept);
}

/**
 * The arguments a call's start read from its own kept line (an object, as the decoder reads
 * them). When the start has none now, they were deleted, and no line of the call may keep them.
 */
function keptArgs(start: AgentEventOf<'tool.start'>): JsonObject | undefined {
  const tc = template(ownHints(start))?.tool_call;
  if (!isJsonObject(tc)) return undefined;
  const key = toolKeyOf(tc);
  const p = key !== undefined ? tc[key] : undefined;
  return isJsonObject(p) && isJsonObject(p.args) ? p.args : undefined;
}

// A string field of a kept record said as the event has it: the same string, or (the event has
// none) no string there, as the decoder reads it.
function sameText(kept: unknown, value: string | undefined): boolean {
  return value === undefined ? typeof kept !== 'string' : kept === value;
}

// Puts an event's string field back into a record rebuilt from a kept one: a field the event no
// longer has (deleted) is taken out, where the kept record has it as the decoder reads it.
function putText(r: JsonObject, key: string, value: string | undefined): void {
  if (value !== undefined) r[key] = value;
  else if (typeof r[key] === 'string') delete r[key];
}

/** A result spelled as one of Cursor's outcome wrappers (`success`, `error`, `failure`, `rejected`). */
function isCursorWrapper(r: unknown): r is JsonObject {
  return isJsonObject(r) && ('success' in r || 'error' in r || 'failure' in r || 'rejected' in r);
}

/**
 * Whether the decoder reads the call's `ok` and `denied` back from `r` as the event has them:
 * `ok` when `r.success` is an object, `denied` when it is not and `r.rejected` is there.
 */
function saysOutcome(r: unknown, end: AgentEventOf<'tool.end'>): boolean {
  const ok = isJsonObject(r) && isJsonObject(r.success);
  const denied = !ok && isJsonObject(r) && r.rejected !== undefined;
  return ok === end.ok && denied === (end.denied === true);
}

function textMessage(role: string, text: string, t: JsonObject | undefined): JsonObject {
  const tm = t !== undefined && isJsonObject(t.message) ? t.message : undefined;
  if (
    tm !== undefined &&
    Array.isArray(tm.content) &&
    tm.content.length === 1 &&
    isJsonObject(tm.content[0])
  ) {
    return { ...tm, content: [{ ...tm.content[0], text }] };
  }
  if (tm !== undefined && typeof tm.content === 'string') return { ...tm, content: text };
  return { role, content: [{ type: 'text', text }] };
}

/**
 * The Cursor writer: canonical events → `cursor-agent --output-format stream-json` lines
 * (`JSON.stringify` of each record, in Cursor's key order). A line the decoder read is rebuilt
 * from its kept record with the event's fields put back (the tool payload key, `startedAtMs` as a
 * string) and written as it came while it says the same (`rawIfSame`). Events from another
 * format get Cursor's shapes: reasoning deltas are closed by a `thinking/completed`, a call's
 * payload key comes from its name (`shell` → `shellToolCall`) or kind, `run.end` is a `result`
 * whose `result` is the run's text.
 */
export class CursorEncoder implements Encoder {
  private readonly loss: LossReporter;
  private readonly idSource: () => string;
  private session: string | undefined;
  private readonly starts = new Map<string, AgentEventOf<'tool.start'>>();
  private thinking: AgentEvent | undefined;
  // The run's text, for the `result` of a run end without an answer; undefined once it went past
  // CURSOR_MAX_HELD_TEXT (not held any more: see `result`).
  private runText: string | undefined = '';
  // The sum of the run's round.end usage: the run total of a source that has none of its own.
  private roundUsage: Usage | undefined;
  private counter = 0;
  // Another format's runs: Cursor says one was cut off only where the stream ends.
  private readonly span = newRunSpan();

  /** Creates a writer reporting losses to `sink`. */
  constructor(options: CursorEncodeOptions, sink: DiagnosticSink) {
    this.loss = new LossReporter(FORMAT, sink);
    this.idSource = options.idSource ?? (() => String(++this.counter).padStart(8, '0'));
  }

  write(event: AgentEvent): string {
    // Refused before anything is written or kept of it: a call's start kept, its end (which
    // repeats the arguments) would be refused too, and text closed before it would be lost; a
    // call's end refused only in its line would take the thinking it closes down.
    assertArgsWritable(event, FORMAT);
    assertEndWritable(event, FORMAT);
    this.assertWritable(event);
    spanBefore(this.span, this.loss.state, event, FORMAT);
    const text = this.writeEvent(event);
    spanAfter(this.span, this.loss.state, event, text, FORMAT);
    return text;
  }

  /**
   * Refuses (as the write would, naming the same field) a call's time or a run's total JSON
   * cannot hold, a run's duration so (the write would make it `null`), a time its line is stamped
   * with that is no finite number, and a round's usage that would make its run's total so, before
   * the thinking held is closed, a loss is said, a session id taken or the round's usage counted:
   * a refused event leaves the writer as if it had never been given (test/fuzz/refusal.test.ts).
   * A time or total the line would not write (a kept line's own, a derived event's) is not
   * refused. A field the line writes as it is that holds no string (or no number), a BigInt
   * among them, which `JSON.stringify` throws for, is refused here too (its session, which is
   * kept for later lines, for every type), not in the line (round thirty-seven).
   */
  private assertWritable(event: AgentEvent): void {
    if (event.provenance?.format === FORMAT && event.provenance.synthetic) return;
    // Written as the line's `timestamp_ms` as it is (`null` for NaN, a string as a string).
    // (The type's lookup only for a time that fails: most events have a finite one.)
    if (!Number.isFinite(event.ts ?? 0) && STAMPED.has(event.type)) assertTimeWritable(event, FORMAT);
    // The session is kept from any event (`writeEvent`) and written as the `session_id` of its
    // line and of every later line without one: a BigInt there threw in `JSON.stringify` after
    // the open thinking was closed, or at a later event's write.
    assertText(event.session, event, 'session', FORMAT);
    switch (event.type) {
      // The fields written as they are into the event's line (`JSON.stringify`, where a BigInt
      // throws): checked here, as the open thinking is closed before the line is made.
      case 'session.start':
        assertText(event.cwd, event, 'cwd', FORMAT);
        assertText(event.model, event, 'model', FORMAT);
        assertText(event.mode, event, 'mode', FORMAT);
        return;
      case 'run.start':
        assertText(event.input, event, 'input', FORMAT);
        return;
      case 'user.message':
        requireText(event.text, event, 'text', FORMAT);
        return;
      // A text field read as text that holds no string (a caller building events by hand from
      // JSON may send one) would throw a TypeError mid-write (round thirty-five).
      // (A delta's text is required: missing, it is refused too.)
      case 'text.delta':
        // Its message id, the line's `model_call_id`.
        assertText(event.message, event, 'message', FORMAT);
        requireText(event.text, event, 'text', FORMAT);
        return;
      case 'reasoning.delta':
        requireText(event.text, event, 'text', FORMAT);
        return;
      case 'round.end':
        // Summed into the run's `result.usage` (`result`), where it would be refused.
        if (event.usage !== undefined) assertUsageFigures(event.usage, 'round.end.usage', FORMAT);
        return;
      case 'tool.start':
      case 'tool.end': {
        // The call's id is the line's `call_id`; its name and kind pick the payload's key.
        requireText(event.call, event, 'call', FORMAT);
        assertText(event.name, event, 'name', FORMAT);
        if (event.type === 'tool.end') {
          // The result's text, written into the call's line after the stream's open thinking
          // is closed: refused first.
          assertText(event.text, event, 'text', FORMAT);
          // The result's `exitCode`, as it is: a BigInt threw in `JSON.stringify` (a number
          // it cannot hold is the rule of the kept lines, which keep theirs).
          const exit = event.exitCode;
          if (exit !== undefined && typeof exit !== 'number')
            assertFiniteNumber(exit, 'tool.end.exitCode', FORMAT);
        } else {
          assertText(event.kind, event, 'kind', FORMAT);
          // The arguments of a call that has none (`{command}`).
          assertText(event.command, event, 'command', FORMAT);
        }
        const tc0 = template(ownHints(event))?.tool_call;
        const kept = isJsonObject(tc0) ? tc0 : undefined;
        const start = event.type === 'tool.end' ? this.starts.get(event.call) : event;
        // The times `toolCall` writes (as strings of whole milliseconds), in its order.
        const startedAt =
          (event.type === 'tool.end' ? event.startedAt : undefined) ??
          start?.startedAt ??
          (kept === undefined || msOf(kept.startedAtMs) !== undefined ? event.ts : undefined);
        if (startedAt !== undefined) assertFiniteNumber(startedAt, 'tool.start.ts', FORMAT);
        if (event.type !== 'tool.end') return;
        const endedAt =
          event.endedAt ??
          (kept === undefined || msOf(kept.completedAtMs) !== undefined ? event.ts : undefined);
        if (endedAt !== undefined) assertFiniteNumber(endedAt, 'tool.end.ts', FORMAT);
        return;
      }
      case 'run.end': {
        if (event.provenance?.format !== FORMAT && event.status === 'incomplete') return;
        // The result's `subtype` and `result` text.
        assertText(event.reason, event, 'reason', FORMAT);
        assertText(event.answer, event, 'answer', FORMAT);
        assertText(event.error, event, 'error', FORMAT);
        // Written as `duration_ms` (JSON.stringify would make a NaN of it `null`).
        if (event.durationMs !== undefined)
          assertFiniteNumber(event.durationMs, 'run.end.durationMs', FORMAT);
        // A line of its own rebuilt from its record writes the event's total; any other, the
        // run's rounds' sum when it has none.
        const usage =
          template(ownHints(event)) !== undefined ? event.usage : (event.usage ?? this.roundUsage);
        if (usage !== undefined) assertUsageFigures(usage, 'run.end.usage', FORMAT);
        return;
      }
    }
  }

  private writeEvent(event: AgentEvent): string {
    const hints = ownHints(event);
    const own = event.provenance?.format === FORMAT;
    if (own && event.provenance?.synthetic) return '';
    if (event.session !== undefined) this.session ??= event.session;
    let out = '';
    if (this.thinking !== undefined && event.type !== 'reasoning.delta') out += this.closeThinking();
    const carried = CARRIED[event.type];
    if (carried === undefined) {
      // A round has no record, but its usage counts towards the run's `result.usage`.
      if (event.type === 'round.end' && event.usage !== undefined)
        this.roundUsage = addUsage(this.roundUsage ?? {}, event.usage);
      this.loss.report(event, event.type, 'Cursor has no record for this event');
      return out;
    }
    if (!own) checkCarried(this.loss, event, carried, CARRIED_TOOL_START_ARGS);
    if (own) {
      const start = event.type === 'tool.end' ? this.starts.get(event.call) : undefined;
      const kept = this.kept(event, hints, start);
      if (kept !== undefined) {
        this.keptState(event);
        return out + kept;
      }
    }
    const t = template(hints);
    switch (event.type) {
      case 'session.start':
        return out + this.line(this.init(event, t), hints);
      case 'run.start':
        this.runText = '';
        this.roundUsage = undefined;
        if (!own && event.input === undefined) return out;
        return out + this.line(this.user(event, event.input ?? '', t), hints);
      case 'user.message':
        return out + this.line(this.user(event, event.text, t), hints);
      case 'reasoning.delta': {
        // A `thinking/completed` line reads as an empty delta: given text, it is a delta again.
        const completed = own ? t?.subtype === 'completed' && event.text === '' : false;
        if (!own && event.text === '') return out;
        this.thinking = completed ? undefined : own ? undefined : event;
        return out + this.line(this.thought(event, completed, t), hints);
      }
      case 'text.delta':
        this.holdRunText(event.text);
        return out + this.line(this.assistant(event, event.text, t), hints);
      case 'message.end': {
        const text = t !== undefined ? this.snapshotText(t) : undefined;
        if (text === undefined) return out;
        return out + this.line(this.assistant(event, text, t), hints);
      }
      case 'message.start':
        return out;
      case 'tool.start':
        this.starts.set(event.call, event);
        return out + this.line(this.toolCall(event, undefined, t), hints);
      case 'tool.end': {
        const start = this.starts.get(event.call);
        this.starts.delete(event.call);
        return out + this.line(this.toolCall(start, event, t), hints);
      }
      case 'run.end':
        if (!own && event.status === 'incomplete') return out;
        return out + this.line(this.result(event, t), hints);
      case 'notice':
        if (!own) {
          this.loss.report(event, 'notice', 'Cursor has no record for a notice from another format');
          return out;
        }
        // The kind is the record's type: a notice of another kind is not its line any more.
        return out + this.line(this.notice(event, t?.type === event.kind ? t : undefined), hints);
      case 'unknown':
        return writesOwnRecord(this.loss, event, own, 'Cursor line')
          ? out + this.line(event.record, hints)
          : out;
      default:
        return out;
    }
  }

  end(): string {
    return this.thinking !== undefined ? this.closeThinking() : '';
  }

  // What `write` remembers of an event it writes as its kept line (as the general path does).
  private keptState(event: AgentEvent): void {
    switch (event.type) {
      case 'run.start':
      case 'run.end':
        this.runText = '';
        this.roundUsage = undefined;
        break;
      case 'reasoning.delta':
        this.thinking = undefined;
        break;
      case 'text.delta':
        this.holdRunText(event.text);
        break;
      case 'tool.start':
        this.starts.set(event.call, event);
        break;
      case 'tool.end':
        this.starts.delete(event.call);
        break;
    }
  }

  /**
   * The run's text, held for the `result` of a run end without an answer, up to the cap. Each
   * delta as a string of its own: one a decoder sliced out of its chunk keeps the chunk alive
   * (src/bounded.ts), and a run's text held to the cap pinned every chunk its deltas came from.
   */
  private holdRunText(text: string): void {
    if (this.runText === undefined) return;
    this.runText =
      this.runText.length + text.length <= CURSOR_MAX_HELD_TEXT ? this.runText + ownString(text) : undefined;
  }

  private sessionId(): string {
    this.session ??= this.idSource();
    return this.session;
  }

  private closeThinking(): string {
    const last = this.thinking!;
    this.thinking = undefined;
    return this.line(this.thought(last, true, undefined), undefined);
  }

  private snapshotText(t: JsonObject): string | undefined {
    const m = t.message;
    if (!isJsonObject(m)) return undefined;
    if (typeof m.content === 'string') return m.content;
    if (!Array.isArray(m.content)) return undefined;
    let text = '';
    for (const b of m.content) if (isJsonObject(b) && typeof b.text === 'string') text += b.text;
    return text;
  }

  /**
   * A record of `type` from the template, or `{type, subtype?}`, with the envelope put back. A
   * kept session the event no longer has (deleted) is taken out; the init line's is made anew
   * (a reader knows Cursor's stream by the init line's session).
   */
  private envelope(type: string, event: AgentEvent, t: JsonObject | undefined, subtype?: string): JsonObject {
    const r: JsonObject = t !== undefined ? { ...t } : { type };
    if (t === undefined && subtype !== undefined) r.subtype = subtype;
    if (event.session !== undefined) {
      if (t === undefined || 'session_id' in t) r.session_id = event.session;
    } else if (t !== undefined && typeof t.session_id === 'string') {
      if (type === 'system') r.session_id = this.sessionId();
      else delete r.session_id;
    }
    return r;
  }

  private stampTs(r: JsonObject, event: AgentEvent, t: JsonObject | undefined): void {
    if (event.ts !== undefined) r.timestamp_ms = event.ts;
    else if (t !== undefined) delete r.timestamp_ms;
  }

  private init(event: AgentEventOf<'session.start'>, t: JsonObject | undefined): JsonObject {
    if (t !== undefined) {
      const r = this.envelope('system', event, t);
      putText(r, 'cwd', event.cwd);
      putText(r, 'model', event.model);
      putText(r, 'permissionMode', event.mode);
      return r;
    }
    const r: JsonObject = { type: 'system', subtype: 'init' };
    if (event.cwd !== undefined) r.cwd = event.cwd;
    r.session_id = event.session ?? this.sessionId();
    if (event.model !== undefined) r.model = event.model;
    if (event.mode !== undefined) r.permissionMode = event.mode;
    return r;
  }

  /** A notice's record: its kind is the type, its message the subtype. */
  private notice(event: AgentEventOf<'notice'>, t: JsonObject | undefined): JsonObject {
    const r = this.envelope(event.kind, event, t);
    if (t !== undefined) {
      putText(r, 'subtype', event.message);
      // A time taken out of the event leaves the line too (a kept time that is not a number was
      // read as none: left as it is).
      if (event.ts !== undefined) r.timestamp_ms = event.ts;
      else if (typeof r.timestamp_ms === 'number') delete r.timestamp_ms;
    }
    return r;
  }

  private user(event: AgentEvent, text: string, t: JsonObject | undefined): JsonObject {
    if (t !== undefined) {
      const r = this.envelope('user', event, t);
      r.message = textMessage('user', text, t);
      return r;
    }
    return {
      type: 'user',
      message: textMessage('user', text, undefined),
      session_id: event.session ?? this.sessionId(),
    };
  }

  private thought(event: AgentEvent, completed: boolean, t: JsonObject | undefined): JsonObject {
    if (t !== undefined) {
      const r = this.envelope('thinking', event, t);
      if (!completed && event.type === 'reasoning.delta') r.text = event.text;
      this.stampTs(r, event, t);
      return r;
    }
    const r: JsonObject = { type: 'thinking', subtype: completed ? 'completed' : 'delta' };
    if (!completed && event.type === 'reasoning.delta') r.text = event.text;
    r.session_id = event.session ?? this.sessionId();
    if (event.ts !== undefined) r.timestamp_ms = event.ts;
    return r;
  }

  private assistant(event: AgentEvent, text: string, t: JsonObject | undefined): JsonObject {
    const message = event.type === 'text.delta' || event.type === 'message.end' ? event.message : undefined;
    if (t !== undefined) {
      const r = this.envelope('assistant', event, t);
      r.message = textMessage('assistant', text, t);
      putText(r, 'model_call_id', message);
      this.stampTs(r, event, t);
      return r;
    }
    const r: JsonObject = {
      type: 'assistant',
      message: textMessage('assistant', text, undefined),
      session_id: event.session ?? this.sessionId(),
    };
    if (message !== undefined) r.model_call_id = message;
    if (event.ts !== undefined) r.timestamp_ms = event.ts;
    return r;
  }

  /** The payload key of a call: the template's, else from its name or kind. */
  private keyOf(
    start: AgentEventOf<'tool.start'> | undefined,
    end: AgentEventOf<'tool.end'> | undefined,
  ): string {
    const name = start?.name ?? end?.name ?? 'unknown';
    const named = `${name}${CURSOR_TOOL_KEY_SUFFIX}`;
    if (Object.hasOwn(CURSOR_TOOL_KINDS, named)) return named;
    const kind = start?.kind;
    if (kind !== undefined) {
      const key = Object.hasOwn(CURSOR_KEY_FOR_KIND, kind) ? CURSOR_KEY_FOR_KIND[kind] : undefined;
      if (key !== undefined) return key;
    }
    return named;
  }

  private toolCall(
    start: AgentEventOf<'tool.start'> | undefined,
    end: AgentEventOf<'tool.end'> | undefined,
    t: JsonObject | undefined,
  ): JsonObject {
    const event: AgentEvent = end ?? start!;
    const call = end?.call ?? start!.call;
    const tc0 = t !== undefined && isJsonObject(t.tool_call) ? t.tool_call : undefined;
    const key = (tc0 !== undefined ? toolKeyOf(tc0) : undefined) ?? this.keyOf(start, end);
    const p0 = tc0 !== undefined && isJsonObject(tc0[key]) ? (tc0[key] as JsonObject) : undefined;
    const payload: JsonObject = p0 !== undefined ? { ...p0 } : {};
    const args = start?.args;
    if (args !== undefined) {
      if (t === undefined) assertEncodable(args, 'tool.start.args', undefined, FORMAT);
      if (p0 === undefined || !keepsOwnArgs(start!, end, p0)) payload.args = args;
    } else if (p0 === undefined || (start !== undefined && keptArgs(start) !== undefined))
      // (Deleted from the start: the kept line's arguments go, as anew.)
      payload.args = start?.command !== undefined ? { command: start.command } : {};
    if (end !== undefined) payload.result = this.toolResult(end, key, p0);
    const tool: JsonObject = tc0 !== undefined ? { ...tc0 } : {};
    tool[key] = payload;
    if (tc0 === undefined) tool.toolCallId = call;
    else if (
      typeof tc0.toolCallId === 'string' &&
      tc0.toolCallId !== call &&
      (tc0.toolCallId === t!.call_id || typeof t!.call_id !== 'string')
    )
      // The kept copy of the call id (or the id itself) follows the event's: an id edited or
      // deleted leaves no old copy.
      putText(tool, 'toolCallId', call);
    // A kept time the event no longer has (the decoder read it) was taken out: the event's
    // time is written, as anew, or none.
    const startedAt =
      end?.startedAt ??
      start?.startedAt ??
      (tc0 === undefined || msOf(tc0.startedAtMs) !== undefined ? event.ts : undefined);
    // Cursor spells these times as strings of whole milliseconds: `String(NaN)` would be "NaN".
    if (startedAt !== undefined && msOf(tc0?.startedAtMs) !== startedAt)
      tool.startedAtMs = msText(startedAt, 'tool.start.ts');
    else if (startedAt === undefined && msOf(tc0?.startedAtMs) !== undefined) delete tool.startedAtMs;
    if (end !== undefined) {
      const endedAt =
        end.endedAt ?? (tc0 === undefined || msOf(tc0.completedAtMs) !== undefined ? end.ts : undefined);
      if (endedAt !== undefined && msOf(tc0?.completedAtMs) !== endedAt)
        tool.completedAtMs = msText(endedAt, 'tool.end.ts');
      else if (endedAt === undefined && msOf(tc0?.completedAtMs) !== undefined) delete tool.completedAtMs;
    }
    if (t !== undefined) {
      const r = this.envelope('tool_call', event, t);
      r.call_id = call;
      r.tool_call = tool;
      this.stampTs(r, event, t);
      return r;
    }
    const r: JsonObject = {
      type: 'tool_call',
      subtype: end !== undefined ? 'completed' : 'started',
      call_id: call,
    };
    r.tool_call = tool;
    r.session_id = event.session ?? this.sessionId();
    if (event.ts !== undefined) r.timestamp_ms = event.ts;
    return r;
  }

  private toolResult(end: AgentEventOf<'tool.end'>, key: string, p0: JsonObject | undefined): unknown {
    const r = end.result;
    // The decoder reads `ok` and `denied` from this slot, so a result is written as it is only when
    // it says what the event says (a read line's own result always does): another format's result
    // of `{error: …}` on a call that succeeded is data, not Cursor's failure wrapper.
    let nested = false;
    if (r !== undefined && (p0 !== undefined || isJsonObject(r))) {
      if (saysOutcome(r, end)) {
        if (p0 !== undefined || isCursorWrapper(r)) return r;
      } else nested = isCursorWrapper(r) || p0 !== undefined;
    }
    // Otherwise the wrapper comes from `ok` / `denied`; a result that disagreed with them goes
    // inside it, under `result` (read back as part of the call's result, like any foreign result).
    if (end.denied) {
      const rejected: JsonObject = { reason: typeof end.error === 'string' ? end.error : (end.text ?? '') };
      if (nested) rejected.result = r!;
      return { rejected };
    }
    if (end.ok) {
      const success: JsonObject = {};
      if (key === 'shellToolCall') {
        if (end.exitCode !== undefined) success.exitCode = end.exitCode;
        success.stdout = end.text ?? '';
      } else if (end.text !== undefined) success.message = end.text;
      else if (r !== undefined) success.result = r;
      if (nested) success.result = r!;
      return { success };
    }
    const error = end.error ?? end.text ?? 'failed';
    // Text of a value JSON can hold: a BigInt or a cycle is refused, not a TypeError.
    const failure: JsonObject = {
      errorMessage: typeof error === 'string' ? error : encodeJson(error, 'tool.end.error', FORMAT),
    };
    if (end.exitCode !== undefined) failure.exitCode = end.exitCode;
    if (nested) failure.result = r!;
    return { error: failure };
  }

  private result(event: AgentEventOf<'run.end'>, t: JsonObject | undefined): JsonObject {
    const failed = event.status === 'failed';
    const text = failed ? (event.error ?? event.answer) : (event.answer ?? this.runText ?? '');
    if (!failed && event.answer === undefined && this.runText === undefined)
      this.loss.report(
        event,
        'run.end.answer',
        `Cursor's result repeats the run's text; past ${CURSOR_MAX_HELD_TEXT} characters it is not held, and the result is empty`,
      );
    this.runText = '';
    const rounds = this.roundUsage;
    this.roundUsage = undefined;
    if (t !== undefined) {
      const r = this.envelope('result', event, t);
      // A result needs its subtype and text: deleted ones are made as anew.
      if (event.reason !== undefined) r.subtype = event.reason;
      else if (typeof t.subtype === 'string') r.subtype = failed ? 'error' : 'success';
      // A result needs its duration: one taken out is written as anew (0), not as kept.
      if (event.durationMs !== undefined) r.duration_ms = event.durationMs;
      else if (typeof t.duration_ms === 'number') r.duration_ms = 0;
      r.is_error = failed;
      if (text !== undefined) r.result = text;
      else if (typeof t.result === 'string') r.result = '';
      if (event.usage !== undefined) {
        assertUsageFigures(event.usage, 'run.end.usage', FORMAT);
        r.usage = { ...(isJsonObject(t.usage) ? t.usage : {}), ...usageToWire(event.usage) };
      } else if (usageFromWire(t.usage) !== undefined) delete r.usage;
      return r;
    }
    if (event.status === 'cancelled')
      this.loss.report(event, 'run.end.status', 'Cursor has no cancelled result');
    const r: JsonObject = {
      type: 'result',
      subtype: event.reason ?? (failed ? 'error' : 'success'),
      duration_ms: event.durationMs ?? 0,
      duration_api_ms: event.durationMs ?? 0,
      is_error: failed,
      result: text ?? '',
      session_id: event.session ?? this.sessionId(),
    };
    // The run's total, else the sum of its rounds (a source with usage per round only).
    const usage = event.usage ?? rounds;
    if (usage !== undefined) r.usage = this.usageWire(event, usage);
    return r;
  }

  /** `result.usage` of another format's total; what Cursor has no field for is a loss. */
  private usageWire(event: AgentEvent, usage: Usage): JsonObject {
    // JSON.stringify would write a NaN count as null: refused, as every writer refuses it.
    assertUsageFigures(usage, 'run.end.usage', FORMAT);
    if (usage.costUsd !== undefined)
      this.loss.report(event, 'usage.costUsd', 'Cursor reports tokens only, never a cost');
    if (usage.reasoning !== undefined)
      this.loss.report(event, 'usage.reasoning', 'Cursor has no reasoning count (it stays in outputTokens)');
    // Cursor writes all four counts (every capture has them): one the source did not know is
    // written 0, which reads back as a count of zero.
    for (const key of WIRE_COUNTS)
      if (usage[key] === undefined)
        this.loss.report(
          event,
          `usage.${key}`,
          `Cursor's usage has every count: an unknown ${key} is written 0`,
        );
    return usageToWire(usage);
  }

  /**
   * Fast path: the kept line, when the event still says what its kept record says
   * (`keptRecord`, src/kept.ts). test/cursor/fast-path.test.ts holds it equal to the general path
   * (`line`); docs/performance.md ("Kept lines") has the why.
   */
  private kept(
    event: AgentEvent,
    hints: CursorHints | undefined,
    start?: AgentEventOf<'tool.start'>,
  ): string | undefined {
    if (!cursorFastPath.enabled) return undefined;
    const t = keptRecord(hints);
    if (t === undefined || !this.sameFields(event, t, start) || !isStableJson(t)) return undefined;
    return `${(hints as CursorHints).raw}\n`;
  }

  // For each event type: every field the general path puts back holds the kept value.
  private sameFields(
    event: AgentEvent,
    t: JsonObject,
    start: AgentEventOf<'tool.start'> | undefined,
  ): boolean {
    switch (event.type) {
      case 'session.start':
        return (
          sameEnvelope(event, t, false) &&
          sameText(t.cwd, event.cwd) &&
          sameText(t.model, event.model) &&
          sameText(t.permissionMode, event.mode)
        );
      case 'run.start':
        return sameEnvelope(event, t, false) && sameMessage(event.input ?? '', t);
      case 'user.message':
        return sameEnvelope(event, t, false) && sameMessage(event.text, t);
      case 'reasoning.delta':
        return (
          sameEnvelope(event, t, true) &&
          (t.subtype === 'completed' ? event.text === '' : t.text === event.text)
        );
      case 'text.delta':
        return (
          sameEnvelope(event, t, true) &&
          sameMessage(event.text, t) &&
          sameText(t.model_call_id, event.message)
        );
      case 'tool.start':
        return sameEnvelope(event, t, true) && sameCall(event, undefined, t);
      case 'tool.end':
        return sameEnvelope(event, t, true) && sameCall(start, event, t);
      case 'run.end': {
        const failed = event.status === 'failed';
        const text = failed ? (event.error ?? event.answer) : (event.answer ?? this.runText ?? '');
        if (!sameEnvelope(event, t, false) || t.is_error !== failed) return false;
        if (!sameText(t.subtype, event.reason) || !sameText(t.result, text)) return false;
        // A duration or usage the decoder read and the event no longer has was taken out.
        if (
          event.durationMs === undefined
            ? typeof t.duration_ms === 'number'
            : t.duration_ms !== event.durationMs
        )
          return false;
        if (event.usage === undefined) return usageFromWire(t.usage) === undefined;
        const usage = t.usage;
        if (!isJsonObject(usage)) return false;
        const wire = usageToWire(event.usage);
        for (const key in wire) if (usage[key] !== wire[key]) return false;
        return true;
      }
      case 'notice':
        // The notice's kind is its record's type (`connection`, …), its message the subtype.
        return (
          sameEnvelope(event, t, false) &&
          (event.ts !== undefined ? t.timestamp_ms === event.ts : typeof t.timestamp_ms !== 'number') &&
          t.type === event.kind &&
          sameText(t.subtype, event.message)
        );
      default:
        return false;
    }
  }

  /** One line: the record as JSON, or the line as read when it says the same. */
  private line(record: unknown, hints: CursorHints | undefined): string {
    let text: string;
    try {
      text = JSON.stringify(record);
    } catch (error) {
      assertEncodable(record, 'record', undefined, FORMAT);
      throw unencodable(`record: ${error instanceof Error ? error.message : String(error)}`, FORMAT);
    }
    return `${hints === undefined ? text : rawIfSame(hints.raw, text)}\n`;
  }
}
