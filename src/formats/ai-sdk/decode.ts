import { setBounded } from '../../bounded';
import { appendRoundText, MAX_ROUND_TEXT } from '../../bounds';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import { BEFORE_RUN, eventFromCarried, isArgsSummaryOnly, plainToolOutput } from '../../framing/carry';
import type { FramedRecordDecoder, JsonFraming, JsonStreamDecodeOptions } from '../../framing/json-stream';
import { isFiniteNumber, missingString, str } from '../../guards';
import {
  isJsonObject,
  type JsonObject,
  NOT_PARSED,
  parseMeasuredRecord,
  readDeltaRecord,
  resolveMaxDepth,
  valueExceedsDepth,
} from '../../json';
import type { AgentEvent, AgentEventOf, Provenance } from '../../model';
import { readFixed, readJsonTo, readPlainString, readStringTo, textReader } from '../../text-reader';
import {
  BEFORE,
  FAILED,
  HELD,
  LAST_LINE,
  LAST_OFFSET,
  MAX_DEPTH,
  MODE,
  NAMES,
  REPORT,
  ROUND,
  RUN,
  RUN_OPEN,
  SAID_ERROR,
  SINK,
  STEP_OPEN,
  STEP_TEXT,
} from './slots';
import {
  AISDK_DATA_PREFIX,
  AISDK_DELTA_HEAD,
  AISDK_DONE,
  type AiSdkHints,
  aiSdkChunkType,
  C_CARRIED_HEAD,
  C_CARRIED_TEXT,
  C_ERROR_HEAD,
  C_ERROR_TEXT,
  C_FINISH_STEP,
  C_INPUT,
  C_INPUT_HEAD,
  C_INPUT_NAME,
  C_INPUT_SUMMARY,
  C_OUTPUT,
  C_OUTPUT_HEAD,
  C_START_STEP,
  C_TEXT_END_HEAD,
  C_TEXT_START_HEAD,
  metaOf,
  usageFromMetadata,
} from './wire';

/** Options of the AI SDK UI message stream decoder. */
export interface AiSdkDecodeOptions extends JsonStreamDecodeOptions {}

const FORMAT = 'ai-sdk' as const;

/**
 * The switch of the decoder's shortcuts (text deltas, carried tool outputs and a call's text
 * output or error read without parsing them whole). Tests turn it off to hold the shortcuts to
 * the general path (test/ui/delta-shortcut.test.ts, test/ui/canonical-lines.test.ts); nothing
 * else should.
 */
export const AISDK_DECODER_SHORTCUTS: { enabled: boolean } = { enabled: true };

/** Most chunks without an event of their own held for the next event. */
const MAX_BEFORE = 64;

interface Cx {
  r: JsonObject;
  line: number;
  offset: number;
  provenance: Provenance;
}

// Required string fields per chunk type: a chunk without them is refused (kept as `unknown`).
const REQUIRED: Partial<Record<string, readonly string[]>> = {
  'text-start': ['id'],
  'text-delta': ['id', 'delta'],
  'text-end': ['id'],
  'reasoning-start': ['id'],
  'reasoning-delta': ['id', 'delta'],
  'reasoning-end': ['id'],
  'tool-input-start': ['toolCallId', 'toolName'],
  'tool-input-delta': ['toolCallId', 'inputTextDelta'],
  'tool-input-available': ['toolCallId', 'toolName'],
  'tool-input-error': ['toolCallId', 'toolName', 'errorText'],
  'tool-approval-request': ['approvalId', 'toolCallId'],
  'tool-approval-response': ['approvalId'],
  'tool-output-available': ['toolCallId'],
  'tool-output-error': ['toolCallId', 'errorText'],
  'tool-output-denied': ['toolCallId'],
  error: ['errorText'],
};

/**
 * The AI SDK UI message stream decoder: one chunk → canonical events. `start` → `run.start`
 * (its `messageId` is the run); steps are rounds; `text-*` are `message.start`, `text.delta`,
 * `message.end`; `reasoning-*` are `reasoning.delta` (start and end empty); `tool-input-start`
 * and `-delta` are `tool.args.delta`, `tool-input-available` is `tool.start` with the input whole;
 * `tool-output-available` (`preliminary`: `tool.output`), `-error` and `-denied` are `tool.end`;
 * the approval chunks are `approval.request`/`approval.resolve`; `finish` → `run.end` with the
 * usage in its `messageMetadata`; `abort` ends the run `cancelled`; `error` is a fatal `error`
 * (the run then ends `failed`); `data-agentwire.<type>` parts are that canonical event; other
 * chunks (`data-*`, sources, files, metadata) are `unknown` events kept whole. `[DONE]` is the
 * transport's end and yields nothing.
 */
export function createAiSdkRecordDecoder(
  options: AiSdkDecodeOptions,
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
 * The decoder's state between chunks ({@link newDecoder}): an array of slots (the indices below),
 * not a literal. A literal made once per decoder gets no allocation site until its factory has
 * run several times, so its hidden class dies with the last decoder at a full GC and takes the
 * optimised per-chunk code that embedded it along (`readLine`, `mapRecord`, `wholeIn`…); an
 * array's hidden class is the realm's and outlives every GC (docs/performance.md, "AG-UI and AI
 * SDK codecs", round fourteen; the Cursor and Amp decoders' state).
 */
type Decoder = [
  sink: DiagnosticSink,
  report: LineReport,
  maxDepth: number,
  mode: JsonFraming,
  run: string | undefined,
  runOpen: boolean,
  failed: string | undefined,
  round: number,
  stepOpen: boolean,
  stepText: string,
  names: Map<string, string>,
  // A run's `start`, held until a chunk that is not a carried event from before the run (see
  // `BEFORE_RUN`): those are read as coming first.
  held: AgentEvent | undefined,
  // The message of the last non-fatal error this run said (a carried `error`).
  saidError: string | undefined,
  // Chunks with no event of their own, carried by the next event (`hints.before`).
  before: string[],
  lastLine: number,
  lastOffset: number,
];

function newDecoder(options: AiSdkDecodeOptions, sink: DiagnosticSink): Decoder {
  return [
    sink,
    lineReporter(sink, FORMAT),
    resolveMaxDepth(options.maxDepth),
    'sse',
    undefined,
    false,
    undefined,
    0,
    false,
    '',
    new Map(),
    undefined,
    undefined,
    [],
    1,
    0,
  ];
}

function setFraming(d: Decoder, framing: JsonFraming): void {
  d[MODE] = framing;
}

function readLine(d: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  if (text === AISDK_DONE) return;
  // A chunk spelled as the writers spell it is read without parsing it whole (the reader
  // measured what can nest); anything else is parsed and measured.
  let value: JsonObject | undefined;
  if (AISDK_DECODER_SHORTCUTS.enabled && d[MAX_DEPTH] > 0) {
    value = readDeltaRecord(text, AISDK_DELTA_HEAD, 'text-delta', 'id', deltaRecord);
    if (value !== undefined) {
      if (wholeIn(d)) {
        deltaLine(d, value, knownProvenance(d, value, text, line, offset, out), out);
        return;
      }
    } else if (d[MAX_DEPTH] >= CANONICAL_DEPTH) {
      value = readCanonical(text, d[MAX_DEPTH]);
      if (value !== undefined && value.type === CARRIED_OUTPUT && wholeIn(d)) {
        const data = value.data as CarriedOutput;
        carriedOutputLine(d, data, knownProvenance(d, value, text, line, offset, out), out);
        return;
      }
    }
  }
  if (value !== undefined) knownLine(d, value, knownProvenance(d, value, text, line, offset, out), out);
  else parsedLine(d, text, line, offset, out);
}

// A chunk a shortcut read: one of the module's literals, whose hidden classes outlive a full GC.
// It is read at sites no parsed chunk reaches: a `JSON.parse` chunk's hidden class dies at a full
// GC, and with it the optimised code of every site that had seen it (docs/performance.md, "AG-UI
// and AI SDK codecs", round fourteen). It has its type (the module's literal) and its required
// fields as strings by construction, and it is never an early one: no lookup, required-field or
// early check for it (held by test/ui/delta-shortcut.test.ts and test/ui/canonical-lines.test.ts,
// the shortcuts on and off).
function knownLine(d: Decoder, value: JsonObject, provenance: Provenance, out: AgentEvent[]): void {
  const { line, offset } = provenance;
  mapRecord(d, value.type as string, { r: value, line, offset, provenance }, out);
}

// What a chunk a shortcut read starts with (knownLine, deltaLine, carriedOutputLine): the run's
// opening held back released, the line's provenance (the raw line and its chunk as hints), and the
// line kept as the last one read.
function knownProvenance(
  d: Decoder,
  value: JsonObject,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): Provenance {
  if (d[HELD] !== undefined) releaseHeld(d, out);
  const hints: AiSdkHints = { raw: text, record: value, framing: d[MODE] };
  d[LAST_LINE] = line;
  d[LAST_OFFSET] = offset;
  return { format: FORMAT, line, offset, hints: hints as Record<string, unknown> };
}

// The text delta chunk (the most frequent) inside an open step of a named run (`wholeIn` holds,
// so the run is open and the event is built whole): read straight from the delta shortcut,
// without the record's context object and the switch, and by mapRecord's `text-delta` case there.
// The other states take knownLine; test/ui/whole-events.test.ts holds the whole events to the
// general path.
function deltaLine(d: Decoder, value: JsonObject, provenance: Provenance, out: AgentEvent[]): undefined {
  const delta = value.delta as string;
  addStepText(d, delta, provenance);
  out.push({
    type: 'text.delta',
    text: delta,
    message: value.id as string,
    run: d[RUN] as string,
    round: d[ROUND],
    provenance,
  });
}

/** A text delta added to the step's text, within its bound. */
function addStepText(d: Decoder, delta: string, provenance: Provenance): void {
  const held = d[STEP_TEXT];
  if (held.length + delta.length < MAX_ROUND_TEXT) d[STEP_TEXT] = held + delta;
  else d[STEP_TEXT] = appendRoundText(held, delta, d[REPORT], provenance.line, provenance.offset);
}

/** A carried tool output's data as the canonical reader and `plainToolOutput` give it. */
type CarriedOutput = { call: string; text: string };

// A carried tool output's event built whole (`wholeIn`), from its data `{ call, text }` (both
// strings): the canonical reader's, read without the record's context object, the switch and the
// data's key walk, or `plainToolOutput`'s in mapRecord. test/ui/whole-events.test.ts holds the
// whole events to the general path.
function carriedOutputLine(
  d: Decoder,
  data: CarriedOutput,
  provenance: Provenance,
  out: AgentEvent[],
): undefined {
  out.push({
    type: 'tool.output',
    call: data.call,
    text: data.text,
    run: d[RUN] as string,
    round: d[ROUND],
    provenance,
  });
}

// A chunk `JSON.parse` read.
function parsedLine(d: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  const value = parseMeasuredRecord(text, line, offset, d[MAX_DEPTH], FORMAT, d[SINK]);
  if (value === NOT_PARSED) return;
  if (d[HELD] !== undefined && !isEarly(value)) releaseHeld(d, out);
  const hints: AiSdkHints = { raw: text, record: value, framing: d[MODE] };
  const provenance: Provenance = { format: FORMAT, line, offset, hints: hints as Record<string, unknown> };
  d[LAST_LINE] = line;
  d[LAST_OFFSET] = offset;
  if (!isJsonObject(value)) {
    d[REPORT]('invalid_json', 'error', line, offset, 'not a JSON object; kept as an unknown event');
    out.push({ type: 'unknown', record: value, provenance });
    return;
  }
  const cx: Cx = { r: value, line, offset, provenance };
  // The type as the module's literal: the checks and the switch below then match it by identity.
  const type = aiSdkChunkType(value.type);
  const problem = type !== undefined ? missing(type, value) : undefined;
  if (type === undefined || problem !== undefined) {
    if (problem !== undefined)
      d[REPORT]('invalid_record', 'error', line, offset, `invalid ${type} chunk: ${problem}`);
    pushUnknown(d, cx, out);
    return;
  }
  mapRecord(d, type, cx, out);
}

function endStream(d: Decoder, out: AgentEvent[]): void {
  releaseHeld(d, out);
  // Chunks no event followed: kept whole.
  for (const raw of d[BEFORE]) {
    const record = JSON.parse(raw) as JsonObject;
    const hints: AiSdkHints = { raw, record, framing: d[MODE] };
    const provenance: Provenance = { format: FORMAT, line: d[LAST_LINE], offset: d[LAST_OFFSET] };
    provenance.hints = hints as Record<string, unknown>;
    out.push({ type: 'unknown', recordType: record.type as string, record, provenance });
  }
  d[BEFORE] = [];
  if (d[RUN_OPEN]) cutRun(d, out);
}

/** The open run's derived end: `incomplete`, or `failed` after an `error` chunk. */
function cutRun(d: Decoder, out: AgentEvent[]): void {
  releaseHeld(d, out);
  d[RUN_OPEN] = false;
  const e: AgentEventOf<'run.end'> = {
    type: 'run.end',
    status: d[FAILED] !== undefined ? 'failed' : 'incomplete',
    provenance: { format: FORMAT, line: d[LAST_LINE], offset: d[LAST_OFFSET], synthetic: true },
  };
  if (d[FAILED] !== undefined) e.error = d[FAILED];
  if (d[RUN] !== undefined) e.run = d[RUN];
  out.push(e);
}

function releaseHeld(d: Decoder, out: AgentEvent[]): void {
  if (d[HELD] === undefined) return;
  out.push(d[HELD]);
  d[HELD] = undefined;
}

function mapRecord(d: Decoder, type: string, cx: Cx, out: AgentEvent[]): undefined {
  const r = cx.r;
  switch (type) {
    case 'start':
      return runStart(d, cx, out);
    case 'finish':
    case 'abort':
      return finish(d, type, cx, out);
    case 'start-step':
      openRun(d, cx, out);
      d[ROUND]++;
      d[STEP_OPEN] = true;
      d[STEP_TEXT] = '';
      if (wholeIn(d)) {
        out.push({ type: 'round.start', run: d[RUN] as string, round: d[ROUND], provenance: cx.provenance });
        return;
      }
      return pushEvent(d, out, cx, { type: 'round.start' });
    case 'finish-step': {
      openRun(d, cx, out);
      if (wholeIn(d)) {
        out.push({
          type: 'round.end',
          message: d[STEP_TEXT],
          run: d[RUN] as string,
          round: d[ROUND],
          provenance: cx.provenance,
        });
      } else pushEvent(d, out, cx, { type: 'round.end', message: d[STEP_TEXT] });
      d[STEP_OPEN] = false;
      d[STEP_TEXT] = '';
      return;
    }
    case 'text-start':
      openRun(d, cx, out);
      if (wholeIn(d)) {
        out.push({
          type: 'message.start',
          role: 'assistant',
          message: r.id as string,
          run: d[RUN] as string,
          round: d[ROUND],
          provenance: cx.provenance,
        });
        return;
      }
      return pushEvent(d, out, cx, { type: 'message.start', role: 'assistant', message: r.id as string });
    case 'text-delta':
      openRun(d, cx, out);
      if (wholeIn(d)) return deltaLine(d, r, cx.provenance, out);
      addStepText(d, r.delta as string, cx.provenance);
      return pushEvent(d, out, cx, { type: 'text.delta', text: r.delta as string, message: r.id as string });
    case 'text-end':
      openRun(d, cx, out);
      if (wholeIn(d)) {
        out.push({
          type: 'message.end',
          message: r.id as string,
          run: d[RUN] as string,
          round: d[ROUND],
          provenance: cx.provenance,
        });
        return;
      }
      return pushEvent(d, out, cx, { type: 'message.end', message: r.id as string });
    case 'reasoning-start':
    case 'reasoning-delta':
    case 'reasoning-end':
      openRun(d, cx, out);
      return pushEvent(d, out, cx, reasoning(r));
    case 'tool-input-start': {
      openRun(d, cx, out);
      const call = r.toolCallId as string;
      setBounded(d[NAMES], call, r.toolName as string);
      return pushEvent(d, out, cx, { type: 'tool.args.delta', call, name: r.toolName as string, text: '' });
    }
    case 'tool-input-delta':
      openRun(d, cx, out);
      return pushEvent(d, out, cx, {
        type: 'tool.args.delta',
        call: r.toolCallId as string,
        text: r.inputTextDelta as string,
      });
    case 'tool-input-available': {
      openRun(d, cx, out);
      const call = r.toolCallId as string;
      const name = r.toolName as string;
      setBounded(d[NAMES], call, name);
      const meta = metaOf(r.toolMetadata);
      const args = r.input;
      if (isJsonObject(args) && wholeIn(d) && (meta === undefined || isArgsSummaryOnly(meta))) {
        if (meta === undefined)
          out.push({
            type: 'tool.start',
            call,
            name,
            args,
            run: d[RUN] as string,
            round: d[ROUND],
            provenance: cx.provenance,
          });
        else {
          const argsSummary = meta.argsSummary as string;
          out.push({
            type: 'tool.start',
            call,
            name,
            args,
            argsSummary,
            run: d[RUN] as string,
            round: d[ROUND],
            provenance: cx.provenance,
          });
        }
        return;
      }
      const e: AgentEventOf<'tool.start'> = { type: 'tool.start', call, name };
      if (isJsonObject(args)) e.args = args;
      if (meta !== undefined) {
        for (const k of ['kind', 'server', 'argsSummary', 'command'] as const)
          if (typeof meta[k] === 'string') (e as Record<string, unknown>)[k] = meta[k];
        if (isFiniteNumber(meta.startedAt)) e.startedAt = meta.startedAt;
      }
      return pushEvent(d, out, cx, e);
    }
    case 'tool-input-error':
    case 'tool-output-available':
    case 'tool-output-error':
    case 'tool-output-denied':
      openRun(d, cx, out);
      return toolEnd(d, type, cx, out);
    case 'tool-approval-request': {
      openRun(d, cx, out);
      const call = r.toolCallId as string;
      const e: AgentEventOf<'approval.request'> = {
        type: 'approval.request',
        approval: r.approvalId as string,
        call,
      };
      const name = d[NAMES].get(call);
      if (name !== undefined) e.tool = name;
      const reason = str(r.reason);
      if (reason !== undefined) e.title = reason;
      return pushEvent(d, out, cx, e);
    }
    case 'tool-approval-response': {
      openRun(d, cx, out);
      const e: AgentEventOf<'approval.resolve'> = {
        type: 'approval.resolve',
        approval: r.approvalId as string,
        decision: r.approved === true ? 'allow' : 'deny',
      };
      return pushEvent(d, out, cx, e);
    }
    case 'error':
      openRun(d, cx, out);
      d[FAILED] = r.errorText as string;
      if (r.errorText === d[SAID_ERROR] && d[BEFORE].length < MAX_BEFORE) {
        // The run's failure, restating an error this run already said: no second error event
        // (the writer writes this chunk for a failed run's end); the next event carries it.
        d[BEFORE].push(cx.provenance.hints!.raw as string);
        return;
      }
      d[SAID_ERROR] = undefined;
      return pushEvent(d, out, cx, { type: 'error', message: r.errorText as string, fatal: true });
    default: {
      if (type === CARRIED_OUTPUT && d[HELD] === undefined && wholeIn(d)) {
        const v = plainToolOutput(r.data);
        if (v !== undefined) return carriedOutputLine(d, v, cx.provenance, out);
      }
      return carried(d, type, cx, out);
    }
  }
}

// The records a stream has once (its start, a carried session start) are read in functions of
// their own, called rarely enough that the optimising compiler does not inline them into
// `mapRecord`: their `JSON.parse` hidden classes die at a full GC, and code that had embedded
// them would be thrown away with them (docs/performance.md, "AG-UI and AI SDK codecs", round
// fourteen).

function runStart(d: Decoder, cx: Cx, out: AgentEvent[]): undefined {
  // A message still open was cut off: the new one does not say it ended (never completed).
  if (d[RUN_OPEN]) cutRun(d, out);
  d[RUN] = str(cx.r.messageId);
  d[RUN_OPEN] = true;
  d[FAILED] = undefined;
  d[ROUND] = 0;
  d[STEP_OPEN] = false;
  d[SAID_ERROR] = undefined;
  // Held: carried events the writer put right after this chunk came before the run.
  const held: AgentEvent[] = [];
  pushEvent(d, held, cx, { type: 'run.start' });
  d[HELD] = held[0];
}

/** A `data-*` part: a carried canonical event (`data-agentwire.<type>`), else kept whole. */
function carried(d: Decoder, type: string, cx: Cx, out: AgentEvent[]): undefined {
  if (type.startsWith(AISDK_DATA_PREFIX)) {
    const e = eventFromCarried(type.slice(AISDK_DATA_PREFIX.length), cx.r.data);
    if (e !== undefined && d[HELD] !== undefined) {
      (cx.provenance.hints as AiSdkHints).early = true;
      e.provenance = cx.provenance;
      out.push(e);
      return;
    }
    if (e?.type === 'error') d[SAID_ERROR] = e.fatal ? undefined : e.message;
    if (e !== undefined) return pushEvent(d, out, cx, e);
  }
  releaseHeld(d, out);
  return pushUnknown(d, cx, out);
}

function finish(d: Decoder, type: string, cx: Cx, out: AgentEvent[]): undefined {
  const r = cx.r;
  openRun(d, cx, out);
  const e: AgentEventOf<'run.end'> = { type: 'run.end', status: 'completed' };
  if (type === 'abort') {
    e.status = 'cancelled';
    const reason = str(r.reason);
    if (reason !== undefined) e.reason = reason;
  } else {
    const finishReason = str(r.finishReason);
    if (finishReason !== undefined) e.stopReason = finishReason;
    if (d[FAILED] !== undefined || finishReason === 'error') {
      e.status = 'failed';
      if (d[FAILED] !== undefined) e.error = d[FAILED];
    }
    const usage = usageFromMetadata(r.messageMetadata);
    if (usage !== undefined) e.usage = usage;
    const m = r.messageMetadata;
    if (isJsonObject(m)) {
      if (isFiniteNumber(m.durationMs)) e.durationMs = m.durationMs;
      if (typeof m.reason === 'string') e.reason = m.reason;
    }
  }
  pushEvent(d, out, cx, e);
  d[RUN_OPEN] = false;
  d[FAILED] = undefined;
}

function toolEnd(d: Decoder, type: string, cx: Cx, out: AgentEvent[]): undefined {
  const r = cx.r;
  const call = r.toolCallId as string;
  if (type === 'tool-output-available' && r.preliminary === true) {
    const text = typeof r.output === 'string' ? r.output : JSON.stringify(r.output ?? null);
    return pushEvent(d, out, cx, { type: 'tool.output', call, text });
  }
  if (type === 'tool-input-error' && !d[NAMES].has(call)) {
    // A call refused for its input never started: its start is implied by the refusal.
    const start: AgentEventOf<'tool.start'> = { type: 'tool.start', call, name: r.toolName as string };
    if (isJsonObject(r.input)) start.args = r.input;
    pushEvent(d, out, cx, start);
    start.provenance = { format: FORMAT, line: cx.line, offset: cx.offset, synthetic: true };
  }
  const name = str(r.toolName) ?? d[NAMES].get(call);
  if (name !== undefined && r.toolMetadata === undefined && wholeIn(d)) {
    if (type === 'tool-output-available' && typeof r.output === 'string') {
      out.push({
        type: 'tool.end',
        call,
        ok: true,
        name,
        text: r.output,
        run: d[RUN] as string,
        round: d[ROUND],
        provenance: cx.provenance,
      });
      return;
    }
    if (type === 'tool-output-error') {
      const error = r.errorText as string;
      out.push({
        type: 'tool.end',
        call,
        ok: false,
        name,
        error,
        run: d[RUN] as string,
        round: d[ROUND],
        provenance: cx.provenance,
      });
      return;
    }
  }
  const e: AgentEventOf<'tool.end'> = { type: 'tool.end', call, ok: type === 'tool-output-available' };
  if (name !== undefined) e.name = name;
  if (type === 'tool-output-available') {
    if (typeof r.output === 'string') e.text = r.output;
    else if (r.output !== undefined) e.result = r.output;
  } else if (type === 'tool-output-denied') e.denied = true;
  else e.error = r.errorText as string;
  const meta = metaOf(r.toolMetadata);
  if (meta !== undefined) {
    if (typeof meta.text === 'string') e.text = meta.text;
    if (meta.result !== undefined) e.result = meta.result;
    if (meta.error !== undefined) e.error = meta.error;
    if (isFiniteNumber(meta.exitCode)) e.exitCode = meta.exitCode;
    if (Array.isArray(meta.filesChanged))
      e.filesChanged = meta.filesChanged.filter((f) => typeof f === 'string');
    if (isFiniteNumber(meta.startedAt)) e.startedAt = meta.startedAt;
    if (isFiniteNumber(meta.endedAt)) e.endedAt = meta.endedAt;
  }
  pushEvent(d, out, cx, e);
}

function reasoning(r: JsonObject): AgentEventOf<'reasoning.delta'> {
  const e: AgentEventOf<'reasoning.delta'> = {
    type: 'reasoning.delta',
    text: str(r.delta) ?? '',
    message: r.id as string,
  };
  const meta = metaOf(r.providerMetadata);
  if (meta !== undefined) {
    if (typeof meta.signature === 'string') e.signature = meta.signature;
    if (typeof meta.redacted === 'string') e.redacted = meta.redacted;
  }
  return e;
}

/** A chunk of a run that has no `start`: the run opens there, implied. */
function openRun(d: Decoder, cx: Cx, out: AgentEvent[]): undefined {
  if (d[RUN_OPEN]) return;
  d[RUN_OPEN] = true;
  d[ROUND] = 0;
  d[FAILED] = undefined;
  d[SAID_ERROR] = undefined;
  out.push({
    type: 'run.start',
    provenance: { format: FORMAT, line: cx.line, offset: cx.offset, synthetic: true },
  });
}

/**
 * Whether the frequent events are built whole, each in one object literal with its envelope
 * (run, round, provenance), instead of through {@link pushEvent}, which adds the envelope to a
 * literal afterwards. Both give the same events; off, only the general path runs
 * (test/ui/whole-events.test.ts holds them equal). A literal's hidden class outlives the full GC
 * that kills a grown object's, and its stores are monomorphic (docs/performance.md).
 */
export const AISDK_WHOLE_EVENTS: { enabled: boolean } = { enabled: true };

const CARRIED_OUTPUT = `${AISDK_DATA_PREFIX}tool.output`;

/**
 * Where {@link pushEvent} would stamp run and round and nothing else, leaving the provenance as
 * read: an open step of an open run, with no chunks held before it. Whole literals are built
 * only there.
 */
function wholeIn(d: Decoder): boolean {
  return (
    AISDK_WHOLE_EVENTS.enabled &&
    d[STEP_OPEN] &&
    d[RUN_OPEN] &&
    d[RUN] !== undefined &&
    d[BEFORE].length === 0
  );
}

function pushUnknown(d: Decoder, cx: Cx, out: AgentEvent[]): undefined {
  const e: AgentEventOf<'unknown'> = { type: 'unknown', record: cx.r };
  if (typeof cx.r.type === 'string') e.recordType = cx.r.type;
  pushEvent(d, out, cx, e);
}

function pushEvent(d: Decoder, out: AgentEvent[], cx: Cx, e: AgentEvent): undefined {
  if (d[RUN] !== undefined && (d[RUN_OPEN] || e.type === 'run.end')) e.run = d[RUN];
  if (d[STEP_OPEN] || e.type === 'round.start') e.round = d[ROUND];
  if (d[BEFORE].length > 0) {
    (cx.provenance.hints as AiSdkHints).before = d[BEFORE];
    d[BEFORE] = [];
  }
  e.provenance = cx.provenance;
  out.push(e);
}

/** The depth of the deepest chunk a shortcut reads; below it every line takes the general path. */
const CANONICAL_DEPTH = 2;

/**
 * A carried tool output, or a call's text output or error, spelled exactly as the writer spells
 * it, as the chunk `JSON.parse` gives (the same keys in the same order, in one literal), or
 * `undefined` (the line then takes the general path). Every piece of the line is checked in order
 * up to its end, so a line read here is the JSON text of that chunk; the call id is a plain
 * string (no escape), the long text is parsed alone.
 */
function readCanonical(text: string, maxDepth: number): JsonObject | undefined {
  const n = text.length;
  if (text.charCodeAt(n - 1) !== 125) return undefined;
  const r = textReader(text);
  if (opens(text, C_CARRIED_HEAD)) {
    r.at = C_CARRIED_HEAD.length;
    const call = readPlainString(r);
    if (call === undefined || !readFixed(r, C_CARRIED_TEXT) || text.charCodeAt(n - 2) !== 125)
      return undefined;
    const output = readStringTo(r, n - 2);
    if (output === undefined) return undefined;
    return { type: CARRIED_OUTPUT, data: { call, text: output } };
  }
  const ok = opens(text, C_OUTPUT_HEAD);
  if (!ok && !opens(text, C_ERROR_HEAD)) return readShort(text, maxDepth);
  r.at = ok ? C_OUTPUT_HEAD.length : C_ERROR_HEAD.length;
  const toolCallId = readPlainString(r);
  if (toolCallId === undefined || !readFixed(r, ok ? C_OUTPUT : C_ERROR_TEXT)) return undefined;
  const value = readStringTo(r, n - 1);
  if (value === undefined) return undefined;
  return ok
    ? { type: 'tool-output-available', toolCallId, output: value }
    : { type: 'tool-output-error', toolCallId, errorText: value };
}

/**
 * The short chunks of a step and a text part, and a call's input whole, spelled exactly as the
 * writer spells them (wire.ts's `C_*` constants), as the chunk `JSON.parse` gives (the same keys in the
 * same order, in one literal per shape), or `undefined` (the line then takes the general path).
 * Every piece is checked in order up to the line's end; ids and names are plain strings (no
 * escape), the input and the summary are parsed alone and the input's depth measured as the
 * general path measures the chunk's. The frequent chunks' hidden classes are then the module's
 * literals', which outlive a full GC, where `JSON.parse`'s die with the last chunk and take the
 * optimised code that saw them along (docs/performance.md, "AG-UI and AI SDK codecs", round
 * fourteen). Held to the general path by test/ui/canonical-lines.test.ts.
 */
function readShort(text: string, maxDepth: number): JsonObject | undefined {
  if (text === C_START_STEP) return { type: 'start-step' };
  if (text === C_FINISH_STEP) return { type: 'finish-step' };
  const n = text.length;
  const r = textReader(text);
  if (opens(text, C_TEXT_START_HEAD)) {
    r.at = C_TEXT_START_HEAD.length;
    const id = readPlainString(r);
    if (id === undefined || r.at !== n - 1) return undefined;
    return { type: 'text-start', id };
  }
  if (opens(text, C_TEXT_END_HEAD)) {
    r.at = C_TEXT_END_HEAD.length;
    const id = readPlainString(r);
    if (id === undefined || r.at !== n - 1) return undefined;
    return { type: 'text-end', id };
  }
  if (!opens(text, C_INPUT_HEAD)) return undefined;
  r.at = C_INPUT_HEAD.length;
  const toolCallId = readPlainString(r);
  if (toolCallId === undefined || !readFixed(r, C_INPUT_NAME)) return undefined;
  const toolName = readPlainString(r);
  if (toolName === undefined || !readFixed(r, C_INPUT) || text.charCodeAt(r.at) !== 123) return undefined;
  // The input object ends where the summary's fixed text starts, else at the chunk's last brace:
  // no string token holds that text (its quotes are unescaped), so a first one inside the input
  // is a key of it, and the slice then does not parse (the general path reads the line). Parsed
  // alone, the slice is the object the chunk holds, one level below it; a slice not ending in a
  // brace is no object and is turned down before it is parsed.
  const summary = text.indexOf(C_INPUT_SUMMARY, r.at);
  const end = summary === -1 ? n - 1 : summary;
  if (text.charCodeAt(end - 1) !== 125) return undefined;
  const input = readJsonTo(r, end);
  if (!isJsonObject(input) || valueExceedsDepth(input, maxDepth - 1)) return undefined;
  if (r.at === n - 1) return { type: 'tool-input-available', toolCallId, toolName, input };
  // The summary's object, the metadata and the chunk close together: `…"}}}`.
  if (
    maxDepth < SUMMARY_DEPTH ||
    !readFixed(r, C_INPUT_SUMMARY) ||
    text.charCodeAt(n - 2) !== 125 ||
    text.charCodeAt(n - 3) !== 125
  )
    return undefined;
  const argsSummary = readStringTo(r, n - 3);
  if (argsSummary === undefined) return undefined;
  return {
    type: 'tool-input-available',
    toolCallId,
    toolName,
    input,
    toolMetadata: { agentwire: { argsSummary } },
  };
}

// Whether the line begins with `head`: a slice compared (`startsWith` costs more in Node 20:
// docs/performance.md, "Codex decoder").
function opens(text: string, head: string): boolean {
  return text.slice(0, head.length) === head;
}

/** The depth of a call's input chunk with its summary (`toolMetadata.agentwire`). */
const SUMMARY_DEPTH = 3;

/** A text delta chunk as `JSON.parse` gives it, in one literal ({@link readDeltaRecord}). */
function deltaRecord(id: string, delta: unknown): JsonObject {
  return { type: 'text-delta', id, delta } as JsonObject;
}

/** A `data-agentwire.<type>` part carrying an event from before the run (see `BEFORE_RUN`). */
function isEarly(r: unknown): boolean {
  if (!isJsonObject(r) || typeof r.type !== 'string' || !r.type.startsWith(AISDK_DATA_PREFIX)) return false;
  return (
    BEFORE_RUN.has(r.type.slice(AISDK_DATA_PREFIX.length)) && !(isJsonObject(r.data) && 'lane' in r.data)
  );
}

/** What a known chunk lacks, or `undefined` when its required fields are there. */
function missing(type: string, r: JsonObject): string | undefined {
  const fields = REQUIRED[type];
  return fields === undefined ? undefined : missingString(r, fields);
}
