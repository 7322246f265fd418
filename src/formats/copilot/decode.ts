import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import { num, str } from '../../guards';
import { type IsoClock, newIsoClock } from '../../iso';
import {
  isJsonObject,
  type JsonObject,
  mayHoldUnsafeNumber,
  NOT_PARSED,
  parseMeasuredRecord,
  readStringToken,
  resolveMaxDepth,
  setOwn,
  unsafeNumberMessage,
} from '../../json';
import type { AgentEvent, AgentEventOf, ModelUsage, Provenance, RunStatus, Usage } from '../../model';
import { addUsage } from '../../usage';
import {
  COPILOT_DELTA_HEAD,
  COPILOT_DELTA_LINE,
  type CopilotHints,
  type CopilotRecordType,
  copilotTimestampAt,
  isCopilotRecordType,
} from './wire';

/** Options of the Copilot decoder. */
export interface CopilotDecodeOptions extends DecodeOptions {}

const FORMAT = 'copilot' as const;

/** An event being built: its type, and fields set as the record gives them. */
type Emit = { type: AgentEvent['type'] } & Record<string, unknown>;

// Copilot's token fields (assistant.usage, shutdown metrics) as model counts.
function tokenCounts(d: JsonObject): ModelUsage {
  const u: ModelUsage = {};
  const input = num(d.inputTokens);
  if (input !== undefined) u.input = input;
  const output = num(d.outputTokens);
  if (output !== undefined) u.output = output;
  const cacheRead = num(d.cacheReadTokens);
  if (cacheRead !== undefined) u.cacheRead = cacheRead;
  const cacheWrite = num(d.cacheWriteTokens);
  if (cacheWrite !== undefined) u.cacheWrite = cacheWrite;
  const reasoning = num(d.reasoningTokens);
  if (reasoning !== undefined) u.reasoning = reasoning;
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
};

function dataProblem(type: string, data: JsonObject): string | undefined {
  for (const [key, kind] of REQUIRED[type] ?? []) {
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
 * The decoder's state between lines, built whole in one object literal ({@link newDecoder}): a
 * literal's hidden class is held by its allocation site and outlives a full GC, where a class
 * instance's fields (map transitions, held weakly) die with the last decoder and take the
 * optimised code that embedded them along (docs/performance.md, "Amp and Copilot").
 */
interface Decoder {
  readonly sink: DiagnosticSink;
  readonly report: LineReport;
  readonly maxDepth: number;
  session: string | undefined;
  runOpen: boolean;
  turnOpen: boolean;
  runError: string | undefined;
  runCancelled: boolean;
  answer: string | undefined;
  runUsage: Usage | undefined;
  round: number | undefined;
  roundText: string;
  roundUsage: Usage | undefined;
  // Open state keyed by ids: entries leave when their end arrives, so memory follows what is open.
  readonly streamedMessages: Set<string>;
  // The message last marked streamed (in `streamedMessages` while set): a message's deltas come
  // in a row, and a compare costs less than hashing its id into the set again.
  lastStreamed: string | undefined;
  readonly streamedReasoning: Set<string>;
  reasoningSinceMessage: boolean;
  readonly toolNames: Map<string, string>;
  readonly childByCall: Map<string, string>;
  readonly laneUsage: Map<string, Usage>;
  lastLine: number;
  lastOffset: number;
  lastTs: number | undefined;
  readonly clock: IsoClock;
  // Whether canonical message_delta lines take the shortcut (the property test turns it off).
  readonly shortcut: boolean;
}

function newDecoder(options: CopilotDecodeOptions, sink: DiagnosticSink, shortcut: boolean): Decoder {
  const maxDepth = resolveMaxDepth(options.maxDepth);
  return {
    sink,
    report: lineReporter(sink, FORMAT),
    maxDepth,
    session: undefined,
    runOpen: false,
    turnOpen: false,
    runError: undefined,
    runCancelled: false,
    answer: undefined,
    runUsage: undefined,
    round: undefined,
    roundText: '',
    roundUsage: undefined,
    streamedMessages: new Set(),
    lastStreamed: undefined,
    streamedReasoning: new Set(),
    reasoningSinceMessage: false,
    toolNames: new Map(),
    childByCall: new Map(),
    laneUsage: new Map(),
    lastLine: 0,
    lastOffset: 0,
    lastTs: undefined,
    clock: newIsoClock(),
    // The record nests two levels (the envelope, its data): a smaller bound refuses it.
    shortcut: shortcut && maxDepth >= 2,
  };
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
  // The same two functions for every decoder (not closures per decoder): the splitter's call
  // site sees one target and can inline it.
  const decoder: StatefulDecoder = { dec: newDecoder(options, sink, shortcut), line: lineOf, end: endOf };
  return decoder;
}

/** A record decoder over its state literal. */
interface StatefulDecoder extends RecordDecoder {
  readonly dec: Decoder;
}

function lineOf(this: StatefulDecoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  readLine(this.dec, text, line, offset, out);
}

function endOf(this: StatefulDecoder, out: AgentEvent[]): void {
  endStream(this.dec, out);
}

/** {@link createCopilotRecordDecoder} as a class (its state in one literal all the same). */
export class CopilotRecordDecoder implements RecordDecoder {
  private readonly dec: Decoder;

  /**
   * Creates a decoder that reports to `sink`. `shortcut` false reads every line by the general
   * path (for the test that holds the message_delta shortcut equal to it).
   */
  constructor(options: CopilotDecodeOptions, sink: DiagnosticSink, shortcut = true) {
    this.dec = newDecoder(options, sink, shortcut);
  }

  /** One line: its events onto `out`. */
  line(text: string, line: number, offset: number, out: AgentEvent[]): void {
    readLine(this.dec, text, line, offset, out);
  }

  /** The input ended: a run still open ends incomplete. */
  end(out: AgentEvent[]): void {
    endStream(this.dec, out);
  }
}

function readLine(dec: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  dec.lastLine = line;
  dec.lastOffset = offset;
  if (dec.shortcut && canonicalDelta(dec, text, line, offset, out)) return;
  const record = parse(dec, text, line, offset);
  if (record === undefined) return;
  const type = record.type;
  const problem = envelopeProblem(record);
  if (typeof type !== 'string' || problem !== undefined) {
    dec.report(
      'invalid_record',
      'error',
      line,
      offset,
      typeof type !== 'string'
        ? 'a record without a string "type"; kept as unknown'
        : `invalid envelope: ${problem}; kept as unknown`,
    );
    unknown(dec, record, typeof type === 'string' ? type : undefined, text, line, offset, out);
    return;
  }
  const data = record.data as JsonObject;
  const agent = str(record.agentId);
  const parsedTs = copilotTimestampAt(dec.clock, record.timestamp as string);
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
  if (ctx.ts !== undefined) dec.lastTs = ctx.ts;
  if (!isCopilotRecordType(type)) {
    unknown(dec, record, type, text, line, offset, out, ctx);
    return;
  }
  const bad = dataProblem(type, data);
  if (bad !== undefined) {
    dec.report('invalid_record', 'error', line, offset, `invalid ${type} event: ${bad}; kept as unknown`);
    unknown(dec, record, type, text, line, offset, out, ctx);
    return;
  }
  map(dec, ctx);
}

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
  const head = COPILOT_DELTA_HEAD.exec(text);
  if (head === null) return false;
  const delta = readStringToken(text, head[0].length, close);
  if (delta === undefined) return false;
  const id = head[1]!;
  const parentId = head[2] ?? null;
  const timestamp = head[3]!;
  const message = head[4]!;
  // The record as JSON.parse builds it, keys in their order: the writer's template.
  const data = { messageId: message, deltaContent: delta };
  const record: JsonObject = ephemeral
    ? { id, parentId, timestamp, type: 'assistant.message_delta', data, ephemeral: true }
    : { id, parentId, timestamp, type: 'assistant.message_delta', data };
  const ts = copilotTimestampAt(dec.clock, timestamp);
  if (ts !== undefined) dec.lastTs = ts;
  markStreamed(dec, message);
  // As `push` builds it for a record without agentId or parentToolCallId: no lane.
  const hints: CopilotHints = { raw: text, record };
  const session = dec.session;
  const round = dec.round;
  if (COPILOT_WHOLE_EVENTS.enabled && session !== undefined && ts !== undefined && round !== undefined) {
    const provenance = { format: FORMAT, line, offset, hints: hints as Record<string, unknown> };
    out.push({ type: 'text.delta', text: delta, message, session, ts, round, provenance });
    return true;
  }
  const e: Emit = { type: 'text.delta', text: delta, message };
  if (session !== undefined) e.session = session;
  if (ts !== undefined) e.ts = ts;
  if (round !== undefined) e.round = round;
  e.provenance = { format: FORMAT, line, offset, hints: hints as Record<string, unknown> };
  out.push(e as unknown as AgentEvent);
  return true;
}

/**
 * `parseObjectRecord` with the depth bound measured on the parsed value: a Copilot record holds
 * a few objects (the envelope, its data, a result), so the walk visits those few where the
 * text measure sweeps the whole line twice (docs/performance.md, "Amp and Copilot"). The same
 * diagnostics, in the same order.
 */
function parse(dec: Decoder, text: string, line: number, offset: number): JsonObject | undefined {
  const value = parseMeasuredRecord(text, line, offset, dec.maxDepth, FORMAT, dec.sink);
  if (value === NOT_PARSED) return undefined;
  if (isJsonObject(value)) return value;
  dec.report('invalid_json', 'error', line, offset, 'not a JSON object');
  return undefined;
}

function markStreamed(dec: Decoder, message: string): void {
  if (message === dec.lastStreamed) return;
  dec.streamedMessages.add(message);
  dec.lastStreamed = message;
}

function endStream(dec: Decoder, out: AgentEvent[]): void {
  if (dec.runOpen) endRun(dec, 'incomplete', syntheticAt(dec.lastLine, dec.lastOffset), out, dec.lastTs);
}

/** A kept record with a number `JSON.parse` could not hold exactly: reported (no schema reads it). */
function checkNumbers(dec: Decoder, record: JsonObject, text: string, line: number, offset: number): void {
  if (!mayHoldUnsafeNumber(record)) return;
  const message = unsafeNumberMessage(text);
  if (message !== undefined) dec.report('invalid_record', 'error', line, offset, message);
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
  const session = dec.session;
  const ts = ctx.ts;
  const round = dec.round;
  if (
    !COPILOT_WHOLE_EVENTS.enabled ||
    session === undefined ||
    ts === undefined ||
    round === undefined ||
    ctx.primaryDone ||
    laneOf(dec, ctx) !== undefined
  )
    return undefined;
  ctx.primaryDone = true;
  return { session, ts, round, provenance: provenance(ctx) };
}

function push(dec: Decoder, ctx: Line, e: Emit, synthetic = false): void {
  const event = e as unknown as AgentEvent;
  if (dec.session !== undefined) event.session = dec.session;
  if (ctx.ts !== undefined) event.ts = ctx.ts;
  if (dec.round !== undefined && event.type !== 'run.start' && event.type !== 'run.end')
    event.round = dec.round;
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
  return parent === undefined ? undefined : dec.childByCall.get(parent);
}

function unknown(
  dec: Decoder,
  record: JsonObject,
  type: string | undefined,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
  ctx?: Line,
): void {
  checkNumbers(dec, record, text, line, offset);
  const e: AgentEventOf<'unknown'> = {
    type: 'unknown',
    record,
    provenance: { format: FORMAT, line, offset, hints: { raw: text } },
  };
  if (type !== undefined) e.recordType = type;
  if (dec.session !== undefined) e.session = dec.session;
  if (ctx?.ts !== undefined) e.ts = ctx.ts;
  if (ctx?.agent !== undefined) e.lane = ctx.agent;
  out.push(e);
}

function openRun(dec: Decoder, ctx: Line, input: string | undefined, synthetic: boolean): void {
  dec.runOpen = true;
  dec.runError = undefined;
  dec.runCancelled = false;
  dec.answer = undefined;
  dec.runUsage = undefined;
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
  if (dec.answer !== undefined) e.answer = dec.answer;
  if (dec.runUsage !== undefined) e.usage = dec.runUsage;
  if (dec.runError !== undefined && status === 'failed') e.error = dec.runError;
  if (dec.session !== undefined) e.session = dec.session;
  if (ts !== undefined) e.ts = ts;
  e.provenance = provenance;
  out.push(e);
  dec.runOpen = false;
  dec.turnOpen = false;
  dec.round = undefined;
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
      dec.streamedReasoning.add(id);
      dec.reasoningSinceMessage = true;
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
      if (main) dec.roundUsage = addUsage(dec.roundUsage ?? {}, u);
      else dec.laneUsage.set(ctx.agent!, addUsage(dec.laneUsage.get(ctx.agent!) ?? {}, u));
      if (main && dec.runOpen) dec.runUsage = addUsage(dec.runUsage ?? {}, u);
      const w = wholeEnvelope(dec, ctx);
      if (w !== undefined) {
        const { session, ts, round, provenance } = w;
        ctx.out.push({ type: 'usage', usage: u, session, ts, round, provenance });
        return;
      }
      push(dec, ctx, { type: 'usage', usage: u });
      return;
    }
    case 'session.start': {
      dec.session = d.sessionId as string;
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
        dec.runOpen &&
        (d.delivery === 'idle' || (d.delivery === undefined && dec.round === undefined && !dec.turnOpen))
      )
        endRun(
          dec,
          dec.turnOpen ? 'incomplete' : 'completed',
          syntheticAt(ctx.line, ctx.offset),
          ctx.out,
          ctx.ts,
        );
      if (main && !dec.runOpen) openRun(dec, ctx, d.content as string, false);
      else push(dec, ctx, { type: 'user.message', text: d.content });
      return;
    }
    case 'assistant.turn_start': {
      if (main && !dec.runOpen) openRun(dec, ctx, undefined, true);
      const turn = d.turnId as string;
      if (main) {
        dec.turnOpen = true;
        dec.round = /^(?:0|[1-9]\d{0,14})$/.test(turn) ? Number(turn) : undefined;
        dec.roundText = '';
        dec.roundUsage = undefined;
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
        main && typeof d.model !== 'string' && dec.roundUsage !== undefined
          ? wholeEnvelope(dec, ctx)
          : undefined;
      if (w !== undefined) {
        const { session, ts, round, provenance } = w;
        const usage = dec.roundUsage as Usage;
        ctx.out.push({ type: 'round.end', message: dec.roundText, usage, session, ts, round, provenance });
        endTurn(dec);
        return;
      }
      const e: Emit = { type: 'round.end', message: main ? dec.roundText : '' };
      if (typeof d.model === 'string') e.model = d.model;
      if (main && dec.roundUsage !== undefined) e.usage = dec.roundUsage;
      // A subagent's turn carries its own calls' usage (its calls' events are in its lane).
      const laneUsage = main ? undefined : dec.laneUsage.get(ctx.agent!);
      if (laneUsage !== undefined) {
        e.usage = laneUsage;
        dec.laneUsage.delete(ctx.agent!);
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
      if (dec.streamedReasoning.delete(id)) {
        // Its text already came as deltas: a second copy would be counted twice.
        unknown(dec, ctx.record, ctx.type, ctx.text, ctx.line, ctx.offset, ctx.out, ctx);
        return;
      }
      dec.reasoningSinceMessage = true;
      push(dec, ctx, { type: 'reasoning.delta', text: d.content, message: id });
      return;
    }
    case 'tool.execution_start': {
      const call = d.toolCallId as string;
      const name = d.toolName as string;
      dec.toolNames.set(call, name);
      const args = d.arguments;
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
      if (isJsonObject(d.arguments)) e.args = d.arguments;
      if (typeof d.mcpServerName === 'string') e.server = d.mcpServerName;
      push(dec, ctx, e);
      return;
    }
    case 'tool.execution_complete': {
      const call = d.toolCallId as string;
      const name = dec.toolNames.get(call);
      const content = isJsonObject(d.result) ? str(d.result.content) : undefined;
      const w =
        name !== undefined && content !== undefined && d.error === undefined
          ? wholeEnvelope(dec, ctx)
          : undefined;
      if (w !== undefined) {
        const { session, ts, round, provenance } = w;
        dec.toolNames.delete(call);
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
        dec.toolNames.delete(call);
      }
      if (content !== undefined) e.text = content;
      const error = isJsonObject(d.error) ? str(d.error.message) : undefined;
      if (error !== undefined) e.error = error;
      push(dec, ctx, e);
      return;
    }
    case 'subagent.started': {
      const call = d.toolCallId as string;
      const child = ctx.agent ?? call;
      dec.childByCall.set(call, child);
      const e: Emit = { type: 'child.start', child, call };
      if (typeof d.agentName === 'string') e.name = d.agentName;
      if (typeof d.agentDescription === 'string') e.task = d.agentDescription;
      push(dec, ctx, e);
      return;
    }
    case 'subagent.completed':
    case 'subagent.failed': {
      const call = d.toolCallId as string;
      const child = ctx.agent ?? dec.childByCall.get(call) ?? call;
      dec.childByCall.delete(call);
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
      if (!dec.runOpen) openRun(dec, ctx, undefined, true);
      const aborted = d.aborted === true || dec.runCancelled;
      const status: RunStatus = aborted ? 'cancelled' : dec.runError !== undefined ? 'failed' : 'completed';
      endRun(dec, status, provenance(ctx), ctx.out, ctx.ts);
      return;
    }
    case 'session.error': {
      // An error before anything else of a run belongs to the run it fails: the main agent's
      // error is fatal (its run ends failed at the session.idle); a non-fatal one is a
      // session.warning.
      if (main && !dec.runOpen) openRun(dec, ctx, undefined, true);
      const e: Emit = { type: 'error', message: d.message, fatal: main };
      if (typeof d.errorType === 'string') e.code = d.errorType;
      if (main && dec.runOpen) dec.runError = d.message as string;
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
      if (main && !dec.runOpen) openRun(dec, ctx, undefined, true);
      const e: Emit = { type: 'cancel' };
      if (typeof d.reason === 'string') e.by = d.reason;
      if (main) dec.runCancelled = true;
      push(dec, ctx, e);
      return;
    }
    case 'session.shutdown': {
      push(dec, ctx, { type: 'usage', usage: shutdownUsage(d) });
      if (dec.runOpen) {
        if (d.shutdownType === 'error' && typeof d.errorReason === 'string') dec.runError = d.errorReason;
        const status: RunStatus =
          d.shutdownType === 'error' ? 'failed' : dec.turnOpen ? 'incomplete' : 'completed';
        endRun(dec, status, syntheticAt(ctx.line, ctx.offset), ctx.out, ctx.ts);
      }
      return;
    }
    case 'session.title_changed':
      push(dec, ctx, { type: 'session.title', title: d.title });
      return;
    case 'session.compaction_start': {
      const e: Emit = { type: 'compaction.start' };
      if (typeof d.trigger === 'string') e.trigger = d.trigger;
      push(dec, ctx, e);
      return;
    }
    case 'session.compaction_complete': {
      const e: Emit = { type: 'compaction.end' };
      if (typeof d.tokensRemoved === 'number') e.tokensFreed = d.tokensRemoved;
      if (typeof d.trigger === 'string') e.trigger = d.trigger;
      if (typeof d.preCompactionTokens === 'number') e.tokensBefore = d.preCompactionTokens;
      if (typeof d.postCompactionTokens === 'number') e.tokensAfter = d.postCompactionTokens;
      push(dec, ctx, e);
      return;
    }
  }
}

/** A main-lane turn ended: no round until the next begins. */
function endTurn(dec: Decoder): void {
  dec.turnOpen = false;
  dec.round = undefined;
  dec.roundText = '';
  dec.roundUsage = undefined;
}

// assistant.message: the whole message. Its text and reasoning are events of their own only
// when no deltas carried them (on-disk logs keep no ephemeral deltas); they are derived
// (synthetic) and the message's end carries the record.
function message(dec: Decoder, ctx: Line, main: boolean): void {
  const d = ctx.data;
  const id = d.messageId as string;
  const content = d.content as string;
  const streamed = dec.streamedMessages.delete(id);
  if (id === dec.lastStreamed) dec.lastStreamed = undefined;
  const derived: Emit[] = [];
  const reasoning = str(d.reasoningText);
  if (reasoning !== undefined && reasoning !== '' && !dec.reasoningSinceMessage)
    derived.push({ type: 'reasoning.delta', text: reasoning, message: id });
  dec.reasoningSinceMessage = false;
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
    dec.roundText += content;
    dec.answer = content;
  }
}

function callUsage(d: JsonObject, ctx: Line): Usage {
  const u: Usage = tokenCounts(d);
  u.scope = 'call';
  u.key = str(d.apiCallId) ?? (ctx.record.id as string);
  if (typeof d.model === 'string') u.model = d.model;
  return u;
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
