import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import {
  assertArgsWritable,
  assertDeltaText,
  assertEncodable,
  assertFiniteNumber,
  assertText,
  assertTimeWritable,
  holdsNonFinite,
  isJsonObject,
  type JsonObject,
  rawIfSame,
  refuseKind,
  requireObject,
  requireText,
  unencodable,
  walkEncodable,
} from '../../json';
import { isStableJson, keptRecord, sameAsKept } from '../../kept';
import { checkCarried, LossReporter, writesOwnRecord } from '../../loss';
import type { AgentEvent, AgentEventOf, Usage } from '../../model';
import { hintsFrom } from '../../record';
import { newRunSpan, spanAfter, spanBefore } from '../../run-span';
import { addUsage, assertUsageFigures, type UsageFigures } from '../../usage';
import { fieldsHoldNonFinite, keptValueText } from './non-finite';
import {
  OPENCODE_DONE_REASON,
  OPENCODE_MAX_HELD_TEXT,
  OPENCODE_MESSAGE_PREFIX,
  OPENCODE_PART_PREFIX,
  OPENCODE_PART_TYPE,
  OPENCODE_STOP_REASON,
  type OpencodeHints,
  tokensToWire,
  usageFromWire,
} from './wire';

/** Options of the OpenCode writer. */
export interface OpencodeEncodeOptions extends EncodeOptions {
  /** The clock (ms since the epoch) for `timestamp`s events do not have. Default `Date.now`. */
  clock?: () => number;
  /** Makes the session, part and message ids events do not have. Default: a counter. */
  idSource?: () => string;
  /**
   * The line terminator of records the decoder did not read (`\r\n` is what OpenCode writes on
   * Windows). Default `\n`. Lines read from OpenCode keep the terminator they had.
   */
  lineEnding?: '\n' | '\r\n';
}

const FORMAT = 'opencode' as const;
const ENV = ['session', 'ts', 'round', 'lane'];

// Fields each event type carries into OpenCode records; the rest are `loss`es.
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'session.start': ['session', 'ts'],
  'run.start': ['session', 'ts', 'lane'],
  'round.start': ENV,
  'message.start': [...ENV, 'role', 'message'],
  'message.end': [...ENV, 'message'],
  'text.delta': [...ENV, 'text', 'message'],
  'reasoning.delta': [...ENV, 'text', 'message'],
  'tool.start': [...ENV, 'call', 'name', 'args', 'command', 'startedAt'],
  'tool.end': [...ENV, 'call', 'name', 'ok', 'text', 'error', 'exitCode', 'startedAt', 'endedAt'],
  'round.end': [...ENV, 'message', 'stopReason', 'usage'],
  error: [...ENV, 'message', 'fatal', 'code', 'data'],
  // `usage`: OpenCode has no run total; the writer puts it on the run's steps or reports the loss.
  'run.end': ['session', 'ts', 'lane', 'status', 'error', 'usage'],
  unknown: [...ENV, 'record', 'recordType'],
};
// With args, a summary says nothing more; a command is the bash tool's `command` argument.
const CARRIED_TOOL_START_ARGS: readonly string[] = [...CARRIED['tool.start']!, 'argsSummary'];

// The input of a call written with none yet (`unendedCall`).
const EMPTY_INPUT = '"input":{}';

const FIGURES: readonly UsageFigures[] = ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'];

/**
 * Whether the steps' `sum` reads back as the run's `total`: the same counts (OpenCode writes an
 * absent count as 0) and, when the total has a cost, the same cost.
 */
function sameFigures(sum: Usage | undefined, total: Usage): boolean {
  for (const k of FIGURES) if ((sum?.[k] ?? 0) !== (total[k] ?? 0)) return false;
  return total.costUsd === undefined || sum?.costUsd === total.costUsd;
}

/** A lane's step as written: whether a step_start is open and its message id. */
interface Step {
  open: boolean;
  message: string;
  wroteText: boolean;
}

/** Foreign text waiting to become one `text`/`reasoning` part (OpenCode writes a part whole). */
interface PendingText {
  type: 'text.delta' | 'reasoning.delta';
  text: string;
  first: AgentEventOf<'text.delta'> | AgentEventOf<'reasoning.delta'>;
}

/**
 * Refuses a call's time or exit code JSON cannot hold (NaN, an infinity), which `JSON.stringify`
 * would write in its `tool_use` state's `time` (the state's `metadata.exit`) as `null`: at the
 * event's own write, before anything is written or held for it (a call's start waits for its
 * end). Its `ts` is refused with every event's (`write`).
 */
function assertTimesWritable(event: AgentEvent): void {
  if (event.type === 'tool.start') {
    if (event.startedAt !== undefined) assertFiniteNumber(event.startedAt, 'tool.start.startedAt', FORMAT);
  } else if (event.type === 'tool.end') {
    if (event.startedAt !== undefined) assertFiniteNumber(event.startedAt, 'tool.end.startedAt', FORMAT);
    if (event.endedAt !== undefined) assertFiniteNumber(event.endedAt, 'tool.end.endedAt', FORMAT);
    // The state's `metadata.exit`.
    if (event.exitCode !== undefined) assertFiniteNumber(event.exitCode, 'tool.end.exitCode', FORMAT);
  }
}

/**
 * Refuses an event whose field the writer puts as it is into a record (`JSON.stringify`, which
 * throws for a BigInt) holds no string, before anything is written, held or said for it: the
 * envelope's session (kept from the first event that has one as the main session, every later
 * record's `sessionID`) and lane (the part's `sessionID`, the key of its step), a delta's message
 * id (its part's `messageID`, held with the text), a call's id, name and summary (its start held
 * for its end, or for the run's end), a round's stop reason (held for the run's end), a fatal
 * error's message and code, a run's error (its `error` record). A refusal at that later write
 * would take the records written before it down with it, or refuse an event that is not at fault.
 */
function assertTextFields(event: AgentEvent): void {
  assertText(event.session, event, 'session', FORMAT);
  assertText(event.lane, event, 'lane', FORMAT);
  switch (event.type) {
    case 'text.delta':
    case 'reasoning.delta':
      // (Its text: `assertDeltaText`.)
      assertText(event.message, event, 'message', FORMAT);
      return;
    case 'tool.start':
      requireText(event.call, event, 'call', FORMAT);
      assertText(event.name, event, 'name', FORMAT);
      assertText(event.argsSummary, event, 'argsSummary', FORMAT);
      return;
    case 'tool.end':
      requireText(event.call, event, 'call', FORMAT);
      assertText(event.name, event, 'name', FORMAT);
      assertText(event.text, event, 'text', FORMAT);
      return;
    case 'round.end':
      assertText(event.stopReason, event, 'stopReason', FORMAT);
      return;
    case 'error':
      // (A warning has no record.)
      if (!event.fatal) return;
      requireText(event.message, event, 'message', FORMAT);
      assertText(event.code, event, 'code', FORMAT);
      // Another format's data is the record's `error` as it is.
      if (event.data !== undefined && event.provenance?.format !== FORMAT)
        assertEncodable(event.data, 'error.data', undefined, FORMAT);
      return;
    case 'run.end':
      assertText(event.error, event, 'error', FORMAT);
      return;
  }
}

// Event types of another format whose write makes no record of its own (text waits for its part,
// a call's start for its end; the rest have none).
const NO_RECORD: ReadonlySet<AgentEvent['type']> = new Set([
  'session.start',
  'run.start',
  'message.start',
  'message.end',
  'tool.start',
]);

/**
 * Whether another format's event without a time writes a record dated by the clock: its own
 * record, or (a delta) the held text it fills past the cap, written at once.
 */
function datesRecord(event: AgentEvent, pending: PendingText | undefined): boolean {
  if (event.type === 'text.delta' || event.type === 'reasoning.delta')
    return (pending?.text.length ?? 0) + event.text.length >= OPENCODE_MAX_HELD_TEXT;
  return !NO_RECORD.has(event.type) && CARRIED[event.type] !== undefined;
}

/**
 * A call of this format is written at its end from its line, its input as the line spells it; a
 * call whose end never comes is written at the run's end from its start (`unendedCall`). A
 * start whose arguments hold a number JSON cannot hold that its line does not spell (an edit:
 * `JSON.stringify` would write it as `null`) is refused at its own write, as another format's
 * is, not at that later write, which would take the run's end down with it.
 */
function assertOwnArgsWritable(event: AgentEvent): void {
  if (event.type !== 'tool.start' || event.provenance?.format !== FORMAT || event.args === undefined) return;
  if (holdsNonFinite(event.args) && keptArgsText(event) === undefined)
    assertEncodable(event.args, 'tool.start.args', undefined, FORMAT);
}

// Where a tool_use line keeps the call's arguments.
const INPUT_PATH: readonly string[] = ['part', 'state', 'input'];

/** The text of a start's arguments as its kept line spells them, when they still read so. */
function keptArgsText(start: AgentEventOf<'tool.start'>): string | undefined {
  const raw = ownHints(start)?.raw;
  return typeof raw === 'string' ? keptValueText(raw, INPUT_PATH, start.args) : undefined;
}

function ownHints(event: AgentEvent | undefined): OpencodeHints | undefined {
  return hintsFrom<OpencodeHints>(event, FORMAT);
}

/**
 * Test hook: `enabled: false` makes the writer rebuild every line the general way, so that
 * test/opencode/fast-path.test.ts can hold the kept-line fast path equal to it.
 */
export const opencodeFastPath: { enabled: boolean } = { enabled: true };

// The record type each event a line yields on its own is written as.
const KEPT_TYPE: Partial<Record<AgentEvent['type'], string>> = {
  'round.start': 'step_start',
  'text.delta': 'text',
  'reasoning.delta': 'reasoning',
  'tool.end': 'tool_use',
  'round.end': 'step_finish',
};

// The event types whose kept line is written (the others of this format write nothing).
const WRITES_LINE: ReadonlySet<AgentEvent['type']> = new Set<AgentEvent['type']>([
  ...(Object.keys(KEPT_TYPE) as AgentEvent['type'][]),
  'error',
  'run.end',
  'unknown',
]);

// The envelope and part the general path rebuilds (`envelope`, `part`) are the kept ones when
// the event's session, time stamp and lane are the kept ones. A field the line says (as the
// decoder reads it) that the event no longer has was deleted: not the kept line then. `root` is
// the writer's main session (`mainLane`).
function sameEnvelope(event: AgentEvent, t: JsonObject, root: string | undefined): boolean {
  const part = t.part;
  return (
    t.type === KEPT_TYPE[event.type] &&
    (event.ts === undefined ? typeof t.timestamp !== 'number' : t.timestamp === event.ts) &&
    (event.session === undefined ? typeof t.sessionID !== 'string' : t.sessionID === event.session) &&
    isJsonObject(part) &&
    (event.lane === undefined ? mainLane(part, root) : part.sessionID === event.lane)
  );
}

// A part the decoder read into no lane: its session is none, or the run's (`root`: the session
// of the first event that had one, which the decoder's first line with a session gives every
// event it makes, the run's start first), or no session was known yet. Else its lane was deleted.
function mainLane(part: JsonObject, root: string | undefined): boolean {
  const s = part.sessionID;
  return typeof s !== 'string' || root === undefined || s === root;
}

// For each event type: every field the general path puts back into the part holds the kept
// value (so the rebuilt record has the kept keys, in the kept order, with the kept values).
function sameFields(
  event: AgentEvent,
  part: JsonObject,
  start: AgentEventOf<'tool.start'> | undefined,
): boolean {
  switch (event.type) {
    case 'round.start':
      return true;
    case 'text.delta':
    case 'reasoning.delta':
      return (
        part.text === event.text &&
        (event.message === undefined ? typeof part.messageID !== 'string' : part.messageID === event.message)
      );
    case 'tool.end':
      return sameCall(event, part, start);
    case 'round.end':
      return sameStep(event, part);
    default:
      return false;
  }
}

function sameCall(
  end: AgentEventOf<'tool.end'>,
  part: JsonObject,
  start: AgentEventOf<'tool.start'> | undefined,
): boolean {
  const state = part.state;
  if (!isJsonObject(state) || part.callID !== end.call) return false;
  const name = start?.name ?? end.name;
  if (name !== undefined && part.tool !== name) return false;
  if (state.status !== (end.ok ? 'completed' : 'error')) return false;
  const args = start?.args;
  if (args !== undefined && !sameAsKept(args, state.input)) return false;
  // The output, error and exit code the decoder read, each still the event's (deleted: no more).
  if (end.text === undefined ? typeof state.output === 'string' : state.output !== end.text) return false;
  if (end.error === undefined ? state.error !== undefined : !end.ok && !sameAsKept(end.error, state.error))
    return false;
  const metadata = state.metadata;
  if (
    isJsonObject(metadata) &&
    (end.exitCode === undefined ? typeof metadata.exit === 'number' : metadata.exit !== end.exitCode)
  )
    return false;
  const time = state.time;
  if (!isJsonObject(time)) return false;
  const startedAt = end.startedAt ?? start?.startedAt;
  if (startedAt !== undefined && time.start !== startedAt) return false;
  return end.endedAt === undefined ? typeof time.end !== 'number' : time.end === end.endedAt;
}

function sameStep(event: AgentEventOf<'round.end'>, part: JsonObject): boolean {
  if (event.stopReason === undefined ? typeof part.reason === 'string' : part.reason !== event.stopReason)
    return false;
  const usage = event.usage;
  // No usage is the line's only where the decoder read none from it (else it was taken out).
  if (usage === undefined) return usageFromWire(part.tokens, part.cost) === undefined;
  if (usage.costUsd === undefined ? typeof part.cost === 'number' : part.cost !== usage.costUsd) return false;
  const tokens = part.tokens;
  const cache = isJsonObject(tokens) ? tokens.cache : undefined;
  if (!isJsonObject(tokens) || !isJsonObject(cache)) return false;
  const wire = tokensToWire(usage);
  return (
    tokens.input === wire.input &&
    tokens.output === wire.output &&
    tokens.reasoning === wire.reasoning &&
    cache.read === wire.cache.read &&
    cache.write === wire.cache.write
  );
}

/**
 * The kept state's metadata with the event's exit code put back (a deleted one taken out), and
 * the copies of the kept output it holds (`output`: all of it, as OpenCode's shell tool keeps it;
 * `preview`: the start of a file read) following the output written: an output edited or deleted
 * (a redaction) leaves no copy behind. Undefined when the metadata stays as kept.
 */
function keptMetadata(state: JsonObject, output: unknown, exit: number | undefined): JsonObject | undefined {
  const m = state.metadata;
  if (!isJsonObject(m)) return undefined;
  let out: JsonObject | undefined;
  if (exit !== undefined) out = { ...m, exit };
  else if (typeof m.exit === 'number') {
    out = { ...m };
    delete out.exit;
  }
  const kept = state.output;
  if (typeof kept === 'string' && output !== kept) {
    if (m.output === kept) {
      out ??= { ...m };
      if (typeof output === 'string') out.output = output;
      else delete out.output;
    }
    if (typeof m.preview === 'string' && m.preview !== '' && kept.includes(m.preview)) {
      out ??= { ...m };
      delete out.preview;
    }
  }
  return out;
}

function template(hints: OpencodeHints | undefined): JsonObject | undefined {
  const record = hints?.record;
  return isJsonObject(record) ? record : undefined;
}

/**
 * The OpenCode writer: canonical events → `opencode run --format json` lines, as OpenCode's
 * `emit()` spells them (`JSON.stringify` of `{type, timestamp, sessionID, …}`). A line the decoder
 * read is rebuilt from its kept record with the event's fields put back, and written as it came
 * while it says the same (`rawIfSame`), with its own terminator (CRLF kept). Events from another
 * format get OpenCode's shapes: `tool.start` waits for its `tool.end` (one `tool_use` of a
 * finished call), text deltas of a step become one `text` part, a step_start is written before a
 * step's first part, `run.end` is `done` (after an `error` record when it failed).
 */
export class OpencodeEncoder implements Encoder {
  private readonly loss: LossReporter;
  private readonly clock: () => number;
  private readonly idSource: () => string;
  private readonly eol: string;
  private session: string | undefined;
  private readonly starts = new Map<string, AgentEventOf<'tool.start'>>();
  private readonly steps = new Map<string, Step>();
  private pending: PendingText | undefined;
  private wroteError = false;
  // Another format's main-lane round.end without usage, its step_finish not yet written: when
  // the next event is the run's end, the run's total goes on it (OpenCode has no run total).
  private held: AgentEventOf<'round.end'> | undefined;
  // The sum of the usage written on another format's step_finish records in this run.
  private runUsage: Usage | undefined;
  private counter = 0;
  // Another format's runs: OpenCode says one was cut off only where the stream ends.
  private readonly span = newRunSpan();
  // The kept record `keptNeedsProbe` found stable (`isStableJson`) for the event being
  // written: the fast path (`kept`) does not walk it again.
  private stable: JsonObject | undefined;
  // The clock's times the write's probe read (`clockProbe`), given out again in order to the
  // write's records (`now`): the clock is read as often as the write needs, and its times are
  // checked before anything is written, held or said for the event.
  private times: number[] | undefined;
  private timeAt = 0;
  // A probe asked only for the clock's times: its lines are not made (what it reads of the clock
  // does not hang on them).
  private timesOnly = false;
  // Whether the clock's times are asked of a probe before a write: only a clock the caller gave
  // can give one JSON cannot hold (`Date.now` cannot), and the probe writes the event twice.
  private readonly probesClock: boolean;

  /** Creates a writer reporting losses to `sink`. */
  constructor(options: OpencodeEncodeOptions, sink: DiagnosticSink) {
    this.loss = new LossReporter(FORMAT, sink);
    this.clock = options.clock ?? Date.now;
    this.probesClock = options.clock !== undefined;
    this.idSource = options.idSource ?? (() => String(++this.counter).padStart(8, '0'));
    this.eol = options.lineEnding ?? '\n';
  }

  write(event: AgentEvent): string {
    // A time JSON cannot hold (NaN, an infinity), which `JSON.stringify` would write as the
    // record's `timestamp` (a text part's `time`) as `null`: refused first, for every event type,
    // before anything is written, held or said for the event (a delta waits for its part, a
    // call's start for its end).
    assertTimeWritable(event, FORMAT);
    assertDeltaText(event, FORMAT);
    assertTextFields(event);
    // A record of this format is written as it is: one left out (no JSON at all) is refused, not
    // written as a line `undefined` (or a TypeError past the held text it flushed).
    if (event.type === 'unknown' && event.record === undefined && event.provenance?.format === FORMAT)
      refuseKind(event, 'record', 'a JSON value', FORMAT);
    // A call is written at its end: arguments JSON cannot hold are refused now, as the start's
    // own refusal, not at the end's write, which they would take down with them.
    assertArgsWritable(event, FORMAT);
    assertOwnArgsWritable(event);
    // Another format's failed call's error is written as JSON text: refused now, not after the
    // held text and the step's start are written for it (a BigInt or cycle threw a TypeError).
    if (event.type === 'tool.end' && !event.ok && event.provenance?.format !== FORMAT) {
      const e = event.error;
      if (e !== undefined && e !== null && typeof e !== 'string')
        assertEncodable(e, 'tool.end.error', undefined, FORMAT);
    }
    this.assertUsageWritable(event);
    assertTimesWritable(event);
    // One probe answers both questions: whether a kept line would be written with a `null`, and
    // what the clock gives the write's records without a time.
    const kept = this.keptNeedsProbe(event);
    this.times =
      kept || (this.probesClock && this.mayReadClock(event)) ? this.clockProbe(event, !kept) : undefined;
    this.timeAt = 0;
    spanBefore(this.span, this.loss.state, event, FORMAT);
    const text = this.writeEvent(event);
    spanAfter(this.span, this.loss.state, event, text, FORMAT);
    return text;
  }

  /**
   * Refuses (as `stepFinish` would, naming the same field) a usage JSON cannot hold that a
   * step_finish would write: a round's, or another format's run total put on the run's last
   * step (`runEnd`), before the held step or text is written, a loss said or an id taken for
   * the event: a refused event leaves the writer as if it had never been given
   * (test/fuzz/refusal.test.ts). A total reported lost instead is not refused.
   */
  private assertUsageWritable(event: AgentEvent): void {
    const own = event.provenance?.format === FORMAT;
    // (A derived event writes nothing.)
    if (own && event.provenance?.synthetic) return;
    if (event.type === 'round.end') {
      if (event.usage !== undefined) assertUsageFigures(event.usage, 'round.end.usage', FORMAT);
      return;
    }
    // (A run's end of this format carries no total.)
    if (own || event.type !== 'run.end' || event.usage === undefined) return;
    // Compared with the steps' sum wherever it goes (`sameFigures`): its figures are read.
    requireObject(event.usage, event, 'usage', FORMAT);
    if (this.runUsage !== undefined) return;
    // Where `runEnd` puts it: on the held step (unless unended calls flushed it first), else on
    // the main step open once the held text and the unended calls are written.
    const onHeld = this.held !== undefined && this.starts.size === 0;
    if (onHeld || (event.status !== 'incomplete' && this.mainOpenAtRunEnd()))
      assertUsageFigures(event.usage, 'round.end.usage', FORMAT);
  }

  /**
   * Whether the write of `event` must be asked of a probe first (`clockProbe`, which `write`
   * runs), which refuses an event of this format edited on a line that holds a number past a double's range
   * (`1e400`, read as Infinity), which the line rebuilt from its kept record would write as the
   * `null` `JSON.stringify` makes of it (written as it came, the line keeps it: `rawIfSame`), as
   * every writer refuses a number JSON cannot hold: before the held step or text is written, a
   * loss said or an id taken for it; an edit that holds such a number likewise. Asked of a copy
   * of the writer (`probe`), only where the kept record or the event holds a number that is not
   * finite (`holdsNonFinite`: an integer past 2^53 is written as digits, never `null`): a line
   * the fast path writes as kept holds none (`isStableJson`).
   */
  private keptNeedsProbe(event: AgentEvent): boolean {
    this.stable = undefined;
    const p = event.provenance;
    if (p?.format !== FORMAT || p.synthetic || !WRITES_LINE.has(event.type)) return false;
    const hints = ownHints(event);
    const t = keptRecord(hints);
    if (t === undefined) return false;
    if (!this.holdsNonFinite(event)) {
      if (KEPT_TYPE[event.type] !== undefined && isStableJson(t)) {
        this.stable = t;
        return false;
      }
      if (!holdsNonFinite(t)) return false;
    }
    return true;
  }

  /**
   * Whether the write of `event` may read the clock: a record it writes has no time of its own
   * (the event's, a held round's end's, the held text's first delta's; the call a run's end
   * writes for a start that never ended has none). A sieve in front of the probe, never wrong
   * the other way: a read it missed would still be checked (`now`), but after the write began.
   */
  private mayReadClock(event: AgentEvent): boolean {
    if (this.held !== undefined && this.held.ts === undefined) return true;
    if (this.pending !== undefined && this.pending.first.ts === undefined) return true;
    if (event.ts !== undefined) return event.type === 'run.end' && this.starts.size > 0;
    // An event without a time: only a record it writes itself takes the clock's.
    const p = event.provenance;
    return p?.format === FORMAT ? p.synthetic !== true : datesRecord(event, this.pending);
  }

  /**
   * The clock's times the write of `event` (`undefined`: the stream's end) reads, read by a
   * probe writing it with the writer's clock (each checked, `now`): a clock giving no time JSON
   * can hold refuses the event before anything is written, held or said for it. `timesOnly`: the
   * probe makes no lines (no kept line needs asking).
   */
  private clockProbe(event: AgentEvent | undefined, timesOnly: boolean): number[] {
    const times: number[] = [];
    const clock = this.clock;
    const p = this.probe(event, () => {
      const t = clock();
      times.push(t);
      return t;
    });
    p.timesOnly = timesOnly;
    if (event === undefined) p.endWrite();
    else p.writeEvent(event);
    return times;
  }

  /**
   * The time of a record without one: the next the probe read for the write, else the clock's.
   * A time JSON cannot hold (NaN, an infinity, no number) is refused: `JSON.stringify` would
   * write the `timestamp` as `null`.
   */
  private now(): number {
    const times = this.times;
    if (times !== undefined && this.timeAt < times.length) return times[this.timeAt++]!;
    const t = this.clock();
    if (!Number.isFinite(t)) assertFiniteNumber(t, 'clock()', FORMAT);
    return t;
  }

  // Whether a field of the event (its provenance aside), or the arguments of the call it ends,
  // holds a number JSON cannot hold: what the line rebuilt from the kept record would write as
  // `null` (an integer past 2^53 is written as digits: no probe for it).
  private holdsNonFinite(event: AgentEvent): boolean {
    if (fieldsHoldNonFinite(event)) return true;
    return event.type === 'tool.end' && holdsNonFinite(this.starts.get(event.call)?.args);
  }

  /**
   * A copy of the writer (its ids a stand-in, its losses said to no one, its clock `clock`) whose
   * kept lines throw where they would be written with a `null` for a number. Its state is what
   * `event`'s write reads: a run's end (and the stream's end, `undefined`) every open call and
   * step (which it writes, as the writer will); any other event the call it ends and the steps of
   * its lane, of the main agent (a held step) and of the held text, so that a probe costs no more
   * than the write it stands for.
   */
  private probe(event: AgentEvent | undefined, clock: () => number): OpencodeEncoder {
    const p = new OpencodeEncoder({ clock, idSource: () => 'probe', lineEnding: '\n' }, { report() {} });
    p.session = this.session;
    if (event === undefined || event.type === 'run.end') {
      for (const [k, v] of this.starts) p.starts.set(k, v);
      for (const [k, v] of this.steps) p.steps.set(k, { ...v });
    } else {
      const start = event.type === 'tool.end' ? this.starts.get(event.call) : undefined;
      if (start !== undefined) p.starts.set(start.call, start);
      this.copyStep(p, event.lane);
      this.copyStep(p, undefined);
      if (this.pending !== undefined) this.copyStep(p, this.pending.first.lane);
    }
    if (this.pending !== undefined) p.pending = { ...this.pending };
    p.wroteError = this.wroteError;
    p.held = this.held;
    if (this.runUsage !== undefined) p.runUsage = { ...this.runUsage };
    return p;
  }

  private copyStep(p: OpencodeEncoder, lane: string | undefined): void {
    const step = this.steps.get(lane ?? '');
    if (step !== undefined) p.steps.set(lane ?? '', { ...step });
  }

  // Whether the main step is open once a run's end has written the held text and unended calls.
  private mainOpenAtRunEnd(): boolean {
    if (this.steps.get('')?.open === true) return true;
    if (this.pending !== undefined && this.pending.first.lane === undefined) return true;
    for (const start of this.starts.values()) if (start.lane === undefined) return true;
    return false;
  }

  private writeEvent(event: AgentEvent): string {
    const hints = ownHints(event);
    const own = event.provenance?.format === FORMAT;
    // The main session is taken from a derived event too (the run's start, made from the first
    // line with a session): it is the session the decoder measured lanes against (`mainLane`).
    if (this.session === undefined && event.session !== undefined && event.lane === undefined) {
      this.session = event.session;
    }
    if (own && event.provenance?.synthetic) return '';
    let out = '';
    if (this.held !== undefined && (own || event.type !== 'run.end')) out += this.flushHeld(undefined);
    if (
      this.pending !== undefined &&
      !(event.type === this.pending.type && !own && event.lane === this.pending.first.lane)
    ) {
      out += this.flushText();
    }
    const carried = CARRIED[event.type];
    if (carried === undefined) {
      this.loss.report(event, event.type, 'OpenCode has no record for this event');
      return out;
    }
    if (!own) checkCarried(this.loss, event, carried, CARRIED_TOOL_START_ARGS);
    switch (event.type) {
      case 'session.start':
      case 'run.start':
      case 'message.start':
      case 'message.end':
        return out;
      case 'round.start':
        if (own)
          return out + (this.kept(event, hints) ?? this.line(this.stepStart(event, template(hints)), hints));
        return out + this.openStep(event, true);
      case 'text.delta':
      case 'reasoning.delta':
        if (own) {
          this.stepOf(event.lane).wroteText = true;
          return (
            out +
            (this.kept(event, hints) ?? this.line(this.textPart(event, event.text, template(hints)), hints))
          );
        }
        if (this.pending === undefined) this.pending = { type: event.type, text: '', first: event };
        this.pending.text += event.text;
        // A part of its own past the cap: the step's parts read back as one message.
        if (this.pending.text.length >= OPENCODE_MAX_HELD_TEXT) out += this.flushText();
        return out;
      case 'tool.start':
        this.starts.set(event.call, event);
        return out;
      case 'tool.end': {
        const start = this.starts.get(event.call);
        this.starts.delete(event.call);
        if (own)
          return (
            out +
            (this.kept(event, hints, start) ?? this.line(this.toolUse(start, event, template(hints)), hints))
          );
        return (
          out + this.openStep(event, false) + this.line(this.toolUse(start, event, undefined), undefined)
        );
      }
      case 'round.end':
        return out + this.roundEnd(event, own, hints);
      case 'error':
        // Every OpenCode error record fails the run (its decoder reads `done` after one as
        // failed): a warning the run went on from has no record.
        if (!event.fatal) {
          this.loss.report(
            event,
            'error.fatal',
            'OpenCode has no non-fatal error: the warning is not written',
          );
          return out;
        }
        this.wroteError = true;
        return out + this.line(this.error(event, template(hints)), hints);
      case 'run.end':
        return out + this.runEnd(event, own, hints);
      case 'unknown':
        return writesOwnRecord(this.loss, event, own, 'OpenCode line')
          ? out + this.line(event.record, hints)
          : out;
      default:
        return out;
    }
  }

  end(): string {
    this.times = this.probesClock && this.mayReadClockAtEnd() ? this.clockProbe(undefined, true) : undefined;
    this.timeAt = 0;
    return this.endWrite();
  }

  private endWrite(): string {
    let out = this.flushHeld(undefined);
    out += this.flushText();
    out += this.flushCalls();
    return out;
  }

  // Whether the stream's end may read the clock (`mayReadClock`): it writes the held round's end,
  // the held text and the calls that never ended.
  private mayReadClockAtEnd(): boolean {
    if (this.held !== undefined && this.held.ts === undefined) return true;
    return (this.pending !== undefined && this.pending.first.ts === undefined) || this.starts.size > 0;
  }

  private id(prefix: string): string {
    return `${prefix}${this.idSource()}`;
  }

  private mainSession(): string {
    this.session ??= `ses_${this.idSource()}`;
    return this.session;
  }

  private stepOf(lane: string | undefined): Step {
    const key = lane ?? '';
    let step = this.steps.get(key);
    if (step === undefined) {
      step = { open: false, message: '', wroteText: false };
      this.steps.set(key, step);
    }
    return step;
  }

  /** For foreign events: a step_start before a step's first part (`always`: for a round.start). */
  private openStep(event: AgentEvent, always: boolean): string {
    const step = this.stepOf(event.lane);
    if (step.open && !always) return '';
    if (step.open) return '';
    step.open = true;
    step.wroteText = false;
    step.message = this.id(OPENCODE_MESSAGE_PREFIX);
    return this.line(this.stepStart(event, undefined), undefined);
  }

  private flushText(): string {
    const p = this.pending;
    if (p === undefined) return '';
    this.pending = undefined;
    const step = this.openStep(p.first, false);
    this.stepOf(p.first.lane).wroteText = true;
    return step + this.line(this.textPart(p.first, p.text, undefined), undefined);
  }

  /** Calls that never ended are written as failed: OpenCode writes only finished tools. */
  private flushCalls(): string {
    let out = '';
    for (const start of this.starts.values()) {
      this.loss.report(
        start,
        'tool.end',
        'OpenCode writes only finished calls: a call without an end is written as failed',
      );
      const end: AgentEventOf<'tool.end'> = {
        type: 'tool.end',
        call: start.call,
        ok: false,
        error: 'the call did not finish',
      };
      if (start.lane !== undefined) end.lane = start.lane;
      out += this.openStep(start, false) + this.unendedCall(start, end);
    }
    this.starts.clear();
    return out;
  }

  /**
   * The failed call's line of a start that never ended. A start of this format whose arguments
   * hold a number JSON cannot hold (its line spells one past a double's range, `1e400`: checked
   * at its write, `assertOwnArgsWritable`) has its input written as its line spells it, where
   * `JSON.stringify` would write `null`.
   */
  private unendedCall(start: AgentEventOf<'tool.start'>, end: AgentEventOf<'tool.end'>): string {
    const kept =
      start.provenance?.format === FORMAT && holdsNonFinite(start.args) ? keptArgsText(start) : undefined;
    if (kept === undefined) return this.line(this.toolUse(start, end, undefined), undefined);
    // The record with an empty input, the one `"input":{}` of it (a key or string of the record
    // holding that text would spell its quotes `\"`) then spelled as the line does.
    const text = JSON.stringify(this.toolUse({ ...start, args: {} }, end, undefined));
    const at = text.indexOf(EMPTY_INPUT);
    return `${text.slice(0, at)}"input":${kept}${text.slice(at + EMPTY_INPUT.length)}${this.eol}`;
  }

  /**
   * The envelope: `type, timestamp, sessionID` (then the template's other keys, in order). A
   * session or time stamp the template says (as the decoder reads it) that the event no longer
   * has was deleted: the line must not keep it, and OpenCode cannot leave it out, so it gets what
   * a line made anew gets.
   */
  private envelope(type: string, event: AgentEvent, t: JsonObject | undefined): JsonObject {
    if (t !== undefined) {
      const r: JsonObject = { ...t };
      r.type = type;
      if (event.ts !== undefined) r.timestamp = event.ts;
      else if (typeof t.timestamp === 'number') r.timestamp = this.now();
      if (event.session !== undefined) r.sessionID = event.session;
      else if (typeof t.sessionID === 'string') r.sessionID = this.mainSession();
      return r;
    }
    return { type, timestamp: event.ts ?? this.now(), sessionID: this.mainSession() };
  }

  private part(type: string, event: AgentEvent, t: JsonObject | undefined): JsonObject {
    const tp = t !== undefined && isJsonObject(t.part) ? t.part : undefined;
    if (tp !== undefined) {
      const p: JsonObject = { ...tp };
      if (event.lane !== undefined) p.sessionID = event.lane;
      // A lane the part says that the event no longer has: the main session's part, as anew.
      else if (!mainLane(tp, this.session)) p.sessionID = this.mainSession();
      return p;
    }
    const step = this.stepOf(event.lane);
    return {
      id: this.id(OPENCODE_PART_PREFIX),
      sessionID: event.lane ?? this.mainSession(),
      messageID: step.message || this.id(OPENCODE_MESSAGE_PREFIX),
      type: OPENCODE_PART_TYPE[type],
    };
  }

  private stepStart(event: AgentEvent, t: JsonObject | undefined): JsonObject {
    const r = this.envelope('step_start', event, t);
    r.part = this.part('step_start', event, t);
    return r;
  }

  private textPart(
    event: AgentEventOf<'text.delta'> | AgentEventOf<'reasoning.delta'>,
    text: string,
    t: JsonObject | undefined,
  ): JsonObject {
    const type = event.type === 'text.delta' ? 'text' : 'reasoning';
    const r = this.envelope(type, event, t);
    const p = this.part(type, event, t);
    p.text = text;
    if (event.message !== undefined) p.messageID = event.message;
    // A message id the part says that the event no longer has: one made anew, as `part` makes it.
    else if (t !== undefined && isJsonObject(t.part) && typeof t.part.messageID === 'string')
      p.messageID = this.stepOf(event.lane).message || this.id(OPENCODE_MESSAGE_PREFIX);
    if (t === undefined) {
      const ts = event.ts ?? (r.timestamp as number);
      p.time = { start: ts, end: ts };
    }
    r.part = p;
    return r;
  }

  private toolUse(
    start: AgentEventOf<'tool.start'> | undefined,
    end: AgentEventOf<'tool.end'>,
    t: JsonObject | undefined,
  ): JsonObject {
    const r = this.envelope('tool_use', end, t);
    const p = this.part('tool_use', end, t);
    p.callID = end.call;
    const name = start?.name ?? end.name;
    if (name !== undefined) p.tool = name;
    else if (t === undefined) {
      this.loss.report(end, 'tool.end.name', 'a tool part needs its tool name; written as "unknown"');
      p.tool = 'unknown';
    }
    const ts = end.ts ?? (r.timestamp as number);
    const ts0 = isJsonObject(p.state) ? p.state : undefined;
    const state: JsonObject = ts0 !== undefined ? { ...ts0 } : {};
    state.status = end.ok ? 'completed' : 'error';
    const args = start?.args;
    if (args !== undefined) {
      if (t === undefined) assertEncodable(args, 'tool.start.args', undefined, FORMAT);
      state.input = args;
    } else if (ts0 === undefined) state.input = {};
    if (end.ok) {
      if (end.text !== undefined) state.output = end.text;
      // A completed call needs its output: a deleted one is empty, as anew.
      else if (ts0 === undefined || typeof ts0.output === 'string') state.output = '';
      if (ts0 === undefined) {
        state.title = start?.argsSummary ?? name ?? '';
        state.metadata = end.exitCode !== undefined ? { exit: end.exitCode } : {};
      } else if (end.error === undefined) delete state.error;
    } else if (ts0 !== undefined) {
      // A read line keeps what it had but what the event no longer has (deleted, then gone or,
      // for the error a failed call needs, made as anew).
      if (end.text !== undefined) state.output = end.text;
      else if (typeof ts0.output === 'string') delete state.output;
      if (end.error !== undefined) state.error = end.error;
      else if (ts0.error !== undefined) state.error = end.text ?? 'failed';
    } else {
      // A foreign call's error is text (OpenCode's is a string).
      const error = end.error ?? end.text ?? 'failed';
      state.error = typeof error === 'string' || t !== undefined ? error : JSON.stringify(error);
    }
    if (ts0 !== undefined) {
      const metadata = keptMetadata(ts0, state.output, end.exitCode);
      if (metadata !== undefined) state.metadata = metadata;
    } else if (!end.ok && end.exitCode !== undefined) state.metadata = { exit: end.exitCode };
    const startedAt = end.startedAt ?? start?.startedAt;
    const time = isJsonObject(ts0?.time) ? { ...ts0.time } : {};
    if (startedAt !== undefined) time.start = startedAt;
    else if (ts0 === undefined) time.start = ts;
    if (end.endedAt !== undefined) time.end = end.endedAt;
    // The end a kept state says, taken out of the event: its time, as anew.
    else if (ts0 === undefined || typeof time.end === 'number') time.end = ts;
    state.time = time;
    p.state = state;
    r.part = p;
    return r;
  }

  private roundEnd(
    event: AgentEventOf<'round.end'>,
    own: boolean,
    hints: OpencodeHints | undefined,
    mayHold = true,
  ): string {
    let out = '';
    const step = this.stepOf(event.lane);
    if (!own) {
      out += this.openStep(event, false);
      // A message that is not a string (an event built by hand against the model) writes no part:
      // a text part without text is a record no reader takes.
      if (!step.wroteText && typeof event.message === 'string' && event.message !== '') {
        const text: AgentEventOf<'text.delta'> = { type: 'text.delta', text: event.message };
        if (event.ts !== undefined) text.ts = event.ts;
        if (event.lane !== undefined) text.lane = event.lane;
        out += this.line(this.textPart(text, event.message, undefined), undefined);
      }
    }
    step.open = false;
    step.wroteText = false;
    if (own) {
      const kept = this.kept(event, hints);
      if (kept !== undefined) return out + kept;
    } else if (event.usage === undefined && event.lane === undefined && mayHold) {
      // The run's end may come next with the run's total for it.
      this.held = event;
      return out;
    }
    return out + this.stepFinish(event, own, hints, event.usage);
  }

  /** The held round.end's step_finish, with `usage` (the run's total) when given. */
  private flushHeld(usage: Usage | undefined): string {
    const held = this.held;
    if (held === undefined) return '';
    this.held = undefined;
    return this.stepFinish(held, false, undefined, usage);
  }

  private stepFinish(
    event: AgentEventOf<'round.end'>,
    own: boolean,
    hints: OpencodeHints | undefined,
    usage: Usage | undefined,
  ): string {
    const t = template(hints);
    const r = this.envelope('step_finish', event, t);
    const p = this.part('step_finish', event, t);
    if (event.stopReason !== undefined) p.reason = event.stopReason;
    // A step's end needs its reason: a kept one the event no longer has is made as anew.
    else if (t === undefined || typeof p.reason === 'string') p.reason = OPENCODE_STOP_REASON;
    // JSON.stringify would write a NaN count or cost as null: refused, as every writer refuses it.
    if (usage !== undefined) assertUsageFigures(usage, `${event.type}.usage`, FORMAT);
    if (!own && usage !== undefined) this.runUsage = addUsage(this.runUsage ?? {}, usage);
    if (usage === undefined && t === undefined)
      // OpenCode's step-finish requires its token counts (only `total` is optional): zeros stand
      // for counts the round never had, and read back as zero.
      this.loss.report(
        event,
        'round.end.usage',
        'a step_finish requires tokens: a round without usage is written with zero tokens',
      );
    // A kept usage the event no longer has goes as one written anew would (zeros, the tokens
    // being required): a figure taken out must not come back from the kept line.
    if (usage !== undefined || t === undefined || usageFromWire(p.tokens, p.cost) !== undefined) {
      // No cost is known: none is written (a `cost: 0` would read back as a cost of zero).
      if (usage?.costUsd !== undefined) p.cost = usage.costUsd;
      else if (typeof p.cost === 'number') delete p.cost;
      const wire = tokensToWire(usage);
      const tokens = isJsonObject(p.tokens) ? { ...p.tokens } : {};
      tokens.input = wire.input;
      tokens.output = wire.output;
      tokens.reasoning = wire.reasoning;
      tokens.cache = isJsonObject(tokens.cache)
        ? { ...tokens.cache, read: wire.cache.read, write: wire.cache.write }
        : wire.cache;
      p.tokens = tokens;
    }
    r.part = p;
    return this.line(r, hints);
  }

  private error(event: AgentEventOf<'error'>, t: JsonObject | undefined): JsonObject {
    const r = this.envelope('error', event, t);
    if (event.data !== undefined) {
      if (t === undefined) assertEncodable(event.data, 'error.data', undefined, FORMAT);
      r.error = event.data;
    } else r.error = { name: event.code ?? 'UnknownError', data: { message: event.message } };
    return r;
  }

  private runEnd(event: AgentEventOf<'run.end'>, own: boolean, hints: OpencodeHints | undefined): string {
    // Calls that never ended open a step of their own after the held one.
    let out = this.starts.size > 0 ? this.flushHeld(undefined) : '';
    out += this.flushCalls();
    // OpenCode has no run total: a consumer sums the steps. When the run's steps carried no
    // usage, the total goes on its last step_finish, so that the sum is the run's total.
    const total = own ? undefined : event.usage;
    const place = total !== undefined && this.runUsage === undefined ? total : undefined;
    const onHeld = place !== undefined && this.held !== undefined;
    // Else the main step still open, which closeSteps closes (a run that ended; own runs have none).
    const onMain =
      place !== undefined && !onHeld && event.status !== 'incomplete' && this.steps.get('')?.open === true;
    const placed = onHeld || onMain;
    out += this.flushHeld(place);
    const runUsage = this.runUsage;
    this.runUsage = undefined;
    if (total !== undefined && !placed && !sameFigures(runUsage, total))
      this.loss.report(
        event,
        'run.end.usage',
        "OpenCode has no run total, and the run's steps do not add up to it",
      );
    if (!own && event.status === 'incomplete') {
      // A run that did not end has no done record.
      this.wroteError = false;
      return out;
    }
    if (!own) {
      out += this.closeSteps(event, onMain ? place : undefined);
      if (event.reason !== undefined)
        this.loss.report(event, 'run.end.reason', 'done.reason is always "idle"');
      if (event.status === 'failed' && !this.wroteError) {
        const error: AgentEventOf<'error'> = {
          type: 'error',
          message: event.error ?? 'the run failed',
          fatal: true,
        };
        if (event.ts !== undefined) error.ts = event.ts;
        if (event.session !== undefined) error.session = event.session;
        out += this.line(this.error(error, undefined), undefined);
      }
      if (event.status === 'cancelled')
        this.loss.report(event, 'run.end.status', 'OpenCode has no cancelled run');
    }
    this.wroteError = false;
    const t = template(hints);
    const r = this.envelope('done', event, t);
    if (t === undefined) {
      r.reason = OPENCODE_DONE_REASON;
      r.rejected = [];
    } else if (event.reason !== undefined) r.reason = event.reason;
    return out + this.line(r, hints);
  }

  /**
   * Steps a foreign run left open get their step_finish (OpenCode closes every step it starts):
   * reason `error` for a failed run, `other` for a cancelled one, else `stop`; no usage known.
   */
  private closeSteps(event: AgentEventOf<'run.end'>, total: Usage | undefined): string {
    let out = '';
    for (const [lane, step] of this.steps) {
      if (!step.open) continue;
      const end: AgentEventOf<'round.end'> = {
        type: 'round.end',
        message: '',
        stopReason:
          event.status === 'failed' ? 'error' : event.status === 'cancelled' ? 'other' : OPENCODE_STOP_REASON,
      };
      if (lane !== '') end.lane = lane;
      if (event.ts !== undefined) end.ts = event.ts;
      // The main step carries the run's total when no step of the run carried usage.
      if (lane === '' && total !== undefined) end.usage = total;
      out += this.roundEnd(end, false, undefined, false);
    }
    return out;
  }

  /**
   * Fast path: the kept line, when the event still says what its kept record says
   * (`keptRecord`, src/kept.ts). test/opencode/fast-path.test.ts holds it equal to the general path
   * (`line`); docs/performance.md ("Kept lines") has the why.
   */
  private kept(
    event: AgentEvent,
    hints: OpencodeHints | undefined,
    start?: AgentEventOf<'tool.start'>,
  ): string | undefined {
    if (!opencodeFastPath.enabled) return undefined;
    const t = keptRecord(hints);
    if (t === undefined || !sameEnvelope(event, t, this.session)) return undefined;
    if (!sameFields(event, t.part as JsonObject, start) || (t !== this.stable && !isStableJson(t)))
      return undefined;
    const h = hints as OpencodeHints;
    return h.raw + (h.eol ?? '\n');
  }

  /** One line: the record as JSON, or the line as read when it says the same; its terminator. */
  private line(record: unknown, hints: OpencodeHints | undefined): string {
    if (this.timesOnly) return '';
    let text: string;
    try {
      text = JSON.stringify(record);
    } catch (error) {
      assertEncodable(record, 'record', undefined, FORMAT);
      throw unencodable(`record: ${error instanceof Error ? error.message : String(error)}`, FORMAT);
    }
    if (hints === undefined) return text + this.eol;
    const line = rawIfSame(hints.raw, text);
    // Not the kept line: a `null` there may stand for a number of it JSON cannot hold (`1e400`),
    // refused, not written so (`keptNeedsProbe` has the probe asked first).
    if (line !== hints.raw && text.includes('null'))
      walkEncodable(record, 'record', Number.POSITIVE_INFINITY, FORMAT);
    return line + (hints.eol ?? '\n');
  }
}
