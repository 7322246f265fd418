import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import { decisionAllows, str } from '../../guards';
import { newUuidRun, nextUuid, type UuidRun } from '../../ids';
import { type IsoWriteClock, newIsoWriteClock, writeIsoAt } from '../../iso';
import {
  assertArgsWritable,
  assertEncodable,
  assertFiniteNumber,
  assertText,
  encodeJson,
  encodeJsonText,
  isJsonObject,
  type JsonObject,
  jsonString,
  jsonText,
  rawIfSame,
  refuseKind,
  requireObject,
  requireText,
  sameJson,
  setOwn,
  unencodable,
  wrongType,
} from '../../json';
import { isStableJson, sameAsKept } from '../../kept';
import { checkLoss, type LossState, newLoss, reportLoss } from '../../loss';
import type { AgentEvent, AgentEventOf, ModelUsage, Usage } from '../../model';
import { newRunSpan, type RunSpan, SPAN_WROTE, spanAfter, spanBefore } from '../../run-span';
import { addExact, assertByModelFigures, assertUsageNumbers } from '../../usage';
import {
  CHILDREN,
  HELD,
  HELD_LANES,
  IDS,
  INCOMPLETE_RUN,
  ISO,
  KEPT_MS,
  KEPT_TIME,
  KEYS,
  LAST_ID,
  LAST_MESSAGE,
  LAST_MESSAGE_QUOTED,
  LAST_MS,
  LAST_MS_QUOTED,
  LAST_QUOTED,
  LAST_TYPE,
  LOSS,
  NOW,
  OPEN_LANE,
  OPEN_MESSAGE,
  OPEN_REASONING,
  OPTIONS,
  PENDING,
  PREV_MS,
  PREV_MS_QUOTED,
  REASONING,
  REASONING_CUT,
  RENAMED,
  RUN_ERROR,
  RUN_OPEN,
  RUN_SUM,
  SESSION,
  SPAN,
  TEMPLATES,
  TEXTS,
  TURN,
  TURN_COUNT,
  USAGE_IN_TURN,
  WROTE_ANY,
} from './encode-slots';
import {
  COPILOT_DENIED_BY,
  COPILOT_EPHEMERAL_TYPES,
  COPILOT_MAX_HELD_MESSAGES,
  COPILOT_MAX_HELD_TEXT,
  COPILOT_PERMISSION_SLOTS,
  type CopilotEnvelope,
  type CopilotHints,
  type CopilotRecordType,
  copilotData,
  copilotDecision,
  copilotEnvelope,
  copilotSlot,
} from './wire';

/** Options of the Copilot writer. */
export interface CopilotEncodeOptions extends EncodeOptions {
  /**
   * Makes event, session and message ids when the events have none. Default: random UUIDs, one
   * `crypto.randomUUID()` per 256 ids (the run's ids counted in its last two hex digits).
   */
  idSource?: () => string;
  /**
   * `timestamp` for events without `ts`, ms since the epoch: read once per `write` (its records
   * share it) and per `end`. Default `Date.now`.
   */
  clock?: () => number;
  /** `sessionId` of a `session.start` written for events without `session`. Default: from `idSource`. */
  session?: string;
  /** `producer` of a written `session.start` without one. Default `"agentwire"`. */
  producer?: string;
  /** `copilotVersion` of a `session.start` written from the model (it has no slot). Default `"0.0.0"`. */
  copilotVersion?: string;
}

const FORMAT = 'copilot' as const;

const json = (value: unknown, field: string): string => encodeJson(value, field, FORMAT);
// A value written as JSON text inside a record (a tool's result): a number JSON cannot hold is
// refused, not written as `null`.
const jsonInText = (value: unknown, field: string): string => encodeJsonText(value, field, FORMAT);
// A count JSON cannot hold (not finite) is an AgentwireError naming the field.
function count(n: number | undefined, field: string): number | undefined {
  if (n !== undefined && !Number.isFinite(n)) assertEncodable(n, field, undefined, FORMAT);
  return n;
}

// Fields each event type carries into Copilot; anything else present is reported as a loss.
const ENV = ['session', 'ts', 'lane', 'round'];
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'session.start': [...ENV, 'producer', 'protocol', 'model', 'cwd'],
  'session.title': [...ENV, 'title'],
  'run.start': [...ENV, 'input'],
  'run.end': [...ENV, 'status', 'answer', 'usage', 'error'],
  'round.start': [...ENV, 'model'],
  'round.end': [...ENV, 'message', 'usage', 'model'],
  'message.start': [...ENV, 'role', 'message'],
  'message.end': [...ENV, 'message'],
  'text.delta': [...ENV, 'text', 'message'],
  'reasoning.delta': [...ENV, 'text', 'message'],
  'user.message': [...ENV, 'text'],
  status: [...ENV, 'status'],
  'tool.start': [...ENV, 'call', 'name', 'args', 'server'],
  'tool.output': [...ENV, 'call', 'text'],
  'tool.end': [...ENV, 'call', 'name', 'ok', 'text', 'result', 'error'],
  usage: [...ENV, 'usage'],
  'child.start': [...ENV, 'child', 'name', 'task', 'call'],
  'child.end': [...ENV, 'child', 'status', 'result'],
  'compaction.start': [...ENV, 'trigger'],
  'compaction.end': [...ENV, 'tokensFreed', 'trigger', 'tokensBefore', 'tokensAfter'],
  error: [...ENV, 'message', 'fatal', 'code'],
  cancel: [...ENV, 'by'],
  'approval.request': [...ENV, 'approval', 'call', 'tool', 'title', 'args', 'effects'],
  'approval.resolve': [...ENV, 'approval', 'decision', 'by'],
  question: [...ENV, 'question', 'questions', 'call'],
  'question.answer': [...ENV, 'question', 'answers'],
  unknown: [...ENV, 'record', 'recordType'],
};

function put(d: JsonObject, key: string, value: unknown): void {
  if (value === undefined) delete d[key];
  else d[key] = value;
}

/**
 * What a record rebuilt from a kept one gets for an event field that may be absent: the event's
 * `value`; else, where the kept value is one the decoder reads the field from (`read`), the field
 * was deleted from the event, and the record gets what one made anew gets (`anew`: undefined
 * leaves it out); else the kept value, which the event never had. Without a kept record, `anew`.
 */
function orKept(
  value: unknown,
  tpl: JsonObject | undefined,
  key: string,
  read: (kept: unknown) => boolean,
  anew: unknown,
): unknown {
  if (value !== undefined) return value;
  return tpl === undefined || read(tpl[key]) ? anew : tpl[key];
}

const isString = (v: unknown): boolean => typeof v === 'string';
const isNumber = (v: unknown): boolean => typeof v === 'number';

/**
 * The writer's state ({@link newWriter}): an array of slots (the indices in encode-slots.ts), not a literal.
 * An array's hidden class belongs to the realm and outlives every GC; a literal's, made before
 * the factory has an allocation site (it runs once per encoder), dies with the last writer at a
 * full GC and takes the per-event code that read it along (docs/performance.md, "Copilot writer,
 * round seven").
 */
type Writer = [
  options: CopilotEncodeOptions,
  loss: LossState,
  iso: IsoWriteClock,
  lastId: string | null,
  lastQuoted: string,
  // The last kept timestamp the kept-line fast path read, and its ms (a burst shares one).
  keptTime: string,
  keptMs: number,
  // The clock's or an event's ms of the last record written from the model, and it quoted.
  lastMs: number,
  lastMsQuoted: string,
  // The message id the last delta written from a template named, and it quoted (a message's
  // deltas come in a row).
  lastMessage: string | undefined,
  lastMessageQuoted: string,
  // Whether the frequent records built from the model are written from templates, and the
  // envelope's pieces known to need no escaping are quoted as they are (the property test turns
  // it off to hold both equal to `JSON.stringify`).
  templates: boolean,
  wroteAny: boolean,
  // The type of the last record written (by an event, not kept as unknown).
  lastType: string | undefined,
  // A foreign stream's first run start, held for one event: its session's start may follow it.
  // Or another format's non-fatal error, held for one event: the failed run's end may follow it.
  held: AgentEvent | undefined,
  turn: string | undefined,
  turnCount: number,
  usageInTurn: boolean,
  // The message of the last session.error written in the run (undefined: none yet).
  runError: string | undefined,
  openMessage: string | undefined,
  openReasoning: string | undefined,
  // Text and reasoning of messages not yet ended, by message id (entries leave at their end).
  texts: Map<string, string>,
  reasoning: string,
  // Per subagent running: its call, its name, and the name its start's kept record said (a name
  // edited or deleted there is followed by the kept records of its end).
  children: Map<string, { call: string; name: string | undefined; keptName: string | undefined }>,
  // Whether a reader of what is written so far has a run open (a user.message, a turn or a run
  // start opened one; a session.idle or a shutdown ended it): a record that would open one
  // outside a run is a run the source never had.
  runOpen: boolean,
  // The token figures of the main agent's assistant.usage written in the open run: what a reader
  // totals the run to (the run end writes what its total has beyond them).
  runSum: RunSum | undefined,
  // Keys of the figures written in the open run: a figure with a key written already is the same
  // figure (docs/model.md), never written twice.
  keys: Set<string>,
  // Partial snapshots (`final: false`) waiting for their key's final figure, by key.
  pending: Map<string, AgentEvent>,
  // The session another format's events named before anything was written (AG-UI's run start
  // names its thread): the session.start written at the first record names it.
  session: string | undefined,
  // The lane of the open message (undefined: the main agent's): a round's end that writes the
  // message writes it in its lane, with its agentId.
  openLane: string | undefined,
  // Another format's run that ended incomplete (Copilot has no record to say so: a reader ends a
  // run incomplete only where the stream ends inside it). A run after it would read as its
  // continuation or end it completed: its status is then a loss, reported at that run's start.
  incompleteRun: AgentEvent | undefined,
  // Another format's runs: whether the open one wrote a byte (one cut off having written
  // nothing reads back as no run at all).
  span: RunSpan,
  // Messages cut at COPILOT_MAX_HELD_TEXT: the id the rest of a message's text goes on under, by
  // the id its events name (empty but for a message past the cap).
  renamed: Map<string, string>,
  // The reasoning since the last message went past COPILOT_MAX_HELD_TEXT: not held any more.
  reasoningCut: boolean,
  // The default ids (no idSource): a run of random UUIDs (ids.ts `nextUuid`).
  ids: UuidRun,
  // The lane of each held message of a lane (by the id its text is held under, as `texts`): a
  // message written before its end (COPILOT_MAX_HELD_MESSAGES) is written in its lane.
  heldLanes: Map<string, string>,
  // The clock's time for the records of this write that have no `ts` (read once, up front: see
  // `write`), undefined until read.
  now: number | undefined,
  // The ms quoted before `lastMs`, and it quoted: a write can carry two times (an event's `ts`
  // and the clock's for a held record without one), each formatted once (`quotedAt`).
  prevMs: number,
  prevMsQuoted: string,
];

/** The token figures a Copilot reader sums a run's assistant.usage into. */
type RunSum = Partial<Record<RunFigure, number>>;
type RunFigure = 'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'reasoning';
const RUN_FIGURES: readonly RunFigure[] = ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'];

function newWriter(options: CopilotEncodeOptions, sink: DiagnosticSink, templates: boolean): Writer {
  return [
    options,
    newLoss(FORMAT, sink),
    newIsoWriteClock(),
    null,
    'null',
    '',
    Number.NaN,
    Number.NaN,
    '""',
    undefined,
    '""',
    templates,
    false,
    undefined,
    undefined,
    undefined,
    0,
    false,
    undefined,
    undefined,
    undefined,
    new Map(),
    '',
    new Map(),
    false,
    undefined,
    new Set(),
    new Map(),
    undefined,
    undefined,
    undefined,
    // Copilot says a cut-off run before another itself (afterIncomplete): only an empty one is
    // the span's to report.
    newRunSpan(false),
    new Map(),
    false,
    newUuidRun(),
    new Map(),
    undefined,
    Number.NaN,
    '""',
  ];
}

/**
 * The Copilot session event writer: canonical events → one envelope per line. Events decoded
 * from Copilot come back byte for byte (their line is kept); events built by hand or converted
 * get SDK-ordered envelopes, ids from `idSource`, each `parentId` naming the record before it,
 * and the turns, messages and session start the format needs around them. `templates` false
 * writes every record's data with `JSON.stringify` (for the test that holds the template writes
 * equal to it).
 */
export function createCopilotEncoder(
  options: CopilotEncodeOptions,
  sink: DiagnosticSink,
  templates = true,
): Encoder {
  return new CopilotEncoder(options, sink, templates);
}

/**
 * Whether `write` calls into run-span.ts only for a run's start and end (and notes a byte written
 * itself for every other event) instead of calling `spanBefore` and `spanAfter` around every
 * event. The two give the same bytes and losses; off, the general path runs (the property test in
 * test/copilot/writer-span.test.ts holds them equal).
 */
export const COPILOT_SPAN_INLINE: { enabled: boolean } = { enabled: true };

/**
 * The encoder ({@link createCopilotEncoder}; the writer-template test builds it): the writer's
 * state in its element 0, `write` and `end` on the prototype. With no named property of its own,
 * every encoder has the class's initial hidden class, which the class holds: a caller's loop
 * optimised around one encoder's `write` keeps its code at the next encoder and across a full GC
 * (a literal made once per encoder had a hidden class a full GC freed; a closure per encoder is
 * a new call target each time: docs/performance.md, "Copilot writer, round seven").
 */
export class CopilotEncoder implements Encoder {
  declare private readonly 0: Writer;

  /**
   * Creates a writer reporting losses to `sink`. `templates` false writes every record's data
   * with `JSON.stringify` (for the test that holds the template writes equal to it).
   */
  constructor(options: CopilotEncodeOptions, sink: DiagnosticSink, templates = true) {
    (this as unknown as { 0: Writer })[0] = newWriter(options, sink, templates);
  }

  /** The lines of one event. */
  write(event: AgentEvent): string {
    const w = this[0];
    assertFieldKinds(event);
    // A time no timestamp can hold is refused with its event, before anything is held for it: a
    // message held to its end would take its `ts` to the stream's end, and be refused there
    // (found by test/fuzz/structured.test.ts). The last time written is known good. A time is
    // checked by formatting it as the records will (`quotedAt`), which keeps the text for them:
    // the time is formatted once, here (the text is the time's whatever becomes of the write).
    const ts = event.ts;
    if (ts !== undefined) {
      // (No number at all, a BigInt above all, is refused here: the time's arithmetic threw a TypeError.)
      if (typeof ts !== 'number') assertFiniteNumber(ts, `${event.type}.ts`, FORMAT);
      quotedAt(w, ts);
    }
    // A record without a time takes the clock's, read here once for the write (for the event, or
    // a held record written before it) and checked as a `ts` is: a clock giving no time a
    // timestamp can hold refuses the event before anything is written or let go for it.
    w[NOW] = undefined;
    if (ts === undefined || (w[HELD] !== undefined && w[HELD].ts === undefined)) quotedAt(w, undefined);
    // Another format's runs are followed for what Copilot cannot say of them (run-span.ts): only a
    // run's start and end call into it; for every other event all it does is note that the open
    // run wrote a byte, done here (two calls per event were a measurable share of the writer:
    // docs/performance.md, "Copilot codec, round thirteen").
    // Off, both calls are made for every event, the general path (the property test in
    // test/copilot/writer-span.test.ts holds the two equal).
    if (!COPILOT_SPAN_INLINE.enabled) {
      spanBefore(w[SPAN], w[LOSS], event, FORMAT);
      const text = writeEvent(w, event);
      spanAfter(w[SPAN], w[LOSS], event, text, FORMAT);
      return text;
    }
    const type = event.type;
    if (type === 'run.start') spanBefore(w[SPAN], w[LOSS], event, FORMAT);
    const text = writeEvent(w, event);
    if (type === 'run.end') spanAfter(w[SPAN], w[LOSS], event, text, FORMAT);
    else if (text !== '') w[SPAN][SPAN_WROTE] = true;
    return text;
  }

  /** The lines still held at the end of the stream. */
  end(): string {
    // (The clock is read again for what the end writes.)
    this[0][NOW] = undefined;
    return endWrite(this[0]);
  }
}

/**
 * Refuses an event with a field its records are spelled from that holds no value of the kind
 * the record takes it as (a caller building events by hand from JSON may send a number, null, an
 * object or a BigInt where a string belongs, or leave a required one out): before anything is
 * written, held or said for it. Such a value was refused (a BigInt, by `JSON.stringify` of the
 * record's data) or threw a `TypeError` (a text's length, a figure's sum, a question's choices)
 * only after the write had let a held record go, opened a turn, written a lane's snapshots or
 * taken an id for the session's start; held (a run's start, a non-fatal error, a figure's
 * snapshot), at a later event's write (round thirty-seven). Asked at the write's start, for
 * every event, in one switch on its type.
 */
function assertFieldKinds(event: AgentEvent): void {
  // The envelope's ids: the session the stream's start names, the lane a record's agentId
  // names (and a held message's lane).
  assertText(event.session, event, 'session', FORMAT);
  assertText(event.lane, event, 'lane', FORMAT);
  switch (event.type) {
    // (A delta's text is required: missing, it is refused too.)
    case 'text.delta':
      requireText(event.text, event, 'text', FORMAT);
      assertText(event.message, event, 'message', FORMAT);
      return;
    case 'reasoning.delta':
      requireText(event.text, event, 'text', FORMAT);
      assertText(event.message, event, 'message', FORMAT);
      return;
    case 'message.start':
    case 'message.end':
      assertText(event.message, event, 'message', FORMAT);
      return;
    case 'session.start':
      assertText(event.producer, event, 'producer', FORMAT);
      assertText(event.protocol, event, 'protocol', FORMAT);
      assertText(event.model, event, 'model', FORMAT);
      assertText(event.cwd, event, 'cwd', FORMAT);
      return;
    case 'session.title':
      requireText(event.title, event, 'title', FORMAT);
      return;
    case 'run.start':
      // (The stream's first is held for the record after it.)
      assertText(event.input, event, 'input', FORMAT);
      return;
    case 'user.message':
      requireText(event.text, event, 'text', FORMAT);
      return;
    case 'round.start':
      assertText(event.model, event, 'model', FORMAT);
      return;
    case 'round.end':
      assertText(event.model, event, 'model', FORMAT);
      if (event.usage !== undefined) assertUsageKinds(event.usage, 'round.end.usage');
      return;
    case 'tool.start':
      requireText(event.call, event, 'call', FORMAT);
      requireText(event.name, event, 'name', FORMAT);
      assertText(event.server, event, 'server', FORMAT);
      return;
    case 'tool.output':
      requireText(event.call, event, 'call', FORMAT);
      requireText(event.text, event, 'text', FORMAT);
      return;
    case 'tool.end':
      requireText(event.call, event, 'call', FORMAT);
      assertText(event.text, event, 'text', FORMAT);
      // (Left out, the record says no outcome, as it always did.)
      if (event.ok !== undefined && typeof event.ok !== 'boolean')
        throw wrongType(event.ok, 'tool.end.ok', 'a boolean', FORMAT);
      return;
    case 'usage':
      requireObject(event.usage, event, 'usage', FORMAT);
      assertUsageKinds(event.usage, 'usage.usage');
      return;
    case 'child.start':
      requireText(event.child, event, 'child', FORMAT);
      assertText(event.call, event, 'call', FORMAT);
      assertText(event.name, event, 'name', FORMAT);
      assertText(event.task, event, 'task', FORMAT);
      return;
    case 'child.end':
      requireText(event.child, event, 'child', FORMAT);
      assertText(event.result, event, 'result', FORMAT);
      return;
    case 'run.end':
      assertText(event.error, event, 'error', FORMAT);
      assertText(event.reason, event, 'reason', FORMAT);
      if (event.usage !== undefined) assertUsageKinds(event.usage, 'run.end.usage');
      return;
    case 'error':
      // (A non-fatal one is held for the event after it.)
      requireText(event.message, event, 'message', FORMAT);
      assertText(event.code, event, 'code', FORMAT);
      return;
    case 'cancel':
      assertText(event.by, event, 'by', FORMAT);
      return;
    case 'compaction.start':
    case 'compaction.end':
      assertText(event.trigger, event, 'trigger', FORMAT);
      return;
    case 'approval.request':
      requireText(event.approval, event, 'approval', FORMAT);
      assertText(event.call, event, 'call', FORMAT);
      assertText(event.tool, event, 'tool', FORMAT);
      assertText(event.title, event, 'title', FORMAT);
      return;
    case 'approval.resolve':
      requireText(event.approval, event, 'approval', FORMAT);
      requireText(event.decision, event, 'decision', FORMAT);
      assertText(event.by, event, 'by', FORMAT);
      return;
    case 'question':
      requireText(event.question, event, 'question', FORMAT);
      assertText(event.call, event, 'call', FORMAT);
      return;
    case 'question.answer':
      requireText(event.question, event, 'question', FORMAT);
      return;
  }
}

/**
 * A usage's parts a record takes: an object ({@link assertUsageNumbers}) whose figures are
 * numbers (summed into the run's, subtracted from its total: a BigInt threw a `TypeError`
 * there), its key and model strings (the record's `apiCallId` and `model`), its models' figures
 * objects of numbers (a shutdown's `modelMetrics`). A number JSON cannot hold is the figure's
 * own check's (`count`), in its words.
 */
function assertUsageKinds(u: Usage, field: string): void {
  assertUsageNumbers(u, field, FORMAT);
  if (u.key !== undefined && typeof u.key !== 'string')
    throw wrongType(u.key, `${field}.key`, 'a string', FORMAT);
  if (u.model !== undefined && typeof u.model !== 'string')
    throw wrongType(u.model, `${field}.model`, 'a string', FORMAT);
  assertByModelFigures(u, field, FORMAT, assertUsageNumbers);
}

function writeEvent(w: Writer, event: AgentEvent): string {
  // Checked here, once, whatever goes first: a held event, for one (see `heldFirst`).
  const type = event.type;
  if (type === 'approval.request' || type === 'question.answer') assertValuesWritable(event);
  else if (type === 'question' || type === 'usage') assertPartsWritable(event);
  assertWritable(w, event);
  return heldFirst(w, event);
}

// The event after a held one, if any: the held one is written first.
function heldFirst(w: Writer, event: AgentEvent): string {
  const held = w[HELD];
  if (held !== undefined) {
    // The held event is written before this one: a refusal of this one came first (writeEvent),
    // or it would take the held one (a warning, the run's start) down with it.
    w[HELD] = undefined;
    if (held.type === 'error') return releaseError(w, held, event) + heldFirst(w, event);
    // The session's start came right after its first run's start (AG-UI and the AI SDK open
    // with the run): written first, as Copilot writes a session, instead of a second one.
    return event.type === 'session.start'
      ? recordOf(w, event) + recordOf(w, held)
      : recordOf(w, held) + recordOf(w, event);
  }
  if (!w[WROTE_ANY] && event.type === 'run.start' && event.provenance?.format !== FORMAT) {
    w[HELD] = event;
    return '';
  }
  return recordOf(w, event);
}

/**
 * Throws now, with the same words, what writing another format's `event` would throw further on
 * (a free-form value JSON cannot hold, a round or a figure that is no finite number), in the
 * order its write would meet it: refused in the middle of the write, the event would take what
 * was written, said or changed before it down with it (a held event, a lane's snapshots, its
 * losses, a turn opened, a figure counted). (An approval's or answer's values are checked
 * before: `writeEvent`.)
 */
function assertWritable(w: Writer, event: AgentEvent): void {
  if (event.provenance?.format === FORMAT) return;
  switch (event.type) {
    case 'tool.start':
      assertArgsWritable(event, FORMAT);
      assertTurnRound(w, event);
      return;
    case 'tool.end':
      // What toolEnd writes as JSON text: the result without a text, a failure's non-text error.
      if (event.text === undefined && event.result !== undefined && event.result !== null)
        jsonInText(event.result, 'tool.end.result');
      if (
        event.ok !== true &&
        event.error !== undefined &&
        event.error !== null &&
        typeof event.error !== 'string'
      )
        jsonInText(event.error, 'tool.end.error');
      assertTurnRound(w, event);
      return;
    case 'message.start':
    case 'text.delta':
      assertTurnRound(w, event);
      return;
    case 'reasoning.delta':
      if (event.text !== '' || event.redacted !== undefined || event.signature !== undefined)
        assertTurnRound(w, event);
      return;
    case 'round.start':
      if (event.round !== undefined) roundText(event.round);
      return;
    case 'round.end':
      assertRoundEndWritable(w, event);
      return;
    case 'usage':
      assertUsageWritable(w, event);
      return;
    case 'run.end':
      assertRunEndWritable(w, event);
      return;
    case 'compaction.end':
      count(event.tokensBefore, 'compaction.end.tokensBefore');
      count(event.tokensAfter, 'compaction.end.tokensAfter');
      count(event.tokensFreed, 'compaction.end.tokensFreed');
      return;
  }
}

/** The run is open for the event's write: open, or the run's start held before it. */
function runOpenFor(w: Writer): boolean {
  return w[RUN_OPEN] || w[HELD]?.type === 'run.start';
}

/** True when another format's `event` opens a turn named by its round ({@link lazyTurn}). */
function opensTurn(w: Writer, event: AgentEvent): boolean {
  return w[TURN] === undefined && event.lane === undefined && runOpenFor(w);
}

/** A round that is no finite number, refused where {@link lazyTurn} names a turn by it. */
function assertTurnRound(w: Writer, event: AgentEvent): void {
  if (event.round !== undefined && opensTurn(w, event)) roundText(event.round);
}

/** A figure's counts as {@link figureRecord} writes them, under `at` (`usage`, `run.end.usage`). */
function assertCounts(u: Partial<Usage>, at: string): void {
  for (const f of RUN_FIGURES) count(u[f], `${at}.${f}`);
}

/** A figure {@link isNewFigure} writes (or holds to write, a snapshot with a key). */
function isFigureWritten(w: Writer, u: Usage): boolean {
  return u.key === undefined ? u.final !== false : !w[KEYS].has(u.key);
}

/** Another format's round end: its round, and the figure it writes ({@link turnEnd}). */
function assertRoundEndWritable(w: Writer, event: AgentEventOf<'round.end'>): void {
  const opens = opensTurn(w, event);
  if (event.round !== undefined && opens) roundText(event.round);
  const u = event.usage;
  const inTurn = opens ? false : w[USAGE_IN_TURN];
  if (u !== undefined && !inTurn && event.lane === undefined && (u.key === undefined || !w[KEYS].has(u.key)))
    assertCounts(u, 'usage');
  // The turn's end names it by its round too (checked above when the round opens it).
  if (event.round !== undefined && !opens) roundText(event.round);
}

/** Another format's usage: a run's or a call's figure ({@link usageRecord}). */
function assertUsageWritable(w: Writer, event: AgentEventOf<'usage'>): void {
  const u = event.usage;
  if (u.scope === 'thread') {
    for (const m of Object.values(u.byModel ?? {})) assertCounts(m, 'usage.byModel');
    return;
  }
  if (!isFigureWritten(w, u)) return;
  if (event.round !== undefined) assertTurnRound(w, event);
  assertCounts(u, 'usage');
}

/**
 * Another format's run end: what its total has beyond the run's figures (the snapshots its end
 * writes first counted in), written as one more figure ({@link runTotal}).
 */
function assertRunEndWritable(w: Writer, event: AgentEventOf<'run.end'>): void {
  const total = event.usage;
  if (total === undefined || event.status === 'incomplete') return;
  const shutdown =
    w[LAST_TYPE] === 'session.shutdown' && w[OPEN_MESSAGE] === undefined && w[PENDING].size === 0;
  if (shutdown && event.status === 'completed') return;
  let sum = w[RUN_SUM] === undefined ? undefined : { ...w[RUN_SUM] };
  if (w[RUN_OPEN])
    for (const e of w[PENDING].values())
      if (e.lane === undefined) sum = addFigures(sum, (e as AgentEventOf<'usage'>).usage);
  const rest = runRemainder(sum, total);
  if (rest !== undefined && rest !== 'less') assertCounts(rest, 'run.end.usage');
}

/**
 * An approval's arguments and an answer's values go into the record's data as they are: a value
 * JSON cannot hold (Infinity, which `JSON.stringify` would write as `null` without a word) is
 * refused ({@link assertEncodable}), before anything is written for the event (a held event
 * included: `writeEvent` checks them, once, for `permissionRequested` and `inputCompleted`).
 */
function assertValuesWritable(event: AgentEventOf<'approval.request' | 'question.answer'>): void {
  if (event.type === 'question.answer') {
    // (Left out, or no object: its values would be read off nothing, a TypeError.)
    requireObject(event.answers, event, 'answers', FORMAT);
    assertEncodable(event.answers, 'question.answer.answers', undefined, FORMAT);
  } else if (event.args !== undefined)
    assertEncodable(event.args, 'approval.request.args', undefined, FORMAT);
}

/**
 * A question's list and a usage event's figure, which the write reads parts of (the first
 * question, the figure's scope): one left out by an event built by hand (or no array, no object)
 * is refused before anything is written for the event, not a TypeError in the middle.
 */
function assertPartsWritable(event: AgentEventOf<'question' | 'usage'>): void {
  if (event.type === 'question') {
    if (!Array.isArray(event.questions)) refuseKind(event, 'questions', 'an array', FORMAT);
    // The first question is asked: its text and its choices' labels are the record's, its
    // choices are searched (each read as an object).
    const q: unknown = event.questions[0];
    if (q === undefined) return;
    if (typeof q !== 'object' || q === null) throw wrongType(q, 'question.questions[0]', 'an object', FORMAT);
    const { text, options } = q as { text?: unknown; options?: unknown };
    if (typeof text !== 'string') throw wrongType(text, 'question.questions[0].text', 'a string', FORMAT);
    if (options === undefined) return;
    if (!Array.isArray(options))
      throw wrongType(options, 'question.questions[0].options', 'an array', FORMAT);
    for (let i = 0; i < options.length; i++) {
      const o: unknown = options[i];
      const at = `question.questions[0].options[${i}]`;
      if (typeof o !== 'object' || o === null) throw wrongType(o, at, 'an object', FORMAT);
      const label = (o as { label?: unknown }).label;
      if (typeof label !== 'string') throw wrongType(label, `${at}.label`, 'a string', FORMAT);
    }
  } else requireObject(event.usage, event, 'usage', FORMAT);
}

/** The records of one event (after the held first run start, if any). */
function recordOf(w: Writer, event: AgentEvent): string {
  const carried = CARRIED[event.type];
  if (carried !== undefined) checkLoss(w[LOSS], event, carried);
  const p = event.provenance;
  const own = p?.format === FORMAT;
  if (own && p.synthetic === true) {
    // Derived on reading (a message's text without deltas, a run end at shutdown): the record
    // they came from is written by its own event; their text only feeds that record.
    if (event.type === 'text.delta') return addText(w, event, event.message ?? w[OPEN_MESSAGE]);
    if (event.type === 'reasoning.delta') holdReasoning(w, event.text);
    else if (event.type === 'run.start') openRun(w);
    else if (event.type === 'run.end') endRunAndTurn(w);
    return '';
  }
  const record = own ? (p.hints as CopilotHints | undefined)?.record : undefined;
  const tpl = copilotData(record);
  if (!w[WROTE_ANY] && !own && event.session !== undefined) w[SESSION] ??= event.session;
  switch (event.type) {
    case 'session.start':
      // Copilot's stream is one session: a reader takes a second session.start for a broken
      // stream (copilot.check: "session.start is not the first event"). Another format's
      // second start (a resumed session, a second writer) is a loss.
      if (!own && w[WROTE_ANY]) {
        reportLoss(
          w[LOSS],
          event,
          'session.start',
          `${FORMAT} has one session.start, the stream's first record`,
        );
        return '';
      }
      return sessionStart(w, event, tpl);
    case 'session.title':
      return emit(w, 'session.title_changed', event, { ...tpl, title: event.title });
    case 'run.start':
      w[RUN_ERROR] = undefined;
      if (w[INCOMPLETE_RUN] !== undefined) return afterIncomplete(w, event);
      openRun(w);
      if (event.input === undefined) return '';
      return emit(w, 'user.message', event, dataWith(tpl, { content: event.input }));
    case 'user.message':
      // Outside a run a reader takes the message for a run's start.
      if (event.lane === undefined && !w[RUN_OPEN]) openRun(w);
      return emit(w, 'user.message', event, dataWith(tpl, { content: event.text }));
    case 'round.start':
      // A reader opens a run at a turn's start when none is open.
      if (event.lane === undefined && !w[RUN_OPEN]) openRun(w);
      return turnStart(w, event, tpl);
    case 'round.end':
      return turnEnd(w, event, tpl, own);
    case 'message.start': {
      const id = event.message ?? newId(w);
      let text = '';
      // A new message of a lane: its earlier message's snapshots are all that will come.
      if (!own && w[PENDING].size !== 0) text += writeSnapshots(w, event.lane);
      text += lazyTurn(w, event, own);
      if (!w[TEXTS].has(id)) text += holdMessage(w, event, id);
      w[OPEN_MESSAGE] = id;
      w[OPEN_LANE] = event.lane;
      w[TEXTS].set(id, '');
      return text + kept(w, 'assistant.message_start', event, tpl, { messageId: id });
    }
    case 'text.delta': {
      let head = lazyTurn(w, event, own);
      // Another format's delta that names a message when none is open opens it (OpenCode's
      // messages have no message.start or message.end): the round's end writes its
      // assistant.message, which a reader of the persisted log takes the answer from (the deltas
      // are ephemeral). Held by id and never opened, it was never written and stayed held.
      const named =
        w[OPEN_MESSAGE] === undefined && (event.message === undefined || !own)
          ? openMessage(w, event.lane, event.message)
          : (event.message ?? (w[OPEN_MESSAGE] as string));
      let id = writtenId(w, named);
      let sofar = w[TEXTS].get(id);
      if (sofar === undefined) {
        head += holdMessage(w, event, id);
        sofar = '';
      } else if (sofar.length + event.text.length > COPILOT_MAX_HELD_TEXT && sofar !== '') {
        head += cutMessage(w, event, named);
        id = w[RENAMED].get(named)!;
        sofar = '';
        if (!own && event.lane !== undefined) w[HELD_LANES].set(id, event.lane);
      }
      w[TEXTS].set(id, sofar + event.text);
      if (tpl === undefined && w[TEMPLATES] && typeof event.text === 'string' && typeof id === 'string') {
        // Most records of a stream: `JSON.stringify` of `{messageId, deltaContent}`, spelled out.
        const dataText = `{"messageId":${quotedMessage(w, id)},"deltaContent":${jsonString(event.text)}}`;
        return head + emit(w, 'assistant.message_delta', event, dataText);
      }
      const set: JsonObject = {
        messageId: id,
        deltaContent: event.text,
      };
      return head + kept(w, 'assistant.message_delta', event, tpl, set);
    }
    case 'reasoning.delta':
      // Another format's empty delta (a reasoning block's start or end there) says nothing here.
      if (!own && event.text === '' && event.redacted === undefined && event.signature === undefined)
        return '';
      return reasoningRecord(w, event, tpl, own);
    case 'message.end':
      // Another format's end of a message no record was written or held for (Cursor ends the
      // segment its deltas streamed by an id they never named): no message here, nothing lost.
      if (!own && !endsHeld(w, event.message)) return '';
      return messageRecord(w, event, tpl, event.message);
    case 'tool.start': {
      const set: JsonObject = {
        toolCallId: event.call,
        toolName: event.name,
        arguments: orKept(event.args, tpl, 'arguments', isJsonObject, {}),
        mcpServerName: event.server,
      };
      if (!own && event.args !== undefined) assertEncodable(event.args, 'tool.start.args', undefined, FORMAT);
      return lazyTurn(w, event, own) + kept(w, 'tool.execution_start', event, tpl, set);
    }
    case 'tool.output': {
      if (
        tpl === undefined &&
        w[TEMPLATES] &&
        typeof event.call === 'string' &&
        typeof event.text === 'string'
      ) {
        // `JSON.stringify` of `{toolCallId, partialOutput}`, spelled out.
        const dataText = `{"toolCallId":${jsonString(event.call)},"partialOutput":${jsonText(event.text)}}`;
        return emit(w, 'tool.execution_partial_result', event, dataText);
      }
      const set: JsonObject = {
        toolCallId: event.call,
        partialOutput: event.text,
      };
      return kept(w, 'tool.execution_partial_result', event, tpl, set);
    }
    case 'tool.end': {
      // A tool's result: the call that asked for it is over, its lane's figures final.
      let text = '';
      if (!own && w[PENDING].size !== 0) {
        // Refused after them, the snapshots written before the end would go down with it (it
        // is not: writeEvent checked it first).
        text += writeSnapshots(w, event.lane);
      }
      return text + toolEnd(w, event, tpl, own);
    }
    case 'usage':
      return usageRecord(w, event, tpl, own, copilotEnvelope(record));
    case 'child.start':
      return childStart(w, event, tpl);
    case 'child.end':
      // The subagent's figures no final one replaced go before its end (see writeSnapshots).
      return (
        (own ? '' : childSnapshots(w, event.child)) + childEnd(w, event, tpl, copilotEnvelope(record)?.type)
      );
    case 'run.end':
      return runEnd(w, event, tpl);
    case 'status':
      if (event.status !== 'idle') {
        reportLoss(w[LOSS], event, 'status', `${FORMAT} has no place for a status other than idle`);
        return '';
      }
      // The main agent's session.idle ends its run (outside one, it ends an empty run a reader
      // makes up): only a subagent's idle is a notice (Claude says idle inside a run).
      if (event.lane === undefined) {
        reportLoss(
          w[LOSS],
          event,
          'status.idle',
          `${FORMAT} has no idle notice for the main agent (its session.idle ends the run)`,
        );
        return '';
      }
      return emit(w, 'session.idle', event, { ...tpl });
    case 'error':
      return errorRecord(w, event, tpl, own, copilotEnvelope(record));
    case 'cancel': {
      const data = dataWith(tpl, { reason: orKept(event.by, tpl, 'reason', isString, 'user_initiated') });
      return emit(w, 'abort', event, data);
    }
    case 'compaction.start':
      return emit(w, 'session.compaction_start', event, dataWith(tpl, { trigger: event.trigger }));
    case 'compaction.end': {
      const data = dataWith(tpl, {
        success: tpl === undefined ? true : tpl.success,
        trigger: event.trigger,
        preCompactionTokens: count(event.tokensBefore, 'compaction.end.tokensBefore'),
        postCompactionTokens: count(event.tokensAfter, 'compaction.end.tokensAfter'),
        tokensRemoved: count(event.tokensFreed, 'compaction.end.tokensFreed'),
      });
      return emit(w, 'session.compaction_complete', event, data);
    }
    case 'approval.request':
      return permissionRequested(w, event, tpl);
    case 'approval.resolve':
      return permissionCompleted(w, event, tpl);
    case 'question':
      return inputRequested(w, event, tpl);
    case 'question.answer':
      return inputCompleted(w, event, tpl);
    case 'unknown':
      return unknownRecord(w, event, own);
    default:
      reportLoss(w[LOSS], event, event.type, `${FORMAT} has no event for ${event.type}`);
      return '';
  }
}

function endWrite(w: Writer): string {
  const held = w[HELD];
  w[HELD] = undefined;
  const text =
    held === undefined ? '' : held.type === 'error' ? releaseError(w, held, undefined) : recordOf(w, held);
  snapshotsLost(w, null);
  return text;
}

/** A run starts (as a reader sees it): its figures are counted afresh. */
function openRun(w: Writer): void {
  w[RUN_OPEN] = true;
  w[RUN_SUM] = undefined;
  w[KEYS].clear();
}

/** A run ends (as a reader sees it): keys never repeat across runs, so they go. */
function closeRun(w: Writer): void {
  w[RUN_OPEN] = false;
  w[RUN_SUM] = undefined;
  w[KEYS].clear();
}

/**
 * A run ends at a record a reader ends its turn at too (session.idle, session.shutdown): the
 * next run's first record opens a turn of its own, or the reader would take that run's records
 * for the ended one's (and drop the run).
 */
function endRunAndTurn(w: Writer): void {
  closeRun(w);
  w[TURN] = undefined;
  w[USAGE_IN_TURN] = false;
}

/**
 * Partial snapshots no final figure of their key replaced (Claude without partial messages
 * gives no other): each key's last is written as its call's figure, once, at the end of its
 * lane's round, of its subagent or of the run (what the run's total has beyond them follows at
 * the run's end). A lane's are written before its subagent ends: after it, a reader (Claude's
 * writer) has no message of that lane left to give them to. `lane` `null`: every lane's. A loss
 * all the same: the figure may fall short of the call's, and Copilot cannot say so.
 */
function writeSnapshots(w: Writer, lane: string | undefined | null): string {
  const pending = w[PENDING];
  if (pending.size === 0) return '';
  let text = '';
  for (const [key, event] of pending) {
    if (lane !== null && event.lane !== lane) continue;
    pending.delete(key);
    snapshotLost(w, event);
    w[KEYS].add(key);
    text += figureRecord(w, event, (event as AgentEventOf<'usage'>).usage, undefined, undefined, '');
  }
  return text;
}

/**
 * A subagent ends: the snapshots of its lane go before its end. Its lane is not always its id
 * (a Claude stream written from Copilot names the lane by agent id, the child by its call), so
 * every subagent lane goes but those of subagents still running.
 */
function childSnapshots(w: Writer, child: string): string {
  const pending = w[PENDING];
  if (pending.size === 0) return '';
  const running = w[CHILDREN];
  let text = '';
  for (const event of pending.values()) {
    const lane = event.lane;
    if (lane === undefined || isRunning(running, lane, child)) continue;
    text += writeSnapshots(w, lane);
  }
  return text;
}

/** Whether `lane` is (by its id or its call's) a running subagent other than `ending`. */
function isRunning(running: Writer[typeof CHILDREN], lane: string, ending: string): boolean {
  for (const [id, c] of running) if (id !== ending && (id === lane || c.call === lane)) return true;
  return false;
}

/**
 * Snapshots a figure of their round replaces (`lane` `undefined`: the main agent's), or left at
 * the stream's end outside any run (`null`: every lane's) with nothing to count them to.
 */
function snapshotsLost(w: Writer, lane: string | undefined | null): void {
  const pending = w[PENDING];
  if (pending.size === 0) return;
  for (const [key, event] of pending) {
    if (lane !== null && event.lane !== lane) continue;
    pending.delete(key);
    snapshotLost(w, event);
  }
}

function snapshotLost(w: Writer, event: AgentEvent): void {
  reportLoss(
    w[LOSS],
    event,
    'usage.final',
    `${FORMAT} has no partial usage snapshot (final: false): its assistant.usage is a call's final figure`,
  );
}

/**
 * An error: a fatal one is a session.error (a reader fails the run with it); a non-fatal one a
 * session.warning, which fails nothing and opens no run; one read from Copilot goes back as the
 * record it came from.
 */
function errorRecord(
  w: Writer,
  event: AgentEventOf<'error'>,
  tpl: JsonObject | undefined,
  own: boolean,
  env: CopilotEnvelope | undefined,
): string {
  // Another format's error derived from its run's end (a failed result): the run's end
  // writes it (one session.error, not two, and the same one whichever came first).
  if (!own && event.provenance?.synthetic === true && (event.fatal || event.message === w[RUN_ERROR]))
    return '';
  if (!own && !event.fatal) {
    // Whether it is the error the run fails with (Claude says it, then the failed result) or one
    // the run went on from, the next event says.
    w[HELD] = event;
    return '';
  }
  // A fatal error outside a run stays a session.error: it opens the run it fails, as Copilot's
  // own do (the failed run's end follows it).
  return own && env?.type === 'session.warning' ? warningRecord(w, event, tpl) : sessionError(w, event, tpl);
}

/**
 * A held non-fatal error: the session.error of the failed run's end right after it (with its
 * message, or none), else a session.warning.
 */
function releaseError(w: Writer, held: AgentEventOf<'error'>, next: AgentEvent | undefined): string {
  const fails =
    next?.type === 'run.end' &&
    next.status === 'failed' &&
    (next.error === undefined || next.error === held.message);
  return fails ? sessionError(w, held, undefined) : warningRecord(w, held, undefined);
}

function warningRecord(w: Writer, event: AgentEventOf<'error'>, tpl: JsonObject | undefined): string {
  const data = dataWith(tpl, codeSet(event, tpl, 'warningType'));
  return emit(w, 'session.warning', event, data);
}

function sessionError(w: Writer, event: AgentEventOf<'error'>, tpl: JsonObject | undefined): string {
  w[RUN_ERROR] = event.message;
  const data = dataWith(tpl, codeSet(event, tpl, 'errorType'));
  return emit(w, 'session.error', event, data);
}

/**
 * An error's code (`key`: `errorType` or `warningType`) and message. A kept code the event no
 * longer says (edited or deleted: a redaction) takes the kept `errorCode` along, Copilot's finer
 * spelling of the same code (`user_model_rate_limited` beside `rate_limit`).
 */
function codeSet(event: AgentEventOf<'error'>, tpl: JsonObject | undefined, key: string): JsonObject {
  const set: JsonObject = {
    [key]: orKept(event.code, tpl, key, isString, 'error'),
    message: event.message,
  };
  if (tpl !== undefined && typeof tpl[key] === 'string' && event.code !== tpl[key] && 'errorCode' in tpl)
    set.errorCode = undefined;
  return set;
}

// A message's deltas share its id: quoted once.
function quotedMessage(w: Writer, id: string): string {
  if (id !== w[LAST_MESSAGE]) {
    w[LAST_MESSAGE] = id;
    w[LAST_MESSAGE_QUOTED] = jsonString(id);
  }
  return w[LAST_MESSAGE_QUOTED];
}

/**
 * `timestamp` of a record written from the model, quoted: its event's `ts` (else the clock's
 * time) as `toISOString` writes it. Records of a burst share their ms: written once.
 */
function quotedAt(w: Writer, ts: number | undefined): string {
  const ms = ts ?? clockTime(w);
  if (ms === w[LAST_MS]) return w[LAST_MS_QUOTED];
  // The time before it: a write whose event has a `ts` and whose held record takes the clock's
  // goes between the two (checked up front, then written).
  if (ms === w[PREV_MS]) return w[PREV_MS_QUOTED];
  // Digits, dashes, colons, a dot and letters: nothing to escape. (A time no timestamp can hold
  // throws, before the cache changes: NaN is never equal to a kept ms.)
  const quoted = `"${timestampOf(w, ms)}"`;
  w[PREV_MS] = w[LAST_MS];
  w[PREV_MS_QUOTED] = w[LAST_MS_QUOTED];
  w[LAST_MS] = ms;
  w[LAST_MS_QUOTED] = quoted;
  return quoted;
}

/** The clock's time for the write's records without a `ts`: read once per write (`write`). */
function clockTime(w: Writer): number {
  let now = w[NOW];
  if (now === undefined) {
    now = (w[OPTIONS].clock ?? Date.now)();
    w[NOW] = now;
  }
  return now;
}

/** `timestamp` of an event: its `ts` (else the clock's time) as `toISOString` writes it. */
function timestampOf(w: Writer, ts: number | undefined): string {
  const ms = ts ?? clockTime(w);
  const text = writeIsoAt(w[ISO], ms);
  if (text === '') throw unencodable(`ts: ${ms} is no time a timestamp can hold`, FORMAT);
  return text;
}

function newId(w: Writer): string {
  const source = w[OPTIONS].idSource;
  return source === undefined ? nextUuid(w[IDS]) : source();
}

/**
 * The data for a record: the kept template (its other fields in place) with `set` applied (an
 * undefined value takes its key out). Without one, `set` itself: `JSON.stringify` leaves its
 * undefined values out, the keys a set-by-set copy left out.
 */
function dataWith(tpl: JsonObject | undefined, set: JsonObject): JsonObject {
  if (tpl === undefined) return set;
  const d: JsonObject = { ...tpl };
  for (const k in set) put(d, k, set[k]);
  return d;
}

// A derived delta's text (a message's without deltas) held for its message's end, which comes
// next; held by the same bound as any message's (holdMessage).
function addText(w: Writer, event: AgentEventOf<'text.delta'>, named: string | undefined): string {
  if (named === undefined) return '';
  const id = writtenId(w, named);
  const sofar = w[TEXTS].get(id);
  const head = sofar === undefined ? holdMessage(w, event, id) : '';
  w[TEXTS].set(id, (sofar ?? '') + event.text);
  return head;
}

/**
 * A message whose text starts being held (`id`, as `texts` holds it): its lane noted, and past
 * COPILOT_MAX_HELD_MESSAGES held the oldest but the open one is written as its `assistant.message`
 * before its end. Memory stays bounded when a stream's messages never end, Copilot's own too: its
 * text is held only for that record, so a round trip gets it early as well (its own end, should
 * it come, is written with the text held since, and a reader takes it for another message).
 */
function holdMessage(w: Writer, event: AgentEvent, id: string): string {
  if (event.lane !== undefined) w[HELD_LANES].set(id, event.lane);
  const texts = w[TEXTS];
  if (texts.size < COPILOT_MAX_HELD_MESSAGES) return '';
  const open = w[OPEN_MESSAGE] === undefined ? undefined : writtenId(w, w[OPEN_MESSAGE]);
  for (const oldest of texts.keys()) if (oldest !== open && oldest !== id) return writeHeld(w, event, oldest);
  return '';
}

/** A held message written as its `assistant.message` before its end (holdMessage): a loss. */
function writeHeld(w: Writer, event: AgentEvent, id: string): string {
  reportLoss(
    w[LOSS],
    event,
    'text.delta.message',
    `${FORMAT} holds the text of ${COPILOT_MAX_HELD_MESSAGES} messages not ended: the oldest is written as its assistant.message before its end (text that follows under its id reads as another message)`,
  );
  const content = w[TEXTS].get(id) as string;
  w[TEXTS].delete(id);
  const lane = w[HELD_LANES].get(id);
  if (lane !== undefined) w[HELD_LANES].delete(id);
  // A message cut at COPILOT_MAX_HELD_TEXT goes on under the id it was renamed to: forgotten.
  if (w[RENAMED].size !== 0)
    for (const [named, written] of w[RENAMED])
      if (written === id) {
        w[RENAMED].delete(named);
        break;
      }
  const end = { type: 'message.end', ts: event.ts, lane } as AgentEvent;
  return emit(w, 'assistant.message', end, { messageId: id, content });
}

/** The id a message's records are written under: the id its events name, unless it was cut. */
function writtenId(w: Writer, named: string): string {
  return w[RENAMED].size === 0 ? named : (w[RENAMED].get(named) ?? named);
}

/**
 * A message whose held text would pass COPILOT_MAX_HELD_TEXT: the text so far is written as an
 * `assistant.message` of its own and the message goes on under a new id (`renamed`). Memory stays
 * bounded and no text is lost, but a reader takes each for a message, and the last for the answer.
 */
function cutMessage(w: Writer, event: AgentEventOf<'text.delta'>, named: string): string {
  reportLoss(
    w[LOSS],
    event,
    'text.delta.message',
    `a message past ${COPILOT_MAX_HELD_TEXT} characters is written as several assistant.message records; a reader takes each for a message`,
  );
  const open = w[OPEN_MESSAGE];
  let out = messageRecord(w, event, undefined, named);
  const next = newId(w);
  w[RENAMED].set(named, next);
  // Still open: a round's end that closes it names it as its events do.
  if (open === named) w[OPEN_MESSAGE] = named;
  out += emit(w, 'assistant.message_start', event, { messageId: next });
  return out;
}

/** Reasoning held for the next message's `reasoningText`, up to COPILOT_MAX_HELD_TEXT. */
function holdReasoning(w: Writer, text: string): void {
  if (w[REASONING_CUT]) return;
  if (w[REASONING].length + text.length <= COPILOT_MAX_HELD_TEXT) {
    w[REASONING] += text;
    return;
  }
  // Past the cap the message carries no reasoningText: its reasoning deltas said it all (a
  // reader takes reasoningText only for a message without them).
  w[REASONING] = '';
  w[REASONING_CUT] = true;
}

function sessionStart(w: Writer, event: AgentEvent, tpl: JsonObject | undefined): string {
  const e = event.type === 'session.start' ? event : undefined;
  const session = event.session ?? w[SESSION] ?? w[OPTIONS].session ?? newId(w);
  const protocol = e?.protocol;
  const version = protocol !== undefined && /^\d+$/.test(protocol) ? Number(protocol) : 1;
  const at = timestampOf(w, event.ts);
  const set: JsonObject = {
    sessionId: session,
    version: orKept(protocol === undefined ? undefined : version, tpl, 'version', isNumber, version),
    producer: orKept(e?.producer, tpl, 'producer', isString, w[OPTIONS].producer ?? 'agentwire'),
  };
  if (tpl === undefined) {
    set.copilotVersion = w[OPTIONS].copilotVersion ?? '0.0.0';
    set.startTime = at;
  }
  set.selectedModel = orKept(e?.model, tpl, 'selectedModel', isString, undefined);
  const data = dataWith(tpl, set);
  const context = isJsonObject(tpl?.context) ? tpl.context : undefined;
  if (e?.cwd !== undefined) data.context = context !== undefined ? withCwd(context, e.cwd) : { cwd: e.cwd };
  else if (context !== undefined && typeof context.cwd === 'string')
    data.context = withCwd(context, undefined);
  const start: AgentEvent = e ?? { type: 'session.start', session };
  return emit(w, 'session.start', start, data);
}

/**
 * The kept `context` with the event's directory (undefined: deleted, taken out). Its `gitRoot`,
 * where it spells the kept directory, follows: a directory edited or deleted (a redacted path)
 * leaves no copy.
 */
function withCwd(context: JsonObject, cwd: string | undefined): JsonObject {
  const c: JsonObject = { ...context };
  put(c, 'cwd', cwd);
  if (typeof context.cwd === 'string' && context.gitRoot === context.cwd && cwd !== context.cwd)
    put(c, 'gitRoot', cwd);
  return c;
}

// A round of another format's events opens a turn the first time one of its events comes. Not
// outside a run: a reader opens a run at a turn's start, one the source never had; the records
// go out without a turn (a reader opens no run for them).
function lazyTurn(w: Writer, event: AgentEvent, own: boolean): string {
  if (own || w[TURN] !== undefined || event.lane !== undefined || !w[RUN_OPEN]) return '';
  // One literal, whatever the event has (a field left undefined reads as absent; this event is
  // never handed out): a shape built by spreading dies at a full GC with the code that read it.
  const start = { type: 'round.start', round: event.round, ts: event.ts } as AgentEventOf<'round.start'>;
  return turnStart(w, start, undefined);
}

// A round's number as a turn id: `String(NaN)` would be valid JSON and no number, so refused.
function roundText(round: number): string {
  assertFiniteNumber(round, 'round', FORMAT);
  return String(round);
}

function turnStart(w: Writer, event: AgentEventOf<'round.start'>, tpl: JsonObject | undefined): string {
  w[TURN_COUNT]++;
  const turnId =
    event.round !== undefined
      ? roundText(event.round)
      : tpl !== undefined
        ? (tpl.turnId as string)
        : String(w[TURN_COUNT] - 1);
  if (event.lane === undefined) {
    w[TURN] = turnId;
    w[USAGE_IN_TURN] = false;
  }
  return kept(w, 'assistant.turn_start', event, tpl, {
    turnId: turnId,
    model: event.model,
  });
}

function turnEnd(
  w: Writer,
  event: AgentEventOf<'round.end'>,
  tpl: JsonObject | undefined,
  own: boolean,
): string {
  let text = '';
  if (!own) {
    text += lazyTurn(w, event, own);
    // Another format's round: its message and usage become the records Copilot has for them.
    if (event.usage?.costUsd !== undefined) costLost(w, event);
    text += endOpenMessage(w, event);
    // The round's own figure, when it has one and no call's came, else its calls' snapshots.
    if (event.usage === undefined || w[USAGE_IN_TURN] || event.lane !== undefined)
      text += writeSnapshots(w, event.lane);
    else {
      snapshotsLost(w, undefined);
      // The fields usageRecord reads, in one literal (as the round start above).
      const x = event.usage;
      const u = {
        type: 'usage',
        usage: {
          input: x.input,
          output: x.output,
          cacheRead: x.cacheRead,
          cacheWrite: x.cacheWrite,
          reasoning: x.reasoning,
          costUsd: x.costUsd,
          key: x.key,
          model: event.model === undefined ? x.model : (x.model ?? event.model),
          scope: 'call',
        },
        ts: event.ts,
      } as AgentEventOf<'usage'>;
      text += usageRecord(w, u, undefined, false, undefined);
    }
  }
  const turnId =
    event.round !== undefined
      ? roundText(event.round)
      : tpl !== undefined
        ? (tpl.turnId as string)
        : (w[TURN] ?? String(w[TURN_COUNT]));
  const set: JsonObject = {
    turnId: turnId,
    model: event.model,
  };
  if (event.lane === undefined) {
    if (!own && w[TURN] === undefined) {
      // No turn open (the round came outside a run): a turn's end alone is not Copilot's.
      reportLoss(w[LOSS], event, 'round.end', `${FORMAT} has no turn outside a run (a turn opens one)`);
      return text;
    }
    w[TURN] = undefined;
  }
  return text + kept(w, 'assistant.turn_end', event, tpl, set);
}

function reasoningRecord(
  w: Writer,
  event: AgentEventOf<'reasoning.delta'>,
  tpl: JsonObject | undefined,
  own: boolean,
): string {
  const head = lazyTurn(w, event, own);
  const id = event.message ?? w[OPEN_REASONING] ?? (w[OPEN_REASONING] = newId(w));
  holdReasoning(w, event.text);
  const hints = own ? (event.provenance?.hints as CopilotHints | undefined) : undefined;
  if (hints?.record?.type === 'assistant.reasoning') {
    const data = dataWith(tpl, {
      reasoningId: id,
      content: event.text,
    });
    return head + emit(w, 'assistant.reasoning', event, data);
  }
  const data = dataWith(tpl, {
    reasoningId: id,
    deltaContent: event.text,
  });
  return head + emit(w, 'assistant.reasoning_delta', event, data);
}

/**
 * Another format's round or run ends with a message open (its message.end never came, or the
 * format has none): its `assistant.message`. The open message may be a subagent's: written in
 * its lane, with its agentId, not as the main agent's.
 */
function endOpenMessage(w: Writer, event: AgentEvent): string {
  const open = w[OPEN_MESSAGE];
  if (open === undefined) return '';
  return messageRecord(
    w,
    { type: 'message.end', ts: event.ts, lane: w[OPEN_LANE] } as AgentEvent,
    undefined,
    open,
  );
}

/** A message opened by a delta with no message.start: its id (`named`, else a new one) and lane. */
function openMessage(w: Writer, lane: string | undefined, named: string | undefined): string {
  w[OPEN_LANE] = lane;
  return (w[OPEN_MESSAGE] = named ?? newId(w));
}

/**
 * Whether a message.end naming `message` (undefined: the open message) ends a message whose text
 * is held (its start or a delta named it), or reasoning no open message will take: the
 * `assistant.message` that ends it keeps it (its `reasoningText`) in the persisted log.
 */
function endsHeld(w: Writer, message: string | undefined): boolean {
  const named = message ?? w[OPEN_MESSAGE];
  if (named !== undefined && w[TEXTS].has(writtenId(w, named))) return true;
  return w[REASONING] !== '' && w[OPEN_MESSAGE] === undefined;
}

function messageRecord(
  w: Writer,
  event: AgentEvent,
  tpl: JsonObject | undefined,
  message: string | undefined,
): string {
  const named = message ?? w[OPEN_MESSAGE] ?? newId(w);
  const id = writtenId(w, named);
  if (w[RENAMED].size !== 0) w[RENAMED].delete(named);
  const content = w[TEXTS].get(id) ?? '';
  w[TEXTS].delete(id);
  if (w[HELD_LANES].size !== 0) w[HELD_LANES].delete(id);
  if (w[OPEN_MESSAGE] === named) w[OPEN_MESSAGE] = undefined;
  w[REASONING_CUT] = false;
  if (tpl === undefined && w[TEMPLATES] && typeof id === 'string') {
    // `JSON.stringify` of `{messageId, content, reasoningText?}`, spelled out. The content is a
    // rope of the message's deltas: JSON.stringify of an object reads it slower than
    // `jsonString` of it alone (docs/performance.md, "Copilot writer, round five").
    const reasoning = w[REASONING] === '' ? '' : `,"reasoningText":${jsonString(w[REASONING])}`;
    const dataText = `{"messageId":${jsonString(id)},"content":${jsonText(content)}${reasoning}}`;
    w[REASONING] = '';
    w[OPEN_REASONING] = undefined;
    return emit(w, 'assistant.message', event, dataText);
  }
  const set: JsonObject = {
    messageId: id,
    content: content,
  };
  // Set after the template's fields (where it has one, in its place).
  if (w[REASONING] !== '') set.reasoningText = w[REASONING];
  w[REASONING] = '';
  w[OPEN_REASONING] = undefined;
  return kept(w, 'assistant.message', event, tpl, set);
}

function toolEnd(
  w: Writer,
  event: AgentEventOf<'tool.end'>,
  tpl: JsonObject | undefined,
  own: boolean,
): string {
  const content =
    event.text ??
    (event.result === undefined || event.result === null
      ? undefined
      : jsonInText(event.result, 'tool.end.result'));
  const keptResult = isJsonObject(tpl?.result) ? tpl.result : undefined;
  const keptError = isJsonObject(tpl?.error) ? tpl.error : undefined;
  const error = toolError(w, event, own);
  return (
    lazyTurn(w, event, own) +
    kept(w, 'tool.execution_complete', event, tpl, {
      toolCallId: event.call,
      success: event.ok,
      result: content === undefined ? undefined : { ...keptResult, content },
      error: error === undefined ? undefined : { ...keptError, message: error },
    })
  );
}

/**
 * A tool end's error message, if it has one to write. A null error is none (highbar writes
 * `"error": null` on every successful call; `json(null)` would make it the message "null"). A
 * successful call of another format with an error: Copilot writes an error only on a failed
 * execution, so that error is a `loss`, not a record a reader takes for a failure's.
 */
function toolError(w: Writer, event: AgentEventOf<'tool.end'>, own: boolean): string | undefined {
  const e = event.error;
  if (e === undefined || e === null) return undefined;
  if (event.ok === true && !own) {
    reportLoss(w[LOSS], event, 'tool.end.error', `${FORMAT} writes an error only on a failed tool execution`);
    return undefined;
  }
  return typeof e === 'string' ? e : jsonInText(e, 'tool.end.error');
}

function usageRecord(
  w: Writer,
  event: AgentEventOf<'usage'>,
  tpl: JsonObject | undefined,
  own: boolean,
  env: CopilotEnvelope | undefined,
): string {
  const u = event.usage;
  if (u.costUsd !== undefined) costLost(w, event);
  if (u.scope === 'thread') return shutdown(w, event, u, tpl);
  if (!own && !isNewFigure(w, event, u)) return '';
  // A figure of no round (a run's total, a session's) opens no turn: a reader counts it to the
  // run all the same, and to no round.
  return figureRecord(w, event, u, tpl, env, event.round === undefined ? '' : lazyTurn(w, event, own));
}

/** One figure as an assistant.usage, counted into the run as a reader counts it. */
function figureRecord(
  w: Writer,
  event: AgentEvent,
  u: Usage,
  tpl: JsonObject | undefined,
  env: CopilotEnvelope | undefined,
  head: string,
): string {
  if (event.lane === undefined) {
    w[USAGE_IN_TURN] = true;
    if (w[RUN_OPEN]) w[RUN_SUM] = addFigures(w[RUN_SUM], u);
  }
  // The key is the API call id; a record without one was keyed by its own event id.
  const key = u.key === undefined || u.key === env?.id ? undefined : u.key;
  const set: JsonObject = {
    // The schema requires a model; one the events do not name is left out, never invented.
    model: orKept(u.model, tpl, 'model', isString, undefined),
    inputTokens: count(u.input, 'usage.input'),
    outputTokens: count(u.output, 'usage.output'),
    cacheReadTokens: count(u.cacheRead, 'usage.cacheRead'),
    cacheWriteTokens: count(u.cacheWrite, 'usage.cacheWrite'),
    reasoningTokens: count(u.reasoning, 'usage.reasoning'),
    // A key that is the record's own id is none of the data's: the kept one stays, unless the key
    // was deleted (every usage read from Copilot has one).
    apiCallId:
      key ??
      (u.key === undefined ? orKept(undefined, tpl, 'apiCallId', isString, undefined) : tpl?.apiCallId),
  };
  return head + kept(w, 'assistant.usage', event, tpl, set);
}

function costLost(w: Writer, event: AgentEvent): void {
  reportLoss(
    w[LOSS],
    event,
    'usage.costUsd',
    `${FORMAT} has no cost in US dollars (its cost is a billing multiplier)`,
  );
}

/**
 * Whether another format's figure is one to write: a call's final figure whose key has not
 * been written (figures with the same key are one figure). A partial snapshot (`final: false`)
 * waits for its key's final figure (a loss at the run's end when none came).
 */
function isNewFigure(w: Writer, event: AgentEventOf<'usage'>, u: Usage): boolean {
  const key = u.key;
  if (u.final === false) {
    // Without a key no final figure can replace it.
    if (key === undefined) snapshotLost(w, event);
    else if (!w[KEYS].has(key)) w[PENDING].set(key, event);
    return false;
  }
  if (key === undefined) return true;
  if (w[KEYS].has(key)) return false;
  w[KEYS].add(key);
  w[PENDING].delete(key);
  return true;
}

/** `sum` plus the token figures of `u` (what a reader adds a run's calls up to). */
function addFigures(sum: RunSum | undefined, u: Usage): RunSum {
  const total: RunSum = sum ?? {};
  for (const f of RUN_FIGURES) {
    const n = u[f];
    if (n !== undefined) total[f] = addExact(total[f] ?? 0, n);
  }
  return total;
}

/**
 * The run's total beyond the figures written in it, for a reader that totals the run from its
 * calls: `undefined` when they say it all already, `'less'` when they add up to more than the
 * total in some figure (no record can take that back).
 */
function runRemainder(sum: RunSum | undefined, total: Usage): RunSum | 'less' | undefined {
  let rest: RunSum | undefined;
  for (const f of RUN_FIGURES) {
    const n = total[f];
    if (n === undefined) continue;
    const had = sum?.[f];
    if (had !== undefined && had === n) continue;
    const d = had === undefined ? n : addExact(n, -had);
    if (d < 0) return 'less';
    (rest ??= {})[f] = d;
  }
  return rest;
}

/**
 * A run's total (`run.end.usage`), kept: Copilot holds it only as the sum of the run's calls,
 * so what it has beyond the figures written goes out as one more assistant.usage (all of it
 * when the source gave no per-call figures). `write` false: the run has ended for a reader
 * already (at a shutdown), and what remains is a loss.
 */
function runTotal(w: Writer, event: AgentEventOf<'run.end'>, write: boolean): string {
  const total = event.usage;
  if (total === undefined) return '';
  if (total.costUsd !== undefined) costLost(w, event);
  const models = total.byModel === undefined ? [] : Object.keys(total.byModel);
  if (models.length > 1)
    reportLoss(w[LOSS], event, 'run.end.usage.byModel', `${FORMAT} has no run total by model`);
  const rest = runRemainder(w[RUN_SUM], total);
  if (rest === undefined) return '';
  if (rest === 'less' || !write) {
    reportLoss(
      w[LOSS],
      event,
      'run.end.usage',
      rest === 'less'
        ? `${FORMAT} totals a run from its assistant.usage records, which add up to more than this total`
        : `${FORMAT} totals a run from its assistant.usage records; the run ended at the shutdown before this total`,
    );
    return '';
  }
  const data = dataWith(undefined, {
    model: total.model ?? (models.length === 1 ? models[0] : undefined),
    inputTokens: count(rest.input, 'run.end.usage.input'),
    outputTokens: count(rest.output, 'run.end.usage.output'),
    cacheReadTokens: count(rest.cacheRead, 'run.end.usage.cacheRead'),
    cacheWriteTokens: count(rest.cacheWrite, 'run.end.usage.cacheWrite'),
    reasoningTokens: count(rest.reasoning, 'run.end.usage.reasoning'),
  });
  w[RUN_SUM] = addFigures(w[RUN_SUM], rest);
  return emit(w, 'assistant.usage', event, data);
}

/** A model's `modelMetrics` entry: the kept one (`was`) with the model's counts put in its usage. */
function modelMetric(m: ModelUsage, was: JsonObject | undefined): JsonObject {
  const usage: JsonObject = isJsonObject(was?.usage) ? { ...was.usage } : {};
  put(usage, 'inputTokens', count(m.input, 'usage.byModel.input') ?? 0);
  put(usage, 'outputTokens', count(m.output, 'usage.byModel.output') ?? 0);
  put(usage, 'cacheReadTokens', count(m.cacheRead, 'usage.byModel.cacheRead') ?? 0);
  put(usage, 'cacheWriteTokens', count(m.cacheWrite, 'usage.byModel.cacheWrite') ?? 0);
  put(usage, 'reasoningTokens', count(m.reasoning, 'usage.byModel.reasoning'));
  const metric: JsonObject = was === undefined ? { requests: {} } : { ...was };
  metric.usage = usage;
  return metric;
}

function shutdown(w: Writer, event: AgentEventOf<'usage'>, u: Usage, tpl: JsonObject | undefined): string {
  // A reader ends the open run at the shutdown (its run end after it writes nothing).
  w[RUN_OPEN] = false;
  const metrics: JsonObject = {};
  const kept = isJsonObject(tpl?.modelMetrics) ? tpl.modelMetrics : undefined;
  const byModel = u.byModel ?? {};
  // The kept keys first, in their order: a model the event has, and a key the decoder read no
  // model from (not an entry with a `usage` object: a key no reader knows) as it is; a model the
  // event no longer has was deleted. Then the event's models the kept record did not name.
  if (kept !== undefined)
    for (const key of Object.keys(kept)) {
      const was = kept[key];
      if (Object.hasOwn(byModel, key))
        setOwn(metrics, key, modelMetric(byModel[key]!, isJsonObject(was) ? was : undefined));
      else if (!isJsonObject(was) || !isJsonObject(was.usage)) setOwn(metrics, key, was);
    }
  for (const model of Object.keys(byModel))
    if (kept === undefined || !Object.hasOwn(kept, model))
      setOwn(metrics, model, modelMetric(byModel[model]!, undefined));
  const data = dataWith(tpl, { modelMetrics: metrics });
  if (tpl === undefined) {
    const fresh: JsonObject = {
      shutdownType: 'routine',
      totalApiDurationMs: 0,
      sessionStartTime: event.ts ?? clockTime(w),
      codeChanges: { linesAdded: 0, linesRemoved: 0, filesModified: [] },
      modelMetrics: metrics,
    };
    return emit(w, 'session.shutdown', event, fresh);
  }
  return emit(w, 'session.shutdown', event, data);
}

function childStart(w: Writer, event: AgentEventOf<'child.start'>, tpl: JsonObject | undefined): string {
  // A subagent's records carry its own agentId, never its parent's: one that another subagent
  // started reads back as the main agent's.
  if (event.lane !== undefined)
    reportLoss(
      w[LOSS],
      event,
      'child.start.lane',
      `${FORMAT} names no parent of a subagent but the main agent`,
    );
  const call = event.call ?? event.child;
  const keptName = typeof tpl?.agentName === 'string' ? tpl.agentName : undefined;
  w[CHILDREN].set(event.child, { call, name: event.name, keptName });
  const name = orKept(event.name, tpl, 'agentName', isString, 'agent');
  const set: JsonObject = {
    toolCallId: call,
    agentName: name,
    agentDisplayName: tpl === undefined ? name : tpl.agentDisplayName,
    agentDescription: orKept(event.task, tpl, 'agentDescription', isString, ''),
  };
  if (tpl !== undefined) renamed(set, tpl, keptName, event.name);
  const data = dataWith(tpl, set);
  return emit(w, 'subagent.started', event, data, event.child === call ? undefined : event.child);
}

/**
 * A subagent's name no longer the one its start's kept record said (`keptName`; edited or
 * deleted): the kept data's copies of that name (its name, display name and type, where they
 * spell it) follow the event's name, or leave with it (the name itself is made as anew).
 */
function renamed(
  set: JsonObject,
  tpl: JsonObject,
  keptName: string | undefined,
  name: string | undefined,
): void {
  if (keptName === undefined || name === keptName) return;
  set.agentName = name ?? 'agent';
  if (tpl.agentDisplayName === keptName) set.agentDisplayName = name;
  if (tpl.agentType === keptName) set.agentType = name;
}

function childEnd(
  w: Writer,
  event: AgentEventOf<'child.end'>,
  tpl: JsonObject | undefined,
  keptType: string | undefined,
): string {
  const started = w[CHILDREN].get(event.child);
  w[CHILDREN].delete(event.child);
  const call = started?.call ?? (tpl === undefined ? event.child : (tpl.toolCallId as string));
  const name = started?.name ?? (tpl === undefined ? 'agent' : tpl.agentName);
  const failed = event.status === 'failed' || event.status === 'incomplete';
  const set: JsonObject = {
    toolCallId: call,
    agentName: tpl === undefined ? name : tpl.agentName,
    agentDisplayName: tpl === undefined ? name : tpl.agentDisplayName,
  };
  // The start's name edited or deleted: the end's copies of it follow.
  if (tpl !== undefined && started?.keptName !== undefined && tpl.agentName === started.keptName)
    renamed(set, tpl, started.keptName, started.name);
  if (failed) set.error = orKept(event.result, tpl, 'error', isString, event.status);
  else {
    // A failure's error read as the result: not a failure any more (its status deleted or
    // edited), the kept error goes.
    if (keptType === 'subagent.failed') set.error = undefined;
    if (event.status === 'cancelled') set.cancelled = true;
    else if (tpl !== undefined) set.cancelled = tpl.cancelled === true ? undefined : tpl.cancelled;
  }
  if (!failed && event.result !== undefined)
    reportLoss(w[LOSS], event, 'child.end.result', `${FORMAT} has no result text for a completed subagent`);
  const data = dataWith(tpl, set);
  const agent = event.child === call ? undefined : event.child;
  return emit(w, failed ? 'subagent.failed' : 'subagent.completed', event, data, agent);
}

/**
 * An approval asked: a `permission.requested`. One read from Copilot keeps its request, each field
 * written back where it was read from (COPILOT_PERMISSION_SLOTS); another format's asks as a
 * `custom-tool` (the kind any tool asks with, its name and description required), which has no
 * place for what the action would do.
 */
function permissionRequested(
  w: Writer,
  event: AgentEventOf<'approval.request'>,
  tpl: JsonObject | undefined,
): string {
  const prior = tpl !== undefined && isJsonObject(tpl.permissionRequest) ? tpl.permissionRequest : undefined;
  let pr: JsonObject;
  if (prior === undefined) {
    if (event.effects !== undefined) requestLoss(w, event, 'effects', 'custom-tool');
    pr = dataWith(undefined, {
      kind: 'custom-tool',
      toolCallId: event.call,
      toolName: event.tool ?? '',
      toolDescription: event.title ?? '',
      args: event.args,
    });
  } else {
    pr = { ...prior };
    const S = COPILOT_PERMISSION_SLOTS;
    slotPut(w, event, pr, 'call', S.call, event.call);
    slotPut(w, event, pr, 'tool', S.tool, event.tool);
    slotPut(w, event, pr, 'title', S.title, event.title);
    slotPut(w, event, pr, 'args', S.args, event.args);
    slotPut(w, event, pr, 'effects', S.effects, event.effects?.join('\n'));
  }
  const data = dataWith(tpl, {
    requestId: event.approval,
    permissionRequest: pr,
  });
  return emit(w, 'permission.requested', event, data);
}

// A field written to the key of the kept request the reader took it from; one it has none for is
// a loss (undefined deletes that key: the event says the request has none).
function slotPut(
  w: Writer,
  event: AgentEventOf<'approval.request'>,
  pr: JsonObject,
  field: string,
  keys: readonly string[],
  value: unknown,
): void {
  const key = copilotSlot(pr, keys, field === 'args');
  if (key !== undefined) put(pr, key, value);
  else if (value !== undefined) requestLoss(w, event, field, String(pr.kind));
}

function requestLoss(w: Writer, event: AgentEvent, field: string, kind: string): void {
  reportLoss(
    w[LOSS],
    event,
    `approval.request.${field}`,
    `${FORMAT} has no place for ${field} in a ${kind} permission request`,
  );
}

/**
 * An approval decided: a `permission.completed`. The kept result stays while it says what the
 * event says (its kind says more: for the session, for the location, the rules that denied);
 * otherwise the result kind of the decision and who took it.
 */
function permissionCompleted(
  w: Writer,
  event: AgentEventOf<'approval.resolve'>,
  tpl: JsonObject | undefined,
): string {
  const prior = tpl !== undefined && isJsonObject(tpl.result) ? tpl.result : undefined;
  const kind = prior?.kind;
  const result =
    typeof kind === 'string' &&
    copilotDecision(kind) === event.decision &&
    str(COPILOT_DENIED_BY[kind]) === event.by
      ? prior
      : resultOf(w, event);
  const data = dataWith(tpl, {
    requestId: event.approval,
    result: result,
  });
  return emit(w, 'permission.completed', event, data);
}

// The result of another format's decision. Copilot says who denied (the user, rules, a hook),
// never who approved or cancelled; a denial by another party reads back as one by rules.
function resultOf(w: Writer, event: AgentEventOf<'approval.resolve'>): JsonObject {
  const { decision, by } = event;
  const allows = decisionAllows(decision);
  if (allows || decision === 'cancel') {
    if (by !== undefined)
      reportLoss(w[LOSS], event, 'approval.resolve.by', `${FORMAT} names no one who approved or cancelled`);
    return { kind: allows ? 'approved' : 'cancelled' };
  }
  if (by === 'hook') return { kind: 'denied-by-permission-request-hook' };
  if (by === undefined || by === 'user') return { kind: 'denied-interactively-by-user' };
  if (by !== 'policy')
    reportLoss(
      w[LOSS],
      event,
      'approval.resolve.by',
      `${FORMAT} says a denial is the user's, a hook's or by rules`,
    );
  return { kind: 'denied-by-rules', rules: [] };
}

/**
 * A question: a `user_input.requested`, which asks one question, its choices the text the user
 * picks (one of them, or free text). More questions, several answers or choices whose ids are
 * not their text are a loss; the first question is asked.
 */
function inputRequested(w: Writer, event: AgentEventOf<'question'>, tpl: JsonObject | undefined): string {
  const q = event.questions[0];
  if (q === undefined) {
    reportLoss(w[LOSS], event, 'question', `${FORMAT} asks no request without a question`);
    return '';
  }
  if (event.questions.length > 1 || q.multiple === true || q.options?.some((o) => o.id !== o.label) === true)
    reportLoss(
      w[LOSS],
      event,
      'question.questions',
      `${FORMAT} asks one question a request, its choices by their text, one answer`,
    );
  const choices = tpl?.choices;
  const data = dataWith(tpl, {
    requestId: event.question,
    question: q.text,
    choices: asRead(
      choices,
      Array.isArray(choices) ? choices.filter((c) => typeof c === 'string') : undefined,
      q.options?.map((o) => o.label),
    ),
    toolCallId: asRead(tpl?.toolCallId, str(tpl?.toolCallId), event.call),
  });
  return emit(w, 'user_input.requested', event, data);
}

// A kept field's value while the event says what the reader read from it (`read`: nothing of a
// value of another type, the texts of a list), else the event's.
function asRead(kept: unknown, read: unknown, value: unknown): unknown {
  return sameJson(read, value) ? kept : value;
}

/** An answer: a `user_input.completed`, which has one (the only question's). */
function inputCompleted(
  w: Writer,
  event: AgentEventOf<'question.answer'>,
  tpl: JsonObject | undefined,
): string {
  const answers = Object.values(event.answers);
  if (answers.length > 1)
    reportLoss(w[LOSS], event, 'question.answer.answers', `${FORMAT} answers a request with one answer`);
  const data = dataWith(tpl, {
    requestId: event.question,
    answer: answers[0],
  });
  return emit(w, 'user_input.completed', event, data);
}

/**
 * Another format's run starts after one that ended incomplete. Its turn still open (the round
 * never ended), its input goes out with `delivery: "idle"`: a reader ends a run whose turn is
 * open there as incomplete, and opens this one. Otherwise Copilot has no record to say the run
 * before was incomplete (a reader would take this run's records for its continuation, or end
 * it completed at the input): a loss on its status.
 */
function afterIncomplete(w: Writer, event: AgentEventOf<'run.start'>): string {
  const ended = w[INCOMPLETE_RUN] as AgentEvent;
  w[INCOMPLETE_RUN] = undefined;
  openRun(w);
  if (w[TURN] !== undefined && event.input !== undefined) {
    // The reader ends the open turn with the run.
    w[TURN] = undefined;
    w[USAGE_IN_TURN] = false;
    return emit(w, 'user.message', event, { content: event.input, delivery: 'idle' });
  }
  reportLoss(
    w[LOSS],
    ended,
    'run.end.status',
    `${FORMAT} has no record for an incomplete run whose turn ended: a reader takes the next run's records for its continuation or ends it completed`,
  );
  return event.input === undefined ? '' : emit(w, 'user.message', event, { content: event.input });
}

function runEnd(w: Writer, event: AgentEventOf<'run.end'>, tpl: JsonObject | undefined): string {
  const own = event.provenance?.format === FORMAT;
  // A message still open (Cursor's have no end but the run's) is written before the run's end:
  // a reader of the persisted log takes its answer from it (the deltas are ephemeral). Not where
  // the run was cut off: its message was cut too, and stays the deltas it got.
  const snapshots = own
    ? ''
    : (event.status === 'incomplete' ? '' : endOpenMessage(w, event)) + writeSnapshots(w, null);
  if (event.status === 'incomplete') {
    if (!own) w[INCOMPLETE_RUN] = event;
    closeRun(w);
    return snapshots;
  }
  // Right after a session.shutdown a completed run has ended already (a reader ends it there):
  // a session.idle would read as one more run.
  if (w[LAST_TYPE] === 'session.shutdown' && event.status === 'completed' && tpl === undefined) {
    if (!own) runTotal(w, event, false);
    endRunAndTurn(w);
    return snapshots;
  }
  // Read from Copilot, the run's total is the sum of its calls, written already.
  let text = own ? '' : snapshots + runTotal(w, event, true);
  // A failed run's error is said by a session.error before its idle: written here unless the one
  // written in the run said it already (read from Copilot, the line's template says the rest; an
  // edited error that differs from the one written still needs its own).
  const errorDiffers = event.error !== undefined && event.error !== w[RUN_ERROR];
  if (
    event.status === 'failed' &&
    (tpl === undefined
      ? w[RUN_ERROR] === undefined || errorDiffers
      : w[RUN_ERROR] !== undefined && errorDiffers)
  ) {
    const message = event.error ?? event.reason ?? 'the run failed';
    text += emit(w, 'session.error', { ...event }, { errorType: 'error', message });
  }
  w[RUN_ERROR] = undefined;
  endRunAndTurn(w);
  const data: JsonObject =
    tpl !== undefined ? { ...tpl } : event.status === 'cancelled' ? { aborted: true } : {};
  return text + emit(w, 'session.idle', event, data);
}

function unknownRecord(w: Writer, event: AgentEventOf<'unknown'>, own: boolean): string {
  const r = event.record;
  if (!own || !isJsonObject(r)) {
    reportLoss(w[LOSS], event, 'unknown', `${FORMAT} writes back only records read from ${FORMAT}`);
    return '';
  }
  w[LAST_TYPE] = undefined;
  if (typeof r.id === 'string') {
    w[LAST_ID] = r.id;
    w[LAST_QUOTED] = jsonString(r.id);
  }
  w[WROTE_ANY] = true;
  return `${rawIfSame(event.provenance?.hints?.raw, json(r, 'unknown.record'))}\n`;
}

/**
 * Writes one record's envelope around its data, in the order it came (or the SDK's): a record of
 * `type` for `event`, its `data` an object or JSON already (a template write: `JSON.stringify` of
 * the data exactly), `agent` the envelope's `agentId` (a child lane, or the child a subagent
 * record is about).
 */
function emit(
  w: Writer,
  type: CopilotRecordType,
  event: AgentEvent,
  data: JsonObject | string,
  agent?: string,
): string {
  const p = event.provenance;
  const own = p?.format === FORMAT;
  // Another format's first record: a session's start goes first, as Copilot writes a session.
  // Here, not at the first event: events that write nothing (a banner line's notice) before
  // the source's own session start must not make it a second one.
  // The data first: a value JSON cannot hold is refused before the session's start is written
  // and before an id is taken, which the refusal would take down with it.
  const dataText = typeof data === 'string' ? data : json(data, `${event.type}`);
  if (!w[WROTE_ANY] && !own && type !== 'session.start')
    return sessionStart(w, event, undefined) + emit(w, type, event, dataText, agent);
  const hints = own ? (p.hints as CopilotHints | undefined) : undefined;
  const env = copilotEnvelope(hints?.record);
  const kept = env !== undefined && env.type === type ? env : undefined;
  const id = kept !== undefined ? kept.id : newId(w);
  const parentId = kept !== undefined ? kept.parentId : w[LAST_ID];
  // A kept time the decoder read as none stays as read; one it read is the event's `ts`, and
  // taken out of the event it does not come back (the clock's time is written, as anew).
  const timeText =
    kept !== undefined &&
    (event.ts === undefined
      ? Number.isNaN(Date.parse(kept.timestamp))
      : Date.parse(kept.timestamp) === event.ts)
      ? jsonString(kept.timestamp)
      : w[TEMPLATES]
        ? quotedAt(w, event.ts)
        : jsonString(timestampOf(w, event.ts));
  const agentId =
    agent ?? (event.lane === undefined || type.startsWith('subagent.') ? undefined : event.lane);
  const ephemeral =
    kept !== undefined ? kept.ephemeral : COPILOT_EPHEMERAL_TYPES.has(type) ? true : undefined;
  // An id of the default source (a UUID) has nothing to escape. The previous record's quoted id
  // is this one's parentId: quoted once.
  const quotedId =
    w[TEMPLATES] && kept === undefined && w[OPTIONS].idSource === undefined ? `"${id}"` : jsonString(id);
  const quotedParent =
    parentId === null
      ? 'null'
      : parentId === w[LAST_ID]
        ? w[LAST_QUOTED] || jsonString(parentId)
        : jsonString(parentId);
  // Record types are plain words: nothing to escape.
  const typeText = w[TEMPLATES]
    ? `"type":"${type}","data":${dataText}`
    : `"type":${jsonString(type)},"data":${dataText}`;
  // COPILOT_ENVELOPE_KEYS, or COPILOT_DISK_KEYS for a record that came in the on-disk order.
  const text0 =
    kept?.layout === 'disk'
      ? `{${typeText},"id":${quotedId},"timestamp":${timeText},"parentId":${quotedParent}`
      : `{"id":${quotedId},"parentId":${quotedParent},"timestamp":${timeText},${typeText}`;
  const tail =
    (agentId === undefined ? '' : `,"agentId":${jsonString(agentId)}`) +
    (ephemeral === undefined
      ? ''
      : ephemeral === true
        ? ',"ephemeral":true'
        : `,"ephemeral":${json(ephemeral, 'ephemeral')}`);
  let text = `${text0}${tail}}`;
  if (kept?.extra !== undefined) text = extraLine(text, kept.extra, hints?.raw);
  else if (kept !== undefined && hints?.raw !== undefined) text = rawIfSame(hints.raw, text);
  w[LAST_ID] = id;
  w[LAST_QUOTED] = quotedId;
  w[WROTE_ANY] = true;
  w[LAST_TYPE] = type;
  return `${text}\n`;
}

/**
 * Whether an event read from Copilot that still says what its kept record says is written as
 * the kept line without rebuilding the record ({@link kept}). Off, the general path runs
 * (test/copilot/writer-kept.test.ts holds the two equal).
 */
export const COPILOT_KEPT_LINES: { enabled: boolean } = { enabled: true };

/**
 * One record of the main agent's or a lane's (no subagent record: its agentId is not the lane):
 * `dataWith(tpl, set)` written by `emit`, or the kept line when that would give it back
 * ({@link isKept}).
 */
function kept(
  w: Writer,
  type: CopilotRecordType,
  event: AgentEvent,
  tpl: JsonObject | undefined,
  set: JsonObject,
): string {
  if (tpl === undefined || !COPILOT_KEPT_LINES.enabled || !isKept(w, type, event, tpl, set))
    return emit(w, type, event, dataWith(tpl, set));
  const r = event.provenance!.hints!.record as JsonObject;
  w[LAST_ID] = r.id as string;
  // Quoted when a record written from the model names it as its parent (`emit`).
  w[LAST_QUOTED] = '';
  w[WROTE_ANY] = true;
  w[LAST_TYPE] = type;
  return `${event.provenance!.hints!.raw}\n`;
}

/**
 * The fast path: whether `emit` would give the kept line of an event read from Copilot back.
 * `dataWith` would rebuild the kept data (each value it puts back `sameAsKept` the kept one:
 * nothing is put back that the data does not hold); `emit` would write the record type, the
 * kept id, parent and timestamp (the event's `ts` is its time), the event's lane as its
 * `agentId`, the kept `ephemeral` and envelope fields of its own; every value is one
 * `JSON.stringify` gives back as it is (src/kept.ts). So its text would be JSON that says what
 * the line says, and `rawIfSame` would give the line back. It trusts the hints as the decoder
 * left them: `record` is what `raw` parses to.
 */
function isKept(
  w: Writer,
  type: CopilotRecordType,
  event: AgentEvent,
  tpl: JsonObject,
  set: JsonObject,
): boolean {
  // `tpl` is the data of the kept record (`copilotData`): its type, id and timestamp are strings.
  const hints = event.provenance?.hints as CopilotHints;
  const r = hints.record as JsonObject;
  const lane = event.lane;
  if (
    typeof hints.raw !== 'string' ||
    r.type !== type ||
    typeof r.parentId !== 'string' ||
    Array.isArray(tpl) ||
    lane !== r.agentId ||
    (lane !== undefined && typeof lane !== 'string')
  )
    return false;
  for (const k in set) if (!sameAsKept(set[k], tpl[k])) return false;
  const ts = event.ts;
  const time = r.timestamp as string;
  if (time !== w[KEPT_TIME]) {
    w[KEPT_MS] = Date.parse(time);
    w[KEPT_TIME] = time;
  }
  // No `ts` is the record's only where its time reads as none (else the time was taken out).
  if (ts === undefined ? !Number.isNaN(w[KEPT_MS]) : w[KEPT_MS] !== ts) return false;
  return isStableJson(r);
}

/**
 * The line of a record with the kept record's fields of its own (`extra`), written with them
 * ({@link withExtra}), the kept line while it says the same ({@link rawIfSame}). A field past a
 * double's range (`1e400`, read as Infinity) is refused there, not written as `null`: the kept
 * line is written instead while it says what the record and that field say.
 */
function extraLine(text: string, extra: Record<string, unknown>, raw: string | undefined): string {
  try {
    return rawIfSame(raw, withExtra(text, extra));
  } catch (error) {
    if (raw !== undefined && keptSays(raw, text, extra)) return raw;
    throw error;
  }
}

// Whether the kept line says what the record and its fields of its own say, a number past a
// double's range among them (which `JSON.stringify` writes as `null`, as `rawIfSame` expects).
function keptSays(raw: string, text: string, extra: Record<string, unknown>): boolean {
  const record = JSON.parse(text) as JsonObject;
  for (const key of Object.keys(extra)) setOwn(record, key, extra[key]);
  try {
    return rawIfSame(raw, JSON.stringify(record)) === raw;
  } catch {
    // (A value `JSON.stringify` throws for, a BigInt: no decoder keeps one; the refusal stands.)
    return false;
  }
}

// Envelope fields the model has no slot for, kept by the decoder: each after the record's own,
// refused as `joinRecord` refuses an extra field. (`text` is JSON as `JSON.stringify` writes it, so
// it is what parsing it and writing each value again gives: only its closing brace moves.)
function withExtra(text: string, extra: Record<string, unknown>): string {
  let out = text.slice(0, -1);
  for (const key of Object.keys(extra)) {
    const value = extra[key];
    assertEncodable(value, key, undefined, FORMAT);
    if (value !== undefined) out += `,${JSON.stringify(key)}:${json(value, 'extra')}`;
  }
  return `${out}}`;
}
