import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import { formatSseJsonEvent } from '../../framing/sse';
import {
  assertCallWritable,
  assertEncodable,
  assertFiniteNumber,
  assertText,
  assertTextList,
  assertTimeWritable,
  assertWireInteger,
  escapesNothing,
  formatInteger,
  integerDigits,
  isJsonObject,
  type JsonObject,
  jsonString,
  jsonText,
  refuseKind,
  refuseNonString,
  requireText,
  sameJson,
  unencodable,
  wrongType,
} from '../../json';
import { checkLoss, type LossState, newLoss, reportLoss } from '../../loss';
import type { AgentEvent, AgentEventOf, Usage } from '../../model';
import { joinRecord, quoteKey } from '../../record';
import { addExact } from '../../usage';
import {
  NH,
  NH_DEFAULTED_FIELDS,
  NH_EXTENSION_ABSENT,
  NH_EXTENSION_ENVELOPE,
  NH_EXTENSION_KEY,
  NH_EXTENSION_TYPE,
  NH_MAX_HOP_CALLS,
  NH_SSE_HEADS,
  NH_SSE_PLAIN_TYPES,
  type NhFraming,
  type NhHints,
  type NhSsePlainType,
  nhEnvelopeText,
  nhOutputPayload,
  nhProtocolVersion,
  nhSseEnvelope,
  nhSseNameWritable,
  nhSseRetry,
  nhSseToken,
  nhTokenHead,
  nhTokenPayload,
  nhTypeIds,
} from './wire';

/** Options of the nativeharness writer. */
export interface NhEncodeOptions extends EncodeOptions {
  /** `sse` (default), `json` (the `/events` array) or `jsonl` (the log file). */
  framing?: NhFraming;
  /** `workspace_id` for events without `workspace`. Default `"default"`. */
  workspace?: string;
  /** `session_id` for events without `session`. Default: from `idSource`. */
  session?: string;
  /** The `seq` of the first event that carries none. Default 1. */
  startSeq?: number;
  /** `ts` for events without one, ms since the epoch. Default `Date.now`. */
  clock?: () => number;
  /** Makes session and turn ids when none is given. Default `crypto.randomUUID()`. */
  idSource?: () => string;
  /**
   * Make a conforming session out of events from another format: a `session_created` first when
   * the events have none, a second session start reported as `loss` instead of written, and a
   * `tool_result` (status `error`) for every call still open when its turn's `done` comes.
   * `convert` and `agentwire serve` turn it on; events of this format are written as they are.
   */
  conform?: boolean;
  /** SSE only: a `retry` (ms) written before the first event. */
  retry?: number;
  /**
   * Carry what this format has no place for in agentwire's extension instead of reporting it as
   * `loss`: an event type without a nativeharness type as an `agentwire_event` envelope, other
   * fields (`lane`, `kind`, …) in an `agentwire` payload key (docs/protocols/nativeharness.md).
   * Other nativeharness readers skip the one and ignore the other. `agentwire serve` turns it on
   * so its viewer sees reasoning, lanes and notices.
   */
  extensions?: boolean;
}

const FORMAT = NH;
const encodeValue = (value: unknown): string => JSON.stringify(value);

function defaultId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID !== undefined) return c.randomUUID();
  return `nh-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

function fail(message: string): never {
  throw unencodable(message, FORMAT);
}

function str(value: unknown, field: string): string {
  if (typeof value !== 'string') throw wrongType(value, field, 'a string', FORMAT);
  return jsonString(value);
}

/**
 * `str` for long text (a message, a tool's output): `jsonText`, which escapes sparse text by
 * native searches and gives dense text (JSON a tool printed) to `JSON.stringify` itself.
 */
function long(value: unknown, field: string): string {
  if (typeof value !== 'string') throw wrongType(value, field, 'a string', FORMAT);
  return jsonText(value);
}

/**
 * The envelope's id fields as one piece of text, `,"workspace_id":…,"session_id":…,"turn_id":…,
 * "payload":`, remembered while the ids stay the same (every event of a turn). One flat piece
 * instead of six keeps the envelope a short concatenation: a sink flattens every piece of it.
 */
function envelopeIds(
  w: Writer,
  workspace: unknown,
  session: unknown,
  turn: unknown,
  eventType: string,
): string {
  // Never a hit before the first piece: the envelope's workspace and session are strings.
  if (workspace === w[IDS_WORKSPACE] && session === w[IDS_SESSION] && turn === w[IDS_TURN])
    return w[IDS_TEXT];
  // Joined, not concatenated: the piece is flat text once, not a tree walked on every event.
  const text = [
    ',"workspace_id":',
    str(workspace, `${eventType}.workspace`),
    ',"session_id":',
    str(session, `${eventType}.session`),
    ',"turn_id":',
    turn === undefined ? 'null' : str(turn, `${eventType}.run`),
    ',"payload":',
  ].join('');
  w[IDS_WORKSPACE] = workspace;
  w[IDS_SESSION] = session;
  w[IDS_TURN] = turn;
  w[IDS_TEXT] = text;
  return text;
}

// `formatInteger`, its digits spelled without the number-to-string cache (`integerDigits`).
function int(value: number, field: string): string {
  return typeof value === 'number' && Number.isSafeInteger(value)
    ? integerDigits(value)
    : formatInteger(value, field, FORMAT);
}

// A seq's digits: `integerDigits` for a safe integer (every seq but those counted on from a
// `startSeq` that is none), else what a template prints.
function seqDigits(seq: number): string {
  return Number.isSafeInteger(seq) ? integerDigits(seq) : String(seq);
}

// The open hop's number as written (every token and call of a hop has the same).
function hopText(w: Writer): string {
  const hop = w[HOP];
  if (hop === w[HOP_TEXT_OF]) return w[HOP_TEXT];
  const text = int(hop, 'round');
  w[HOP_TEXT_OF] = hop;
  w[HOP_TEXT] = text;
  return text;
}

function num(value: number, field: string): string {
  assertFiniteNumber(value, field, FORMAT);
  // JSON.stringify spells a finite number as String does, without the number-to-string cache.
  return JSON.stringify(value);
}

function strings(value: readonly string[], field: string): string {
  // (No list at all, from an event built by hand: refused, not a TypeError.)
  if (!Array.isArray(value)) throw wrongType(value, field, 'an array', FORMAT);
  // Most lists here are empty (a hop without calls, a result without changed files).
  if (value.length === 0) return '[]';
  // A loop, not `map` and `join`: no array per list, an entry's field named only to refuse it,
  // and no optimised `join` that meets `map`'s result of another map (a wrong-map deopt, once).
  let text = `[${str(value[0], `${field}[0]`)}`;
  for (let i = 1; i < value.length; i++) text += `,${str(value[i], `${field}[${i}]`)}`;
  return `${text}]`;
}

function json(value: unknown, field: string): string {
  assertEncodable(value, field, undefined, FORMAT);
  return JSON.stringify(value);
}

const ENVELOPE = ['seq', 'ts', 'workspace', 'session', 'run', 'round'];

/**
 * Whether the `hop`, `tool_started` and `tool_result` payloads without extra keys or another key
 * order are spelled from one template each instead of pieces joined by `joinRecord` (the same
 * text: test/nativeharness/writer-templates.test.ts turns this off to hold the two equal).
 */
export const NH_TEMPLATES: { enabled: boolean } = { enabled: true };

// Read-only stand-in for events without hints (one object, not one per event).
const NO_HINTS: Readonly<NhHints> = Object.freeze({});

// Fields each event type carries; anything else present is reported as a loss.
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'session.start': [...ENVELOPE, 'protocol', 'actor', 'mode', 'title', 'producer'],
  'session.title': [...ENVELOPE, 'title'],
  'run.start': [...ENVELOPE, 'input'],
  'run.end': [...ENVELOPE, 'status', 'stopReason', 'usage'],
  'round.start': ENVELOPE,
  'round.end': [...ENVELOPE, 'message', 'stopReason', 'usage'],
  'message.start': [...ENVELOPE, 'role'],
  'text.delta': [...ENVELOPE, 'text'],
  status: [...ENVELOPE, 'status', 'detail'],
  'tool.start': [...ENVELOPE, 'call', 'name', 'args', 'command', 'argsSummary'],
  'tool.output': [...ENVELOPE, 'call', 'stream', 'text'],
  'tool.end': [...ENVELOPE, 'call', 'name', 'ok', 'text', 'result', 'error', 'exitCode', 'filesChanged'],
  'approval.request': [...ENVELOPE, 'approval', 'call', 'tool', 'title', 'effects', 'options'],
  'approval.resolve': [...ENVELOPE, 'approval', 'decision', 'by', 'option'],
  question: [...ENVELOPE, 'question', 'questions'],
  'child.start': [...ENVELOPE, 'child', 'name', 'task'],
  'child.end': [...ENVELOPE, 'child', 'status', 'result'],
  'compaction.start': ENVELOPE,
  'compaction.end': [...ENVELOPE, 'tokensFreed'],
  error: [...ENVELOPE, 'message', 'fatal', 'code'],
  cancel: [...ENVELOPE, 'by'],
  unknown: [...ENVELOPE, 'record', 'recordType'],
};

// The canonical fields of an event its nativeharness type has no place for (undefined: none).
function extensionFields(event: AgentEvent, carried: readonly string[]): JsonObject | undefined {
  let out: JsonObject | undefined;
  for (const key of Object.keys(event)) {
    const value = (event as Record<string, unknown>)[key];
    if (value === undefined || NH_EXTENSION_ENVELOPE.has(key) || carried.includes(key)) continue;
    out ??= {};
    out[key] = value;
  }
  return out;
}

// Whether a decoded event's payload had the extension key (written back with its extra keys).
function hasExtension(hints: Readonly<Record<string, unknown>>): boolean {
  const extra = hints.payloadExtra;
  return isJsonObject(extra) && Object.hasOwn(extra, NH_EXTENSION_KEY);
}

/**
 * The writer's state ({@link newWriter}): an array of slots (the indices below), not a class
 * instance or a literal. An array's hidden class belongs to the realm and outlives every GC; a
 * class instance's, grown field by field in its constructor, dies with the last writer and takes
 * the per-event code that read it along (docs/performance.md, "nativeharness SSE decode, the
 * writers", round seven).
 */
type Writer = [
  options: NhEncodeOptions,
  framing: NhFraming,
  loss: LossState,
  lastSeq: number | undefined,
  // Events of one burst share their ms: its text is printed once.
  lastTs: number,
  lastTsText: string,
  workspace: string | undefined,
  session: string | undefined,
  turn: string | undefined,
  hop: number,
  calls: string[],
  sessionCreated: boolean,
  open: Map<string, AgentEventOf<'tool.start'>>,
  written: number,
  // The ids the envelope's id piece was built for, and the piece ({@link envelopeIds}).
  idsWorkspace: unknown,
  idsSession: unknown,
  idsTurn: unknown,
  idsText: string,
  // The usage of the hops written in the open turn, summed exactly in decimal (costs 0.1 + 0.2
  // are 0.3): the turn's total when its run.end has none (docs/model.md "Usage": the run total is
  // the sum of its rounds). A running sum per figure (undefined: no hop had it), held in slots:
  // a usage object grown key by key has hidden classes a full GC frees between streams.
  hopInput: number | undefined,
  hopOutput: number | undefined,
  hopCost: number | undefined,
  // conform: calls of an earlier turn that had not ended when it did (a background task whose
  // result lands in a later turn): their result has no tool_result (see `lateResult`).
  stale: Set<string> | undefined,
  // The last seq's digits (set with the envelope that took it).
  lastSeqText: string,
  // The hop number the hop text was spelled for, and the text ({@link hopText}).
  hopTextOf: number | undefined,
  hopText: string,
  // Per type of `plainFrame`, the ids piece its type-and-ids piece was built for, then that
  // piece ({@link typeIds}): two strings per type, '' before the first.
  typeIds: string[],
  // The ids piece and hop text the token head was built for, and the head ({@link bareToken}).
  tokenHeadIds: string,
  tokenHeadHop: string,
  tokenHead: string,
];

const OPTIONS = 0;
const FRAMING = 1;
const LOSS = 2;
const LAST_SEQ = 3;
const LAST_TS = 4;
const LAST_TS_TEXT = 5;
const WORKSPACE = 6;
const SESSION = 7;
const TURN = 8;
const HOP = 9;
const CALLS = 10;
const SESSION_CREATED = 11;
const OPEN = 12;
const WRITTEN = 13;
const IDS_WORKSPACE = 14;
const IDS_SESSION = 15;
const IDS_TURN = 16;
const IDS_TEXT = 17;
const HOP_INPUT = 18;
const HOP_OUTPUT = 19;
const HOP_COST = 20;
const STALE = 21;
const LAST_SEQ_TEXT = 22;
const HOP_TEXT_OF = 23;
const HOP_TEXT = 24;
const TYPE_IDS = 25;
const TOKEN_HEAD_IDS = 26;
const TOKEN_HEAD_HOP = 27;
const TOKEN_HEAD = 28;
/** Most calls remembered as ended with their turn; past it the oldest are forgotten. */
const MAX_STALE = 4096;

function newWriter(options: NhEncodeOptions, sink: DiagnosticSink): Writer {
  return [
    options,
    options.framing ?? 'sse',
    newLoss(FORMAT, sink),
    undefined,
    Number.NaN,
    '',
    undefined,
    undefined,
    undefined,
    1,
    [],
    false,
    new Map(),
    0,
    undefined,
    undefined,
    undefined,
    '',
    undefined,
    undefined,
    undefined,
    undefined,
    '',
    undefined,
    '',
    ['', '', '', '', '', '', '', '', '', ''],
    '',
    '',
    '',
  ];
}

/**
 * The nativeharness writer: canonical events → envelopes in SSE, JSON array or JSON Lines
 * framing. Deterministic (ids, `seq` and clock injectable); byte-exact for events decoded from
 * this format (synthetic events are skipped, unknown keys and key orders restored).
 */
export function createNhEncoder(options: NhEncodeOptions, sink: DiagnosticSink): Encoder {
  // A `retry` SSE cannot carry is refused here, not where the first block is framed: by then the
  // first write had taken its seq (and, conforming, made its session), and the refusal left the
  // writer past the event it refused.
  if (options.retry !== undefined && (options.framing ?? 'sse') === 'sse') nhSseRetry(options.retry);
  return new NhEncoder(newWriter(options, sink));
}

/**
 * The encoder: the writer's state in its element 0, `write` and `end` on the prototype (as the
 * Amp writer's). With no named property of its own, every encoder has the class's initial hidden
 * class, which the class holds: a caller's loop optimised around one encoder's `write` keeps its
 * code at the next encoder and across a full GC. A literal `{w, write, end}` made per encoder had
 * a hidden class the GC freed with the last encoder, and took `write` and the caller's loop with
 * it (docs/performance.md, "nativeharness writer", round sixteen); a closure per encoder is a new
 * call target each time.
 */
class NhEncoder implements Encoder {
  declare readonly 0: Writer;

  constructor(w: Writer) {
    (this as { 0: Writer })[0] = w;
  }

  write(event: AgentEvent): string {
    assertWritable(event);
    return writeEvent(this[0], event);
  }

  end(): string {
    return endWrite(this[0]);
  }
}

/**
 * The numbers nativeharness writes as integers (seq, non-negative; a round's number as the hop,
 * counts, exit codes), refused at the write's start when one cannot be written exactly (a fraction, one past
 * 2^53): thrown in the middle, the refusal took down what the write had done before it (the
 * session_created `conform` writes first, a seq taken, a turn id made). An event's round is
 * refused whatever its type: every event that names one sets the hop the next tokens and calls
 * are written with, which would refuse each of them in turn. Found by test/fuzz/refusal.test.ts.
 * Every field the payload reads, of the kind it reads it as (a text, a list, an object), is
 * refused here too, in the same switch; the envelope's ids and time by each writing function
 * ({@link assertIds}) (round thirty-six: the wrong-type sweep saw these once their refusal read
 * as every writer's; round thirty-seven: the wrong-shape property the rest).
 */
function assertWritable(event: AgentEvent): void {
  const type = event.type;
  if (event.seq !== undefined) assertSeq(event.seq, type);
  assertInteger(event.round, type, 'round');
  // Every field the payload of the event's type reads, in one switch (the frequent types first):
  // the payload is spelled after the write has said the event's losses and taken its round for
  // the hop (and a call for the hop's list), which a refusal there left behind. A field left out
  // by an event built by hand, or of another kind, is refused so (round thirty-seven: the
  // wrong-shape property, test/fuzz/wrong-shape.test.ts, found them).
  switch (type) {
    // (A text delta's text: by the functions that write it, `writeDelta` and `writeGeneral`,
    // where the event has one shape: read here, for the most frequent event, it cost a load of
    // every shape.)
    case 'tool.output':
      requireText(event.call, event, 'call', FORMAT);
      assertText(event.stream, event, 'stream', FORMAT);
      requireText(event.text, event, 'text', FORMAT);
      break;
    case 'tool.start':
      // Written after the call is kept for its hop's list (`writeStarted`).
      requireText(event.call, event, 'call', FORMAT);
      requireText(event.name, event, 'name', FORMAT);
      assertText(event.command, event, 'command', FORMAT);
      assertText(event.argsSummary, event, 'argsSummary', FORMAT);
      break;
    case 'tool.end':
      requireText(event.call, event, 'call', FORMAT);
      assertText(event.name, event, 'name', FORMAT);
      assertText(event.text, event, 'text', FORMAT);
      assertCount(event.exitCode, type, 'exitCode');
      if (event.filesChanged !== undefined)
        assertTextList(event.filesChanged, 'tool.end.filesChanged', FORMAT);
      break;
    case 'round.end':
      requireText(event.message, event, 'message', FORMAT);
      assertText(event.stopReason, event, 'stopReason', FORMAT);
      assertUsageWritable(event.usage, type);
      break;
    case 'run.end':
      requireText(event.status, event, 'status', FORMAT);
      assertText(event.stopReason, event, 'stopReason', FORMAT);
      assertUsageWritable(event.usage, type);
      break;
    case 'run.start':
      assertText(event.input, event, 'input', FORMAT);
      break;
    case 'session.start':
      assertText(event.actor, event, 'actor', FORMAT);
      assertText(event.mode, event, 'mode', FORMAT);
      assertText(event.title, event, 'title', FORMAT);
      assertText(event.producer, event, 'producer', FORMAT);
      break;
    case 'session.title':
      requireText(event.title, event, 'title', FORMAT);
      break;
    case 'status':
      requireText(event.status, event, 'status', FORMAT);
      assertText(event.detail, event, 'detail', FORMAT);
      break;
    case 'compaction.end':
      assertCount(event.tokensFreed, type, 'tokensFreed');
      break;
    case 'approval.request':
      requireText(event.approval, event, 'approval', FORMAT);
      assertText(event.call, event, 'call', FORMAT);
      assertText(event.tool, event, 'tool', FORMAT);
      assertText(event.title, event, 'title', FORMAT);
      if (event.effects !== undefined) assertTextList(event.effects, 'approval.request.effects', FORMAT);
      if (event.options !== undefined) assertChoices(event.options, 'approval.request.options', true);
      break;
    case 'approval.resolve':
      requireText(event.approval, event, 'approval', FORMAT);
      requireText(event.decision, event, 'decision', FORMAT);
      assertText(event.by, event, 'by', FORMAT);
      assertText(event.option, event, 'option', FORMAT);
      break;
    // A question's list is mapped after the writer changed: refused first.
    case 'question':
      requireText(event.question, event, 'question', FORMAT);
      if (!Array.isArray(event.questions)) refuseKind(event, 'questions', 'an array', FORMAT);
      assertQuestions(event.questions);
      break;
    case 'child.start':
      requireText(event.child, event, 'child', FORMAT);
      assertText(event.name, event, 'name', FORMAT);
      assertText(event.task, event, 'task', FORMAT);
      break;
    case 'child.end':
      requireText(event.child, event, 'child', FORMAT);
      requireText(event.status, event, 'status', FORMAT);
      assertText(event.result, event, 'result', FORMAT);
      break;
    case 'error':
      requireText(event.message, event, 'message', FORMAT);
      assertText(event.code, event, 'code', FORMAT);
      break;
    case 'cancel':
      assertText(event.by, event, 'by', FORMAT);
      break;
  }
}

// A number written as an integer that is none (a fraction, one past 2^53): what formatInteger
// throws where it is written, thrown first. (A value that is no number is another check's: an
// event's round of no number names no hop.)
function assertInteger(n: unknown, type: string, field: string): void {
  if (typeof n === 'number' && !Number.isSafeInteger(n)) formatInteger(n, `${type}.${field}`, FORMAT);
}

// {@link assertInteger} of a field always written when present (an exit code, a count): a value
// of no number (null, a string, a BigInt) is refused too, as formatInteger refuses it there.
function assertCount(n: unknown, type: string, field: string): void {
  if (n !== undefined && !(typeof n === 'number' && Number.isSafeInteger(n)))
    formatInteger(n as number, `${type}.${field}`, FORMAT);
}

// A usage's figures as `usage` writes them (its counts as integers, its cost a finite number),
// of an object: one of no object had its parts read off nothing, a TypeError.
function assertUsageWritable(usage: Usage | undefined, type: string): void {
  if (usage === undefined) return;
  if (typeof usage !== 'object' || usage === null)
    throw wrongType(usage, `${type}.usage`, 'an object', FORMAT);
  assertCount(usage.input, type, 'usage.input');
  assertCount(usage.output, type, 'usage.output');
  // (Named as where it is written, `usageFigures`: the message test/hostile pins.)
  if (usage.costUsd !== undefined) assertFiniteNumber(usage.costUsd, 'usage.costUsd', FORMAT);
}

// A list of choices (an approval's options, a question's): objects with an id and a label of
// text, and, for an approval's (`kind`), a kind of text when present.
function assertChoices(list: unknown, field: string, kind: boolean): void {
  if (!Array.isArray(list)) throw wrongType(list, field, 'an array', FORMAT);
  for (let i = 0; i < list.length; i++) {
    const o: unknown = list[i];
    const at = `${field}[${i}]`;
    if (typeof o !== 'object' || o === null) throw wrongType(o, at, 'an object', FORMAT);
    const { id, label } = o as { id?: unknown; label?: unknown };
    if (typeof id !== 'string') throw wrongType(id, `${at}.id`, 'a string', FORMAT);
    if (typeof label !== 'string') throw wrongType(label, `${at}.label`, 'a string', FORMAT);
    const k = (o as { kind?: unknown }).kind;
    if (kind && k !== undefined && typeof k !== 'string')
      throw wrongType(k, `${at}.kind`, 'a string', FORMAT);
  }
}

// A question's questions (an array): each an object with a text, an id of text when present, and
// its choices.
function assertQuestions(questions: readonly unknown[]): void {
  for (let i = 0; i < questions.length; i++) {
    const q: unknown = questions[i];
    const at = `question.questions[${i}]`;
    if (typeof q !== 'object' || q === null) throw wrongType(q, at, 'an object', FORMAT);
    const { id, text, options } = q as { id?: unknown; text?: unknown; options?: unknown };
    if (id !== undefined && typeof id !== 'string') throw wrongType(id, `${at}.id`, 'a string', FORMAT);
    if (typeof text !== 'string') throw wrongType(text, `${at}.text`, 'a string', FORMAT);
    if (options !== undefined) assertChoices(options, `${at}.options`, false);
  }
}

function writeEvent(w: Writer, event: AgentEvent): string {
  // A seq the envelope cannot take is refused before anything is reported, kept or written for
  // the event (its losses, its hop, its call, the seqs of what conform writes before it).
  if (event.seq !== undefined) assertSeqWritable(w, event, event.seq);
  if (event.type === 'unknown') assertUnknownWritable(w, event);
  else if (w[FRAMING] === 'sse') assertHintedSseWritable(event.provenance);
  // The frequent events, each type by a function of its own (`writeDelta` …): a stream's events
  // have one shape per type, and a field read in code that every type runs sees them all
  // (megamorphic); read in code of one type, it sees one. Each falls back to `writeGeneral` for
  // what it does not cover; NH_TEMPLATES off takes the general path for all.
  if (NH_TEMPLATES.enabled && w[OPTIONS].extensions !== true) {
    switch (event.type) {
      case 'text.delta':
        return writeDelta(w, event);
      case 'tool.output':
        return writeOutput(w, event);
      case 'tool.start':
        return writeStarted(w, event);
      case 'tool.end':
        return writeResult(w, event);
      case 'round.end':
        return writeHop(w, event);
      case 'message.start':
        return writeMessageStart(w, event);
    }
  }
  return writeGeneral(w, event);
}

/**
 * Whether an event of another format (`p` its provenance) is written by its type's own function:
 * nothing to restore from hints, and, under `conform`, nothing to add before it (the session is
 * created). `calls`: a tool call's start or end, which `conform` keeps track of.
 */
function plainEvent(w: Writer, p: AgentEvent['provenance'], calls: boolean): boolean {
  return p?.format !== FORMAT && (w[OPTIONS].conform !== true || (!calls && w[SESSION_CREATED]));
}

// What `writeOne` does for an event of another format, before its payload: the fields it has no
// place for reported, and the hop it names taken. `round`: the event's.
function plainHead(
  w: Writer,
  event: AgentEvent,
  carried: readonly string[],
  round: number | undefined,
): void {
  checkLoss(w[LOSS], event, carried);
  if (typeof round === 'number') w[HOP] = round;
}

const DELTA_CARRIED = CARRIED['text.delta']!;
const OUTPUT_CARRIED = CARRIED['tool.output']!;
const STARTED_CARRIED = CARRIED['tool.start']!;
const RESULT_CARRIED = CARRIED['tool.end']!;
const HOP_CARRIED = CARRIED['round.end']!;
const MESSAGE_CARRIED = CARRIED['message.start']!;

// A text delta of another format: a `token` (as `writeGeneral`).
function writeDelta(w: Writer, e: AgentEventOf<'text.delta'>): string {
  const p = e.provenance;
  if (!plainEvent(w, p, false)) return writeGeneral(w, e);
  assertIds(e);
  const t = e.text;
  // Escaped after its losses are said and its round taken for the hop: refused first.
  if (typeof t !== 'string') refuseNonString(e, 'text', FORMAT);
  const round = e.round;
  plainHead(w, e, DELTA_CARRIED, round);
  const hop = hopText(w);
  // Most deltas have nothing to escape: under SSE their block is a few pieces (`bareToken`).
  const bare = escapesNothing(t);
  const payload = bare ? '' : nhTokenPayload(hop, JSON.stringify(t));
  const turn = e.run ?? w[TURN];
  const time = envelopeHead(w, 'text.delta', e.seq, e.ts);
  const ids = envelopeRest(w, 'text.delta', time, e.workspace, e.session, turn);
  if (bare && sseBlock(w)) return bareToken(w, ids, hop, t);
  return plainFrame(w, TOKEN, ids, bare ? nhTokenPayload(hop, `"${t}"`) : payload);
}

// A token whose text has nothing to escape, as an SSE block (`sseBlock` said yes): the
// envelope's head up to the text's quote kept while the ids and the hop stay the same.
function bareToken(w: Writer, ids: string, hop: string, text: string): string {
  w[WRITTEN]++;
  if (ids !== w[TOKEN_HEAD_IDS] || hop !== w[TOKEN_HEAD_HOP]) {
    w[TOKEN_HEAD_IDS] = ids;
    w[TOKEN_HEAD_HOP] = hop;
    w[TOKEN_HEAD] = nhTokenHead(ids, hop);
  }
  return nhSseToken(w[LAST_SEQ_TEXT], w[LAST_TS_TEXT], NH_SSE_HEADS[TOKEN]!, w[TOKEN_HEAD], text);
}

// A tool's output of another format: an `output` (as `writeGeneral`).
function writeOutput(w: Writer, e: AgentEventOf<'tool.output'>): string {
  const p = e.provenance;
  if (!plainEvent(w, p, false)) return writeGeneral(w, e);
  assertIds(e);
  const round = e.round;
  plainHead(w, e, OUTPUT_CARRIED, round);
  const payload = nhOutputPayload(
    str(e.call, 'tool.output.call'),
    str(e.stream ?? 'stdout', 'tool.output.stream'),
    long(e.text, 'tool.output.text'),
  );
  const turn = e.run ?? w[TURN];
  const time = envelopeHead(w, 'tool.output', e.seq, e.ts);
  const ids = envelopeRest(w, 'tool.output', time, e.workspace, e.session, turn);
  return plainFrame(w, OUTPUT, ids, payload);
}

// A tool call's start of another format: a `tool_started` (as `writeGeneral`).
function writeStarted(w: Writer, e: AgentEventOf<'tool.start'>): string {
  const p = e.provenance;
  if (!plainEvent(w, p, true)) return writeGeneral(w, e);
  assertIds(e);
  assertCallWritable(e, FORMAT);
  const round = e.round;
  plainHead(w, e, STARTED_CARRIED, round);
  addCall(w, e.call);
  const payload = startedPayload(w, e, false);
  const turn = e.run ?? w[TURN];
  const time = envelopeHead(w, 'tool.start', e.seq, e.ts);
  const ids = envelopeRest(w, 'tool.start', time, e.workspace, e.session, turn);
  return plainFrame(w, TOOL_STARTED, ids, payload);
}

// A tool call's end of another format: a `tool_result` (as `writeGeneral`).
function writeResult(w: Writer, e: AgentEventOf<'tool.end'>): string {
  const p = e.provenance;
  if (!plainEvent(w, p, true)) return writeGeneral(w, e);
  assertIds(e);
  assertCallWritable(e, FORMAT);
  const round = e.round;
  plainHead(w, e, RESULT_CARRIED, round);
  const payload = resultPayload(w, e, e.ok ? 'ok' : 'error', undefined);
  const turn = e.run ?? w[TURN];
  const time = envelopeHead(w, 'tool.end', e.seq, e.ts);
  const ids = envelopeRest(w, 'tool.end', time, e.workspace, e.session, turn);
  return plainFrame(w, TOOL_RESULT, ids, payload);
}

// A round's end of another format: a `hop` (as `writeGeneral`).
function writeHop(w: Writer, e: AgentEventOf<'round.end'>): string {
  const p = e.provenance;
  if (!plainEvent(w, p, false)) return writeGeneral(w, e);
  assertIds(e);
  const round = e.round;
  plainHead(w, e, HOP_CARRIED, round);
  const payload = hopPayload(w, e, hopCalls(w, e), undefined);
  const usage = e.usage;
  if (usage !== undefined && usage.final !== false) addHop(w, usage);
  const turn = e.run ?? w[TURN];
  const time = envelopeHead(w, 'round.end', e.seq, e.ts);
  const ids = envelopeRest(w, 'round.end', time, e.workspace, e.session, turn);
  endHop(w, round);
  return plainFrame(w, HOP_TYPE, ids, payload);
}

// A message's start of another format: nothing written (as `writeGeneral`).
function writeMessageStart(w: Writer, e: AgentEventOf<'message.start'>): string {
  const p = e.provenance;
  if (!plainEvent(w, p, false)) return writeGeneral(w, e);
  // Refused as the general path refuses it (which may write the session's start with its ids).
  assertIds(e);
  plainHead(w, e, MESSAGE_CARRIED, e.round);
  return '';
}

/**
 * Refuses an event whose workspace, session or run (the envelope's ids, written as text by
 * `envelopeIds` after the seq is taken and the event's losses said) holds no string, or whose time
 * is no finite number ({@link assertTimeWritable}; printed there too). Asked first
 * in each writing function, where the event has one shape: asked for every event in
 * `assertWritable`, the three reads cost the writer a few per cent (docs/performance.md, round
 * thirty-six).
 */
function assertIds(e: AgentEvent): void {
  assertText(e.workspace, e, 'workspace', FORMAT);
  assertText(e.session, e, 'session', FORMAT);
  assertText(e.run, e, 'run', FORMAT);
  // And its time, printed after them (`timeText`): one of no finite number is refused with them.
  assertTimeWritable(e, FORMAT);
}

// Every event (the frequent ones when their own function does not cover them).
function writeGeneral(w: Writer, event: AgentEvent): string {
  assertCallWritable(event, FORMAT);
  // Each envelope field of the event is read once and handed on (see `writeEvent`).
  const type = event.type;
  const p = event.provenance;
  // A run end implied by a stream that stopped (docs/model.md "Run outcome") came from no record.
  if (type === 'run.end' && event.status === 'incomplete' && p?.synthetic) return '';
  assertIds(event);
  // (Asked for every other type by `assertWritable`.)
  if (type === 'text.delta') requireText(event.text, event, 'text', FORMAT);
  if (w[OPTIONS].conform !== true || p?.format === FORMAT) {
    if (type === 'session.start') w[SESSION_CREATED] = true;
    return writeOne(w, event, type, p);
  }
  // conform: events from another format are made into a conforming session: it starts with
  // one session_created, and a turn's calls all have a result before its done.
  let prefix = '';
  if (event.type === 'session.start') {
    if (w[SESSION_CREATED]) {
      reportLoss(
        w[LOSS],
        event,
        'session.start',
        'a session has one session_created; a second session start is not written',
      );
      return '';
    }
    w[SESSION_CREATED] = true;
  } else if (!w[SESSION_CREATED]) {
    w[SESSION_CREATED] = true;
    const start: AgentEventOf<'session.start'> = { type: 'session.start' };
    if (event.session !== undefined) start.session = event.session;
    if (event.workspace !== undefined) start.workspace = event.workspace;
    if (event.ts !== undefined) start.ts = event.ts;
    prefix = writeOne(w, start, start.type, start.provenance);
  }
  if (event.type === 'tool.start') w[OPEN].set(event.call, event);
  else if (event.type === 'tool.end') {
    if (!w[OPEN].delete(event.call) && w[STALE]?.delete(event.call) === true)
      return prefix + lateResult(w, event);
  } else if (event.type === 'run.start') {
    // Calls still open are those of a turn left without done (incomplete): that turn is over.
    for (const call of w[OPEN].keys()) stale(w, call);
    w[OPEN].clear();
  } else if (event.type === 'run.end') {
    for (const start of w[OPEN].values()) {
      const end: AgentEventOf<'tool.end'> = {
        type: 'tool.end',
        call: start.call,
        name: start.name,
        ok: false,
        error: `the call had not ended when its turn ended (${event.status})`,
      };
      if (start.round !== undefined) end.round = start.round;
      if (event.ts !== undefined) end.ts = event.ts;
      prefix += writeOne(w, end, end.type, end.provenance);
      stale(w, start.call);
    }
    w[OPEN].clear();
  }
  return prefix + writeOne(w, event, event.type, event.provenance);
}

// The calls of the hop `event` ends, as the writer saw them start: at most NH_MAX_HOP_CALLS.
function hopCalls(w: Writer, event: AgentEventOf<'round.end'>): string[] {
  const calls = w[CALLS];
  if (calls.length <= NH_MAX_HOP_CALLS) return calls;
  reportLoss(
    w[LOSS],
    event,
    'round.end.toolCalls',
    `the hop started more than ${NH_MAX_HOP_CALLS} tool calls: its tool_calls list the first ${NH_MAX_HOP_CALLS}`,
  );
  return calls.slice(0, NH_MAX_HOP_CALLS);
}

// Remembers a call whose turn ended before it did (conform).
function stale(w: Writer, call: string): void {
  const set = (w[STALE] ??= new Set());
  if (set.size >= MAX_STALE) set.delete(set.values().next().value!);
  set.add(call);
}

// The result of a call of an earlier turn (a background task's, landing in a later turn): a
// tool_result belongs to its call's turn, while the call runs, and that turn is over. Written
// in the current turn it would answer a call that is not running there: a loss instead.
function lateResult(w: Writer, event: AgentEventOf<'tool.end'>): string {
  reportLoss(
    w[LOSS],
    event,
    'tool.end',
    'the result of a call whose turn had already ended (a background task): a tool_result answers a running call of its own turn only',
  );
  return '';
}

function hopPiece(w: Writer): [string, string] {
  return ['hop', hopText(w)];
}

// `eventType` and `p`: the event's (read once, see `writeEvent`).
function writeOne(
  w: Writer,
  event: AgentEvent,
  eventType: AgentEvent['type'],
  p: AgentEvent['provenance'],
): string {
  const own = p?.format === FORMAT;
  if (own && p?.synthetic === true) return '';
  // A run that ended without its terminal record (docs/model.md "Run outcome"): the turn is
  // left without `done`, which is how a nativeharness log says it.
  if (eventType === 'run.end' && (event as AgentEventOf<'run.end'>).status === 'incomplete') {
    w[TURN] = undefined;
    clearHops(w);
    return '';
  }
  const carried = CARRIED[eventType];
  const hints: Readonly<NhHints> = own ? ((p?.hints as NhHints | undefined) ?? NO_HINTS) : NO_HINTS;
  if (carried === undefined && (hints.extensionEvent !== undefined || w[OPTIONS].extensions === true)) {
    return extensionEvent(w, event, hints);
  }
  // Fields the type has no place for travel in the extension key (written back from the
  // payload's extra keys for events of this format).
  let extension =
    carried !== undefined && w[OPTIONS].extensions === true && !own
      ? extensionFields(event, carried)
      : undefined;
  // tool_result has one output text: a JSON result beside a text goes in the extension.
  if (
    w[OPTIONS].extensions === true &&
    !own &&
    event.type === 'tool.end' &&
    event.text !== undefined &&
    event.result !== undefined
  ) {
    extension = { ...extension, result: event.result };
  }
  // A field the wire type requires but the event does not have is written as its default and
  // named in the extension, so the reader gives the event back without it.
  const defaulted = w[OPTIONS].extensions === true && !own ? NH_DEFAULTED_FIELDS[eventType] : undefined;
  if (defaulted !== undefined && (event as unknown as Record<string, unknown>)[defaulted[0]] === undefined) {
    extension = { ...extension, [NH_EXTENSION_ABSENT]: [defaulted[0]] };
  }
  // The extension is any field the type has no slot for, of any kind: refused here, before the
  // hop is taken, not where its JSON is made (a BigInt there, after the writer changed).
  if (extension !== undefined)
    assertEncodable(extension, `${eventType}.${NH_EXTENSION_KEY}`, undefined, FORMAT);
  // An event type with no counterpart is reported once as a whole, not field by field.
  if (carried !== undefined && extension === undefined && !hasExtension(hints)) {
    checkLoss(w[LOSS], event, carried);
  }
  const round = event.round;
  if (typeof round === 'number') w[HOP] = round;
  // The most frequent payloads, without extra keys or another key order to restore, are built
  // as one string: what joinRecord gives for the same pieces, without the piece arrays.
  const plain =
    hints.payloadExtra === undefined && hints.payloadOrder === undefined && extension === undefined;
  const template = plain && NH_TEMPLATES.enabled;
  let type: string;
  let pieces: Array<[string, string]> = [];
  let direct: string | undefined;
  switch (event.type) {
    case 'text.delta':
      type = 'token';
      if (plain) {
        direct = nhTokenPayload(hopText(w), str(event.text, 'text.delta.text'));
      } else pieces = [hopPiece(w), ['text', str(event.text, 'text.delta.text')]];
      break;
    case 'tool.start':
      addCall(w, event.call);
      type = 'tool_started';
      if (template) {
        direct = startedPayload(w, event, own);
        break;
      }
      pieces = [
        hopPiece(w),
        ['call_id', str(event.call, 'tool.start.call')],
        ['tool', str(event.name, 'tool.start.name')],
        ['args', json(event.args ?? {}, 'tool.start.args')],
      ];
      if (event.command !== undefined) pieces.push(['command', str(event.command, 'tool.start.command')]);
      // A summary that is only the arguments' compact JSON (HEP `events=full`) says nothing more.
      if (
        event.argsSummary !== undefined &&
        (own || event.args === undefined || event.argsSummary !== JSON.stringify(event.args))
      )
        pieces.push(['args_summary', str(event.argsSummary, 'tool.start.argsSummary')]);
      break;
    case 'tool.output':
      type = 'output';
      if (plain) {
        direct = nhOutputPayload(
          str(event.call, 'tool.output.call'),
          str(event.stream ?? 'stdout', 'tool.output.stream'),
          str(event.text, 'tool.output.text'),
        );
      } else {
        pieces = [
          ['call_id', str(event.call, 'tool.output.call')],
          ['stream', str(event.stream ?? 'stdout', 'tool.output.stream')],
          ['text', str(event.text, 'tool.output.text')],
        ];
      }
      break;
    case 'tool.end': {
      type = 'tool_result';
      const status = typeof hints.status === 'string' ? hints.status : event.ok ? 'ok' : 'error';
      if (template) {
        direct = resultPayload(w, event, status, extension);
        break;
      }
      pieces = [
        hopPiece(w),
        ['call_id', str(event.call, 'tool.end.call')],
        ['tool', str(event.name ?? '', 'tool.end.name')],
        ['status', str(status, 'tool.end.ok')],
        ['exit_code', event.exitCode === undefined ? 'null' : int(event.exitCode, 'tool.end.exitCode')],
        ['files_changed', strings(event.filesChanged ?? [], 'tool.end.filesChanged')],
      ];
      let output = event.text;
      if (output === undefined && event.result !== undefined) {
        output = typeof event.result === 'string' ? event.result : json(event.result, 'tool.end.result');
      } else if (event.result !== undefined && extension?.result === undefined) {
        reportLoss(
          w[LOSS],
          event,
          'tool.end.result',
          'tool_result carries one output text; the JSON result was not written',
        );
      }
      if (output !== undefined) pieces.push(['output', str(output, 'tool.end.text')]);
      if (event.error !== undefined && event.error !== null) {
        const error = typeof event.error === 'string' ? event.error : json(event.error, 'tool.end.error');
        pieces.push(['error', str(error, 'tool.end.error')]);
      }
      break;
    }
    case 'round.end': {
      type = 'hop';
      const calls = Array.isArray(hints.toolCalls) ? (hints.toolCalls as string[]) : hopCalls(w, event);
      if (template) direct = hopPayload(w, event, calls, hints.rawUsage);
      else {
        pieces = [
          hopPiece(w),
          ['text', str(event.message, 'round.end.message')],
          ['tool_calls', strings(calls, 'round.end.toolCalls')],
          ['stop_reason', str(event.stopReason ?? 'stop', 'round.end.stopReason')],
          ['usage', usageText(w, event, event.usage, hints.rawUsage)],
        ];
      }
      if (event.usage !== undefined && event.usage.final !== false) addHop(w, event.usage);
      break;
    }
    case 'message.start':
    case 'round.start':
      // Implied by the first token / tool call of a hop.
      return '';
    default:
      // The rare types, apart: the frequent ones' code (compiled again whenever its feedback
      // changes) holds only what they use.
      return writeRare(w, event, own, hints, extension);
  }
  const text = finish(
    w,
    event,
    eventType,
    own ? p : undefined,
    type,
    direct ?? piecesText(pieces, extension, hints),
  );
  if (eventType === 'round.end') endHop(w, round);
  return text;
}

// The `tool_started` payload from its template: the pieces `writeOne` joins otherwise, in their
// order, as one text (each value checked in the same order).
function startedPayload(w: Writer, e: AgentEventOf<'tool.start'>, own: boolean): string {
  let text = `{"hop":${hopText(w)},"call_id":${str(e.call, 'tool.start.call')},"tool":${str(e.name, 'tool.start.name')},"args":${e.args === undefined || e.args === null ? '{}' : json(e.args, 'tool.start.args')}`;
  if (e.command !== undefined) text += `,"command":${str(e.command, 'tool.start.command')}`;
  // A summary that is only the arguments' compact JSON (HEP `events=full`) says nothing more.
  if (
    e.argsSummary !== undefined &&
    (own || e.args === undefined || e.argsSummary !== JSON.stringify(e.args))
  )
    text += `,"args_summary":${str(e.argsSummary, 'tool.start.argsSummary')}`;
  return `${text}}`;
}

// The `tool_result` payload from its template (as `startedPayload`); `extension`: what the
// payload's extension key carries (the result beside a text, when it does).
function resultPayload(
  w: Writer,
  e: AgentEventOf<'tool.end'>,
  status: string,
  extension: JsonObject | undefined,
): string {
  let text = `{"hop":${hopText(w)},"call_id":${str(e.call, 'tool.end.call')},"tool":${str(e.name ?? '', 'tool.end.name')},"status":${str(status, 'tool.end.ok')},"exit_code":${e.exitCode === undefined ? 'null' : int(e.exitCode, 'tool.end.exitCode')},"files_changed":${strings(e.filesChanged ?? [], 'tool.end.filesChanged')}`;
  let output = e.text;
  if (output === undefined && e.result !== undefined) {
    output = typeof e.result === 'string' ? e.result : json(e.result, 'tool.end.result');
  } else if (e.result !== undefined && extension?.result === undefined) {
    reportLoss(
      w[LOSS],
      e,
      'tool.end.result',
      'tool_result carries one output text; the JSON result was not written',
    );
  }
  if (output !== undefined) text += `,"output":${long(output, 'tool.end.text')}`;
  if (e.error !== undefined && e.error !== null) {
    const error = typeof e.error === 'string' ? e.error : json(e.error, 'tool.end.error');
    text += `,"error":${str(error, 'tool.end.error')}`;
  }
  return `${text}}`;
}

// The `hop` payload from its template (as `startedPayload`); `raw`: the usage as read.
function hopPayload(w: Writer, e: AgentEventOf<'round.end'>, calls: string[], raw: unknown): string {
  return `{"hop":${hopText(w)},"text":${long(e.message, 'round.end.message')},"tool_calls":${strings(calls, 'round.end.toolCalls')},"stop_reason":${str(e.stopReason ?? 'stop', 'round.end.stopReason')},"usage":${usageText(w, e, e.usage, raw)}}`;
}

// The event types other than the frequent ones of `writeOne` (which passes what it read).
function writeRare(
  w: Writer,
  event: AgentEvent,
  own: boolean,
  hints: Readonly<NhHints>,
  extension: JsonObject | undefined,
): string {
  let type: string;
  let pieces: Array<[string, string]> = [];
  switch (event.type) {
    case 'session.start': {
      const v = nhProtocolVersion(event.protocol, own);
      type = 'session_created';
      pieces = [
        ['v', formatInteger(v, 'session.start.protocol', FORMAT)],
        ['actor', str(event.actor ?? 'user', 'session.start.actor')],
        ['mode', str(event.mode ?? 'default', 'session.start.mode')],
      ];
      if (event.title !== undefined) pieces.push(['title', str(event.title, 'session.start.title')]);
      if (event.producer !== undefined)
        pieces.push(['producer', str(event.producer, 'session.start.producer')]);
      break;
    }
    case 'session.title':
      type = 'title';
      pieces = [['title', str(event.title, 'session.title.title')]];
      break;
    case 'run.start':
      w[TURN] = event.run ?? (w[OPTIONS].idSource ?? defaultId)();
      if (event.round === undefined) w[HOP] = 1;
      w[CALLS] = [];
      clearHops(w);
      type = 'turn_started';
      pieces = [['input', str(event.input ?? '', 'run.start.input')]];
      break;
    case 'status':
      type = 'progress';
      pieces = [['status', str(event.status, 'status.status')]];
      if (event.detail !== undefined) pieces.push(['detail', str(event.detail, 'status.detail')]);
      break;
    case 'compaction.start':
      type = 'progress';
      pieces = [['status', '"compacting"']];
      break;
    case 'approval.request': {
      type = 'approval_required';
      pieces = [['approval_id', str(event.approval, 'approval.request.approval')]];
      if (event.call !== undefined) pieces.push(['call_id', str(event.call, 'approval.request.call')]);
      const options =
        hints.rawOptions !== undefined
          ? json(hints.rawOptions, 'approval.request.options')
          : `[${(event.options ?? [])
              .map((o, i) =>
                joinRecord(
                  [
                    ['option_id', str(o.id, `approval.request.options[${i}].id`)],
                    ['label', str(o.label, `approval.request.options[${i}].label`)],
                    [
                      'kind',
                      str(o.kind ?? (/^(reject|deny|no)/i.test(o.id) ? 'reject_once' : 'allow_once'), 'kind'),
                    ],
                  ],
                  undefined,
                  encodeValue,
                  FORMAT,
                ),
              )
              .join(',')}]`;
      pieces.push(
        ['tool', str(event.tool ?? '', 'approval.request.tool')],
        ['title', str(event.title ?? '', 'approval.request.title')],
        ['effects', strings(event.effects ?? [], 'approval.request.effects')],
        ['options', options],
      );
      break;
    }
    case 'approval.resolve':
      type = 'approval_resolved';
      pieces = [
        ['approval_id', str(event.approval, 'approval.resolve.approval')],
        ['decision', str(event.decision, 'approval.resolve.decision')],
        ['by', str(event.by ?? 'user', 'approval.resolve.by')],
      ];
      if (event.option !== undefined)
        pieces.push(['option_id', str(event.option, 'approval.resolve.option')]);
      break;
    case 'question': {
      type = 'ask_user';
      const questions =
        hints.rawQuestions !== undefined
          ? json(hints.rawQuestions, 'question.questions')
          : `[${event.questions
              .map((q, i) => {
                const qp: Array<[string, string]> = [
                  ['id', str(q.id ?? `q${i + 1}`, `question.questions[${i}].id`)],
                  ['text', str(q.text, `question.questions[${i}].text`)],
                ];
                if (q.options !== undefined) {
                  const opts = q.options.map((o) =>
                    joinRecord(
                      [
                        ['option_id', str(o.id, 'question option id')],
                        ['label', str(o.label, 'question option label')],
                      ],
                      undefined,
                      encodeValue,
                      FORMAT,
                    ),
                  );
                  qp.push(['options', `[${opts.join(',')}]`]);
                }
                if (q.multiple !== undefined) qp.push(['multiple', q.multiple ? 'true' : 'false']);
                return joinRecord(qp, undefined, encodeValue, FORMAT);
              })
              .join(',')}]`;
      pieces = [
        ['question_id', str(event.question, 'question.question')],
        ['questions', questions],
      ];
      break;
    }
    case 'child.start':
      type = 'child_started';
      pieces = [['child_id', str(event.child, 'child.start.child')]];
      if (event.name !== undefined) pieces.push(['name', str(event.name, 'child.start.name')]);
      pieces.push(['task', str(event.task ?? '', 'child.start.task')]);
      break;
    case 'child.end':
      type = 'child_done';
      // child_done has no `incomplete` (a child cut off, or still suspended): as `done`, the
      // nearest word it has, reported.
      if (event.status === 'incomplete')
        reportLoss(
          w[LOSS],
          event,
          'child.end.status',
          'child_done has no incomplete status: written as failed',
        );
      pieces = [
        ['child_id', str(event.child, 'child.end.child')],
        ['status', str(event.status === 'incomplete' ? 'failed' : event.status, 'child.end.status')],
      ];
      if (event.result !== undefined) pieces.push(['result', str(event.result, 'child.end.result')]);
      break;
    case 'compaction.end':
      type = 'compacted';
      pieces = [
        ['tokens_freed', formatInteger(event.tokensFreed ?? 0, 'compaction.end.tokensFreed', FORMAT)],
      ];
      break;
    case 'error':
      type = 'error';
      pieces = [
        ['message', str(event.message, 'error.message')],
        ['recoverable', event.fatal ? 'false' : 'true'],
      ];
      if (event.code !== undefined) pieces.push(['code', str(event.code, 'error.code')]);
      break;
    case 'cancel':
      type = 'cancelled';
      pieces = [['by', str(event.by ?? 'user', 'cancel.by')]];
      break;
    case 'run.end':
      type = 'done';
      if (event.answer !== undefined && extension === undefined) {
        reportLoss(w[LOSS], event, 'run.end.answer', 'done carries no answer (the text is in the hops)');
      }
      // done has no `incomplete` (a run the stream left open): the nearest word it has, and
      // the stop reason says which it was.
      if (event.status === 'incomplete')
        reportLoss(w[LOSS], event, 'run.end.status', 'done has no incomplete status: written as failed');
      pieces = [
        ['status', str(event.status === 'incomplete' ? 'failed' : event.status, 'run.end.status')],
        [
          'stop_reason',
          str(
            event.stopReason ?? (event.status === 'completed' ? 'stop' : event.status),
            'run.end.stopReason',
          ),
        ],
        ['usage', turnUsageText(w, event, hints.rawUsage)],
      ];
      clearHops(w);
      break;
    case 'unknown':
      return unknownRecord(w, event);
    default:
      reportLoss(w[LOSS], event, event.type, `nativeharness has no event for ${event.type}`);
      return '';
  }
  return finish(
    w,
    event,
    event.type,
    own ? event.provenance : undefined,
    type,
    piecesText(pieces, extension, hints),
  );
}

// A payload's pieces joined, with the extension or the extra keys and key order the hints kept.
function piecesText(
  pieces: Array<[string, string]>,
  extension: JsonObject | undefined,
  hints: Readonly<NhHints>,
): string {
  return joinRecord(
    pieces,
    {
      extra: extension !== undefined ? { [NH_EXTENSION_KEY]: extension } : hints.payloadExtra,
      order: hints.payloadOrder,
    },
    encodeValue,
    FORMAT,
  );
}

// The envelope and framing around a payload's text (`eventType`: the event's). `kept`: the
// event's provenance when the event is of this format (its hints and key order are restored),
// else undefined. A hop's end is the caller's (`endHop`, after this).
function finish(
  w: Writer,
  event: AgentEvent,
  eventType: AgentEvent['type'],
  kept: AgentEvent['provenance'],
  type: string,
  payload: string,
): string {
  const hints: Readonly<NhHints> =
    kept === undefined ? NO_HINTS : ((kept.hints as NhHints | undefined) ?? NO_HINTS);
  const sessionLevel = type === 'session_created' || type === 'title';
  const turn = event.run ?? (sessionLevel || hints.turnNull === true ? undefined : w[TURN]);
  const text =
    kept === undefined || (kept.extra === undefined && kept.order === undefined)
      ? eventEnvelope(w, event, eventType, quoteKey(type), turn, payload)
      : keptEnvelope(w, event, kept, type, turn, payload);
  if (eventType === 'run.end') w[TURN] = undefined;
  return frame(w, type, text, hints, true);
}

// A call of the hop noted. One past the bound is kept, so the hop's end can tell a full list from
// a cut one. The first is a new array of it, not a push onto the empty `[]` the hop starts with:
// that push changes the array's elements kind, and an optimised push that had met only arrays
// of the kind after it deoptimized ("not a Smi") once, late (as the AG-UI writer's, round
// thirty-four).
function addCall(w: Writer, call: string): void {
  const calls = w[CALLS];
  if (calls.length === 0) w[CALLS] = [call];
  else if (calls.length <= NH_MAX_HOP_CALLS) calls.push(call);
}

// A hop written: its calls forgotten, and the next hop's number counted on unless the event named
// its round.
function endHop(w: Writer, round: number | undefined): void {
  w[CALLS] = [];
  if (round === undefined) w[HOP]++;
}

function endWrite(w: Writer): string {
  if (w[FRAMING] !== 'json') return '';
  return w[WRITTEN] === 0 ? '[]\n' : '\n]\n';
}

// Token counts the wire usage has no key for (`input` and `output` include them).
const USAGE_PARTS = ['cacheRead', 'cacheWrite', 'reasoning'] as const;

function usageText(w: Writer, event: AgentEvent, usage: Usage | undefined, raw: unknown): string {
  if (raw !== undefined) return json(raw, 'usage');
  if (usage !== undefined) reportUsageParts(w, event, usage);
  return usageFigures(usage?.input ?? 0, usage?.output ?? 0, usage?.costUsd ?? 0);
}

function reportUsageParts(w: Writer, event: AgentEvent, usage: Usage): void {
  for (const key of USAGE_PARTS) {
    if (usage[key] !== undefined) {
      reportLoss(
        w[LOSS],
        event,
        `${event.type}.usage.${key}`,
        `usage has input_tokens, output_tokens and cost_usd only: ${key} is not written (it stays counted in ${key === 'reasoning' ? 'output' : 'input'}_tokens)`,
      );
    }
  }
}

// What `joinRecord` gives for these three pieces (no extra keys, no other order), as one text.
function usageFigures(input: number, output: number, costUsd: number): string {
  return `{"input_tokens":${int(input, 'usage.input')},"output_tokens":${int(output, 'usage.output')},"cost_usd":${num(costUsd, 'usage.costUsd')}}`;
}

// `done`'s usage: the run.end's own figures, each one it lacks (all three, when it has no usage)
// the sum of the hops written. A figure neither has is written as 0.
function turnUsageText(w: Writer, event: AgentEventOf<'run.end'>, raw: unknown): string {
  if (raw !== undefined) return json(raw, 'usage');
  const total = event.usage;
  if (total !== undefined) reportUsageParts(w, event, total);
  const input = total !== undefined && total.input !== undefined ? total.input : w[HOP_INPUT];
  const output = total !== undefined && total.output !== undefined ? total.output : w[HOP_OUTPUT];
  const cost = total !== undefined && total.costUsd !== undefined ? total.costUsd : w[HOP_COST];
  return usageFigures(input ?? 0, output ?? 0, cost ?? 0);
}

// Adds one hop's counts and cost to the turn's sums, exactly (a figure no hop had stays
// undefined). The three figures the wire has: cache and reasoning counts were reported on their
// hop.
function addHop(w: Writer, u: Usage): void {
  if (u.input !== undefined) w[HOP_INPUT] = addExact(w[HOP_INPUT] ?? 0, u.input);
  if (u.output !== undefined) w[HOP_OUTPUT] = addExact(w[HOP_OUTPUT] ?? 0, u.output);
  if (u.costUsd !== undefined) w[HOP_COST] = addExact(w[HOP_COST] ?? 0, u.costUsd);
}

function clearHops(w: Writer): void {
  w[HOP_INPUT] = undefined;
  w[HOP_OUTPUT] = undefined;
  w[HOP_COST] = undefined;
}

/**
 * Refuses a seq the envelope's reader takes not (none but a non-negative safe integer: a negative
 * one was written, and read back as the record's bare `seq: Invalid input`).
 */
function assertSeq(seq: number, type: string): void {
  if (!Number.isSafeInteger(seq) || seq < 0)
    assertWireInteger(seq, `${type}.seq`, "nativeharness's seq", FORMAT, true);
}

/**
 * Throws now what {@link nextSeq} would throw for the event's own `seq` once the write reaches its
 * envelope: a seq the reader takes not, or one not above the last seq taken, counting the
 * envelopes `conform` writes before the event's (the session's start, the turn's open calls'
 * results). Nothing for an event that takes no seq of its own (written as nothing, or an unknown
 * record, which takes its record's).
 */
function assertSeqWritable(w: Writer, event: AgentEvent, seq: number): void {
  const type = event.type;
  const p = event.provenance;
  const own = p?.format === FORMAT;
  if (
    (own && p.synthetic === true) ||
    type === 'unknown' ||
    (type === 'run.end' && event.status === 'incomplete') ||
    (CARRIED[type] === undefined && w[OPTIONS].extensions !== true)
  )
    return;
  let before = 0;
  if (w[OPTIONS].conform === true && !own) {
    if (type === 'session.start') {
      if (w[SESSION_CREATED]) return;
    } else if (!w[SESSION_CREATED]) before++;
    if (type === 'run.end') before += w[OPEN].size;
    else if (type === 'tool.end' && !w[OPEN].has(event.call) && w[STALE]?.has(event.call) === true) return;
  }
  assertSeq(seq, type);
  const last = w[LAST_SEQ];
  // The last seq taken before the event's: the previous one, or the last of those conform
  // writes first (each the one after).
  const previous =
    before === 0 ? last : (last === undefined ? (w[OPTIONS].startSeq ?? 1) : last + 1) + before - 1;
  if (previous !== undefined && seq <= previous) fail(seqNotAbove(type, seq, previous));
}

function seqNotAbove(type: string, seq: number, previous: number): string {
  return `${type}.seq: seq ${seq} is not above the previous seq ${previous}; seq must increase strictly`;
}

function nextSeq(w: Writer, seq: number | undefined, type: string): number {
  if (seq !== undefined) assertNextSeq(w, seq, type);
  else seq = w[LAST_SEQ] === undefined ? (w[OPTIONS].startSeq ?? 1) : w[LAST_SEQ] + 1;
  w[LAST_SEQ] = seq;
  return seq;
}

// Refuses a seq the envelope cannot take next: one the reader takes not, or not above the last.
function assertNextSeq(w: Writer, seq: number, type: string): void {
  assertSeq(seq, type);
  if (w[LAST_SEQ] !== undefined && seq <= w[LAST_SEQ]) fail(seqNotAbove(type, seq, w[LAST_SEQ]));
}

/**
 * Throws now what {@link unknownRecord} would throw for a record of this format's: its seq (the
 * record's own, which it takes) and a value JSON cannot hold. Found after the event's losses were
 * reported and its hop taken, the refusal left them behind.
 */
function assertUnknownWritable(w: Writer, event: AgentEventOf<'unknown'>): void {
  const r = event.record;
  const p = event.provenance;
  if (p?.format !== FORMAT || p.synthetic === true || !isJsonObject(r) || typeof r.type !== 'string') return;
  const seq = r.seq;
  if (typeof seq === 'number') assertNextSeq(w, seq, 'unknown.record');
  // A seq of another type is replaced by one counted on (`unknownRecord`).
  assertEncodable(
    seq === undefined || typeof seq === 'number' ? r : { ...r, seq: 0 },
    'unknown.record',
    undefined,
    FORMAT,
  );
  // Under SSE the record's type (read from the record: any string) names its event (`frame`).
  if (w[FRAMING] === 'sse') assertSseNamesWritable((p.hints as NhHints | undefined) ?? NO_HINTS, r.type);
}

/**
 * Throws now what {@link frame} would throw, under SSE, for an event of this format whose hints
 * keep the SSE id or event name it was read with (hand-edited to hold CR, LF or NUL): found
 * there, the refusal came after the write had taken its seq, said its losses and taken its
 * round for the hop. (An event's own type names it otherwise: one of this format's, always
 * writable.)
 */
function assertHintedSseWritable(p: AgentEvent['provenance']): void {
  if (p?.format !== FORMAT || p.synthetic === true || p.hints === undefined) return;
  assertSseNamesWritable(p.hints as NhHints, '');
}

/**
 * Refuses the SSE id and event name {@link frame} writes for a record framed with `hints`
 * (`type`: the name it has when the hints keep none) when one holds CR, LF or NUL. The names are
 * checked, not formatted: only names that fail are formatted, for the formatter's own refusal.
 * (The id a seq's digits make is always writable: `'0'` stands for it.)
 */
function assertSseNamesWritable(hints: Readonly<NhHints>, type: string): void {
  const id = sseIdOf(hints, '0');
  const name = sseEventOf(hints, type);
  if ((id !== undefined && !nhSseNameWritable(id)) || (name !== undefined && !nhSseNameWritable(name)))
    formatSseJsonEvent(id, name, '');
}

// The usual envelope of `event` (its seq, ts, workspace and session read here). Its seq is then
// `w[LAST_SEQ]`, its digits `w[LAST_SEQ_TEXT]` (no `{seq, text}` object per event).
function eventEnvelope(
  w: Writer,
  event: AgentEvent,
  eventType: AgentEvent['type'],
  quoted: string,
  turn: string | undefined,
  payload: string,
): string {
  const time = envelopeHead(w, eventType, event.seq, event.ts);
  return plainEnvelope(
    w,
    quoted,
    envelopeRest(w, eventType, time, event.workspace, event.session, turn),
    payload,
  );
}

// The envelope of an event of this format whose provenance (`p`) kept extra keys or another key
// order: joined with them.
function keptEnvelope(
  w: Writer,
  event: AgentEvent,
  p: NonNullable<AgentEvent['provenance']>,
  type: string,
  turn: string | undefined,
  payload: string,
): string {
  const seqText = nextSeqText(w, event.seq, event.type);
  const ts = envelopeTs(w, event.ts);
  const workspace = envelopeWorkspace(w, event.workspace);
  const session = envelopeSession(w, event.session);
  return joinRecord(
    [
      ['seq', seqText],
      ['ts', num(ts, `${event.type}.ts`)],
      ['type', jsonString(type)],
      ['workspace_id', str(workspace, `${event.type}.workspace`)],
      ['session_id', str(session, `${event.type}.session`)],
      ['turn_id', turn === undefined ? 'null' : str(turn, `${event.type}.run`)],
      ['payload', payload],
    ],
    { extra: p.extra, order: p.order },
    encodeValue,
    FORMAT,
  );
}

/*
 * The usual envelope is built in three steps, each of few arguments and none allocating: the seq
 * and time (`envelopeHead`), the ids piece (`envelopeRest`), then the text (`plainEnvelope`).
 * The callers read the event's fields themselves and hand them on (see `writeEvent`).
 */

// The envelope's seq taken (`nextSeqText`: its digits are then `w[LAST_SEQ_TEXT]`), and its
// time: the event's, else the clock's.
function envelopeHead(w: Writer, eventType: string, seq: number | undefined, ts: number | undefined): number {
  nextSeqText(w, seq, eventType);
  return envelopeTs(w, ts);
}

// The envelope's workspace and session (each the event's, else the stream's), its time's text
// (`timeText`: then `w[LAST_TS_TEXT]`) and its ids piece (`envelopeIds`), in this order.
function envelopeRest(
  w: Writer,
  eventType: string,
  time: number,
  workspace: string | undefined,
  session: string | undefined,
  turn: string | undefined,
): string {
  const ws = envelopeWorkspace(w, workspace);
  const se = envelopeSession(w, session);
  timeText(w, time, eventType);
  return envelopeIds(w, ws, se, turn, eventType);
}

/**
 * The usual envelope, in the pinned key order, built as one string (what joinRecord would give
 * for these pieces without extra keys or another order), after {@link envelopeHead} and
 * {@link envelopeRest}: `quoted` is the type as JSON, `ids` envelopeRest's piece.
 */
function plainEnvelope(w: Writer, quoted: string, ids: string, payload: string): string {
  return nhEnvelopeText(w[LAST_SEQ_TEXT], w[LAST_TS_TEXT], quoted, ids, payload);
}

// The writer's types framed by `plainFrame`, as indices of NH_SSE_PLAIN_TYPES.
const TOKEN = 0;
const OUTPUT = 1;
const TOOL_STARTED = 2;
const TOOL_RESULT = 3;
const HOP_TYPE = 4;

/**
 * The usual envelope of a type of NH_SSE_PLAIN_TYPES (`t`) and its framing, after
 * {@link envelopeHead} and {@link envelopeRest}: what `plainEnvelope` then `frame` give for it.
 * An SSE block (all but the first when a `retry` goes before it) is built as one rope of few
 * pieces (`nhSseEnvelope`), which the sink flattens at a cost per piece; other framings as
 * `frame` frames them.
 */
function plainFrame(w: Writer, t: NhSsePlainType, ids: string, payload: string): string {
  if (sseBlock(w)) {
    w[WRITTEN]++;
    return nhSseEnvelope(w[LAST_SEQ_TEXT], w[LAST_TS_TEXT], NH_SSE_HEADS[t]!, typeIds(w, t, ids), payload);
  }
  return frame(w, NH_SSE_PLAIN_TYPES[t], plainEnvelope(w, QUOTED_TYPES[t]!, ids, payload), NO_HINTS, true);
}

// The types of NH_SSE_PLAIN_TYPES as JSON strings.
const QUOTED_TYPES = NH_SSE_PLAIN_TYPES.map((t) => `"${t}"`);

// Whether the next event is framed as an SSE block with nothing before it (`frame`'s usual case:
// SSE, and not the first block when a `retry` goes first).
function sseBlock(w: Writer): boolean {
  return w[FRAMING] === 'sse' && (w[WRITTEN] > 0 || w[OPTIONS].retry === undefined);
}

// The envelope's `,"type":…` and ids piece for type `t` (`nhTypeIds`), kept per type while the
// ids piece is the same string (`envelopeIds` keeps it while the ids stay the same).
function typeIds(w: Writer, t: NhSsePlainType, ids: string): string {
  const kept = w[TYPE_IDS];
  const at = 2 * t;
  if (kept[at] === ids) return kept[at + 1]!;
  const text = nhTypeIds(t, ids);
  kept[at] = ids;
  kept[at + 1] = text;
  return text;
}

// The envelope's seq (`nextSeq`) as digits, kept as the last seq's.
function nextSeqText(w: Writer, seq: number | undefined, eventType: string): string {
  const text = seqDigits(nextSeq(w, seq, eventType));
  w[LAST_SEQ_TEXT] = text;
  return text;
}

function envelopeTs(w: Writer, ts: number | undefined): number {
  return ts ?? (w[OPTIONS].clock ?? Date.now)();
}

// The event's workspace, else the last one, else the option's: the stream's from then on.
function envelopeWorkspace(w: Writer, workspace: string | undefined): string {
  const ws = workspace ?? w[WORKSPACE] ?? w[OPTIONS].workspace ?? 'default';
  w[WORKSPACE] = ws;
  return ws;
}

// The event's session, else the last one, else the option's or a new id (as the workspace).
function envelopeSession(w: Writer, session: string | undefined): string {
  const se = session ?? w[SESSION] ?? w[OPTIONS].session ?? (w[OPTIONS].idSource ?? defaultId)();
  w[SESSION] = se;
  return se;
}

// Events of one burst share their ms (a clock's, mostly): print it once.
function timeText(w: Writer, ts: number, eventType: string): string {
  if (ts === w[LAST_TS]) return w[LAST_TS_TEXT];
  const text = Number.isSafeInteger(ts) ? integerDigits(ts) : num(ts, `${eventType}.ts`);
  w[LAST_TS] = ts;
  w[LAST_TS_TEXT] = text;
  return text;
}

// An event type this format has no type for, whole in an `agentwire_event` envelope.
function extensionEvent(w: Writer, event: AgentEvent, hints: Readonly<Record<string, unknown>>): string {
  const inner: Record<string, unknown> = {};
  for (const key of Object.keys(event)) {
    const value = (event as Record<string, unknown>)[key];
    if (value !== undefined && (key === 'type' || !NH_EXTENSION_ENVELOPE.has(key))) inner[key] = value;
  }
  // The record as it was read when the event still says what it said (its key order kept).
  const kept = hints.extensionEvent;
  const payload = `{"event":${json(kept !== undefined && sameJson(kept, inner) ? kept : inner, `${event.type}`)}}`;
  // The envelope as any event's (`hints` are its provenance's: see `writeOne`).
  const p = event.provenance;
  return finish(w, event, event.type, p?.format === FORMAT ? p : undefined, NH_EXTENSION_TYPE, payload);
}

function unknownRecord(w: Writer, event: AgentEvent & { type: 'unknown' }): string {
  const r = event.record;
  if (!isJsonObject(r) || typeof r.type !== 'string' || event.provenance?.format !== FORMAT) {
    reportLoss(
      w[LOSS],
      event,
      'unknown.record',
      'only nativeharness envelopes can be written back as records',
    );
    return '';
  }
  const seq = nextSeq(w, typeof r.seq === 'number' ? r.seq : undefined, 'unknown.record');
  const text = json(r.seq === seq ? r : { ...r, seq }, 'unknown.record');
  w[LAST_SEQ_TEXT] = seqDigits(seq);
  return frame(w, r.type, text, (event.provenance.hints as NhHints | undefined) ?? NO_HINTS);
}

// The SSE `id` of a record framed with `hints` (`seq`: its seq's digits); `undefined`: none.
function sseIdOf(hints: Readonly<NhHints>, seq: string): string | undefined {
  return hints.sseId === null ? undefined : typeof hints.sseId === 'string' ? hints.sseId : seq;
}

// The SSE `event` name of a record of `type` framed with `hints`; `undefined`: none.
function sseEventOf(hints: Readonly<NhHints>, type: string): string | undefined {
  return hints.sseEvent === null ? undefined : typeof hints.sseEvent === 'string' ? hints.sseEvent : type;
}

// `ownType`: `type` is one of this format's event types (not a name read from a record). The
// envelope's seq is the last one taken (its digits `w[LAST_SEQ_TEXT]`).
function frame(w: Writer, type: string, text: string, hints: Readonly<NhHints>, ownType = false): string {
  const seq = w[LAST_SEQ_TEXT];
  const n = w[WRITTEN]++;
  switch (w[FRAMING]) {
    case 'jsonl':
      return `${text}\n`;
    case 'json':
      return n === 0 ? `[\n${text}` : `,\n${text}`;
    case 'sse': {
      // The usual event: the id is the seq's digits and the event name one of this format's
      // types, neither of which can hold CR, LF or NUL, so nothing needs checking.
      if (
        ownType &&
        hints.sseId === undefined &&
        hints.sseEvent === undefined &&
        (n > 0 || w[OPTIONS].retry === undefined)
      ) {
        return `id: ${seq}\nevent: ${type}\ndata: ${text}\n\n`;
      }
      const id = sseIdOf(hints, seq);
      const ev = sseEventOf(hints, type);
      const retry = n === 0 && w[OPTIONS].retry !== undefined ? nhSseRetry(w[OPTIONS].retry) : '';
      return retry + formatSseJsonEvent(id, ev, text);
    }
  }
}
