import { setBounded } from '../../bounded';
import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import {
  afterHeld,
  assertCarriable,
  canonicalType,
  carriedInto,
  carriedValue,
  carriesCallText,
  type HeldRecords,
  holdRecord,
  isZeroUsage,
  newHeldRecords,
} from '../../framing/carry';
import { frameEach, frameJson, type JsonFraming } from '../../framing/json-stream';
import { decisionAllows } from '../../guards';
import {
  assertEncodable,
  assertFiniteNumber,
  assertText,
  assertTimeWritable,
  encodeJson,
  isJsonObject,
  type JsonObject,
  jsonString,
  jsonText,
  rawIfSame,
  requireText,
  sameJson,
} from '../../json';
import {
  CALL_START_META,
  CALL_START_READS,
  isNumber,
  isString,
  isThere,
  putKeptMetaOrDrop,
  putKeptMetasOrDrop,
  putOrDrop,
} from '../../kept';
import { checkLoss, type LossState, newLoss, reportKeyLoss, reportLoss } from '../../loss';
import type { AgentEvent, AgentEventOf, Usage } from '../../model';
import { hintsFrom } from '../../record';
import { addUsage, assertUsageFigures } from '../../usage';
import {
  AISDK_DATA_PREFIX,
  AISDK_DONE,
  AISDK_META_KEY,
  type AiSdkHints,
  finishReasonOf,
  metaOf,
  usageFromMetadata,
  usageToMetadata,
} from './wire';

/** Options of the AI SDK UI message stream writer. */
export interface AiSdkEncodeOptions extends EncodeOptions {
  /**
   * `sse` (`data: {json}\n\n` closed by `data: [DONE]\n\n`, what `useChat` reads; the default)
   * or `jsonl`. Default: the framing the events were read in, else `sse`.
   */
  framing?: JsonFraming;
  /** Makes the message and part ids events do not have. Default: a counter. */
  idSource?: () => string;
}

const FORMAT = 'ai-sdk' as const;
const META_KEY_JSON = JSON.stringify(AISDK_META_KEY);
const START_STEP = '{"type":"start-step"}';
const FINISH_STEP = '{"type":"finish-step"}';

/**
 * The switch of the writer's shortcuts (chunks written in pieces, text deltas of an open text
 * part written without the general dispatch). Tests turn it off to hold the shortcuts to the
 * general path (test/ui/writer-shortcuts.test.ts); nothing else should.
 */
export const AISDK_WRITER_SHORTCUTS: { enabled: boolean } = { enabled: true };
const ENV = ['run', 'round'];

// Events the UI message stream has a chunk for, and the fields it carries; every other type
// (and every event of a child lane) goes whole in a `data-agentwire.<type>` part.
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'run.start': [...ENV],
  'run.end': [...ENV, 'status', 'reason', 'error', 'answer', 'stopReason', 'usage', 'durationMs'],
  'round.start': ENV,
  'round.end': [...ENV, 'message', 'usage'],
  'message.start': [...ENV, 'role', 'message'],
  'message.end': [...ENV, 'message'],
  'text.delta': [...ENV, 'text', 'message'],
  'reasoning.delta': [...ENV, 'text', 'message', 'signature', 'redacted'],
  'tool.args.delta': [...ENV, 'call', 'name', 'text'],
  'tool.start': [...ENV, 'call', 'name', 'kind', 'server', 'args', 'argsSummary', 'command', 'startedAt'],
  'tool.end': [
    ...ENV,
    'call',
    'name',
    'ok',
    'text',
    'result',
    'error',
    'exitCode',
    'filesChanged',
    'denied',
    'startedAt',
    'endedAt',
  ],
  'approval.request': [...ENV, 'approval', 'call', 'tool', 'title'],
  'approval.resolve': [...ENV, 'approval', 'decision'],
  error: [...ENV, 'message', 'fatal'],
};

const TEXT_DELTA_CARRIED = CARRIED['text.delta']!;
const NO_SESSION = 'the UI message stream has no place for session';
const NO_WORKSPACE = 'the UI message stream has no place for workspace';
const NO_SEQ = 'the UI message stream has no place for seq';

// Outside a run (one assistant message) every event waits for the next one.
/** Most events kept waiting for a run; more are reported lost. */
const MAX_WAITING = 1024;

function ownHints(event: AgentEvent): AiSdkHints | undefined {
  return hintsFrom<AiSdkHints>(event, FORMAT);
}

/**
 * `,"toolMetadata":{"agentwire":…}` of a chunk (of `type`) whose metadata has fields, else
 * nothing; what JSON cannot hold refused as `emit` refuses it (`encodeJson`, the same path).
 */
function toolMetadataText(meta: JsonObject, type: string): string {
  for (const _ in meta)
    return `,"toolMetadata":{${META_KEY_JSON}:${encodeJson(meta, `${type}.toolMetadata.agentwire`, FORMAT)}}`;
  return '';
}

/**
 * The AI SDK UI message stream writer: canonical events → `UIMessageChunk`s, framed as SSE
 * (closed by `data: [DONE]`) or JSON Lines. A chunk the decoder read is written from its kept
 * record with the event's fields put back, and as it came while it says the same (`rawIfSame`).
 * Events from another format become the stream `readUIMessageStream` builds a message from: a
 * run is one assistant message (`start` … `finish`), rounds are steps, text and reasoning parts
 * open and close, a tool call is its input chunks then its output (a call with no input written
 * gets one, so its output always has an invocation), approvals are the approval chunks, the run's
 * usage (or its rounds' summed) rides `finish`'s `messageMetadata`. What the stream has no chunk
 * for, and every event of a child lane, travels whole in a `data-agentwire.<type>` part.
 */
export function createAiSdkEncoder(options: AiSdkEncodeOptions, sink: DiagnosticSink): Encoder {
  return new AiSdkEncoder(newWriter(options, sink));
}

/**
 * The encoder: the writer's state in its element 0, `write` and `end` on the prototype (the Amp
 * writer's shape): one call target and one hidden class for every encoder, where a literal of
 * two closures per encoder gave a caller's loop a new `write` target each time (docs/performance.md,
 * "Codex writer as `CodexEncoder`", round twenty-two).
 */
class AiSdkEncoder implements Encoder {
  declare readonly 0: Writer;

  constructor(w: Writer) {
    (this as { 0: Writer })[0] = w;
  }

  write(event: AgentEvent): string {
    return writeEvent(this[0], event);
  }

  end(): string {
    return endWrite(this[0]);
  }
}

/**
 * The writer's state ({@link newWriter}): an array of slots (the indices below), not a literal.
 * A literal made once per writer has no allocation site to hold its hidden class until its
 * factory has run several times, so the class dies with the last writer at a full GC and every
 * function that read the state is compiled again inside the next stream; an array's hidden class
 * belongs to the realm and outlives every GC (docs/performance.md, "AG-UI writer", round fifteen;
 * "AG-UI and AI SDK decoders", round twenty). The writer's work is module functions taking it.
 */
type Writer = [
  loss: LossState,
  idSource: (() => string) | undefined,
  framing: JsonFraming | undefined,
  counter: number,
  runOpen: boolean,
  /** The last message was left open (its run ended `incomplete`): the stream ends cut off. */
  cutOff: boolean,
  stepOpen: boolean,
  /** A round the source opened (`round.start`) and has not ended. */
  roundOpen: boolean,
  text: string | undefined,
  /** The id a `message.start` gave the next text part. */
  nextText: string | undefined,
  reasoning: string | undefined,
  wrote: boolean,
  errorWritten: boolean,
  roundUsage: Usage | undefined,
  /** Calls with a tool invocation in the message, by id: their tool's name. */
  invocations: Map<string, string>,
  /** Calls whose input is written whole (`tool-input-available`). */
  inputs: Set<string>,
  approvals: Set<string>,
  /** Each approval's call, and the approvals whose call already has its output. */
  approvalCall: Map<string, string>,
  decided: Set<string>,
  waiting: AgentEvent[],
  /** Chunks of events read as before a run (`hints.early`): written after the next chunk. */
  early: HeldRecords,
  /** The text part whose `text-delta` head {@link openDelta} holds, and that head. */
  deltaId: string | undefined,
  deltaHead: string,
  /**
   * The tool name of each call whose start this writer wrote from a kept chunk, and the text of
   * the last `error` chunk of the run it so wrote: what the decoder gave a later chunk's event
   * that has no place for it (a call's output or approval its name, a run's finish its error),
   * to tell an edit of it.
   */
  keptNames: Map<string, string>,
  keptFailure: string | undefined,
];

const LOSS = 0;
const ID_SOURCE = 1;
const FRAMING = 2;
const COUNTER = 3;
const RUN_OPEN = 4;
const CUT_OFF = 5;
const STEP_OPEN = 6;
const ROUND_OPEN = 7;
const TEXT = 8;
const NEXT_TEXT = 9;
const REASONING = 10;
const WROTE = 11;
const ERROR_WRITTEN = 12;
const ROUND_USAGE = 13;
const INVOCATIONS = 14;
const INPUTS = 15;
const APPROVALS = 16;
const APPROVAL_CALL = 17;
const DECIDED = 18;
const WAITING = 19;
const EARLY = 20;
const DELTA_ID = 21;
const DELTA_HEAD = 22;
const KEPT_NAMES = 23;
const KEPT_FAILURE = 24;

function newWriter(options: AiSdkEncodeOptions, sink: DiagnosticSink): Writer {
  return [
    newLoss(FORMAT, sink),
    options.idSource,
    options.framing,
    0,
    false,
    false,
    false,
    false,
    undefined,
    undefined,
    undefined,
    false,
    false,
    undefined,
    new Map(),
    new Set(),
    new Set(),
    new Map(),
    new Set(),
    [],
    newHeldRecords(MAX_WAITING),
    undefined,
    '',
    new Map(),
    undefined,
  ];
}

function newId(w: Writer): string {
  return w[ID_SOURCE] !== undefined ? w[ID_SOURCE]() : `aw-${++w[COUNTER]}`;
}

function writeEvent(w: Writer, event: AgentEvent): string {
  // A time a data part would write as it is (a string from an untyped caller; NaN as `null`), or
  // a kept part drop: refused first, for every event type, as the AG-UI writer refuses it.
  assertTimeWritable(event, FORMAT);
  if (AISDK_WRITER_SHORTCUTS.enabled && event.type === 'text.delta') {
    const text = openDelta(w, event);
    if (text !== undefined) return afterHeld(w[EARLY], text);
  }
  const hints = ownHints(event);
  if (hints !== undefined) {
    w[FRAMING] ??= hints.framing;
    if (event.provenance?.synthetic) return '';
    if (isJsonObject(hints.record)) {
      const text = own(w, event, hints.record, hints);
      // Read as before the run, written where it was: right after the run's `start`.
      if (hints.early === true && holdRecord(w[EARLY], text)) return '';
      return afterHeld(w[EARLY], text);
    }
  } else if (event.provenance?.format === FORMAT && event.provenance.synthetic) return '';
  return afterHeld(w[EARLY], foreign(w, event));
}

function endWrite(w: Writer): string {
  const out = afterHeld(w[EARLY], '');
  for (const e of w[WAITING]) reportLoss(w[LOSS], e, e.type, 'no message follows to carry it');
  w[WAITING] = [];
  // `[DONE]` closes a stream whose last run ended; one cut off mid-run stays as it was.
  if (framingOf(w) !== 'sse' || !w[WROTE] || w[RUN_OPEN] || w[CUT_OFF]) return out;
  return out + frameJson('sse', AISDK_DONE);
}

/**
 * Most of a stream from another format: a main-agent text delta of the text part already open
 * in the message's open step (no reasoning open) is the general path's `text-delta` alone,
 * written here without its dispatch. `undefined` for any other delta (the general path writes
 * it). Held to the general path by test/ui/writer-shortcuts.test.ts.
 */
function openDelta(w: Writer, event: AgentEventOf<'text.delta'>): string | undefined {
  const p = event.provenance;
  if ((p !== undefined && p.format === FORMAT) || event.lane !== undefined || !w[RUN_OPEN]) return undefined;
  const text = event.text;
  const open = w[TEXT];
  if (typeof text !== 'string' || text === '' || open === undefined || !w[STEP_OPEN]) return undefined;
  if ((event.message !== undefined && event.message !== open) || w[REASONING] !== undefined) return undefined;
  checkLoss(w[LOSS], event, TEXT_DELTA_CARRIED);
  w[NEXT_TEXT] = undefined;
  w[WROTE] = true;
  // The chunk's head is the same for every delta of the part: spelled once.
  if (open !== w[DELTA_ID]) {
    w[DELTA_ID] = open;
    w[DELTA_HEAD] = `{"type":"text-delta","id":${jsonString(open)},"delta":`;
  }
  return frameJson(framingOf(w), `${w[DELTA_HEAD]}${jsonString(text)}}`);
}

// ---- chunks read from the AI SDK: their record, with the event's fields put back ----

/**
 * An event read from the AI SDK: its kept chunk with every field of the event the general path
 * writes put back where the decoder read it, written as it came while it says the same
 * (`rawIfSame`). An edit the chunk has a place for is so written, and a field the event no
 * longer has is taken out of it (a redaction by deletion must not come back from the kept
 * chunk); text given to an event of a start chunk (`""` as read) follows the chunk as its delta;
 * an edit the chunk has no place for (a call's name on its output, a decision neither allow nor
 * deny, a run's failure on its finish), or a field deleted that the chunk cannot do without (an
 * id, a call's name or output, an error's text), is written by the general path.
 */
function own(w: Writer, event: AgentEvent, template: JsonObject, hints: AiSdkHints): string {
  // Refused before the failure its chunks restate is kept (a refused event changes nothing).
  assertOwnWritable(event, template);
  if (hints.before !== undefined) keepFailure(w, hints.before);
  const r: JsonObject = { ...template };
  const after = putBack(w, event, r);
  if (after === undefined) {
    // The chunks a run's end carries restate its failure (`error`), which the general path
    // writes from the event: kept, an edited or deleted failure would come back from them.
    const before = event.type === 'run.end' ? '' : frameEach(framingOf(w), hints.before);
    return before + foreign(w, event);
  }
  if (event.type === 'run.start') w[RUN_OPEN] = true;
  else if (event.type === 'run.end') w[RUN_OPEN] = false;
  if (event.type === 'run.start' || event.type === 'run.end') w[KEPT_FAILURE] = undefined;
  w[WROTE] = true;
  const framing = framingOf(w);
  return (
    frameEach(framing, hints.before) + frameJson(framing, rawIfSame(hints.raw, JSON.stringify(r))) + after
  );
}

/**
 * Throws now what {@link putBack} would throw for `event` put back into its kept chunk (`r`), or
 * write as no JSON: a carried event's fields JSON cannot hold, a run's usage figures that are no
 * numbers. {@link own} asks before it keeps anything of the event.
 */
function assertOwnWritable(event: AgentEvent, r: JsonObject): void {
  if (typeof r.type === 'string' && r.type.startsWith(AISDK_DATA_PREFIX)) {
    if (event.type !== 'unknown') assertCarriable(event, FORMAT);
  } else if (event.type === 'run.end' && event.usage !== undefined)
    assertUsageFigures(event.usage, 'run.end.usage', FORMAT);
}

/** A run's failure an `error` chunk carried by a later event said (its restated error). */
function keepFailure(w: Writer, before: readonly string[]): void {
  for (const raw of before) {
    if (!raw.startsWith('{"type":"error"')) continue;
    const r: unknown = JSON.parse(raw);
    if (isJsonObject(r) && typeof r.errorText === 'string') w[KEPT_FAILURE] = r.errorText;
  }
}

/**
 * Puts the event's fields back into `r` (a copy of its kept chunk), by type: what follows the
 * chunk (`''` for nothing), or `undefined` when an edit has no place in it.
 */
function putBack(w: Writer, event: AgentEvent, r: JsonObject): string | undefined {
  if (event.type !== 'unknown' && typeof r.type === 'string' && r.type.startsWith(AISDK_DATA_PREFIX)) {
    const value = carriedInto(r.data, event);
    // The decoder reads a carried event's lane and time from its value.
    putOrDrop(value, 'lane', event.lane);
    putOrDrop(value, 'ts', event.ts, isNumber);
    r.data = value;
    return '';
  }
  // Every event below but a run's has an id the chunk requires (a message's, a call's, an
  // approval's): deleted, the general path writes the event.
  switch (event.type) {
    case 'run.start':
      if (event.run !== undefined && 'messageId' in r) r.messageId = event.run;
      else if (event.run === undefined && typeof r.messageId === 'string') delete r.messageId;
      return '';
    case 'run.end':
      return runEndBack(w, event, r);
    case 'message.start':
    case 'message.end':
      if (event.message === undefined) return undefined;
      r.id = event.message;
      return '';
    case 'text.delta':
      if (event.message === undefined) return undefined;
      r.id = event.message;
      if ('delta' in r) r.delta = event.text;
      return '';
    case 'reasoning.delta':
      if (event.message === undefined) return undefined;
      r.id = event.message;
      putKeptMetaOrDrop(r, 'providerMetadata', 'signature', event.signature, isString);
      putKeptMetaOrDrop(r, 'providerMetadata', 'redacted', event.redacted, isString);
      if ('delta' in r) r.delta = event.text;
      else if (event.text !== '')
        return emit(w, 'reasoning-delta', { id: event.message ?? r.id, delta: event.text });
      return '';
    case 'tool.args.delta':
      if (event.call === undefined) return undefined;
      r.toolCallId = event.call;
      if (r.type !== 'tool-input-start') {
        if ('inputTextDelta' in r) r.inputTextDelta = event.text;
        return '';
      }
      // A call's start requires its name.
      if (event.name === undefined) return undefined;
      r.toolName = event.name;
      setBounded(w[KEPT_NAMES], event.call, event.name);
      if (event.text === '') return '';
      return emit(w, 'tool-input-delta', { toolCallId: event.call, inputTextDelta: event.text });
    case 'tool.start':
      // The name and input are required too (the input read as the arguments when an object).
      if (
        event.call === undefined ||
        event.name === undefined ||
        (event.args === undefined && isJsonObject(r.input))
      )
        return undefined;
      r.toolCallId = event.call;
      r.toolName = event.name;
      if (event.args !== undefined) r.input = event.args;
      setBounded(w[KEPT_NAMES], event.call, event.name);
      putKeptMetasOrDrop(r, 'toolMetadata', event, CALL_START_META, CALL_START_READS);
      return '';
    case 'tool.output':
      if (event.call === undefined) return undefined;
      r.toolCallId = event.call;
      if (typeof r.output === 'string' || JSON.stringify(r.output ?? null) !== event.text)
        r.output = event.text;
      return '';
    case 'tool.end':
      return toolEndBack(w, event, r);
    case 'approval.request':
      if (event.call !== undefined && changedName(w, event.call, event.tool)) return undefined;
      if (event.approval === undefined || event.call === undefined) return undefined;
      r.approvalId = event.approval;
      r.toolCallId = event.call;
      putOrDrop(r, 'reason', event.title);
      return '';
    case 'approval.resolve':
      if (event.decision !== (r.approved === true ? 'allow' : 'deny')) return undefined;
      if (event.approval === undefined) return undefined;
      r.approvalId = event.approval;
      return '';
    case 'error':
      // An `error` chunk's text (a carried error's record has no such field), which it requires.
      if (r.type === 'error') {
        if (event.message === undefined) return undefined;
        r.errorText = event.message;
        w[KEPT_FAILURE] = event.message;
      }
      return '';
    case 'unknown':
      // A chunk read as no event is the event's record: a changed one, or type, is written whole.
      return event.recordType === r.type && sameJson(event.record, r) ? '' : undefined;
    default:
      return '';
  }
}

/** True when `name` is not the name the kept chunks gave `call` (when they gave one). */
function changedName(w: Writer, call: string, name: string | undefined): boolean {
  const names = w[KEPT_NAMES];
  return names.has(call) && names.get(call) !== name;
}

/** A run's end: its finish reason and metadata, or its abort's reason. */
function runEndBack(w: Writer, event: AgentEventOf<'run.end'>, r: JsonObject): string | undefined {
  if (r.type === 'abort') {
    putOrDrop(r, 'reason', event.reason);
    return '';
  }
  // The failure the finish reads is the last `error` chunk's: the finish has no place for it.
  if (event.error !== w[KEPT_FAILURE]) return undefined;
  if (event.stopReason !== undefined && 'finishReason' in r) r.finishReason = event.stopReason;
  else if (event.stopReason === undefined && typeof r.finishReason === 'string') {
    // A failed run's finish says `error` whatever its stop reason (the general path's too).
    if (r.finishReason !== 'error' || event.status !== 'failed') delete r.finishReason;
  }
  const m = isJsonObject(r.messageMetadata) ? r.messageMetadata : undefined;
  if (
    (event.reason !== undefined && m?.reason !== event.reason) ||
    (event.durationMs !== undefined && m?.durationMs !== event.durationMs) ||
    (event.reason === undefined && typeof m?.reason === 'string') ||
    (event.durationMs === undefined && typeof m?.durationMs === 'number')
  ) {
    const meta: JsonObject = { ...m };
    // Deleted from the event, taken out of the metadata (copied: the kept object stays).
    putOrDrop(meta, 'reason', event.reason);
    putOrDrop(meta, 'durationMs', event.durationMs, isNumber);
    r.messageMetadata = meta;
  }
  // The usage as the decoder reads it (the metadata's usage, its cost and model): edited or
  // deleted, the metadata says the event's, as the general path writes it.
  const usage = event.usage;
  if (!sameJson(usage, usageFromMetadata(m))) {
    const kept = r.messageMetadata;
    const { usage: _u, costUsd: _c, model: _m, ...meta } = isJsonObject(kept) ? kept : ({} as JsonObject);
    if (usage !== undefined && !isZeroUsage(usage)) {
      assertUsageFigures(usage, 'run.end.usage', FORMAT);
      Object.assign(meta, usageToMetadata(usage));
    }
    if (Object.keys(meta).length > 0) r.messageMetadata = meta as JsonObject;
    else delete r.messageMetadata;
  }
  return '';
}

/** The fields of a call's end its output keeps in its metadata besides its text, error and result. */
const CALL_END_META = ['exitCode', 'filesChanged', 'startedAt', 'endedAt'];
/** How the decoder reads each of {@link CALL_END_META} (what a field deleted is taken out by). */
const CALL_END_READS: readonly ((kept: unknown) => boolean)[] = [isNumber, Array.isArray, isNumber, isNumber];

/** A call's output: its name only where the chunk has one, its outcome by the chunk's type. */
function toolEndBack(w: Writer, event: AgentEventOf<'tool.end'>, r: JsonObject): string | undefined {
  if (
    event.ok !== (r.type === 'tool-output-available') ||
    (event.denied === true) !== (r.type === 'tool-output-denied')
  )
    return undefined;
  if ('toolName' in r) {
    // A refused input's chunk requires the name.
    if (event.name === undefined) return undefined;
    r.toolName = event.name;
  } else if (changedName(w, event.call, event.name)) return undefined;
  // The call is required, and what the chunk read as the text, error or result: deleted, the
  // general path writes the event (an `output` or `errorText` kept would say the old one).
  const available = r.type === 'tool-output-available';
  if (
    event.call === undefined ||
    (event.text === undefined && available && typeof r.output === 'string') ||
    (event.error === undefined && typeof r.errorText === 'string') ||
    (event.result === undefined && available && typeof r.output !== 'string' && r.output !== undefined)
  )
    return undefined;
  r.toolCallId = event.call;
  const meta = metaOf(r.toolMetadata);
  if (event.text !== undefined && typeof r.output === 'string' && meta?.text === undefined)
    r.output = event.text;
  else putKeptMetaOrDrop(r, 'toolMetadata', 'text', event.text, isString);
  if (typeof event.error === 'string' && typeof r.errorText === 'string' && meta?.error === undefined)
    r.errorText = event.error;
  else putKeptMetaOrDrop(r, 'toolMetadata', 'error', event.error, isThere);
  // An output that is not text is the call's result, unless the metadata says another.
  if (available && typeof r.output !== 'string' && meta?.result === undefined) {
    if (event.result !== undefined) r.output = event.result;
  } else putKeptMetaOrDrop(r, 'toolMetadata', 'result', event.result, isThere);
  putKeptMetasOrDrop(r, 'toolMetadata', event, CALL_END_META, CALL_END_READS);
  return '';
}

// ---- events from another format ----

/**
 * Throws now what writing another format's event in a run would throw further on, before a run
 * is opened, a step opened, parts closed or a loss reported for it ({@link foreign}): a call's
 * values ({@link assertCallWritable}), a run's end's ({@link assertFinishWritable}), a round's
 * usage; and a field its chunk writes as it is that holds no string (a BigInt, which
 * `JSON.stringify` throws for, among the values refused): the ids and names a chunk carries,
 * opened or noted before the chunk is made (a text or reasoning part, a call's invocation, an
 * approval), a delta's text, a call's metadata and output text, a fatal error's text (the error
 * noted as written first). A cancellation's data part, written after the step is closed, is
 * checked whole. (An event waiting for a run was checked whole: `assertCarriable`.)
 */
function assertForeignWritable(event: AgentEvent): void {
  switch (event.type) {
    case 'run.end':
      assertFinishWritable(event);
      return;
    case 'round.end':
      if (event.usage !== undefined) assertUsageFigures(event.usage, 'round.end.usage', FORMAT);
      return;
    case 'message.start':
      assertText(event.message, event, 'message', FORMAT);
      return;
    case 'text.delta':
      requireText(event.text, event, 'text', FORMAT);
      assertText(event.message, event, 'message', FORMAT);
      return;
    case 'reasoning.delta':
      requireText(event.text, event, 'text', FORMAT);
      assertText(event.message, event, 'message', FORMAT);
      assertText(event.signature, event, 'signature', FORMAT);
      assertText(event.redacted, event, 'redacted', FORMAT);
      return;
    case 'tool.args.delta':
      requireText(event.call, event, 'call', FORMAT);
      assertText(event.name, event, 'name', FORMAT);
      requireText(event.text, event, 'text', FORMAT);
      return;
    case 'tool.start':
      requireText(event.call, event, 'call', FORMAT);
      assertText(event.name, event, 'name', FORMAT);
      assertText(event.kind, event, 'kind', FORMAT);
      assertText(event.server, event, 'server', FORMAT);
      assertText(event.argsSummary, event, 'argsSummary', FORMAT);
      assertText(event.command, event, 'command', FORMAT);
      assertCallWritable(event);
      return;
    case 'tool.end':
      requireText(event.call, event, 'call', FORMAT);
      assertText(event.name, event, 'name', FORMAT);
      assertText(event.text, event, 'text', FORMAT);
      if (event.filesChanged !== undefined)
        assertEncodable(event.filesChanged, 'tool.end.filesChanged', undefined, FORMAT);
      assertCallWritable(event);
      return;
    case 'approval.request':
      requireText(event.approval, event, 'approval', FORMAT);
      assertText(event.call, event, 'call', FORMAT);
      assertText(event.title, event, 'title', FORMAT);
      return;
    case 'cancel':
      assertCarriable(event, FORMAT);
      return;
    case 'error':
      if (event.fatal) requireText(event.message, event, 'message', FORMAT);
      return;
  }
}

function foreign(w: Writer, event: AgentEvent): string {
  // The envelope's fields a chunk writes: the lane, in the data part of an event on one (at the
  // run's start for one that waits there), and the run, the `start` chunk's message id of a run
  // the event opens; refused before anything is held, opened or said for the event, as a
  // refusal at that chunk would come after the run was opened for it, or at the run's start.
  assertText(event.lane, event, 'lane', FORMAT);
  if (event.type === 'run.start' || event.type === 'run.end') assertText(event.run, event, 'run', FORMAT);
  // Refused before a run is opened, a step opened, parts closed, a loss reported or the event
  // held for it: refused after, it would take what was written for it down, and a later event's
  // loss would go unsaid; held, it would be refused at the run's start, which it would take
  // down with it.
  assertForeignWritable(event);
  // Outside a message nothing opens one but a run: what comes before a run waits for its `start`
  // (a made-up message would read back as a run the source never had).
  if (!w[RUN_OPEN] && event.type !== 'run.start' && event.type !== 'run.end') {
    // Refused now if at all: refused at the run's start, it would take the start down with it.
    assertCarriable(event, FORMAT);
    const waiting = w[WAITING];
    // The first event is a new array of it: a push onto an empty `[]` changes its elements kind,
    // and the optimised push met an array of the kind before after a full GC (as the AG-UI
    // writer's; docs/performance.md, "Round thirty-four").
    if (waiting.length === 0) w[WAITING] = [event];
    else if (waiting.length < MAX_WAITING) waiting.push(event);
    else reportLoss(w[LOSS], event, event.type, 'too many events before a run');
    return '';
  }
  if (event.lane !== undefined) {
    // A run's start or end on a lane with no run open opens the run for its data part: refused
    // before that (data() checks it once the run is open).
    if (!w[RUN_OPEN]) assertCarriable(event, FORMAT);
    return ensureRun(w, event) + data(w, event);
  }
  // The table looked up by the type's own literal (any other type as it is: the same answer).
  const word = canonicalType(event.type);
  const carried = word !== undefined ? CARRIED[word] : CARRIED[event.type];
  // Approvals are checked where they are written: as chunks, or whole in a data part. A
  // non-fatal error goes whole in a data part, which carries every field but those `data`
  // reports: its own chunk's table is not its losses.
  if (
    carried !== undefined &&
    event.type !== 'approval.request' &&
    event.type !== 'approval.resolve' &&
    (event.type !== 'error' || event.fatal)
  )
    checkLoss(w[LOSS], event, carried);
  switch (event.type) {
    case 'run.start':
      // A run still open was never ended: its message stays open (read back as cut off), never
      // finished as if it had completed.
      return start(w, event);
    case 'run.end':
      // A run the source never ended stays open: its end came from no record.
      if (event.status === 'incomplete') return cut(w, event);
      // Nor does a derived end while a round the source opened is still open: it was cut off.
      if (event.provenance?.synthetic && w[ROUND_OPEN]) return '';
      return ensureRun(w, event) + finish(w, event);
    default:
      return ensureRun(w, event) + content(w, event);
  }
}

function content(w: Writer, event: AgentEvent): string {
  switch (event.type) {
    case 'round.start':
      w[ROUND_OPEN] = true;
      return closeParts(w) + closeStep(w) + openStep(w);
    case 'round.end': {
      w[ROUND_OPEN] = false;
      if (event.usage !== undefined) {
        w[ROUND_USAGE] ??= {};
        addUsage(w[ROUND_USAGE], event.usage);
      }
      return closeParts(w) + (w[STEP_OPEN] ? '' : openStep(w)) + closeStep(w);
    }
    case 'message.start':
      // The part opens with its first text: a message that says nothing leaves no empty part.
      w[NEXT_TEXT] = event.message;
      return closeParts(w);
    case 'message.end':
      return w[TEXT] !== undefined && (event.message === undefined || event.message === w[TEXT])
        ? closeText(w)
        : '';
    case 'text.delta': {
      if (event.text === '') return '';
      let out = ensureStep(w) + closeReasoning(w);
      if (w[TEXT] !== undefined && event.message !== undefined && event.message !== w[TEXT])
        out += closeText(w);
      if (w[TEXT] === undefined) out += openText(w, event.message ?? w[NEXT_TEXT]);
      w[NEXT_TEXT] = undefined;
      // Most of a stream, spelled out: the same bytes as emit() gives, without an object.
      w[WROTE] = true;
      return (
        out +
        frameJson(
          framingOf(w),
          `{"type":"text-delta","id":${jsonString(w[TEXT]!)},"delta":${jsonString(event.text)}}`,
        )
      );
    }
    case 'reasoning.delta':
      return ensureStep(w) + reasoningDelta(w, event);
    case 'tool.args.delta': {
      let out = ensureStep(w) + closeParts(w);
      if (!w[INVOCATIONS].has(event.call)) {
        const name = event.name ?? 'unknown';
        setBounded(w[INVOCATIONS], event.call, name);
        out += emit(w, 'tool-input-start', { toolCallId: event.call, toolName: name });
      }
      if (event.text === '') return out;
      return out + emit(w, 'tool-input-delta', { toolCallId: event.call, inputTextDelta: event.text });
    }
    case 'tool.start':
      return ensureStep(w) + closeParts(w) + toolInput(w, event);
    case 'tool.end':
      return ensureStep(w) + closeParts(w) + toolOutput(w, event);
    case 'approval.request':
      if (event.call === undefined || !w[INVOCATIONS].has(event.call)) return data(w, event);
      w[APPROVALS].add(event.approval);
      w[APPROVAL_CALL].set(event.approval, event.call);
      checkLoss(w[LOSS], event, CARRIED['approval.request']!);
      return (
        closeParts(w) +
        emit(w, 'tool-approval-request', {
          approvalId: event.approval,
          toolCallId: event.call,
          reason: event.title,
        })
      );
    case 'approval.resolve':
      // A decision after the call's output would take the part back from its outcome.
      if (!w[APPROVALS].has(event.approval) || w[DECIDED].has(event.approval)) return data(w, event);
      checkLoss(w[LOSS], event, CARRIED['approval.resolve']!);
      return emit(w, 'tool-approval-response', {
        approvalId: event.approval,
        approved: decisionAllows(event.decision),
      });
    case 'cancel':
      // The run stops here: its step ends before the cancellation is said.
      return closeParts(w) + closeStep(w) + data(w, event);
    case 'error':
      // A warning, whole in a data part (read back with its code, data and time).
      if (!event.fatal) return data(w, event);
      w[ERROR_WRITTEN] = true;
      return closeParts(w) + emit(w, 'error', { errorText: event.message });
    default:
      return data(w, event);
  }
}

/**
 * An event whole in a `data-agentwire.<type>` part: every field read back but those
 * {@link dataLosses} reports, which it reports once the part is sure to be written (a refused
 * event's loss would use up the one report of a later event's).
 */
function data(w: Writer, event: AgentEvent): string {
  if (
    AISDK_WRITER_SHORTCUTS.enabled &&
    event.type === 'tool.output' &&
    event.lane === undefined &&
    event.ts === undefined &&
    carriesCallText(event)
  ) {
    // Most of what a stream carries: its value spelled, not built (strings need no check).
    dataLosses(w, event);
    w[WROTE] = true;
    return frameJson(
      framingOf(w),
      `{"type":"${AISDK_DATA_PREFIX}tool.output","data":{"call":${jsonString(event.call)},"text":${jsonString(event.text)}}}`,
    );
  }
  const value = carriedValue(event);
  if (event.lane !== undefined) value.lane = event.lane;
  if (event.ts !== undefined) value.ts = event.ts;
  for (const k of Object.keys(value)) assertEncodable(value[k], `${event.type}.${k}`, undefined, FORMAT);
  dataLosses(w, event);
  return emit(w, `${AISDK_DATA_PREFIX}${event.type}`, { data: value });
}

/**
 * What a data part cannot say: the message states its run and steps; a session, workspace or
 * sequence number it cannot. Named one by one, each loss once per event type without its name
 * built again.
 */
function dataLosses(w: Writer, event: AgentEvent): void {
  if (event.session !== undefined) reportKeyLoss(w[LOSS], event, 'session', NO_SESSION);
  if (event.workspace !== undefined) reportKeyLoss(w[LOSS], event, 'workspace', NO_WORKSPACE);
  if (event.seq !== undefined) reportKeyLoss(w[LOSS], event, 'seq', NO_SEQ);
}

function emit(w: Writer, type: string, fields: JsonObject): string {
  w[WROTE] = true;
  if (!AISDK_WRITER_SHORTCUTS.enabled) {
    const r: JsonObject = { type };
    for (const k of Object.keys(fields)) if (fields[k] !== undefined) r[k] = fields[k];
    return frameJson(framingOf(w), encodeJson(r, type, FORMAT));
  }
  // The chunk's text in pieces, without copying `fields` behind a `type` key: `JSON.stringify`
  // drops undefined fields as the chunk would not have them, and slicing its braces off copies
  // nothing. Held to the object above by test/ui/writer-shortcuts.test.ts.
  // (`encodeJson`: what JSON.stringify throws a TypeError for, a BigInt of an event built by
  // hand, is refused as the writer refuses, an AgentwireError.)
  const body = encodeJson(fields, type, FORMAT);
  return frameJson(
    framingOf(w),
    body.length > 2 ? `{"type":${jsonString(type)},${body.slice(1)}` : `{"type":${jsonString(type)}}`,
  );
}

/**
 * A chunk its caller spelled whole (the same bytes {@link emit} gives for its fields, without the
 * fields object): only behind {@link AISDK_WRITER_SHORTCUTS}, held to emit by
 * test/ui/writer-shortcuts.test.ts.
 */
function chunk(w: Writer, json: string): string {
  w[WROTE] = true;
  return frameJson(framingOf(w), json);
}

function framingOf(w: Writer): JsonFraming {
  w[FRAMING] ??= 'sse';
  return w[FRAMING];
}

// ---- the message: start, steps, finish ----

function ensureRun(w: Writer, event: AgentEvent): string {
  return w[RUN_OPEN] ? '' : start(w, event);
}

/**
 * A run that ended without its end (`incomplete`): its message is left as it was, open, and
 * reads back as cut off; what its end says besides is lost.
 */
function cut(w: Writer, event: AgentEventOf<'run.end'>): string {
  if (!w[RUN_OPEN]) return '';
  w[RUN_OPEN] = false;
  w[CUT_OFF] = true;
  // The rounds' usage is the source's own, even when the end itself was made up by a reader.
  roundUsageLoss(w, event, "a message left open has no finish to carry its rounds' usage");
  if (event.provenance?.synthetic) return '';
  for (const k of ['stopReason', 'usage', 'durationMs', 'reason', 'error', 'answer'] as const)
    if (event[k] !== undefined)
      reportLoss(w[LOSS], event, `run.end.${k}`, 'a message left open has no finish to carry it');
  return '';
}

// A run without a finish (cut off or aborted) whose rounds stated usage and whose end did not
// (or whose end a reader made up, its usage the rounds' sum): the sum the finish would have
// carried is lost.
function roundUsageLoss(w: Writer, event: AgentEventOf<'run.end'>, why: string): void {
  const ownUsage = event.usage !== undefined && event.provenance?.synthetic !== true;
  if (!ownUsage && w[ROUND_USAGE] !== undefined && !isZeroUsage(w[ROUND_USAGE]))
    reportLoss(w[LOSS], event, 'round.end.usage', why);
}

function start(w: Writer, event: AgentEvent): string {
  w[RUN_OPEN] = true;
  w[CUT_OFF] = false;
  // Parts and a step of a message cut off stay open there: the new message has none.
  w[TEXT] = undefined;
  w[REASONING] = undefined;
  w[NEXT_TEXT] = undefined;
  w[STEP_OPEN] = false;
  w[ROUND_OPEN] = false;
  w[ERROR_WRITTEN] = false;
  w[ROUND_USAGE] = undefined;
  w[INVOCATIONS].clear();
  w[INPUTS].clear();
  w[APPROVALS].clear();
  w[APPROVAL_CALL].clear();
  w[DECIDED].clear();
  let out = emit(w, 'start', { messageId: event.run ?? newId(w) });
  const waiting = w[WAITING];
  w[WAITING] = [];
  // A warning that waited goes whole, as one in the run does, without the loss check no waiting
  // event gets.
  for (const e of waiting)
    out += e.lane !== undefined || (e.type === 'error' && !e.fatal) ? data(w, e) : content(w, e);
  return out;
}

/**
 * Throws now what {@link finish} would throw for a run's end (its usage figures, its duration,
 * which JSON.stringify would write as null): {@link foreign} asks before the run is opened or
 * closed for it. The rounds' summed usage finish may write instead is checked by each round's
 * end, before it is summed.
 */
function assertFinishWritable(event: AgentEventOf<'run.end'>): void {
  // Written into the `abort`, `error` or `finish` chunk after the run's parts are closed.
  assertText(event.reason, event, 'reason', FORMAT);
  assertText(event.error, event, 'error', FORMAT);
  if (event.status === 'incomplete' || event.status === 'cancelled') return;
  if (event.usage !== undefined) assertUsageFigures(event.usage, 'run.end.usage', FORMAT);
  if (event.durationMs !== undefined) finite(event.durationMs, 'run.end.durationMs');
}

function finish(w: Writer, event: AgentEventOf<'run.end'> | undefined): string {
  let out = closeParts(w) + closeStep(w);
  w[RUN_OPEN] = false;
  if (event?.status === 'cancelled') {
    for (const k of ['stopReason', 'usage', 'durationMs'] as const)
      if (event[k] !== undefined)
        reportLoss(w[LOSS], event, `run.end.${k}`, 'an abort chunk carries a reason only');
    roundUsageLoss(w, event, 'an abort chunk carries a reason only');
    return out + emit(w, 'abort', { reason: event.reason });
  }
  const failed = event?.status === 'failed';
  if (failed && !w[ERROR_WRITTEN])
    out += emit(w, 'error', { errorText: event?.error ?? event?.reason ?? 'failed' });
  const fields: JsonObject = {};
  const reason = failed ? 'error' : finishReasonOf(event?.stopReason);
  if (reason !== undefined) fields.finishReason = reason;
  const usage = event?.usage ?? w[ROUND_USAGE];
  // JSON.stringify would write a NaN figure as null: refused, as every writer refuses it.
  if (usage !== undefined) assertUsageFigures(usage, 'run.end.usage', FORMAT);
  const metadata: JsonObject = usage !== undefined && !isZeroUsage(usage) ? usageToMetadata(usage) : {};
  if (event?.durationMs !== undefined) metadata.durationMs = finite(event.durationMs, 'run.end.durationMs');
  if (event?.reason !== undefined) metadata.reason = event.reason;
  if (Object.keys(metadata).length > 0) fields.messageMetadata = metadata;
  return out + emit(w, 'finish', fields);
}

function openStep(w: Writer): string {
  w[STEP_OPEN] = true;
  if (AISDK_WRITER_SHORTCUTS.enabled) return chunk(w, START_STEP);
  return emit(w, 'start-step', {});
}

function ensureStep(w: Writer): string {
  return w[STEP_OPEN] ? '' : openStep(w);
}

function closeStep(w: Writer): string {
  if (!w[STEP_OPEN]) return '';
  w[STEP_OPEN] = false;
  if (AISDK_WRITER_SHORTCUTS.enabled) return chunk(w, FINISH_STEP);
  return emit(w, 'finish-step', {});
}

// ---- text and reasoning parts ----

function openText(w: Writer, id: string | undefined): string {
  const text = id ?? newId(w);
  w[TEXT] = text;
  if (AISDK_WRITER_SHORTCUTS.enabled && typeof text === 'string')
    return chunk(w, `{"type":"text-start","id":${jsonString(text)}}`);
  return emit(w, 'text-start', { id: text });
}

function closeText(w: Writer): string {
  if (w[TEXT] === undefined) return '';
  const id = w[TEXT];
  w[TEXT] = undefined;
  if (AISDK_WRITER_SHORTCUTS.enabled && typeof id === 'string')
    return chunk(w, `{"type":"text-end","id":${jsonString(id)}}`);
  return emit(w, 'text-end', { id });
}

function reasoningDelta(w: Writer, event: AgentEventOf<'reasoning.delta'>): string {
  let out = closeText(w);
  if (w[REASONING] !== undefined && event.message !== undefined && event.message !== w[REASONING])
    out += closeReasoning(w);
  const opaque: JsonObject = {};
  if (event.signature !== undefined) opaque.signature = event.signature;
  if (event.redacted !== undefined) opaque.redacted = event.redacted;
  const hasOpaque = Object.keys(opaque).length > 0;
  if (event.text === '' && !hasOpaque) return out;
  if (w[REASONING] === undefined) {
    w[REASONING] = event.message ?? newId(w);
    out += emit(w, 'reasoning-start', { id: w[REASONING] });
  }
  const fields: JsonObject = { id: w[REASONING], delta: event.text };
  if (hasOpaque) fields.providerMetadata = { [AISDK_META_KEY]: opaque };
  return out + emit(w, 'reasoning-delta', fields);
}

function closeReasoning(w: Writer): string {
  if (w[REASONING] === undefined) return '';
  const id = w[REASONING];
  w[REASONING] = undefined;
  return emit(w, 'reasoning-end', { id });
}

function closeParts(w: Writer): string {
  return closeText(w) + closeReasoning(w);
}

// ---- tool calls ----

/**
 * Throws now what writing a call's start or end would throw for a value JSON cannot hold (its
 * arguments, result, non-text error, figures): {@link foreign} asks before it writes anything
 * for the event. Every event {@link toolInput} and {@link toolOutput} write is so checked, or
 * whole by `assertCarriable` before it waited for a run.
 */
function assertCallWritable(event: AgentEventOf<'tool.start'> | AgentEventOf<'tool.end'>): void {
  if (event.type === 'tool.start') {
    if (event.args !== undefined) assertEncodable(event.args, 'tool.start.args', undefined, FORMAT);
    if (event.startedAt !== undefined) finite(event.startedAt, 'tool.start.startedAt');
    return;
  }
  if (event.exitCode !== undefined) finite(event.exitCode, 'tool.end.exitCode');
  if (event.startedAt !== undefined) finite(event.startedAt, 'tool.end.startedAt');
  if (event.endedAt !== undefined) finite(event.endedAt, 'tool.end.endedAt');
  // A denied call's result and error go unwritten (reported lost).
  if (event.denied === true) return;
  if (event.result !== undefined) assertEncodable(event.result, 'tool.end.result', undefined, FORMAT);
  if (!event.ok && event.error !== undefined && typeof event.error !== 'string')
    assertEncodable(event.error, 'tool.end.error', undefined, FORMAT);
}

/** A call's `tool-input-available`; `event` checked ({@link assertCallWritable}). */
function toolInput(w: Writer, event: AgentEventOf<'tool.start'>): string {
  const input = event.args ?? (event.command !== undefined ? { command: event.command } : {});
  const call = event.call;
  const name = event.name;
  setBounded(w[INVOCATIONS], call, name);
  w[INPUTS].add(call);
  // The frequent call (no metadata but a string summary) gets no metadata object: one built field
  // by field grows through transition maps that die at a full GC with the last such object, and
  // take this function's optimised code along (docs/performance.md, "AG-UI and AI SDK decoders",
  // round twenty).
  const summary = event.argsSummary;
  const meta =
    (summary === undefined || typeof summary === 'string') &&
    event.kind === undefined &&
    event.server === undefined &&
    event.command === undefined &&
    event.startedAt === undefined
      ? undefined
      : toolMetadata(event);
  if (AISDK_WRITER_SHORTCUTS.enabled && typeof call === 'string' && typeof name === 'string') {
    // The metadata first: a command JSON cannot hold (in both) is refused as `emit` refuses it.
    const metaText =
      meta !== undefined
        ? toolMetadataText(meta, 'tool-input-available')
        : summary === undefined
          ? ''
          : `,"toolMetadata":{${META_KEY_JSON}:{"argsSummary":${jsonString(summary)}}}`;
    const inputJson = JSON.stringify(input);
    if (typeof inputJson === 'string') {
      return chunk(
        w,
        `{"type":"tool-input-available","toolCallId":${jsonString(call)},"toolName":${jsonString(name)},"input":${inputJson}${metaText}}`,
      );
    }
  }
  const m = meta ?? toolMetadata(event);
  return emit(w, 'tool-input-available', {
    toolCallId: event.call,
    toolName: event.name,
    input,
    toolMetadata: Object.keys(m).length > 0 ? { [AISDK_META_KEY]: m } : undefined,
  });
}

// The metadata's fields named one by one (not a loop over their names: a keyed read of each).
function toolMetadata(event: AgentEventOf<'tool.start'>): JsonObject {
  const meta: JsonObject = {};
  if (event.kind !== undefined) meta.kind = event.kind;
  if (event.server !== undefined) meta.server = event.server;
  if (event.argsSummary !== undefined) meta.argsSummary = event.argsSummary;
  if (event.command !== undefined) meta.command = event.command;
  if (event.startedAt !== undefined) meta.startedAt = finite(event.startedAt, 'tool.start.startedAt');
  return meta;
}

// A number of the metadata, which JSON.stringify would write as null were it NaN or infinite:
// refused, as every writer refuses what it cannot write.
function finite(n: number, field: string): number {
  assertFiniteNumber(n, field, FORMAT);
  return n;
}

/** A call's output chunk (its input first when none was written); `event` checked ({@link assertCallWritable}). */
function toolOutput(w: Writer, event: AgentEventOf<'tool.end'>): string {
  let out = '';
  if (!w[INPUTS].has(event.call)) {
    // An output needs its invocation: a call whose start never came gets its input here.
    const name = w[INVOCATIONS].get(event.call) ?? event.name ?? 'unknown';
    out += toolInput(w, { type: 'tool.start', call: event.call, name });
  }
  w[INPUTS].delete(event.call);
  for (const [approval, call] of w[APPROVAL_CALL]) if (call === event.call) w[DECIDED].add(approval);
  const meta: JsonObject = {};
  if (event.exitCode !== undefined) meta.exitCode = finite(event.exitCode, 'tool.end.exitCode');
  if (event.filesChanged !== undefined) meta.filesChanged = event.filesChanged;
  if (event.startedAt !== undefined) meta.startedAt = finite(event.startedAt, 'tool.end.startedAt');
  if (event.endedAt !== undefined) meta.endedAt = finite(event.endedAt, 'tool.end.endedAt');
  const toolMetadata = (): JsonObject | undefined =>
    Object.keys(meta).length > 0 ? { [AISDK_META_KEY]: meta } : undefined;
  if (event.denied === true) {
    if (event.error !== undefined) meta.error = event.error;
    if (event.text !== undefined) meta.text = event.text;
    if (Object.keys(meta).length > 0)
      reportLoss(w[LOSS], event, 'tool.end.error', 'tool-output-denied has no text');
    return out + emit(w, 'tool-output-denied', { toolCallId: event.call });
  }
  if (!event.ok) {
    const errorText =
      typeof event.error === 'string'
        ? event.error
        : (event.text ?? (event.error !== undefined ? JSON.stringify(event.error) : 'failed'));
    if (event.result !== undefined) meta.result = event.result;
    if (event.text !== undefined && event.text !== errorText) meta.text = event.text;
    if (event.error !== undefined && typeof event.error !== 'string') meta.error = event.error;
    if (AISDK_WRITER_SHORTCUTS.enabled && typeof event.call === 'string' && typeof errorText === 'string')
      return (
        out +
        chunk(
          w,
          `{"type":"tool-output-error","toolCallId":${jsonString(event.call)},"errorText":${jsonString(errorText)}${toolMetadataText(meta, 'tool-output-error')}}`,
        )
      );
    return (
      out + emit(w, 'tool-output-error', { toolCallId: event.call, errorText, toolMetadata: toolMetadata() })
    );
  }
  let output: unknown = event.text ?? null;
  if (event.result !== undefined) {
    output = event.result;
    if (event.text !== undefined) meta.text = event.text;
  }
  if (AISDK_WRITER_SHORTCUTS.enabled && typeof event.call === 'string') {
    const outputJson = typeof output === 'string' ? jsonText(output) : JSON.stringify(output);
    if (typeof outputJson === 'string')
      return (
        out +
        chunk(
          w,
          `{"type":"tool-output-available","toolCallId":${jsonString(event.call)},"output":${outputJson}${toolMetadataText(meta, 'tool-output-available')}}`,
        )
      );
  }
  return (
    out + emit(w, 'tool-output-available', { toolCallId: event.call, output, toolMetadata: toolMetadata() })
  );
}
