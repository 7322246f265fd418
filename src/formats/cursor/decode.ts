import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type DiagnosticSink, diagnosticAt } from '../../diagnostics';
import { str } from '../../guards';
import {
  isJsonObject,
  type JsonObject,
  mayHoldUnsafeNumber,
  NOT_PARSED,
  parseRecordText,
  refuseDeepValue,
  resolveMaxDepth,
  unsafeNumberMessage,
} from '../../json';
import { copyJson } from '../../kept';
import type { AgentEvent, AgentEventOf, Provenance } from '../../model';
import { incompleteRunEnd } from '../../record';
import {
  type CursorHints,
  isCursorRecordType,
  msOf,
  toolKeyOf,
  toolKindOf,
  toolNameOf,
  usageFromWire,
} from './wire';

/** Options of the Cursor decoder (`maxLineBytes` defaults to 16 MiB here). */
export interface CursorDecodeOptions extends DecodeOptions {}

const FORMAT = 'cursor' as const;

/**
 * Test hook: `enabled: false` sends every line through the general path, so that
 * test/cursor/decode-shortcut.test.ts can hold the decoder's shortcut equal to it.
 */
export const cursorDecodeShortcut: { enabled: boolean } = { enabled: true };

/** One line's facts, shared by the events it yields. */
interface LineContext {
  record: JsonObject;
  line: number;
  offset: number;
  provenance: Provenance;
}

/** The text blocks of a `message.content` (an array of `{type:"text",text}`, or a string). */
function contentText(message: unknown): string | undefined {
  if (!isJsonObject(message)) return undefined;
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const block of content) {
    if (isJsonObject(block) && block.type === 'text' && typeof block.text === 'string') text += block.text;
  }
  return text;
}

/**
 * The Cursor record decoder: one `cursor-agent -p --output-format stream-json` line → canonical
 * events. `system/init` → `session.start`; the `user` prompt echo → `run.start` (`user.message`
 * inside a run); `thinking/delta` → `reasoning.delta`, `thinking/completed` → an empty
 * `reasoning.delta` (the block ends); `assistant` → `text.delta`, except the snapshot Cursor
 * repeats after streaming a segment as token deltas (`--stream-partial-output`), which is a
 * `message.end` (its text was already delivered); `tool_call/started` → `tool.start` and
 * `/completed` → `tool.end` (the payload key is the tool: `shellToolCall` → `shell`, kind
 * `execute`); `result` → `run.end` with its camelCase usage; `connection`/`retry` → `notice`.
 * A stream that ends inside a run ends it `incomplete`.
 *
 * A factory over one state literal and module functions, not a class: a literal's hidden class
 * is held by its allocation site and outlives a full GC, where a class instance's fields (map
 * transitions, held weakly) die with the last decoder and take the optimised code that embedded
 * them along (docs/performance.md, "Cursor decoder, round four").
 */
export function createCursorRecordDecoder(options: CursorDecodeOptions, sink: DiagnosticSink): RecordDecoder {
  const d = newDecoder(options, sink);
  return {
    line: (text, line, offset, out) => readLine(d, text, line, offset, out),
    end: (out) => endStream(d, out),
  };
}

/** The decoder's state between lines, built whole in one object literal ({@link newDecoder}). */
interface Decoder {
  readonly sink: DiagnosticSink;
  readonly maxDepth: number;
  runOpen: boolean;
  session: string | undefined;
  /** Text of the assistant segment being streamed as deltas. */
  segment: string;
  /** The segment a tool call just closed (its replay may land after the call). */
  closed: string;
  // Where the last line was, for the events the stream's end implies (no object per line).
  lastLine: number;
  lastOffset: number;
  lastTs: number | undefined;
}

function newDecoder(options: CursorDecodeOptions, sink: DiagnosticSink): Decoder {
  return {
    sink,
    maxDepth: resolveMaxDepth(options.maxDepth),
    runOpen: false,
    session: undefined,
    segment: '',
    closed: '',
    lastLine: 1,
    lastOffset: 0,
    lastTs: undefined,
  };
}

function readLine(d: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  const value = parseRecordText(text, line, offset, d.maxDepth, FORMAT, d.sink);
  if (value === NOT_PARSED) return;
  if (refuseDeepValue(text, value, line, offset, d.maxDepth, FORMAT, d.sink)) return;
  const hints: CursorHints = { raw: text, record: value };
  const provenance: Provenance = { format: FORMAT, line, offset, hints: hints as Record<string, unknown> };
  if (!isJsonObject(value)) {
    report(d, 'invalid_json', line, offset, 'not a JSON object; kept as an unknown event');
    out.push({ type: 'unknown', record: value, provenance });
    return;
  }
  if (d.runOpen && cursorDecodeShortcut.enabled && shortcut(d, value, provenance, line, offset, out)) return;
  const cx: LineContext = { record: value, line, offset, provenance };
  const session = str(value.session_id);
  if (session !== undefined) d.session = session;
  d.lastLine = line;
  d.lastOffset = offset;
  d.lastTs = typeof value.timestamp_ms === 'number' ? value.timestamp_ms : undefined;
  const type = value.type;
  const problem = isCursorRecordType(type) ? invalid(type, value) : 'unknown';
  if (problem !== undefined) {
    if (problem !== 'unknown')
      report(d, 'invalid_record', line, offset, `invalid ${String(type)} record: ${problem}`);
    else if (mayHoldUnsafeNumber(value)) checkIntegers(d, text, line, offset);
    const e: AgentEventOf<'unknown'> = { type: 'unknown', record: value, provenance };
    if (typeof type === 'string') e.recordType = type;
    stamp(e, cx);
    out.push(e);
    return;
  }
  map(d, type as string, cx, out);
}

/**
 * The shortcut beside the general path, for the records a run is made of (thinking, assistant,
 * shell and other tool calls, with `session_id` and `timestamp_ms`, inside an open run): their
 * events built whole, in the general path's key order, each field read once. One method called
 * for every line, so that it is optimised as soon as `line` is: a method called for a fraction
 * of the lines is optimised late, after every forced full GC again (docs/performance.md,
 * "OpenCode and Cursor decoders"). Whatever it does not take returns false having changed
 * nothing, and takes the general path; test/cursor/decode-shortcut.test.ts holds the two equal.
 */
function shortcut(
  d: Decoder,
  r: JsonObject,
  provenance: Provenance,
  line: number,
  offset: number,
  out: AgentEvent[],
): boolean {
  const session = r.session_id;
  const ts = r.timestamp_ms;
  if (typeof session !== 'string' || typeof ts !== 'number') return false;
  const type = r.type;
  let e: AgentEvent;
  if (type === 'thinking') {
    const subtype = r.subtype;
    let text = '';
    if (subtype === 'delta') {
      const t = r.text;
      if (typeof t === 'string') text = t;
    } else if (subtype !== 'completed') return false;
    e = { type: 'reasoning.delta', text, provenance, session, ts };
  } else if (type === 'assistant') {
    const message = r.message;
    if (!isJsonObject(message)) return false;
    const text = contentText(message) ?? '';
    const id = r.model_call_id;
    if (typeof id !== 'string') {
      // A token delta (timestamp_ms and no model_call_id).
      d.segment += text;
      e = { type: 'text.delta', text, provenance, session, ts };
    } else if (text !== '' && (text === d.segment || text === d.closed)) {
      if (text === d.segment) d.segment = '';
      else d.closed = '';
      e = { type: 'message.end', provenance, message: id, session, ts };
    } else {
      d.segment = '';
      e = { type: 'text.delta', text, provenance, message: id, session, ts };
    }
  } else if (type === 'tool_call') {
    const toolCall = r.tool_call;
    const subtype = r.subtype;
    if (!isJsonObject(toolCall) || (subtype !== 'started' && subtype !== 'completed')) return false;
    const key = toolKeyOf(toolCall);
    if (key === undefined) return false;
    const kind = toolKindOf(key);
    const id = r.call_id;
    const call = typeof id === 'string' ? id : toolCall.toolCallId;
    if (typeof kind !== 'string' || typeof call !== 'string') return false;
    const payload = toolCall[key] as JsonObject;
    const args = payload.args;
    const startedAt = msOf(toolCall.startedAtMs);
    if (!isJsonObject(args) || startedAt === undefined) return false;
    const name = toolNameOf(key);
    if (subtype === 'started') {
      if (d.segment !== '') {
        d.closed = d.segment;
        d.segment = '';
      }
      // Copies: an edit of the event must not edit the kept record (the writer compares them).
      const command = args.command;
      e =
        kind === 'execute' && typeof command === 'string'
          ? {
              type: 'tool.start',
              call,
              name,
              provenance,
              kind,
              args: copyJson(args),
              command,
              startedAt,
              session,
              ts,
            }
          : {
              type: 'tool.start',
              call,
              name,
              provenance,
              kind,
              args: copyJson(args),
              startedAt,
              session,
              ts,
            };
    } else {
      const result = payload.result;
      const success = isJsonObject(result) ? result.success : undefined;
      const endedAt = msOf(toolCall.completedAtMs);
      if (!isJsonObject(success) || endedAt === undefined) return false;
      const text = str(success.stdout) ?? str(success.content) ?? str(success.message);
      const exitCode = success.exitCode;
      // A result without an exit code (a read, a search) takes the general path.
      if (text === undefined || typeof exitCode !== 'number') return false;
      e = {
        type: 'tool.end',
        call,
        name,
        ok: true,
        provenance,
        result: copyJson(result),
        text,
        exitCode,
        startedAt,
        endedAt,
        session,
        ts,
      };
    }
  } else return false;
  d.session = session;
  d.lastLine = line;
  d.lastOffset = offset;
  d.lastTs = ts;
  out.push(e);
  return true;
}

function endStream(d: Decoder, out: AgentEvent[]): void {
  if (!d.runOpen) return;
  d.runOpen = false;
  const e = incompleteRunEnd(FORMAT, d.lastLine, d.lastOffset);
  if (d.session !== undefined) e.session = d.session;
  if (d.lastTs !== undefined) e.ts = d.lastTs;
  out.push(e);
}

function map(d: Decoder, type: string, cx: LineContext, out: AgentEvent[]): void {
  const r = cx.record;
  switch (type) {
    case 'system': {
      const e: AgentEventOf<'session.start'> = { type: 'session.start', provenance: cx.provenance };
      const model = str(r.model);
      if (model !== undefined) e.model = model;
      const cwd = str(r.cwd);
      if (cwd !== undefined) e.cwd = cwd;
      const mode = str(r.permissionMode);
      if (mode !== undefined) e.mode = mode;
      stamp(e, cx);
      out.push(e);
      return;
    }
    case 'user': {
      const text = contentText(r.message) ?? '';
      if (!d.runOpen) {
        d.runOpen = true;
        d.segment = '';
        d.closed = '';
        const e: AgentEventOf<'run.start'> = { type: 'run.start', input: text, provenance: cx.provenance };
        stamp(e, cx);
        out.push(e);
        return;
      }
      const e: AgentEventOf<'user.message'> = { type: 'user.message', text, provenance: cx.provenance };
      stamp(e, cx);
      out.push(e);
      return;
    }
    case 'thinking': {
      openRun(d, cx, out);
      const text = r.subtype === 'delta' && typeof r.text === 'string' ? r.text : '';
      const e: AgentEventOf<'reasoning.delta'> = {
        type: 'reasoning.delta',
        text,
        provenance: cx.provenance,
      };
      stamp(e, cx);
      out.push(e);
      return;
    }
    case 'assistant':
      openRun(d, cx, out);
      assistant(d, cx, out);
      return;
    case 'tool_call':
      openRun(d, cx, out);
      tool(d, cx, out);
      return;
    case 'result': {
      openRun(d, cx, out);
      d.runOpen = false;
      const failed = r.is_error === true;
      const e: AgentEventOf<'run.end'> = {
        type: 'run.end',
        status: failed ? 'failed' : 'completed',
        provenance: cx.provenance,
      };
      const subtype = str(r.subtype);
      if (subtype !== undefined) e.reason = subtype;
      if (typeof r.duration_ms === 'number') e.durationMs = r.duration_ms;
      const answer = str(r.result);
      if (answer !== undefined) {
        if (failed) e.error = answer;
        else e.answer = answer;
      }
      const usage = usageFromWire(r.usage);
      if (usage !== undefined) e.usage = usage;
      stamp(e, cx);
      out.push(e);
      return;
    }
    default: {
      // connection / retry: the CLI lost its connection and resumes (not an error).
      const e: AgentEventOf<'notice'> = { type: 'notice', kind: type, provenance: cx.provenance };
      const subtype = str(r.subtype);
      if (subtype !== undefined) e.message = subtype;
      stamp(e, cx);
      out.push(e);
    }
  }
}

function assistant(d: Decoder, cx: LineContext, out: AgentEvent[]): void {
  const r = cx.record;
  const text = contentText(r.message) ?? '';
  const message = str(r.model_call_id);
  // A token delta carries timestamp_ms and never model_call_id; anything else is a segment whole.
  const delta = 'timestamp_ms' in r && message === undefined;
  if (!delta && text !== '' && (text === d.segment || text === d.closed)) {
    if (text === d.segment) d.segment = '';
    else d.closed = '';
    const e: AgentEventOf<'message.end'> = { type: 'message.end', provenance: cx.provenance };
    if (message !== undefined) e.message = message;
    stamp(e, cx);
    out.push(e);
    return;
  }
  if (delta) d.segment += text;
  else d.segment = '';
  const e: AgentEventOf<'text.delta'> = { type: 'text.delta', text, provenance: cx.provenance };
  if (message !== undefined) e.message = message;
  stamp(e, cx);
  out.push(e);
}

function tool(d: Decoder, cx: LineContext, out: AgentEvent[]): void {
  const r = cx.record;
  const toolCall = r.tool_call as JsonObject;
  const key = toolKeyOf(toolCall)!;
  const payload = toolCall[key] as JsonObject;
  const name = toolNameOf(key);
  const call = str(r.call_id) ?? (toolCall.toolCallId as string);
  const startedAt = msOf(toolCall.startedAtMs);
  const args = isJsonObject(payload.args) ? payload.args : undefined;
  if (r.subtype === 'started') {
    if (d.segment !== '') {
      d.closed = d.segment;
      d.segment = '';
    }
    const e: AgentEventOf<'tool.start'> = { type: 'tool.start', call, name, provenance: cx.provenance };
    const kind = toolKindOf(key);
    if (kind !== undefined) e.kind = kind;
    if (args !== undefined) {
      // Copies: an edit of the event must not edit the kept record (the writer compares them).
      e.args = copyJson(args);
      if (kind === 'execute' && typeof args.command === 'string') e.command = args.command;
    }
    if (startedAt !== undefined) e.startedAt = startedAt;
    stamp(e, cx);
    out.push(e);
    return;
  }
  const e: AgentEventOf<'tool.end'> = {
    type: 'tool.end',
    call,
    name,
    ok: false,
    provenance: cx.provenance,
  };
  const result = payload.result;
  if (result !== undefined) e.result = copyJson(result);
  if (isJsonObject(result)) {
    const success = result.success;
    if (isJsonObject(success)) {
      e.ok = true;
      const text = str(success.stdout) ?? str(success.content) ?? str(success.message);
      if (text !== undefined) e.text = text;
      if (typeof success.exitCode === 'number') e.exitCode = success.exitCode;
    } else {
      // The failure's text is the error (the whole result stays in `result`).
      const failure = result.error ?? result.failure ?? result.rejected;
      if (result.rejected !== undefined) e.denied = true;
      if (isJsonObject(failure)) {
        const text =
          str(failure.errorMessage) ?? str(failure.message) ?? str(failure.stderr) ?? str(failure.reason);
        if (text !== undefined) {
          e.text = text;
          e.error = text;
        } else e.error = failure;
        if (typeof failure.exitCode === 'number') e.exitCode = failure.exitCode;
      } else if (failure !== undefined) e.error = failure;
    }
  }
  if (startedAt !== undefined) e.startedAt = startedAt;
  const endedAt = msOf(toolCall.completedAtMs);
  if (endedAt !== undefined) e.endedAt = endedAt;
  stamp(e, cx);
  out.push(e);
}

function openRun(d: Decoder, cx: LineContext, out: AgentEvent[]): void {
  if (d.runOpen) return;
  d.runOpen = true;
  d.segment = '';
  d.closed = '';
  const e: AgentEventOf<'run.start'> = {
    type: 'run.start',
    provenance: { format: FORMAT, line: cx.line, offset: cx.offset, synthetic: true },
  };
  stamp(e, cx);
  out.push(e);
}

function stamp(e: AgentEvent, cx: LineContext): void {
  const session = cx.record.session_id;
  if (typeof session === 'string') e.session = session;
  const ts = cx.record.timestamp_ms;
  if (typeof ts === 'number') e.ts = ts;
}

function checkIntegers(d: Decoder, text: string, line: number, offset: number): void {
  const message = unsafeNumberMessage(text);
  if (message !== undefined) report(d, 'invalid_record', line, offset, message);
}

function report(
  d: Decoder,
  code: 'invalid_json' | 'invalid_record',
  line: number,
  offset: number,
  what: string,
): void {
  d.sink.report(diagnosticAt(code, 'error', line, offset, what, FORMAT));
}

/** Why a known record cannot be mapped (`unknown` for a subtype Cursor is not known to write). */
function invalid(type: string, r: JsonObject): string | undefined {
  switch (type) {
    case 'system':
      return r.subtype === 'init' ? undefined : 'unknown';
    case 'thinking':
      return r.subtype === 'delta' || r.subtype === 'completed' ? undefined : 'unknown';
    case 'assistant':
    case 'user':
      return isJsonObject(r.message) ? undefined : '"message" is not an object';
    case 'tool_call': {
      if (r.subtype !== 'started' && r.subtype !== 'completed') return 'unknown';
      if (!isJsonObject(r.tool_call)) return '"tool_call" is not an object';
      if (toolKeyOf(r.tool_call) === undefined) return 'tool_call has no tool payload';
      if (typeof r.call_id !== 'string' && typeof r.tool_call.toolCallId !== 'string') return 'no call_id';
      return undefined;
    }
    default:
      return undefined;
  }
}
