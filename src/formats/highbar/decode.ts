import type { DecodeOptions, RecordDecoder, RecordSlots } from '../../codec';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import {
  DEPTH_PRECHECK_CHARS,
  isJsonObject,
  isTooDeep,
  type JsonObject,
  jsonTokenEnd,
  parseJsonLine,
  resolveMaxDepth,
  setOwn,
  unsafeNumberMessage,
} from '../../json';
import type { AgentEvent, AgentEventOf, Provenance } from '../../model';
import { incompleteRunEnd, provenanceOf, splitRecord } from '../../record';
import { pyFloat } from './pyjson';
import { HINTS, LINE, MAX_DEPTH, OFFSET, OUT, REPORT, RUN_CONTEXT, RUN_OPEN, SINK, TEXT } from './slots';
import {
  HIGHBAR,
  HIGHBAR_KEY_ORDER_BY_TYPE,
  HIGHBAR_TOOL_TEMPLATE,
  HIGHBAR_V0_FIELDS,
  HIGHBAR_VERSION,
  type HighbarHints,
  type HighbarRecordType,
  isHighbarRecordType,
  passesHighbarGuard,
  validateHighbarRecord,
} from './wire';

/** Options of the highbar decoder. */
export interface HighbarDecodeOptions extends DecodeOptions {}

/**
 * The switch of the decoder's shortcut for `tool` lines in the reference emitter's shape (on by
 * default; internal, not exported by the package): test/highbar/canonical-tool.test.ts turns it
 * off to hold the shortcut equal to the full path.
 */
export const highbarFastPath: { enabled: boolean } = { enabled: true };

// The values a tool line's events are made of, read either way (a parsed record has them too).
interface ToolValues {
  fn?: unknown;
  args?: unknown;
  result?: unknown;
  error?: unknown;
}

const FORMAT = HIGHBAR;

// What a tool line's pair of events shares.
interface ToolPair {
  ts: number | undefined;
  startedAt: number | undefined;
  endedAt: number | undefined;
  context: JsonObject | undefined;
  provenance: Provenance;
}

function isFailure(error: unknown): boolean {
  return !(error === undefined || error === null || error === false || error === '');
}

/**
 * The decoder's state between lines and the line being decoded: an array of named slots, not a
 * class or a literal. An array's hidden class belongs to the realm and outlives every garbage
 * collection, where a literal's (made before its factory has an allocation site) dies with the
 * last decoder at the bench's forced GC and takes the optimised per-line code that embedded it
 * along (docs/performance.md, "highbar decode", Round seven). The line slots are reused: nothing
 * keeps them past the line.
 */
type HighbarDecoder = [
  sink: DiagnosticSink,
  report: LineReport,
  maxDepth: number,
  runOpen: boolean,
  // The current line.
  text: string,
  line: number,
  offset: number,
  hints: HighbarHints,
  out: AgentEvent[],
  // The open run's context (its first record's), for the synthetic end of a run left open.
  runContext: JsonObject | undefined,
];

// The decoder as the line being decoded (after `begin`): the same array.
type LineAt = HighbarDecoder;

function newDecoder(options: HighbarDecodeOptions, sink: DiagnosticSink): HighbarDecoder {
  return [
    sink,
    lineReporter(sink, FORMAT),
    resolveMaxDepth(options.maxDepth),
    false,
    '',
    0,
    0,
    {},
    [],
    undefined,
  ];
}

/**
 * The highbar trace record decoder: one line → canonical events. A `tool` line becomes a
 * `tool.start` + `tool.end` pair (call id `hb-<line>`); a `turn` ends a run (`run.end`), and a
 * synthetic `run.start` opens each run before its first `tool` or `turn`; `hello` is a
 * `session.start`; `tools` is a `tools.declare`. Lines the contract skips are `info`
 * diagnostics plus `unknown` events; lines the contract calls errors are `error` diagnostics
 * (plus an `unknown` event when the line was JSON), never dropped without a trace. A factory
 * over one state literal and module functions, not a class: no decoder's shape is embedded in
 * the per-line code.
 */
export function createHighbarRecordDecoder(
  options: HighbarDecodeOptions,
  sink: DiagnosticSink,
): RecordDecoder {
  const d = newDecoder(options, sink);
  return {
    line: (text, line, offset, out) => readLine(d, text, line, offset, out),
    end: (out) => endOfInput(d, out),
  };
}

/**
 * {@link createHighbarRecordDecoder} as slots (the codec's decoder): the state and the module
 * functions over it, so that the line splitter's optimised code, which inlines `readLine`'s call,
 * checks no hidden class a garbage collection can free (src/codec.ts, `RecordSlots`).
 */
export function highbarRecordSlots(
  options: HighbarDecodeOptions,
  sink: DiagnosticSink,
): RecordSlots<HighbarDecoder> {
  return [newDecoder(options, sink), readLine, endOfInput];
}

// Called only when the input ended (never while a file is tailed: `incompleteLine: 'hold'`).
function endOfInput(d: HighbarDecoder, out: AgentEvent[]): void {
  endRun(d, d[LINE], d[OFFSET], out);
}

// A run without its `turn` record (the input ended, or a new writer's `hello` came) ends with a
// synthetic run.end of status incomplete (docs/model.md "Run outcome"); writers skip it.
function endRun(d: HighbarDecoder, line: number, offset: number, out: AgentEvent[]): void {
  if (!d[RUN_OPEN]) return;
  d[RUN_OPEN] = false;
  const e = incompleteRunEnd(FORMAT, line, offset);
  const context = d[RUN_CONTEXT];
  if (context !== undefined) e.context = context;
  d[RUN_CONTEXT] = undefined;
  out.push(e);
}

function readLine(d: HighbarDecoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  if (highbarFastPath.enabled && canonicalTool(d, text, line, offset, out)) return;
  // Long lines have their depth measured before JSON.parse sees them (a deep line costs
  // JSON.parse time per level); shorter ones are parsed first and measured on the value, in
  // the walk that looks for integers JSON.parse rounded. A line that fails either way gets its
  // diagnostic from the checked parse.
  let record: unknown;
  let refused = text.length > DEPTH_PRECHECK_CHARS && isTooDeep(text, d[MAX_DEPTH]);
  let numbers = VALUE_PLAIN;
  if (!refused) {
    try {
      record = JSON.parse(text);
      numbers = valueCheck(record, 1, d[MAX_DEPTH]);
      if (numbers === VALUE_TOO_DEEP) refused = true;
    } catch {
      refused = true;
    }
  }
  if (refused) {
    if (text.trim().length === 0) {
      d[REPORT]('invalid_json', 'warning', line, offset, 'a blank line (no record); skipped');
      return;
    }
    const parsed = parseJsonLine(text, line, offset, d[MAX_DEPTH], FORMAT);
    if (!parsed.ok) {
      d[SINK].report(parsed.diagnostic);
      return;
    }
    record = parsed.value;
    numbers = VALUE_UNSAFE; // not walked: let the text say
  }
  const at = begin(d, text, line, offset, out);
  if (numbers === VALUE_UNSAFE) checkIntegers(d, text, line, offset);
  if (!isJsonObject(record)) {
    d[REPORT]('invalid_json', 'error', line, offset, 'not a JSON object; kept as an unknown event');
    out.push(unknown(record, undefined, at));
    return;
  }
  const v = record.v;
  if (v === undefined || v === 0) {
    v0(d, record, at);
    return;
  }
  if (v !== HIGHBAR_VERSION) {
    if (typeof v === 'number' && Number.isInteger(v) && v > HIGHBAR_VERSION) {
      d[REPORT](
        'unsupported_version',
        'error',
        line,
        offset,
        `trace contract version ${v} is newer than this library reads (v${HIGHBAR_VERSION}); upgrade agentwire`,
      );
    } else {
      d[REPORT]('invalid_record', 'error', line, offset, `"v" is ${JSON.stringify(v)}, not a version number`);
    }
    out.push(unknown(record, record.type, at));
    return;
  }
  const type = record.type;
  if (!isHighbarRecordType(type)) {
    const what =
      type === undefined
        ? 'a v1 record without "type"; skipped, as the contract says (highbar loses a tool call written without type)'
        : `a record of type ${JSON.stringify(type)} highbar does not know; skipped, as the contract says`;
    d[REPORT]('unknown_record', 'info', line, offset, `${what}; kept as an unknown event`);
    out.push(unknown(record, type, at));
    return;
  }
  const problem = passesHighbarGuard(type, record) ? undefined : validateHighbarRecord(type, record);
  if (problem !== undefined) {
    d[REPORT]('invalid_record', 'error', line, offset, `invalid ${type} record: ${problem}`);
    out.push(unknown(record, type, at));
    return;
  }
  v1(d, type, record, at);
}

// The shortcut for tool lines in the emitter's shape (readCanonicalTool): their events.
function canonicalTool(
  d: HighbarDecoder,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): boolean {
  const read = readCanonicalTool(text, d[MAX_DEPTH]);
  if (read === undefined) return false;
  const at = begin(d, text, line, offset, out);
  if (read.numbers === VALUE_UNSAFE) checkIntegers(d, text, line, offset);
  // The three times are numbers here: each gives its milliseconds, never the fallback.
  const ts = timeOf(d, read.ts, 'ts', undefined, at) as number;
  const startedAt = timeOf(d, read.startedAt, 'started_at', ts, at) as number;
  const endedAt = timeOf(d, read.endedAt, 'ended_at', ts, at) as number;
  const hints = at[HINTS] as Record<string, unknown>;
  const provenance: Provenance = { format: FORMAT, line, offset, hints };
  openRun(d, ts, read.context, at);
  wholeToolPair(read, { ts, startedAt, endedAt, context: read.context, provenance }, at);
  return true;
}

// The line's state, for a line that makes events: the line itself is what the writer needs to
// give it back byte for byte: it decides there, when (and only if) the line is written, whether
// its own text is the line (docs/protocols/highbar.md, "Byte-exact"). Deciding here cost every
// line a walk of its text.
function begin(d: HighbarDecoder, text: string, line: number, offset: number, out: AgentEvent[]): LineAt {
  d[LINE] = line;
  d[OFFSET] = offset;
  d[HINTS] = { raw: text };
  d[OUT] = out;
  d[TEXT] = text;
  return d;
}

// JSON.parse rounds integers past 2^53; the policy is to say so, never to round silently.
function checkIntegers(d: HighbarDecoder, text: string, line: number, offset: number): void {
  const message = unsafeNumberMessage(text);
  if (message !== undefined) d[REPORT]('invalid_record', 'error', line, offset, message);
}

function unknown(record: unknown, type: unknown, at: LineAt): AgentEventOf<'unknown'> {
  const line = at[LINE];
  const offset = at[OFFSET];
  const hints = at[HINTS];
  const e: AgentEventOf<'unknown'> = {
    type: 'unknown',
    record,
    provenance: withHints(provenanceOf(FORMAT, line, offset), hints),
  };
  if (typeof type === 'string') e.recordType = type;
  if (isJsonObject(record)) {
    // A time in seconds past what milliseconds hold (`1e308`) is no time: the event has none.
    if (typeof record.ts === 'number' && Number.isFinite(record.ts * 1000)) e.ts = record.ts * 1000;
    // An invalid record still belongs to its test: keep the context for correlation.
    if (isJsonObject(record.context)) e.context = record.context;
  }
  return e;
}

/** Seconds → ms for a time field, with the hint that gives the written value back. */
function time(
  d: HighbarDecoder,
  record: JsonObject,
  key: 'ts' | 'started_at' | 'ended_at',
  fallback: number | undefined,
  at: LineAt,
): number | undefined {
  return timeOf(d, record[key], key, fallback, at);
}

// A time that is none (`why`): warned, kept as written for the writer, and `fallback` instead.
function invalidTime(
  d: HighbarDecoder,
  key: 'ts' | 'started_at' | 'ended_at',
  value: unknown,
  why: string,
  fallback: number | undefined,
  at: LineAt,
): number | undefined {
  const instead = fallback === undefined ? 'it is left out' : 'it falls back to ts';
  d[REPORT]('invalid_record', 'warning', at[LINE], at[OFFSET], `${key} is ${why}; ${instead}`);
  (at[HINTS].invalid ??= {})[key] = value;
  return fallback;
}

/** {@link time} of a value already read. */
function timeOf(
  d: HighbarDecoder,
  value: unknown,
  key: 'ts' | 'started_at' | 'ended_at',
  fallback: number | undefined,
  at: LineAt,
): number | undefined {
  const hints = at[HINTS];
  if (value === undefined) {
    (hints.absent ??= []).push(key);
    return fallback;
  }
  if (typeof value !== 'number')
    return invalidTime(d, key, value, `${JSON.stringify(value)}, not a number of seconds`, fallback, at);
  const ms = value * 1000;
  // `1e308` seconds are Infinity in milliseconds (and `1e400` reads as Infinity): no time the
  // model holds. Kept as written, like any other invalid value.
  if (!Number.isFinite(ms))
    return invalidTime(d, key, value, `${value} seconds, past any time in milliseconds`, fallback, at);
  // The writer prints ms / 1000; keep the value as written only when that does not give it
  // back. (A Python writer's float; a line with an integer here keeps its `raw` form instead.)
  // An integral value written as an integer (Python's `int`, not `1.0`; in the range where
  // Python's `json.dumps` and `pyNumber` print integers) keeps that spelling: an edited event is
  // written from the model, with the integer still an integer.
  if (Number.isInteger(value) && Math.abs(value) < 1e16 && spelledAsInteger(d[TEXT], key, value)) {
    hints[key] = String(value);
  } else if (ms / 1000 !== value) hints[key] = pyFloat(value);
  return ms;
}

function openRun(
  d: HighbarDecoder,
  ts: number | undefined,
  context: JsonObject | undefined,
  at: LineAt,
): void {
  const line = at[LINE];
  const offset = at[OFFSET];
  const out = at[OUT];
  if (d[RUN_OPEN]) return;
  d[RUN_OPEN] = true;
  d[RUN_CONTEXT] = context;
  // Built whole, one literal per set of fields: a field added to a literal gets a transitioned
  // hidden class that dies at a full GC with the per-line code it is inlined in (Round seven).
  const type = 'run.start';
  const provenance: Provenance = { format: FORMAT, line, offset, synthetic: true };
  out.push(
    ts === undefined
      ? context === undefined
        ? { type, provenance }
        : { type, provenance, context }
      : context === undefined
        ? { type, provenance, ts }
        : { type, provenance, ts, context },
  );
}

function v0(d: HighbarDecoder, record: JsonObject, at: LineAt): void {
  const line = at[LINE];
  const offset = at[OFFSET];
  const hints = at[HINTS];
  const out = at[OUT];
  const problem = passesHighbarGuard('v0', record) ? undefined : validateHighbarRecord('v0', record);
  if (problem !== undefined) {
    d[REPORT]('invalid_record', 'error', line, offset, `invalid v0 tool call: ${problem}`);
    out.push(unknown(record, undefined, at));
    return;
  }
  hints.v0 = Object.keys(record);
  let context: JsonObject | undefined;
  for (const key of hints.v0) {
    if (HIGHBAR_V0_FIELDS.indexOf(key) !== -1) continue;
    setOwn((context ??= {}), key, record[key]);
  }
  // v0 has no ts: the call's own times stand in for it.
  const startedAt = time(d, record, 'started_at', undefined, at);
  const endedAt = time(d, record, 'ended_at', undefined, at);
  delete hints.absent; // the v0 key list already says which fields the line had
  const provenance = withHints(provenanceOf(FORMAT, line, offset), hints);
  toolPair(d, record, { ts: endedAt ?? startedAt, startedAt, endedAt, context, provenance }, at);
}

function v1(d: HighbarDecoder, type: HighbarRecordType, record: JsonObject, at: LineAt): void {
  const line = at[LINE];
  const offset = at[OFFSET];
  const hints = at[HINTS];
  const out = at[OUT];
  const ts = time(d, record, 'ts', undefined, at);
  const context = record.context as JsonObject | undefined;
  const rest = splitRecord(record, HIGHBAR_KEY_ORDER_BY_TYPE.get(type)!);
  switch (type) {
    case 'tool': {
      const startedAt = time(d, record, 'started_at', ts, at);
      const endedAt = time(d, record, 'ended_at', ts, at);
      const provenance = withHints(provenanceOf(FORMAT, line, offset, rest), hints);
      toolPair(d, record, { ts, startedAt, endedAt, context, provenance }, at);
      return;
    }
    case 'turn': {
      openRun(d, ts, context, at);
      d[RUN_OPEN] = false;
      d[RUN_CONTEXT] = undefined;
      const e: AgentEventOf<'run.end'> = {
        type: 'run.end',
        status: 'completed',
        provenance: withHints(provenanceOf(FORMAT, line, offset, rest), hints),
      };
      if (typeof record.message === 'string') e.input = record.message;
      if (typeof record.response === 'string') e.answer = record.response;
      stamp(e, ts, context);
      out.push(e);
      return;
    }
    case 'hello': {
      // A new writer: a run the previous one left open will never get its turn record.
      endRun(d, line, offset, out);
      const e: AgentEventOf<'session.start'> = {
        type: 'session.start',
        provenance: withHints(provenanceOf(FORMAT, line, offset, rest), hints),
      };
      if (record.sdk !== undefined) e.producer = record.sdk as string;
      if (record.pid !== undefined) e.pid = record.pid as number;
      if (record.tools !== undefined) e.tools = record.tools as string[];
      stamp(e, ts, context);
      out.push(e);
      return;
    }
    case 'tools': {
      const e: AgentEventOf<'tools.declare'> = {
        type: 'tools.declare',
        tools: record.names as string[],
        provenance: withHints(provenanceOf(FORMAT, line, offset, rest), hints),
      };
      stamp(e, ts, context);
      out.push(e);
      return;
    }
  }
}

function toolPair(d: HighbarDecoder, record: ToolValues, pair: ToolPair, at: LineAt): void {
  const { ts, startedAt, endedAt, context, provenance } = pair;
  openRun(d, ts, context, at);
  const call = `hb-${at[LINE]}`;
  const name = record.fn as string;
  const start: AgentEventOf<'tool.start'> = { type: 'tool.start', call, name, provenance };
  if (record.args !== undefined) start.args = record.args as JsonObject;
  if (startedAt !== undefined) start.startedAt = startedAt;
  stamp(start, ts, context);
  const error = record.error;
  const end: AgentEventOf<'tool.end'> = {
    type: 'tool.end',
    call,
    name,
    ok: !isFailure(error),
    provenance,
  };
  if (Object.hasOwn(record, 'result')) {
    end.result = record.result;
    if (typeof record.result === 'string') end.text = record.result;
  }
  if (Object.hasOwn(record, 'error')) end.error = error;
  if (startedAt !== undefined) end.startedAt = startedAt;
  if (endedAt !== undefined) end.endedAt = endedAt;
  stamp(end, ts, context);
  at[OUT].push(start, end);
}

/**
 * {@link toolPair} of a line {@link readCanonicalTool} read, whose values are all there (`fn` a
 * string, `args` an object, `result` and `error` present, the three times numbers): each event
 * built in one object literal with every field it has, in the order `toolPair` adds them. A
 * literal's hidden class lives as long as its allocation site, where an event grown field by
 * field gets transitioned classes that die in a full GC with the optimised code that embedded
 * them (docs/performance.md, "highbar decode", Round four). test/highbar/canonical-tool.test.ts holds the two
 * equal as JSON text (so key order too).
 */
function wholeToolPair(read: CanonicalTool, pair: ToolPair, at: LineAt): void {
  const { provenance, context } = pair;
  const ts = pair.ts as number;
  const startedAt = pair.startedAt as number;
  const endedAt = pair.endedAt as number;
  const call = `hb-${at[LINE]}`;
  const name = read.fn as string;
  const args = read.args as JsonObject;
  const { result, error } = read;
  const ok = !isFailure(error);
  if (context === undefined) {
    at[OUT].push(
      { type: 'tool.start', call, name, provenance, args, startedAt, ts },
      typeof result === 'string'
        ? {
            type: 'tool.end',
            call,
            name,
            ok,
            provenance,
            result,
            text: result,
            error,
            startedAt,
            endedAt,
            ts,
          }
        : { type: 'tool.end', call, name, ok, provenance, result, error, startedAt, endedAt, ts },
    );
    return;
  }
  at[OUT].push(
    { type: 'tool.start', call, name, provenance, args, startedAt, ts, context },
    typeof result === 'string'
      ? {
          type: 'tool.end',
          call,
          name,
          ok,
          provenance,
          result,
          text: result,
          error,
          startedAt,
          endedAt,
          ts,
          context,
        }
      : { type: 'tool.end', call, name, ok, provenance, result, error, startedAt, endedAt, ts, context },
  );
}

const VALUE_PLAIN = 0;
const VALUE_UNSAFE = 1;
const VALUE_TOO_DEEP = 2;

// One walk of a parsed value (containers and numbers only; no allocation but Object.keys): nesting
// deeper than `max` (outermost container = 1), else whether a number may have been rounded by
// JSON.parse (an integer past 2^53, or a non-finite one).
function valueCheck(value: unknown, depth: number, max: number): number {
  if (typeof value === 'number') {
    return Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))
      ? VALUE_PLAIN
      : VALUE_UNSAFE;
  }
  if (typeof value !== 'object' || value === null) return VALUE_PLAIN;
  if (depth > max) return VALUE_TOO_DEEP;
  let verdict = VALUE_PLAIN;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item !== 'object' && typeof item !== 'number') continue;
      const v = valueCheck(item, depth + 1, max);
      if (v === VALUE_TOO_DEEP) return v;
      if (v === VALUE_UNSAFE) verdict = v;
    }
    return verdict;
  }
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const item = (value as Record<string, unknown>)[keys[i]!];
    if (typeof item !== 'object' && typeof item !== 'number') continue;
    const v = valueCheck(item, depth + 1, max);
    if (v === VALUE_TOO_DEEP) return v;
    if (v === VALUE_UNSAFE) verdict = v;
  }
  return verdict;
}

// A tool line read by readCanonicalTool: its values (a ToolValues), its times in seconds, and
// what the walk said of its values' numbers.
interface CanonicalTool extends ToolValues {
  context: JsonObject | undefined;
  ts: number;
  startedAt: number;
  endedAt: number;
  numbers: number;
}

/**
 * The shortcut beside the general path: a `tool` line in the reference emitter's full shape
 * (`highbarToolLine` in wire.ts: every field in the contract's order, Python separators, the
 * times in plain decimals, `context` or not) is read without building its record: the text
 * between the values compared with the template, each value delimited in place and parsed
 * alone (a number of seconds read from its digits, `fn`, `args`, `result`, `error` and
 * `context` by `JSON.parse` of their tokens), and only the values that can nest or hold a
 * number walked for depth. Any other line (another spelling, key order or set of keys, invalid
 * JSON, values of other types, a token too deep) is refused (undefined) having reported nothing, and
 * takes the full path, which gives the same events and diagnostics for every line accepted
 * here: test/highbar/canonical-tool.test.ts holds the two equal (docs/performance.md,
 * "highbar decode").
 */
// A module function, not a method: its optimised code depends on no decoder's shape, so it
// survives a garbage collection that finds no decoder alive.
function readCanonicalTool(text: string, max: number): CanonicalTool | undefined {
  const T = HIGHBAR_TOOL_TEMPLATE;
  const last = text.length - 1;
  // Two characters tell a tool line before any search; `args` is an object one level down.
  if (max < 2 || text.charCodeAt(18) !== 116 || text.charCodeAt(19) !== 111 || !textAt(text, T.head, 0))
    return undefined;
  const tsEnd = secondsEnd(text, T.head.length);
  const tsSeconds = seconds;
  const fnAt = tsEnd + T.fn.length;
  if (tsEnd === -1 || !textAt(text, T.fn, tsEnd) || text.charCodeAt(fnAt) !== 34) return undefined;
  const fnEnd = jsonTokenEnd(text, fnAt);
  const argsAt = fnEnd + T.args.length;
  if (fnEnd === -1 || !textAt(text, T.args, fnEnd) || text.charCodeAt(argsAt) !== 123) return undefined;
  const argsEnd = jsonTokenEnd(text, argsAt);
  if (argsEnd === -1 || !textAt(text, T.result, argsEnd)) return undefined;
  const resultAt = argsEnd + T.result.length;
  const resultEnd = jsonTokenEnd(text, resultAt);
  if (resultEnd === -1 || !textAt(text, T.error, resultEnd)) return undefined;
  const errorAt = resultEnd + T.error.length;
  const errorEnd = jsonTokenEnd(text, errorAt);
  if (errorEnd === -1 || !textAt(text, T.startedAt, errorEnd)) return undefined;
  const startedEnd = secondsEnd(text, errorEnd + T.startedAt.length);
  const startedSeconds = seconds;
  if (startedEnd === -1 || !textAt(text, T.endedAt, startedEnd)) return undefined;
  const endedEnd = secondsEnd(text, startedEnd + T.endedAt.length);
  const endedSeconds = seconds;
  if (endedEnd === -1 || text.charCodeAt(last) !== 125) return undefined;
  let contextAt = -1;
  if (endedEnd !== last) {
    contextAt = endedEnd + T.context.length;
    if (!textAt(text, T.context, endedEnd) || text.charCodeAt(contextAt) !== 123) return undefined;
    if (jsonTokenEnd(text, contextAt) !== last) return undefined;
  }
  // Every value is in place: parse those that need it. A token JSON.parse refuses makes the
  // line invalid JSON, which the full path reports.
  let read: CanonicalTool;
  verdict = VALUE_PLAIN;
  try {
    const fn = shortString(text, fnAt, fnEnd);
    const args = parseToken(text, argsAt, argsEnd, max);
    const result = parseToken(text, resultAt, resultEnd, max);
    // A failed call's error is often its output text too: parse that text once.
    const error =
      text.charCodeAt(resultAt) === 34 &&
      errorEnd - errorAt === resultEnd - resultAt &&
      textAt(text, text.slice(resultAt, resultEnd), errorAt)
        ? result
        : parseToken(text, errorAt, errorEnd, max);
    const context = contextAt === -1 ? undefined : (parseToken(text, contextAt, last, max) as JsonObject);
    if (verdict >= VALUE_TOO_DEEP) return undefined;
    read = {
      fn,
      args,
      result,
      error,
      context,
      ts: tsSeconds,
      startedAt: startedSeconds,
      endedAt: endedSeconds,
      numbers: verdict,
    };
  } catch {
    return undefined;
  }
  return read;
}

// What the value walk said of the tokens parseToken read since it was last reset (bits of the
// VALUE_ verdicts; module state, so that a token costs no result object).
let verdict = VALUE_PLAIN;

// JSON.parse of text[from, to): a string as it is, anything else walked as the full path walks
// it (one level below the record). A long token has its depth measured first, as a long line
// has (then it is not parsed: the verdict says too deep). The reference emitter's `{}` and `null`
// are read without a call.
function parseToken(text: string, from: number, to: number, max: number): unknown {
  const c = text.charCodeAt(from);
  if (c === 34) return JSON.parse(text.slice(from, to));
  const n = to - from;
  if (n === 2 && c === 123 && text.charCodeAt(from + 1) === 125) return {}; // depth 2: max >= 2 here
  if (n === 4 && c === 110 && textAt(text, 'null', from)) return null;
  if (n > DEPTH_PRECHECK_CHARS && isTooDeep(text.slice(from, to), max - 1)) {
    verdict |= VALUE_TOO_DEEP;
    return undefined;
  }
  const value: unknown = JSON.parse(text.slice(from, to));
  verdict |= valueCheck(value, 2, max);
  return value;
}

// A short string token without escapes or control characters is its own text between the
// quotes: the string JSON.parse would make, without the call.
function shortString(text: string, from: number, to: number): unknown {
  if (to - from > 64) return JSON.parse(text.slice(from, to));
  for (let i = from + 1; i < to - 1; i++) {
    const c = text.charCodeAt(i);
    if (c < 32 || c === 92) return JSON.parse(text.slice(from, to));
  }
  return text.slice(from + 1, to - 1);
}

// True when `text` holds `part` at `at`: a native search that finds it at once when it is there
// (String.prototype.startsWith with a position costs several times as much here).
function textAt(text: string, part: string, at: number): boolean {
  return text.indexOf(part, at) === at;
}

// The value secondsEnd read last (module state: no result object per number).
let seconds = 0;

// Powers of ten a double holds exactly.
const EXACT_TENS: readonly number[] = Array.from({ length: 23 }, (_, k) => 10 ** k);

// The end of a number of seconds in plain decimals at `at` (digits, a point, digits: at most 15
// before the point, so always finite), or -1; its value in `seconds`, the number JSON.parse
// reads: with at most 15 digits in all, the digits as an integer divided by a power of ten (both
// exact, and one division rounds correctly), else Number of the text.
function secondsEnd(text: string, at: number): number {
  let i = at;
  let digits = 0;
  for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i))
    digits = digits * 10 + c - 48;
  const whole = i - at;
  if (whole === 0 || whole > 15 || (whole > 1 && text.charCodeAt(at) === 48) || text.charCodeAt(i) !== 46)
    return -1;
  const point = ++i;
  for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i))
    digits = digits * 10 + c - 48;
  const fraction = i - point;
  if (fraction === 0) return -1;
  seconds = whole + fraction <= 15 ? digits / EXACT_TENS[fraction]! : Number(text.slice(at, i));
  return i;
}

// True when the line spells the top-level `key` as the integer `value` (Python's separators).
function spelledAsInteger(text: string, key: string, value: number): boolean {
  const head = `"${key}": ${value}`;
  const at = text.indexOf(head);
  if (at === -1) return false;
  const next = text.charCodeAt(at + head.length);
  return next === 44 || next === 125;
}

function stamp(e: AgentEvent, ts: number | undefined, context: JsonObject | undefined): void {
  if (ts !== undefined) e.ts = ts;
  if (context !== undefined) e.context = context;
}

function withHints(p: Provenance, hints: HighbarHints): Provenance {
  for (const _ in hints) {
    p.hints = hints as Record<string, unknown>;
    break;
  }
  return p;
}
