import { appendRoundText } from '../../bounds';
import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import { type LineEnds, lineEndAt } from '../../framing/line-ends';
import { isFiniteNumber, str } from '../../guards';
import {
  DEPTH_PRECHECK_CHARS,
  isJsonObject,
  type JsonObject,
  mayHoldUnsafeNumber,
  NOT_PARSED,
  parseRecordText,
  refuseDeepText,
  resolveMaxDepth,
  unsafeNumberMessage,
  valueExceedsDepth,
} from '../../json';
import { copyJson } from '../../kept';
import type { AgentEvent, AgentEventOf, Provenance, RunStatus, Usage } from '../../model';
import {
  readAgain,
  readDigits,
  readFixed,
  readJsonValue,
  readString,
  readStringTo,
  type TextReader,
  textReader,
} from '../../text-reader';
import {
  isOpencodeRecordType,
  OPENCODE_CANONICAL_HEAD,
  OPENCODE_CANONICAL_TEXT,
  OPENCODE_STOP_REASON,
  type OpencodeHints,
  type OpencodeRecordType,
  usageFromWire,
} from './wire';

/** Options of the OpenCode decoder (`maxLineBytes` defaults to 16 MiB here). */
export interface OpencodeDecodeOptions extends DecodeOptions {}

const FORMAT = 'opencode' as const;

/** What the decoder tracks per lane (the main session, or one child session). */
interface Lane {
  /** Round number of the current or last step. */
  round: number;
  /** The current step's assistant text, for `round.end.message`. */
  text: string;
  /** The last step_finish reason seen. */
  lastReason: string | undefined;
}

/** One line's facts, shared by the events it yields. */
interface LineContext {
  record: JsonObject;
  line: number;
  offset: number;
  hints: OpencodeHints;
  /** The lane the record belongs to (absent for the main session). */
  lane: string | undefined;
}

/**
 * The decoder's state between lines, built whole in one object literal ({@link newDecoder}): a
 * literal's hidden class is held by its allocation site and outlives a full GC, where a class
 * instance's fields (map transitions, held weakly) die with the last decoder and take the
 * optimised code that embedded them along (docs/performance.md, "OpenCode and Cursor decoders").
 */
interface Decoder {
  readonly sink: DiagnosticSink;
  readonly report: LineReport;
  readonly maxDepth: number;
  readonly ends: LineEnds | undefined;
  root: string | undefined;
  runOpen: boolean;
  error: string | undefined;
  readonly main: Lane;
  readonly lanes: Map<string, Lane>;
  // Where the last line was, for the events the stream's end implies (no object per line).
  lastLine: number;
  lastOffset: number;
  lastTs: number | undefined;
  /** What the canonical-line reader keeps between lines ({@link KnownIds}). */
  readonly known: KnownIds;
}

function newDecoder(
  options: OpencodeDecodeOptions,
  sink: DiagnosticSink,
  ends: LineEnds | undefined,
): Decoder {
  return {
    sink,
    report: lineReporter(sink, FORMAT),
    maxDepth: resolveMaxDepth(options.maxDepth),
    ends,
    root: undefined,
    runOpen: false,
    error: undefined,
    main: { round: 0, text: '', lastReason: undefined },
    lanes: new Map(),
    lastLine: 1,
    lastOffset: 0,
    lastTs: undefined,
    known: [undefined, undefined],
  };
}

/**
 * Whether the frequent events (text and reasoning, a step's start and end, a finished tool
 * call's start and end) of the main session inside a step are built whole, each in one object
 * literal with every field it has, instead of a literal the general path adds the envelope to
 * afterwards ({@link stamp}). The two give the same events; off, only the general path runs (the
 * property test in test/opencode/whole-events.test.ts holds them equal). Whole literals keep
 * their hidden classes across a full GC (docs/performance.md, "OpenCode and Cursor decoders").
 */
export const OPENCODE_WHOLE_EVENTS: { enabled: boolean } = { enabled: true };

/**
 * The OpenCode record decoder: one `opencode run --format json` line → canonical events.
 * `step_start` → `round.start`; `text` → `text.delta`; `reasoning` → `reasoning.delta`;
 * `tool_use` (a finished call) → `tool.start` + `tool.end`; `step_finish` → `round.end` with the
 * step's usage and cost; `error` → `error`; `done` → `run.end`. The first record opens a run
 * (synthetic `run.start`). Records of another session (`sessionID` or `part.sessionID` other than
 * the run's) belong to a child lane, opened by a synthetic `child.start`. A stream that ends
 * without `done` ends its run as `completed` when its last step stopped (`reason: "stop"`, the
 * older builds' last record), `failed` after an `error`, else `incomplete`. `ends` tells each
 * line's terminator (CRLF kept).
 */
export function createOpencodeRecordDecoder(
  options: OpencodeDecodeOptions,
  sink: DiagnosticSink,
  ends?: LineEnds,
): RecordDecoder {
  // The same two functions for every decoder (not closures per decoder): the splitter's call
  // site sees one target and can inline it.
  const decoder: StatefulDecoder = { d: newDecoder(options, sink, ends), line: lineOf, end: endOf };
  return decoder;
}

/** A record decoder over its state literal. */
interface StatefulDecoder extends RecordDecoder {
  readonly d: Decoder;
}

function lineOf(
  this: StatefulDecoder,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
  bytes?: number,
): void {
  readLine(this.d, text, line, offset, out, bytes);
}

function endOf(this: StatefulDecoder, out: AgentEvent[]): void {
  endStream(this.d, out);
}

function readLine(
  d: Decoder,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
  bytes: number | undefined,
): void {
  // A canonical line's record is within the depth bound (its reader measured what can nest).
  let value: unknown = opencodeCanonicalLines.enabled
    ? readOpencodeCanonicalLine(text, d.maxDepth, d.known)
    : undefined;
  if (value === undefined) {
    value = parseRecordText(text, line, offset, d.maxDepth, FORMAT, d.sink);
    if (value === NOT_PARSED) return;
    if (refuseDeepText(text, line, offset, d.maxDepth, FORMAT, d.sink)) return;
  }
  const eol = d.ends === undefined ? undefined : lineEndAt(d.ends, offset, bytes ?? text.length);
  const hints: OpencodeHints =
    eol !== undefined && eol !== '\n' ? { raw: text, record: value, eol } : { raw: text, record: value };
  if (!isJsonObject(value)) {
    d.report('invalid_json', 'error', line, offset, 'not a JSON object; kept as an unknown event');
    out.push({ type: 'unknown', record: value, provenance: provenanceOf(line, offset, hints) });
    return;
  }
  const sessionID = str(value.sessionID);
  if (d.root === undefined && sessionID !== undefined) d.root = sessionID;
  const part = isJsonObject(value.part) ? value.part : undefined;
  const partSession = str(part?.sessionID);
  const own = partSession ?? sessionID;
  const lane = own !== undefined && d.root !== undefined && own !== d.root ? own : undefined;
  const cx: LineContext = { record: value, line, offset, hints, lane };
  const ts = isFiniteNumber(value.timestamp) ? value.timestamp : undefined;
  d.lastLine = line;
  d.lastOffset = offset;
  d.lastTs = ts;
  const type = value.type;
  if (!isOpencodeRecordType(type)) {
    openRun(d, cx, out);
    if (mayHoldUnsafeNumber(value)) checkIntegers(d, text, line, offset);
    const e: AgentEventOf<'unknown'> = { type: 'unknown', record: value, provenance: prov(cx) };
    if (typeof type === 'string') e.recordType = type;
    stamp(e, cx);
    out.push(e);
    return;
  }
  const problem = invalid(type, part);
  if (problem !== undefined) {
    d.report('invalid_record', 'error', line, offset, `invalid ${type} record: ${problem}`);
    openRun(d, cx, out);
    const e: AgentEventOf<'unknown'> = {
      type: 'unknown',
      recordType: type,
      record: value,
      provenance: prov(cx),
    };
    stamp(e, cx);
    out.push(e);
    return;
  }
  openRun(d, cx, out);
  if (lane !== undefined && !d.lanes.has(lane)) openLane(d, lane, cx, out);
  map(d, type, part, cx, out);
}

function endStream(d: Decoder, out: AgentEvent[]): void {
  for (const [child, lane] of d.lanes) {
    if (lane.round < 0) continue;
    const e: AgentEventOf<'child.end'> = {
      type: 'child.end',
      child,
      status: 'incomplete',
      provenance: { format: FORMAT, line: d.lastLine, offset: d.lastOffset, synthetic: true },
    };
    if (d.root !== undefined) e.session = d.root;
    out.push(e);
  }
  d.lanes.clear();
  if (!d.runOpen) return;
  d.runOpen = false;
  const status: RunStatus =
    d.error !== undefined
      ? 'failed'
      : d.main.lastReason === OPENCODE_STOP_REASON
        ? 'completed'
        : 'incomplete';
  const e: AgentEventOf<'run.end'> = {
    type: 'run.end',
    status,
    provenance: { format: FORMAT, line: d.lastLine, offset: d.lastOffset, synthetic: true },
  };
  if (status === 'completed') e.reason = OPENCODE_STOP_REASON;
  if (d.error !== undefined) e.error = d.error;
  if (d.root !== undefined) e.session = d.root;
  if (d.lastTs !== undefined) e.ts = d.lastTs;
  out.push(e);
}

/**
 * The envelope {@link stamp} would add to an event of this line in `lane`, when it is the
 * frequent one: a session, a timestamp and a round, in the main session. Undefined sends the
 * event through the general path.
 */
function wholeEnvelope(cx: LineContext, lane: Lane): boolean {
  return (
    OPENCODE_WHOLE_EVENTS.enabled &&
    cx.lane === undefined &&
    lane.round > 0 &&
    typeof cx.record.sessionID === 'string' &&
    isFiniteNumber(cx.record.timestamp)
  );
}

function map(
  d: Decoder,
  type: OpencodeRecordType,
  part: JsonObject | undefined,
  cx: LineContext,
  out: AgentEvent[],
): void {
  const lane = laneOf(d, cx);
  switch (type) {
    case 'step_start': {
      lane.round++;
      lane.text = '';
      // A step began: the stream's last step has not stopped (yet).
      lane.lastReason = undefined;
      if (wholeEnvelope(cx, lane)) {
        out.push({
          type: 'round.start',
          provenance: prov(cx),
          session: cx.record.sessionID as string,
          ts: cx.record.timestamp as number,
          round: lane.round,
        });
        return;
      }
      const e: AgentEventOf<'round.start'> = { type: 'round.start', provenance: prov(cx) };
      stamp(e, cx, lane);
      out.push(e);
      return;
    }
    case 'text':
    case 'reasoning': {
      const text = part!.text as string;
      if (type === 'text') lane.text = appendRoundText(lane.text, text, d.report, cx.line, cx.offset);
      const message = str(part!.messageID);
      if (message !== undefined && wholeEnvelope(cx, lane)) {
        const session = cx.record.sessionID as string;
        const ts = cx.record.timestamp as number;
        out.push(
          type === 'text'
            ? { type: 'text.delta', text, provenance: prov(cx), message, session, ts, round: lane.round }
            : {
                type: 'reasoning.delta',
                text,
                provenance: prov(cx),
                message,
                session,
                ts,
                round: lane.round,
              },
        );
        return;
      }
      const e: AgentEventOf<'text.delta'> | AgentEventOf<'reasoning.delta'> = {
        type: type === 'text' ? 'text.delta' : 'reasoning.delta',
        text,
        provenance: prov(cx),
      };
      if (message !== undefined) e.message = message;
      stamp(e, cx, lane);
      out.push(e);
      return;
    }
    case 'tool_use':
      tool(d, part!, cx, lane, out);
      return;
    case 'step_finish': {
      const reason = str(part!.reason);
      const usage = wholeUsage(part!.tokens, part!.cost) ?? usageFromWire(part!.tokens, part!.cost);
      if (reason !== undefined && usage !== undefined && wholeEnvelope(cx, lane)) {
        out.push({
          type: 'round.end',
          message: lane.text,
          provenance: prov(cx),
          stopReason: reason,
          usage,
          session: cx.record.sessionID as string,
          ts: cx.record.timestamp as number,
          round: lane.round,
        });
      } else {
        const e: AgentEventOf<'round.end'> = {
          type: 'round.end',
          message: lane.text,
          provenance: prov(cx),
        };
        if (reason !== undefined) e.stopReason = reason;
        if (usage !== undefined) e.usage = usage;
        stamp(e, cx, lane);
        out.push(e);
      }
      lane.text = '';
      lane.lastReason = reason;
      return;
    }
    case 'error': {
      const error = cx.record.error;
      const message = errorMessage(error);
      const e: AgentEventOf<'error'> = { type: 'error', message, fatal: true, provenance: prov(cx) };
      const name = isJsonObject(error) ? str(error.name) : undefined;
      if (name !== undefined) e.code = name;
      if (error !== undefined) e.data = error;
      stamp(e, cx);
      if (cx.lane === undefined) d.error = d.error === undefined ? message : `${d.error}\n${message}`;
      out.push(e);
      return;
    }
    case 'done': {
      const e: AgentEventOf<'run.end'> = {
        type: 'run.end',
        status: d.error !== undefined ? 'failed' : 'completed',
        provenance: prov(cx),
      };
      const reason = str(cx.record.reason);
      if (reason !== undefined) e.reason = reason;
      if (d.error !== undefined) e.error = d.error;
      stamp(e, cx);
      d.runOpen = false;
      d.error = undefined;
      d.main.lastReason = undefined;
      out.push(e);
      return;
    }
  }
}

/**
 * A step's usage when every count and the cost are given (what OpenCode writes), built whole in
 * one literal: the object {@link usageFromWire} builds field by field, whose transitions die with
 * a full GC. Undefined otherwise (and with the switch off): the general path reads it.
 */
function wholeUsage(tokens: unknown, cost: unknown): Usage | undefined {
  if (!OPENCODE_WHOLE_EVENTS.enabled || !isJsonObject(tokens) || !isJsonObject(tokens.cache))
    return undefined;
  const input = tokens.input;
  const output = tokens.output;
  const reasoning = tokens.reasoning;
  const read = tokens.cache.read;
  const write = tokens.cache.write;
  if (
    typeof input !== 'number' ||
    typeof output !== 'number' ||
    typeof reasoning !== 'number' ||
    typeof read !== 'number' ||
    typeof write !== 'number' ||
    typeof cost !== 'number' ||
    // Any count past a double's range (1e400), or counts summing past it: the general path.
    !Number.isFinite(input + read + write + output + reasoning + cost)
  )
    return undefined;
  return {
    input: input + read + write,
    output: output + reasoning,
    cacheRead: read,
    cacheWrite: write,
    reasoning,
    costUsd: cost,
  };
}

/** The facts of a finished call both its events carry. */
interface Call {
  call: string;
  name: string;
  state: JsonObject;
  startedAt: number | undefined;
  endedAt: number | undefined;
  provenance: Provenance;
}

function tool(d: Decoder, part: JsonObject, cx: LineContext, lane: Lane, out: AgentEvent[]): void {
  const state = part.state as JsonObject;
  const time = isJsonObject(state.time) ? state.time : undefined;
  const c: Call = {
    call: part.callID as string,
    name: part.tool as string,
    state,
    startedAt: time !== undefined && isFiniteNumber(time.start) ? time.start : undefined,
    endedAt: time !== undefined && isFiniteNumber(time.end) ? time.end : undefined,
    provenance: prov(cx),
  };
  const metadata = isJsonObject(state.metadata) ? state.metadata : undefined;
  const ok = state.status === 'completed';
  if (!wholeTool(c, cx, lane, metadata, ok, out)) {
    out.push(toolStart(c, cx, lane), toolEnd(c, cx, lane, metadata, ok));
  }
  // A task tool ran a child session: its lane ends with the call.
  const child = metadata !== undefined ? (str(metadata.sessionId) ?? str(metadata.sessionID)) : undefined;
  const childLane = child !== undefined ? d.lanes.get(child) : undefined;
  if (child !== undefined && childLane !== undefined && childLane.round >= 0) {
    childLane.round = -1;
    const e: AgentEventOf<'child.end'> = {
      type: 'child.end',
      child,
      status: ok ? 'completed' : 'failed',
      provenance: impliedAt(cx),
    };
    if (typeof state.output === 'string') e.result = state.output;
    stamp(e, cx, lane);
    out.push(e);
  }
}

/**
 * A finished call of the main session inside a step, with its arguments, start and end times,
 * and either an output (a completed call, with or without an exit code) or an error: its two
 * events built whole, the general path's fields in its order. False: nothing pushed.
 */
function wholeTool(
  c: Call,
  cx: LineContext,
  lane: Lane,
  metadata: JsonObject | undefined,
  ok: boolean,
  out: AgentEvent[],
): boolean {
  const { state, startedAt, endedAt } = c;
  const input = state.input;
  if (startedAt === undefined || endedAt === undefined || !isJsonObject(input) || !wholeEnvelope(cx, lane))
    return false;
  const output = state.output;
  const error = state.error;
  const exit = metadata !== undefined && isFiniteNumber(metadata.exit) ? metadata.exit : undefined;
  const session = cx.record.sessionID as string;
  const ts = cx.record.timestamp as number;
  const round = lane.round;
  const { call, name, provenance } = c;
  let end: AgentEvent;
  if (typeof output === 'string' && error === undefined) {
    end =
      exit !== undefined
        ? {
            type: 'tool.end',
            call,
            name,
            ok,
            provenance,
            text: output,
            exitCode: exit,
            startedAt,
            endedAt,
            session,
            ts,
            round,
          }
        : {
            type: 'tool.end',
            call,
            name,
            ok,
            provenance,
            text: output,
            startedAt,
            endedAt,
            session,
            ts,
            round,
          };
  } else if (output === undefined && error !== undefined && exit === undefined) {
    end = { type: 'tool.end', call, name, ok, provenance, error, startedAt, endedAt, session, ts, round };
  } else {
    return false;
  }
  // A copy: an edit of the event must not edit the kept record (the writer compares them).
  const args = copyJson(input);
  // OpenCode's own shell tool: its command line is the `command` argument.
  const command = input.command;
  out.push(
    name === 'bash' && typeof command === 'string'
      ? { type: 'tool.start', call, name, provenance, args, command, startedAt, session, ts, round }
      : { type: 'tool.start', call, name, provenance, args, startedAt, session, ts, round },
    end,
  );
  return true;
}

function toolStart(c: Call, cx: LineContext, lane: Lane): AgentEvent {
  const { state, name } = c;
  const start: AgentEventOf<'tool.start'> = {
    type: 'tool.start',
    call: c.call,
    name,
    provenance: c.provenance,
  };
  if (isJsonObject(state.input)) {
    // A copy: an edit of the event must not edit the kept record (the writer compares them).
    start.args = copyJson(state.input);
    // OpenCode's own shell tool: its command line is the `command` argument.
    if (name === 'bash' && typeof state.input.command === 'string') start.command = state.input.command;
  }
  if (c.startedAt !== undefined) start.startedAt = c.startedAt;
  stamp(start, cx, lane);
  return start;
}

function toolEnd(
  c: Call,
  cx: LineContext,
  lane: Lane,
  metadata: JsonObject | undefined,
  ok: boolean,
): AgentEvent {
  const { state } = c;
  const end: AgentEventOf<'tool.end'> = {
    type: 'tool.end',
    call: c.call,
    name: c.name,
    ok,
    provenance: c.provenance,
  };
  if (typeof state.output === 'string') end.text = state.output;
  if (state.error !== undefined) end.error = state.error;
  if (metadata !== undefined && isFiniteNumber(metadata.exit)) end.exitCode = metadata.exit;
  if (c.startedAt !== undefined) end.startedAt = c.startedAt;
  if (c.endedAt !== undefined) end.endedAt = c.endedAt;
  stamp(end, cx, lane);
  return end;
}

function laneOf(d: Decoder, cx: LineContext): Lane {
  return cx.lane === undefined ? d.main : (d.lanes.get(cx.lane) ?? d.main);
}

function openLane(d: Decoder, child: string, cx: LineContext, out: AgentEvent[]): void {
  d.lanes.set(child, { round: 0, text: '', lastReason: undefined });
  const e: AgentEventOf<'child.start'> = {
    type: 'child.start',
    child,
    kind: 'agent',
    provenance: impliedAt(cx),
  };
  pushImplied(e, cx, out);
}

function openRun(d: Decoder, cx: LineContext, out: AgentEvent[]): void {
  if (d.runOpen) return;
  d.runOpen = true;
  d.main.round = 0;
  d.main.text = '';
  const e: AgentEventOf<'run.start'> = {
    type: 'run.start',
    provenance: impliedAt(cx),
  };
  pushImplied(e, cx, out);
}

// The provenance of an event the line at `cx` implies (no record of its own says it).
function impliedAt(cx: LineContext): Provenance {
  return { format: FORMAT, line: cx.line, offset: cx.offset, synthetic: true };
}

// An event the line at `cx` implies (a run's or a child's start), stamped with the line's session
// and time only (not its lane nor round, which it opens), pushed.
function pushImplied(e: AgentEvent, cx: LineContext, out: AgentEvent[]): void {
  const session = str(cx.record.sessionID);
  if (session !== undefined) e.session = session;
  if (isFiniteNumber(cx.record.timestamp)) e.ts = cx.record.timestamp;
  out.push(e);
}

/** Envelope fields: session, ts, lane and (inside a step) round. */
function stamp(e: AgentEvent, cx: LineContext, lane?: Lane): void {
  const session = cx.record.sessionID;
  if (typeof session === 'string') e.session = session;
  const ts = cx.record.timestamp;
  if (isFiniteNumber(ts)) e.ts = ts;
  if (lane !== undefined && lane.round > 0) e.round = lane.round;
  if (cx.lane !== undefined) e.lane = cx.lane;
}

function prov(cx: LineContext): Provenance {
  return provenanceOf(cx.line, cx.offset, cx.hints);
}

function provenanceOf(line: number, offset: number, hints: OpencodeHints): Provenance {
  return { format: FORMAT, line, offset, hints: hints as Record<string, unknown> };
}

function checkIntegers(d: Decoder, text: string, line: number, offset: number): void {
  const message = unsafeNumberMessage(text);
  if (message !== undefined) d.report('invalid_record', 'error', line, offset, message);
}

/** Why a known record cannot be mapped, or undefined when it can. */
function invalid(type: OpencodeRecordType, part: JsonObject | undefined): string | undefined {
  if (type === 'error' || type === 'done') return undefined;
  if (part === undefined) return '"part" is not an object';
  if ((type === 'text' || type === 'reasoning') && typeof part.text !== 'string')
    return 'part.text is not a string';
  if (type === 'tool_use') {
    if (typeof part.callID !== 'string') return 'part.callID is not a string';
    if (typeof part.tool !== 'string') return 'part.tool is not a string';
    if (!isJsonObject(part.state)) return 'part.state is not an object';
  }
  return undefined;
}

/** The error's text: `error.data.message`, else `error.name`, else the value as JSON. */
function errorMessage(error: unknown): string {
  if (isJsonObject(error)) {
    const data = error.data;
    if (isJsonObject(data) && typeof data.message === 'string') return data.message;
    if (typeof error.message === 'string') return error.message;
    if (typeof error.name === 'string') return error.name;
  }
  if (typeof error === 'string') return error;
  return JSON.stringify(error) ?? 'error';
}

// ------------------------------------------------------------------------------------------
// The canonical-line reader

/**
 * Test hook: `enabled: false` parses every line with `JSON.parse`, so that
 * test/opencode/canonical-lines.test.ts can hold the canonical-line reader equal to it.
 */
export const opencodeCanonicalLines: { enabled: boolean } = { enabled: true };

// How deep a canonical record nests at least (record, part, state or tokens, time or cache): a
// tool's input and metadata are measured alone against what is left of the bound.
const CANONICAL_DEPTH = 4;
const STATE_DEPTH = 3;

/** The envelope and the part's ids, read in order: what every canonical line begins with. */
interface Head {
  type: string;
  timestamp: number;
  session: string;
  id: string;
  message: string;
}

/**
 * The record of a `step_start`, `text`, `tool_use` (completed or failed) or `step_finish` line
 * spelled as OpenCode writes it (wire.ts `OPENCODE_CANONICAL_TEXT`), read without `JSON.parse` of
 * the whole line: its head (the envelope and the part's ids) by one anchored match when no id
 * needs an escape, else piece by piece; then the fixed text compared in place, each string read
 * alone (sliced when it holds nothing to unescape; a value the line repeats, the session id or a
 * tool's output in its metadata, compared as text with the first; in a head read piece by piece,
 * the session and message ids the lines before said, `known`, compared in place), the integers
 * from their digits, the cost and a tool's input and metadata (free-form) parsed alone, the
 * record built in literals (their hidden classes outlive a full GC; docs/performance.md,
 * "OpenCode decoder, round six"). The same keys in the same order
 * with the same values as `JSON.parse(text)`, within `maxDepth`, or `undefined` for any other
 * spelling, which the caller parses: test/opencode/canonical-lines.test.ts holds the two equal,
 * line by line and over sequences of lines read through one `known`.
 */
export function readOpencodeCanonicalLine(
  text: string,
  maxDepth: number,
  known: KnownIds = [undefined, undefined],
): JsonObject | undefined {
  if (maxDepth < CANONICAL_DEPTH || text.charCodeAt(text.length - 1) !== 125) return undefined;
  const r = textReader(text);
  const head = readHead(r, known);
  if (head === undefined) return undefined;
  const T = OPENCODE_CANONICAL_TEXT;
  let part: JsonObject | undefined;
  switch (head.type) {
    case 'step_start': {
      const snapshot = readFixed(r, T.stepStart) ? readString(r) : undefined;
      if (snapshot !== undefined && readFixed(r, '}'))
        part = {
          id: head.id,
          sessionID: head.session,
          messageID: head.message,
          type: 'step-start',
          snapshot,
        };
      break;
    }
    case 'text':
      part = readTextPart(r, head);
      break;
    case 'tool_use':
      part = readToolPart(r, head, maxDepth);
      break;
    case 'step_finish':
      part = readFinishPart(r, head);
      break;
  }
  return part !== undefined && r.at === text.length - 1
    ? { type: head.type, timestamp: head.timestamp, sessionID: head.session, part }
    : undefined;
}

/**
 * The ids a canonical line repeats from the lines before it, kept by the decoder between lines:
 * the session (every line's) and the message (every line of a step). Each is one that was read
 * with nothing escaped in it (its text is itself): a token spelled the same is the same string,
 * compared in place instead of read and sliced again.
 */
export type KnownIds = [session: string | undefined, message: string | undefined];

const KNOWN_SESSION = 0;
const KNOWN_MESSAGE = 1;

// True (the cursor then past it) when the string token at the cursor is `id` between its quotes,
// `id` holding nothing a token escapes: its closing quote and its last character checked first (a
// token of another length, or another id of the same length, told without a search: the search
// for a missing id runs to the line's end), then one native compare.
function readId(r: TextReader, id: string): boolean {
  const text = r.text;
  const at = r.at;
  const length = id.length;
  if (
    text.charCodeAt(at) !== 34 ||
    text.charCodeAt(at + length + 1) !== 34 ||
    (length > 0 && text.charCodeAt(at + length) !== id.charCodeAt(length - 1)) ||
    text.indexOf(id, at + 1) !== at + 1
  )
    return false;
  r.at = at + id.length + 2;
  return true;
}

// The string token at the cursor: `known[slot]` when the token is that id, else read as any
// string, and kept in the slot when nothing in it was escaped (its length is its token's less the
// quotes). The cursor then past its closing quote.
function readKnown(r: TextReader, known: KnownIds, slot: number): string | undefined {
  const id = known[slot];
  if (id !== undefined && readId(r, id)) return id;
  const at = r.at;
  const value = readString(r);
  if (value !== undefined && value.length === r.at - at - 2) known[slot] = value;
  return value;
}

// The record types the reader takes, each spelled with what follows it up to the timestamp.
const T_STEP_START = `step_start${OPENCODE_CANONICAL_TEXT.timestamp}`;
const T_STEP_FINISH = `step_finish${OPENCODE_CANONICAL_TEXT.timestamp}`;
const T_TEXT = `text${OPENCODE_CANONICAL_TEXT.timestamp}`;
const T_TOOL_USE = `tool_use${OPENCODE_CANONICAL_TEXT.timestamp}`;

// The record type of a line the reader takes (`step_start`, `text`, `tool_use`, `step_finish`),
// told by its first letters and compared whole with the text after it; the cursor then at the
// timestamp. Undefined for any other type (the reader takes no other record).
function readType(r: TextReader): string | undefined {
  const text = r.text;
  const at = r.at;
  const c = text.charCodeAt(at);
  let type: string;
  let fixed: string;
  if (c === 115) {
    const finish = text.charCodeAt(at + 5) === 102;
    type = finish ? 'step_finish' : 'step_start';
    fixed = finish ? T_STEP_FINISH : T_STEP_START;
  } else if (c === 116) {
    const tool = text.charCodeAt(at + 1) === 111;
    type = tool ? 'tool_use' : 'text';
    fixed = tool ? T_TOOL_USE : T_TEXT;
  } else return undefined;
  return readFixed(r, fixed) ? type : undefined;
}

// `{"type":"…","timestamp":N,"sessionID":"…","part":{"id":"…","sessionID":"…","messageID":"…","type":"`:
// in one native match when its ids need no escape (cheaper than a call for each piece), else
// piece by piece.
function readHead(r: TextReader, known: KnownIds): Head | undefined {
  const m = OPENCODE_CANONICAL_HEAD.exec(r.text);
  return m === null ? readHeadPiecewise(r, known) : matchedHead(r, m, known);
}

// The head {@link OPENCODE_CANONICAL_HEAD} matched; the cursor then past it. The type told by
// the letters that tell the four apart (the match took only those four), as {@link readType}.
function matchedHead(r: TextReader, m: RegExpExecArray, known: KnownIds): Head {
  const text = r.text;
  const type =
    text.charCodeAt(TYPE_AT) === 115
      ? text.charCodeAt(TYPE_AT + 5) === 102
        ? 'step_finish'
        : 'step_start'
      : text.charCodeAt(TYPE_AT + 1) === 111
        ? 'tool_use'
        : 'text';
  r.at = m[0].length;
  return {
    type,
    timestamp: Number(m[1]),
    session: knownOr(known, KNOWN_SESSION, m[2]!),
    id: m[3]!,
    message: knownOr(known, KNOWN_MESSAGE, m[4]!),
  };
}

// Where the record type's name begins: after `{"type":"`.
const TYPE_AT = OPENCODE_CANONICAL_TEXT.head.length;

// `id` (read with nothing escaped in it), or the known one it equals, kept in `known[slot]`.
function knownOr(known: KnownIds, slot: number, id: string): string {
  const was = known[slot];
  if (was === id) return was;
  known[slot] = id;
  return id;
}

function readHeadPiecewise(r: TextReader, known: KnownIds): Head | undefined {
  const T = OPENCODE_CANONICAL_TEXT;
  if (!readFixed(r, T.head)) return undefined;
  const type = readType(r);
  if (type === undefined) return undefined;
  const timestamp = readDigits(r);
  if (timestamp === undefined || !readFixed(r, T.session)) return undefined;
  const sessionAt = r.at;
  const session = readKnown(r, known, KNOWN_SESSION);
  if (session === undefined || !readFixed(r, T.part)) return undefined;
  const sessionEnd = r.at - T.part.length;
  const id = readString(r);
  if (id === undefined || !readFixed(r, T.partSession)) return undefined;
  // The part's session is the record's, spelled again: compared as text (in place when it is
  // the known id, which holds nothing escaped).
  const again =
    session === known[KNOWN_SESSION]
      ? readId(r, session)
      : readAgain(r, sessionAt, sessionEnd, session) !== undefined;
  if (!again || !readFixed(r, T.message)) return undefined;
  const message = readKnown(r, known, KNOWN_MESSAGE);
  if (message === undefined || !readFixed(r, T.partType)) return undefined;
  return { type, timestamp, session, id, message };
}

// `{"start":N,"end":N}` after its `,"time":{"start":`, and the part's closing brace.
function readTime(r: TextReader): JsonObject | undefined {
  const start = readDigits(r);
  const end = start !== undefined && readFixed(r, OPENCODE_CANONICAL_TEXT.end) ? readDigits(r) : undefined;
  return end !== undefined && readFixed(r, '}') ? { start, end } : undefined;
}

function readTextPart(r: TextReader, head: Head): JsonObject | undefined {
  const T = OPENCODE_CANONICAL_TEXT;
  const text = readFixed(r, T.text) ? readStringBefore(r, T.time) : undefined;
  const time = text !== undefined && readFixed(r, T.time) ? readTime(r) : undefined;
  return time !== undefined && readFixed(r, '}')
    ? { id: head.id, sessionID: head.session, messageID: head.message, type: 'text', text, time }
    : undefined;
}

function readFinishPart(r: TextReader, head: Head): JsonObject | undefined {
  const T = OPENCODE_CANONICAL_TEXT;
  const reason = readFixed(r, T.stepFinish) ? readString(r) : undefined;
  const snapshot = reason !== undefined && readFixed(r, T.snapshot) ? readString(r) : undefined;
  if (snapshot === undefined || !readFixed(r, T.cost)) return undefined;
  const cost = readJsonValue(r);
  if (typeof cost !== 'number' || !readFixed(r, T.tokens)) return undefined;
  const input = readDigits(r);
  const output = input !== undefined && readFixed(r, T.output) ? readDigits(r) : undefined;
  const reasoning = output !== undefined && readFixed(r, T.reasoning) ? readDigits(r) : undefined;
  const read = reasoning !== undefined && readFixed(r, T.cache) ? readDigits(r) : undefined;
  const write = read !== undefined && readFixed(r, T.write) ? readDigits(r) : undefined;
  if (write === undefined || !readFixed(r, '}}}')) return undefined;
  return {
    id: head.id,
    sessionID: head.session,
    messageID: head.message,
    type: 'step-finish',
    reason,
    snapshot,
    cost,
    tokens: { input, output, reasoning, cache: { read, write } },
  };
}

function readToolPart(r: TextReader, head: Head, maxDepth: number): JsonObject | undefined {
  const T = OPENCODE_CANONICAL_TEXT;
  const call = readFixed(r, T.tool) ? readString(r) : undefined;
  const tool = call !== undefined && readFixed(r, T.toolName) ? readString(r) : undefined;
  if (tool === undefined) return undefined;
  const completed = readFixed(r, T.completed);
  if (!completed && !readFixed(r, T.failed)) return undefined;
  const input = readFree(r, maxDepth);
  if (input === undefined) return undefined;
  let state: JsonObject;
  if (completed) {
    if (!readFixed(r, T.output)) return undefined;
    const outputAt = r.at;
    const output = readStringBefore(r, T.title);
    const outputEnd = r.at;
    const title = output !== undefined && readFixed(r, T.title) ? readString(r) : undefined;
    if (title === undefined || !readFixed(r, T.metadata)) return undefined;
    const metadata = readMetadata(r, outputAt, outputEnd, output as string) ?? readFree(r, maxDepth);
    const time = metadata !== undefined && readFixed(r, T.time) ? readTime(r) : undefined;
    if (time === undefined) return undefined;
    state = { status: 'completed', input, output, title, metadata, time };
  } else {
    const error = readFixed(r, T.error) ? (readStringBefore(r, T.time) ?? readFree(r, maxDepth)) : undefined;
    const time = error !== undefined && readFixed(r, T.time) ? readTime(r) : undefined;
    if (time === undefined) return undefined;
    state = { status: 'error', input, error, time };
  }
  return readFixed(r, '}}')
    ? {
        id: head.id,
        sessionID: head.session,
        messageID: head.message,
        type: 'tool',
        callID: call,
        tool,
        state,
      }
    : undefined;
}

// A long text (a part's text, a tool's output or error) up to the fixed text the line spells
// after it, `after`, parsed alone: one native search and one parse, where `readString` first
// scans for the token's end (its plain run, then every escaped quote). `after` begins with `,"`,
// which no string token holds inside it (that quote would be unescaped), so in a canonical line
// its first match after the opening quote is just past the token; and the slice up to a match
// parses to a string only when it is exactly one string token (`JSON.parse` of the whole line
// reads the same value), whatever the line. So `undefined` here means the value is no string
// followed at once by `after`: the line is no canonical line (the caller's check of `after` would
// fail after any other read), and the general path reads it. Another key between the two whose
// value ends in a quote makes the parse throw, caught; OpenCode writes no such key.
function readStringBefore(r: TextReader, after: string): string | undefined {
  const end = r.text.indexOf(after, r.at + 1);
  return end === -1 ? undefined : readStringTo(r, end);
}

// A free-form value of a tool's state (its input, its metadata): parsed alone, within what is
// left of the bound. A long one is left to the general path, which measures its text first.
function readFree(r: TextReader, maxDepth: number): unknown {
  const start = r.at;
  const value = readJsonValue(r);
  if (value === undefined || r.at - start > DEPTH_PRECHECK_CHARS) return undefined;
  return valueExceedsDepth(value, maxDepth - STATE_DEPTH) ? undefined : value;
}

// The shell tool's metadata, `{"output":…,"exit":N,"description":…}`, its output the state's
// (`text[outputAt, outputEnd)`, compared as text); undefined (the reader unmoved) otherwise.
function readMetadata(
  r: TextReader,
  outputAt: number,
  outputEnd: number,
  output: string,
): JsonObject | undefined {
  const T = OPENCODE_CANONICAL_TEXT;
  const at = r.at;
  const same = readFixed(r, T.metadataOutput) && readAgain(r, outputAt, outputEnd, output) !== undefined;
  const exit = same && readFixed(r, T.exit) ? readDigits(r) : undefined;
  const description = exit !== undefined && readFixed(r, T.description) ? readString(r) : undefined;
  if (description !== undefined && readFixed(r, '}')) return { output, exit, description };
  r.at = at;
  return undefined;
}
