import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import type { LineEnds } from '../../framing/line-ends';
import { str } from '../../guards';
import {
  isJsonObject,
  type JsonObject,
  mayHoldUnsafeNumber,
  NOT_PARSED,
  parseRecordText,
  refuseDeepText,
  resolveMaxDepth,
  unsafeNumberMessage,
} from '../../json';
import { copyJson } from '../../kept';
import type { AgentEvent, AgentEventOf, Provenance, RunStatus } from '../../model';
import {
  isOpencodeRecordType,
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
 * The OpenCode record decoder: one `opencode run --format json` line → canonical events.
 * `step_start` → `round.start`; `text` → `text.delta`; `reasoning` → `reasoning.delta`;
 * `tool_use` (a finished call) → `tool.start` + `tool.end`; `step_finish` → `round.end` with the
 * step's usage and cost; `error` → `error`; `done` → `run.end`. The first record opens a run
 * (synthetic `run.start`). Records of another session (`sessionID` or `part.sessionID` other than
 * the run's) belong to a child lane, opened by a synthetic `child.start`. A stream that ends
 * without `done` ends its run as `completed` when its last step stopped (`reason: "stop"`, the
 * older builds' last record), `failed` after an `error`, else `incomplete`.
 */
export class OpencodeRecordDecoder implements RecordDecoder {
  private readonly sink: DiagnosticSink;
  private readonly report: LineReport;
  private readonly maxDepth: number;
  private readonly ends: LineEnds | undefined;
  private root: string | undefined;
  private runOpen = false;
  private error: string | undefined;
  private readonly main: Lane = { round: 0, text: '', lastReason: undefined };
  private readonly lanes = new Map<string, Lane>();
  // Where the last line was, for the events the stream's end implies (no object per line).
  private lastLine = 1;
  private lastOffset = 0;
  private lastTs: number | undefined;

  /** Creates a decoder reporting to `sink`; `ends` tells each line's terminator (CRLF kept). */
  constructor(options: OpencodeDecodeOptions, sink: DiagnosticSink, ends?: LineEnds) {
    this.sink = sink;
    this.report = lineReporter(sink, FORMAT);
    this.maxDepth = resolveMaxDepth(options.maxDepth);
    this.ends = ends;
  }

  line(text: string, line: number, offset: number, out: AgentEvent[], bytes?: number): void {
    const value = parseRecordText(text, line, offset, this.maxDepth, FORMAT, this.sink);
    if (value === NOT_PARSED) return;
    if (refuseDeepText(text, line, offset, this.maxDepth, FORMAT, this.sink)) return;
    const hints: OpencodeHints = { raw: text, record: value };
    const eol = this.ends?.at(offset, bytes ?? text.length);
    if (eol !== undefined && eol !== '\n') hints.eol = eol;
    if (!isJsonObject(value)) {
      this.report('invalid_json', 'error', line, offset, 'not a JSON object; kept as an unknown event');
      out.push({ type: 'unknown', record: value, provenance: this.provenance(line, offset, hints) });
      return;
    }
    const sessionID = str(value.sessionID);
    if (this.root === undefined && sessionID !== undefined) this.root = sessionID;
    const part = isJsonObject(value.part) ? value.part : undefined;
    const partSession = str(part?.sessionID);
    const own = partSession ?? sessionID;
    const lane = own !== undefined && this.root !== undefined && own !== this.root ? own : undefined;
    const cx: LineContext = { record: value, line, offset, hints, lane };
    const ts = typeof value.timestamp === 'number' ? value.timestamp : undefined;
    this.lastLine = line;
    this.lastOffset = offset;
    this.lastTs = ts;
    const type = value.type;
    if (!isOpencodeRecordType(type)) {
      this.openRun(cx, out);
      if (mayHoldUnsafeNumber(value)) this.checkIntegers(text, line, offset);
      const e: AgentEventOf<'unknown'> = { type: 'unknown', record: value, provenance: this.prov(cx) };
      if (typeof type === 'string') e.recordType = type;
      this.stamp(e, cx);
      out.push(e);
      return;
    }
    const problem = invalid(type, part);
    if (problem !== undefined) {
      this.report('invalid_record', 'error', line, offset, `invalid ${type} record: ${problem}`);
      this.openRun(cx, out);
      const e: AgentEventOf<'unknown'> = {
        type: 'unknown',
        recordType: type,
        record: value,
        provenance: this.prov(cx),
      };
      this.stamp(e, cx);
      out.push(e);
      return;
    }
    this.openRun(cx, out);
    if (lane !== undefined && !this.lanes.has(lane)) this.openLane(lane, cx, out);
    this.map(type, part, cx, out);
  }

  end(out: AgentEvent[]): void {
    for (const [child, lane] of this.lanes) {
      if (lane.round < 0) continue;
      const e: AgentEventOf<'child.end'> = {
        type: 'child.end',
        child,
        status: 'incomplete',
        provenance: { format: FORMAT, line: this.lastLine, offset: this.lastOffset, synthetic: true },
      };
      if (this.root !== undefined) e.session = this.root;
      out.push(e);
    }
    this.lanes.clear();
    if (!this.runOpen) return;
    this.runOpen = false;
    const status: RunStatus =
      this.error !== undefined
        ? 'failed'
        : this.main.lastReason === OPENCODE_STOP_REASON
          ? 'completed'
          : 'incomplete';
    const e: AgentEventOf<'run.end'> = {
      type: 'run.end',
      status,
      provenance: { format: FORMAT, line: this.lastLine, offset: this.lastOffset, synthetic: true },
    };
    if (status === 'completed') e.reason = OPENCODE_STOP_REASON;
    if (this.error !== undefined) e.error = this.error;
    if (this.root !== undefined) e.session = this.root;
    if (this.lastTs !== undefined) e.ts = this.lastTs;
    out.push(e);
  }

  private map(
    type: OpencodeRecordType,
    part: JsonObject | undefined,
    cx: LineContext,
    out: AgentEvent[],
  ): void {
    const lane = this.laneOf(cx);
    switch (type) {
      case 'step_start': {
        lane.round++;
        lane.text = '';
        // A step began: the stream's last step has not stopped (yet).
        lane.lastReason = undefined;
        const e: AgentEventOf<'round.start'> = { type: 'round.start', provenance: this.prov(cx) };
        this.stamp(e, cx, lane);
        out.push(e);
        return;
      }
      case 'text':
      case 'reasoning': {
        const text = part!.text as string;
        const e: AgentEventOf<'text.delta'> | AgentEventOf<'reasoning.delta'> = {
          type: type === 'text' ? 'text.delta' : 'reasoning.delta',
          text,
          provenance: this.prov(cx),
        };
        if (type === 'text') lane.text += text;
        const message = str(part!.messageID);
        if (message !== undefined) e.message = message;
        this.stamp(e, cx, lane);
        out.push(e);
        return;
      }
      case 'tool_use':
        this.tool(part!, cx, lane, out);
        return;
      case 'step_finish': {
        const reason = str(part!.reason);
        const e: AgentEventOf<'round.end'> = {
          type: 'round.end',
          message: lane.text,
          provenance: this.prov(cx),
        };
        if (reason !== undefined) e.stopReason = reason;
        const usage = usageFromWire(part!.tokens, part!.cost);
        if (usage !== undefined) e.usage = usage;
        this.stamp(e, cx, lane);
        lane.text = '';
        lane.lastReason = reason;
        out.push(e);
        return;
      }
      case 'error': {
        const error = cx.record.error;
        const message = errorMessage(error);
        const e: AgentEventOf<'error'> = { type: 'error', message, fatal: true, provenance: this.prov(cx) };
        const name = isJsonObject(error) ? str(error.name) : undefined;
        if (name !== undefined) e.code = name;
        if (error !== undefined) e.data = error;
        this.stamp(e, cx);
        if (cx.lane === undefined)
          this.error = this.error === undefined ? message : `${this.error}\n${message}`;
        out.push(e);
        return;
      }
      case 'done': {
        const e: AgentEventOf<'run.end'> = {
          type: 'run.end',
          status: this.error !== undefined ? 'failed' : 'completed',
          provenance: this.prov(cx),
        };
        const reason = str(cx.record.reason);
        if (reason !== undefined) e.reason = reason;
        if (this.error !== undefined) e.error = this.error;
        this.stamp(e, cx);
        this.runOpen = false;
        this.error = undefined;
        this.main.lastReason = undefined;
        out.push(e);
        return;
      }
    }
  }

  private tool(part: JsonObject, cx: LineContext, lane: Lane, out: AgentEvent[]): void {
    const state = part.state as JsonObject;
    const call = part.callID as string;
    const name = part.tool as string;
    const time = isJsonObject(state.time) ? state.time : undefined;
    const startedAt = time !== undefined && typeof time.start === 'number' ? time.start : undefined;
    const endedAt = time !== undefined && typeof time.end === 'number' ? time.end : undefined;
    const provenance = this.prov(cx);
    const start: AgentEventOf<'tool.start'> = { type: 'tool.start', call, name, provenance };
    if (isJsonObject(state.input)) {
      // A copy: an edit of the event must not edit the kept record (the writer compares them).
      start.args = copyJson(state.input);
      // OpenCode's own shell tool: its command line is the `command` argument.
      if (name === 'bash' && typeof state.input.command === 'string') start.command = state.input.command;
    }
    if (startedAt !== undefined) start.startedAt = startedAt;
    this.stamp(start, cx, lane);
    const ok = state.status === 'completed';
    const end: AgentEventOf<'tool.end'> = { type: 'tool.end', call, name, ok, provenance };
    if (typeof state.output === 'string') end.text = state.output;
    if (state.error !== undefined) end.error = state.error;
    const metadata = isJsonObject(state.metadata) ? state.metadata : undefined;
    if (metadata !== undefined && typeof metadata.exit === 'number') end.exitCode = metadata.exit;
    if (startedAt !== undefined) end.startedAt = startedAt;
    if (endedAt !== undefined) end.endedAt = endedAt;
    this.stamp(end, cx, lane);
    out.push(start, end);
    // A task tool ran a child session: its lane ends with the call.
    const child = metadata !== undefined ? (str(metadata.sessionId) ?? str(metadata.sessionID)) : undefined;
    const childLane = child !== undefined ? this.lanes.get(child) : undefined;
    if (child !== undefined && childLane !== undefined && childLane.round >= 0) {
      childLane.round = -1;
      const e: AgentEventOf<'child.end'> = {
        type: 'child.end',
        child,
        status: ok ? 'completed' : 'failed',
        provenance: { format: FORMAT, line: cx.line, offset: cx.offset, synthetic: true },
      };
      if (typeof state.output === 'string') e.result = state.output;
      this.stamp(e, cx, lane);
      out.push(e);
    }
  }

  private laneOf(cx: LineContext): Lane {
    return cx.lane === undefined ? this.main : (this.lanes.get(cx.lane) ?? this.main);
  }

  private openLane(child: string, cx: LineContext, out: AgentEvent[]): void {
    this.lanes.set(child, { round: 0, text: '', lastReason: undefined });
    const e: AgentEventOf<'child.start'> = {
      type: 'child.start',
      child,
      kind: 'agent',
      provenance: { format: FORMAT, line: cx.line, offset: cx.offset, synthetic: true },
    };
    const session = str(cx.record.sessionID);
    if (session !== undefined) e.session = session;
    if (typeof cx.record.timestamp === 'number') e.ts = cx.record.timestamp;
    out.push(e);
  }

  private openRun(cx: LineContext, out: AgentEvent[]): void {
    if (this.runOpen) return;
    this.runOpen = true;
    this.main.round = 0;
    this.main.text = '';
    const e: AgentEventOf<'run.start'> = {
      type: 'run.start',
      provenance: { format: FORMAT, line: cx.line, offset: cx.offset, synthetic: true },
    };
    const session = str(cx.record.sessionID);
    if (session !== undefined) e.session = session;
    if (typeof cx.record.timestamp === 'number') e.ts = cx.record.timestamp;
    out.push(e);
  }

  /** Envelope fields: session, ts, lane and (inside a step) round. */
  private stamp(e: AgentEvent, cx: LineContext, lane?: Lane): void {
    const session = cx.record.sessionID;
    if (typeof session === 'string') e.session = session;
    const ts = cx.record.timestamp;
    if (typeof ts === 'number') e.ts = ts;
    if (lane !== undefined && lane.round > 0) e.round = lane.round;
    if (cx.lane !== undefined) e.lane = cx.lane;
  }

  private prov(cx: LineContext): Provenance {
    return this.provenance(cx.line, cx.offset, cx.hints);
  }

  private provenance(line: number, offset: number, hints: OpencodeHints): Provenance {
    return { format: FORMAT, line, offset, hints: hints as Record<string, unknown> };
  }

  private checkIntegers(text: string, line: number, offset: number): void {
    const message = unsafeNumberMessage(text);
    if (message !== undefined) this.report('invalid_record', 'error', line, offset, message);
  }
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
