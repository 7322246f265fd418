import { setBounded } from '../../bounded';
import { appendRoundText, MAX_ROUND_TEXT } from '../../bounds';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import {
  BEFORE_RUN,
  CARRY_PREFIX,
  eventFromCarried,
  isArgsSummaryOnly,
  plainToolOutput,
} from '../../framing/carry';
import type { FramedRecordDecoder, JsonFraming, JsonStreamDecodeOptions } from '../../framing/json-stream';
import { isFiniteNumber, missingString, str } from '../../guards';
import {
  contentPartsText,
  isJsonObject,
  type JsonObject,
  NOT_PARSED,
  parseJsonObject,
  parseMeasuredRecord,
  readDeltaRecord,
  resolveMaxDepth,
} from '../../json';
import type { AgentEvent, AgentEventOf, Provenance, QuestionItem, Usage } from '../../model';
import { incompleteRunEnd } from '../../record';
import {
  readDigits,
  readFixed,
  readJsonTo,
  readPlainString,
  readStringTo,
  type TextReader,
  textReader,
} from '../../text-reader';
import {
  ARGS,
  ASKED,
  BEFORE,
  HELD,
  LAST_CHUNK_CALL,
  LAST_LINE,
  LAST_OFFSET,
  LAST_TS,
  MAX_DEPTH,
  MODE,
  NAMES,
  OPEN,
  OTHER_ROLES,
  PARENTS,
  QUESTIONS,
  REPORT,
  ROUND,
  RUN,
  RUN_OPEN,
  SESSION,
  SINK,
  STEP_OPEN,
  STEP_TEXT,
} from './slots';
import {
  AGUI_APPROVAL_REASON,
  AGUI_DELTA_HEAD,
  AGUI_MAX_ARGS_CHARS,
  type AguiHints,
  aguiEventType,
  C_CALL_ARGS_DELTA,
  C_CALL_ARGS_HEAD,
  C_CALL_END_HEAD,
  C_CALL_END_SUMMARY,
  C_CALL_START_HEAD,
  C_CALL_START_NAME,
  C_CARRIED_HEAD,
  C_CARRIED_TEXT,
  C_MESSAGE_END_HEAD,
  C_MESSAGE_START_HEAD,
  C_MESSAGE_START_TAIL,
  C_RESULT_CALL,
  C_RESULT_CONTENT,
  C_RESULT_FAILED_TAIL,
  C_RESULT_HEAD,
  C_RESULT_TAIL,
  C_STEP_END_COST,
  C_STEP_END_HEAD,
  C_STEP_END_INPUT,
  C_STEP_END_OUTPUT,
  C_STEP_END_REASON,
  C_STEP_END_TOTAL,
  C_STEP_END_USAGE_END,
  C_STEP_START_HEAD,
  lastUserText,
  metaOf,
  roundOfStepName,
  usageFromWire,
  wholeRoundUsage,
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

interface Cx {
  r: JsonObject;
  line: number;
  offset: number;
  provenance: Provenance;
  framing: JsonFraming;
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
    this.d[MODE] = framing;
  }
  line(text: string, line: number, offset: number, out: AgentEvent[]): void {
    readLine(this.d, text, line, offset, out);
  }
  end(out: AgentEvent[]): void {
    endStream(this.d, out);
  }
}

/** A call started and not ended yet. */
interface OpenCall {
  start: AgentEventOf<'tool.start'>;
  fromEarlierRun: boolean;
}

/**
 * The decoder's state between records ({@link newDecoder}): an array of slots (the indices below),
 * not a literal. A literal made once per decoder gets no allocation site until its factory has
 * run several times, so its hidden class dies with the last decoder at a full GC and takes the
 * optimised per-record code that embedded it along (`readLine`, `mapRecord`, `wholeAt`…); an
 * array's hidden class is the realm's and outlives every GC (docs/performance.md, "AG-UI and AI
 * SDK codecs", round fourteen; the Cursor and Amp decoders' state).
 */
type Decoder = [
  sink: DiagnosticSink,
  report: LineReport,
  maxDepth: number,
  mode: JsonFraming,
  session: string | undefined,
  run: string | undefined,
  runOpen: boolean,
  round: number,
  stepOpen: boolean,
  stepText: string,
  names: Map<string, string>,
  args: Map<string, string>,
  // Messages of another role than the assistant's: their records stay `unknown`.
  otherRoles: Set<string>,
  // What each interrupt asked: a question (else an approval).
  questions: Set<string>,
  // Requests of this run already said as `CUSTOM` events (its interrupts repeat them).
  asked: Set<string>,
  // Calls started and not ended yet, with their start (bounded: `MAX_OPEN_CALLS`).
  open: Map<string, OpenCall>,
  // Records with no event of their own, carried by the next event (`hints.before`).
  before: string[],
  // Each open subagent's parent lane (`null`: the main agent).
  parents: Map<string, string | null>,
  // A run's opening events, held until a record that is not a carried event from before the run
  // (see `BEFORE_RUN`): those are read as coming first.
  held: AgentEvent[] | undefined,
  lastChunkCall: string,
  lastLine: number,
  lastOffset: number,
  lastTs: number | undefined,
];

function newDecoder(options: AguiDecodeOptions, sink: DiagnosticSink): Decoder {
  return [
    sink,
    lineReporter(sink, FORMAT),
    resolveMaxDepth(options.maxDepth),
    'sse',
    undefined,
    undefined,
    false,
    0,
    false,
    '',
    new Map(),
    new Map(),
    new Set(),
    new Set(),
    new Set(),
    new Map(),
    [],
    new Map(),
    undefined,
    '',
    1,
    0,
    undefined,
  ];
}

function readLine(d: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  // A record spelled as the writers spell it is read without parsing it whole (the reader
  // measured what can nest); anything else is parsed and measured.
  let value: JsonObject | undefined;
  if (AGUI_DECODER_SHORTCUTS.enabled && d[MAX_DEPTH] > 0) {
    value = readDeltaRecord(text, AGUI_DELTA_HEAD, 'TEXT_MESSAGE_CONTENT', 'messageId', deltaRecord);
    if (value === undefined && d[MAX_DEPTH] >= CANONICAL_DEPTH) value = readCanonical(text, d[MAX_DEPTH]);
  }
  if (value !== undefined) knownLine(d, value, text, line, offset, out);
  else parsedLine(d, text, line, offset, out);
}

// A record a shortcut read: one of the module's literals, whose hidden classes outlive a full GC.
// It is read at sites no parsed record reaches: a `JSON.parse` record's hidden class dies at a
// full GC, and with it the optimised code of every site that had seen it (docs/performance.md,
// "AG-UI and AI SDK codecs", round fourteen). It has its type (the module's literal), its required
// fields as strings, and no time by construction, and it is never an early one: no lookup,
// required-field, time or early check for it (held by test/ui/delta-shortcut.test.ts and
// test/ui/canonical-lines.test.ts, the shortcuts on and off).
function knownLine(
  d: Decoder,
  value: JsonObject,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): void {
  if (d[HELD] !== undefined) releaseHeld(d, out);
  mapRecord(d, value.type as string, lineContext(d, value, text, line, offset), out);
}

/** A read record's context: its provenance (the line as read, the record, the framing). */
function lineContext(d: Decoder, value: unknown, text: string, line: number, offset: number): Cx {
  const hints: AguiHints = { raw: text, record: value, framing: d[MODE] };
  const provenance: Provenance = { format: FORMAT, line, offset, hints: hints as Record<string, unknown> };
  d[LAST_LINE] = line;
  d[LAST_OFFSET] = offset;
  return { r: value as JsonObject, line, offset, provenance, framing: d[MODE] };
}

// A record `JSON.parse` read.
function parsedLine(d: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  const value = parseMeasuredRecord(text, line, offset, d[MAX_DEPTH], FORMAT, d[SINK]);
  if (value === NOT_PARSED) return;
  if (d[HELD] !== undefined && !isEarly(value)) releaseHeld(d, out);
  const cx = lineContext(d, value, text, line, offset);
  if (!isJsonObject(value)) {
    d[REPORT]('invalid_json', 'error', line, offset, 'not a JSON object; kept as an unknown event');
    out.push({ type: 'unknown', record: value, provenance: cx.provenance });
    return;
  }
  // The type as the module's literal: the checks and the switch below then match it by identity.
  const type = aguiEventType(value.type);
  d[LAST_TS] = timestampOf(value) ?? d[LAST_TS];
  const problem = type !== undefined ? missing(type, value) : undefined;
  if (type === undefined || problem !== undefined) {
    if (problem !== undefined)
      d[REPORT]('invalid_record', 'error', line, offset, `invalid ${type} event: ${problem}`);
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
  return isFiniteNumber(ts) ? ts : undefined;
}

function endStream(d: Decoder, out: AgentEvent[]): void {
  releaseHeld(d, out);
  if (d[BEFORE].length > 0) {
    // Records no event followed: kept whole.
    for (const raw of d[BEFORE]) {
      const record = JSON.parse(raw) as JsonObject;
      const { provenance } = lineContext(d, record, raw, d[LAST_LINE], d[LAST_OFFSET]);
      out.push({ type: 'unknown', recordType: record.type as string, record, provenance });
    }
    d[BEFORE] = [];
  }
  if (!d[RUN_OPEN]) return;
  d[RUN_OPEN] = false;
  const e = incompleteRunEnd(FORMAT, d[LAST_LINE], d[LAST_OFFSET]);
  if (d[SESSION] !== undefined) e.session = d[SESSION];
  if (d[RUN] !== undefined) e.run = d[RUN];
  if (d[LAST_TS] !== undefined) e.ts = d[LAST_TS];
  out.push(e);
}

/** Keeps a record that has no event of its own for the next event (false when full). */
function keepRecord(d: Decoder, cx: Cx): boolean {
  if (d[BEFORE].length >= MAX_BEFORE) return false;
  d[BEFORE].push(cx.provenance.hints!.raw as string);
  return true;
}

function releaseHeld(d: Decoder, out: AgentEvent[]): void {
  if (d[HELD] === undefined) return;
  for (const e of d[HELD]) out.push(e);
  d[HELD] = undefined;
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
      d[ROUND] = roundOfStepName(r.stepName) ?? d[ROUND] + 1;
      const whole = wholeAt(d, r);
      d[STEP_OPEN] = true;
      if (whole) {
        out.push({
          type: 'round.start',
          session: d[SESSION] as string,
          run: d[RUN] as string,
          round: d[ROUND],
          provenance: cx.provenance,
        });
        return;
      }
      return pushEvent(d, out, cx, { type: 'round.start' });
    }
    case 'STEP_FINISHED': {
      const meta = metaOf(r);
      if (meta?.closing === true && keepRecord(d, cx)) {
        // Closed by the run's end, not a round that ended: no event; the next one carries it.
        d[STEP_OPEN] = false;
        return;
      }
      if (
        meta !== undefined &&
        wholeIn(d, r) &&
        typeof meta.stopReason === 'string' &&
        meta.model === undefined
      ) {
        const usage = roundEndUsage(meta);
        if (usage !== undefined) {
          const message = d[STEP_TEXT];
          const stopReason = meta.stopReason;
          out.push({
            type: 'round.end',
            message,
            stopReason,
            usage,
            session: d[SESSION] as string,
            run: d[RUN] as string,
            round: d[ROUND],
            provenance: cx.provenance,
          });
          d[STEP_OPEN] = false;
          d[STEP_TEXT] = '';
          return;
        }
      }
      const e: AgentEventOf<'round.end'> = { type: 'round.end', message: d[STEP_TEXT] };
      if (meta !== undefined) {
        if (typeof meta.stopReason === 'string') e.stopReason = meta.stopReason;
        const usage = usageFromWire(meta.usage);
        if (usage !== undefined) e.usage = usage;
        if (isFiniteNumber(meta.costUsd)) e.usage = { ...e.usage, costUsd: meta.costUsd };
        if (typeof meta.model === 'string') e.model = meta.model;
      }
      pushEvent(d, out, cx, e);
      d[STEP_OPEN] = false;
      d[STEP_TEXT] = '';
      return;
    }
    case 'TEXT_MESSAGE_START': {
      const id = r.messageId as string;
      if (r.role !== undefined && r.role !== 'assistant') {
        d[OTHER_ROLES].add(id);
        return pushUnknown(d, cx, out);
      }
      if (wholeIn(d, r)) {
        out.push({
          type: 'message.start',
          role: 'assistant',
          message: id,
          session: d[SESSION] as string,
          run: d[RUN] as string,
          round: d[ROUND],
          provenance: cx.provenance,
        });
        return;
      }
      return pushEvent(d, out, cx, { type: 'message.start', role: 'assistant', message: id });
    }
    case 'TEXT_MESSAGE_CONTENT':
    case 'TEXT_MESSAGE_CHUNK': {
      const id = str(r.messageId);
      // The set is empty in an assistant-only stream: no hash of the fresh id string then.
      if (id !== undefined && d[OTHER_ROLES].size > 0 && d[OTHER_ROLES].has(id))
        return pushUnknown(d, cx, out);
      if (type === 'TEXT_MESSAGE_CHUNK' && r.role !== undefined && r.role !== 'assistant') {
        if (id !== undefined) d[OTHER_ROLES].add(id);
        return pushUnknown(d, cx, out);
      }
      const text = str(r.delta) ?? '';
      if (typeof r.subagentRunId !== 'string') {
        const held = d[STEP_TEXT];
        if (held.length + text.length < MAX_ROUND_TEXT) d[STEP_TEXT] = held + text;
        else d[STEP_TEXT] = appendRoundText(held, text, d[REPORT], cx.line, cx.offset);
      }
      if (id !== undefined && wholeIn(d, r)) {
        out.push({
          type: 'text.delta',
          text,
          message: id,
          session: d[SESSION] as string,
          run: d[RUN] as string,
          round: d[ROUND],
          provenance: cx.provenance,
        });
        return;
      }
      const e: AgentEventOf<'text.delta'> = { type: 'text.delta', text };
      if (id !== undefined) e.message = id;
      return pushEvent(d, out, cx, e);
    }
    case 'TEXT_MESSAGE_END': {
      const id = r.messageId as string;
      if (d[OTHER_ROLES].size > 0 && d[OTHER_ROLES].delete(id)) return pushUnknown(d, cx, out);
      if (wholeIn(d, r)) {
        out.push({
          type: 'message.end',
          message: id,
          session: d[SESSION] as string,
          run: d[RUN] as string,
          round: d[ROUND],
          provenance: cx.provenance,
        });
        return;
      }
      return pushEvent(d, out, cx, { type: 'message.end', message: id });
    }
    case 'TOOL_CALL_START': {
      const call = r.toolCallId as string;
      const name = r.toolCallName as string;
      setBounded(d[NAMES], call, name);
      d[ARGS].set(call, '');
      if (wholeIn(d, r)) {
        out.push({
          type: 'tool.args.delta',
          call,
          name,
          text: '',
          session: d[SESSION] as string,
          run: d[RUN] as string,
          round: d[ROUND],
          provenance: cx.provenance,
        });
        return;
      }
      return pushEvent(d, out, cx, { type: 'tool.args.delta', call, name, text: '' });
    }
    case 'TOOL_CALL_ARGS':
    case 'TOOL_CALL_CHUNK': {
      const call = str(r.toolCallId) ?? d[LAST_CHUNK_CALL];
      if (type === 'TOOL_CALL_CHUNK') d[LAST_CHUNK_CALL] = call;
      const text = str(r.delta) ?? '';
      const sofar = d[ARGS].get(call);
      if (sofar !== undefined && sofar.length + text.length <= AGUI_MAX_ARGS_CHARS)
        d[ARGS].set(call, sofar + text);
      const name = str(r.toolCallName);
      if (name === undefined && wholeIn(d, r)) {
        out.push({
          type: 'tool.args.delta',
          call,
          text,
          session: d[SESSION] as string,
          run: d[RUN] as string,
          round: d[ROUND],
          provenance: cx.provenance,
        });
        return;
      }
      const e: AgentEventOf<'tool.args.delta'> = { type: 'tool.args.delta', call, text };
      if (name !== undefined) {
        e.name = name;
        setBounded(d[NAMES], call, name);
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
        d[PARENTS].set(r.subagentRunId as string, str(r.parentSubagentRunId) ?? null);
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
      d[PARENTS].set(e.child, str(r.parentSubagentRunId) ?? null);
      return pushEvent(d, out, cx, e, { lane: str(r.parentSubagentRunId) ?? null });
    }
    case 'SUBAGENT_FINISHED':
    case 'SUBAGENT_ERROR': {
      if (type === 'SUBAGENT_FINISHED' && metaOf(r)?.closing === true && keepRecord(d, cx)) {
        // Closed by the run's end, not a child that ended: no event; the next one carries it.
        d[PARENTS].delete(r.subagentRunId as string);
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
      const parent = d[PARENTS].get(e.child) ?? null;
      d[PARENTS].delete(e.child);
      return pushEvent(d, out, cx, e, { lane: parent });
    }
    case 'CUSTOM': {
      // Read by `Reflect.get`, a load with no feedback: the carried session start, a parsed
      // record at every stream's start, would otherwise put its hidden class, which dies at a
      // full GC, into `mapRecord`'s optimised code (see `timestampOf`).
      const name = Reflect.get(r, 'name') as string;
      if (name === CARRIED_OUTPUT && d[HELD] === undefined && wholeIn(d, r)) {
        const v = plainToolOutput(r.value);
        if (v !== undefined) {
          out.push({
            type: 'tool.output',
            call: v.call,
            text: v.text,
            session: d[SESSION] as string,
            run: d[RUN] as string,
            round: d[ROUND],
            provenance: cx.provenance,
          });
          return;
        }
      }
      return custom(d, name, cx, out);
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

// The records a stream has once (its start, a carried session start, its end) are read in
// functions of their own, called rarely enough that the optimising compiler does not inline them
// into `mapRecord`: their `JSON.parse` hidden classes die at a full GC, and code that had
// embedded them would be thrown away with them (docs/performance.md, "AG-UI and AI SDK codecs",
// round fourteen).

/** A `CUSTOM` record: a carried canonical event (`agentwire.<type>`), else kept whole. */
function custom(d: Decoder, name: string, cx: Cx, out: AgentEvent[]): undefined {
  if (name.startsWith(CARRY_PREFIX)) {
    const e = eventFromCarried(name.slice(CARRY_PREFIX.length), cx.r.value);
    if (e?.type === 'approval.request') d[ASKED].add(e.approval);
    else if (e?.type === 'question') d[ASKED].add(e.question);
    if (e !== undefined) return pushEvent(d, out, cx, e, { early: d[HELD] !== undefined });
  }
  releaseHeld(d, out);
  return pushUnknown(d, cx, out);
}

function runStarted(d: Decoder, cx: Cx): undefined {
  const r = cx.r;
  d[SESSION] = r.threadId as string;
  d[RUN_OPEN] = false;
  const input = r.input;
  // Held: carried events the writer put right after this record came before the run.
  const held: AgentEvent[] = [];
  d[HELD] = held;
  // The answers this run continues from come first: they were given before it started.
  if (isJsonObject(input) && Array.isArray(input.resume)) {
    for (const entry of input.resume) {
      if (!isJsonObject(entry) || typeof entry.interruptId !== 'string') continue;
      pushEvent(d, held, cx, resumeEvent(d, entry), { lane: null, part: true });
    }
  }
  d[RUN] = r.runId as string;
  d[RUN_OPEN] = true;
  d[ASKED].clear();
  d[ROUND] = 0;
  d[STEP_OPEN] = false;
  d[STEP_TEXT] = '';
  // Calls a previous run left open (an interrupt waits on them) continue in this one.
  for (const start of d[OPEN].values()) start.fromEarlierRun = true;
  const e: AgentEventOf<'run.start'> = { type: 'run.start' };
  const text = lastUserText(input);
  if (text !== undefined) e.input = text;
  pushEvent(d, held, cx, e);
}

function resumeEvent(d: Decoder, entry: JsonObject): AgentEvent {
  const id = entry.interruptId as string;
  const payload = entry.payload;
  if (d[QUESTIONS].delete(id)) {
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
        if (d[ASKED].has(i.id)) continue;
        pushEvent(d, out, cx, asked, { lane: str(i.subagentRunId) ?? null, part: true });
        const ts = metaOf(i)?.ts;
        if (isFiniteNumber(ts)) asked.ts = ts;
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
    if (isFiniteNumber(meta.durationMs)) e.durationMs = meta.durationMs;
    if (meta.status === 'incomplete' && e.status === 'completed') e.status = 'incomplete';
    if (isFiniteNumber(meta.costUsd)) e.usage = { ...e.usage, costUsd: meta.costUsd };
  }
  pushEvent(d, out, cx, e);
  d[RUN_OPEN] = false;
}

function interruptEvent(d: Decoder, i: JsonObject): AgentEvent {
  const id = i.id as string;
  const meta = metaOf(i);
  if (i.reason !== AGUI_APPROVAL_REASON && (meta?.questions !== undefined || i.toolCallId === undefined)) {
    d[QUESTIONS].add(id);
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
    const name = d[NAMES].get(call);
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
  const name = d[NAMES].get(call) ?? '';
  const text = d[ARGS].get(call);
  d[ARGS].delete(call);
  // Arguments that are not a JSON object stay in the deltas that carried them.
  const args = text !== undefined && text !== '' ? parseJsonObject(text) : undefined;
  const meta = metaOf(r);
  if (args !== undefined && wholeIn(d, r) && (meta === undefined || isArgsSummaryOnly(meta))) {
    const start: AgentEventOf<'tool.start'> =
      meta === undefined
        ? {
            type: 'tool.start',
            call,
            name,
            args,
            session: d[SESSION] as string,
            run: d[RUN] as string,
            round: d[ROUND],
            provenance: cx.provenance,
          }
        : {
            type: 'tool.start',
            call,
            name,
            args,
            argsSummary: meta.argsSummary as string,
            session: d[SESSION] as string,
            run: d[RUN] as string,
            round: d[ROUND],
            provenance: cx.provenance,
          };
    if (d[OPEN].size < MAX_OPEN_CALLS) d[OPEN].set(call, { start, fromEarlierRun: false });
    out.push(start);
    return;
  }
  const e: AgentEventOf<'tool.start'> = { type: 'tool.start', call, name };
  if (args !== undefined) e.args = args;
  if (d[OPEN].size < MAX_OPEN_CALLS) d[OPEN].set(call, { start: e, fromEarlierRun: false });
  if (meta !== undefined) {
    for (const k of ['kind', 'server', 'argsSummary', 'command'] as const) {
      if (typeof meta[k] === 'string') (e as Record<string, unknown>)[k] = meta[k];
    }
    if (isFiniteNumber(meta.startedAt)) e.startedAt = meta.startedAt;
  }
  pushEvent(d, out, cx, e);
}

function toolResult(d: Decoder, cx: Cx, out: AgentEvent[]): undefined {
  const r = cx.r;
  const call = r.toolCallId as string;
  const open = d[OPEN].get(call);
  d[OPEN].delete(call);
  if (open?.fromEarlierRun) {
    // The call began in an earlier run: this run says it again (derived) before its result.
    const { provenance: _p, ...start } = open.start;
    const again = { ...start } as AgentEventOf<'tool.start'>;
    pushEvent(d, out, cx, again);
    again.provenance = { format: FORMAT, line: cx.line, offset: cx.offset, synthetic: true };
  }
  const name = d[NAMES].get(call);
  const text = contentPartsText(r.content);
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
    out.push({
      type: 'tool.end',
      call,
      ok,
      name,
      text,
      session: d[SESSION] as string,
      run: d[RUN] as string,
      round: d[ROUND],
      provenance: cx.provenance,
    });
    return;
  }
  const e: AgentEventOf<'tool.end'> = { type: 'tool.end', call, ok: true };
  if (name !== undefined && name !== '') e.name = name;
  if (text !== undefined) e.text = text;
  if (meta !== undefined) {
    if (meta.ok === false) e.ok = false;
    if (meta.error !== undefined) e.error = meta.error;
    if (meta.result !== undefined) e.result = meta.result;
    if (isFiniteNumber(meta.exitCode)) e.exitCode = meta.exitCode;
    if (meta.denied === true) e.denied = true;
    if (Array.isArray(meta.filesChanged))
      e.filesChanged = meta.filesChanged.filter((f) => typeof f === 'string');
    if (isFiniteNumber(meta.startedAt)) e.startedAt = meta.startedAt;
    if (isFiniteNumber(meta.endedAt)) e.endedAt = meta.endedAt;
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
  return d[STEP_OPEN] && wholeAt(d, r);
}

/** {@link wholeIn} without the open step (a step's start opens it). */
function wholeAt(d: Decoder, r: JsonObject): boolean {
  return (
    AGUI_WHOLE_EVENTS.enabled &&
    d[RUN_OPEN] &&
    d[SESSION] !== undefined &&
    d[RUN] !== undefined &&
    d[BEFORE].length === 0 &&
    r.timestamp === undefined &&
    r.subagentRunId === undefined
  );
}

/** A round end's usage with its cost, as the general path gives it, for a whole `round.end`. */
function roundEndUsage(meta: JsonObject): Usage | undefined {
  const whole = wholeRoundUsage(meta.usage, meta.costUsd);
  if (whole !== undefined) return whole;
  const usage = usageFromWire(meta.usage);
  if (!isFiniteNumber(meta.costUsd)) return usage;
  // `usageFromWire` built this object: the cost goes on it (its key last, where the general
  // path's spread puts it) instead of a copy by spread.
  if (usage === undefined) return { costUsd: meta.costUsd };
  usage.costUsd = meta.costUsd;
  return usage;
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
  if (d[SESSION] !== undefined) e.session = d[SESSION];
  if (at?.early === true) (cx.provenance.hints as AguiHints).early = true;
  else {
    if (d[RUN] !== undefined && (d[RUN_OPEN] || e.type === 'run.end')) e.run = d[RUN];
    if (d[STEP_OPEN] || e.type === 'round.start') e.round = d[ROUND];
  }
  const ts = cx.r.timestamp;
  if (isFiniteNumber(ts)) e.ts = ts;
  const lane =
    at?.lane !== undefined ? at.lane : typeof cx.r.subagentRunId === 'string' ? cx.r.subagentRunId : null;
  if (lane !== null) e.lane = lane;
  if (d[BEFORE].length > 0 && at?.part !== true) {
    (cx.provenance.hints as AguiHints).before = d[BEFORE];
    d[BEFORE] = [];
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
function readCanonical(text: string, maxDepth: number): JsonObject | undefined {
  const n = text.length;
  if (text.charCodeAt(n - 1) !== 125) return undefined;
  let r = readerAfter(text, C_CARRIED_HEAD);
  if (r !== undefined) {
    const call = readPlainString(r);
    if (call === undefined || !readFixed(r, C_CARRIED_TEXT) || text.charCodeAt(n - 2) !== 125)
      return undefined;
    const output = readStringTo(r, n - 2);
    if (output === undefined) return undefined;
    return { type: 'CUSTOM', name: CARRIED_OUTPUT, value: { call, text: output } };
  }
  r = readerAfter(text, C_RESULT_HEAD);
  if (r === undefined) return readShort(text, maxDepth);
  const messageId = readPlainString(r);
  if (messageId === undefined || !readFixed(r, C_RESULT_CALL)) return undefined;
  const toolCallId = readPlainString(r);
  if (toolCallId === undefined || !readFixed(r, C_RESULT_CONTENT)) return undefined;
  // A failed call's result ends with its metadata (`}}}`); any other with the role (`"}`).
  const failed = text.charCodeAt(n - 2) === 125;
  const tail = failed ? C_RESULT_FAILED_TAIL : C_RESULT_TAIL;
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
 * (wire.ts's `C_*` constants), as the record `JSON.parse` gives (the same keys in the same order, in one
 * literal per shape), or `undefined` (the line then takes the general path). Every piece is
 * checked in order up to the line's end; ids are plain strings (no escape), a call's argument
 * chunk and summary are parsed alone. The frequent records' hidden classes are then the module's
 * literals', which outlive a full GC, where `JSON.parse`'s die with the last record
 * (docs/performance.md, "AG-UI and AI SDK codecs", round twelve). Held to the general path by
 * test/ui/canonical-lines.test.ts.
 */
function readShort(text: string, maxDepth: number): JsonObject | undefined {
  const n = text.length;
  // `{"type":"` then the type: its first letters pick the one head to compare.
  const c9 = text.charCodeAt(9);
  if (c9 === 83) {
    if (text.charCodeAt(14) === 70) return readStepEnd(text, maxDepth);
    const r = readerAfter(text, C_STEP_START_HEAD);
    if (r === undefined) return undefined;
    const stepName = readPlainString(r);
    if (stepName === undefined || r.at !== n - 1) return undefined;
    return { type: 'STEP_STARTED', stepName };
  }
  if (c9 !== 84) return undefined;
  let r: TextReader | undefined;
  if (text.charCodeAt(10) === 69) {
    r = readerAfter(text, C_MESSAGE_START_HEAD);
    if (r !== undefined) {
      const messageId = readPlainString(r);
      if (messageId === undefined || !readFixed(r, C_MESSAGE_START_TAIL) || r.at !== n) return undefined;
      return { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' };
    }
    r = readerAfter(text, C_MESSAGE_END_HEAD);
    if (r === undefined) return undefined;
    const messageId = readPlainString(r);
    if (messageId === undefined || r.at !== n - 1) return undefined;
    return { type: 'TEXT_MESSAGE_END', messageId };
  }
  r = readerAfter(text, C_CALL_ARGS_HEAD);
  if (r !== undefined) {
    const toolCallId = readPlainString(r);
    if (toolCallId === undefined || !readFixed(r, C_CALL_ARGS_DELTA)) return undefined;
    const delta = readStringTo(r, n - 1);
    if (delta === undefined) return undefined;
    return { type: 'TOOL_CALL_ARGS', toolCallId, delta };
  }
  r = readerAfter(text, C_CALL_START_HEAD);
  if (r !== undefined) {
    const toolCallId = readPlainString(r);
    if (toolCallId === undefined || !readFixed(r, C_CALL_START_NAME)) return undefined;
    const toolCallName = readPlainString(r);
    if (toolCallName === undefined || r.at !== n - 1) return undefined;
    return { type: 'TOOL_CALL_START', toolCallId, toolCallName };
  }
  r = readerAfter(text, C_CALL_END_HEAD);
  if (r === undefined) return undefined;
  const toolCallId = readPlainString(r);
  if (toolCallId === undefined) return undefined;
  if (r.at === n - 1) return { type: 'TOOL_CALL_END', toolCallId };
  // The summary's object, its metadata and the record close together: `…"}}}`.
  if (!readFixed(r, C_CALL_END_SUMMARY) || text.charCodeAt(n - 2) !== 125 || text.charCodeAt(n - 3) !== 125)
    return undefined;
  const argsSummary = readStringTo(r, n - 3);
  if (argsSummary === undefined) return undefined;
  return { type: 'TOOL_CALL_END', toolCallId, metadata: { agentwire: { argsSummary } } };
}

/**
 * A round's end spelled exactly as the writer spells it for a round with a stop reason and one
 * usage entry of input, output and total tokens, with or without its cost (wire.ts's `C_*` constants), as
 * the record `JSON.parse` gives (the same keys in the same order, in one literal per shape), or
 * `undefined` (the line then takes the general path). Every piece is checked in order up to the
 * line's end; the name and the stop reason are plain strings, the counts plain digits (the
 * numbers `JSON.parse` reads), the cost a number parsed alone. Held to the general path by
 * test/ui/canonical-lines.test.ts.
 */
function readStepEnd(text: string, maxDepth: number): JsonObject | undefined {
  const n = text.length;
  // The usage entry is the record's fifth level.
  const r = maxDepth < STEP_END_DEPTH ? undefined : readerAfter(text, C_STEP_END_HEAD);
  if (r === undefined) return undefined;
  const stepName = readPlainString(r);
  if (stepName === undefined || !readFixed(r, C_STEP_END_REASON)) return undefined;
  const stopReason = readPlainString(r);
  if (stopReason === undefined || !readFixed(r, C_STEP_END_INPUT)) return undefined;
  const inputTokens = readDigits(r);
  if (inputTokens === undefined || !readFixed(r, C_STEP_END_OUTPUT)) return undefined;
  const outputTokens = readDigits(r);
  if (outputTokens === undefined || !readFixed(r, C_STEP_END_TOTAL)) return undefined;
  const totalTokens = readDigits(r);
  if (totalTokens === undefined || !readFixed(r, C_STEP_END_USAGE_END)) return undefined;
  // The metadata, its `agentwire` object and the record close together: `…}}}`.
  if (text.charCodeAt(n - 2) !== 125 || text.charCodeAt(n - 3) !== 125) return undefined;
  if (r.at === n - 3) {
    const usage = [{ inputTokens, outputTokens, totalTokens }];
    return { type: 'STEP_FINISHED', stepName, metadata: { agentwire: { stopReason, usage } } };
  }
  if (!readFixed(r, C_STEP_END_COST)) return undefined;
  const costUsd = readJsonTo(r, n - 3);
  if (!isFiniteNumber(costUsd)) return undefined;
  const usage = [{ inputTokens, outputTokens, totalTokens }];
  return { type: 'STEP_FINISHED', stepName, metadata: { agentwire: { stopReason, usage, costUsd } } };
}

/** A reader at the end of `head` when `text` begins with it, else `undefined`. */
function readerAfter(text: string, head: string): TextReader | undefined {
  if (text.slice(0, head.length) !== head) return undefined;
  const r = textReader(text);
  r.at = head.length;
  return r;
}

/** The depth of a round's end with its usage (`metadata.agentwire.usage[0]`). */
const STEP_END_DEPTH = 5;

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
