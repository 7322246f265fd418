import { appendRoundText } from '../../bounds';
import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import { isFiniteNumber, num, str } from '../../guards';
import { type IsoClock, newIsoClock } from '../../iso';
import {
  DEPTH_PRECHECK_CHARS,
  isJsonObject,
  type JsonObject,
  mayHoldUnsafeNumber,
  NOT_PARSED,
  parseMeasuredRecord,
  readStringToken,
  resolveMaxDepth,
  setOwn,
  unsafeNumberMessage,
  valueExceedsDepth,
} from '../../json';
import { copyJson } from '../../kept';
import type {
  AgentEvent,
  AgentEventOf,
  ModelUsage,
  Provenance,
  QuestionItem,
  RunStatus,
  Usage,
} from '../../model';
import {
  readDigits,
  readFixed,
  readJsonTo,
  readString,
  type TextReader,
  textReader,
} from '../../text-reader';
import { addExact, addUsage } from '../../usage';
import {
  ANSWER,
  CHILD_BY_CALL,
  CLOCK,
  LANE_USAGE,
  LAST_LINE,
  LAST_OFFSET,
  LAST_STREAMED,
  LAST_TS,
  MAX_DEPTH,
  REASONING_SINCE_MESSAGE,
  REPORT,
  ROUND,
  ROUND_TEXT,
  ROUND_USAGE,
  RUN_CANCELLED,
  RUN_ERROR,
  RUN_OPEN,
  RUN_USAGE,
  SESSION,
  SHORTCUT,
  SINK,
  STREAMED_MESSAGES,
  STREAMED_REASONING,
  TOOL_NAMES,
  TURN_OPEN,
  TYPE_AT,
} from './slots';
import {
  COPILOT_CANONICAL_HEAD,
  COPILOT_DELTA_HEAD,
  COPILOT_DELTA_LINE,
  COPILOT_DENIED_BY,
  COPILOT_PERMISSION_SLOTS,
  type CopilotHints,
  type CopilotRecordType,
  copilotDecision,
  copilotSlot,
  copilotTimestampAt,
} from './wire';

/** Options of the Copilot decoder. */
export interface CopilotDecodeOptions extends DecodeOptions {}

const FORMAT = 'copilot' as const;

/** An event being built: its type, and fields set as the record gives them. */
type Emit = { type: AgentEvent['type'] } & Record<string, unknown>;

// Copilot's token fields (assistant.usage, shutdown metrics) and the model counts they are, in
// the counts' order.
const TOKENS = [
  ['input', 'inputTokens'],
  ['output', 'outputTokens'],
  ['cacheRead', 'cacheReadTokens'],
  ['cacheWrite', 'cacheWriteTokens'],
  ['reasoning', 'reasoningTokens'],
] as const;

// Copilot's token fields as model counts.
function tokenCounts(d: JsonObject): ModelUsage {
  const u: ModelUsage = {};
  for (const [count, field] of TOKENS) {
    const n = num(d[field]);
    if (n !== undefined) u[count] = n;
  }
  return u;
}

/** A record's envelope, checked: what every record needs before its type is looked at. */
function envelopeProblem(r: JsonObject): string | undefined {
  if (typeof r.id !== 'string') return '"id" is not a string';
  if (typeof r.timestamp !== 'string') return '"timestamp" is not a string';
  if (!(r.parentId === null || typeof r.parentId === 'string'))
    return '"parentId" is neither a string nor null';
  if (!isJsonObject(r.data)) return '"data" is not an object';
  if (r.agentId !== undefined && typeof r.agentId !== 'string') return '"agentId" is not a string';
  return undefined;
}

// The data fields each mapped type must have, with their JSON type.
const REQUIRED: Partial<Record<string, ReadonlyArray<readonly [string, 'string' | 'boolean' | 'object']>>> = {
  'session.start': [['sessionId', 'string']],
  'session.error': [['message', 'string']],
  'session.warning': [['message', 'string']],
  'session.title_changed': [['title', 'string']],
  'user.message': [['content', 'string']],
  'assistant.turn_start': [['turnId', 'string']],
  'assistant.turn_end': [['turnId', 'string']],
  'assistant.message_start': [['messageId', 'string']],
  'assistant.message_delta': [
    ['messageId', 'string'],
    ['deltaContent', 'string'],
  ],
  'assistant.message': [
    ['messageId', 'string'],
    ['content', 'string'],
  ],
  'assistant.reasoning': [
    ['reasoningId', 'string'],
    ['content', 'string'],
  ],
  'assistant.reasoning_delta': [
    ['reasoningId', 'string'],
    ['deltaContent', 'string'],
  ],
  'tool.execution_start': [
    ['toolCallId', 'string'],
    ['toolName', 'string'],
  ],
  'tool.execution_partial_result': [
    ['toolCallId', 'string'],
    ['partialOutput', 'string'],
  ],
  'tool.execution_complete': [
    ['toolCallId', 'string'],
    ['success', 'boolean'],
  ],
  'subagent.started': [['toolCallId', 'string']],
  'subagent.completed': [['toolCallId', 'string']],
  'subagent.failed': [['toolCallId', 'string']],
  'permission.requested': [
    ['requestId', 'string'],
    ['permissionRequest', 'object'],
  ],
  'permission.completed': [
    ['requestId', 'string'],
    ['result', 'object'],
  ],
  'user_input.requested': [
    ['requestId', 'string'],
    ['question', 'string'],
  ],
  'user_input.completed': [['requestId', 'string']],
};

function dataProblem(type: string, data: JsonObject): string | undefined {
  // Own entries only: a type named like a property of every object requires nothing.
  for (const [key, kind] of (Object.hasOwn(REQUIRED, type) ? REQUIRED[type] : undefined) ?? []) {
    const v = data[key];
    if (kind === 'object' ? !isJsonObject(v) : typeof v !== kind) return `data.${key} is not a ${kind}`;
  }
  return undefined;
}

/** Context of the record being mapped: what every event built from it shares. */
interface Line {
  record: JsonObject;
  data: JsonObject;
  type: string;
  text: string;
  line: number;
  offset: number;
  /** The envelope `agentId`: the child lane the record belongs to. */
  agent: string | undefined;
  ts: number | undefined;
  out: AgentEvent[];
  /** Whether the line's first (primary) event has been pushed. */
  primaryDone: boolean;
}

/**
 * The decoder's state between lines ({@link newDecoder}): an array of slots (the indices below),
 * not a literal. A literal made once per decoder gets no allocation site until its factory has run
 * several times, so its hidden class (and its fields' tracked types) die with the last decoder at a
 * full GC and take the optimised per-line code that embedded them along; an array's hidden class is
 * the realm's and outlives every GC (docs/performance.md, "Amp decoder, round twelve", "Copilot
 * codec, round thirteen").
 */
type Decoder = [
  sink: DiagnosticSink,
  report: LineReport,
  maxDepth: number,
  session: string | undefined,
  runOpen: boolean,
  turnOpen: boolean,
  runError: string | undefined,
  runCancelled: boolean,
  answer: string | undefined,
  runUsage: Usage | undefined,
  round: number | undefined,
  roundText: string,
  roundUsage: Usage | undefined,
  // Open state keyed by ids: entries leave when their end arrives, so memory follows what is open.
  streamedMessages: Set<string>,
  // The message last marked streamed (in `streamedMessages` while set): a message's deltas come
  // in a row, and a compare costs less than hashing its id into the set again.
  lastStreamed: string | undefined,
  streamedReasoning: Set<string>,
  reasoningSinceMessage: boolean,
  toolNames: Map<string, string>,
  childByCall: Map<string, string>,
  laneUsage: Map<string, Usage>,
  lastLine: number,
  lastOffset: number,
  lastTs: number | undefined,
  clock: IsoClock,
  // Whether canonical message_delta lines take the shortcut (the property test turns it off).
  shortcut: boolean,
  // Where the last line the shortcut took had its `","type":"` key (0 before one: a line starts
  // with `{` there, so no line is turned away by it).
  typeAt: number,
];

function newDecoder(options: CopilotDecodeOptions, sink: DiagnosticSink, shortcut: boolean): Decoder {
  const maxDepth = resolveMaxDepth(options.maxDepth);
  return [
    sink,
    lineReporter(sink, FORMAT),
    maxDepth,
    undefined,
    false,
    false,
    undefined,
    false,
    undefined,
    undefined,
    undefined,
    '',
    undefined,
    new Set(),
    undefined,
    new Set(),
    false,
    new Map(),
    new Map(),
    new Map(),
    0,
    0,
    undefined,
    newIsoClock(),
    // The record nests two levels (the envelope, its data): a smaller bound refuses it.
    shortcut && maxDepth >= 2,
    0,
  ];
}

/**
 * The Copilot session event decoder: one event envelope per line → canonical events. Stateful:
 * a run is the span from a `user.message` (or the first turn) to `session.idle`; child lanes
 * come from the envelope's `agentId`; usage per API call is summed into the round and the run.
 * `shortcut` false reads every line by the general path (for the test that holds the
 * message_delta shortcut equal to it).
 */
export function createCopilotRecordDecoder(
  options: CopilotDecodeOptions,
  sink: DiagnosticSink,
  shortcut = true,
): RecordDecoder {
  return new CopilotRecordDecoder(options, sink, shortcut);
}

/**
 * The decoder ({@link createCopilotRecordDecoder}; the shortcut test builds it): the state in its
 * element 0, `line` and `end` on the prototype. With no named property of its own, every decoder
 * has the class's initial hidden class, which the class holds: the splitter's call site sees one
 * map and one target at every decoder and across a full GC (a literal made once per decoder has a
 * hidden class a full GC frees; a closure or bound function per decoder is a new call target each
 * time: docs/performance.md, "Copilot writer, round seven", "Copilot codec, round thirteen").
 */
export class CopilotRecordDecoder implements RecordDecoder {
  declare private readonly 0: Decoder;

  /**
   * Creates a decoder that reports to `sink`. `shortcut` false reads every line by the general
   * path (for the test that holds the message_delta shortcut equal to it).
   */
  constructor(options: CopilotDecodeOptions, sink: DiagnosticSink, shortcut = true) {
    (this as unknown as { 0: Decoder })[0] = newDecoder(options, sink, shortcut);
  }

  /** One line: its events onto `out`. */
  line(text: string, line: number, offset: number, out: AgentEvent[]): void {
    readLine(this[0], text, line, offset, out);
  }

  /** The input ended: a run still open ends incomplete. */
  end(out: AgentEvent[]): void {
    endStream(this[0], out);
  }
}

function readLine(dec: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  dec[LAST_LINE] = line;
  dec[LAST_OFFSET] = offset;
  if (dec[SHORTCUT] && canonicalDelta(dec, text, line, offset, out)) return;
  const canonical = copilotCanonicalLines.enabled
    ? readCopilotCanonicalLine(text, dec[MAX_DEPTH])
    : undefined;
  if (canonical !== undefined) canonicalLine(dec, canonical, text, line, offset, out);
  else parsedLine(dec, text, line, offset, out);
}

// A line the canonical reader read: its record and data are the reader's literals, whose hidden
// classes outlive a full GC, and they are read here and in `map` at sites no `JSON.parse` record
// reaches (a parsed record's hidden class dies at a full GC when no record is alive, and takes
// the optimised code of every function that read one along: docs/performance.md, "Copilot
// decoder, round sixteen"). The reader took only the types below with the data each requires,
// so the envelope and `dataProblem` checks of `parsedLine` hold by construction.
function canonicalLine(
  dec: Decoder,
  record: JsonObject,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): void {
  const ts = copilotTimestampAt(dec[CLOCK], record.timestamp as string);
  const ctx: Line = {
    record,
    data: record.data as JsonObject,
    type: record.type as string,
    text,
    line,
    offset,
    agent: undefined,
    ts,
    out,
    primaryDone: false,
  };
  if (ts !== undefined) dec[LAST_TS] = ts;
  map(dec, ctx);
}

// A line `JSON.parse` read (the general path: every line when the canonical reader is off).
function parsedLine(dec: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  const record = parse(dec, text, line, offset);
  if (record === undefined) return;
  const type = record.type;
  const problem = envelopeProblem(record);
  if (typeof type !== 'string' || problem !== undefined) {
    dec[REPORT](
      'invalid_record',
      'error',
      line,
      offset,
      typeof type !== 'string'
        ? 'a record without a string "type"; kept as unknown'
        : `invalid envelope: ${problem}; kept as unknown`,
    );
    out.push(unknownRecord(dec, record, typeof type === 'string' ? type : undefined, text, line, offset));
    return;
  }
  const data = record.data as JsonObject;
  const agent = str(record.agentId);
  const parsedTs = copilotTimestampAt(dec[CLOCK], record.timestamp as string);
  const ctx: Line = {
    record,
    data,
    type,
    text,
    line,
    offset,
    agent,
    ts: parsedTs,
    out,
    primaryDone: false,
  };
  if (ctx.ts !== undefined) dec[LAST_TS] = ctx.ts;
  // A type no case of `map` or `mapOnce` names (no field required of it) ends as unknown there:
  // no list of the known types in the reader (issue #16).
  const bad = dataProblem(type, data);
  if (bad !== undefined) {
    dec[REPORT]('invalid_record', 'error', line, offset, `invalid ${type} event: ${bad}; kept as unknown`);
    unknown(dec, ctx);
    return;
  }
  map(dec, ctx);
}

// The envelope's type key as a delta line spells it (`COPILOT_DELTA_LINE.type`'s first characters),
// and where the `d` of `message_delta` is after its start.
const TYPE_KEY = COPILOT_DELTA_LINE.type.slice(0, COPILOT_DELTA_LINE.type.indexOf(':"') + 2);
const DELTA_D = COPILOT_DELTA_LINE.type.indexOf('_delta') + 1;

/**
 * The shortcut beside the general path: an `assistant.message_delta` line spelled exactly as
 * the writer spells it (`COPILOT_DELTA_LINE` in wire.ts: SDK order, no spaces, ids and
 * timestamp without escapes) is read without `JSON.parse` of the line: its keys compared as
 * text, the delta parsed alone only when it holds an escape. The writer's template record is
 * built from the pieces, equal to what `JSON.parse` gives. Any other spelling returns false
 * having done nothing, and takes the general path, which gives the same events and
 * diagnostics for every line accepted here: the property test in test/copilot/shortcut.test.ts
 * holds the two equal (the cost: docs/performance.md, "Amp and Copilot").
 */
function canonicalDelta(
  dec: Decoder,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): boolean {
  // The tail first: it turns records ending in a number or an object away before the
  // expression reads their ids.
  const L = COPILOT_DELTA_LINE;
  const ephemeral = text.endsWith(L.tail);
  if (!ephemeral && !text.endsWith(L.bareTail)) return false;
  const close = text.length - (ephemeral ? L.tail : L.bareTail).length - 1;
  if (text.charCodeAt(close) !== 34) return false;
  // Lines of a stream share their ids' and timestamp's lengths, so the other records (turn ends,
  // partial results, whole messages) end like a delta and have their type key where the last
  // delta had it. In a line taken here, `","type":"` occurs once, at the type key: the ids and
  // the timestamp hold no quote, the delta no unescaped one. So a line with that text at that
  // place and not the `d` of `message_delta` where a delta has it is no delta line, and is turned
  // away before the expression reads its ids. The one character is read first: a delta line
  // has it, and pays that read only (`startsWith` at a position costs more than the expression).
  // Any other line is read by the expression as before.
  const at = dec[TYPE_AT];
  if (text.charCodeAt(at + DELTA_D) !== 100 && text.indexOf(TYPE_KEY, at) === at) return false;
  const head = COPILOT_DELTA_HEAD.exec(text);
  if (head === null) return false;
  const open = head[0].length;
  const delta = readStringToken(text, open, close);
  if (delta === undefined) return false;
  const id = head[1]!;
  const parentId = head[2] ?? null;
  const timestamp = head[3]!;
  const message = head[4]!;
  dec[TYPE_AT] = open - L.delta.length - message.length - L.type.length;
  // The record as JSON.parse builds it, keys in their order: the writer's template.
  const data = { messageId: message, deltaContent: delta };
  const record: JsonObject = ephemeral
    ? { id, parentId, timestamp, type: 'assistant.message_delta', data, ephemeral: true }
    : { id, parentId, timestamp, type: 'assistant.message_delta', data };
  const ts = copilotTimestampAt(dec[CLOCK], timestamp);
  if (ts !== undefined) dec[LAST_TS] = ts;
  markStreamed(dec, message);
  const session = dec[SESSION];
  const round = dec[ROUND];
  if (COPILOT_WHOLE_EVENTS.enabled && session !== undefined && ts !== undefined && round !== undefined) {
    // As `push` builds it for a record without agentId or parentToolCallId: no lane.
    const hints: CopilotHints = { raw: text, record };
    const provenance = { format: FORMAT, line, offset, hints: hints as Record<string, unknown> };
    out.push({ type: 'text.delta', text: delta, message, session, ts, round, provenance });
    return true;
  }
  // A delta outside a round (or without a session or time): the rare case, mapped as a line the
  // canonical reader read (`canonicalLine`), one copy of the event's general construction.
  const type = 'assistant.message_delta';
  map(dec, { record, data, type, text, line, offset, agent: undefined, ts, out, primaryDone: false });
  return true;
}

/**
 * `parseObjectRecord` with the depth bound measured on the parsed value: a Copilot record holds
 * a few objects (the envelope, its data, a result), so the walk visits those few where the
 * text measure sweeps the whole line twice (docs/performance.md, "Amp and Copilot"). The same
 * diagnostics, in the same order.
 */
function parse(dec: Decoder, text: string, line: number, offset: number): JsonObject | undefined {
  const value = parseMeasuredRecord(text, line, offset, dec[MAX_DEPTH], FORMAT, dec[SINK]);
  if (value === NOT_PARSED) return undefined;
  if (isJsonObject(value)) return value;
  dec[REPORT]('invalid_json', 'error', line, offset, 'not a JSON object');
  return undefined;
}

function markStreamed(dec: Decoder, message: string): void {
  if (message === dec[LAST_STREAMED]) return;
  dec[STREAMED_MESSAGES].add(message);
  dec[LAST_STREAMED] = message;
}

function endStream(dec: Decoder, out: AgentEvent[]): void {
  if (dec[RUN_OPEN])
    endRun(dec, 'incomplete', syntheticAt(dec[LAST_LINE], dec[LAST_OFFSET]), out, dec[LAST_TS]);
}

/** A kept record with a number `JSON.parse` could not hold exactly: reported (no schema reads it). */
function checkNumbers(dec: Decoder, record: JsonObject, text: string, line: number, offset: number): void {
  if (!mayHoldUnsafeNumber(record)) return;
  const message = unsafeNumberMessage(text);
  if (message !== undefined) dec[REPORT]('invalid_record', 'error', line, offset, message);
}

function syntheticAt(line: number, offset: number): Provenance {
  return { format: FORMAT, line, offset, synthetic: true };
}

/** Provenance of the line's events: the primary one carries the writer's hints. */
function provenance(ctx: Line, synthetic = false): Provenance {
  if (synthetic) return syntheticAt(ctx.line, ctx.offset);
  // The record itself is the writer's template (its envelope, its data, fields of its own):
  // one reference, nothing copied.
  const hints: CopilotHints = { raw: ctx.text, record: ctx.record };
  return { format: FORMAT, line: ctx.line, offset: ctx.offset, hints: hints as Record<string, unknown> };
}

/**
 * Whether the frequent events (text, tool calls and their output, usage, a message's start and
 * end, a turn's start and end) are built whole, each in one object literal with every field it
 * has, instead of a literal {@link push} adds the envelope to afterwards. The two give the same
 * events; off, only the general path runs (the property test in
 * test/copilot/whole-events.test.ts holds them equal). Whole literals keep their hidden classes
 * across a full GC (docs/performance.md, "Amp and Copilot").
 */
export const COPILOT_WHOLE_EVENTS: { enabled: boolean } = { enabled: true };

/** What every whole event of a line carries: the envelope {@link push} would add. */
interface Envelope {
  session: string;
  ts: number;
  round: number;
  provenance: Provenance;
}

/**
 * The envelope of the line's primary event when it is the frequent one (a session, a
 * timestamp, a round, the main lane), the line marked as having its primary event; undefined
 * (nothing changed) sends the event through {@link push}.
 */
function wholeEnvelope(dec: Decoder, ctx: Line): Envelope | undefined {
  const session = dec[SESSION];
  const ts = ctx.ts;
  const round = dec[ROUND];
  if (
    !COPILOT_WHOLE_EVENTS.enabled ||
    session === undefined ||
    ts === undefined ||
    round === undefined ||
    ctx.primaryDone ||
    ctx.agent !== undefined ||
    // A record naming a spawning call may be in a child's lane: left to `push`, which gives the
    // same event when it is not. Read here, not by `laneOf`, which `push` also calls with the
    // records `JSON.parse` made (see `canonicalLine`).
    ctx.data.parentToolCallId !== undefined
  )
    return undefined;
  ctx.primaryDone = true;
  return { session, ts, round, provenance: provenance(ctx) };
}

function push(dec: Decoder, ctx: Line, e: Emit, synthetic = false): void {
  const event = e as unknown as AgentEvent;
  if (dec[SESSION] !== undefined) event.session = dec[SESSION];
  if (ctx.ts !== undefined) event.ts = ctx.ts;
  if (dec[ROUND] !== undefined && event.type !== 'run.start' && event.type !== 'run.end')
    event.round = dec[ROUND];
  const lane = laneOf(dec, ctx);
  if (lane !== undefined && e.type !== 'child.start' && e.type !== 'child.end') event.lane = lane;
  event.provenance = provenance(ctx, synthetic || ctx.primaryDone);
  if (!synthetic) ctx.primaryDone = true;
  ctx.out.push(event);
}

function laneOf(dec: Decoder, ctx: Line): string | undefined {
  if (ctx.agent !== undefined) return ctx.agent;
  // The deprecated parentToolCallId names the spawning call: its child, when one was started.
  const parent = str(ctx.data.parentToolCallId);
  return parent === undefined ? undefined : dec[CHILD_BY_CALL].get(parent);
}

// A record kept as an unknown event, stamped with its line's time and lane (`unknownRecord`).
function unknown(dec: Decoder, ctx: Line): void {
  const e = unknownRecord(dec, ctx.record, ctx.type, ctx.text, ctx.line, ctx.offset);
  if (ctx.ts !== undefined) e.ts = ctx.ts;
  if (ctx.agent !== undefined) e.lane = ctx.agent;
  ctx.out.push(e);
}

// A record as an unknown event (its numbers checked), with the stream's session.
function unknownRecord(
  dec: Decoder,
  record: JsonObject,
  type: string | undefined,
  text: string,
  line: number,
  offset: number,
): AgentEventOf<'unknown'> {
  checkNumbers(dec, record, text, line, offset);
  const e: AgentEventOf<'unknown'> = {
    type: 'unknown',
    record,
    provenance: { format: FORMAT, line, offset, hints: { raw: text } },
  };
  if (type !== undefined) e.recordType = type;
  if (dec[SESSION] !== undefined) e.session = dec[SESSION];
  return e;
}

function openRun(dec: Decoder, ctx: Line, input: string | undefined, synthetic: boolean): void {
  dec[RUN_OPEN] = true;
  dec[RUN_ERROR] = undefined;
  dec[RUN_CANCELLED] = false;
  dec[ANSWER] = undefined;
  dec[RUN_USAGE] = undefined;
  const e: Emit = { type: 'run.start' };
  if (input !== undefined) e.input = input;
  push(dec, ctx, e, synthetic);
}

function endRun(
  dec: Decoder,
  status: RunStatus,
  provenance: Provenance,
  out: AgentEvent[],
  ts: number | undefined,
): void {
  const e: AgentEventOf<'run.end'> = { type: 'run.end', status };
  if (dec[ANSWER] !== undefined) e.answer = dec[ANSWER];
  if (dec[RUN_USAGE] !== undefined) e.usage = dec[RUN_USAGE];
  if (dec[RUN_ERROR] !== undefined && status === 'failed') e.error = dec[RUN_ERROR];
  if (dec[SESSION] !== undefined) e.session = dec[SESSION];
  if (ts !== undefined) e.ts = ts;
  e.provenance = provenance;
  out.push(e);
  dec[RUN_OPEN] = false;
  dec[TURN_OPEN] = false;
  dec[ROUND] = undefined;
}

function map(dec: Decoder, ctx: Line): void {
  const d = ctx.data;
  const main = ctx.agent === undefined;
  switch (ctx.type as CopilotRecordType) {
    // The frequent records first.
    case 'assistant.message_delta': {
      const id = d.messageId as string;
      markStreamed(dec, id);
      const w = wholeEnvelope(dec, ctx);
      if (w !== undefined) {
        const { session, ts, round, provenance } = w;
        ctx.out.push({
          type: 'text.delta',
          text: d.deltaContent as string,
          message: id,
          session,
          ts,
          round,
          provenance,
        });
        return;
      }
      push(dec, ctx, { type: 'text.delta', text: d.deltaContent, message: id });
      return;
    }
    case 'assistant.reasoning_delta': {
      const id = d.reasoningId as string;
      dec[STREAMED_REASONING].add(id);
      dec[REASONING_SINCE_MESSAGE] = true;
      push(dec, ctx, { type: 'reasoning.delta', text: d.deltaContent, message: id });
      return;
    }
    case 'tool.execution_partial_result': {
      const w = wholeEnvelope(dec, ctx);
      if (w !== undefined) {
        const { session, ts, round, provenance } = w;
        const call = d.toolCallId as string;
        ctx.out.push({
          type: 'tool.output',
          call,
          text: d.partialOutput as string,
          session,
          ts,
          round,
          provenance,
        });
        return;
      }
      push(dec, ctx, { type: 'tool.output', call: d.toolCallId, text: d.partialOutput });
      return;
    }
    case 'assistant.usage': {
      const u = callUsage(d, ctx);
      // A round's and a run's usage are the main agent's own calls (the run's total is the sum of its
      // rounds); a subagent's calls stay usage events in its lane.
      if (main) dec[ROUND_USAGE] = sumUsage(dec[ROUND_USAGE], u);
      else dec[LANE_USAGE].set(ctx.agent!, addUsage(dec[LANE_USAGE].get(ctx.agent!) ?? {}, u));
      if (main && dec[RUN_OPEN]) dec[RUN_USAGE] = sumUsage(dec[RUN_USAGE], u);
      const w = wholeEnvelope(dec, ctx);
      if (w !== undefined) {
        const { session, ts, round, provenance } = w;
        ctx.out.push({ type: 'usage', usage: u, session, ts, round, provenance });
        return;
      }
      push(dec, ctx, { type: 'usage', usage: u });
      return;
    }
    case 'assistant.turn_start': {
      if (main && !dec[RUN_OPEN]) openRun(dec, ctx, undefined, true);
      const turn = d.turnId as string;
      if (main) {
        dec[TURN_OPEN] = true;
        dec[ROUND] = /^(?:0|[1-9]\d{0,14})$/.test(turn) ? Number(turn) : undefined;
        dec[ROUND_TEXT] = '';
        dec[ROUND_USAGE] = undefined;
      }
      const w = typeof d.model === 'string' ? undefined : wholeEnvelope(dec, ctx);
      if (w !== undefined) {
        const { session, ts, round, provenance } = w;
        ctx.out.push({ type: 'round.start', session, ts, round, provenance });
        return;
      }
      const e: Emit = { type: 'round.start' };
      if (typeof d.model === 'string') e.model = d.model;
      push(dec, ctx, e);
      return;
    }
    case 'assistant.turn_end': {
      const w =
        main && typeof d.model !== 'string' && dec[ROUND_USAGE] !== undefined
          ? wholeEnvelope(dec, ctx)
          : undefined;
      if (w !== undefined) {
        const { session, ts, round, provenance } = w;
        const usage = dec[ROUND_USAGE] as Usage;
        ctx.out.push({ type: 'round.end', message: dec[ROUND_TEXT], usage, session, ts, round, provenance });
        endTurn(dec);
        return;
      }
      const e: Emit = { type: 'round.end', message: main ? dec[ROUND_TEXT] : '' };
      if (typeof d.model === 'string') e.model = d.model;
      if (main && dec[ROUND_USAGE] !== undefined) e.usage = dec[ROUND_USAGE];
      // A subagent's turn carries its own calls' usage (its calls' events are in its lane).
      const laneUsage = main ? undefined : dec[LANE_USAGE].get(ctx.agent!);
      if (laneUsage !== undefined) {
        e.usage = laneUsage;
        dec[LANE_USAGE].delete(ctx.agent!);
      }
      push(dec, ctx, e);
      if (main) endTurn(dec);
      return;
    }
    case 'assistant.message_start': {
      const w = wholeEnvelope(dec, ctx);
      if (w !== undefined) {
        const { session, ts, round, provenance } = w;
        const message = d.messageId as string;
        ctx.out.push({ type: 'message.start', role: 'assistant', message, session, ts, round, provenance });
        return;
      }
      push(dec, ctx, { type: 'message.start', role: 'assistant', message: d.messageId });
      return;
    }
    case 'assistant.message':
      message(dec, ctx, main);
      return;
    case 'assistant.reasoning': {
      const id = d.reasoningId as string;
      if (dec[STREAMED_REASONING].delete(id)) {
        // Its text already came as deltas: a second copy would be counted twice.
        unknown(dec, ctx);
        return;
      }
      dec[REASONING_SINCE_MESSAGE] = true;
      push(dec, ctx, { type: 'reasoning.delta', text: d.content, message: id });
      return;
    }
    case 'tool.execution_start': {
      const call = d.toolCallId as string;
      const name = d.toolName as string;
      dec[TOOL_NAMES].set(call, name);
      // The event gets a copy of the kept arguments: the writer's kept-line check trusts that the
      // kept record is what its line says, and an in-place edit of an object the event shared
      // with it would change the kept record too (src/kept.ts, `copyJson`).
      const args = isJsonObject(d.arguments) ? copyJson(d.arguments) : d.arguments;
      const w = isJsonObject(args) && d.mcpServerName === undefined ? wholeEnvelope(dec, ctx) : undefined;
      if (w !== undefined) {
        const { session, ts, round, provenance } = w;
        ctx.out.push({
          type: 'tool.start',
          call,
          name,
          args: args as JsonObject,
          session,
          ts,
          round,
          provenance,
        });
        return;
      }
      const e: Emit = { type: 'tool.start', call, name: d.toolName };
      if (isJsonObject(args)) e.args = args;
      if (typeof d.mcpServerName === 'string') e.server = d.mcpServerName;
      push(dec, ctx, e);
      return;
    }
    case 'tool.execution_complete': {
      const call = d.toolCallId as string;
      const name = dec[TOOL_NAMES].get(call);
      const content = isJsonObject(d.result) ? str(d.result.content) : undefined;
      const w =
        name !== undefined && content !== undefined && d.error === undefined
          ? wholeEnvelope(dec, ctx)
          : undefined;
      if (w !== undefined) {
        const { session, ts, round, provenance } = w;
        dec[TOOL_NAMES].delete(call);
        const ok = d.success as boolean;
        ctx.out.push({
          type: 'tool.end',
          call,
          ok,
          name: name as string,
          text: content as string,
          session,
          ts,
          round,
          provenance,
        });
        return;
      }
      const e: Emit = { type: 'tool.end', call, ok: d.success };
      if (name !== undefined) {
        e.name = name;
        dec[TOOL_NAMES].delete(call);
      }
      if (content !== undefined) e.text = content;
      const error = isJsonObject(d.error) ? str(d.error.message) : undefined;
      if (error !== undefined) e.error = error;
      push(dec, ctx, e);
      return;
    }
    default:
      mapOnce(dec, ctx, main);
  }
}

// The records a stream has once or rarely (its session, its runs, subagents, errors) are mapped
// in a function of their own, called rarely enough that the optimising compiler does not inline
// it into `map`: the events they grow field by field have hidden classes a full GC frees, and
// code that had embedded them would be thrown away with them (docs/performance.md, "Copilot
// decoder, round fifteen").
function mapOnce(dec: Decoder, ctx: Line, main: boolean): void {
  const d = ctx.data;
  switch (ctx.type as CopilotRecordType) {
    case 'session.start': {
      dec[SESSION] = d.sessionId as string;
      const e: Emit = { type: 'session.start' };
      if (typeof d.producer === 'string') e.producer = d.producer;
      if (typeof d.version === 'number') e.protocol = String(d.version);
      if (typeof d.selectedModel === 'string') e.model = d.selectedModel;
      const cwd = isJsonObject(d.context) ? str(d.context.cwd) : undefined;
      if (cwd !== undefined) e.cwd = cwd;
      push(dec, ctx, e);
      return;
    }
    case 'user.message': {
      // `idle` delivery starts a run of its own: the one before ended, though the on-disk log
      // keeps no (ephemeral) session.idle to say so. Without a delivery, between turns, likewise.
      // A run whose turn is still open (turn_start, no turn_end) was cut off, not completed:
      // incomplete, as a shutdown inside a turn ends it.
      if (
        main &&
        dec[RUN_OPEN] &&
        (d.delivery === 'idle' || (d.delivery === undefined && dec[ROUND] === undefined && !dec[TURN_OPEN]))
      )
        endRun(
          dec,
          dec[TURN_OPEN] ? 'incomplete' : 'completed',
          syntheticAt(ctx.line, ctx.offset),
          ctx.out,
          ctx.ts,
        );
      if (main && !dec[RUN_OPEN]) openRun(dec, ctx, d.content as string, false);
      else push(dec, ctx, { type: 'user.message', text: d.content });
      return;
    }
    case 'subagent.started': {
      const call = d.toolCallId as string;
      const child = ctx.agent ?? call;
      dec[CHILD_BY_CALL].set(call, child);
      const e: Emit = { type: 'child.start', child, call };
      if (typeof d.agentName === 'string') e.name = d.agentName;
      if (typeof d.agentDescription === 'string') e.task = d.agentDescription;
      push(dec, ctx, e);
      return;
    }
    case 'subagent.completed':
    case 'subagent.failed': {
      const call = d.toolCallId as string;
      const child = ctx.agent ?? dec[CHILD_BY_CALL].get(call) ?? call;
      dec[CHILD_BY_CALL].delete(call);
      const failed = ctx.type === 'subagent.failed';
      const e: Emit = {
        type: 'child.end',
        child,
        status: failed ? 'failed' : d.cancelled === true ? 'cancelled' : 'completed',
      };
      if (failed && typeof d.error === 'string') e.result = d.error;
      push(dec, ctx, e);
      return;
    }
    case 'session.idle': {
      if (!main) {
        push(dec, ctx, { type: 'status', status: 'idle' });
        return;
      }
      // A run nothing announced (no user.message, no turn) still ends here.
      if (!dec[RUN_OPEN]) openRun(dec, ctx, undefined, true);
      const aborted = d.aborted === true || dec[RUN_CANCELLED];
      const status: RunStatus = aborted ? 'cancelled' : dec[RUN_ERROR] !== undefined ? 'failed' : 'completed';
      endRun(dec, status, provenance(ctx), ctx.out, ctx.ts);
      return;
    }
    case 'session.error': {
      // An error before anything else of a run belongs to the run it fails: the main agent's
      // error is fatal (its run ends failed at the session.idle); a non-fatal one is a
      // session.warning.
      if (main && !dec[RUN_OPEN]) openRun(dec, ctx, undefined, true);
      const e: Emit = { type: 'error', message: d.message, fatal: main };
      if (typeof d.errorType === 'string') e.code = d.errorType;
      if (main && dec[RUN_OPEN]) dec[RUN_ERROR] = d.message as string;
      push(dec, ctx, e);
      return;
    }
    case 'session.warning': {
      // A problem the session went on from: an error that fails nothing (and opens no run).
      const e: Emit = { type: 'error', message: d.message, fatal: false };
      if (typeof d.warningType === 'string') e.code = d.warningType;
      push(dec, ctx, e);
      return;
    }
    case 'abort': {
      // Like an error, an abort before anything else of a run belongs to the run it cancels.
      if (main && !dec[RUN_OPEN]) openRun(dec, ctx, undefined, true);
      const e: Emit = { type: 'cancel' };
      if (typeof d.reason === 'string') e.by = d.reason;
      if (main) dec[RUN_CANCELLED] = true;
      push(dec, ctx, e);
      return;
    }
    case 'session.shutdown': {
      push(dec, ctx, { type: 'usage', usage: shutdownUsage(d) });
      if (dec[RUN_OPEN]) {
        if (d.shutdownType === 'error' && typeof d.errorReason === 'string') dec[RUN_ERROR] = d.errorReason;
        const status: RunStatus =
          d.shutdownType === 'error' ? 'failed' : dec[TURN_OPEN] ? 'incomplete' : 'completed';
        endRun(dec, status, syntheticAt(ctx.line, ctx.offset), ctx.out, ctx.ts);
      }
      return;
    }
    case 'session.title_changed':
      push(dec, ctx, { type: 'session.title', title: d.title });
      return;
    case 'permission.requested':
      push(dec, ctx, approvalRequest(d));
      return;
    case 'permission.completed': {
      const kind = (d.result as JsonObject).kind;
      if (typeof kind !== 'string') {
        dec[REPORT](
          'invalid_record',
          'error',
          ctx.line,
          ctx.offset,
          `invalid ${ctx.type} event: data.result.kind is not a string; kept as unknown`,
        );
        unknown(dec, ctx);
        return;
      }
      const e: Emit = { type: 'approval.resolve', approval: d.requestId, decision: copilotDecision(kind) };
      // (`str`: a kind named like a property of every object names no one.)
      const by = str(COPILOT_DENIED_BY[kind]);
      if (by !== undefined) e.by = by;
      push(dec, ctx, e);
      return;
    }
    case 'user_input.requested': {
      // One question a request, its id the request's (answers are keyed by it); its choices are
      // the text the user picks, each its own id.
      const q: QuestionItem = { id: d.requestId as string, text: d.question as string };
      if (Array.isArray(d.choices))
        q.options = d.choices.filter((c) => typeof c === 'string').map((c) => ({ id: c, label: c }));
      const e: Emit = { type: 'question', question: d.requestId, questions: [q] };
      if (typeof d.toolCallId === 'string') e.call = d.toolCallId;
      push(dec, ctx, e);
      return;
    }
    case 'user_input.completed': {
      const answers: JsonObject = {};
      if (d.answer !== undefined) setOwn(answers, d.requestId as string, d.answer);
      push(dec, ctx, { type: 'question.answer', question: d.requestId, answers });
      return;
    }
    case 'session.compaction_start': {
      const e: Emit = { type: 'compaction.start' };
      if (typeof d.trigger === 'string') e.trigger = d.trigger;
      push(dec, ctx, e);
      return;
    }
    case 'session.compaction_complete': {
      const e: Emit = { type: 'compaction.end' };
      if (isFiniteNumber(d.tokensRemoved)) e.tokensFreed = d.tokensRemoved;
      if (typeof d.trigger === 'string') e.trigger = d.trigger;
      if (isFiniteNumber(d.preCompactionTokens)) e.tokensBefore = d.preCompactionTokens;
      if (isFiniteNumber(d.postCompactionTokens)) e.tokensAfter = d.postCompactionTokens;
      push(dec, ctx, e);
      return;
    }
    default:
      // A record type this decoder does not know.
      unknown(dec, ctx);
  }
}

// permission.requested: what its request says, read from the keys each kind keeps it in. The
// arguments are a copy (see `tool.execution_start`).
function approvalRequest(d: JsonObject): Emit {
  const pr = d.permissionRequest as JsonObject;
  const S = COPILOT_PERMISSION_SLOTS;
  const e: Emit = { type: 'approval.request', approval: d.requestId };
  for (const field of ['call', 'tool', 'title'] as const) {
    const key = copilotSlot(pr, S[field]);
    if (key !== undefined) e[field] = pr[key];
  }
  const args = copilotSlot(pr, S.args, true);
  if (args !== undefined) e.args = copyJson(pr[args]);
  const effect = copilotSlot(pr, S.effects);
  if (effect !== undefined) e.effects = [pr[effect]];
  return e;
}

/** A main-lane turn ended: no round until the next begins. */
function endTurn(dec: Decoder): void {
  dec[TURN_OPEN] = false;
  dec[ROUND] = undefined;
  dec[ROUND_TEXT] = '';
  dec[ROUND_USAGE] = undefined;
}

// assistant.message: the whole message. Its text and reasoning are events of their own only
// when no deltas carried them (on-disk logs keep no ephemeral deltas); they are derived
// (synthetic) and the message's end carries the record.
function message(dec: Decoder, ctx: Line, main: boolean): void {
  const d = ctx.data;
  const id = d.messageId as string;
  const content = d.content as string;
  const streamed = dec[STREAMED_MESSAGES].delete(id);
  if (id === dec[LAST_STREAMED]) dec[LAST_STREAMED] = undefined;
  const derived: Emit[] = [];
  const reasoning = str(d.reasoningText);
  if (reasoning !== undefined && reasoning !== '' && !dec[REASONING_SINCE_MESSAGE])
    derived.push({ type: 'reasoning.delta', text: reasoning, message: id });
  dec[REASONING_SINCE_MESSAGE] = false;
  if (!streamed && content !== '') derived.push({ type: 'text.delta', text: content, message: id });
  // The primary event first (it carries the record), then what it implies.
  const w = wholeEnvelope(dec, ctx);
  let end: AgentEvent;
  if (w !== undefined) {
    const { session, ts, round, provenance } = w;
    end = { type: 'message.end', message: id, session, ts, round, provenance };
  } else {
    push(dec, ctx, { type: 'message.end', message: id });
    end = ctx.out.pop()!;
  }
  for (const e of derived) push(dec, ctx, e, true);
  ctx.out.push(end);
  if (main && content !== '') {
    dec[ROUND_TEXT] = appendRoundText(dec[ROUND_TEXT], content, dec[REPORT], ctx.line, ctx.offset);
    dec[ANSWER] = content;
  }
}

function callUsage(d: JsonObject, ctx: Line): Usage {
  // The frequent call (input and output counts, no other count) built whole, in the general
  // path's key order: a usage grown from `{}` has hidden classes a full GC frees, and the
  // optimised code of every function that read one goes with them (docs/performance.md, "Copilot
  // decoder, round fifteen"). test/copilot/whole-events.test.ts holds the two equal.
  const input = d.inputTokens;
  const output = d.outputTokens;
  if (
    COPILOT_WHOLE_EVENTS.enabled &&
    typeof input === 'number' &&
    typeof output === 'number' &&
    typeof d.cacheReadTokens !== 'number' &&
    typeof d.cacheWriteTokens !== 'number' &&
    typeof d.reasoningTokens !== 'number'
  ) {
    const key = str(d.apiCallId) ?? (ctx.record.id as string);
    const model = d.model;
    return typeof model === 'string'
      ? { input, output, scope: 'call', key, model }
      : { input, output, scope: 'call', key };
  }
  const u: Usage = tokenCounts(d);
  u.scope = 'call';
  u.key = str(d.apiCallId) ?? (ctx.record.id as string);
  if (typeof d.model === 'string') u.model = d.model;
  return u;
}

/**
 * `addUsage(total ?? {}, u)`, the first total of a call's input and output counts alone built
 * whole (`addUsage` grows `{}`: hidden classes a full GC frees, with the optimised code of the
 * functions that read them); the same figures in the same order. Later calls add in place.
 * test/copilot/whole-events.test.ts holds the two equal.
 */
function sumUsage(total: Usage | undefined, u: Usage): Usage {
  if (total !== undefined) return addUsage(total, u);
  const input = u.input;
  const output = u.output;
  return COPILOT_WHOLE_EVENTS.enabled &&
    input !== undefined &&
    output !== undefined &&
    u.cacheRead === undefined &&
    u.cacheWrite === undefined &&
    u.reasoning === undefined &&
    u.costUsd === undefined
    ? { input: addExact(0, input), output: addExact(0, output) }
    : addUsage({}, u);
}

function shutdownUsage(d: JsonObject): Usage {
  const u: Usage = { scope: 'thread' };
  const metrics = d.modelMetrics;
  if (!isJsonObject(metrics)) return u;
  const byModel: Record<string, ModelUsage> = {};
  let total: Usage | undefined;
  for (const model of Object.keys(metrics)) {
    const m = metrics[model];
    if (!isJsonObject(m) || !isJsonObject(m.usage)) continue;
    const mu = tokenCounts(m.usage);
    setOwn(byModel, model, mu);
    total = addUsage(total ?? {}, mu);
  }
  Object.assign(u, total);
  u.byModel = byModel;
  return u;
}

/**
 * Test hook: `enabled: false` reads every line but the `message_delta` shortcut's with
 * `JSON.parse`, so that test/copilot/canonical-lines.test.ts can hold the canonical-line reader
 * equal to it.
 */
export const copilotCanonicalLines: { enabled: boolean } = { enabled: true };

// How deep every canonical record may nest (the envelope, its data, a call's result): a smaller
// bound leaves the line to `JSON.parse`, which reports it. A tool's arguments are measured alone
// against what the envelope and its data leave of the bound.
const CANONICAL_DEPTH = 3;
const DATA_DEPTH = 2;
// The end of a canonical line after its data with `"ephemeral":true`.
const EPHEMERAL_TAIL = ',"ephemeral":true}';

/**
 * The record of a line spelled as the Copilot CLI (and this library's writer) writes the frequent
 * records (the envelope in its key order, its strings without escapes, `"ephemeral":true` or
 * nothing after `data`, no space; the `data` of a turn's start or end, a message's start or whole
 * text, a tool call's start, partial output or end, a call's input and output counts, each in the
 * CLI's key order), read without `JSON.parse` of the line: the envelope by one match, then the
 * fixed text compared in place, each string read alone, the
 * counts from their digits, a tool's arguments parsed alone, the record built in literals (whose
 * hidden classes outlive a full GC: docs/performance.md, "Copilot decoder, round sixteen"). The
 * same keys in the same order with the same values as `JSON.parse(text)`, within `maxDepth`, or
 * `undefined` for any other line, which the caller parses: test/copilot/canonical-lines.test.ts
 * holds the two equal.
 */
export function readCopilotCanonicalLine(text: string, maxDepth: number): JsonObject | undefined {
  if (maxDepth < CANONICAL_DEPTH || text.charCodeAt(text.length - 1) !== 125) return undefined;
  // The envelope in one native match: cheaper than a call for each of its pieces.
  const head = COPILOT_CANONICAL_HEAD.exec(text);
  if (head === null) return undefined;
  const id = head[1]!;
  const parentId = head[2] ?? null;
  const timestamp = head[3]!;
  // The type's name: one of the names below only when it needs no escape.
  const name = head[4]!;
  const r = textReader(text);
  r.at = head[0].length;
  let type: CopilotRecordType;
  let data: JsonObject | undefined;
  switch (name) {
    case 'assistant.turn_start':
    case 'assistant.turn_end': {
      type = name === 'assistant.turn_start' ? 'assistant.turn_start' : 'assistant.turn_end';
      const turnId = keyString(r, 'turnId":');
      data = turnId !== undefined && readFixed(r, '}') ? { turnId } : undefined;
      break;
    }
    case 'assistant.message_start':
    case 'assistant.message': {
      const messageId = keyString(r, 'messageId":');
      if (name === 'assistant.message_start') {
        type = 'assistant.message_start';
        data = messageId !== undefined && readFixed(r, '}') ? { messageId } : undefined;
        break;
      }
      type = 'assistant.message';
      const content = messageId === undefined ? undefined : keyString(r, ',"content":');
      data = content !== undefined && readFixed(r, '}') ? { messageId, content } : undefined;
      break;
    }
    case 'tool.execution_start':
      type = 'tool.execution_start';
      data = readToolStart(r, maxDepth);
      break;
    case 'tool.execution_partial_result': {
      type = 'tool.execution_partial_result';
      const toolCallId = keyString(r, 'toolCallId":');
      const partialOutput = toolCallId === undefined ? undefined : keyString(r, ',"partialOutput":');
      data = partialOutput !== undefined && readFixed(r, '}') ? { toolCallId, partialOutput } : undefined;
      break;
    }
    case 'tool.execution_complete': {
      type = 'tool.execution_complete';
      const toolCallId = keyString(r, 'toolCallId":');
      const success =
        toolCallId === undefined || !readFixed(r, ',"success":')
          ? undefined
          : readFixed(r, 'true') || (readFixed(r, 'false') ? false : undefined);
      const content = success === undefined ? undefined : keyString(r, ',"result":{"content":');
      data =
        content !== undefined && readFixed(r, '}}')
          ? { toolCallId, success, result: { content } }
          : undefined;
      break;
    }
    case 'assistant.usage': {
      type = 'assistant.usage';
      const inputTokens = readFixed(r, 'inputTokens":') ? readDigits(r) : undefined;
      const outputTokens =
        inputTokens !== undefined && readFixed(r, ',"outputTokens":') ? readDigits(r) : undefined;
      data = outputTokens !== undefined && readFixed(r, '}') ? { inputTokens, outputTokens } : undefined;
      break;
    }
    default:
      return undefined;
  }
  if (data === undefined) return undefined;
  if (r.at === text.length - 1) return { id, parentId, timestamp, type, data };
  return readFixed(r, EPHEMERAL_TAIL) && r.at === text.length
    ? { id, parentId, timestamp, type, data, ephemeral: true }
    : undefined;
}

// The string after the fixed text `key` (a key and its colon), the cursor then past it.
function keyString(r: TextReader, key: string): string | undefined {
  return readFixed(r, key) ? readString(r) : undefined;
}

// A tool call's start: its id, its name, its arguments (any JSON value: the text from the cursor
// to the data's closing brace, found from the line's end, parsed alone and measured against the
// bound; a long one is left to `JSON.parse`, which measures the line's text first). Text there
// that is no one value (a key after the arguments) does not parse, and the line is left to
// `JSON.parse`; the schema's one key after them, `mcpServerName` (a string), is told without the
// parse's throw: text ending in a quote is one value only when it is a string.
function readToolStart(r: TextReader, maxDepth: number): JsonObject | undefined {
  const toolCallId = keyString(r, 'toolCallId":');
  const toolName = toolCallId === undefined ? undefined : keyString(r, ',"toolName":');
  if (toolName === undefined || !readFixed(r, ',"arguments":')) return undefined;
  const text = r.text;
  const end = text.length - (text.endsWith(EPHEMERAL_TAIL) ? EPHEMERAL_TAIL.length : 1) - 1;
  if (end - r.at > DEPTH_PRECHECK_CHARS) return undefined;
  if (text.charCodeAt(end - 1) === 34 && text.charCodeAt(r.at) !== 34) return undefined;
  const args = readJsonTo(r, end);
  return args !== undefined && !valueExceedsDepth(args, maxDepth - DATA_DEPTH) && readFixed(r, '}')
    ? { toolCallId, toolName, arguments: args }
    : undefined;
}
