import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import {
  BEFORE_RUN,
  CARRY_PREFIX,
  eventFromCarried,
  isArgsSummaryOnly,
  plainToolOutput,
} from '../../framing/carry';
import type { FramedRecordDecoder, JsonFraming, JsonStreamDecodeOptions } from '../../framing/json-stream';
import { missingString, str } from '../../guards';
import {
  isJsonObject,
  type JsonObject,
  NOT_PARSED,
  parseMeasuredRecord,
  readDeltaRecord,
  resolveMaxDepth,
} from '../../json';
import type { AgentEvent, AgentEventOf, Provenance, QuestionItem } from '../../model';
import { UNSET, type Writable } from '../../plain';
import { incompleteRunEnd } from '../../record';
import { readFixed, readPlainString, readStringTo, textReader } from '../../text-reader';
import {
  AGUI_APPROVAL_REASON,
  AGUI_CANONICAL,
  AGUI_DELTA_HEAD,
  type AguiHints,
  aguiEventType,
  metaOf,
  roundOfStepName,
  usageFromWire,
} from './wire';

/** Options of the AG-UI decoder. */
export interface AguiDecodeOptions extends JsonStreamDecodeOptions {}

const FORMAT = 'ag-ui' as const;

/**
 * The switch of the decoder's shortcuts (text deltas, carried tool outputs and tool results read
 * without parsing them whole). Tests turn it off to hold the shortcuts to the general path
 * (test/ui/delta-shortcut.test.ts, test/ui/canonical-lines.test.ts); nothing else should.
 */
export const AGUI_DECODER_SHORTCUTS: { enabled: boolean } = { enabled: true };

/** Most records without an event of their own held for the next event. */
const MAX_BEFORE = 64;

/** Most calls kept open at once (a stream that never ends its calls cannot grow memory). */
const MAX_OPEN_CALLS = 4096;

/** Most characters of one call's streamed arguments kept to parse them whole at its end. */
const MAX_ARGS_CHARS = 16 * 1024 * 1024;

interface Cx {
  r: JsonObject;
  line: number;
  offset: number;
  provenance: Provenance;
  framing: JsonFraming;
}

/** Text of a tool result's `content`: the string, or its text parts joined. */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const part of content) if (isJsonObject(part) && typeof part.text === 'string') text += part.text;
  return text;
}

/** The content of the last user message of a `RunAgentInput`, when it is text. */
function lastUserText(input: unknown): string | undefined {
  if (!isJsonObject(input) || !Array.isArray(input.messages)) return undefined;
  for (let i = input.messages.length - 1; i >= 0; i--) {
    const m = input.messages[i];
    if (isJsonObject(m) && m.role === 'user') return contentText(m.content);
  }
  return undefined;
}

// Required string fields per event type: a record without them is refused (kept as `unknown`).
const REQUIRED: Partial<Record<string, readonly string[]>> = {
  RUN_STARTED: ['threadId', 'runId'],
  RUN_FINISHED: ['threadId', 'runId'],
  RUN_ERROR: ['message'],
  STEP_STARTED: ['stepName'],
  STEP_FINISHED: ['stepName'],
  TEXT_MESSAGE_START: ['messageId'],
  TEXT_MESSAGE_CONTENT: ['messageId', 'delta'],
  TEXT_MESSAGE_END: ['messageId'],
  TOOL_CALL_START: ['toolCallId', 'toolCallName'],
  TOOL_CALL_ARGS: ['toolCallId', 'delta'],
  TOOL_CALL_END: ['toolCallId'],
  TOOL_CALL_RESULT: ['toolCallId', 'messageId'],
  REASONING_START: ['messageId'],
  REASONING_MESSAGE_START: ['messageId'],
  REASONING_MESSAGE_CONTENT: ['messageId', 'delta'],
  REASONING_MESSAGE_END: ['messageId'],
  REASONING_END: ['messageId'],
  REASONING_ENCRYPTED_VALUE: ['entityId', 'encryptedValue'],
  SUBAGENT_STARTED: ['subagentRunId', 'name'],
  SUBAGENT_FINISHED: ['subagentRunId'],
  SUBAGENT_ERROR: ['subagentRunId', 'message'],
  CUSTOM: ['name'],
};

/**
 * The AG-UI record decoder: one event's JSON → canonical events. `RUN_STARTED` → `run.start`
 * (the last user message of its `input` is the run's input; its `resume` entries are the
 * approvals and answers the run continues from, before it); `RUN_FINISHED` → `run.end`
 * (`completed`; `cancelled` by its outcome; an interrupt outcome's interrupts are
 * `approval.request`/`question` events and the run ends `incomplete`, reason `interrupt`);
 * `RUN_ERROR` → `run.end` `failed`; steps are rounds; text messages are `message.start`,
 * `text.delta`, `message.end`; a tool call's start and argument chunks are `tool.args.delta`
 * and its end is `tool.start` with the arguments whole; `TOOL_CALL_RESULT` → `tool.end`;
 * reasoning events are `reasoning.delta` (the structural ones empty); subagents are children
 * whose events carry `lane`; `CUSTOM` named `agentwire.<type>` is that canonical event; the rest
 * (state, snapshots, activity, `RAW`, other `CUSTOM`) are `unknown` events kept whole.
 */
export function createAguiRecordDecoder(
  options: AguiDecodeOptions,
  sink: DiagnosticSink,
): FramedRecordDecoder {
  return new RecordDecoderOf(newDecoder(options, sink));
}

/**
 * The record decoder over one state: a class, not a literal of closures made per decoder, so the
 * framing's optimised per-record code that inlines `line` holds for the next decoder too
 * (docs/performance.md, "AG-UI and AI SDK codecs", round twelve).
 */
class RecordDecoderOf implements FramedRecordDecoder {
  constructor(private readonly d: Decoder) {}
  framing(framing: JsonFraming): void {
    setFraming(this.d, framing);
  }
  line(text: string, line: number, offset: number, out: AgentEvent[]): void {
    readLine(this.d, text, line, offset, out);
  }
  end(out: AgentEvent[]): void {
    endStream(this.d, out);
  }
}

/**
 * The decoder's state between records, built whole in one object literal ({@link newDecoder}): a
 * literal's hidden class is held by its allocation site and outlives a full GC, where a class
 * instance's fields (map transitions, held weakly) die with the last decoder and take the
 * optimised code that embedded them along (docs/performance.md, "AG-UI and AI SDK codecs").
 */
interface Decoder {
  readonly sink: DiagnosticSink;
  readonly report: LineReport;
  readonly maxDepth: number;
  mode: JsonFraming;
  session: string | undefined;
  run: string | undefined;
  runOpen: boolean;
  round: number;
  stepOpen: boolean;
  stepText: string;
  readonly names: Map<string, string>;
  readonly args: Map<string, string>;
  /** Messages of another role than the assistant's: their records stay `unknown`. */
  readonly otherRoles: Set<string>;
  /** What each interrupt asked: a question (else an approval). */
  readonly questions: Set<string>;
  /** Requests of this run already said as `CUSTOM` events (its interrupts repeat them). */
  readonly asked: Set<string>;
  /** Calls started and not ended yet, with their start (bounded: {@link MAX_OPEN_CALLS}). */
  readonly open: Map<string, { start: AgentEventOf<'tool.start'>; fromEarlierRun: boolean }>;
  /** Records with no event of their own, carried by the next event (`hints.before`). */
  before: string[];
  /** Each open subagent's parent lane (`null`: the main agent). */
  readonly parents: Map<string, string | null>;
  /**
   * A run's opening events, held until a record that is not a carried event from before the run
   * (see `BEFORE_RUN`): those are read as coming first.
   */
  held: AgentEvent[] | undefined;
  lastChunkCall: string;
  lastLine: number;
  lastOffset: number;
  lastTs: number | undefined;
}

function newDecoder(options: AguiDecodeOptions, sink: DiagnosticSink): Decoder {
  const d: Decoder = {
    sink: UNSET,
    report: UNSET,
    maxDepth: resolveMaxDepth(options.maxDepth),
    mode: 'sse',
    session: undefined,
    run: undefined,
    runOpen: false,
    round: 0,
    stepOpen: false,
    stepText: '',
    names: UNSET,
    args: UNSET,
    otherRoles: UNSET,
    questions: UNSET,
    asked: UNSET,
    open: UNSET,
    before: [],
    parents: UNSET,
    held: undefined,
    lastChunkCall: '',
    lastLine: 1,
    lastOffset: 0,
    lastTs: undefined,
  };
  // The object fields set after the literal, first `undefined`: no per-line code depends on
  // their hidden classes (src/plain.ts, `UNSET`).
  const w = d as Writable<Decoder>;
  w.sink = sink;
  w.report = lineReporter(sink, FORMAT);
  w.names = new Map();
  w.args = new Map();
  w.otherRoles = new Set();
  w.questions = new Set();
  w.asked = new Set();
  w.open = new Map();
  w.parents = new Map();
  return d;
}

function setFraming(d: Decoder, framing: JsonFraming): void {
  d.mode = framing;
}

function readLine(d: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  // A text delta spelled as the writers spell it is read without parsing it whole (a flat
  // record: no depth to measure); anything else is parsed and measured.
  let value: unknown;
  if (AGUI_DECODER_SHORTCUTS.enabled && d.maxDepth > 0) {
    value = readDeltaRecord(text, AGUI_DELTA_HEAD, 'TEXT_MESSAGE_CONTENT', 'messageId', deltaRecord);
    if (value === undefined && d.maxDepth >= CANONICAL_DEPTH) value = readCanonical(text);
  }
  // A record read by a shortcut is one of the writers' spellings, never an early one.
  const known = value !== undefined;
  if (value === undefined) {
    value = parseMeasuredRecord(text, line, offset, d.maxDepth, FORMAT, d.sink);
    if (value === NOT_PARSED) return;
  }
  if (d.held !== undefined && (known || !isEarly(value))) releaseHeld(d, out);
  const hints: AguiHints = { raw: text, record: value, framing: d.mode };
  const provenance: Provenance = { format: FORMAT, line, offset, hints: hints as Record<string, unknown> };
  d.lastLine = line;
  d.lastOffset = offset;
  if (!isJsonObject(value)) {
    d.report('invalid_json', 'error', line, offset, 'not a JSON object; kept as an unknown event');
    out.push({ type: 'unknown', record: value, provenance });
    return;
  }
  const cx: Cx = { r: value, line, offset, provenance, framing: d.mode };
  // A record read by a shortcut has its type (the module's literal), its required fields as
  // strings, and no time, by construction: no lookup, required-field check or time read for it
  // (held by test/ui/delta-shortcut.test.ts and test/ui/canonical-lines.test.ts, the shortcuts
  // on and off).
  const type = known ? (value.type as string) : aguiEventType(value.type);
  if (!known) d.lastTs = timestampOf(value) ?? d.lastTs;
  // The type as the module's literal: the checks and the switch below then match it by identity.
  const problem = type !== undefined && !known ? missing(type, value) : undefined;
  if (type === undefined || problem !== undefined) {
    if (problem !== undefined)
      d.report('invalid_record', 'error', line, offset, `invalid ${type} event: ${problem}`);
    pushUnknown(d, cx, out);
    return;
  }
  mapRecord(d, type, cx, out);
}

/**
 * A generally parsed record's `timestamp` when it is a number. Read by `Reflect.get`, a load
 * with no feedback: a named load here sees only the few record shapes the shortcuts leave to
 * `JSON.parse` and is compiled with their maps, so the shapes a stream has only at its start
 * (the run's opening records) deoptimised `readLine` ("wrong map") at the start of every stream.
 */
function timestampOf(value: JsonObject): number | undefined {
  const ts: unknown = Reflect.get(value, 'timestamp');
  return typeof ts === 'number' ? ts : undefined;
}

function endStream(d: Decoder, out: AgentEvent[]): void {
  releaseHeld(d, out);
  if (d.before.length > 0) {
    // Records no event followed: kept whole.
    for (const raw of d.before) {
      const record = JSON.parse(raw) as JsonObject;
      const hints: AguiHints = { raw, record, framing: d.mode };
      out.push({
        type: 'unknown',
        recordType: record.type as string,
        record,
        provenance: {
          format: FORMAT,
          line: d.lastLine,
          offset: d.lastOffset,
          hints: hints as Record<string, unknown>,
        },
      });
    }
    d.before = [];
  }
  if (!d.runOpen) return;
  d.runOpen = false;
  const e = incompleteRunEnd(FORMAT, d.lastLine, d.lastOffset);
  if (d.session !== undefined) e.session = d.session;
  if (d.run !== undefined) e.run = d.run;
  if (d.lastTs !== undefined) e.ts = d.lastTs;
  out.push(e);
}

/** Keeps a record that has no event of its own for the next event (false when full). */
function keepRecord(d: Decoder, cx: Cx): boolean {
  if (d.before.length >= MAX_BEFORE) return false;
  d.before.push(cx.provenance.hints!.raw as string);
  return true;
}

function releaseHeld(d: Decoder, out: AgentEvent[]): void {
  if (d.held === undefined) return;
  for (const e of d.held) out.push(e);
  d.held = undefined;
}

function mapRecord(d: Decoder, type: string, cx: Cx, out: AgentEvent[]): undefined {
  const r = cx.r;
  switch (type) {
    case 'RUN_STARTED':
      return runStarted(d, cx);
    case 'RUN_FINISHED':
    case 'RUN_ERROR':
      return runEnded(d, type, cx, out);
    case 'STEP_STARTED': {
      // The number the writer put in the name reads back as itself (a round 0, or a round
      // that came twice, stays so); other names count on from the last step.
      d.round = roundOfStepName(r.stepName) ?? d.round + 1;
      const whole = wholeAt(d, r);
      d.stepOpen = true;
      if (whole) {
        const { session, run, round, provenance } = envelope(d, cx);
        out.push({ type: 'round.start', session, run, round, provenance });
        return;
      }
      return pushEvent(d, out, cx, { type: 'round.start' });
    }
    case 'STEP_FINISHED': {
      const meta = metaOf(r);
      if (meta?.closing === true && keepRecord(d, cx)) {
        // Closed by the run's end, not a round that ended: no event; the next one carries it.
        d.stepOpen = false;
        return;
      }
      if (
        meta !== undefined &&
        wholeIn(d, r) &&
        typeof meta.stopReason === 'string' &&
        meta.model === undefined
      ) {
        let usage = usageFromWire(meta.usage);
        // `usageFromWire` built this object: the cost goes on it (its key last, where the
        // general path's spread puts it) instead of a copy by spread.
        if (typeof meta.costUsd === 'number') {
          if (usage === undefined) usage = { costUsd: meta.costUsd };
          else usage.costUsd = meta.costUsd;
        }
        if (usage !== undefined) {
          const { session, run, round, provenance } = envelope(d, cx);
          const message = d.stepText;
          const stopReason = meta.stopReason;
          out.push({ type: 'round.end', message, stopReason, usage, session, run, round, provenance });
          d.stepOpen = false;
          d.stepText = '';
          return;
        }
      }
      const e: AgentEventOf<'round.end'> = { type: 'round.end', message: d.stepText };
      if (meta !== undefined) {
        if (typeof meta.stopReason === 'string') e.stopReason = meta.stopReason;
        const usage = usageFromWire(meta.usage);
        if (usage !== undefined) e.usage = usage;
        if (typeof meta.costUsd === 'number') e.usage = { ...e.usage, costUsd: meta.costUsd };
        if (typeof meta.model === 'string') e.model = meta.model;
      }
      pushEvent(d, out, cx, e);
      d.stepOpen = false;
      d.stepText = '';
      return;
    }
    case 'TEXT_MESSAGE_START': {
      const id = r.messageId as string;
      if (r.role !== undefined && r.role !== 'assistant') {
        d.otherRoles.add(id);
        return pushUnknown(d, cx, out);
      }
      if (wholeIn(d, r)) {
        const { session, run, round, provenance } = envelope(d, cx);
        out.push({ type: 'message.start', role: 'assistant', message: id, session, run, round, provenance });
        return;
      }
      return pushEvent(d, out, cx, { type: 'message.start', role: 'assistant', message: id });
    }
    case 'TEXT_MESSAGE_CONTENT':
    case 'TEXT_MESSAGE_CHUNK': {
      const id = str(r.messageId);
      // The set is empty in an assistant-only stream: no hash of the fresh id string then.
      if (id !== undefined && d.otherRoles.size > 0 && d.otherRoles.has(id)) return pushUnknown(d, cx, out);
      if (type === 'TEXT_MESSAGE_CHUNK' && r.role !== undefined && r.role !== 'assistant') {
        if (id !== undefined) d.otherRoles.add(id);
        return pushUnknown(d, cx, out);
      }
      const text = str(r.delta) ?? '';
      if (typeof r.subagentRunId !== 'string') d.stepText += text;
      if (id !== undefined && wholeIn(d, r)) {
        const { session, run, round, provenance } = envelope(d, cx);
        out.push({ type: 'text.delta', text, message: id, session, run, round, provenance });
        return;
      }
      const e: AgentEventOf<'text.delta'> = { type: 'text.delta', text };
      if (id !== undefined) e.message = id;
      return pushEvent(d, out, cx, e);
    }
    case 'TEXT_MESSAGE_END': {
      const id = r.messageId as string;
      if (d.otherRoles.size > 0 && d.otherRoles.delete(id)) return pushUnknown(d, cx, out);
      if (wholeIn(d, r)) {
        const { session, run, round, provenance } = envelope(d, cx);
        out.push({ type: 'message.end', message: id, session, run, round, provenance });
        return;
      }
      return pushEvent(d, out, cx, { type: 'message.end', message: id });
    }
    case 'TOOL_CALL_START': {
      const call = r.toolCallId as string;
      const name = r.toolCallName as string;
      d.names.set(call, name);
      d.args.set(call, '');
      if (wholeIn(d, r)) {
        const { session, run, round, provenance } = envelope(d, cx);
        out.push({ type: 'tool.args.delta', call, name, text: '', session, run, round, provenance });
        return;
      }
      return pushEvent(d, out, cx, { type: 'tool.args.delta', call, name, text: '' });
    }
    case 'TOOL_CALL_ARGS':
    case 'TOOL_CALL_CHUNK': {
      const call = str(r.toolCallId) ?? d.lastChunkCall;
      if (type === 'TOOL_CALL_CHUNK') d.lastChunkCall = call;
      const text = str(r.delta) ?? '';
      const sofar = d.args.get(call);
      if (sofar !== undefined && sofar.length + text.length <= MAX_ARGS_CHARS) d.args.set(call, sofar + text);
      const name = str(r.toolCallName);
      if (name === undefined && wholeIn(d, r)) {
        const { session, run, round, provenance } = envelope(d, cx);
        out.push({ type: 'tool.args.delta', call, text, session, run, round, provenance });
        return;
      }
      const e: AgentEventOf<'tool.args.delta'> = { type: 'tool.args.delta', call, text };
      if (name !== undefined) {
        e.name = name;
        d.names.set(call, name);
      }
      return pushEvent(d, out, cx, e);
    }
    case 'TOOL_CALL_END':
      return toolEnd(d, cx, out);
    case 'TOOL_CALL_RESULT':
      return toolResult(d, cx, out);
    case 'REASONING_START':
    case 'REASONING_MESSAGE_START':
    case 'REASONING_MESSAGE_END':
    case 'REASONING_END':
    case 'REASONING_MESSAGE_CONTENT':
    case 'REASONING_MESSAGE_CHUNK': {
      const e: AgentEventOf<'reasoning.delta'> = { type: 'reasoning.delta', text: str(r.delta) ?? '' };
      const id = str(r.messageId);
      if (id !== undefined) e.message = id;
      return pushEvent(d, out, cx, e);
    }
    case 'REASONING_ENCRYPTED_VALUE': {
      const e: AgentEventOf<'reasoning.delta'> = {
        type: 'reasoning.delta',
        text: '',
        message: r.entityId as string,
      };
      if (metaOf(r)?.signature === true) e.signature = r.encryptedValue as string;
      else e.redacted = r.encryptedValue as string;
      return pushEvent(d, out, cx, e);
    }
    case 'SUBAGENT_STARTED': {
      if (metaOf(r)?.implied === true && keepRecord(d, cx)) {
        // Opened for a lane no child start said: no event; the next one carries it.
        d.parents.set(r.subagentRunId as string, str(r.parentSubagentRunId) ?? null);
        return;
      }
      const e: AgentEventOf<'child.start'> = {
        type: 'child.start',
        child: r.subagentRunId as string,
        name: r.name as string,
      };
      const task = str(r.description);
      if (task !== undefined) e.task = task;
      const call = str(r.parentToolCallId);
      if (call !== undefined) e.call = call;
      const meta = metaOf(r);
      if (meta !== undefined) {
        if (typeof meta.kind === 'string') e.kind = meta.kind;
        if (typeof meta.background === 'boolean') e.background = meta.background;
      }
      d.parents.set(e.child, str(r.parentSubagentRunId) ?? null);
      return pushEvent(d, out, cx, e, { lane: str(r.parentSubagentRunId) ?? null });
    }
    case 'SUBAGENT_FINISHED':
    case 'SUBAGENT_ERROR': {
      if (type === 'SUBAGENT_FINISHED' && metaOf(r)?.closing === true && keepRecord(d, cx)) {
        // Closed by the run's end, not a child that ended: no event; the next one carries it.
        d.parents.delete(r.subagentRunId as string);
        return;
      }
      const outcome = isJsonObject(r.outcome) ? r.outcome.type : undefined;
      const e: AgentEventOf<'child.end'> = {
        type: 'child.end',
        child: r.subagentRunId as string,
        status: type === 'SUBAGENT_ERROR' ? 'failed' : outcome === 'suspended' ? 'incomplete' : 'completed',
      };
      const result = type === 'SUBAGENT_ERROR' ? str(r.message) : str(r.result);
      if (result !== undefined) e.result = result;
      const meta = metaOf(r);
      const usage = meta !== undefined ? usageFromWire(meta.usage) : undefined;
      if (usage !== undefined) e.usage = usage;
      const parent = d.parents.get(e.child) ?? null;
      d.parents.delete(e.child);
      return pushEvent(d, out, cx, e, { lane: parent });
    }
    case 'CUSTOM': {
      const name = r.name as string;
      if (name === CARRIED_OUTPUT && d.held === undefined && wholeIn(d, r)) {
        const v = plainToolOutput(r.value);
        if (v !== undefined) {
          const { session, run, round, provenance } = envelope(d, cx);
          out.push({ type: 'tool.output', call: v.call, text: v.text, session, run, round, provenance });
          return;
        }
      }
      if (name.startsWith(CARRY_PREFIX)) {
        const e = eventFromCarried(name.slice(CARRY_PREFIX.length), r.value);
        if (e?.type === 'approval.request') d.asked.add(e.approval);
        else if (e?.type === 'question') d.asked.add(e.question);
        if (e !== undefined) return pushEvent(d, out, cx, e, { early: d.held !== undefined });
      }
      releaseHeld(d, out);
      return pushUnknown(d, cx, out);
    }
    case 'RAW': {
      // A provider-native event passed through: the event is the record (its source aside).
      const e: AgentEventOf<'unknown'> = { type: 'unknown', record: r.event };
      const inner = isJsonObject(r.event) ? r.event.type : undefined;
      e.recordType = typeof inner === 'string' ? inner : 'RAW';
      return pushEvent(d, out, cx, e);
    }
    default:
      return pushUnknown(d, cx, out);
  }
}

function runStarted(d: Decoder, cx: Cx): undefined {
  const r = cx.r;
  d.session = r.threadId as string;
  d.runOpen = false;
  const input = r.input;
  // Held: carried events the writer put right after this record came before the run.
  const held: AgentEvent[] = [];
  d.held = held;
  // The answers this run continues from come first: they were given before it started.
  if (isJsonObject(input) && Array.isArray(input.resume)) {
    for (const entry of input.resume) {
      if (!isJsonObject(entry) || typeof entry.interruptId !== 'string') continue;
      pushEvent(d, held, cx, resumeEvent(d, entry), { lane: null, part: true });
    }
  }
  d.run = r.runId as string;
  d.runOpen = true;
  d.asked.clear();
  d.round = 0;
  d.stepOpen = false;
  d.stepText = '';
  // Calls a previous run left open (an interrupt waits on them) continue in this one.
  for (const start of d.open.values()) start.fromEarlierRun = true;
  const e: AgentEventOf<'run.start'> = { type: 'run.start' };
  const text = lastUserText(input);
  if (text !== undefined) e.input = text;
  pushEvent(d, held, cx, e);
}

function resumeEvent(d: Decoder, entry: JsonObject): AgentEvent {
  const id = entry.interruptId as string;
  const payload = entry.payload;
  if (d.questions.delete(id)) {
    const answers = isJsonObject(payload) && isJsonObject(payload.answers) ? payload.answers : undefined;
    return { type: 'question.answer', question: id, answers: answers ?? { answer: payload ?? null } };
  }
  let decision = entry.status === 'cancelled' ? 'cancel' : 'allow';
  if (isJsonObject(payload)) {
    if (typeof payload.decision === 'string') decision = payload.decision;
    else if (payload.approved === false) decision = 'deny';
  }
  const e: AgentEventOf<'approval.resolve'> = { type: 'approval.resolve', approval: id, decision };
  if (isJsonObject(payload) && typeof payload.option === 'string') e.option = payload.option;
  return e;
}

function runEnded(d: Decoder, type: string, cx: Cx, out: AgentEvent[]): undefined {
  const r = cx.r;
  const e: AgentEventOf<'run.end'> = { type: 'run.end', status: 'completed' };
  if (type === 'RUN_ERROR') {
    e.status = 'failed';
    e.error = r.message as string;
    if (typeof r.code === 'string') e.reason = r.code;
  } else {
    const outcome = isJsonObject(r.outcome) ? r.outcome : undefined;
    if (outcome?.type === 'cancelled') e.status = 'cancelled';
    else if (outcome?.type === 'interrupt' && Array.isArray(outcome.interrupts)) {
      e.status = 'incomplete';
      e.reason = 'interrupt';
      for (const i of outcome.interrupts) {
        if (!isJsonObject(i) || typeof i.id !== 'string') continue;
        const asked = interruptEvent(d, i);
        // A request this run already said (a CUSTOM event) is not asked twice.
        if (d.asked.has(i.id)) continue;
        pushEvent(d, out, cx, asked, { lane: str(i.subagentRunId) ?? null, part: true });
        const ts = metaOf(i)?.ts;
        if (typeof ts === 'number') asked.ts = ts;
      }
    }
    if (typeof r.result === 'string') e.answer = r.result;
  }
  const usage = usageFromWire(r.usage);
  if (usage !== undefined) e.usage = usage;
  const meta = metaOf(r);
  if (meta !== undefined) {
    for (const k of ['reason', 'stopReason', 'input'] as const)
      if (typeof meta[k] === 'string') e[k] = meta[k];
    if (typeof meta.durationMs === 'number') e.durationMs = meta.durationMs;
    if (meta.status === 'incomplete' && e.status === 'completed') e.status = 'incomplete';
    if (typeof meta.costUsd === 'number') e.usage = { ...e.usage, costUsd: meta.costUsd };
  }
  pushEvent(d, out, cx, e);
  d.runOpen = false;
}

function interruptEvent(d: Decoder, i: JsonObject): AgentEvent {
  const id = i.id as string;
  const meta = metaOf(i);
  if (i.reason !== AGUI_APPROVAL_REASON && (meta?.questions !== undefined || i.toolCallId === undefined)) {
    d.questions.add(id);
    const questions = Array.isArray(meta?.questions)
      ? (meta.questions.filter((q) => isJsonObject(q) && typeof q.text === 'string') as QuestionItem[])
      : [{ text: str(i.message) ?? (i.reason as string) }];
    const e: AgentEventOf<'question'> = { type: 'question', question: id, questions };
    if (typeof i.toolCallId === 'string') e.call = i.toolCallId;
    return e;
  }
  const e: AgentEventOf<'approval.request'> = { type: 'approval.request', approval: id };
  const call = str(i.toolCallId);
  if (call !== undefined) {
    e.call = call;
    const name = d.names.get(call);
    if (name !== undefined) e.tool = name;
  }
  const title = str(i.message);
  if (title !== undefined) e.title = title;
  if (meta !== undefined) {
    if (typeof meta.tool === 'string') e.tool = meta.tool;
    if (isJsonObject(meta.args)) e.args = meta.args;
    if (Array.isArray(meta.effects)) e.effects = meta.effects.filter((x) => typeof x === 'string');
    if (Array.isArray(meta.options)) e.options = meta.options as NonNullable<typeof e.options>;
  }
  return e;
}

function toolEnd(d: Decoder, cx: Cx, out: AgentEvent[]): undefined {
  const r = cx.r;
  const call = r.toolCallId as string;
  const name = d.names.get(call) ?? '';
  const text = d.args.get(call);
  d.args.delete(call);
  let args: JsonObject | undefined;
  if (text !== undefined && text !== '') {
    try {
      const value: unknown = JSON.parse(text);
      if (isJsonObject(value)) args = value;
    } catch {
      // arguments that are not JSON stay in the deltas that carried them
    }
  }
  const meta = metaOf(r);
  if (args !== undefined && wholeIn(d, r) && (meta === undefined || isArgsSummaryOnly(meta))) {
    const { session, run, round, provenance } = envelope(d, cx);
    const start: AgentEventOf<'tool.start'> =
      meta === undefined
        ? { type: 'tool.start', call, name, args, session, run, round, provenance }
        : {
            type: 'tool.start',
            call,
            name,
            args,
            argsSummary: meta.argsSummary as string,
            session,
            run,
            round,
            provenance,
          };
    if (d.open.size < MAX_OPEN_CALLS) d.open.set(call, { start, fromEarlierRun: false });
    out.push(start);
    return;
  }
  const e: AgentEventOf<'tool.start'> = { type: 'tool.start', call, name };
  if (args !== undefined) e.args = args;
  if (d.open.size < MAX_OPEN_CALLS) d.open.set(call, { start: e, fromEarlierRun: false });
  if (meta !== undefined) {
    for (const k of ['kind', 'server', 'argsSummary', 'command'] as const) {
      if (typeof meta[k] === 'string') (e as Record<string, unknown>)[k] = meta[k];
    }
    if (typeof meta.startedAt === 'number') e.startedAt = meta.startedAt;
  }
  pushEvent(d, out, cx, e);
}

function toolResult(d: Decoder, cx: Cx, out: AgentEvent[]): undefined {
  const r = cx.r;
  const call = r.toolCallId as string;
  const open = d.open.get(call);
  d.open.delete(call);
  if (open?.fromEarlierRun) {
    // The call began in an earlier run: this run says it again (derived) before its result.
    const { provenance: _p, ...start } = open.start;
    const again = { ...start } as AgentEventOf<'tool.start'>;
    pushEvent(d, out, cx, again);
    again.provenance = { format: FORMAT, line: cx.line, offset: cx.offset, synthetic: true };
  }
  const name = d.names.get(call);
  const text = contentText(r.content);
  const meta = metaOf(r);
  if (
    open?.fromEarlierRun !== true &&
    name !== undefined &&
    name !== '' &&
    text !== undefined &&
    wholeIn(d, r) &&
    (meta === undefined || isOkOnly(meta))
  ) {
    const ok = meta?.ok !== false;
    const { session, run, round, provenance } = envelope(d, cx);
    out.push({ type: 'tool.end', call, ok, name, text, session, run, round, provenance });
    return;
  }
  const e: AgentEventOf<'tool.end'> = { type: 'tool.end', call, ok: true };
  if (name !== undefined && name !== '') e.name = name;
  if (text !== undefined) e.text = text;
  if (meta !== undefined) {
    if (meta.ok === false) e.ok = false;
    if (meta.error !== undefined) e.error = meta.error;
    if (meta.result !== undefined) e.result = meta.result;
    if (typeof meta.exitCode === 'number') e.exitCode = meta.exitCode;
    if (meta.denied === true) e.denied = true;
    if (Array.isArray(meta.filesChanged))
      e.filesChanged = meta.filesChanged.filter((f) => typeof f === 'string');
    if (typeof meta.startedAt === 'number') e.startedAt = meta.startedAt;
    if (typeof meta.endedAt === 'number') e.endedAt = meta.endedAt;
  }
  pushEvent(d, out, cx, e);
}

/**
 * Whether the frequent events are built whole, each in one object literal with its envelope
 * (thread, run, round, provenance), instead of through {@link pushEvent}, which adds the envelope
 * to a literal afterwards. Both give the same events; off, only the general path runs
 * (test/ui/whole-events.test.ts holds them equal). A literal's hidden class outlives the full GC
 * that kills a grown object's, and its stores are monomorphic (docs/performance.md).
 */
export const AGUI_WHOLE_EVENTS: { enabled: boolean } = { enabled: true };

const CARRIED_OUTPUT = `${CARRY_PREFIX}tool.output`;

/**
 * Where {@link pushEvent} would stamp thread, run and round and nothing else, leaving the
 * provenance as read: a record of the main agent, with no time, in an open step of an open run,
 * with no records held before it. Whole literals are built only there.
 */
function wholeIn(d: Decoder, r: JsonObject): boolean {
  return d.stepOpen && wholeAt(d, r);
}

/** {@link wholeIn} without the open step (a step's start opens it). */
function wholeAt(d: Decoder, r: JsonObject): boolean {
  return (
    AGUI_WHOLE_EVENTS.enabled &&
    d.runOpen &&
    d.session !== undefined &&
    d.run !== undefined &&
    d.before.length === 0 &&
    r.timestamp === undefined &&
    r.subagentRunId === undefined
  );
}

/** The envelope {@link pushEvent} stamps where {@link wholeIn} holds. */
function envelope(
  d: Decoder,
  cx: Cx,
): { session: string; run: string; round: number; provenance: Provenance } {
  return { session: d.session as string, run: d.run as string, round: d.round, provenance: cx.provenance };
}

/** Metadata that gives a call's end at most its `ok` (see {@link toolResult}). */
function isOkOnly(meta: JsonObject): boolean {
  return (
    meta.error === undefined &&
    meta.result === undefined &&
    typeof meta.exitCode !== 'number' &&
    meta.denied !== true &&
    !Array.isArray(meta.filesChanged) &&
    typeof meta.startedAt !== 'number' &&
    typeof meta.endedAt !== 'number'
  );
}

function pushUnknown(d: Decoder, cx: Cx, out: AgentEvent[]): undefined {
  const e: AgentEventOf<'unknown'> = { type: 'unknown', record: cx.r };
  if (typeof cx.r.type === 'string') e.recordType = cx.r.type;
  pushEvent(d, out, cx, e);
}

/**
 * Stamps the envelope (thread, run, round, time, lane) and the provenance, then appends.
 * `at.lane` overrides the record's own `subagentRunId` (`null`: the main agent's), and
 * `at.part` marks an event derived from part of a record another event writes.
 */
function pushEvent(
  d: Decoder,
  out: AgentEvent[],
  cx: Cx,
  e: AgentEvent,
  at?: { lane?: string | null; part?: boolean; early?: boolean },
): undefined {
  if (d.session !== undefined) e.session = d.session;
  if (at?.early === true) (cx.provenance.hints as AguiHints).early = true;
  else {
    if (d.run !== undefined && (d.runOpen || e.type === 'run.end')) e.run = d.run;
    if (d.stepOpen || e.type === 'round.start') e.round = d.round;
  }
  const ts = cx.r.timestamp;
  if (typeof ts === 'number') e.ts = ts;
  const lane =
    at?.lane !== undefined ? at.lane : typeof cx.r.subagentRunId === 'string' ? cx.r.subagentRunId : null;
  if (lane !== null) e.lane = lane;
  if (d.before.length > 0 && at?.part !== true) {
    (cx.provenance.hints as AguiHints).before = d.before;
    d.before = [];
  }
  if (at?.part === true) {
    const hints: AguiHints = { part: true, framing: cx.framing };
    e.provenance = {
      format: FORMAT,
      line: cx.line,
      offset: cx.offset,
      hints: hints as Record<string, unknown>,
    };
  } else e.provenance = cx.provenance;
  out.push(e);
}

/**
 * The depth of the deepest record a shortcut reads (a failed result's metadata); below it every
 * line takes the general path, which measures it.
 */
const CANONICAL_DEPTH = 3;

/**
 * A carried tool output or a tool result spelled exactly as the writer spells it, as the record
 * `JSON.parse` gives (the same keys in the same order, in one literal), or `undefined` (the line
 * then takes the general path). Every piece of the line is checked in order up to its end, so a
 * line read here is the JSON text of that record; ids are plain strings (no escape), the long
 * text is parsed alone.
 */
function readCanonical(text: string): JsonObject | undefined {
  const L = AGUI_CANONICAL;
  const n = text.length;
  if (text.charCodeAt(n - 1) !== 125) return undefined;
  if (text.slice(0, L.carriedHead.length) === L.carriedHead) {
    const r = textReader(text);
    r.at = L.carriedHead.length;
    const call = readPlainString(r);
    if (call === undefined || !readFixed(r, L.carriedText) || text.charCodeAt(n - 2) !== 125)
      return undefined;
    const output = readStringTo(r, n - 2);
    if (output === undefined) return undefined;
    return { type: 'CUSTOM', name: CARRIED_OUTPUT, value: { call, text: output } };
  }
  if (text.slice(0, L.resultHead.length) !== L.resultHead) return readShort(text);
  const r = textReader(text);
  r.at = L.resultHead.length;
  const messageId = readPlainString(r);
  if (messageId === undefined || !readFixed(r, L.resultCall)) return undefined;
  const toolCallId = readPlainString(r);
  if (toolCallId === undefined || !readFixed(r, L.resultContent)) return undefined;
  // A failed call's result ends with its metadata (`}}}`); any other with the role (`"}`).
  const failed = text.charCodeAt(n - 2) === 125;
  const tail = failed ? L.resultFailedTail : L.resultTail;
  const end = n - tail.length;
  if (end <= r.at || text.slice(end) !== tail) return undefined;
  const content = readStringTo(r, end);
  if (content === undefined) return undefined;
  return failed
    ? {
        type: 'TOOL_CALL_RESULT',
        messageId,
        toolCallId,
        content,
        role: 'tool',
        metadata: { agentwire: { ok: false } },
      }
    : { type: 'TOOL_CALL_RESULT', messageId, toolCallId, content, role: 'tool' };
}

/**
 * The short records of a step, a message or a call spelled exactly as the writer spells them
 * (`AGUI_CANONICAL`), as the record `JSON.parse` gives (the same keys in the same order, in one
 * literal per shape), or `undefined` (the line then takes the general path). Every piece is
 * checked in order up to the line's end; ids are plain strings (no escape), a call's argument
 * chunk and summary are parsed alone. The frequent records' hidden classes are then the module's
 * literals', which outlive a full GC, where `JSON.parse`'s die with the last record
 * (docs/performance.md, "AG-UI and AI SDK codecs", round twelve). Held to the general path by
 * test/ui/canonical-lines.test.ts.
 */
function readShort(text: string): JsonObject | undefined {
  const L = AGUI_CANONICAL;
  const n = text.length;
  // `{"type":"` then the type: its first letters pick the one head to compare.
  const c9 = text.charCodeAt(9);
  if (c9 === 83) {
    if (text.slice(0, L.stepStartHead.length) !== L.stepStartHead) return undefined;
    const r = textReader(text);
    r.at = L.stepStartHead.length;
    const stepName = readPlainString(r);
    if (stepName === undefined || r.at !== n - 1) return undefined;
    return { type: 'STEP_STARTED', stepName };
  }
  if (c9 !== 84) return undefined;
  const r = textReader(text);
  if (text.charCodeAt(10) === 69) {
    if (text.slice(0, L.messageStartHead.length) === L.messageStartHead) {
      r.at = L.messageStartHead.length;
      const messageId = readPlainString(r);
      if (messageId === undefined || !readFixed(r, L.messageStartTail) || r.at !== n) return undefined;
      return { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' };
    }
    if (text.slice(0, L.messageEndHead.length) !== L.messageEndHead) return undefined;
    r.at = L.messageEndHead.length;
    const messageId = readPlainString(r);
    if (messageId === undefined || r.at !== n - 1) return undefined;
    return { type: 'TEXT_MESSAGE_END', messageId };
  }
  if (text.slice(0, L.callArgsHead.length) === L.callArgsHead) {
    r.at = L.callArgsHead.length;
    const toolCallId = readPlainString(r);
    if (toolCallId === undefined || !readFixed(r, L.callArgsDelta)) return undefined;
    const delta = readStringTo(r, n - 1);
    if (delta === undefined) return undefined;
    return { type: 'TOOL_CALL_ARGS', toolCallId, delta };
  }
  if (text.slice(0, L.callStartHead.length) === L.callStartHead) {
    r.at = L.callStartHead.length;
    const toolCallId = readPlainString(r);
    if (toolCallId === undefined || !readFixed(r, L.callStartName)) return undefined;
    const toolCallName = readPlainString(r);
    if (toolCallName === undefined || r.at !== n - 1) return undefined;
    return { type: 'TOOL_CALL_START', toolCallId, toolCallName };
  }
  if (text.slice(0, L.callEndHead.length) !== L.callEndHead) return undefined;
  r.at = L.callEndHead.length;
  const toolCallId = readPlainString(r);
  if (toolCallId === undefined) return undefined;
  if (r.at === n - 1) return { type: 'TOOL_CALL_END', toolCallId };
  // The summary's object, its metadata and the record close together: `…"}}}`.
  if (!readFixed(r, L.callEndSummary) || text.charCodeAt(n - 2) !== 125 || text.charCodeAt(n - 3) !== 125)
    return undefined;
  const argsSummary = readStringTo(r, n - 3);
  if (argsSummary === undefined) return undefined;
  return { type: 'TOOL_CALL_END', toolCallId, metadata: { agentwire: { argsSummary } } };
}

/** A text delta record as `JSON.parse` gives it, in one literal ({@link readDeltaRecord}). */
function deltaRecord(messageId: string, delta: unknown): JsonObject {
  return { type: 'TEXT_MESSAGE_CONTENT', messageId, delta } as JsonObject;
}

/** A `CUSTOM` record carrying an event from before the run, on no child lane (see `BEFORE_RUN`). */
function isEarly(r: unknown): boolean {
  if (!isJsonObject(r) || r.type !== 'CUSTOM' || r.subagentRunId !== undefined) return false;
  const name = r.name;
  return (
    typeof name === 'string' &&
    name.startsWith(CARRY_PREFIX) &&
    BEFORE_RUN.has(name.slice(CARRY_PREFIX.length))
  );
}

/** What a known event lacks, or `undefined` when its required fields are there. */
function missing(type: string, r: JsonObject): string | undefined {
  const fields = REQUIRED[type];
  return fields === undefined ? undefined : missingString(r, fields);
}
