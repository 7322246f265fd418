import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import {
  assertArgsWritable,
  assertEncodable,
  assertFiniteNumber,
  assertText,
  assertTextList,
  assertWireInteger,
  isJsonObject,
  type JsonObject,
  rawIfSame,
  requireObject,
  requireText,
  wrongType,
} from '../../json';
import {
  checkLoss,
  type LossState,
  lossReported,
  newLoss,
  reportForeignRecord,
  reportLoss,
} from '../../loss';
import type { AgentEvent, AgentEventOf, Provenance } from '../../model';
import { newRunSpan, type RunSpan, SPAN_CUT, SPAN_WROTE, spanAfter, spanBefore } from '../../run-span';
import { joinPy, pyDumps, pyFloat, pyKey } from './pyjson';
import { HIGHBAR, type HighbarHints, highbarToolLine } from './wire';

/** Options of the highbar writer. */
export interface HighbarEncodeOptions extends EncodeOptions {
  /**
   * The clock for records whose event has no `ts` (events built by hand), in ms since the epoch.
   * Default `Date.now`. Inject one for deterministic output. (The same option as nativeharness's
   * and the emitters' `clock`.)
   */
  clock?: () => number;
  /** @deprecated The old name of {@link HighbarEncodeOptions.clock}; used when `clock` is absent. */
  now?: () => number;
}

// Fields each event type carries into highbar; anything else present is reported as a loss.
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'session.start': ['ts', 'context', 'producer', 'pid', 'tools'],
  'tools.declare': ['ts', 'context', 'tools'],
  'run.start': ['ts', 'context', 'input'],
  'run.end': ['ts', 'context', 'status', 'answer', 'input'],
  'tool.start': ['ts', 'context', 'call', 'name', 'args', 'startedAt'],
  'tool.end': ['ts', 'context', 'call', 'name', 'ok', 'result', 'text', 'error', 'startedAt', 'endedAt'],
  unknown: ['ts', 'context', 'record', 'recordType'],
};

// tool.start with args: its argsSummary is carried too (args say it all).
const CARRIED_TOOL_START_ARGS: readonly string[] = [...CARRIED['tool.start']!, 'argsSummary'];

// The call id a highbar reader gives a call (docs/protocols/highbar.md).
const HB_CALL = /^hb-\d+$/;

function isFailure(error: unknown): boolean {
  return !(error === undefined || error === null || error === false || error === '');
}

/**
 * One record's `"key": value` pairs. Without a key order to restore they are joined as they come
 * (no pair arrays); a line with its own key order collects them and {@link joinPy} sorts them.
 * An array of named slots, not a class: an array's hidden class outlives the forced GC that
 * collects a class's, with the per-event code that embedded it (docs/performance.md, "highbar
 * writer, round seven").
 */
type Fields = [
  // The highbar provenance the record comes from (its extra fields, hints and key order).
  provenance: Provenance | undefined,
  text: string,
  pieces: Array<[string, string]> | undefined,
  order: readonly string[] | undefined,
];

const F_PROVENANCE = 0;
const F_TEXT = 1;
const F_PIECES = 2;
const F_ORDER = 3;

function newFields(order: readonly string[] | undefined, provenance?: Provenance): Fields {
  return [provenance, '', order !== undefined ? [] : undefined, order];
}

function add(f: Fields, key: string, value: string): void {
  const pieces = f[F_PIECES];
  if (pieces !== undefined) pieces.push([key, value]);
  else if (f[F_TEXT] === '') f[F_TEXT] = keyText(key).first + value;
  else f[F_TEXT] += keyText(key).next + value;
}

function join(f: Fields): string {
  const pieces = f[F_PIECES];
  return pieces !== undefined ? joinPy(pieces, f[F_ORDER]) : `{${f[F_TEXT]}}`;
}

interface KeyText {
  first: string; // `"key": `
  next: string; // `, "key": `
}

// A record's keys as written before their values, for the keys records repeat (bounded: keys
// from data vary): one concatenation per field instead of four.
const keyTexts = new Map<string, KeyText>();

function keyText(key: string): KeyText {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = { first: `${pyKey(key)}: `, next: `, ${pyKey(key)}: ` };
    if (keyTexts.size < 512) keyTexts.set(key, text);
  }
  return text;
}

// One tool call as the writer has it from its start and end events.
interface ToolCall {
  name: string;
  args: unknown;
  result: unknown;
  error: unknown;
  ts: number | undefined;
  startedAt: number | undefined;
  endedAt: number | undefined;
  context: unknown;
}

function highbarProvenance(event: AgentEvent | undefined): Provenance | undefined {
  const p = event?.provenance;
  return p !== undefined && p.format === HIGHBAR ? p : undefined;
}

// The writer's state: an array of named slots, not class fields, for the reason Fields is one.
type Writer = [
  loss: LossState,
  clock: () => number,
  starts: Map<string, AgentEventOf<'tool.start'>>,
  runInput: string | undefined,
  lastMs: number,
  lastSeconds: string,
  // Another format's runs: a run a stream cut off has no turn record, so it ends only where the
  // trace ends.
  span: RunSpan,
];

const LOSS = 0;
const CLOCK = 1;
const STARTS = 2;
const RUN_INPUT = 3;
const LAST_MS = 4;
const LAST_SECONDS = 5;
const SPAN = 6;

/**
 * The highbar trace writer: canonical events → contract lines, byte-exact in Python
 * `json.dumps` style with the contract's key order (`v`, `type`, `ts`, fields, `context`).
 * `tool.start` waits for its `tool.end` (by call id) and the pair becomes one `tool` record;
 * `run.end` is a `turn`; `session.start` a `hello`; `tools.declare` a `tools`; `run.start` writes
 * nothing (its `input` goes into the next `turn` that has none). Other events are `loss`es,
 * reported to `sink`.
 */
export function createHighbarEncoder(options: HighbarEncodeOptions, sink: DiagnosticSink): Encoder {
  const w: Writer = [
    newLoss(HIGHBAR, sink),
    options.clock ?? options.now ?? Date.now,
    new Map(),
    undefined,
    Number.NaN,
    '',
    newRunSpan(),
  ];
  return new HighbarEncoder(w);
}

/**
 * The encoder: the writer's state in its element 0, `write` and `end` on the prototype (the Amp
 * writer's shape): one call target and one hidden class for every encoder, where a literal of
 * two closures per encoder gave a caller's loop a new `write` target each time (docs/performance.md,
 * "Codex writer as `CodexEncoder`", round twenty-two).
 */
class HighbarEncoder implements Encoder {
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

function writeEvent(w: Writer, event: AgentEvent): string {
  // A call is written at its end (or at the stream's): arguments JSON cannot hold are refused
  // now, as the start's own refusal, not at that later write, which they would take down.
  assertArgsWritable(event, HIGHBAR);
  // Its reader takes none but a safe integer (a fractional or unsafe one was written, and read
  // back as the record's bare `pid: Invalid input`): refused before the losses are reported.
  if (event.type === 'session.start' && event.pid !== undefined)
    assertWireInteger(event.pid, 'session.start.pid', "highbar's hello.pid", HIGHBAR);
  // And what its record would refuse, before a loss is reported for it or anything is kept or
  // written (a run's open calls, its input).
  assertRecordWritable(w, event);
  const carried = CARRIED[event.type];
  if (carried === undefined) {
    reportLoss(w[LOSS], event, event.type, 'highbar has no record for this event');
    return '';
  }
  if (event.type === 'tool.start' && event.args !== undefined) {
    checkLoss(w[LOSS], event, CARRIED_TOOL_START_ARGS);
  } else if (event.type !== 'tool.end') checkLoss(w[LOSS], event, carried);
  switch (event.type) {
    // Another format's runs are followed for what a trace cannot say of them (run-span.ts): the
    // records that count as the open run's output set `wrote` here, in the switch, not in a
    // wrapper around it (a call level that cost the writer ~5 %: docs/performance.md).
    case 'session.start': {
      w[SPAN][SPAN_WROTE] = true;
      const pieces = head(w, 'hello', event);
      if (event.producer !== undefined) add(pieces, 'sdk', pyDumps(event.producer, 'producer'));
      if (event.pid !== undefined) add(pieces, 'pid', pyDumps(event.pid, 'pid'));
      if (event.tools !== undefined) add(pieces, 'tools', pyDumps(event.tools, 'tools'));
      return finish(pieces, event.context);
    }
    case 'tools.declare': {
      w[SPAN][SPAN_WROTE] = true;
      const pieces = head(w, 'tools', event);
      add(pieces, 'names', pyDumps(event.tools, 'tools'));
      return finish(pieces, event.context);
    }
    case 'run.start':
      spanBefore(w[SPAN], w[LOSS], event, HIGHBAR);
      w[RUN_INPUT] = event.input;
      return '';
    case 'run.end': {
      const text = turn(w, event);
      spanAfter(w[SPAN], w[LOSS], event, text, HIGHBAR);
      // A turn record ends the run on reading, whatever its status said (a loss said there).
      if (text !== '') w[SPAN][SPAN_CUT] = undefined;
      return text;
    }
    case 'tool.start':
      // A reader names each call after its line (`hb-<line>`): another format's id is not kept.
      // Said once: the test is not repeated for every call after.
      if (
        !lossReported(w[LOSS], 'tool.start.call') &&
        event.provenance?.format !== HIGHBAR &&
        !HB_CALL.test(event.call)
      )
        reportLoss(
          w[LOSS],
          event,
          'tool.start.call',
          'highbar has no call ids: a reader names each call hb-<line>',
        );
      w[STARTS].set(event.call, event);
      return '';
    case 'tool.end': {
      // The record first: an end refused there (a result JSON cannot hold) leaves its call open
      // and its run as it was (counted as having written, a run cut off said nothing).
      const start = w[STARTS].get(event.call);
      const text = tool(w, start, event);
      // Its losses too: reported before a refusal, one would use up a later event's report.
      checkLoss(w[LOSS], event, carried);
      w[STARTS].delete(event.call);
      w[SPAN][SPAN_WROTE] = true;
      return text;
    }
    case 'unknown': {
      const text = unknown(w, event);
      if (text !== '') w[SPAN][SPAN_WROTE] = true;
      return text;
    }
    default:
      return '';
  }
}

/**
 * Throws now what writing `event`'s record would throw ({@link pyDumps}, {@link time}: a value
 * JSON cannot hold, a time that is no finite number), in the same words, and what its reader
 * would refuse in it: a field of another kind than the record's (a text of no string, a list of
 * names of no array, a context or arguments of no object; {@link wrongType}'s one wording). A
 * call's start is checked for what its record takes of it (its id, name, arguments, time, start
 * and context), written at its end; a run's start for the message its run's turn takes. Nothing
 * more to check for an event with no record (reported lost), a call's end whose name is unknown
 * (not written, said) or a run's end a stopped stream implied (no turn).
 */
function assertRecordWritable(w: Writer, event: AgentEvent): void {
  switch (event.type) {
    case 'session.start':
      assertText(event.producer, event, 'producer', HIGHBAR);
      // (What JSON cannot hold in them first, in the words test/refused-first.test.ts pins.)
      assertEncodable(event.tools, 'tools', undefined, HIGHBAR);
      // (A list of names of no strings was written as JSON, and the reader refused the record.)
      if (event.tools !== undefined) assertTextList(event.tools, 'session.start.tools', HIGHBAR);
      break;
    case 'tools.declare':
      assertEncodable(event.tools, 'tools', undefined, HIGHBAR);
      assertTextList(event.tools, 'tools.declare.tools', HIGHBAR);
      break;
    case 'run.start':
      // Its message is held for the run's turn record: refused here, not at the run's end.
      assertText(event.input, event, 'input', HIGHBAR);
      return;
    case 'run.end':
      assertText(event.input, event, 'input', HIGHBAR);
      assertText(event.answer, event, 'answer', HIGHBAR);
      if (event.status === 'incomplete' && event.provenance?.synthetic) return;
      break;
    case 'tool.start':
      // The start is held for its call's record, written at the call's end (or the stream's):
      // its id, name and arguments are refused now, as its own refusal, not that later write's.
      requireText(event.call, event, 'call', HIGHBAR);
      requireText(event.name, event, 'name', HIGHBAR);
      if (event.args !== undefined) requireObject(event.args, event, 'args', HIGHBAR);
      assertTime(event.startedAt, 'started_at');
      assertHeldStartWritable(event);
      break;
    case 'tool.end':
      requireText(event.call, event, 'call', HIGHBAR);
      assertText(event.name, event, 'name', HIGHBAR);
      // The result when the call has no other (a text of no string would be written as JSON).
      assertText(event.text, event, 'text', HIGHBAR);
      if ((w[STARTS].get(event.call)?.name ?? event.name) === undefined) return;
      assertEncodable(event.result, 'result', undefined, HIGHBAR);
      // An ok call's error is written as null.
      if (!event.ok) assertEncodable(event.error, 'error', undefined, HIGHBAR);
      assertTime(event.startedAt, 'started_at');
      assertTime(event.endedAt, 'ended_at');
      break;
    case 'unknown':
      if (event.provenance === undefined || event.provenance.format === HIGHBAR)
        assertEncodable(event.record, 'unknown.record', undefined, HIGHBAR);
      return;
    default:
      return;
  }
  assertTime(event.ts, `${event.type}.ts`);
  // A record's context is an object to its reader: one of no object was written and refused there.
  if (event.context !== undefined) requireObject(event.context, event, 'context', HIGHBAR);
  assertEncodable(event.context, 'context', undefined, HIGHBAR);
}

// A highbar call's start carries its record's arguments and hints, and a call still open at the
// stream's end is written from them (`flushOpenCalls`): arguments, or a time the decoder kept as
// written (`invalid`, e.g. `1e400`), that JSON cannot hold are refused with the start, at its
// line, where they would otherwise be refused at the end, where no line says which call it was
// (its end is refused for them too). Another format's start has its arguments checked by
// assertArgsWritable.
function assertHeldStartWritable(event: AgentEventOf<'tool.start'>): void {
  const p = highbarProvenance(event);
  if (p === undefined) return;
  if (event.args !== undefined) assertEncodable(event.args, 'args', undefined, HIGHBAR);
  const invalid = (p.hints as HighbarHints | undefined)?.invalid;
  if (invalid === undefined) return;
  for (const key of KEPT_TIMES)
    if (Object.hasOwn(invalid, key)) assertEncodable(invalid[key], key, undefined, HIGHBAR);
}

const KEPT_TIMES = ['ts', 'started_at', 'ended_at'] as const;

/**
 * What {@link time} throws for a time that is no finite number: NaN or an infinity, or no number
 * at all (a string from an untyped caller, which `pyFloat` would write as a bare `NaN`).
 */
function assertTime(ms: number | undefined, field: string): void {
  if (ms !== undefined && !Number.isFinite(ms)) assertFiniteNumber(ms, field, HIGHBAR);
}

/** The `turn` record of a run's end (none for an end a stopped stream implied). */
function turn(w: Writer, event: AgentEventOf<'run.end'>): string {
  const runInput = w[RUN_INPUT];
  w[RUN_INPUT] = undefined;
  // A run end implied by a stream that stopped (docs/model.md "Run outcome") came from no record;
  // the run's message, which only a turn record carries, is lost with it.
  if (event.status === 'incomplete' && event.provenance?.synthetic) {
    if (runInput !== undefined)
      reportLoss(
        w[LOSS],
        event,
        'run.start.input',
        'only a turn record carries the message: a run cut off has none',
      );
    return '';
  }
  if (event.status !== 'completed') {
    reportLoss(w[LOSS], event, 'run.end.status', 'a turn record has no status (it is written either way)');
  }
  // Calls still open when the run ends (cancelled, failed) are written before its turn.
  const open = flushOpenCalls(w);
  const pieces = head(w, 'turn', event);
  const input = event.input ?? runInput;
  if (input !== undefined) add(pieces, 'message', pyDumps(input, 'input'));
  if (event.answer !== undefined) add(pieces, 'response', pyDumps(event.answer, 'answer'));
  return open + finish(pieces, event.context);
}

function endWrite(w: Writer): string {
  return flushOpenCalls(w);
}

function flushOpenCalls(w: Writer): string {
  let text = '';
  for (const start of w[STARTS].values()) {
    reportLoss(w[LOSS], start, 'tool.end', 'a tool call without an end is written with result null');
    const end: AgentEventOf<'tool.end'> = {
      type: 'tool.end',
      call: start.call,
      ok: true,
      result: null,
      error: null,
    };
    text += tool(w, start, end);
  }
  w[STARTS].clear();
  return text;
}

/** `v`, `type`, `ts`: how every v1 record begins. */
function head(w: Writer, type: string, event: AgentEvent): Fields {
  const p = highbarProvenance(event);
  const pieces = newFields(p?.order, p);
  add(pieces, 'v', '1');
  add(pieces, 'type', `"${type}"`);
  const hints = p?.hints as HighbarHints | undefined;
  const ts = time(w, 'ts', event.ts, undefined, hints, true);
  if (ts !== undefined) add(pieces, 'ts', ts);
  return pieces;
}

/**
 * The seconds text for a time field: as written when the hint still holds, left out when the
 * line had none and the model holds only the default, else `ms / 1000` as a Python float.
 */
function time(
  w: Writer,
  key: 'ts' | 'started_at' | 'ended_at',
  ms: number | undefined,
  fallback: number | undefined,
  hints: HighbarHints | undefined,
  clock: boolean,
): string | undefined {
  const invalid = hints?.invalid;
  if (invalid !== undefined && Object.hasOwn(invalid, key) && ms === fallback) {
    return pyDumps(invalid[key], key);
  }
  if (hints?.absent?.includes(key) && ms === fallback) return undefined;
  if (ms === undefined) {
    if (!clock) return undefined;
    ms = w[CLOCK]();
  }
  const token = hints?.[key];
  if (token !== undefined && Number(token) * 1000 === ms) return token;
  if (!Number.isFinite(ms)) assertFiniteNumber(ms, key, HIGHBAR); // throws
  // A record's times are mostly one value (ts = started_at = ended_at): print it once.
  if (!Object.is(ms, w[LAST_MS])) {
    w[LAST_MS] = ms;
    w[LAST_SECONDS] = pyFloat(ms / 1000);
  }
  return w[LAST_SECONDS];
}

function finish(pieces: Fields, context: unknown): string {
  if (context !== undefined) add(pieces, 'context', pyDumps(context, 'context'));
  const p = pieces[F_PROVENANCE];
  if (p?.extra !== undefined) {
    for (const key of Object.keys(p.extra)) {
      const value = p.extra[key];
      if (value !== undefined) add(pieces, key, pyDumps(value, key));
    }
  }
  return line(join(pieces), p?.hints as HighbarHints | undefined);
}

/** The line, or the original line when it says the same thing in another writer's style. */
function line(text: string, hints: HighbarHints | undefined): string {
  return `${rawIfSame(hints?.raw, text)}\n`;
}

function tool(
  w: Writer,
  start: AgentEventOf<'tool.start'> | undefined,
  end: AgentEventOf<'tool.end'>,
): string {
  const name = start?.name ?? end.name;
  if (name === undefined) {
    reportLoss(
      w[LOSS],
      end,
      'tool.end.name',
      'a tool record needs fn; a call whose name is unknown is not written',
    );
    return '';
  }
  const p = highbarProvenance(end) ?? highbarProvenance(start);
  const hints = p?.hints as HighbarHints | undefined;
  const args = start?.args;
  const context = end.context ?? start?.context;
  let error: unknown = end.error;
  if (end.ok && isFailure(error)) {
    reportLoss(w[LOSS], end, 'tool.end.error', 'ok is true, so the error is written as null');
    error = null;
  } else if (!end.ok && !isFailure(error)) {
    // The error must say failure when read back (absent, null, false and "" read as ok): the
    // call's text when it has one, else what happened.
    error =
      typeof end.text === 'string' && end.text !== '' ? end.text : end.denied === true ? 'denied' : 'failed';
  }
  const result = end.result !== undefined ? end.result : end.text;
  const startedAt = end.startedAt ?? start?.startedAt;
  const endedAt = end.endedAt;

  if (hints?.v0 !== undefined) {
    const pieces = newFields(hints.v0);
    if (hints.v0.includes('v')) add(pieces, 'v', '0');
    add(pieces, 'fn', pyDumps(name, 'name'));
    if (args !== undefined) add(pieces, 'args', pyDumps(args, 'args'));
    if (result !== undefined) add(pieces, 'result', pyDumps(result, 'result'));
    if (error !== undefined) add(pieces, 'error', pyDumps(error, 'error'));
    const s = time(w, 'started_at', startedAt, undefined, hints, false);
    if (s !== undefined) add(pieces, 'started_at', s);
    const e = time(w, 'ended_at', endedAt, undefined, hints, false);
    if (e !== undefined) add(pieces, 'ended_at', e);
    if (isJsonObject(context)) {
      for (const key of Object.keys(context)) {
        const value = (context as JsonObject)[key];
        if (value !== undefined) add(pieces, key, pyDumps(value, key));
      }
    }
    return line(join(pieces), hints);
  }

  const ts = end.ts ?? start?.ts;
  if (p === undefined) return foreignTool(w, { name, args, result, error, ts, startedAt, endedAt, context });
  const pieces = newFields(p.order, p);
  add(pieces, 'v', '1');
  add(pieces, 'type', '"tool"');
  const tsText = time(w, 'ts', ts, undefined, hints, true);
  if (tsText !== undefined) add(pieces, 'ts', tsText);
  // The record's ts is the default of its times; a hand-built event without ts gets the clock's.
  // A ts that was not a number, written back as it came, is no default (the model has none).
  const base =
    ts ??
    (tsText === undefined || (hints?.invalid !== undefined && Object.hasOwn(hints.invalid, 'ts'))
      ? undefined
      : Number(tsText) * 1000);
  add(pieces, 'fn', pyDumps(name, 'name'));
  if (args !== undefined) add(pieces, 'args', pyDumps(args, 'args'));
  const resultText = result !== undefined ? pyDumps(result, 'result') : undefined;
  if (resultText !== undefined) add(pieces, 'result', resultText);
  // A failed call's error is often its output text too: escape that text once.
  if (error !== undefined) {
    add(
      pieces,
      'error',
      error === result && typeof error === 'string' ? resultText! : pyDumps(error, 'error'),
    );
  }
  const s = time(w, 'started_at', startedAt ?? base, base, hints, false);
  if (s !== undefined) add(pieces, 'started_at', s);
  const e = time(w, 'ended_at', endedAt ?? base, base, hints, false);
  if (e !== undefined) add(pieces, 'ended_at', e);
  return finish(pieces, context);
}

/**
 * A call from another format: the reference emitter's full shape (args, result and error
 * always: {}, null, null when unknown) in the contract's key order, as one template. The same
 * text as the field-by-field path, which lines from highbar (their order, extras, hints) take.
 */
function foreignTool(w: Writer, call: ToolCall): string {
  const { name, args, result, error, ts, startedAt, endedAt, context } = call;
  const tsText = time(w, 'ts', ts, undefined, undefined, true)!;
  // The record's ts is the default of its times; a hand-built event without ts gets the clock's.
  const base = ts ?? Number(tsText) * 1000;
  const resultText = result !== undefined ? pyDumps(result, 'result') : 'null';
  return highbarToolLine({
    ts: tsText,
    fn: pyDumps(name, 'name'),
    args: args !== undefined ? pyDumps(args, 'args') : '{}',
    result: resultText,
    // A failed call's error is often its output text too: escape that text once.
    error:
      error === undefined
        ? 'null'
        : error === result && typeof error === 'string'
          ? resultText
          : pyDumps(error, 'error'),
    startedAt: time(w, 'started_at', startedAt ?? base, base, undefined, false)!,
    endedAt: time(w, 'ended_at', endedAt ?? base, base, undefined, false)!,
    context: context === undefined ? undefined : pyDumps(context, 'context'),
  });
}

function unknown(w: Writer, event: AgentEventOf<'unknown'>): string {
  const p = event.provenance;
  if (p !== undefined && p.format !== HIGHBAR) {
    reportForeignRecord(w[LOSS], event, 'highbar line');
    return '';
  }
  return line(pyDumps(event.record, 'unknown.record'), p?.hints as HighbarHints | undefined);
}
