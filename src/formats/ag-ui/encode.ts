import { setBounded } from '../../bounded';
import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import {
  afterHeld,
  assertCarriable,
  CARRY_PREFIX,
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
  assertText,
  assertTimeWritable,
  contentPartsText,
  encodeJson,
  isFlatOfPrimitives,
  isJsonObject,
  isPlainPrimitive,
  type JsonObject,
  jsonString,
  jsonText,
  parseJsonObject,
  rawIfSame,
  refuseKind,
  requireText,
  sameJson,
  walkEncodable,
  wrongType,
} from '../../json';
import {
  CALL_START_META,
  CALL_START_READS,
  isBoolean,
  isNumber,
  isString,
  isThere,
  putDefined,
  putKeptMeta,
  putKeptMetaOrDrop,
  putKeptMetasOrDrop,
  putOrDrop,
} from '../../kept';
import { checkLoss, type LossState, newLoss, reportLoss } from '../../loss';
import type { AgentEvent, AgentEventOf, Usage } from '../../model';
import { hintsFrom } from '../../record';
import {
  CALLS,
  CHECKED,
  CHECKED_ARGS,
  CHECKED_CONTENT,
  CHECKED_META,
  COUNTER,
  DELTA_HEAD,
  DELTA_ID,
  EARLY,
  ENDED,
  FATAL,
  FRAMING,
  ID_SOURCE,
  KEPT_ARGS,
  KEPT_NAMES,
  KEPT_PARENTS,
  LOSS,
  MAIN_ROUND,
  MESSAGE_TEXT,
  PENDING,
  READ_ROUND,
  READ_STEP,
  REASONING,
  RESUME,
  RUN,
  RUN_OPEN,
  RUN_TEXT,
  RUN_TEXT_LENGTH,
  RUNS,
  STEP,
  STEPS,
  SUBAGENTS,
  TEXT,
  THREAD,
  WAITING,
} from './encode-slots';
import {
  AGUI_APPROVAL_REASON,
  AGUI_MAX_ARGS_CHARS,
  AGUI_MAX_HELD_TEXT,
  AGUI_META_KEY,
  AGUI_QUESTION_REASON,
  type AguiHints,
  lastUserText,
  metaOf,
  roundOfStepName,
  stepNameOf,
  usageEntryJson,
  usageFromWire,
  usageToWire,
  withLastUserText,
  withoutLastUser,
} from './wire';

/** Options of the AG-UI writer. */
export interface AguiEncodeOptions extends EncodeOptions {
  /**
   * `sse` (`data: {json}\n\n`, what `@ag-ui/encoder` writes; the default) or `jsonl` (one JSON
   * object per line). Default: the framing the events were read in, else `sse`.
   */
  framing?: JsonFraming;
  /** Makes the thread, run and message ids events do not have. Default: a counter. */
  idSource?: () => string;
}

const FORMAT = 'ag-ui' as const;
const META_KEY_JSON = JSON.stringify(AGUI_META_KEY);

/**
 * The switch of the writer's shortcuts (records written in pieces, text deltas of an open
 * message written without the general dispatch). Tests turn it off to hold the shortcuts to the
 * general path (test/ui/writer-shortcuts.test.ts); nothing else should.
 */
export const AGUI_WRITER_SHORTCUTS: { enabled: boolean } = { enabled: true };
const ENV = ['session', 'run', 'round', 'ts', 'lane'];

/** The fields of a call's end its result keeps in its metadata (besides `ok`). */
const CALL_END_META = [
  'error',
  'result',
  'exitCode',
  'denied',
  'filesChanged',
  'startedAt',
  'endedAt',
] as const;

// Events AG-UI has a slot for, and the fields it carries (a list, in no order: `checkLoss`
// looks a field up in it); every other type goes whole in a `CUSTOM` event named
// `agentwire.<type>`.
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'run.start': [...ENV, 'input'],
  'run.end': [...ENV, 'status', 'reason', 'error', 'answer', 'usage', 'stopReason', 'durationMs', 'input'],
  'round.start': ENV,
  'round.end': [...ENV, 'message', 'stopReason', 'usage', 'model'],
  'message.start': [...ENV, 'role', 'message'],
  'message.end': [...ENV, 'message'],
  'text.delta': [...ENV, 'text', 'message'],
  'reasoning.delta': [...ENV, 'text', 'message', 'redacted'],
  'tool.args.delta': [...ENV, 'call', 'name', 'text'],
  'tool.start': [...ENV, 'call', 'name', 'args', ...CALL_START_META],
  'tool.end': [...ENV, 'call', 'name', 'ok', 'text', ...CALL_END_META],
  'approval.request': [...ENV, 'approval', 'call', 'tool', 'title', 'args', 'effects', 'options'],
  'approval.resolve': [...ENV, 'approval', 'decision', 'option'],
  question: [...ENV, 'question', 'questions', 'call'],
  'question.answer': [...ENV, 'question', 'answers'],
  'child.start': [...ENV, 'child', 'name', 'task', 'call', 'background', 'kind'],
  'child.end': [...ENV, 'child', 'status', 'result', 'usage'],
  unknown: [...ENV, 'record', 'recordType'],
};

const TEXT_DELTA_CARRIED = CARRIED['text.delta']!;
/** How the decoder reads each of {@link CALL_END_META} (what a field deleted is taken out by). */
const CALL_END_READS: readonly ((kept: unknown) => boolean)[] = [
  isThere,
  isThere,
  isNumber,
  (v) => v === true,
  Array.isArray,
  isNumber,
  isNumber,
];

// Outside a run AG-UI has no place for an event (a stream opens with RUN_STARTED and a finished
// run takes nothing more): every such event waits for the next run.
/** Most events kept waiting for a run; more are reported lost. */
const MAX_WAITING = 1024;

function ownHints(event: AgentEvent): AguiHints | undefined {
  return hintsFrom<AguiHints>(event, FORMAT);
}

/** A `usage` array, or none for a usage that counts nothing (see {@link isZeroUsage}). */
function usageOf(usage: Usage | undefined): JsonObject[] | undefined {
  return usage === undefined || isZeroUsage(usage) ? undefined : usageToWire(usage);
}

/**
 * What a run's end says beyond AG-UI's fields, kept in its `metadata.agentwire`: its `reason`
 * (with `withReason`: a `RUN_ERROR` says it as its `code`; an interrupt's is its outcome),
 * `stopReason`, `durationMs`, `input`, the usage's cost and `status`. `undefined` when it says
 * none of them; else one literal of every key in this order, a value it does not say
 * `undefined` (which `JSON.stringify` leaves out: the same bytes as an object given its keys one
 * by one). One hidden class for every run's end, made with the literal's site: an object built
 * key by key took one of several, which died at each full GC with the code that had seen them
 * (`assertEncodable`'s, `isFlatOfPrimitives` inlined: docs/performance.md, "Round thirty-four").
 */
function runMeta(
  event: AgentEventOf<'run.end'> | undefined,
  withReason: boolean,
  status: 'incomplete' | undefined,
): JsonObject | undefined {
  const reason = withReason && event?.reason !== 'interrupt' ? event?.reason : undefined;
  const stopReason = event?.stopReason;
  const durationMs = event?.durationMs;
  const input = event?.input;
  const usage = event?.usage;
  // TokenUsage counts tokens only: the cost rides beside it.
  const costUsd = usage?.costUsd !== undefined && !isZeroUsage(usage) ? usage.costUsd : undefined;
  if (
    reason === undefined &&
    stopReason === undefined &&
    durationMs === undefined &&
    input === undefined &&
    costUsd === undefined &&
    status === undefined
  )
    return undefined;
  return { reason, stopReason, durationMs, input, costUsd, status };
}

/**
 * A run-end metadata object kept for the module's life, made by {@link runMeta} with every field
 * generalised (a number of each kind, then `undefined`), so that the hidden class its literal
 * gives stays alive. A run's end is written once per stream: until `runMeta` has a feedback
 * vector (a few streams in) the literal's map is found again in the transition tree at each
 * call, and when no object of it was alive a full GC had freed it; the optimised
 * `assertEncodable` of the check then met a second map once, after warm-up (docs/performance.md,
 * "Round thirty-six").
 */
export const HELD_RUN_META: JsonObject | undefined = heldRunMeta();

function heldRunMeta(): JsonObject | undefined {
  const usage = { input: 1, output: 1, costUsd: 0.5 };
  const event = { type: 'run.end', status: 'failed', durationMs: 1, usage } as const;
  runMeta(event, true, 'incomplete');
  return runMeta({ type: 'run.end', status: 'failed', reason: 'r' }, true, undefined);
}

/**
 * A record's `timestamp`: its event's `ts`, rounded (AG-UI's is whole milliseconds). Only
 * `undefined` or a finite number reaches here: every event's `ts` is checked before its write
 * ({@link assertTimeWritable}), and the records the writer makes on its own (a step or message
 * closed by another event) carry none.
 */
function timestampOf(ts: number | undefined): number | undefined {
  return ts === undefined ? undefined : Math.round(ts);
}

/**
 * The AG-UI writer: canonical events → AG-UI 1.0 events, framed as SSE or JSON Lines. An event
 * the decoder read is written from its kept record with the event's fields put back, and as it
 * came while it says the same (`rawIfSame`). Events from another format become a stream AG-UI's
 * own verifier accepts: a run opens with `RUN_STARTED` (events that come before one wait for
 * it), rounds are steps, text, reasoning and tool calls open and close their messages,
 * approvals and questions still open when their run ends end it with an interrupt outcome (and
 * decisions after it are the next run's resume entries), subagents are `SUBAGENT_*` events and their
 * events carry `subagentRunId`; what AG-UI has no slot for travels whole in a `CUSTOM` event
 * named `agentwire.<type>` (a foreign record in `RAW`).
 */
export function createAguiEncoder(options: AguiEncodeOptions, sink: DiagnosticSink): Encoder {
  return new AguiEncoder(newWriter(options, sink));
}

/**
 * The encoder: the writer's state in its element 0, `write` and `end` on the prototype (the Amp
 * writer's shape): one call target and one hidden class for every encoder, where a literal of
 * two closures per encoder gave a caller's loop a new `write` target each time (docs/performance.md,
 * "Codex writer as `CodexEncoder`", round twenty-two).
 */
class AguiEncoder implements Encoder {
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
 * An array's hidden class belongs to the realm and outlives every full GC; a literal's dies with
 * the last writer, and every function that read the state is then compiled again inside the next
 * stream (docs/performance.md, "AG-UI writer", round fifteen). The writer's work is module
 * functions taking it.
 */
type Writer = [
  loss: LossState,
  idSource: (() => string) | undefined,
  framing: JsonFraming | undefined,
  counter: number,
  thread: string | undefined,
  run: string | undefined,
  runOpen: boolean,
  runs: number,
  /** The open step of each lane (`''`: the main agent's). */
  step: Map<string, string>,
  steps: number,
  text: Map<string, string>,
  reasoning: Map<string, string>,
  /** Calls whose TOOL_CALL_START is written and TOOL_CALL_END not yet. */
  calls: Map<string, string>,
  /** Calls whose arguments were written whole (TOOL_CALL_END). */
  ended: Set<string>,
  subagents: Set<string>,
  pending: Array<AgentEventOf<'approval.request'> | AgentEventOf<'question'>>,
  resume: JsonObject[],
  waiting: AgentEvent[],
  /** Records of events read as before a run (`hints.early`): written after the next record. */
  early: HeldRecords,
  fatal: string | undefined,
  /**
   * The main agent's text in this run (what an answer equal to it repeats) and its length: the
   * text of each of its messages that ended, joined when the message ends, then the pieces of
   * the open message as they came ({@link MESSAGE_TEXT}). Not one string grown by `+=` (a rope
   * of a cell per delta, all alive until the run ends, that every young-generation GC would
   * copy), nor one list of every delta's text (one entry per delta alive until the run ends).
   * Past AGUI_MAX_HELD_TEXT characters nothing is held: the length alone goes on counting.
   */
  runText: string[],
  /** The pieces of the main agent's open message, after everything in {@link RUN_TEXT}. */
  messageText: string[],
  runTextLength: number,
  /** The message whose `TEXT_MESSAGE_CONTENT` head {@link openDelta} holds, and that head. */
  deltaId: string | undefined,
  deltaHead: string,
  /**
   * The tool name of each call whose start this writer wrote from a kept record, and the parent
   * lane of each child it did: what the decoder gave a later record's event that has no place
   * for it (a call's end its name, a child's end its lane), to tell an edit of it.
   */
  keptNames: Map<string, string>,
  keptParents: Map<string, string | undefined>,
  /**
   * The arguments text of each call whose start this writer wrote from a kept record, as its
   * records so far give it (the decoder's `tool.start.args` is that text parsed): what tells an
   * edit of the arguments at the call's end.
   */
  keptArgs: Map<string, string>,
  /**
   * The round the decoder reads for the next event (its count: a step named by `stepNameOf`
   * reads as its number, any other as one more) and whether a step is open (only then does an
   * event other than a round's start read a round): what every step record written so far,
   * kept or not, gives it.
   */
  readRound: number,
  readStep: boolean,
  /** The round of the main agent's open step (the number its name says). */
  mainRound: number | undefined,
  /**
   * The event {@link assertForeignWritable} checked for the write under way, and what the check
   * made for it: a call start's arguments (undefined when its deltas opened it) and spelled
   * metadata, a call end's metadata and content, a round end's spelled metadata, a `CUSTOM`
   * event's value (undefined for a call's output of its call and text alone). The write
   * takes them instead of walking and encoding the same values again; {@link foreign} clears
   * the event before each check, so nothing is taken for another write.
   */
  checked: AgentEvent | undefined,
  checkedArgs: unknown,
  checkedMeta: JsonObject | undefined,
  checkedContent: string | undefined,
];

function newWriter(options: AguiEncodeOptions, sink: DiagnosticSink): Writer {
  return [
    newLoss(FORMAT, sink),
    options.idSource,
    options.framing,
    0,
    undefined,
    undefined,
    false,
    0,
    new Map(),
    0,
    new Map(),
    new Map(),
    new Map(),
    new Set(),
    new Set(),
    [],
    [],
    [],
    newHeldRecords(MAX_WAITING),
    undefined,
    [],
    [],
    0,
    undefined,
    '',
    new Map(),
    new Map(),
    new Map(),
    0,
    false,
    undefined,
    undefined,
    undefined,
    undefined,
    '',
  ];
}

function writeEvent(w: Writer, event: AgentEvent): string {
  if (AGUI_WRITER_SHORTCUTS.enabled && event.type === 'text.delta') {
    const text = openDelta(w, event);
    if (text !== undefined) return afterHeld(w[EARLY], text);
  }
  const hints = ownHints(event);
  if (hints !== undefined) {
    if (event.provenance?.synthetic || hints.part) {
      w[FRAMING] ??= hints.framing;
      return '';
    }
    const record = hints.record;
    if (isJsonObject(record)) {
      // (`own` takes the event's framing once the event is checked: a refused one leaves none.)
      const text = own(w, event, record, hints);
      // Read as before the run, written where it was: right after the run's opening record.
      if (hints.early === true && holdRecord(w[EARLY], text)) return '';
      return afterHeld(w[EARLY], text);
    }
    // No kept record (taken out): the general path writes it, in the framing it was read in.
    return afterHeld(w[EARLY], framedGeneral(w, event, hints.framing, undefined));
  } else if (event.provenance?.format === FORMAT && event.provenance.synthetic) return '';
  return afterHeld(w[EARLY], foreign(w, event));
}

function endWrite(w: Writer): string {
  let out = afterHeld(w[EARLY], '');
  // A run still open when the events end was cut off: it stays open, as it was (AG-UI says
  // nothing of a run whose producer stopped), unless it waits on requests (an interrupt) or
  // failed. Events still waiting for a run are lost.
  for (const e of w[WAITING]) reportLoss(w[LOSS], e, e.type, 'no AG-UI run follows to carry it');
  w[WAITING] = [];
  if (w[RUN_OPEN] && w[FATAL] !== undefined) out += runError(w, undefined);
  else if (w[RUN_OPEN] && w[PENDING].length > 0) out += finishRun(w, undefined);
  return out;
}

/**
 * Most of a stream from another format: a main-agent text delta of the message already open in
 * the run's open step (no reasoning open) is the general path's `TEXT_MESSAGE_CONTENT` alone,
 * written here without its dispatch. `undefined` for any other delta (the general path writes
 * it). Held to the general path by test/ui/writer-shortcuts.test.ts.
 */
function openDelta(w: Writer, event: AgentEventOf<'text.delta'>): string | undefined {
  const p = event.provenance;
  if ((p !== undefined && p.format === FORMAT) || event.lane !== undefined || !w[RUN_OPEN]) return undefined;
  // A time no `timestamp` can hold: the general path refuses it.
  const ts = event.ts;
  if (ts !== undefined && !Number.isFinite(ts)) return undefined;
  const text = event.text;
  if (typeof text !== 'string' || text === '') return undefined;
  const open = w[TEXT].get('');
  if (open === undefined || (event.message !== undefined && event.message !== open)) return undefined;
  if (!w[STEP].has('') || w[REASONING].has('')) return undefined;
  if (event.round !== undefined && event.round !== w[MAIN_ROUND]) return undefined;
  checkLoss(w[LOSS], event, TEXT_DELTA_CARRIED);
  addRunText(w, text);
  // The record's head is the same for every delta of the message: spelled once.
  if (open !== w[DELTA_ID]) {
    w[DELTA_ID] = open;
    w[DELTA_HEAD] = `{"type":"TEXT_MESSAGE_CONTENT","messageId":${jsonString(open)},"delta":`;
  }
  let json = w[DELTA_HEAD] + jsonString(text);
  if (ts !== undefined) json += `,"timestamp":${Math.round(ts)}`;
  return frameJson(framingOf(w), `${json}}`);
}

// ---- events read from AG-UI: their record, with the event's fields put back ----

/**
 * Refuses an event read from AG-UI whose text may follow its record in a record of its own (a
 * reasoning marker's content, a call's start's arguments: {@link keptBack}), or be kept as the
 * arguments read so far ({@link argsKept}), when that text is no string: JSON.stringify's
 * TypeError for a BigInt there, or the next arguments' for a null, would come after the record
 * was written. A switch on the type, as the other writers' checks ({@link assertText}).
 */
function assertKeptText(event: AgentEvent): void {
  switch (event.type) {
    case 'reasoning.delta':
    case 'tool.args.delta':
      assertText(event.text, event, 'text', FORMAT);
      return;
  }
}

/**
 * An event read from AG-UI: its kept record with every field of the event the general path
 * writes put back where the decoder read it, written as it came while it says the same
 * (`rawIfSame`). An edit the record has a place for is so written, and a field the event no
 * longer has is taken out of it (a redaction by deletion must not come back from the kept
 * record); text given to an event of a start marker (`""` as read) follows the record as its
 * content; an edit the record has no place for (a call's name on its end, a child's parent lane
 * on its end), or a field deleted that the record cannot do without (an id AG-UI requires), is
 * written by the general path. A refused event leaves the writer as it found it: the record is
 * built and checked ({@link ownLine}) before the writer changes for it, and the records carried
 * before it, read first (the round it reads in is theirs), are taken back.
 */
function own(w: Writer, event: AgentEvent, template: JsonObject, hints: AguiHints): string {
  assertTimeWritable(event, FORMAT);
  assertKeptText(event);
  const before = hints.before;
  if (before === undefined) return ownLine(w, event, template, hints);
  // (Only an event carrying records, a run's end that closed steps, has steps to take back:
  // the read steps of the writer, keptStep's.)
  const steps = [w[READ_ROUND], w[READ_STEP], w[MAIN_ROUND], new Map(w[STEP])] as const;
  beforeRead(w, before);
  try {
    return ownLine(w, event, template, hints);
  } catch (error) {
    [w[READ_ROUND], w[READ_STEP], w[MAIN_ROUND], w[STEP]] = steps;
    throw error;
  }
}

/**
 * {@link own} once the records carried before the event are read: the record built from the
 * kept one (`putBack`, which changes nothing of the writer), checked, and only then what writing
 * it changes (`keptBack`, the steps it opens or closes). Not the kept line, a record whose text
 * has a `null` may hold a number JSON cannot hold (`1e400` on the kept line, read as Infinity,
 * or put back from the event), which `JSON.stringify` wrote as that `null`: refused, as every
 * writer refuses such a number. The look is only where the text has a `null`, the one spelling
 * such a number takes (an integer past 2^53 is written as its digits), so the common line costs
 * nothing more; no copy of the writer is made (docs/performance.md, "Round thirty-three").
 */
function ownLine(w: Writer, event: AgentEvent, template: JsonObject, hints: AguiHints): string {
  // The round is the one the record reads in only while the event says it: an edited round is
  // written by the general path, which opens a step for it (the record has no place for it).
  if (event.round !== keptRound(w, template, hints)) return ownGeneral(w, event, hints, 'general');
  const r: JsonObject = { ...template };
  let back: Back = 'carried';
  // A carried event's value (a carried record read as no event is that event's record).
  if (
    event.type !== 'unknown' &&
    r.type === 'CUSTOM' &&
    typeof r.name === 'string' &&
    r.name.startsWith(CARRY_PREFIX)
  )
    r.value = carriedInto(r.value, event);
  else {
    back = putBack(w, event, r);
    if (back === 'general' || back === 'general-args') return ownGeneral(w, event, hints, back);
  }
  // Every record's lane (but a child's, whose own run it names) and time.
  if (event.type !== 'child.start' && event.type !== 'child.end') putOrDrop(r, 'subagentRunId', event.lane);
  putOrDrop(r, 'timestamp', event.ts, isNumber);
  const raw = hints.raw;
  const text = recordText(r);
  let line = rawIfSame(raw, text);
  if (line !== raw && text.includes('null')) walkEncodable(r, 'record', Number.POSITIVE_INFINITY, FORMAT);
  // Checked: from here the writer changes for the record.
  w[FRAMING] ??= hints.framing;
  const after = back === 'carried' ? '' : keptBack(w, event, r);
  if (back === 'new-message') {
    // The user message runStartBack added to the run's input, last of it, takes its id now
    // (`newId`, the caller's `idSource`, is not called for a record then refused): the record
    // is written with it.
    const messages = (r.input as JsonObject).messages as JsonObject[];
    messages[messages.length - 1]!.id = newId(w);
    line = JSON.stringify(r);
  }
  // After the record's fields: a run's start or end written by the general path opens or ends
  // the run itself.
  if (event.type === 'run.start') w[RUN_OPEN] = true;
  else if (event.type === 'run.end') w[RUN_OPEN] = false;
  keptStep(w, r);
  const framing = framingOf(w);
  return frameEach(framing, hints.before) + frameJson(framing, line) + after;
}

/**
 * `JSON.stringify` of a record built from a kept one. What it cannot write at all (a BigInt, a
 * cycle: put back from the edited event, or edited into the kept record by hand) is refused as
 * every value JSON cannot hold is (`unencodable`, naming its path in the record), not the
 * TypeError it throws; before the writer changes for the record (its caller's order). Nesting is
 * no matter here: the kept record's was judged when it was read.
 */
function recordText(r: JsonObject): string {
  try {
    return JSON.stringify(r);
  } catch {
    walkEncodable(r, 'record', Number.POSITIVE_INFINITY, FORMAT);
    // (What the walk passes and JSON.stringify does not: a `toJSON` that throws.)
    return encodeJson(r, 'record', FORMAT);
  }
}

/**
 * An event read from AG-UI that the general path writes ({@link framedGeneral}); `general-args`,
 * the arguments the call's kept records gave forgotten once it is written (its start is read
 * anew).
 */
function ownGeneral(
  w: Writer,
  event: AgentEvent,
  hints: AguiHints,
  back: 'general' | 'general-args',
): string {
  const out = framedGeneral(w, event, hints.framing, hints.before);
  if (back === 'general-args') w[KEPT_ARGS].delete((event as AgentEventOf<'tool.start'>).call);
  return out;
}

/**
 * An event read from AG-UI that the general path writes ({@link foreign}, which checks it
 * first), after the records it carries (`before`), in the framing it was read in (`framing`)
 * unless the writer has one: the framing is the writer's only once the event is written, so a
 * refused one leaves the writer as it found it.
 */
function framedGeneral(
  w: Writer,
  event: AgentEvent,
  framing: JsonFraming | undefined,
  before: readonly string[] | undefined,
): string {
  const was = w[FRAMING];
  w[FRAMING] ??= framing;
  try {
    // (No records before it: the framing is not settled here, the event may wait for a run.)
    const out = before === undefined ? '' : frameEach(framingOf(w), before);
    return out + foreign(w, event);
  } catch (error) {
    w[FRAMING] = was;
    throw error;
  }
}

/**
 * What {@link putBack} found for a kept record: `kept`, the record with the event's fields put
 * back (what writing it changes, {@link keptBack}, not done yet); `new-message`, the same with a
 * new user message in the run's input whose id is taken once the record is checked; `general`, an edit the
 * record has no place for (the general path writes the event); `general-args`, the same for a
 * call's start whose arguments were edited, which forgets the arguments its kept records gave
 * once written; `carried`, a carried event's value (nothing to change).
 */
type Back = 'kept' | 'new-message' | 'general' | 'general-args' | 'carried';

/**
 * The round the decoder gives the event of the kept record `r` when the records so far are read
 * ({@link READ_ROUND}): none for one read as before its run or for a run's start, the one a
 * step's start names (else the next), and the open step's for any other.
 */
function keptRound(w: Writer, r: JsonObject, hints: AguiHints): number | undefined {
  if (hints.early === true || r.type === 'RUN_STARTED') return undefined;
  if (r.type === 'STEP_STARTED') return roundOfStepName(r.stepName) ?? w[READ_ROUND] + 1;
  return w[READ_STEP] ? w[READ_ROUND] : undefined;
}

/**
 * A kept record written: the steps and runs it opens or closes, as the decoder reads them and as
 * the general path then finds them open (its events go into the step the record opened).
 */
function keptStep(w: Writer, r: JsonObject): void {
  switch (r.type) {
    case 'RUN_STARTED':
      w[READ_ROUND] = 0;
      w[READ_STEP] = false;
      w[STEP].clear();
      w[MAIN_ROUND] = undefined;
      return;
    case 'RUN_FINISHED':
    case 'RUN_ERROR':
      w[STEP].clear();
      w[MAIN_ROUND] = undefined;
      return;
    case 'STEP_STARTED': {
      const round = roundOfStepName(r.stepName) ?? w[READ_ROUND] + 1;
      w[READ_ROUND] = round;
      w[READ_STEP] = true;
      const lane = typeof r.subagentRunId === 'string' ? r.subagentRunId : '';
      w[STEP].set(lane, typeof r.stepName === 'string' ? r.stepName : stepNameOf(round));
      if (lane === '') w[MAIN_ROUND] = round;
      return;
    }
    case 'STEP_FINISHED': {
      w[READ_STEP] = false;
      const lane = typeof r.subagentRunId === 'string' ? r.subagentRunId : '';
      w[STEP].delete(lane);
      if (lane === '') w[MAIN_ROUND] = undefined;
      return;
    }
    default:
      return;
  }
}

/** Records an event carries before its own (steps a run's end closed): read as written. */
function beforeRead(w: Writer, before: readonly string[]): void {
  for (const text of before) {
    const r = parseJsonObject(text);
    if (r !== undefined) keptStep(w, r);
  }
}

/**
 * Puts the event's fields back into `r` (a copy of its kept record), by type, reading the
 * writer and changing nothing of it (what writing the record changes is {@link keptBack}'s, once
 * the record is checked): what it found ({@link Back}).
 */
function putBack(w: Writer, event: AgentEvent, r: JsonObject): Back {
  switch (event.type) {
    case 'run.start':
      return runStartBack(event, r);
    case 'run.end':
      return runEndBack(event, r);
    case 'round.end':
      putKeptMetaOrDrop(r, 'metadata', 'stopReason', event.stopReason, isString);
      putKeptMetaOrDrop(r, 'metadata', 'model', event.model, isString);
      return 'kept';
    case 'message.start':
    case 'message.end':
      // The message id is required: without it the general path writes the event.
      if (event.message === undefined) return 'general';
      r.messageId = event.message;
      return 'kept';
    case 'text.delta':
      if (event.message === undefined && typeof r.messageId === 'string') return 'general';
      if ('delta' in r) r.delta = event.text;
      putDefined(r, 'messageId', event.message);
      return 'kept';
    case 'reasoning.delta':
      return reasoningBack(event, r);
    case 'tool.args.delta':
      return argsBack(event, r);
    case 'tool.start':
    case 'tool.end':
      return callBack(w, event, r);
    case 'child.start':
      // The child's id and name are required: without them the general path writes the event.
      if (event.child === undefined || event.name === undefined) return 'general';
      r.subagentRunId = event.child;
      r.name = event.name;
      putOrDrop(r, 'description', event.task);
      putOrDrop(r, 'parentToolCallId', event.call);
      putOrDrop(r, 'parentSubagentRunId', event.lane);
      putKeptMetaOrDrop(r, 'metadata', 'kind', event.kind, isString);
      putKeptMetaOrDrop(r, 'metadata', 'background', event.background, isBoolean);
      return 'kept';
    case 'child.end': {
      const parents = w[KEPT_PARENTS];
      if (parents.has(event.child) && parents.get(event.child) !== event.lane) return 'general';
      const failed = r.type === 'SUBAGENT_ERROR';
      // An error's message is required: without it the general path says the child failed.
      if (event.child === undefined || (failed && event.result === undefined)) return 'general';
      r.subagentRunId = event.child;
      putOrDrop(r, failed ? 'message' : 'result', event.result);
      return 'kept';
    }
    case 'unknown':
      // A record read as no event is the event's record (a `RAW` one's the record it passes
      // through): a changed or deleted one is written by the general path.
      return sameJson(event.record, r.type === 'RAW' ? r.event : r) ? 'kept' : 'general';
    default:
      return 'kept';
  }
}

/**
 * What writing a record {@link putBack} built changes, done once it is checked: the call names,
 * arguments and child lanes the writer keeps; what
 * follows the record (`''` for nothing: text given to a start marker, its content).
 */
function keptBack(w: Writer, event: AgentEvent, r: JsonObject): string {
  switch (event.type) {
    case 'reasoning.delta':
      if ('delta' in r || event.text === '') return '';
      return emit(w, event, 'REASONING_MESSAGE_CONTENT', {
        messageId: event.message ?? (r.messageId as string | undefined) ?? newId(w),
        delta: event.text,
      });
    case 'tool.args.delta':
      return argsKept(w, event, r);
    case 'tool.start':
      // The arguments are read anew from here (callBack compared them).
      if (w[KEPT_ARGS].size !== 0) w[KEPT_ARGS].delete(event.call);
      return '';
    case 'child.start':
      setBounded(w[KEPT_PARENTS], event.child, event.lane);
      return '';
    case 'child.end':
      w[KEPT_PARENTS].delete(event.child);
      return '';
    default:
      return '';
  }
}

/** A run's start: its thread, run and input (its last user message). */
function runStartBack(event: AgentEventOf<'run.start'>, r: JsonObject): Back {
  // The thread and run are required: without them the general path makes new ones.
  if (event.session === undefined || event.run === undefined) return 'general';
  r.threadId = event.session;
  r.runId = event.run;
  if (event.input === undefined) {
    // The input deleted: its message goes (the rest of the kept input, the resume entries
    // that are events of their own among it, stays).
    if (lastUserText(r.input) !== undefined) r.input = withoutLastUser(r.input as JsonObject);
    return 'kept';
  }
  if (lastUserText(r.input) === event.input) return 'kept';
  const input = isJsonObject(r.input) ? r.input : { threadId: r.threadId!, runId: r.runId! };
  let added = false;
  // A message added has no id until the record is checked (ownLine): `undefined` holds its
  // place first among its keys.
  r.input = withLastUserText(input, event.input, () => {
    added = true;
    return undefined as unknown as string;
  });
  return added ? 'new-message' : 'kept';
}

/**
 * A run's end: its error and code, or its answer, and what its metadata says; `undefined` when a
 * field is deleted that the record cannot do without (its thread, run, status, an error's
 * message, an interrupt's reason): the general path writes the event.
 */
function runEndBack(event: AgentEventOf<'run.end'>, r: JsonObject): Back {
  if (event.status === undefined) return 'general';
  if (r.type === 'RUN_ERROR') {
    if (event.error === undefined) return 'general';
    r.message = event.error;
    putOrDrop(r, 'code', event.reason);
  } else {
    if (event.session === undefined || event.run === undefined) return 'general';
    if (typeof event.answer === 'string') r.result = event.answer;
    else if (event.answer === undefined && typeof r.result === 'string') delete r.result;
    // An interrupt outcome reads as the reason `interrupt` unless the metadata says another.
    const meta = metaOf(r);
    const outcome = isJsonObject(r.outcome) ? r.outcome : undefined;
    if (event.reason === undefined && outcome?.type === 'interrupt' && Array.isArray(outcome.interrupts))
      return 'general';
    const kept =
      typeof meta?.reason === 'string'
        ? meta.reason
        : outcome?.type === 'interrupt'
          ? 'interrupt'
          : undefined;
    if (event.reason !== kept) putKeptMeta(r, 'metadata', 'reason', event.reason);
  }
  // The decoder reads the metadata's reason over a run error's code too.
  if (event.reason === undefined) putKeptMetaOrDrop(r, 'metadata', 'reason', undefined, isString);
  putKeptMetaOrDrop(r, 'metadata', 'stopReason', event.stopReason, isString);
  putKeptMetaOrDrop(r, 'metadata', 'input', event.input, isString);
  putKeptMetaOrDrop(r, 'metadata', 'durationMs', event.durationMs, isNumber);
  // The usage as the decoder reads it (the array, the cost beside it): an edited or deleted one
  // is written as the general path writes it.
  const cost = metaOf(r)?.costUsd;
  const read = usageFromWire(r.usage);
  if (!sameJson(event.usage, typeof cost === 'number' ? { ...read, costUsd: cost } : read)) {
    const usage = usageOf(event.usage);
    if (usage !== undefined) r.usage = usage;
    else delete r.usage;
    // (The cost as the general path writes it beside the usage: runMeta's.)
    putKeptMetaOrDrop(r, 'metadata', 'costUsd', runMeta(event, false, undefined)?.costUsd, isNumber);
  }
  return 'kept';
}

/**
 * A reasoning record; text given to a marker with none follows it as its content (written by
 * {@link keptBack}: where `r` has no `delta`).
 */
function reasoningBack(event: AgentEventOf<'reasoning.delta'>, r: JsonObject): Back {
  if (r.type === 'REASONING_ENCRYPTED_VALUE') {
    const opaque = metaOf(r)?.signature === true ? event.signature : event.redacted;
    // Both are required: without either the general path writes the event.
    if (event.message === undefined || opaque === undefined) return 'general';
    r.entityId = event.message;
    r.encryptedValue = opaque;
  } else if (event.message === undefined && typeof r.messageId === 'string') return 'general';
  else putDefined(r, 'messageId', event.message);
  if ('delta' in r || (r.type === 'REASONING_MESSAGE_CHUNK' && event.text !== '')) r.delta = event.text;
  return 'kept';
}

/** A call's start or arguments (what the writer keeps of them: {@link argsKept}). */
function argsBack(event: AgentEventOf<'tool.args.delta'>, r: JsonObject): Back {
  // The call is required, and the name of its start: without them the general path writes it.
  if (event.call === undefined || (event.name === undefined && r.type === 'TOOL_CALL_START'))
    return 'general';
  r.toolCallId = event.call;
  putOrDrop(r, 'toolCallName', event.name);
  if (r.type !== 'TOOL_CALL_START' && ('delta' in r || event.text !== '')) r.delta = event.text;
  return 'kept';
}

/** A call's start or arguments written from its kept record: its name and arguments kept; arguments given to its start follow it. */
function argsKept(w: Writer, event: AgentEventOf<'tool.args.delta'>, r: JsonObject): string {
  if (event.name !== undefined) setBounded(w[KEPT_NAMES], event.call, event.name);
  if (r.type !== 'TOOL_CALL_START') {
    addKeptArgs(w, event.call, typeof r.delta === 'string' ? r.delta : '');
    return '';
  }
  // The decoder reads a call's arguments from its start on.
  setBounded(w[KEPT_ARGS], event.call, event.text);
  if (event.text === '') return '';
  return emit(w, event, 'TOOL_CALL_ARGS', { toolCallId: event.call, delta: event.text });
}

/** A call's end or result: its name has no place there (the decoder had it from its start). */
function callBack(
  w: Writer,
  event: AgentEventOf<'tool.start'> | AgentEventOf<'tool.end'>,
  r: JsonObject,
): Back {
  const names = w[KEPT_NAMES];
  if (names.has(event.call)) {
    const name = names.get(event.call)!;
    // A start reads `''` for no name, a result none.
    if ((event.type === 'tool.start' ? name : name || undefined) !== event.name) return 'general';
  }
  // The call is required: without it the general path writes the event.
  if (event.call === undefined) return 'general';
  r.toolCallId = event.call;
  if (event.type === 'tool.start') {
    // The arguments are what the call's records so far give, parsed as the decoder reads them
    // (a JSON object, else none, `''` too): edited or deleted, they are written by the general
    // path (a new start with the event's arguments whole, which the decoder reads from there
    // on). Either way they are forgotten once written.
    const text = w[KEPT_ARGS].get(event.call);
    if (text !== undefined && !sameJson(event.args, parseJsonObject(text))) return 'general-args';
    putKeptMetasOrDrop(r, 'metadata', event, CALL_START_META, CALL_START_READS);
    return 'kept';
  }
  if (event.text === undefined) {
    // The text deleted: the result's content is required, the general path writes it anew.
    if (contentPartsText(r.content) !== undefined) return 'general';
  } else if (contentPartsText(r.content) !== event.text) r.content = event.text;
  if (event.ok !== (metaOf(r)?.ok !== false)) putKeptMeta(r, 'metadata', 'ok', event.ok);
  putKeptMetasOrDrop(r, 'metadata', event, CALL_END_META, CALL_END_READS);
  return 'kept';
}

/** More arguments text of a call whose start was written from a kept record. */
function addKeptArgs(w: Writer, call: string, text: string): void {
  const sofar = w[KEPT_ARGS].get(call);
  if (sofar !== undefined && sofar.length + text.length <= AGUI_MAX_ARGS_CHARS)
    w[KEPT_ARGS].set(call, sofar + text);
}

// ---- events from another format ----

function foreign(w: Writer, event: AgentEvent): string {
  // Refused before anything is said or changed for it (round thirty-one): its losses, a run or
  // step opened, a run's open parts closed, an id taken.
  const waits = !w[RUN_OPEN] && event.type !== 'run.start' && event.type !== 'run.end';
  w[CHECKED] = undefined;
  assertForeignWritable(w, event, waits);
  const carried = CARRIED[event.type];
  if (carried !== undefined) checkLoss(w[LOSS], event, carried);
  // Outside a run every event waits for the next `RUN_STARTED` (AG-UI has no event outside a
  // run, and a made-up run would read back as one the source never had).
  if (waits) {
    if (w[RUNS] > 0 && (event.type === 'approval.resolve' || event.type === 'question.answer')) {
      w[RESUME].push(resumeEntry(event));
      return '';
    }
    const waiting = w[WAITING];
    // The first event is a new array of it, as the run's text's first entry (settleMessageText).
    if (waiting.length === 0) w[WAITING] = [event];
    else if (waiting.length < MAX_WAITING) waiting.push(event);
    else reportLoss(w[LOSS], event, event.type, 'too many events before a run');
    return '';
  }
  let out = '';
  switch (event.type) {
    case 'run.start':
      if (w[RUN_OPEN]) out += finishRun(w, undefined);
      return out + startRun(w, event);
    case 'run.end':
      // A run the source never ended stays open (it came from no record), unless it waits on
      // a request: that is an interrupt, and says so.
      if (event.status === 'incomplete' && event.provenance?.synthetic && w[PENDING].length === 0) return '';
      if (!w[RUN_OPEN]) {
        if (event.status === 'incomplete') return '';
        out += startRun(w, event);
      }
      return out + finishRun(w, event);
    default:
      break;
  }
  if (!w[RUN_OPEN]) out += startRun(w, event);
  return out + content(w, event);
}

/**
 * Throws now what writing another format's `event` would throw further on, with the same words,
 * in the order its write would meet them: an event waiting for a run is checked whole (refused
 * at the run's start, it would take the start down with it), a round JSON cannot hold where a
 * step is opened for it, a call's arguments and metadata, a round's or run's end's metadata, a
 * carried value. `waits`: the event waits for the next run.
 */
function assertForeignWritable(w: Writer, event: AgentEvent, waits: boolean): void {
  // Every record of the event carries its time (`timestamp`), a waiting one's too once its run
  // starts.
  assertTimeWritable(event, FORMAT);
  if (waits) assertCarriable(event, FORMAT);
  // Every record of the event names its lane (`subagentRunId`), and a lane seen first opens its
  // subagent (`onNewLane`, at the run's start for an event that waits).
  assertText(event.lane, event, 'lane', FORMAT);
  // The text fields each type's records write as they are (a BigInt, which `JSON.stringify`
  // throws for, among the values refused): ids and names marked open before their record is
  // made (a message, reasoning, call or subagent opened), a run's thread and run ids, input,
  // answer and error, a fatal error's message (the run's `RUN_ERROR`, at its end), a call's
  // result text. Refused at that record, the event would be refused after the writer changed
  // for it (a step or run opened, an open part closed), or at the run's start or end.
  switch (event.type) {
    case 'tool.start': {
      requireText(event.call, event, 'call', FORMAT);
      assertText(event.name, event, 'name', FORMAT);
      w[CHECKED_ARGS] = waits || !w[CALLS].has(event.call) ? callArgs(event) : undefined;
      assertRound(w, event);
      // (Strings and a finite start, as most calls have, hold nothing to refuse: no walk.)
      const spelled = callMetaJson(event);
      if (spelled === undefined)
        assertEncodable(callStartMeta(event), 'TOOL_CALL_END.metadata', undefined, FORMAT);
      w[CHECKED_CONTENT] = spelled;
      w[CHECKED] = event;
      return;
    }
    case 'tool.end':
      requireText(event.call, event, 'call', FORMAT);
      assertText(event.name, event, 'name', FORMAT);
      assertText(event.text, event, 'text', FORMAT);
      w[CHECKED_META] = isPlainEnd(event) ? undefined : callEndMeta(event);
      w[CHECKED_CONTENT] = callEndContent(event);
      w[CHECKED] = event;
      return;
    case 'round.end':
      assertRound(w, event);
      assertUsageObject(event.usage, 'round.end.usage');
      {
        // (Spelled, as most rounds' are, the metadata holds nothing to refuse: no walk.)
        const spelled = roundMetaJson(event);
        if (spelled !== undefined) {
          w[CHECKED_CONTENT] = spelled;
          w[CHECKED] = event;
          return;
        }
        const usage = usageOf(event.usage);
        const meta = roundEndMeta(event, usage);
        if (!roundMetaPlain(meta, usage)) assertEncodable(meta, 'STEP_FINISHED.metadata', undefined, FORMAT);
      }
      return;
    case 'run.end':
      if (
        event.status === 'incomplete' &&
        (!w[RUN_OPEN] || (event.provenance?.synthetic && w[PENDING].length === 0))
      )
        return;
      assertRunIds(event);
      assertText(event.answer, event, 'answer', FORMAT);
      assertText(event.error, event, 'error', FORMAT);
      assertUsageObject(event.usage, 'run.end.usage');
      assertEncodable(
        runMeta(event, true, undefined),
        event.status === 'failed' ? 'RUN_ERROR.metadata' : 'RUN_FINISHED.metadata',
        undefined,
        FORMAT,
      );
      return;
    case 'unknown':
      assertEncodable(event.record, 'unknown.record', undefined, FORMAT);
      return;
    case 'message.start':
    case 'text.delta':
      assertText(event.message, event, 'message', FORMAT);
      if (event.type === 'text.delta') requireText(event.text, event, 'text', FORMAT);
      assertRound(w, event);
      return;
    case 'reasoning.delta':
      requireText(event.text, event, 'text', FORMAT);
      assertText(event.message, event, 'message', FORMAT);
      assertText(event.signature, event, 'signature', FORMAT);
      assertText(event.redacted, event, 'redacted', FORMAT);
      assertRound(w, event);
      return;
    case 'tool.args.delta':
      requireText(event.call, event, 'call', FORMAT);
      assertText(event.name, event, 'name', FORMAT);
      requireText(event.text, event, 'text', FORMAT);
      assertRound(w, event);
      return;
    case 'round.start':
      assertRound(w, event);
      return;
    case 'child.start':
      requireText(event.child, event, 'child', FORMAT);
      assertText(event.name, event, 'name', FORMAT);
      assertText(event.kind, event, 'kind', FORMAT);
      assertText(event.task, event, 'task', FORMAT);
      assertText(event.call, event, 'call', FORMAT);
      if (event.background !== undefined)
        assertEncodable(event.background, 'child.start.background', undefined, FORMAT);
      return;
    case 'child.end':
      requireText(event.child, event, 'child', FORMAT);
      assertText(event.result, event, 'result', FORMAT);
      assertUsageObject(event.usage, 'child.end.usage');
      return;
    case 'run.start':
      assertRunIds(event);
      assertText(event.input, event, 'input', FORMAT);
      return;
    case 'message.end':
      return;
    case 'error':
      if (event.fatal) {
        requireText(event.message, event, 'message', FORMAT);
        return;
      }
      break;
    default:
      break;
  }
  // Written in a CUSTOM event (custom): its values whole, kept for custom to write; a call's
  // output of its call and text alone (most of them) holds nothing to refuse (no value kept).
  if (waits) {
    // A request that waits is held once its run starts, as one said in a run (below): its
    // interrupt refused now, not at that run's end.
    if (event.type === 'approval.request' || event.type === 'question') interrupt(event);
    return;
  }
  w[CHECKED_ARGS] =
    event.type === 'tool.output' && carriesCallText(event) ? undefined : carriedWritable(event);
  w[CHECKED] = event;
  // A request is held once written (`laneContent`), an interrupt of the run's end: its metadata
  // (a time JSON cannot hold among it) refused now, not there, with the run's end.
  if ((event.type === 'approval.request' || event.type === 'question') && w[PENDING].length < MAX_WAITING)
    interrupt(event);
}

/** The thread and run ids of the run a run's start or end opens (`startRun`): strings. */
function assertRunIds(event: AgentEvent): void {
  assertText(event.session, event, 'session', FORMAT);
  assertText(event.run, event, 'run', FORMAT);
}

/**
 * Refuses a usage the writer reads figures off (`usageOf`) that is no object (null, from an event
 * built by hand), or whose `byModel`, or an entry of it, is none: a `TypeError` there, where a
 * figure of no count is only a usage AG-UI has no array for (a loss).
 */
function assertUsageObject(usage: unknown, field: string): void {
  if (usage === undefined) return;
  assertObject(usage, field);
  const byModel = (usage as Usage).byModel as unknown;
  if (byModel === undefined) return;
  assertObject(byModel, `${field}.byModel`);
  for (const m of Object.keys(byModel as object))
    assertObject((byModel as Record<string, unknown>)[m], `${field}.byModel.${m}`);
}

/** Refuses a value the writer reads parts of that is no object (`null` among them). */
function assertObject(value: unknown, field: string): void {
  if (typeof value !== 'object' || value === null) throw wrongType(value, field, 'an object', FORMAT);
}

/** A CUSTOM event's value, checked as {@link custom} writes it. */
function carriedWritable(event: AgentEvent): JsonObject {
  const value = carriedValue(event);
  for (const k of Object.keys(value)) assertEncodable(value[k], `${event.type}.${k}`, undefined, FORMAT);
  return value;
}

/** A round JSON cannot hold, refused where the event's write opens a step for it (openStep). */
function assertRound(w: Writer, event: AgentEvent): void {
  const round = event.round;
  if (round === undefined || Number.isFinite(round) || !opensStep(w, event)) return;
  stepNameOf(round);
}

/** True when writing `event` opens a step named by its round (a round it says, not the open one's). */
function opensStep(w: Writer, event: AgentEvent): boolean {
  const lane = event.lane;
  switch (event.type) {
    case 'round.start':
      return true;
    case 'round.end':
      return lane === undefined || !w[STEP].has(lane);
    case 'text.delta':
      return lane === undefined && !(event.text === '' && !w[TEXT].has(''));
    case 'message.start':
    case 'reasoning.delta':
    case 'tool.args.delta':
    case 'tool.start':
      return lane === undefined;
    default:
      return false;
  }
}

function content(w: Writer, event: AgentEvent): string {
  const lane = event.lane;
  if (lane !== undefined && !w[SUBAGENTS].has(lane) && event.type !== 'child.start')
    return onNewLane(w, event, lane);
  return laneContent(w, event, '');
}

/**
 * An event on a lane not open yet: its `SUBAGENT_STARTED` (implied), then the event. The lane is
 * marked open before the event is written (a child's implied parent reads it), and the event's
 * values are checked where each of its paths writes them: refused, the lane is taken back, or a
 * later event on it would lack its start and the run's end would close a child never written.
 * The text is the caller's only once the event is written, so nothing written stays.
 */
function onNewLane(w: Writer, event: AgentEvent, lane: string): string {
  const opened = openSubagent(w, { type: 'child.start', child: lane }, undefined, true);
  try {
    return laneContent(w, event, opened);
  } catch (error) {
    w[SUBAGENTS].delete(lane);
    throw error;
  }
}

/** The event's records after `out` (what was written for it already: its lane's start). */
function laneContent(w: Writer, event: AgentEvent, out: string): string {
  const lane = event.lane;
  switch (event.type) {
    case 'round.start':
      out += closeLane(w, lane) + closeStep(w, lane);
      return out + openStep(w, event);
    case 'round.end': {
      out += closeLane(w, lane);
      if (!w[STEP].has(lane ?? '')) out += openStep(w, event);
      else if (lane === undefined && event.round !== undefined && event.round !== w[MAIN_ROUND])
        out += newStep(w, event);
      if (AGUI_WRITER_SHORTCUTS.enabled) {
        const spelled = w[CHECKED] === event ? w[CHECKED_CONTENT] : roundMetaJson(event);
        if (spelled !== undefined) return out + closeStep(w, lane, event, spelled);
      }
      const usage = usageOf(event.usage);
      const meta = roundEndMeta(event, usage);
      if (usage === undefined && event.usage !== undefined && !isZeroUsage(event.usage))
        reportLoss(w[LOSS], event, 'round.end.usage', 'not whole token counts');
      return out + closeStep(w, lane, event, meta, roundMetaPlain(meta, usage));
    }
    case 'message.start':
      // A new message ends what the lane was saying, its reasoning too.
      out += ensureStep(w, event) + closeLane(w, lane);
      return out + openText(w, event, event.message);
    case 'message.end':
      return out + closeText(w, lane, event.message);
    case 'text.delta': {
      if (event.text === '' && !w[TEXT].has(lane ?? '')) return out;
      out += ensureStep(w, event) + closeReasoning(w, lane);
      const open = w[TEXT].get(lane ?? '');
      if (open !== undefined && event.message !== undefined && open !== event.message)
        out += closeText(w, lane);
      if (!w[TEXT].has(lane ?? '')) out += openText(w, event, event.message);
      if (event.text === '') return out;
      if (lane === undefined) addRunText(w, `${event.text}`);
      return out + textContent(w, event, w[TEXT].get(lane ?? '')!);
    }
    case 'reasoning.delta':
      return out + ensureStep(w, event) + reasoningDelta(w, event);
    case 'tool.args.delta':
      out += ensureStep(w, event) + closeLane(w, lane);
      if (!w[CALLS].has(event.call)) out += startCall(w, event, event.call, event.name);
      if (event.text === '') return out;
      if (w[KEPT_ARGS].size !== 0) addKeptArgs(w, event.call, event.text);
      return out + emit(w, event, 'TOOL_CALL_ARGS', { toolCallId: event.call, delta: event.text });
    case 'tool.start': {
      // The arguments are written whole unless their deltas were: checked before a step is
      // opened or the call marked open for it, which a refusal after would leave behind.
      const args = w[CALLS].has(event.call)
        ? undefined
        : w[CHECKED] === event
          ? w[CHECKED_ARGS]
          : callArgs(event);
      return out + ensureStep(w, event) + closeLane(w, lane) + toolStart(w, event, args);
    }
    case 'tool.end':
      return out + toolEnd(w, event);
    case 'approval.request':
    case 'question': {
      // Said where it happens, and held: still open when the run ends, it is an interrupt. Held
      // only once written: refused, it must not come back as an interrupt at the run's end.
      const said = custom(w, event);
      if (w[PENDING].length < MAX_WAITING) w[PENDING].push(event);
      return out + said;
    }
    case 'approval.resolve':
    case 'question.answer':
      return out + decided(w, event);
    case 'child.start':
      return out + openSubagent(w, event, lane);
    case 'child.end':
      return out + closeSubagent(w, event);
    case 'error':
      if (event.fatal) {
        w[FATAL] = event.message;
        return out;
      }
      return out + custom(w, event);
    case 'unknown':
      // Written whole, as a carried event's value is: refused, not turned into other JSON (an
      // Infinity into null), when JSON cannot hold it.
      assertEncodable(event.record, 'unknown.record', undefined, FORMAT);
      return (
        out + emit(w, event, 'RAW', { event: event.record, source: event.provenance?.format ?? 'agentwire' })
      );
    default:
      return out + custom(w, event);
  }
}

function custom(w: Writer, event: AgentEvent): string {
  // The stream states thread, run and step; a workspace or sequence number it cannot.
  for (const k of ['workspace', 'seq'] as const)
    if (event[k] !== undefined)
      reportLoss(w[LOSS], event, `${event.type}.${k}`, `AG-UI has no place for ${k}`);
  // The value the up-front check made (undefined: a call's output of its call and text alone).
  let value: JsonObject | undefined;
  if (w[CHECKED] === event) value = w[CHECKED_ARGS] as JsonObject | undefined;
  else if (event.type !== 'tool.output' || !carriesCallText(event)) value = carriedWritable(event);
  if (value === undefined) {
    if (AGUI_WRITER_SHORTCUTS.enabled) {
      // Most of what a stream carries: its value spelled, not built (strings need no check).
      const head = `,"name":"${CARRY_PREFIX}tool.output","value":{"call":${jsonString((event as AgentEventOf<'tool.output'>).call)},"text":${jsonString((event as AgentEventOf<'tool.output'>).text)}}`;
      return emitHead(w, event, 'CUSTOM', head);
    }
    value = carriedValue(event);
  }
  return emit(w, event, 'CUSTOM', { name: `${CARRY_PREFIX}${event.type}`, value });
}

/**
 * `TEXT_MESSAGE_CONTENT`, most of a stream, spelled out: the same bytes as {@link emit} gives,
 * without an object per record.
 */
function textContent(w: Writer, event: AgentEventOf<'text.delta'>, id: string): string {
  const head = `,"messageId":${jsonString(id)},"delta":${jsonString(event.text)}`;
  return emitHead(w, event, 'TEXT_MESSAGE_CONTENT', head);
}

/**
 * Writes one record: `type`, its own fields, then `subagentRunId`, `timestamp`, `metadata`.
 * `laneless`: no `subagentRunId` from the event's lane (a run's records; a subagent's, which
 * name their own run).
 */
function emit(
  w: Writer,
  event: AgentEvent | undefined,
  type: string,
  fields: JsonObject,
  meta?: JsonObject,
  laneless = false,
): string {
  if (!AGUI_WRITER_SHORTCUTS.enabled) return emitRecord(w, event, type, fields, meta, laneless);
  // The record's text in pieces, without copying `fields` behind a `type` key: `JSON.stringify`
  // drops undefined fields as the record would not have them, and slicing its braces off
  // copies nothing. `type` is always one of this module's SCREAMING_SNAKE literals (nothing to
  // escape). Held to emitRecord by test/ui/writer-shortcuts.test.ts.
  // (`encodeJson`: what JSON.stringify throws a TypeError for, a BigInt of an event built by
  // hand, is refused as the writer refuses, an AgentwireError.)
  const body = encodeJson(fields, type, FORMAT);
  // (What follows the fields is emitHead's: the records that name a lane in their fields, a
  // subagent's, are laneless.)
  const head = body.length > 2 ? `,${body.slice(1, -1)}` : '';
  return emitHead(w, event, type, head, meta, laneless ? 'laneless' : undefined);
}

/**
 * {@link emit} for a record whose own fields the caller spelled: `head` is the fields after
 * `type` (`,"stepName":"round 1"`: `{"type":"…"` is written here from `type`), each string value
 * written by `jsonString` (callers check that each is a string).
 * The same bytes without a fields object and its `JSON.stringify`; only behind
 * {@link AGUI_WRITER_SHORTCUTS}, held to emit by test/ui/writer-shortcuts.test.ts. `meta` as a
 * string: the metadata spelled by the caller (the text inside `metadata.agentwire`'s braces, `''`
 * for none). `mode`: `plain`, the caller checked that `meta` needs no encodability walk;
 * `laneless`, as {@link emit}'s (which writes its records here once its fields are encoded).
 */
function emitHead(
  w: Writer,
  event: AgentEvent | undefined,
  type: string,
  head: string,
  meta?: JsonObject | string,
  mode?: 'plain' | 'laneless',
): string {
  let json = `{"type":"${type}"${head}`;
  if (event !== undefined) {
    if (mode !== 'laneless' && event.lane !== undefined) json += `,"subagentRunId":${jsonString(event.lane)}`;
    const ts = timestampOf(event.ts);
    if (ts !== undefined) json += `,"timestamp":${ts}`;
  }
  // A string is the metadata spelled by the caller: the text inside its braces, `''` for none.
  if (typeof meta === 'string') {
    if (meta !== '') json += `,"metadata":{${META_KEY_JSON}:{${meta}}}`;
  } else if (meta !== undefined && hasValues(meta)) {
    if (mode !== 'plain') assertEncodable(meta, `${type}.metadata`, undefined, FORMAT);
    json += `,"metadata":{${META_KEY_JSON}:${JSON.stringify(meta)}}`;
  }
  return frameJson(framingOf(w), `${json}}`);
}

/**
 * True when `o` has an enumerable key whose value is not `undefined`: a metadata object says
 * something (its literal names every key it may have; `JSON.stringify` leaves the undefined
 * ones out). No array of its keys is made.
 */
function hasValues(o: JsonObject): boolean {
  for (const k in o) if (o[k] !== undefined) return true;
  return false;
}

/** {@link emit}'s general path: the record built as an object, then `JSON.stringify`. */
function emitRecord(
  w: Writer,
  event: AgentEvent | undefined,
  type: string,
  fields: JsonObject,
  meta: JsonObject | undefined,
  laneless: boolean,
): string {
  const r: JsonObject = { type };
  for (const k of Object.keys(fields)) if (fields[k] !== undefined) r[k] = fields[k];
  if (!laneless && event?.lane !== undefined && !('subagentRunId' in r)) r.subagentRunId = event.lane;
  const ts = timestampOf(event?.ts);
  if (ts !== undefined) r.timestamp = ts;
  if (meta !== undefined && hasValues(meta)) {
    assertEncodable(meta, `${type}.metadata`, undefined, FORMAT);
    r.metadata = { [AGUI_META_KEY]: meta };
  }
  return frameJson(framingOf(w), encodeJson(r, type, FORMAT));
}

function addRunText(w: Writer, text: string): void {
  const length = w[RUN_TEXT_LENGTH] + text.length;
  w[RUN_TEXT_LENGTH] = length;
  if (length <= AGUI_MAX_HELD_TEXT) {
    w[MESSAGE_TEXT].push(text);
    return;
  }
  // Past the cap an answer can no longer be proved to be the run's text: it is written.
  if (w[RUN_TEXT].length !== 0) w[RUN_TEXT] = [];
  if (w[MESSAGE_TEXT].length !== 0) w[MESSAGE_TEXT] = [];
}

/** The main agent's message ended: its pieces become one entry of the run's text. */
function settleMessageText(w: Writer): void {
  if (w[MESSAGE_TEXT].length === 0) return;
  const joined = w[MESSAGE_TEXT].join('');
  // The first entry is a new array of it: a push onto an empty `[]` changes its elements kind,
  // and the optimised push met an array of the kind before once after a full GC, deoptimized
  // (docs/performance.md, "Round thirty-four").
  if (w[RUN_TEXT].length === 0) w[RUN_TEXT] = [joined];
  else w[RUN_TEXT].push(joined);
  w[MESSAGE_TEXT] = [];
}

/** True when `answer` is the run's text (joined only when the lengths agree). */
function isRunText(w: Writer, answer: unknown): boolean {
  return (
    typeof answer === 'string' &&
    answer.length === w[RUN_TEXT_LENGTH] &&
    w[RUN_TEXT_LENGTH] <= AGUI_MAX_HELD_TEXT &&
    answer === w[RUN_TEXT].join('') + w[MESSAGE_TEXT].join('')
  );
}

function framingOf(w: Writer): JsonFraming {
  w[FRAMING] ??= 'sse';
  return w[FRAMING];
}

function newId(w: Writer): string {
  return w[ID_SOURCE] !== undefined ? w[ID_SOURCE]() : `aw-${++w[COUNTER]}`;
}

// ---- runs ----

function startRun(w: Writer, event: AgentEvent): string {
  w[RUN_OPEN] = true;
  w[RUNS]++;
  w[RUN_TEXT] = [];
  w[MESSAGE_TEXT] = [];
  w[RUN_TEXT_LENGTH] = 0;
  w[STEPS] = 0;
  w[READ_ROUND] = 0;
  w[READ_STEP] = false;
  w[FATAL] = undefined;
  w[THREAD] = event.session ?? w[THREAD] ?? newId(w);
  w[RUN] = event.run !== undefined && event.run !== w[RUN] ? event.run : newId(w);
  const fields: JsonObject = { threadId: w[THREAD], runId: w[RUN] };
  const text = event.type === 'run.start' ? event.input : undefined;
  if (text !== undefined || w[RESUME].length > 0) {
    fields.input = {
      threadId: w[THREAD],
      runId: w[RUN],
      messages: text === undefined ? [] : [{ id: newId(w), role: 'user', content: text }],
      resume: w[RESUME].length > 0 ? w[RESUME] : undefined,
    };
    w[RESUME] = [];
  }
  let out = emit(w, event, 'RUN_STARTED', fields, undefined, true);
  const waiting = w[WAITING];
  w[WAITING] = [];
  for (const e of waiting) out += content(w, e);
  return out;
}

function closeAll(w: Writer): string {
  let out = '';
  for (const lane of [...w[TEXT].keys()]) out += closeText(w, lane === '' ? undefined : lane);
  for (const lane of [...w[REASONING].keys()]) out += closeReasoning(w, lane === '' ? undefined : lane);
  for (const [call] of w[CALLS]) out += emit(w, undefined, 'TOOL_CALL_END', { toolCallId: call });
  w[CALLS].clear();
  // A step the run's end closes is no round that ended: it says so, and reads back as none.
  for (const lane of [...w[STEP].keys()].reverse())
    out += closeStep(w, lane === '' ? undefined : lane, undefined, { closing: true });
  for (const child of [...w[SUBAGENTS]].reverse()) {
    // Closed by the run's end, not a child that ended: it says so, and reads back as none.
    out += emit(
      w,
      undefined,
      'SUBAGENT_FINISHED',
      { subagentRunId: child, outcome: { type: 'success' } },
      { closing: true },
    );
  }
  w[SUBAGENTS].clear();
  return out;
}

function finishRun(w: Writer, event: AgentEventOf<'run.end'> | undefined): string {
  let out = closeAll(w);
  w[RUN_OPEN] = false;
  if (event?.status === 'failed' || (event === undefined && w[FATAL] !== undefined)) {
    return out + runError(w, event);
  }
  const fields: JsonObject = { threadId: w[THREAD]!, runId: w[RUN]! };
  // The answer is the run's text: written only when it says something the text does not.
  if (event?.answer !== undefined && event.answer !== '' && !isRunText(w, event.answer))
    fields.result = event.answer;
  // A cancelled run asks for nothing (its requests were said where they happened).
  if (event?.status === 'cancelled') fields.outcome = { type: 'cancelled' };
  else if (w[PENDING].length > 0) {
    fields.outcome = { type: 'interrupt', interrupts: w[PENDING].map((p) => interrupt(p)) };
    // AG-UI: an interrupted run is never a success (it reads back incomplete, waiting).
    if (event?.status === 'completed')
      reportLoss(
        w[LOSS],
        event,
        'run.end.status',
        'a request still open when a run ends is an interrupt, and an interrupted run is not completed',
      );
  }
  w[PENDING] = [];
  fields.usage = usageOf(event?.usage);
  // A run that did not end (a new one begins, or its end says so) finishes, as AG-UI requires,
  // and says it was not complete: it reads back as incomplete, never as a success.
  const incomplete = fields.outcome === undefined && (event === undefined || event.status === 'incomplete');
  const meta = runMeta(event, true, incomplete ? 'incomplete' : undefined);
  out += emit(w, event, 'RUN_FINISHED', fields, meta, true);
  return out;
}

function runError(w: Writer, event: AgentEventOf<'run.end'> | undefined): string {
  w[RUN_OPEN] = false;
  // (A field undefined is left out of the record, as JSON.stringify and emitRecord leave it.)
  const fields: JsonObject = {
    message: event?.error ?? w[FATAL] ?? event?.reason ?? 'the run failed',
    code: event?.reason,
    usage: usageOf(event?.usage),
  };
  w[FATAL] = undefined;
  w[PENDING] = [];
  // (The reason is the record's `code`.)
  return emit(w, event, 'RUN_ERROR', fields, runMeta(event, false, undefined), true);
}

// ---- approvals and questions: interrupts, and the resume entries that answer them ----

function interrupt(p: AgentEventOf<'approval.request'> | AgentEventOf<'question'>): JsonObject {
  // (A field undefined is left out of the record, as JSON.stringify leaves it.)
  let meta: JsonObject;
  if (p.type === 'approval.request')
    meta = { tool: p.tool, args: p.args, effects: p.effects, options: p.options, ts: p.ts };
  else {
    // (Left out by an event built by hand, or no array: refused, not a TypeError.)
    if (!Array.isArray(p.questions)) refuseKind(p, 'questions', 'an array', FORMAT);
    // (Each one's text read: an entry of no object, null, refused, not a TypeError.)
    const questions = p.questions as unknown[];
    for (let q = 0; q < questions.length; q++) assertObject(questions[q], `question.questions[${q}]`);
    meta = { questions: p.questions, ts: p.ts };
  }
  const i: JsonObject =
    p.type === 'approval.request'
      ? { subagentRunId: p.lane, id: p.approval, reason: AGUI_APPROVAL_REASON, message: p.title }
      : {
          subagentRunId: p.lane,
          id: p.question,
          reason: AGUI_QUESTION_REASON,
          message: p.questions.map((q) => q.text).join('\n'),
        };
  i.toolCallId = p.call;
  if (hasValues(meta)) {
    assertEncodable(meta, 'interrupt.metadata', undefined, FORMAT);
    i.metadata = { [AGUI_META_KEY]: meta };
  }
  return i;
}

function resumeEntry(event: AgentEventOf<'approval.resolve'> | AgentEventOf<'question.answer'>): JsonObject {
  if (event.type === 'question.answer') {
    return { interruptId: event.question, status: 'resolved', payload: { answers: event.answers } };
  }
  return {
    interruptId: event.approval,
    status: event.decision === 'cancel' ? 'cancelled' : 'resolved',
    payload: { approved: decisionAllows(event.decision), decision: event.decision, option: event.option },
  };
}

/** A decision within the run: the request it answers is no longer pending. */
function decided(
  w: Writer,
  event: AgentEventOf<'approval.resolve'> | AgentEventOf<'question.answer'>,
): string {
  // Written first: refused, the request it answers stays pending.
  const said = custom(w, event);
  const id = event.type === 'approval.resolve' ? event.approval : event.question;
  w[PENDING] = w[PENDING].filter((p) => (p.type === 'approval.request' ? p.approval : p.question) !== id);
  return said;
}

// ---- steps, messages, reasoning ----

function openStep(w: Writer, event: AgentEvent): string {
  w[STEPS]++;
  const round = event.round ?? w[STEPS];
  const name = stepNameOf(round);
  w[STEP].set(event.lane ?? '', name);
  // roundOfStepName(name) without its pattern: the number itself where the name reads as it.
  w[READ_ROUND] = Number.isSafeInteger(round) && round >= 0 && round < 1e15 ? round : w[READ_ROUND] + 1;
  w[READ_STEP] = true;
  if (event.lane === undefined) w[MAIN_ROUND] = round;
  if (AGUI_WRITER_SHORTCUTS.enabled)
    return emitHead(w, event, 'STEP_STARTED', `,"stepName":${jsonString(name)}`);
  return emit(w, event, 'STEP_STARTED', { stepName: name });
}

/**
 * The main agent's step for `event`: opened when none is (but for an event read from AG-UI
 * outside any step), and a new one when the event's round
 * is not the open step's (the old one closed as the run's end closes one, reading back as no
 * round that ended): an event reads back in the round it says.
 */
function ensureStep(w: Writer, event: AgentEvent): string {
  if (event.lane !== undefined) return '';
  // An event read from AG-UI with no round was read outside any step: so written.
  if (!w[STEP].has(''))
    return event.round === undefined && event.provenance?.format === FORMAT ? '' : openStep(w, event);
  return event.round === undefined || event.round === w[MAIN_ROUND] ? '' : newStep(w, event);
}

/** The main agent's open step closed as no round that ended, and one opened for `event`. */
function newStep(w: Writer, event: AgentEvent): string {
  return closeStep(w, undefined, undefined, { closing: true }) + openStep(w, event);
}

/** `STEP_FINISHED`; `plain` when `meta` needs no encodability walk ({@link roundMetaPlain}). */
function closeStep(
  w: Writer,
  lane: string | undefined,
  event?: AgentEvent,
  meta?: JsonObject | string,
  plain = false,
): string {
  const name = w[STEP].get(lane ?? '');
  if (name === undefined) return '';
  w[STEP].delete(lane ?? '');
  w[READ_STEP] = false;
  if (lane === undefined) w[MAIN_ROUND] = undefined;
  const at = event ?? (lane === undefined ? undefined : ({ lane } as AgentEvent));
  if (AGUI_WRITER_SHORTCUTS.enabled) {
    const head = `,"stepName":${jsonString(name)}`;
    return emitHead(w, at, 'STEP_FINISHED', head, meta, plain ? 'plain' : undefined);
  }
  return emit(w, at, 'STEP_FINISHED', { stepName: name }, meta as JsonObject | undefined);
}

/**
 * A round end's metadata (`stopReason`, `usage`, `costUsd`, `model`, as the general path builds
 * it) spelled as the text inside `metadata.agentwire`'s braces, when every value is a string,
 * a finite number or absent and the usage is one plain entry ({@link usageEntryJson}); `''` when
 * there is none. `undefined` for anything else: the general path builds the object, walks it
 * and reports what does not fit. Spelled, a round end makes no object whose hidden class dies
 * at a full GC (with the code that built it), and no walk. Held to the general path by
 * test/ui/writer-shortcuts.test.ts.
 */
function roundMetaJson(event: AgentEventOf<'round.end'>): string | undefined {
  const stop = event.stopReason;
  const model = event.model;
  if ((stop !== undefined && typeof stop !== 'string') || (model !== undefined && typeof model !== 'string'))
    return undefined;
  let json = stop === undefined ? '' : `,"stopReason":${jsonString(stop)}`;
  const usage = event.usage;
  if (usage !== undefined && !isZeroUsage(usage)) {
    const entry = usageEntryJson(usage);
    const cost = usage.costUsd;
    if (entry === undefined || (cost !== undefined && !Number.isFinite(cost))) return undefined;
    json += `,"usage":${entry}`;
    if (cost !== undefined) json += `,"costUsd":${cost}`;
  }
  if (model !== undefined) json += `,"model":${jsonString(model)}`;
  return json === '' ? '' : json.slice(1);
}

/** A round end's `STEP_FINISHED` metadata, `usage` its {@link usageOf}: the general path's object. */
function roundEndMeta(event: AgentEventOf<'round.end'>, usage: JsonObject[] | undefined): JsonObject {
  return {
    stopReason: event.stopReason,
    usage,
    costUsd: usage === undefined ? undefined : event.usage?.costUsd,
    model: event.model,
  };
}

/**
 * True when a round end's metadata (`stopReason`, `usage`, `costUsd`, `model`) can skip
 * `assertEncodable`'s walk: its values are plain primitives, and each entry of `usage` (fresh
 * objects from `usageToWire`, none in it twice, so no cycle and no shared object) is flat of
 * plain primitives; the walk passes exactly such a value (two levels, far within any depth
 * bound). Anything else takes the walk, which words the refusal. The walk is the costliest
 * part of a round end's record. Held to it by test/ui/writer-shortcuts.test.ts.
 */
function roundMetaPlain(meta: JsonObject, usage: JsonObject[] | undefined): boolean {
  if (!isPlainPrimitive(meta.stopReason) || !isPlainPrimitive(meta.costUsd) || !isPlainPrimitive(meta.model))
    return false;
  if (usage !== undefined) for (const entry of usage) if (!isFlatOfPrimitives(entry)) return false;
  return true;
}

function openText(w: Writer, event: AgentEvent, id: string | undefined): string {
  const messageId = id ?? newId(w);
  w[TEXT].set(event.lane ?? '', messageId);
  if (AGUI_WRITER_SHORTCUTS.enabled && typeof messageId === 'string') {
    const head = `,"messageId":${jsonString(messageId)},"role":"assistant"`;
    return emitHead(w, event, 'TEXT_MESSAGE_START', head);
  }
  return emit(w, event, 'TEXT_MESSAGE_START', { messageId, role: 'assistant' });
}

function closeText(w: Writer, lane: string | undefined, id?: string): string {
  const open = w[TEXT].get(lane ?? '');
  if (open === undefined || (id !== undefined && id !== open)) return '';
  w[TEXT].delete(lane ?? '');
  if (lane === undefined) settleMessageText(w);
  const at = lane === undefined ? undefined : ({ lane } as AgentEvent);
  if (AGUI_WRITER_SHORTCUTS.enabled && typeof open === 'string')
    return emitHead(w, at, 'TEXT_MESSAGE_END', `,"messageId":${jsonString(open)}`);
  return emit(w, at, 'TEXT_MESSAGE_END', { messageId: open });
}

function reasoningDelta(w: Writer, event: AgentEventOf<'reasoning.delta'>): string {
  const lane = event.lane;
  let out = closeText(w, lane);
  const open = w[REASONING].get(lane ?? '');
  if (open !== undefined && event.message !== undefined && open !== event.message)
    out += closeReasoning(w, lane);
  if (event.text !== '') {
    if (!w[REASONING].has(lane ?? '')) {
      const id = event.message ?? newId(w);
      w[REASONING].set(lane ?? '', id);
      out += emit(w, event, 'REASONING_START', { messageId: id });
      out += emit(w, event, 'REASONING_MESSAGE_START', { messageId: id, role: 'reasoning' });
    }
    out += emit(w, event, 'REASONING_MESSAGE_CONTENT', {
      messageId: w[REASONING].get(lane ?? '')!,
      delta: event.text,
    });
  }
  const opaque = event.redacted ?? event.signature;
  if (opaque !== undefined) {
    if (event.redacted !== undefined && event.signature !== undefined)
      reportLoss(w[LOSS], event, 'reasoning.delta.signature', 'one encrypted value per reasoning block');
    // A signature is not redacted content: it says which it is, so it reads back as itself.
    out += emit(
      w,
      event,
      'REASONING_ENCRYPTED_VALUE',
      {
        subtype: 'message',
        entityId: w[REASONING].get(lane ?? '') ?? event.message ?? newId(w),
        encryptedValue: opaque,
      },
      event.redacted === undefined ? { signature: true } : undefined,
    );
  }
  return out;
}

function closeReasoning(w: Writer, lane: string | undefined): string {
  const open = w[REASONING].get(lane ?? '');
  if (open === undefined) return '';
  w[REASONING].delete(lane ?? '');
  const at = lane === undefined ? undefined : ({ lane } as AgentEvent);
  return (
    emit(w, at, 'REASONING_MESSAGE_END', { messageId: open }) +
    emit(w, at, 'REASONING_END', { messageId: open })
  );
}

function closeLane(w: Writer, lane: string | undefined): string {
  return closeText(w, lane) + closeReasoning(w, lane);
}

// ---- tool calls ----

function startCall(w: Writer, event: AgentEvent, call: string, name: string | undefined): string {
  const toolName = name ?? 'unknown';
  w[CALLS].set(call, toolName);
  // A start read anew: the decoder reads the call's arguments from here.
  if (w[KEPT_ARGS].size !== 0 && w[KEPT_ARGS].has(call)) w[KEPT_ARGS].set(call, '');
  if (AGUI_WRITER_SHORTCUTS.enabled && typeof call === 'string' && typeof toolName === 'string') {
    const head = `,"toolCallId":${jsonString(call)},"toolCallName":${jsonString(toolName)}`;
    return emitHead(w, event, 'TOOL_CALL_START', head);
  }
  const fields: JsonObject = { toolCallId: call, toolCallName: toolName };
  return emit(w, event, 'TOOL_CALL_START', fields);
}

/** A call start's arguments as its `TOOL_CALL_ARGS` writes them, checked. */
function callArgs(event: AgentEventOf<'tool.start'>): unknown {
  const args = event.args ?? (event.command !== undefined ? { command: event.command } : {});
  assertEncodable(args, 'tool.start.args', undefined, FORMAT);
  return args;
}

/** A call's start; `args` checked ({@link callArgs}), undefined when its deltas opened the call. */
function toolStart(w: Writer, event: AgentEventOf<'tool.start'>, args: unknown): string {
  let out = '';
  const call = event.call;
  const head = AGUI_WRITER_SHORTCUTS.enabled && typeof call === 'string';
  if (args !== undefined) {
    out += startCall(w, event, call, event.name);
    const delta = JSON.stringify(args);
    out += head
      ? emitHead(w, event, 'TOOL_CALL_ARGS', `,"toolCallId":${jsonString(call)},"delta":${jsonString(delta)}`)
      : emit(w, event, 'TOOL_CALL_ARGS', { toolCallId: call, delta });
  }
  w[CALLS].delete(call);
  w[ENDED].add(call);
  if (w[KEPT_ARGS].size !== 0) w[KEPT_ARGS].delete(call);
  if (head) {
    const spelled = w[CHECKED] === event ? w[CHECKED_CONTENT] : callMetaJson(event);
    if (spelled !== undefined)
      return out + emitHead(w, event, 'TOOL_CALL_END', `,"toolCallId":${jsonString(call)}`, spelled);
  }
  const meta = callStartMeta(event);
  if (head) return out + emitHead(w, event, 'TOOL_CALL_END', `,"toolCallId":${jsonString(call)}`, meta);
  return out + emit(w, event, 'TOOL_CALL_END', { toolCallId: call }, meta);
}

/** A call start's `TOOL_CALL_END` metadata, built as an object. */
function callStartMeta(event: AgentEventOf<'tool.start'>): JsonObject {
  // The metadata's fields named one by one (not a loop over their names: a keyed read of each),
  // in one literal (a field undefined is left out of the record).
  return {
    kind: event.kind,
    server: event.server,
    argsSummary: event.argsSummary,
    command: event.command,
    startedAt: event.startedAt,
  };
}

/**
 * A call start's metadata (`kind`, `server`, `argsSummary`, `command`, `startedAt`, as
 * {@link toolStart} builds it) spelled as the text inside `metadata.agentwire`'s braces when each
 * is a string (`startedAt` a finite number) or absent; `''` for none, `undefined` for anything
 * else (the object path). No object per call, so none whose hidden class dies at a full GC.
 * Held to the object path by test/ui/writer-shortcuts.test.ts.
 */
function callMetaJson(event: AgentEventOf<'tool.start'>): string | undefined {
  const { kind, server, argsSummary, command, startedAt } = event;
  if (
    (kind !== undefined && typeof kind !== 'string') ||
    (server !== undefined && typeof server !== 'string') ||
    (argsSummary !== undefined && typeof argsSummary !== 'string') ||
    (command !== undefined && typeof command !== 'string') ||
    (startedAt !== undefined && !Number.isFinite(startedAt))
  )
    return undefined;
  let json = '';
  if (kind !== undefined) json += `,"kind":${jsonString(kind)}`;
  if (server !== undefined) json += `,"server":${jsonString(server)}`;
  if (argsSummary !== undefined) json += `,"argsSummary":${jsonString(argsSummary)}`;
  if (command !== undefined) json += `,"command":${jsonString(command)}`;
  if (startedAt !== undefined) json += `,"startedAt":${startedAt}`;
  return json === '' ? '' : json.slice(1);
}

/**
 * True for most call ends: their text, at most a failure said, no other metadata. Their
 * `TOOL_CALL_RESULT` is spelled with no metadata object built (an object per call whose hidden
 * class dies at each full GC deoptimizes the code that saw it: docs/performance.md, "Round
 * thirty-three").
 */
function isPlainEnd(event: AgentEventOf<'tool.end'>): boolean {
  return (
    AGUI_WRITER_SHORTCUTS.enabled &&
    event.error === undefined &&
    event.result === undefined &&
    event.exitCode === undefined &&
    event.denied === undefined &&
    event.filesChanged === undefined &&
    event.startedAt === undefined &&
    event.endedAt === undefined &&
    typeof event.text === 'string' &&
    typeof event.call === 'string'
  );
}

function toolEnd(w: Writer, event: AgentEventOf<'tool.end'>): string {
  const plain = isPlainEnd(event);
  // The metadata and content, checked before anything is written or changed for the call (its
  // TOOL_CALL_END, the call closed, an id taken): a refusal takes nothing else down.
  const checked = w[CHECKED] === event;
  const meta = plain ? undefined : checked ? w[CHECKED_META] : callEndMeta(event);
  const content = checked ? (w[CHECKED_CONTENT] as string) : callEndContent(event);
  let out = '';
  if (!w[ENDED].has(event.call)) {
    if (!w[CALLS].has(event.call)) out += startCall(w, event, event.call, event.name);
    w[CALLS].delete(event.call);
    out += emit(w, event, 'TOOL_CALL_END', { toolCallId: event.call });
  }
  w[ENDED].delete(event.call);
  const messageId = newId(w);
  if (
    AGUI_WRITER_SHORTCUTS.enabled &&
    typeof messageId === 'string' &&
    typeof event.call === 'string' &&
    typeof content === 'string'
  ) {
    // Most results: the text and at most a failure said, the metadata spelled, no object.
    const head = `,"messageId":${jsonString(messageId)},"toolCallId":${jsonString(event.call)},"content":${jsonText(content)},"role":"tool"`;
    return (
      out + emitHead(w, event, 'TOOL_CALL_RESULT', head, meta ?? (event.ok ? '' : '"ok":false'), 'plain')
    );
  }
  const fields: JsonObject = { messageId, toolCallId: event.call, content, role: 'tool' };
  return out + emit(w, event, 'TOOL_CALL_RESULT', fields, meta ?? (event.ok ? undefined : { ok: false }));
}

/** A call end's `TOOL_CALL_RESULT` metadata, checked: what JSON cannot hold is refused here. */
function callEndMeta(event: AgentEventOf<'tool.end'>): JsonObject {
  // The metadata's fields named one by one (not a loop over their names: a keyed read of each),
  // in one literal (a field undefined is left out of the record).
  const meta: JsonObject = {
    ok: event.ok ? undefined : false,
    error: event.error,
    result: event.result,
    exitCode: event.exitCode,
    denied: event.denied,
    filesChanged: event.filesChanged,
    startedAt: event.startedAt,
    endedAt: event.endedAt,
  };
  if (hasValues(meta)) assertEncodable(meta, 'TOOL_CALL_RESULT.metadata', undefined, FORMAT);
  return meta;
}

/** A call end's `TOOL_CALL_RESULT` content: its text, a failure's text, or its result as JSON. */
function callEndContent(event: AgentEventOf<'tool.end'>): string {
  return (
    event.text ??
    (typeof event.error === 'string'
      ? event.error
      : event.result !== undefined
        ? encodeJson(event.result, 'tool.end.result', FORMAT)
        : '')
  );
}

// ---- subagents ----

/**
 * `SUBAGENT_STARTED`; `implied` when no `child.start` said it (a lane seen first, an end with no
 * start): marked so, it reads back as no child start.
 */
function openSubagent(
  w: Writer,
  event: AgentEventOf<'child.start'>,
  parent: string | undefined,
  implied = false,
): string {
  if (w[SUBAGENTS].has(event.child)) return '';
  w[SUBAGENTS].add(event.child);
  const fields: JsonObject = {
    subagentRunId: event.child,
    name: event.name ?? event.kind ?? 'subagent',
    description: event.task,
    parentSubagentRunId: parent !== undefined && w[SUBAGENTS].has(parent) ? parent : undefined,
    parentToolCallId: event.call,
  };
  const meta: JsonObject = { kind: event.kind, background: event.background, implied: implied || undefined };
  // (Its lane is its parent's: the record names its own run, as a run's records name none.)
  return emit(w, event, 'SUBAGENT_STARTED', fields, meta, true);
}

function closeSubagent(w: Writer, event: AgentEventOf<'child.end'>): string {
  let out = '';
  if (!w[SUBAGENTS].has(event.child))
    out += openSubagent(w, { type: 'child.start', child: event.child }, event.lane, true);
  out += closeLane(w, event.child) + closeStep(w, event.child);
  w[SUBAGENTS].delete(event.child);
  const meta: JsonObject = { usage: usageOf(event.usage) };
  if (event.status === 'failed') {
    return (
      out +
      emit(
        w,
        event,
        'SUBAGENT_ERROR',
        { subagentRunId: event.child, message: event.result ?? 'failed' },
        meta,
        true,
      )
    );
  }
  const fields: JsonObject = {
    subagentRunId: event.child,
    result: event.result,
    outcome: { type: event.status === 'incomplete' ? 'suspended' : 'success' },
  };
  if (event.status === 'cancelled')
    reportLoss(w[LOSS], event, 'child.end.status', 'a subagent is not cancelled in AG-UI');
  return out + emit(w, event, 'SUBAGENT_FINISHED', fields, meta, true);
}
