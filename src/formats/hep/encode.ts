import { boundSummary, boundText } from '../../bounds';
import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import {
  assertEncodable,
  assertFiniteNumber,
  assertText,
  assertWireInteger,
  formatDouble,
  formatInteger,
  isJsonObject,
  type JsonObject,
  jsonString,
  jsonText,
  rawIfSame,
  requireObject,
  requireText,
  wrongType,
} from '../../json';
import { checkLoss, type LossState, newLoss, reportForeignRecord, reportLoss } from '../../loss';
import type { AgentEvent, AgentEventOf, Usage } from '../../model';
import { joinRecord } from '../../record';
import { addUsage } from '../../usage';
import {
  HEP,
  HEP_FULL_ARGS_CAP,
  HEP_MAX_HELD_RESULT_CHARS,
  HEP_SUMMARY_ARGS_CAP,
  HEP_TOOL_RESULT_TEXT_CAP,
  HEP_VERSION,
  type HepHints,
  hepMessageDeltaLine,
  hepToolDeltaLine,
  isHepV1,
} from './wire';

/** Options of the HEP writer. */
export interface HepEncodeOptions extends EncodeOptions {
  /**
   * How `tool_start.args_summary` is written from an args object: `summary` (`key=<json>`
   * joined with `", "`, cut at 100 + `...`; `fa --output events`) or `full` (compact JSON, cut
   * at 4000 + `…(+N chars)`; `fa --output events=full`). Default `summary`. An event that
   * already carries `argsSummary` is written with it (bounded).
   */
  args?: 'summary' | 'full';
  /**
   * `keep` (default): use the `round` events carry as `turn_id`, allocating only for events
   * without one. `allocate`: ignore `round` and allocate ids exactly as the reference
   * `HepWriter` does (use it when the events come from another format).
   */
  turnIds?: 'keep' | 'allocate';
  /** Session id for the header when no `session.start` event (or session) provides one. */
  session?: string;
  /** `fah` for the header when no `session.start` carries a `producer`. Default `"agentwire"`. */
  producer?: string;
  /** Makes session ids when none is given. Default `crypto.randomUUID()`. */
  idSource?: () => string;
  /**
   * `as-events` (default): a `message_start` for each `message.start` event. `each-round`: also
   * one before the first `message_delta` or `tool_start` of a round that has none, as the
   * reference writes every round (use it when the events come from another format; `convert`
   * does).
   */
  messageStarts?: 'as-events' | 'each-round';
}

/**
 * Whether the frames a round writes besides its deltas (`message_start`, `tool_start`, a tool
 * result, `turn_done` and its usage) are spelled from one template each when the event has no
 * fields of its own or kept line to restore, instead of from pieces joined by `frame` and
 * `joinRecord`. Off, only the general path runs; the property test in
 * test/hep/writer-templates.test.ts holds the two equal (docs/performance.md, "HEP writer, round
 * eighteen").
 */
export const HEP_TEMPLATES: { enabled: boolean } = { enabled: true };

// What the HEP decoder left for this writer (wire.ts, HepHints), for events decoded from HEP.
function hintsOf(event: AgentEvent | undefined): HepHints | undefined {
  const p = event?.provenance;
  return p?.format === HEP ? (p.hints as HepHints | undefined) : undefined;
}

/** `key=<json>` summary of one value, as the reference formats tool arguments. */
function summaryValue(value: unknown): string {
  try {
    assertEncodable(value, 'value');
    const s = JSON.stringify(value);
    return s === undefined ? '[unserializable]' : s;
  } catch {
    return '[unserializable]';
  }
}

/** The `args_summary` the reference writes for `args` in `mode`. */
export function hepArgsSummary(args: Record<string, unknown>, mode: 'summary' | 'full'): string {
  if (mode === 'full') {
    let encoded: string;
    try {
      assertEncodable(args, 'args');
      encoded = JSON.stringify(args);
    } catch {
      encoded = '[unserializable]';
    }
    return boundText(encoded, HEP_FULL_ARGS_CAP);
  }
  const parts: string[] = [];
  for (const key of Object.keys(args)) parts.push(`${key}=${summaryValue(args[key])}`);
  return boundSummary(parts.join(', '), HEP_SUMMARY_ARGS_CAP);
}

function defaultId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID !== undefined) return c.randomUUID();
  return `agentwire-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

function str(value: unknown, field: string): string {
  if (typeof value !== 'string') throw wrongType(value, field, 'a string', 'hep');
  return jsonString(value);
}

// A field that holds long text (a message delta, a tool's output or result): `jsonText`, which
// escapes sparse text between native searches, past the length where that pays; `str` below it.
function longText(value: unknown, field: string): string {
  return typeof value === 'string' && value.length >= TEXT_MIN ? jsonText(value) : str(value, field);
}

const TEXT_MIN = 64;

const encodeValue = (value: unknown): string => JSON.stringify(value);

// Fields each event type carries into HEP; anything else present is reported as a loss. Each
// case of writeEvent names its own list: a load by a constant key, where a load keyed by the
// event's type looked the name up for every event.
const CARRIED = {
  'session.start': ['session', 'producer', 'protocol'],
  'run.start': ['round', 'session'],
  'run.end': ['session', 'status', 'answer', 'stopReason', 'usage', 'error'],
  'message.start': ['round', 'session', 'role'],
  'text.delta': ['round', 'session', 'text'],
  'tool.start': ['round', 'session', 'call', 'name', 'args', 'argsSummary'],
  'tool.output': ['round', 'session', 'call', 'text'],
  'tool.liveness': ['round', 'session', 'call', 'name', 'action', 'elapsedMs', 'outputBytes', 'detail'],
  'tool.end': ['round', 'session', 'call', 'name', 'ok', 'text', 'error'],
  'round.end': ['round', 'session', 'message', 'stopReason', 'usage'],
  error: ['round', 'session', 'message', 'fatal'],
  cancel: ['round', 'session'],
  'compaction.start': ['round', 'session'],
  'compaction.end': ['round', 'session', 'tokensFreed'],
  unknown: ['round', 'session', 'record', 'recordType'],
} satisfies Partial<Record<AgentEvent['type'], readonly string[]>>;

// The writer's state: an array of named slots, not class fields or a literal. An array's hidden
// class belongs to the realm and outlives every GC, so the per-event code that reads it is not
// thrown away when the last writer dies (docs/performance.md, "HEP writer, round seven");
// module functions on it also leave nothing the minifier cannot rename.
type Writer = [
  options: HepEncodeOptions,
  mode: 'summary' | 'full',
  allocate: boolean,
  loss: LossState,
  headerWritten: boolean,
  nextTurnId: number,
  openTurnId: number | undefined,
  agentStartEmitted: boolean,
  compacting: boolean,
  runEnded: boolean,
  results: string[],
  // UTF-16 code units in `results` (bounded for rounds the writer made up).
  heldChars: number,
  outputs: Map<string, { text: string; length: number }>,
  roundWritten: boolean,
  // A message_start was written in the round now open (for `messageStarts: 'each-round'`).
  messageOpen: boolean,
  // This run wrote a turn_done: a HEP reader ends it completed when the stream ends there.
  doneWritten: boolean,
  // What this run's turn_dones carried from round.end usage (undefined: no round carried any);
  // a HEP reader totals the run from them, so run.end checks its usage against this.
  roundsUsage: RoundsUsage | undefined,
  // A recoverable error's turn_error, held for one event: when the run then fails, it is the
  // error that ended the run, written fatal (HEP's spelling of a failed run).
  heldError: [event: AgentEventOf<'error'>, turn: number] | undefined,
];

/** The figures HEP's `turn_done.usage` holds, summed over a run's rounds. */
type RoundsUsage = { input: number; output: number; costUsd: number };

const OPTIONS = 0;
const MODE = 1;
const ALLOCATE = 2;
const LOSS = 3;
const HEADER_WRITTEN = 4;
const NEXT_TURN_ID = 5;
const OPEN_TURN_ID = 6;
const AGENT_START_EMITTED = 7;
const COMPACTING = 8;
const RUN_ENDED = 9;
const RESULTS = 10;
const HELD_CHARS = 11;
const OUTPUTS = 12;
const ROUND_WRITTEN = 13;
const MESSAGE_OPEN = 14;
const DONE_WRITTEN = 15;
const ROUNDS_USAGE = 16;
const HELD_ERROR = 17;

/**
 * The HEP v1 writer: canonical events → frames, byte-exact to the reference `HepWriter`
 * (key order, compact JSON, `cost` as a double, bounds, lazy turn-id allocation). Losses go to
 * `sink`.
 */
export function createHepEncoder(options: HepEncodeOptions, sink: DiagnosticSink): Encoder {
  const w: Writer = [
    options,
    options.args ?? 'summary',
    options.turnIds === 'allocate',
    newLoss(HEP, sink),
    false,
    1,
    undefined,
    false,
    false,
    false,
    [],
    0,
    new Map(),
    false,
    false,
    false,
    undefined,
    undefined,
  ];
  return new HepEncoder(w);
}

/**
 * The encoder: the writer's state in its element 0, `write` and `end` on the prototype (as the
 * Amp and nativeharness writers'). With no named property of its own, every encoder has the
 * class's initial hidden class, which the class holds: a caller's loop optimised around one
 * encoder's `write` keeps its code at the next encoder and across a full GC. A literal
 * `{write, end}` of closures made per encoder had a hidden class the GC freed with the last
 * encoder, and took the caller's loop with it (docs/performance.md, "HEP writer, round eighteen").
 */
class HepEncoder implements Encoder {
  declare readonly 0: Writer;

  constructor(w: Writer) {
    (this as { 0: Writer })[0] = w;
  }

  write(event: AgentEvent): string {
    const w = this[0];
    assertWritable(w, event);
    return w[HELD_ERROR] === undefined ? writeEvent(w, event) : afterHeldError(w, event);
  }

  end(): string {
    const w = this[0];
    return heldErrorFrame(w, false) + endWrite(w);
  }
}

/**
 * Throws now what writing `event` would throw, in one switch on its type. A number: an integer
 * field (its round as the `turn_id`, a liveness's figures, the tokens a compaction freed, a
 * usage's counts) that is not a safe integer, or a usage's cost that is not finite. A text field
 * the writer reads as text that holds no string ({@link assertText}: a caller building events by
 * hand from JSON may send a number, null, an object or an array), or a field it reads parts of (a
 * usage, a call's arguments) that holds no object ({@link requireObject}). Asked before the writer writes
 * a header or a held error, takes a turn id, ends a round (its held results gone) or reports the
 * event's losses: refused where each is written, the refusal took those down with it.
 */
function assertWritable(w: Writer, event: AgentEvent): void {
  // A round's number is a frame's turn id unless the writer allocates them; session.start, the
  // types HEP has no frame for (written as nothing, said) and a run's completed or cut-off end
  // (its turn_done takes the open round's id) take none.
  const round = event.round;
  if (typeof round === 'number' && !w[ALLOCATE] && !Number.isSafeInteger(round) && takesRound(event))
    assertWireInteger(round, `${event.type}.round`, "HEP's turn_id", HEP);
  // The header's session: the first event's (`ensureHeader`).
  if (!w[HEADER_WRITTEN]) assertText(event.session, event, 'session', HEP);
  switch (event.type) {
    // The frequent ones first. A delta's text is escaped after the header, the round's
    // message_start and its turn id (and a held error's frame): refused first, not after.
    case 'text.delta':
      requireText(event.text, event, 'text', HEP);
      return;
    case 'tool.output':
      requireText(event.text, event, 'text', HEP);
      // Its output is kept for the call's result by call id before the frame is spelled.
      requireText(event.call, event, 'call', HEP);
      return;
    case 'tool.start':
      assertToolStartWritable(event);
      return;
    case 'tool.end':
      assertText(event.text, event, 'text', HEP);
      // Read after the call's result is counted: refused first, not after.
      requireText(event.call, event, 'call', HEP);
      assertText(event.name, event, 'name', HEP);
      return;
    case 'session.start':
      assertText(event.producer, event, 'producer', HEP);
      // (A version of v1 read off the text of any value: `['v1']` is one.)
      assertText(event.protocol, event, 'protocol', HEP);
      return;
    case 'error':
      requireText(event.message, event, 'message', HEP);
      return;
    case 'tool.liveness':
      // Spelled after its turn id is taken (the round marked written).
      requireText(event.call, event, 'call', HEP);
      assertText(event.name, event, 'name', HEP);
      requireText(event.action, event, 'action', HEP);
      assertText(event.detail, event, 'detail', HEP);
      assertWireInteger(event.elapsedMs, 'tool.liveness.elapsedMs', "HEP's tool_liveness.elapsed_ms", HEP);
      if (event.outputBytes !== undefined)
        assertWireInteger(
          event.outputBytes,
          'tool.liveness.outputBytes',
          "HEP's tool_liveness.output_bytes",
          HEP,
        );
      return;
    case 'compaction.end':
      if (event.tokensFreed !== undefined)
        assertWireInteger(
          event.tokensFreed,
          'compaction.end.tokensFreed',
          "HEP's compaction_end.tokens_freed",
          HEP,
        );
      return;
    case 'round.end':
      requireText(event.message, event, 'message', HEP);
      assertText(event.stopReason, event, 'stopReason', HEP);
      if (event.usage !== undefined) {
        requireObject(event.usage, event, 'usage', HEP);
        assertUsageWritable(event.usage, 'round.end.usage');
      }
      return;
    case 'run.end': {
      assertText(event.answer, event, 'answer', HEP);
      assertText(event.stopReason, event, 'stopReason', HEP);
      // A failed run's error is its turn_error's text, spelled after the round is closed.
      if (event.status === 'failed') assertText(event.error, event, 'error', HEP);
      // Its figures are read whichever frame the run's end writes (compared, or said lost).
      if (event.usage !== undefined) requireObject(event.usage, event, 'usage', HEP);
      const usage = lastDoneUsage(w, event);
      if (usage !== undefined) assertUsageWritable(usage, 'run.end.usage');
      return;
    }
  }
}

/**
 * A call's start: its id and name, and its summary or the arguments it is made from, are spelled
 * after the header, the round's message_start and its turn id are taken. Arguments of no object
 * (`null` above all, whose keys the summary would read: a TypeError) are refused with it.
 */
function assertToolStartWritable(event: AgentEventOf<'tool.start'>): void {
  requireText(event.call, event, 'call', HEP);
  requireText(event.name, event, 'name', HEP);
  assertText(event.argsSummary, event, 'argsSummary', HEP);
  if (event.args !== undefined) requireObject(event.args, event, 'args', HEP);
}

/** The figures of `usage` a `turn_done` writes: its counts as integers, its cost as a double. */
function assertUsageWritable(usage: Usage, field: string): void {
  if (usage.input !== undefined)
    assertWireInteger(usage.input, `${field}.input`, "HEP's turn_done.usage.input", HEP);
  if (usage.output !== undefined)
    assertWireInteger(usage.output, `${field}.output`, "HEP's turn_done.usage.output", HEP);
  if (usage.costUsd !== undefined) assertFiniteNumber(usage.costUsd, `${field}.costUsd`, HEP);
}

/**
 * The usage of a run's end that its last `turn_done` carries ({@link runEndFrames}: a completed
 * run whose round is still open, or that wrote none, and whose rounds carried no usage), else
 * `undefined`: any other run's end compares its usage, or reports it lost, and writes none.
 */
function lastDoneUsage(w: Writer, event: AgentEventOf<'run.end'>): Usage | undefined {
  const status = event.status;
  if (w[RUN_ENDED] || status === 'incomplete' || status === 'cancelled' || status === 'failed')
    return undefined;
  const open = w[ROUND_WRITTEN] || w[RESULTS].length > 0;
  if (!open && w[DONE_WRITTEN]) return undefined;
  return w[ROUNDS_USAGE] === undefined ? event.usage : undefined;
}

function takesRound(event: AgentEvent): boolean {
  if (event.type === 'run.end') return event.status === 'failed' || event.status === 'cancelled';
  return TURN_FRAMES.has(event.type);
}

// The event types whose frames carry a turn id.
const TURN_FRAMES: ReadonlySet<AgentEvent['type']> = new Set<AgentEvent['type']>([
  'run.start',
  'message.start',
  'text.delta',
  'tool.start',
  'tool.output',
  'tool.liveness',
  'tool.end',
  'round.end',
  'error',
  'cancel',
  'compaction.start',
  'compaction.end',
]);

function writeEvent(w: Writer, event: AgentEvent): string {
  switch (event.type) {
    case 'session.start':
      checkLoss(w[LOSS], event, CARRIED['session.start']);
      if (w[HEADER_WRITTEN]) {
        reportLoss(
          w[LOSS],
          event,
          'session.start',
          'HEP has one session per stream; a second header is not written',
        );
        return '';
      }
      return header(w, event);
    case 'run.start': {
      checkLoss(w[LOSS], event, CARRIED['run.start']);
      let text = ensureHeader(w, event);
      if (w[AGENT_START_EMITTED]) {
        reportLoss(
          w[LOSS],
          event,
          'run.start',
          'HEP carries one run per stream (one fa process): a later run continues as more rounds of the first',
        );
        return text;
      }
      w[AGENT_START_EMITTED] = true;
      const id = turnId(w, event);
      text += frame('agent_start', [['turn_id', formatInteger(id, 'turn_id')]], event);
      return text;
    }
    case 'message.start':
      checkLoss(w[LOSS], event, CARRIED['message.start']);
      return ensureHeader(w, event) + messageStart(w, turnId(w, event), event);
    case 'text.delta':
      return textDelta(w, event);
    case 'tool.start':
      return toolStart(w, event);
    case 'tool.output':
      return toolOutput(w, event);
    case 'tool.liveness': {
      checkLoss(w[LOSS], event, CARRIED['tool.liveness']);
      const pieces: Array<[string, string]> = [
        ['turn_id', String(turnId(w, event))],
        ['id', str(event.call, 'tool.liveness.call')],
        ['name', str(event.name ?? '', 'tool.liveness.name')],
        ['action', str(event.action, 'tool.liveness.action')],
        ['elapsed_ms', formatInteger(event.elapsedMs, 'tool.liveness.elapsedMs')],
      ];
      if (event.outputBytes !== undefined) {
        pieces.push(['output_bytes', formatInteger(event.outputBytes, 'tool.liveness.outputBytes')]);
      }
      if (event.detail !== undefined && event.detail !== '') {
        pieces.push(['detail', str(event.detail, 'tool.liveness.detail')]);
      }
      return ensureHeader(w, event) + frame('tool_liveness', pieces, event);
    }
    case 'tool.end':
      return toolEnd(w, event);
    case 'round.end':
      checkLoss(w[LOSS], event, CARRIED['round.end']);
      return ensureHeader(w, event) + turnDone(w, event, event.message, event.stopReason, event.usage);
    case 'error': {
      checkLoss(w[LOSS], event, CARRIED.error);
      if (!event.fatal && w[OPEN_TURN_ID] === undefined && event.round === undefined) {
        // A recoverable error outside any round has no HEP frame.
        reportLoss(w[LOSS], event, 'error', 'HEP has no frame for a recoverable error outside a round');
        return '';
      }
      // A provider error ends a round whose message had started (the reference's stream starts it).
      const text = ensureHeader(w, event) + flushResultsAsLoss(w, event) + impliedMessageStart(w, event);
      const id = turnId(w, event);
      closeRound(w);
      if (!event.fatal) {
        w[HELD_ERROR] = [event, id];
        return text;
      }
      w[RUN_ENDED] = true;
      return text + turnError(event, id, true);
    }
    case 'cancel': {
      checkLoss(w[LOSS], event, CARRIED.cancel);
      const text = ensureHeader(w, event) + flushResultsAsLoss(w, event);
      const id = turnId(w, event);
      closeRound(w);
      w[RUN_ENDED] = true;
      return text + frame('cancelled', [['turn_id', String(id)]], event);
    }
    case 'compaction.start': {
      checkLoss(w[LOSS], event, CARRIED['compaction.start']);
      const text = ensureHeader(w, event);
      const id =
        w[ALLOCATE] || typeof event.round !== 'number'
          ? (w[OPEN_TURN_ID] ??= w[NEXT_TURN_ID]++)
          : take(w, event.round);
      w[COMPACTING] = true;
      return text + frame('compaction_start', [['turn_id', String(id)]], event);
    }
    case 'compaction.end': {
      checkLoss(w[LOSS], event, CARRIED['compaction.end']);
      let text = ensureHeader(w, event);
      if (!w[COMPACTING]) {
        // HEP brackets every compaction: an end from a format without starts gets its start.
        const open =
          w[ALLOCATE] || typeof event.round !== 'number'
            ? (w[OPEN_TURN_ID] ??= w[NEXT_TURN_ID]++)
            : take(w, event.round);
        text += frame('compaction_start', [['turn_id', String(open)]], undefined);
      }
      w[COMPACTING] = false;
      const id =
        w[ALLOCATE] || typeof event.round !== 'number'
          ? (w[OPEN_TURN_ID] ?? w[NEXT_TURN_ID] - 1)
          : event.round;
      return (
        text +
        frame(
          'compaction_end',
          [
            ['turn_id', formatInteger(id, 'turn_id')],
            ['tokens_freed', formatInteger(event.tokensFreed ?? 0, 'compaction.end.tokensFreed')],
          ],
          event,
        )
      );
    }
    case 'run.end':
      checkLoss(w[LOSS], event, CARRIED['run.end']);
      return runEnd(w, event);
    case 'unknown':
      assertRecordWritable(event);
      checkLoss(w[LOSS], event, CARRIED.unknown);
      return ensureHeader(w, event) + unknownRecord(w, event);
    default:
      reportLoss(w[LOSS], event, event.type, `HEP has no frame for ${event.type} events`);
      return '';
  }
}

// The frequent events (a round's deltas, its tools), each in a function of its own: small enough
// to be optimised, and inlined into the dispatch, apart from the switch over every type.
function toolStart(w: Writer, event: AgentEventOf<'tool.start'>): string {
  checkLoss(w[LOSS], event, CARRIED['tool.start']);
  const head = ensureHeader(w, event) + impliedMessageStart(w, event);
  const turn = String(turnId(w, event));
  const id = str(event.call, 'tool.start.call');
  const name = str(event.name, 'tool.start.name');
  const summary = jsonString(argsSummary(w, event));
  if (HEP_TEMPLATES.enabled && plain(event)) {
    return `${head}{"type":"tool_start","turn_id":${turn},"id":${id},"name":${name},"args_summary":${summary}}\n`;
  }
  return (
    head +
    frame(
      'tool_start',
      [
        ['turn_id', turn],
        ['id', id],
        ['name', name],
        ['args_summary', summary],
      ],
      event,
    )
  );
}

function toolOutput(w: Writer, event: AgentEventOf<'tool.output'>): string {
  checkLoss(w[LOSS], event, CARRIED['tool.output']);
  if (event.text === '') return '';
  collectOutput(w, event.call, event.text);
  const head = ensureHeader(w, event);
  const turn = String(turnId(w, event));
  const id = str(event.call, 'tool.output.call');
  const update = longText(event.text, 'tool.output.text');
  if (plain(event)) return head + hepToolDeltaLine(turn, id, update);
  return (
    head +
    frame(
      'tool_delta',
      [
        ['turn_id', turn],
        ['id', id],
        ['update', update],
      ],
      event,
    )
  );
}

function toolEnd(w: Writer, event: AgentEventOf<'tool.end'>): string {
  assertResultWritable(w, event);
  checkLoss(w[LOSS], event, CARRIED['tool.end']);
  const text = ensureHeader(w, event);
  turnId(w, event);
  const result = toolResult(w, event);
  w[RESULTS].push(result);
  w[HELD_CHARS] += result.length;
  if (w[HELD_CHARS] > HEP_MAX_HELD_RESULT_CHARS && (w[ALLOCATE] || typeof event.round !== 'number')) {
    return text + cutRound(w, event);
  }
  return text;
}

function textDelta(w: Writer, event: AgentEventOf<'text.delta'>): string {
  checkLoss(w[LOSS], event, CARRIED['text.delta']);
  const head = ensureHeader(w, event) + impliedMessageStart(w, event);
  const turn = String(turnId(w, event));
  const delta = longText(event.text, 'text.delta.text');
  if (plain(event)) return head + hepMessageDeltaLine(turn, delta);
  return (
    head +
    frame(
      'message_delta',
      [
        ['turn_id', turn],
        ['delta', delta],
      ],
      event,
    )
  );
}

function turnError(event: AgentEventOf<'error'>, id: number, fatal: boolean): string {
  return frame(
    'turn_error',
    [
      ['turn_id', String(id)],
      ['error', str(event.message, 'error.message')],
      ['fatal', fatal ? 'true' : 'false'],
    ],
    event,
  );
}

// The held recoverable error's turn_error (fatal when the run failed right after it).
function heldErrorFrame(w: Writer, fatal: boolean): string {
  const held = w[HELD_ERROR];
  if (held === undefined) return '';
  w[HELD_ERROR] = undefined;
  if (fatal) w[RUN_ENDED] = true;
  return turnError(held[0], held[1], fatal);
}

// The event after a recoverable error: a run.end(failed) makes it the error that ended the run
// (formats such as Claude report a failed run as an error message, then a failed result).
function afterHeldError(w: Writer, event: AgentEvent): string {
  // Refused before the held frame is written, or the refusal takes it down.
  if (event.type === 'tool.end') assertResultWritable(w, event);
  else if (event.type === 'unknown') assertRecordWritable(event);
  const fatal = event.type === 'run.end' && event.status === 'failed';
  return heldErrorFrame(w, fatal) + writeEvent(w, event);
}

// HEP ends a run by ending the process: the run's last frame says how (hep.md, "Writing").
function runEnd(w: Writer, event: AgentEventOf<'run.end'>): string {
  if (event.error !== undefined && event.status !== 'failed') {
    reportLoss(
      w[LOSS],
      event,
      'run.end.error',
      'HEP writes a run error only as the turn_error of a failed run',
    );
  }
  const text = runEndFrames(w, event);
  w[DONE_WRITTEN] = false;
  w[ROUNDS_USAGE] = undefined;
  return text;
}

function runEndFrames(w: Writer, event: AgentEventOf<'run.end'>): string {
  // A run already ended by cancelled or a fatal turn_error gets no second terminal frame;
  // results that came after it have no place.
  if (w[RUN_ENDED]) {
    w[RUN_ENDED] = false;
    runUsage(w, event, false);
    return flushResultsAsLoss(w, event);
  }
  // A round with frames (or held results) still waits for its terminal frame.
  const open = w[ROUND_WRITTEN] || w[RESULTS].length > 0;
  switch (event.status) {
    case 'incomplete':
      return incompleteEnd(w, event);
    case 'cancelled': {
      runUsage(w, event, false);
      const text = ensureHeader(w, event) + flushResultsAsLoss(w, event);
      // After a round that ended, the cancel is a round of its own (the next id).
      const id = open ? turnId(w, event) : nextTurn(w);
      closeRound(w);
      return text + frame('cancelled', [['turn_id', String(id)]], undefined);
    }
    case 'failed': {
      runUsage(w, event, false);
      let text = ensureHeader(w, event) + flushResultsAsLoss(w, event);
      const id = open ? turnId(w, event) : nextTurn(w);
      text += messageStartAt(w, id);
      closeRound(w);
      return (
        text +
        frame(
          'turn_error',
          [
            ['turn_id', String(id)],
            ['error', str(event.error ?? 'run failed', 'run.end.error')],
            ['fatal', 'true'],
          ],
          undefined,
        )
      );
    }
    default: {
      // Completed: a run whose last round ended with turn_done reads back completed as it is. A
      // round still open gets its turn_done, and a run with none gets one, or a HEP reader
      // would end it incomplete.
      if (!open && w[DONE_WRITTEN]) {
        runUsage(w, event, false);
        return '';
      }
      const usage = runUsage(w, event, true);
      return (
        ensureHeader(w, event) + turnDone(w, undefined, event.answer ?? '', event.stopReason, usage, event)
      );
    }
  }
}

// A run the source never ended (docs/model.md, "Run outcome"). HEP has no frame for that: a HEP
// stream that ends without a terminal frame reads back incomplete, so no terminal frame ends the
// run. Held results, which only turn_done carries, end their round with one (`toolUse`: the model
// goes on after its tools), and a message_start opens the next round, left open: the results are
// kept and the run still reads back incomplete, the same on every round trip. A run whose last
// round already ended with a turn_done and nothing after reads back completed: a loss.
function incompleteEnd(w: Writer, event: AgentEventOf<'run.end'>): string {
  runUsage(w, event, false);
  if (w[RESULTS].length > 0) {
    const text = ensureHeader(w, event) + turnDone(w, undefined, '', 'toolUse', undefined);
    return text + messageStart(w, nextTurn(w), undefined);
  }
  if (w[DONE_WRITTEN] && !w[ROUND_WRITTEN]) {
    reportLoss(
      w[LOSS],
      event,
      'run.end.status',
      'HEP has no frame for an incomplete run, and its last round ended with a turn_done: a HEP reader ends the run completed',
    );
  }
  // The round stays open: events after it (a later run, which HEP continues as more rounds) go on
  // in it, as a stream with no end would.
  return '';
}

// The run's total (run.end.usage) against what a HEP reader totals: the sum of the run's
// turn_done usage. When no round carried usage (formats that report it per run only: Gemini,
// Cursor, AG-UI, AI SDK) and a turn_done is being written for the run's end, the total goes on it
// (returned); a total HEP would read back otherwise (zero, or another sum) is a loss, never
// silently zeroed. What HEP's usage cannot hold (cache counts, reasoning) is a loss as well.
function runUsage(w: Writer, event: AgentEventOf<'run.end'>, onLastDone: boolean): Usage | undefined {
  const total = event.usage;
  if (total === undefined) return undefined;
  const rounds = w[ROUNDS_USAGE];
  if (rounds === undefined && onLastDone) return total;
  usageLoss(w, event, total, 'run.end.usage');
  const input = rounds?.input ?? 0;
  const output = rounds?.output ?? 0;
  const cost = rounds?.costUsd ?? 0;
  if (
    (total.input ?? 0) !== input ||
    (total.output ?? 0) !== output ||
    (total.costUsd !== undefined && total.costUsd !== cost)
  ) {
    reportLoss(
      w[LOSS],
      event,
      'run.end.usage',
      rounds === undefined
        ? "HEP carries usage on turn_done only, and the run's rounds carried none: its total has no place"
        : "HEP totals a run from its turn_done usage, and the run's total differs from its rounds' sum",
    );
  }
  return undefined;
}

// Usage figures HEP's `{input, output, cost}` has no place for. `field` names the event's usage.
function usageLoss(w: Writer, event: AgentEvent, usage: Usage, field: string): void {
  if (usage.cacheRead !== undefined) reportLoss(w[LOSS], event, `${field}.cacheRead`, USAGE_LOSS);
  if (usage.cacheWrite !== undefined) reportLoss(w[LOSS], event, `${field}.cacheWrite`, USAGE_LOSS);
  if (usage.reasoning !== undefined) reportLoss(w[LOSS], event, `${field}.reasoning`, USAGE_LOSS);
  if (usage.model !== undefined) reportLoss(w[LOSS], event, `${field}.model`, USAGE_LOSS);
  if (usage.byModel !== undefined) reportLoss(w[LOSS], event, `${field}.byModel`, USAGE_LOSS);
}

const USAGE_LOSS = 'HEP usage holds input, output and cost only';

function endWrite(w: Writer): string {
  // Only buffered tool results force a terminal frame: an open round without them is a stream
  // cut mid-round, and inventing its end would not be byte-exact.
  if (w[RESULTS].length > 0 && !w[RUN_ENDED]) {
    return turnDone(w, undefined, '', undefined, undefined);
  }
  return '';
}

function header(w: Writer, event: AgentEventOf<'session.start'> | undefined): string {
  const session = event?.session ?? w[OPTIONS].session ?? (w[OPTIONS].idSource ?? defaultId)();
  const version = event?.protocol !== undefined && isHepV1(event.protocol) ? event.protocol : HEP_VERSION;
  const fah = event?.producer ?? w[OPTIONS].producer ?? 'agentwire';
  const text = frame(
    'hep_header',
    [
      ['hep', str(version, 'session.start.protocol')],
      ['fah', str(fah, 'session.start.producer')],
      ['session', str(session, 'session.start.session')],
    ],
    event,
  );
  // Marked written once its fields are (a session of no string refuses the event, header and all).
  w[HEADER_WRITTEN] = true;
  return text;
}

function ensureHeader(w: Writer, event: AgentEvent): string {
  if (w[HEADER_WRITTEN]) return '';
  const session = event.session;
  if (session !== undefined) return header(w, { type: 'session.start', session });
  return header(w, undefined);
}

function take(w: Writer, round: number): number {
  w[OPEN_TURN_ID] = round;
  if (round >= w[NEXT_TURN_ID]) w[NEXT_TURN_ID] = round + 1;
  return round;
}

// The reference's lazy allocation: the first frame of a round takes the next id.
function turnId(w: Writer, event: AgentEvent): number {
  w[ROUND_WRITTEN] = true;
  if (!w[ALLOCATE] && typeof event.round === 'number') {
    if (!Number.isSafeInteger(event.round)) formatInteger(event.round, 'round');
    return take(w, event.round);
  }
  w[OPEN_TURN_ID] ??= w[NEXT_TURN_ID]++;
  return w[OPEN_TURN_ID];
}

// The next id for a round the writer opens itself (a run's end after its last round ended).
function nextTurn(w: Writer): number {
  w[ROUND_WRITTEN] = true;
  w[OPEN_TURN_ID] ??= w[NEXT_TURN_ID]++;
  return w[OPEN_TURN_ID];
}

// The message_start a round from another format lacks (`messageStarts: 'each-round'`).
function impliedMessageStart(w: Writer, event: AgentEvent): string {
  if (w[MESSAGE_OPEN] || w[OPTIONS].messageStarts !== 'each-round') return '';
  return messageStartAt(w, turnId(w, event));
}

// impliedMessageStart for round `id`.
function messageStartAt(w: Writer, id: number): string {
  if (w[MESSAGE_OPEN] || w[OPTIONS].messageStarts !== 'each-round') return '';
  return messageStart(w, id, undefined);
}

// The message_start frame of round `id`, which opens the round's message.
function messageStart(w: Writer, id: number, event: AgentEvent | undefined): string {
  w[MESSAGE_OPEN] = true;
  if (HEP_TEMPLATES.enabled && (event === undefined || plain(event)))
    return `{"type":"message_start","turn_id":${id},"role":"assistant"}\n`;
  return frame(
    'message_start',
    [
      ['turn_id', String(id)],
      ['role', '"assistant"'],
    ],
    event,
  );
}

// Ends a round the writer made up whose held results passed HEP_MAX_HELD_RESULT_CHARS.
function cutRound(w: Writer, event: AgentEvent): string {
  reportLoss(
    w[LOSS],
    event,
    'round',
    `tool results held for one round passed ${HEP_MAX_HELD_RESULT_CHARS} characters: the round is ended with a turn_done and the next event opens another`,
  );
  return turnDone(w, undefined, '', 'toolUse', undefined);
}

function closeRound(w: Writer): void {
  w[HELD_CHARS] = 0;
  w[MESSAGE_OPEN] = false;
  w[OPEN_TURN_ID] = undefined;
  w[ROUND_WRITTEN] = false;
}

function argsSummary(w: Writer, event: AgentEventOf<'tool.start'>): string {
  if (event.argsSummary !== undefined) {
    const s = event.argsSummary;
    if (typeof s !== 'string') str(s, 'tool.start.argsSummary');
    return s.charCodeAt(0) === 123 ? boundText(s, HEP_FULL_ARGS_CAP) : boundSummary(s, HEP_SUMMARY_ARGS_CAP);
  }
  if (event.args !== undefined) {
    try {
      assertEncodable(event.args, 'tool.start.args', undefined, 'hep');
    } catch (error) {
      // The reference writes what JSON cannot hold as [unserializable]; say so.
      reportLoss(
        w[LOSS],
        event,
        'tool.start.args',
        `${(error as Error).message}; written as [unserializable], as the reference writer does`,
      );
    }
    const summary = hepArgsSummary(event.args, w[MODE]);
    if (w[MODE] === 'summary') {
      reportLoss(
        w[LOSS],
        event,
        'tool.start.args',
        'summary mode writes key=value text that cannot be read back as an args object (use args: "full")',
      );
    } else if (summary.length > HEP_FULL_ARGS_CAP) {
      reportLoss(w[LOSS], event, 'tool.start.args', 'args longer than 4000 characters are cut (…(+N chars))');
    }
    return summary;
  }
  return w[MODE] === 'full' ? '{}' : '';
}

/**
 * Throws now what writing the result of `event` as JSON text would throw (a value JSON cannot
 * hold; written only when the call has no text, streamed output or error text), before the
 * writer writes its header, takes a turn id, forgets the call's output, writes a held error or
 * reports the event's losses (each said once: a refused event took a later one's with it).
 */
function assertResultWritable(w: Writer, event: AgentEventOf<'tool.end'>): void {
  const r = event.result;
  if (event.text !== undefined || r === undefined || r === null || typeof r === 'string') return;
  if (typeof event.error === 'string' && event.error !== '') return;
  const streamed = w[OUTPUTS].get(event.call);
  if (streamed !== undefined && streamed.length > 0) return;
  assertEncodable(r, 'tool.end.result', undefined, 'hep');
}

/** {@link assertResultWritable} for an `unknown` event: a HEP frame of its own is written as JSON. */
function assertRecordWritable(event: AgentEventOf<'unknown'>): void {
  const r = event.record;
  const p = event.provenance;
  if (isJsonObject(r) && typeof r.type === 'string' && (p === undefined || p.format === 'hep'))
    assertEncodable(r, 'unknown.record', undefined, 'hep');
}

// A tool.end without text (a live nativeharness tool_result, say) gets the output streamed for
// its call: turn_done's text is the tool's output. Only what the 2000 bound keeps is held, plus
// the count for the …(+N chars) marker, so memory stays bounded.
function collectOutput(w: Writer, call: string, text: string): void {
  let held = w[OUTPUTS].get(call);
  if (held === undefined) {
    if (w[OUTPUTS].size >= 1024) return; // calls that never end: stop collecting, not growing
    held = { text: '', length: 0 };
    w[OUTPUTS].set(call, held);
  }
  if (held.text.length <= HEP_TOOL_RESULT_TEXT_CAP) {
    held.text += text.slice(0, HEP_TOOL_RESULT_TEXT_CAP + 1 - held.text.length);
  }
  held.length += text.length;
}

function toolResult(w: Writer, event: AgentEventOf<'tool.end'>): string {
  let text = event.text;
  const streamed = w[OUTPUTS].get(event.call);
  w[OUTPUTS].delete(event.call);
  if (text === undefined && streamed !== undefined && streamed.length > 0) {
    text =
      streamed.length > HEP_TOOL_RESULT_TEXT_CAP
        ? `${streamed.text.slice(0, HEP_TOOL_RESULT_TEXT_CAP)}…(+${streamed.length - HEP_TOOL_RESULT_TEXT_CAP} chars)`
        : streamed.text;
  }
  if (text === undefined) {
    if (typeof event.error === 'string' && event.error !== '') text = event.error;
    else if (event.result !== undefined) {
      // Checked by assertResultWritable.
      text =
        typeof event.result === 'string'
          ? event.result
          : event.result === null
            ? ''
            : (JSON.stringify(event.result) ?? '');
    } else text = '';
  } else if (event.error !== undefined && event.error !== null && event.error !== '') {
    reportLoss(
      w[LOSS],
      event,
      'tool.end.error',
      'HEP tool results carry one text; the error text was not written',
    );
  }
  const id = str(event.call, 'tool.end.call');
  const name = str(event.name ?? '', 'tool.end.name');
  const ok = event.ok ? 'true' : 'false';
  const body = longText(boundText(text, HEP_TOOL_RESULT_TEXT_CAP), 'tool.end.text');
  const rest = restOf(event);
  // No fields of its own: the record joinRecord builds from these pieces, as one template.
  if (HEP_TEMPLATES.enabled && rest === undefined)
    return `{"id":${id},"name":${name},"ok":${ok},"text":${body}}`;
  const pieces: Array<[string, string]> = [
    ['id', id],
    ['name', name],
    ['ok', ok],
    ['text', body],
  ];
  return joinRecord(pieces, rest, encodeValue, 'hep');
}

// `runEnd`: the run.end whose total `usage` is (written on the run's last turn_done).
function turnDone(
  w: Writer,
  event: AgentEventOf<'round.end'> | undefined,
  message: string,
  stopReason: string | undefined,
  usage: Usage | undefined,
  runEnd?: AgentEventOf<'run.end'>,
): string {
  const id = event === undefined ? (w[OPEN_TURN_ID] ??= w[NEXT_TURN_ID]++) : turnId(w, event);
  const results = toolResults(w[RESULTS]);
  w[RESULTS] = [];
  closeRound(w);
  w[DONE_WRITTEN] = true;
  if (usage !== undefined)
    roundUsage(w, event ?? runEnd!, usage, event === undefined ? 'run.end.usage' : 'round.end.usage');
  const hints = hintsOf(event);
  const input = formatInteger(usage?.input ?? 0, 'usage.input');
  const output = formatInteger(usage?.output ?? 0, 'usage.output');
  const cost = formatDouble(usage?.costUsd ?? 0, 'usage.costUsd', 'hep');
  const usageText =
    HEP_TEMPLATES.enabled &&
    (hints === undefined || (hints.usageExtra === undefined && hints.usageOrder === undefined))
      ? // The record joinRecord builds from these pieces with no fields of its own, as one template.
        `{"input":${input},"output":${output},"cost":${cost}}`
      : joinRecord(
          [
            ['input', input],
            ['output', output],
            ['cost', cost],
          ],
          hints === undefined ? undefined : { extra: hints.usageExtra, order: hints.usageOrder },
          encodeValue,
          'hep',
        );
  const turn = formatInteger(id, 'turn_id');
  const text = str(message, 'round.end.message');
  const stop = str(stopReason ?? 'stop', 'round.end.stopReason');
  // The common frame (a round.end from another format, or one with no fields of its own or kept
  // line): what frame() builds from these pieces, as one template.
  if (HEP_TEMPLATES.enabled && (event === undefined || plain(event))) {
    return `{"type":"turn_done","turn_id":${turn},"message":${text},"tool_results":${results},"usage":${usageText},"stop_reason":${stop}}\n`;
  }
  return frame(
    'turn_done',
    [
      ['turn_id', turn],
      ['message', text],
      ['tool_results', results],
      ['usage', usageText],
      ['stop_reason', stop],
    ],
    event,
  );
}

// The tool_results array text. Concatenated, not joined: join copies every result into one flat
// string, which the caller's line is copied from again when it is written out.
function toolResults(results: string[]): string {
  if (results.length === 0) return '[]';
  let text = `[${results[0]}`;
  for (let i = 1; i < results.length; i++) text += `,${results[i]}`;
  return `${text}]`;
}

// What a turn_done's usage adds to the run's total as a HEP reader sums it (rare path: per round).
function roundUsage(w: Writer, event: AgentEvent, usage: Usage, field: string): void {
  usageLoss(w, event, usage, field);
  addUsage((w[ROUNDS_USAGE] ??= { input: 0, output: 0, costUsd: 0 }), {
    input: usage.input ?? 0,
    output: usage.output ?? 0,
    costUsd: usage.costUsd ?? 0,
  });
}

// A terminal error or cancel ends the round without tool_results: say what is dropped.
function flushResultsAsLoss(w: Writer, event: AgentEvent): string {
  if (w[RESULTS].length > 0) {
    reportLoss(
      w[LOSS],
      event,
      'tool.end',
      `${w[RESULTS].length} tool result(s) of a round that ended in ${event.type} have no place in HEP (turn_error and cancelled carry no tool_results)`,
    );
    w[RESULTS] = [];
    w[HELD_CHARS] = 0;
  }
  return '';
}

function unknownRecord(w: Writer, event: AgentEventOf<'unknown'>): string {
  const record = event.record;
  if (!isJsonObject(record) || typeof record.type !== 'string') {
    reportLoss(w[LOSS], event, 'unknown.record', 'HEP frames are JSON objects with a string "type"');
    return '';
  }
  if (event.provenance !== undefined && event.provenance.format !== 'hep') {
    reportForeignRecord(w[LOSS], event, 'HEP frame');
    return '';
  }
  return `${asWritten(JSON.stringify(record), event)}\n`;
}

// No fields of its own or kept line to restore: the frame is the text frame() builds from its
// pieces, so the frequent frames are written as one template (wire.ts), with no piece arrays
// (docs/performance.md, "Figures behind source comments").
function plain(event: AgentEvent): boolean {
  const p = event.provenance;
  return (
    p === undefined ||
    p.format !== 'hep' ||
    (p.extra === undefined && p.order === undefined && p.hints === undefined)
  );
}

function restOf(event: AgentEvent): { extra?: JsonObject; order?: string[] } | undefined {
  const p = event.provenance;
  if (p === undefined || p.format !== 'hep' || (p.extra === undefined && p.order === undefined))
    return undefined;
  return { extra: p.extra, order: p.order } as { extra?: JsonObject; order?: string[] };
}

// The line as the decoder kept it (`hints.raw`: a Dart `1.0` in an unknown field, say), while
// the event still says what that line says; else `text`.
function asWritten(text: string, event: AgentEvent): string {
  const hints = hintsOf(event);
  return hints === undefined ? text : rawIfSame(hints.raw, text);
}

function frame(type: string, pieces: Array<[string, string]>, event: AgentEvent | undefined): string {
  const rest = event === undefined ? undefined : restOf(event);
  if (rest === undefined) {
    // The common case: known keys in the reference order. HEP keys are plain ASCII names that
    // JSON needs no escapes for, so the text is concatenated directly.
    let text = `{"type":"${type}"`;
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      text += `,"${piece[0]}":${piece[1]}`;
    }
    text += '}';
    // Only a turn_done with fields of its own in a tool result or usage has a kept line here.
    return `${event === undefined ? text : asWritten(text, event)}\n`;
  }
  pieces.unshift(['type', `"${type}"`]);
  return `${asWritten(joinRecord(pieces, rest, encodeValue, 'hep'), event!)}\n`;
}
