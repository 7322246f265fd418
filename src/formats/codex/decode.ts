import { setBounded } from '../../bounded';
import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import {
  DEPTH_PRECHECK_CHARS,
  isJsonObject,
  isTooDeep,
  type JsonObject,
  NOT_PARSED,
  parseRecordText,
  refuseTooDeep,
  resolveMaxDepth,
  setOwn,
  unsafeNumberMessage,
  valueTooDeep,
} from '../../json';
import type { AgentEvent, AgentEventOf, Provenance, RunStatus, Usage } from '../../model';
import { hasExactKeys, incompleteRunEnd, type RecordRest, splitRecord } from '../../record';
import { isPlainUint } from '../../text-reader';
import {
  ANSWER,
  CALLS,
  CHILDREN,
  ENDED,
  FINAL_ANSWER,
  LAST_LINE,
  LAST_OFFSET,
  LEGACY,
  MAX_DEPTH,
  REPORT,
  ROUND_TEXT,
  ROUND_TOOLS,
  RUN_OPEN,
  SHORTCUT,
  SINK,
  TEXTS,
  THREAD,
  TOTALS,
} from './slots';
import {
  CODEX_AGENT_END,
  CODEX_COMMAND_KEYS,
  CODEX_COMMAND_TOOL,
  CODEX_ITEM_HEADS,
  CODEX_ITEM_KEYS,
  CODEX_ITEM_TYPE_HEADS,
  CODEX_LIST_KEYS,
  CODEX_PHASE_KEY,
  CODEX_RECORD_KEYS,
  CODEX_TOP_LINES,
  CODEX_USAGE_FIELDS,
  CODEX_USAGE_KEYS,
  CODEX_WEB_SEARCH_TOOL,
  type CodexEventType,
  type CodexHints,
  type CodexItemRecord,
  type CodexItemType,
  type CodexUsageTotal,
  codexEventType,
  codexItemType,
  isLegacyRecord,
  itemObjectStart,
  parseEmbeddedError,
  scanItemIds,
  todoToPlan,
} from './wire';

/** Options of the Codex decoder (`maxLineBytes` defaults to 16 MiB, {@link CODEX_MAX_LINE_BYTES}). */
export interface CodexDecodeOptions extends DecodeOptions {}

const FORMAT = 'codex' as const;
const ITEM_RECORD_KEYS = CODEX_RECORD_KEYS['item.completed'];

// Item types whose fields hold free-form JSON (arguments, results, actions, agent states): a
// line of theirs may spell what JSON.parse forgets (`1.0`, integer-like keys), so it is kept.
const FREE_FORM: ReadonlySet<string> = new Set(['mcp_tool_call', 'web_search', 'collab_tool_call']);

// Open items whose snapshots are diffed against the previous one; cleared at every turn's end,
// and never more than this many (a stream of items that never complete cannot grow memory).
const MAX_OPEN_ITEMS = 4096;

/** The context of one record being mapped. */
interface Line {
  text: string;
  line: number;
  offset: number;
  out: AgentEvent[];
}

/** The context of one item record being mapped. */
interface ItemLine extends Line {
  kind: CodexItemRecord;
  record: JsonObject;
  item: JsonObject;
  id: string;
  rest: RecordRest | undefined;
  /** The hints of the line (shared by the events it yields; the record event owns them). */
  hints: CodexHints | undefined;
}

// An item validator: undefined when the item has the fields its type needs, else what is wrong.
type ItemCheck = (item: JsonObject) => string | undefined;

const isStr = (v: unknown) => typeof v === 'string';
const field = (item: JsonObject, name: string, ok: (v: unknown) => boolean, what: string) =>
  ok(item[name]) ? undefined : `${name} is not ${what}`;

const ITEM_CHECKS: Readonly<Record<CodexItemType, ItemCheck>> = {
  agent_message: (i) =>
    field(i, 'text', isStr, 'a string') ?? field(i, 'phase', (v) => v === undefined || isStr(v), 'a string'),
  reasoning: (i) => field(i, 'text', isStr, 'a string'),
  plan: (i) => field(i, 'text', isStr, 'a string'),
  command_execution: (i) =>
    field(i, 'command', isStr, 'a string') ??
    field(i, 'aggregated_output', isStr, 'a string') ??
    field(i, 'exit_code', (v) => v === null || Number.isSafeInteger(v), 'an integer or null') ??
    field(i, 'status', isStr, 'a string'),
  file_change: (i) =>
    field(
      i,
      'changes',
      (v) => Array.isArray(v) && v.every((c) => isJsonObject(c) && isStr(c.path) && isStr(c.kind)),
      'a list of {path, kind}',
    ) ?? field(i, 'status', isStr, 'a string'),
  mcp_tool_call: (i) =>
    field(i, 'server', isStr, 'a string') ??
    field(i, 'tool', isStr, 'a string') ??
    field(i, 'result', (v) => v === undefined || v === null || isJsonObject(v), 'an object or null') ??
    field(
      i,
      'error',
      (v) => v === undefined || v === null || (isJsonObject(v) && isStr(v.message)),
      'null or {message}',
    ) ??
    field(i, 'status', isStr, 'a string'),
  collab_tool_call: (i) => field(i, 'tool', isStr, 'a string') ?? field(i, 'status', isStr, 'a string'),
  web_search: (i) => field(i, 'query', (v) => v === undefined || isStr(v), 'a string'),
  todo_list: (i) =>
    field(
      i,
      'items',
      (v) =>
        Array.isArray(v) &&
        v.every((t) => isJsonObject(t) && isStr(t.text) && typeof t.completed === 'boolean'),
      'a list of {text, completed}',
    ),
  error: (i) => field(i, 'message', isStr, 'a string'),
};

/** What the decoder remembers of a tool item between its snapshots. */
interface OpenCall {
  /** The item type of the start. */
  type: CodexItemType;
  /**
   * The fields of the start a later snapshot must repeat to continue it (a command's text
   * itself: comparing two strings read from two lines costs no concatenation).
   */
  key: string;
  output: string;
}

/**
 * The decoder's state ({@link newDecoder}): an array of slots (the indices below). An array's
 * hidden class belongs to the realm and outlives every GC; a literal's, made before the factory
 * has an allocation site, dies with the last decoder and takes the optimised code of every
 * function that read it along (docs/performance.md, "Codex decoder", round six; a class
 * instance's fields die the same way: round four).
 */
type Decoder = [
  sink: DiagnosticSink,
  report: LineReport,
  maxDepth: number,
  thread: string | undefined,
  totals: Map<string, CodexUsageTotal>,
  runOpen: boolean,
  answer: string | undefined,
  finalAnswer: string | undefined,
  // The round in progress: a tool item has ended in it (so the next message opens another
  // round: one model response, then the calls it made), and its last message text.
  roundTools: boolean,
  roundText: string | undefined,
  texts: Map<string, string>,
  calls: Map<string, OpenCall>,
  children: Set<string>,
  ended: Set<string>,
  legacy: boolean,
  lastLine: number,
  lastOffset: number,
  // The shortcut for canonical item lines (off: every line takes the general path, for tests).
  shortcut: boolean,
];

function newDecoder(options: CodexDecodeOptions, sink: DiagnosticSink, shortcut: boolean): Decoder {
  return [
    sink,
    lineReporter(sink, FORMAT),
    resolveMaxDepth(options.maxDepth),
    undefined,
    new Map(),
    false,
    undefined,
    undefined,
    false,
    undefined,
    new Map(),
    new Map(),
    new Set(),
    new Set(),
    false,
    0,
    0,
    shortcut,
  ];
}

/**
 * The Codex `exec --json` record decoder: one `ThreadEvent` per line → canonical events.
 * Stateful: it stamps the thread id on every event, turns item snapshots into one lifecycle per
 * item id, turns the thread's running usage total into each run's own usage (the difference
 * from the previous total of the same thread), and ends a turn that never ended as
 * `incomplete`. `shortcut` false turns off the reading of canonical item lines without building
 * their record (tests hold the two paths equal).
 */
export function createCodexRecordDecoder(
  options: CodexDecodeOptions,
  sink: DiagnosticSink,
  shortcut = true,
): RecordDecoder {
  return new CodexRecordDecoder(options, sink, shortcut);
}

/**
 * The record decoder: the state in its element 0, `line` and `end` on the prototype (the Amp
 * writer's encoder shape). With no named property of its own, every decoder has the class's
 * initial hidden class, which the class holds, and one `line` for every decoder: the splitter's
 * call site keeps its target and its optimised code across decoders and full GCs. A literal of
 * two closures made per decoder was a new call target with each decoder (docs/performance.md,
 * "Codex decoder", round twenty). Its shortcuts are reachable for tests.
 */
export class CodexRecordDecoder implements RecordDecoder {
  declare private readonly 0: Decoder;

  /**
   * Creates a decoder that reports to `sink`. `shortcut` false turns off the reading of
   * canonical item lines without building their record (tests hold the two paths equal).
   */
  constructor(options: CodexDecodeOptions, sink: DiagnosticSink, shortcut = true) {
    (this as unknown as { 0: Decoder })[0] = newDecoder(options, sink, shortcut);
  }

  /** Decodes one line (see {@link RecordDecoder}). */
  line(text: string, line: number, offset: number, out: AgentEvent[]): void {
    readLine(this[0], text, line, offset, out);
  }

  /** Ends the stream (see {@link RecordDecoder}). */
  end(out: AgentEvent[]): void {
    endStream(this[0], out);
  }

  /** The shortcut alone: true when it read the line, false (having done nothing) when it did not. */
  canonicalItem(text: string, line: number, offset: number, out: AgentEvent[]): boolean {
    return canonicalItem(this[0], text, line, offset, out);
  }

  /** The run and thread line shortcut alone (as {@link canonicalItem}). */
  canonicalTop(text: string, line: number, offset: number, out: AgentEvent[]): boolean {
    return canonicalTop(this[0], text, line, offset, out);
  }
}
function readLine(d: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  d[LAST_LINE] = line;
  d[LAST_OFFSET] = offset;
  if (
    d[SHORTCUT] &&
    !d[LEGACY] &&
    (text.charCodeAt(9) === 105
      ? canonicalItem(d, text, line, offset, out)
      : canonicalTop(d, text, line, offset, out))
  )
    return;
  generalLine(d, text, line, offset, out);
}

// A line the shortcut did not read: its record parsed whole, then mapped.
function generalLine(d: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  if (text.length === 0) {
    d[REPORT]('invalid_json', 'warning', line, offset, 'an empty line (codex writes none); skipped');
    return;
  }
  const record = parseRecordText(text, line, offset, d[MAX_DEPTH], FORMAT, d[SINK]);
  if (record === NOT_PARSED) return;
  const ctx: Line = { text, line, offset, out };
  if (!isJsonObject(record)) {
    if (!refuseDeep(d, ctx, record)) d[REPORT]('invalid_json', 'error', line, offset, 'not a JSON object');
    return;
  }
  if (d[LEGACY] || isLegacyRecord(record)) {
    if (!d[LEGACY])
      d[REPORT](
        'unsupported_version',
        'error',
        line,
        offset,
        'the pre-2025-10 codex exec format (session.created, items with item_type) is not supported; its records are kept as unknown',
      );
    d[LEGACY] = true;
    unknown(d, ctx, record);
    return;
  }
  const type = codexEventType(record.type);
  if (type === undefined) {
    unknown(d, ctx, record);
    return;
  }
  if (type === 'item.completed' || type === 'item.started' || type === 'item.updated')
    itemRecord(d, ctx, type, record);
  else TOP_READERS[type](d, ctx, record);
}

// The record types beside the items', each to its reader: one lookup (typed, so a type without a
// reader does not compile), where a switch said `case type: reader(d, ctx, record); return;`.
type TopReader = (d: Decoder, ctx: Line, record: JsonObject) => void;
const TOP_READERS: Readonly<Record<Exclude<CodexEventType, CodexItemRecord>, TopReader>> = {
  'thread.started': threadStarted,
  'turn.started': turnStarted,
  'turn.completed': turnCompleted,
  'turn.failed': turnFailed,
  error: topError,
};

function endStream(d: Decoder, out: AgentEvent[]): void {
  if (d[RUN_OPEN]) closeIncomplete(d, out, d[LAST_LINE], d[LAST_OFFSET]);
}

function refuseDeep(d: Decoder, ctx: Line, value: unknown): boolean {
  return (
    valueTooDeep(ctx.text, value, d[MAX_DEPTH]) &&
    refuseTooDeep(d[SINK], ctx.line, ctx.offset, d[MAX_DEPTH], FORMAT)
  );
}

function checkNumbers(d: Decoder, ctx: Line): void {
  const message = unsafeNumberMessage(ctx.text);
  if (message !== undefined) d[REPORT]('invalid_record', 'error', ctx.line, ctx.offset, message);
}

function stamp<E extends AgentEvent>(d: Decoder, event: E): E {
  if (d[THREAD] !== undefined) event.session = d[THREAD];
  return event;
}

function synthetic(ctx: Line): Provenance {
  return { format: FORMAT, line: ctx.line, offset: ctx.offset, synthetic: true };
}

// A record the codec does not map (or that fails its shape), kept whole with its line.
function unknown(d: Decoder, ctx: Line, record: JsonObject, recordType?: string): void {
  if (refuseDeep(d, ctx, record)) return;
  checkNumbers(d, ctx);
  const e: AgentEventOf<'unknown'> = {
    type: 'unknown',
    record,
    provenance: { format: FORMAT, line: ctx.line, offset: ctx.offset, hints: { raw: ctx.text } },
  };
  const type = recordType ?? record.type;
  if (typeof type === 'string') e.recordType = type;
  else
    d[REPORT](
      'invalid_record',
      'warning',
      ctx.line,
      ctx.offset,
      'a record without a string "type"; kept as unknown',
    );
  ctx.out.push(stamp(d, e));
}

function invalid(d: Decoder, ctx: Line, record: JsonObject, what: string): void {
  d[REPORT]('invalid_record', 'error', ctx.line, ctx.offset, `${what}; kept as unknown`);
  unknown(d, ctx, record);
}

// Provenance of a top-level record: its own fields and key order kept when it has them.
function recordProvenance(
  d: Decoder,
  ctx: Line,
  record: JsonObject,
  type: CodexEventType,
): Provenance | undefined {
  const keys = CODEX_RECORD_KEYS[type];
  if (hasExactKeys(record, keys) && ctx.text.charCodeAt(8) === 34 && !hasUnicodeEscape(ctx.text))
    return { format: FORMAT, line: ctx.line, offset: ctx.offset };
  const rest = splitRecord(record, keys);
  if (rest?.extra !== undefined && refuseDeep(d, ctx, record)) return undefined;
  if (rest?.extra !== undefined) checkNumbers(d, ctx);
  const p: Provenance = { format: FORMAT, line: ctx.line, offset: ctx.offset, hints: { raw: ctx.text } };
  if (rest?.extra !== undefined) p.extra = rest.extra;
  if (rest?.order !== undefined) p.order = rest.order;
  return p;
}

function threadStarted(d: Decoder, ctx: Line, record: JsonObject): void {
  if (typeof record.thread_id !== 'string') {
    invalid(d, ctx, record, 'thread.started without a string thread_id');
    return;
  }
  const provenance = recordProvenance(d, ctx, record, 'thread.started');
  if (provenance === undefined) return;
  if (d[RUN_OPEN]) closeIncomplete(d, ctx.out, ctx.line, ctx.offset);
  d[THREAD] = record.thread_id;
  ctx.out.push({ type: 'session.start', session: d[THREAD], provenance });
}

function turnStarted(d: Decoder, ctx: Line, record: JsonObject): void {
  const provenance = recordProvenance(d, ctx, record, 'turn.started');
  if (provenance === undefined) return;
  if (d[RUN_OPEN]) closeIncomplete(d, ctx.out, ctx.line, ctx.offset);
  openRun(d);
  ctx.out.push(stamp(d, { type: 'run.start', provenance }));
}

function openRun(d: Decoder): void {
  d[RUN_OPEN] = true;
  d[ANSWER] = undefined;
  d[FINAL_ANSWER] = undefined;
  d[ROUND_TOOLS] = false;
  d[ROUND_TEXT] = undefined;
  d[TEXTS].clear();
  d[CALLS].clear();
}

function closeIncomplete(d: Decoder, out: AgentEvent[], line: number, offset: number): void {
  out.push(stamp(d, incompleteRunEnd(FORMAT, line, offset)));
  d[RUN_OPEN] = false;
}

function turnCompleted(d: Decoder, ctx: Line, record: JsonObject): void {
  const u = record.usage;
  if (!isJsonObject(u)) {
    invalid(d, ctx, record, 'turn.completed without a usage object');
    return;
  }
  const total: CodexUsageTotal = {};
  let usageExtra: JsonObject | undefined;
  let exact = true;
  let at = 0;
  for (const key in u) {
    const name = CODEX_USAGE_FIELDS[key as keyof typeof CODEX_USAGE_FIELDS];
    const value = u[key];
    if (name === undefined || !Number.isSafeInteger(value) || (value as number) < 0) {
      if (name !== undefined) {
        invalid(d, ctx, record, `turn.completed usage.${key} is not a non-negative integer`);
        return;
      }
      exact = false;
      setOwn((usageExtra ??= {}), key, value);
      continue;
    }
    // Codex's own order: anything else is kept as written.
    while (at < CODEX_USAGE_KEYS.length && CODEX_USAGE_KEYS[at] !== key) at++;
    if (at === CODEX_USAGE_KEYS.length) exact = false;
    total[name] = value as number;
  }
  if (total.input === undefined || total.output === undefined) {
    invalid(d, ctx, record, 'turn.completed usage without input_tokens and output_tokens');
    return;
  }
  const provenance = recordProvenance(d, ctx, record, 'turn.completed');
  if (provenance === undefined) return;
  if (!exact) {
    if (refuseDeep(d, ctx, record)) return;
    checkNumbers(d, ctx);
    const hints = (provenance.hints ??= {}) as CodexHints;
    hints.raw = ctx.text;
    if (usageExtra !== undefined) hints.usageExtra = usageExtra;
  }
  completeTurn(d, ctx, total, provenance);
}

// A turn's end with its running total read (either path): the run's own usage, its last round's
// end and the run's end.
function completeTurn(d: Decoder, ctx: Line, total: CodexUsageTotal, provenance: Provenance): void {
  const thread = d[THREAD] ?? '';
  const previous = d[TOTALS].get(thread);
  let usage = difference(total, previous);
  if (usage === undefined) {
    d[REPORT](
      'order',
      'warning',
      ctx.line,
      ctx.offset,
      'the thread usage total went down; taken as a new running total',
    );
    usage = { ...total };
  }
  d[TOTALS].set(thread, total);
  const hints = (provenance.hints ??= {}) as CodexHints;
  hints.total = total;
  const message = d[FINAL_ANSWER] ?? d[ANSWER];
  ctx.out.push(
    stamp(d, {
      type: 'round.end',
      message: d[ROUND_TEXT] ?? '',
      usage: { ...usage },
      provenance: synthetic(ctx),
    }),
  );
  const end: AgentEventOf<'run.end'> = { type: 'run.end', status: 'completed', usage, provenance };
  if (message !== undefined) end.answer = message;
  ctx.out.push(stamp(d, end));
  closeRun(d);
}

function closeRun(d: Decoder): void {
  d[RUN_OPEN] = false;
  d[ROUND_TOOLS] = false;
  d[ROUND_TEXT] = undefined;
  d[TEXTS].clear();
  d[CALLS].clear();
}

function turnFailed(d: Decoder, ctx: Line, record: JsonObject): void {
  const error = record.error;
  if (!isJsonObject(error) || typeof error.message !== 'string') {
    invalid(d, ctx, record, 'turn.failed without error.message');
    return;
  }
  const provenance = recordProvenance(d, ctx, record, 'turn.failed');
  if (provenance === undefined) return;
  if (!hasExactKeys(error, ['message'])) {
    if (refuseDeep(d, ctx, record)) return;
    checkNumbers(d, ctx);
    const hints = (provenance.hints ??= {}) as CodexHints;
    hints.raw = ctx.text;
    const rest = splitRecord(error, ['message']);
    if (rest?.extra !== undefined) hints.errorExtra = rest.extra;
  }
  const end: AgentEventOf<'run.end'> = {
    type: 'run.end',
    status: 'failed' satisfies RunStatus,
    reason: 'turn.failed',
    error: error.message,
    provenance,
  };
  ctx.out.push(stamp(d, end));
  closeRun(d);
}

function topError(d: Decoder, ctx: Line, record: JsonObject): void {
  if (typeof record.message !== 'string') {
    invalid(d, ctx, record, 'error without a string message');
    return;
  }
  const provenance = recordProvenance(d, ctx, record, 'error');
  if (provenance === undefined) return;
  ctx.out.push(stamp(d, errorEvent(d, record.message, true, provenance)));
}

function errorEvent(
  d: Decoder,
  message: string,
  fatal: boolean,
  provenance: Provenance,
): AgentEventOf<'error'> {
  const e: AgentEventOf<'error'> = { type: 'error', message, fatal, provenance };
  if (message.charCodeAt(0) === 123 && !isTooDeep(message, d[MAX_DEPTH])) {
    const data = parseEmbeddedError(message);
    if (data !== undefined) e.data = data;
  }
  return e;
}

function itemRecord(d: Decoder, ctx: Line, kind: CodexItemRecord, record: JsonObject): void {
  const item = record.item;
  if (!isJsonObject(item) || typeof item.id !== 'string') {
    invalid(d, ctx, record, `${kind} without an item that has a string id`);
    return;
  }
  const type = codexItemType(item.type);
  if (type === undefined) {
    unknown(d, ctx, record);
    return;
  }
  const problem = ITEM_CHECKS[type](item);
  if (problem !== undefined) {
    invalid(d, ctx, record, `${kind} ${type} item: ${problem}`);
    return;
  }
  const freeForm = FREE_FORM.has(type);
  const rest = splitRecord(item, CODEX_ITEM_KEYS[type]);
  const text = ctx.text;
  let hints: CodexHints | undefined;
  // The writer's spelling gives this line back unless it has fields or escapes of its own.
  if (
    freeForm ||
    rest !== undefined ||
    !hasExactKeys(record, ITEM_RECORD_KEYS) ||
    text.charCodeAt(8) !== 34 ||
    hasUnicodeEscape(text)
  ) {
    if ((freeForm || rest?.extra !== undefined) && refuseDeep(d, ctx, record)) return;
    if (freeForm || rest?.extra !== undefined) checkNumbers(d, ctx);
    hints = { raw: text };
    const recordRest = splitRecord(record, ITEM_RECORD_KEYS);
    if (recordRest?.extra !== undefined) hints.recordExtra = recordRest.extra;
  }
  // Built field by field: an object spread of the context costs more than the line's JSON.parse.
  mapItem(
    d,
    {
      text,
      line: ctx.line,
      offset: ctx.offset,
      out: ctx.out,
      kind,
      record,
      item,
      id: item.id,
      rest,
      hints,
    },
    type,
  );
}

/**
 * The shortcut beside the general path: a reasoning, agent message or command item line spelled
 * exactly as Codex writes it (`CODEX_ITEM_HEADS` and the keys after it in wire.ts: compact, the
 * item's keys in order, no `\u` escape, the exit code in plain digits) is read without
 * `JSON.parse` of the record: the fixed text compared in place, each string value parsed alone,
 * the item object made from them (its cost against the general path: docs/performance.md,
 * "Codex decoder"). Any other spelling returns false having done nothing, and takes the general
 * path, which maps the same item the same way (`mapItem`): the properties of
 * test/codex/fast-path.test.ts hold the two equal.
 */
function canonicalItem(d: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): boolean {
  // A long line is measured for depth before it is parsed; these lines nest two levels.
  if (text.length > DEPTH_PRECHECK_CHARS && d[MAX_DEPTH] < 2) return false;
  const kind = itemKindOf(text);
  if (kind === undefined) return false;
  cursor = CODEX_ITEM_HEADS[kind].length;
  const id = readPlain(text);
  // A `\u` escape anywhere sends the line to the general path, which keeps it as written:
  // readStringUntil looks for one in the values (every other character the reads accept is
  // fixed text or needs no escape).
  if (id === undefined) return false;
  // A file change or a todo list nests two levels more than the other items.
  const item = readItem(text, id, text.length > DEPTH_PRECHECK_CHARS && d[MAX_DEPTH] < 4);
  if (item === undefined) return false;
  const type = item.type as 'reasoning' | 'agent_message' | 'command_execution' | 'file_change' | 'todo_list';
  if (
    CODEX_WHOLE_EVENTS.enabled &&
    type !== 'file_change' &&
    type !== 'todo_list' &&
    wholeItem(d, kind, item, line, offset, out)
  )
    return true;
  mapItem(
    d,
    {
      text,
      line,
      offset,
      out,
      kind,
      record: { type: kind, item },
      item,
      id,
      rest: undefined,
      hints: undefined,
    },
    type,
  );
  return true;
}

/**
 * The shortcut for the run and thread lines beside the general path: `turn.started`,
 * `thread.started` with a thread id that needs no escape, and `turn.completed` with its usage
 * counts in Codex's key order and in plain digits (`CODEX_TOP_LINES`, `CODEX_USAGE_KEYS` in
 * wire.ts), read without `JSON.parse` of the record and mapped by the code the general path
 * ends in. Any other spelling returns false having done nothing (the properties of
 * test/codex/fast-path.test.ts hold the two paths equal).
 */
function canonicalTop(d: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): boolean {
  // A long line is measured for depth before it is parsed; these lines nest one or two levels.
  if (text.length > DEPTH_PRECHECK_CHARS && d[MAX_DEPTH] < 2) return false;
  if (text.charCodeAt(10) === 117) {
    if (text === CODEX_TOP_LINES.turnStarted) {
      wholeRunStart(d, line, offset, out);
      return true;
    }
    return text.indexOf(CODEX_TOP_LINES.turnCompleted) === 0 && canonicalTurnEnd(d, text, line, offset, out);
  }
  if (text.indexOf(CODEX_TOP_LINES.threadStarted) !== 0) return false;
  cursor = CODEX_TOP_LINES.threadStarted.length;
  const thread = readPlain(text);
  if (thread === undefined || !readLiteral(text, '}') || !atEnd(text)) return false;
  if (d[RUN_OPEN]) closeIncomplete(d, out, line, offset);
  d[THREAD] = thread;
  out.push({ type: 'session.start', session: thread, provenance: { format: FORMAT, line, offset } });
  return true;
}

// A turn's start (turnStarted's events, each in one literal).
function wholeRunStart(d: Decoder, line: number, offset: number, out: AgentEvent[]): void {
  if (d[RUN_OPEN]) closeIncomplete(d, out, line, offset);
  openRun(d);
  const session = d[THREAD];
  const provenance: Provenance = { format: FORMAT, line, offset };
  out.push(
    session === undefined ? { type: 'run.start', provenance } : { type: 'run.start', provenance, session },
  );
}

// A `turn.completed` line whose usage holds only Codex's counts, in its order, in plain digits
// (each at most 15: a safe integer): the total turnCompleted would read, then its events.
function canonicalTurnEnd(
  d: Decoder,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): boolean {
  // The counts by the index of their key in CODEX_USAGE_KEYS (an array: no keyed stores, whose
  // transitioned hidden classes die at a full GC with the code that read them).
  const counts: UsageCounts = [undefined, undefined, undefined, undefined, undefined];
  let at = CODEX_TOP_LINES.turnCompleted.length;
  let next = 0;
  for (;;) {
    if (text.charCodeAt(at) !== 34) return false;
    while (next < CODEX_USAGE_KEYS.length && text.indexOf(CODEX_USAGE_KEYS[next]!, at + 1) !== at + 1) next++;
    if (next === CODEX_USAGE_KEYS.length) return false;
    const key = CODEX_USAGE_KEYS[next]!;
    at += key.length + 1;
    if (text.charCodeAt(at) !== 34 || text.charCodeAt(at + 1) !== 58) return false;
    const start = at + 2;
    let i = start;
    let value = 0;
    for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i))
      value = value * 10 + c - 48;
    if (!isPlainUint(text, start, i)) return false;
    counts[next] = value;
    next++;
    if (text.charCodeAt(i) === 44) {
      at = i + 1;
      continue;
    }
    if (i !== text.length - 2 || text.charCodeAt(i) !== 125 || text.charCodeAt(i + 1) !== 125) return false;
    break;
  }
  if (counts[0] === undefined || counts[3] === undefined) return false;
  if (CODEX_WHOLE_EVENTS.enabled && wholeTurnEnd(d, counts, line, offset, out)) return true;
  const total: CodexUsageTotal = {};
  for (let i = 0; i < CODEX_USAGE_KEYS.length; i++) {
    const value = counts[i];
    if (value !== undefined) total[CODEX_USAGE_FIELDS[CODEX_USAGE_KEYS[i]!]] = value;
  }
  completeTurn(d, { text, line, offset, out }, total, { format: FORMAT, line, offset });
  return true;
}

/** A `turn.completed` line's counts, in the order of CODEX_USAGE_KEYS. */
type UsageCounts = [
  input: number | undefined,
  cacheRead: number | undefined,
  cacheWrite: number | undefined,
  output: number | undefined,
  reasoning: number | undefined,
];

// `completeTurn` for a total of Codex's five counts after a total of five no greater (or none):
// the total, the usage, the provenance and both events each built in one literal, with what the
// keyed stores of `completeTurn` and `stamp` would give in their order; false (having done
// nothing) for any other total. test/codex/whole-events.test.ts holds the two equal.
function wholeTurnEnd(
  d: Decoder,
  counts: UsageCounts,
  line: number,
  offset: number,
  out: AgentEvent[],
): boolean {
  const input = counts[0];
  const cacheRead = counts[1];
  const cacheWrite = counts[2];
  const output = counts[3];
  const reasoning = counts[4];
  if (
    input === undefined ||
    cacheRead === undefined ||
    cacheWrite === undefined ||
    output === undefined ||
    reasoning === undefined
  )
    return false;
  const thread = d[THREAD] ?? '';
  const p = d[TOTALS].get(thread);
  if (
    p !== undefined &&
    (p.input === undefined ||
      p.cacheRead === undefined ||
      p.cacheWrite === undefined ||
      p.output === undefined ||
      p.reasoning === undefined ||
      input < p.input ||
      cacheRead < p.cacheRead ||
      cacheWrite < p.cacheWrite ||
      output < p.output ||
      reasoning < p.reasoning)
  )
    return false;
  const ui = p === undefined ? input : input - (p.input as number);
  const ucr = p === undefined ? cacheRead : cacheRead - (p.cacheRead as number);
  const ucw = p === undefined ? cacheWrite : cacheWrite - (p.cacheWrite as number);
  const uo = p === undefined ? output : output - (p.output as number);
  const ur = p === undefined ? reasoning : reasoning - (p.reasoning as number);
  const usage: Usage = { input: ui, cacheRead: ucr, cacheWrite: ucw, output: uo, reasoning: ur };
  const total: CodexUsageTotal = { input, cacheRead, cacheWrite, output, reasoning };
  d[TOTALS].set(thread, total);
  const copy: Usage = { input: ui, cacheRead: ucr, cacheWrite: ucw, output: uo, reasoning: ur };
  const message = d[ROUND_TEXT] ?? '';
  const roundProvenance: Provenance = { format: FORMAT, line, offset, synthetic: true };
  const session = d[THREAD];
  out.push(
    session === undefined
      ? { type: 'round.end', message, usage: copy, provenance: roundProvenance }
      : { type: 'round.end', message, usage: copy, provenance: roundProvenance, session },
  );
  const provenance: Provenance = { format: FORMAT, line, offset, hints: { total } };
  const answer = d[FINAL_ANSWER] ?? d[ANSWER];
  if (answer === undefined)
    out.push(
      session === undefined
        ? { type: 'run.end', status: 'completed', usage, provenance }
        : { type: 'run.end', status: 'completed', usage, provenance, session },
    );
  else
    out.push(
      session === undefined
        ? { type: 'run.end', status: 'completed', usage, provenance, answer }
        : { type: 'run.end', status: 'completed', usage, provenance, answer, session },
    );
  closeRun(d);
  return true;
}

/**
 * Whether the shortcut maps the frequent canonical items in their usual state (a reasoning or
 * agent message completed whole, a command started empty, a command completed that a start
 * opened, whose status its exit code implies) to events built whole, each in one object literal
 * with every field it has, instead of through {@link mapItem}, which adds the thread and the
 * provenance's parts to literals afterwards. The two give the same events; off, the shortcut maps
 * every item through `mapItem` (the properties of test/codex/whole-events.test.ts hold them
 * equal). Whole literals keep their hidden classes across a full GC (docs/performance.md,
 * "Codex decoder").
 */
export const CODEX_WHOLE_EVENTS: { enabled: boolean } = { enabled: true };

// The frequent canonical items in their usual state, as whole events; false (having done
// nothing) for anything else, which `mapItem` maps.
function wholeItem(
  d: Decoder,
  kind: CodexItemRecord,
  item: JsonObject,
  line: number,
  offset: number,
  out: AgentEvent[],
): boolean {
  const id = item.id as string;
  if (item.type === 'command_execution') {
    return kind === 'item.started'
      ? wholeToolStart(d, item, id, line, offset, out)
      : kind === 'item.completed' && wholeToolEnd(d, item, id, line, offset, out);
  }
  // A snapshot of a text seen before is a delta of it: mapItem.
  if (kind !== 'item.completed' || (d[TEXTS].size !== 0 && d[TEXTS].has(id))) return false;
  const text = item.text as string;
  const session = d[THREAD];
  if (d[ROUND_TOOLS]) {
    const message = d[ROUND_TEXT] ?? '';
    const provenance: Provenance = { format: FORMAT, line, offset, synthetic: true };
    out.push(
      session === undefined
        ? { type: 'round.end', message, provenance }
        : { type: 'round.end', message, provenance, session },
    );
    d[ROUND_TOOLS] = false;
    d[ROUND_TEXT] = undefined;
  }
  if (item.type === 'reasoning') {
    const provenance: Provenance = { format: FORMAT, line, offset };
    out.push(
      session === undefined
        ? { type: 'reasoning.delta', text, message: id, provenance }
        : { type: 'reasoning.delta', text, message: id, provenance, session },
    );
    return true;
  }
  const opened: Provenance = { format: FORMAT, line, offset, synthetic: true };
  out.push(
    session === undefined
      ? { type: 'message.start', role: 'assistant', message: id, provenance: opened }
      : { type: 'message.start', role: 'assistant', message: id, provenance: opened, session },
  );
  const phase = item.phase;
  d[ANSWER] = text;
  d[ROUND_TEXT] = text;
  if (phase === 'final_answer') d[FINAL_ANSWER] = text;
  const provenance: Provenance =
    phase === undefined
      ? { format: FORMAT, line, offset }
      : { format: FORMAT, line, offset, extra: { phase } };
  out.push(
    session === undefined
      ? { type: 'text.delta', text, message: id, provenance }
      : { type: 'text.delta', text, message: id, provenance, session },
  );
  return true;
}

// A command's first snapshot, empty and in progress: its tool.start, and the call opened.
function wholeToolStart(
  d: Decoder,
  item: JsonObject,
  id: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): boolean {
  const output = item.aggregated_output as string;
  if (output !== '' || item.status !== 'in_progress' || item.exit_code !== null) return false;
  const command = item.command as string;
  const provenance: Provenance = { format: FORMAT, line, offset };
  const session = d[THREAD];
  out.push(
    session === undefined
      ? {
          type: 'tool.start',
          call: id,
          name: CODEX_COMMAND_TOOL,
          kind: 'execute',
          args: { command },
          command,
          provenance,
        }
      : {
          type: 'tool.start',
          call: id,
          name: CODEX_COMMAND_TOOL,
          kind: 'execute',
          args: { command },
          command,
          provenance,
          session,
        },
  );
  setBounded(d[CALLS], id, { type: 'command_execution', key: command, output }, MAX_OPEN_ITEMS);
  return true;
}

// A command's last snapshot, of a call its start opened, with an exit code and the status it
// implies (`completed` for 0, `failed`): its tool.end, and the call closed.
function wholeToolEnd(
  d: Decoder,
  item: JsonObject,
  id: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): boolean {
  const exitCode = item.exit_code;
  const status = item.status;
  if (exitCode === null || !(status === 'failed' || (status === 'completed' && exitCode === 0))) return false;
  const command = item.command as string;
  if (openCall(d, id, 'command_execution', command) === undefined) return false;
  d[CALLS].delete(id);
  d[ROUND_TOOLS] = true;
  const ok = status === 'completed';
  const text = item.aggregated_output as string;
  const provenance: Provenance = { format: FORMAT, line, offset };
  const session = d[THREAD];
  out.push(
    session === undefined
      ? {
          type: 'tool.end',
          call: id,
          name: CODEX_COMMAND_TOOL,
          ok,
          text,
          provenance,
          exitCode: exitCode as number,
        }
      : {
          type: 'tool.end',
          call: id,
          name: CODEX_COMMAND_TOOL,
          ok,
          text,
          provenance,
          exitCode: exitCode as number,
          session,
        },
  );
  return true;
}

// Maps an item line that passed its checks (either path) onto events.
function mapItem(d: Decoder, it: ItemLine, type: CodexItemType): void {
  ITEM_READERS[type](d, it);
}

// Each item type to its reader: one lookup (typed, so an item type without a reader does not
// compile), where a switch said `case type: reader(d, it); return;` for each.
type ItemReader = (d: Decoder, it: ItemLine) => void;
const ITEM_READERS: Readonly<Record<CodexItemType, ItemReader>> = {
  agent_message: (d, it) => message(d, it, 'text.delta'),
  reasoning: (d, it) => message(d, it, 'reasoning.delta'),
  command_execution: command,
  todo_list: (d, it) => plan(d, it, 'todo_list'),
  plan: (d, it) => plan(d, it, 'plan'),
  file_change: fileChange,
  error: itemError,
  mcp_tool_call: mcp,
  web_search: webSearch,
  collab_tool_call: collab,
};

// The record event's provenance: the item's own fields and key order, the hints, and which
// record it was when that is not `natural`.
function itemProvenance(it: ItemLine, natural: CodexItemRecord): Provenance {
  let hints = it.hints;
  // The record hint alone is a literal (a spread of nothing is a key added to an empty object).
  if (it.kind !== natural) hints = hints === undefined ? { record: it.kind } : { ...hints, record: it.kind };
  const rest = it.rest;
  if (rest === undefined || (rest.extra === undefined && rest.order === undefined))
    // Each shape one literal, in the key order of the stores below: a key added to a made object
    // is a hidden class the forced GC frees when no such provenance is alive, and the code that
    // made it goes with it (docs/performance.md, "Codex decoder", round twenty).
    return hints === undefined
      ? { format: FORMAT, line: it.line, offset: it.offset }
      : { format: FORMAT, line: it.line, offset: it.offset, hints };
  const p: Provenance = { format: FORMAT, line: it.line, offset: it.offset };
  if (rest.extra !== undefined) p.extra = rest.extra;
  if (rest.order !== undefined) p.order = rest.order;
  if (hints !== undefined) p.hints = hints;
  return p;
}

// A snapshot's text as a delta: what it adds to the item's previous snapshot.
function delta(d: Decoder, it: ItemLine, full: string, provenance: Provenance): string {
  const previous = d[TEXTS].size === 0 ? undefined : d[TEXTS].get(it.id);
  let delta = full;
  if (previous !== undefined) {
    if (full.startsWith(previous)) delta = full.slice(previous.length);
    else (provenance.hints ??= {}).snapshot = true;
  }
  if (it.kind === 'item.completed') {
    if (previous !== undefined) d[TEXTS].delete(it.id);
  } else setBounded(d[TEXTS], it.id, full, MAX_OPEN_ITEMS);
  return delta;
}

function message(d: Decoder, it: ItemLine, type: 'text.delta' | 'reasoning.delta'): void {
  const provenance = itemProvenance(it, 'item.completed');
  const full = it.item.text as string;
  const text = delta(d, it, full, provenance);
  if (d[ROUND_TOOLS] && text === full) nextRound(d, it);
  if (type === 'text.delta') {
    // A message's first snapshot opens it: formats that mark messages keep the boundary.
    if (provenance.hints?.snapshot !== true && text === full)
      it.out.push(
        stamp(d, {
          type: 'message.start',
          role: 'assistant',
          message: it.id,
          provenance: synthetic(it),
        }),
      );
    const phase = it.item.phase;
    if (phase !== undefined) provenance.extra = { ...provenance.extra, phase };
    d[ANSWER] = full;
    d[ROUND_TEXT] = full;
    if (phase === 'final_answer') d[FINAL_ANSWER] = full;
  }
  it.out.push(stamp(d, { type, text, message: it.id, provenance }));
}

// The plan and file change events are built whole, the thread in the literal where `stamp` would
// add it (the same keys in the same order): a key added to a made object is a hidden class the
// forced GC frees when no such event is alive, and the code that built it goes with it
// (docs/performance.md, "Codex decoder", round twenty).
function plan(d: Decoder, it: ItemLine, type: 'plan' | 'todo_list'): void {
  const provenance = itemProvenance(it, 'item.completed');
  if (type === 'todo_list' && it.hints?.raw === undefined) {
    // Todo entries with fields of their own are kept as written.
    for (const t of it.item.items as JsonObject[])
      if (!hasExactKeys(t, ['text', 'completed'])) {
        provenance.hints = { ...provenance.hints, raw: it.text };
        break;
      }
  }
  const session = d[THREAD];
  const id = it.id;
  let e: AgentEventOf<'plan'>;
  if (type === 'plan') {
    const text = it.item.text as string;
    e =
      session === undefined
        ? { type: 'plan', plan: id, items: [], text, provenance }
        : { type: 'plan', plan: id, items: [], text, provenance, session };
  } else {
    const items = todoToPlan(it.item.items as JsonObject[]);
    e =
      session === undefined
        ? { type: 'plan', plan: id, items, provenance }
        : { type: 'plan', plan: id, items, provenance, session };
  }
  it.out.push(e);
}

// Text after the calls of a round is the model's next response: the round before it ended
// (its usage is unknown: Codex reports usage per turn, on the last round).
function nextRound(d: Decoder, ctx: Line): void {
  ctx.out.push(stamp(d, { type: 'round.end', message: d[ROUND_TEXT] ?? '', provenance: synthetic(ctx) }));
  d[ROUND_TOOLS] = false;
  d[ROUND_TEXT] = undefined;
}

function fileChange(d: Decoder, it: ItemLine): void {
  const provenance = itemProvenance(it, 'item.completed');
  const changes = it.item.changes as JsonObject[];
  if (it.kind === 'item.completed') d[ROUND_TOOLS] = true;
  if (it.hints?.raw === undefined)
    for (const c of changes)
      if (!hasExactKeys(c, ['path', 'kind'])) {
        provenance.hints = { ...provenance.hints, raw: it.text };
        break;
      }
  const session = d[THREAD];
  const call = it.id;
  const list = changes as Array<{ path: string; kind: string }>;
  const status = it.item.status as string;
  it.out.push(
    session === undefined
      ? { type: 'file.change', call, changes: list, status, provenance }
      : { type: 'file.change', call, changes: list, status, provenance, session },
  );
}

function itemError(d: Decoder, it: ItemLine): void {
  const provenance = itemProvenance(it, 'item.completed');
  provenance.hints = { ...provenance.hints, item: it.id };
  it.out.push(stamp(d, errorEvent(d, it.item.message as string, false, provenance)));
}

// A tool item seen for the first time after its start: the start it implies (synthetic).
function impliedStart(
  d: Decoder,
  it: ItemLine,
  start: AgentEventOf<'tool.start'>,
  type: CodexItemType,
  key: string,
): void {
  start.provenance = { format: FORMAT, line: it.line, offset: it.offset, synthetic: true };
  it.out.push(stamp(d, start));
  setBounded(d[CALLS], it.id, { type, key, output: '' }, MAX_OPEN_ITEMS);
}

// The open call a later snapshot continues: one with the same id that said the same things.
function openCall(d: Decoder, id: string, type: CodexItemType, key: string): OpenCall | undefined {
  const open = d[CALLS].size === 0 ? undefined : d[CALLS].get(id);
  return open !== undefined && open.type === type && open.key === key ? open : undefined;
}

function command(d: Decoder, it: ItemLine): void {
  const item = it.item;
  const command = item.command as string;
  const output = item.aggregated_output as string;
  const key = command;
  const open = openCall(d, it.id, 'command_execution', key);
  const start = (): AgentEventOf<'tool.start'> => ({
    type: 'tool.start',
    call: it.id,
    name: CODEX_COMMAND_TOOL,
    kind: 'execute',
    args: { command },
    command,
  });
  if (it.kind === 'item.started') {
    const e = start();
    e.provenance = itemProvenance(it, 'item.started');
    if (output !== '') e.provenance.hints = { ...e.provenance.hints, output };
    if (item.status !== 'in_progress' || item.exit_code !== null)
      e.provenance.hints = { ...e.provenance.hints, ...early(item) };
    it.out.push(stamp(d, e));
    setBounded(d[CALLS], it.id, { type: 'command_execution', key, output }, MAX_OPEN_ITEMS);
    return;
  }
  if (open === undefined) impliedStart(d, it, start(), 'command_execution', key);
  const call = open ?? d[CALLS].get(it.id)!;
  if (it.kind === 'item.updated') {
    const provenance = itemProvenance(it, 'item.updated');
    let text = output;
    if (output.startsWith(call.output)) text = output.slice(call.output.length);
    else provenance.hints = { ...provenance.hints, snapshot: true };
    if (item.status !== 'in_progress' || item.exit_code !== null)
      provenance.hints = { ...provenance.hints, ...early(item) };
    call.output = output;
    it.out.push(stamp(d, { type: 'tool.output', call: it.id, text, provenance }));
    return;
  }
  d[CALLS].delete(it.id);
  const status = item.status as string;
  const exitCode = item.exit_code as number | null;
  const denied = status === 'declined';
  // The status says it; a command Codex gave up on is `completed` without an exit code.
  const ok = status === 'completed' && (exitCode === null || exitCode === 0);
  const provenance = itemProvenance(it, 'item.completed');
  const end: AgentEventOf<'tool.end'> = {
    type: 'tool.end',
    call: it.id,
    name: CODEX_COMMAND_TOOL,
    ok,
    text: output,
    provenance,
  };
  if (exitCode !== null) end.exitCode = exitCode;
  if (denied) end.denied = true;
  d[ROUND_TOOLS] = true;
  if (status !== endStatus(ok, denied)) provenance.hints = { ...provenance.hints, status };
  it.out.push(stamp(d, end));
}

function mcp(d: Decoder, it: ItemLine): void {
  const item = it.item;
  const args = item.arguments;
  const start = (): AgentEventOf<'tool.start'> => {
    const e: AgentEventOf<'tool.start'> = {
      type: 'tool.start',
      call: it.id,
      name: item.tool as string,
      server: item.server as string,
    };
    if (isJsonObject(args)) e.args = args;
    return e;
  };
  const nonObjectArgs = (p: Provenance) => {
    if (!isJsonObject(args)) p.hints = { ...p.hints, args: args === undefined ? null : args };
  };
  const key = `${item.server as string}\u0000${item.tool as string}\u0000${JSON.stringify(args)}`;
  if (it.kind === 'item.started') {
    const e = start();
    e.provenance = itemProvenance(it, 'item.started');
    nonObjectArgs(e.provenance);
    if (item.status !== 'in_progress')
      e.provenance.hints = { ...e.provenance.hints, status: item.status as string };
    if ((item.result ?? null) !== null || (item.error ?? null) !== null)
      e.provenance.hints = { ...e.provenance.hints, early: { result: item.result, error: item.error } };
    it.out.push(stamp(d, e));
    setBounded(d[CALLS], it.id, { type: 'mcp_tool_call', key, output: '' }, MAX_OPEN_ITEMS);
    return;
  }
  if (it.kind === 'item.updated') {
    unknown(d, it, it.record);
    return;
  }
  if (openCall(d, it.id, 'mcp_tool_call', key) === undefined) {
    const s = start();
    impliedStart(d, it, s, 'mcp_tool_call', key);
    nonObjectArgs(s.provenance!);
  }
  d[CALLS].delete(it.id);
  const status = item.status as string;
  const ok = status === 'completed' && (item.error === null || item.error === undefined);
  const provenance = itemProvenance(it, 'item.completed');
  nonObjectArgs(provenance);
  const end: AgentEventOf<'tool.end'> = {
    type: 'tool.end',
    call: it.id,
    name: item.tool as string,
    ok,
    provenance,
  };
  const result = item.result;
  if (isJsonObject(result)) {
    // Another format's JSON result, written as the structured content beside no text: itself.
    const content = result.content;
    end.result =
      Array.isArray(content) && content.length === 0 && isJsonObject(result.structured_content)
        ? result.structured_content
        : result;
    const text = contentText(result.content);
    if (text !== undefined) end.text = text;
  }
  const error = item.error;
  if (isJsonObject(error)) end.error = mcpErrorOf(error, provenance);
  if (status !== endStatus(ok, false)) provenance.hints = { ...provenance.hints, status };
  d[ROUND_TOOLS] = true;
  it.out.push(stamp(d, end));
}

// A failed MCP call's `error` (a string `message`: ITEM_CHECKS) as the end says it: the
// message's text, the fields beside it kept as a hint for the writer, so a key a later Codex
// adds does not turn the failure into the whole object.
function mcpErrorOf(error: JsonObject, provenance: Provenance): string {
  const rest = splitRecord(error, ['message']);
  if (rest?.extra !== undefined) provenance.hints = { ...provenance.hints, errorExtra: rest.extra };
  return error.message as string;
}

function webSearch(d: Decoder, it: ItemLine): void {
  const item = it.item;
  // JSON.parse kept the last of the item's two ids: the first is the item's, read from the text.
  const ids = scanItemIds(it.text, itemObjectStart(it.text));
  const call = ids.length >= 2 ? ids[0]! : it.id;
  const searchId = ids.length >= 2 ? ids[ids.length - 1]! : undefined;
  const fields: JsonObject = {};
  for (const key of ['query', 'action', 'results']) if (item[key] !== undefined) fields[key] = item[key];
  const withSearchId = (p: Provenance): Provenance => {
    if (searchId !== undefined) p.extra = { id: searchId, ...p.extra };
    return p;
  };
  if (it.kind === 'item.updated') {
    unknown(d, it, it.record);
    return;
  }
  const args: JsonObject = {};
  if (fields.query !== undefined) args.query = fields.query;
  if (fields.action !== undefined) args.action = fields.action;
  const start: AgentEventOf<'tool.start'> = {
    type: 'tool.start',
    call,
    name: CODEX_WEB_SEARCH_TOOL,
    kind: 'search',
    args,
  };
  if (it.kind === 'item.started') {
    start.provenance = withSearchId(itemProvenance(it, 'item.started'));
    if (fields.results !== undefined) start.args = fields;
    it.out.push(stamp(d, start));
    setBounded(d[CALLS], call, { type: 'web_search', key: '', output: '' }, MAX_OPEN_ITEMS);
    return;
  }
  if (openCall(d, call, 'web_search', '') === undefined) {
    impliedStart(d, { ...it, id: call }, start, 'web_search', '');
    withSearchId(start.provenance!);
  }
  d[CALLS].delete(call);
  d[ROUND_TOOLS] = true;
  it.out.push(
    stamp(d, {
      type: 'tool.end',
      call,
      name: CODEX_WEB_SEARCH_TOOL,
      ok: true,
      result: fields,
      provenance: withSearchId(itemProvenance(it, 'item.completed')),
    }),
  );
}

function collab(d: Decoder, it: ItemLine): void {
  const item = it.item;
  const name = item.tool as string;
  const bag: JsonObject = {};
  for (const key of ['sender_thread_id', 'receiver_thread_ids', 'prompt', 'agents_states'])
    if (item[key] !== undefined) bag[key] = item[key];
  const status = item.status as string;
  if (it.kind === 'item.updated') {
    unknown(d, it, it.record);
  } else if (it.kind === 'item.started') {
    const provenance = itemProvenance(it, 'item.started');
    if (status !== 'in_progress') provenance.hints = { ...provenance.hints, status };
    it.out.push(stamp(d, { type: 'tool.start', call: it.id, name, kind: 'agent', args: bag, provenance }));
    setBounded(d[CALLS], it.id, { type: 'collab_tool_call', key: name, output: '' }, MAX_OPEN_ITEMS);
  } else {
    if (openCall(d, it.id, 'collab_tool_call', name) === undefined)
      impliedStart(
        d,
        it,
        { type: 'tool.start', call: it.id, name, kind: 'agent', args: bag },
        'collab_tool_call',
        name,
      );
    d[CALLS].delete(it.id);
    const ok = status === 'completed';
    const provenance = itemProvenance(it, 'item.completed');
    if (status !== endStatus(ok, false)) provenance.hints = { ...provenance.hints, status };
    d[ROUND_TOOLS] = true;
    it.out.push(stamp(d, { type: 'tool.end', call: it.id, name, ok, result: bag, provenance }));
  }
  lanes(d, it, name, bag);
}

// Child lanes of a collab call: a spawned receiver starts one; an agent state that says it is
// done ends it (exec shows no child-thread activity: the lanes hold only their start and end).
function lanes(d: Decoder, it: ItemLine, tool: string, bag: JsonObject): void {
  const receivers = Array.isArray(bag.receiver_thread_ids) ? bag.receiver_thread_ids : [];
  if (tool === 'spawn_agent') {
    for (const child of receivers) {
      if (typeof child !== 'string' || d[CHILDREN].has(child)) continue;
      if (d[CHILDREN].size >= MAX_OPEN_ITEMS) break;
      d[CHILDREN].add(child);
      const e: AgentEventOf<'child.start'> = {
        type: 'child.start',
        child,
        call: it.id,
        kind: 'agent',
        provenance: synthetic(it),
      };
      if (typeof bag.prompt === 'string') e.task = bag.prompt;
      it.out.push(stamp(d, e));
    }
  }
  const states = bag.agents_states;
  if (!isJsonObject(states)) return;
  for (const child of Object.keys(states)) {
    const state = states[child];
    if (!isJsonObject(state) || !d[CHILDREN].has(child) || d[ENDED].has(child)) continue;
    // An own key only: a state named after an Object.prototype member (`__proto__`, `toString`)
    // is no end (found by test/fuzz/structured.test.ts: `{}` as a child's status).
    const status =
      typeof state.status === 'string' && Object.hasOwn(CODEX_AGENT_END, state.status)
        ? CODEX_AGENT_END[state.status]
        : undefined;
    if (status === undefined) continue;
    d[ENDED].add(child);
    const e: AgentEventOf<'child.end'> = {
      type: 'child.end',
      child,
      status,
      provenance: synthetic(it),
    };
    if (typeof state.message === 'string') e.result = state.message;
    it.out.push(stamp(d, e));
  }
}

// The item record an item line's head names (`{"type":"item.…","item":{"id":"`), or undefined.
function itemKindOf(text: string): CodexItemRecord | undefined {
  // The first letter of the kind word tells the three apart before any comparison.
  const kind =
    text.charCodeAt(14) === 99
      ? 'item.completed'
      : text.charCodeAt(14) === 115
        ? 'item.started'
        : text.charCodeAt(14) === 117
          ? 'item.updated'
          : undefined;
  // indexOf, not startsWith: V8 runs startsWith several times slower (docs/performance.md).
  return kind !== undefined && text.indexOf(CODEX_ITEM_HEADS[kind]) === 0 ? kind : undefined;
}

// The item of a reasoning, agent message or command line from the reader placed after the id's
// closing quote, when the rest of the line is spelled as Codex writes it; else undefined.
// Where a string value ends is found from the key after it: a `,"` outside a string is where a key
// starts, and inside one every quote is escaped, so a key written so is never text. The value
// between is then parsed alone: when it is one JSON string, the line is what it looks like; the
// long values (text, output) are not walked quote by quote.
function readItem(text: string, id: string, deep: boolean): JsonObject | undefined {
  const n = text.length;
  const c = text.charCodeAt(cursor + 9);
  if (c === 102) return deep ? undefined : readFileChange(text, id);
  if (c === 116) return deep ? undefined : readTodoList(text, id);
  if (c === 114 || c === 97) {
    const type = c === 114 ? 'reasoning' : 'agent_message';
    if (!readLiteral(text, CODEX_ITEM_TYPE_HEADS[type]) || text.charCodeAt(n - 1) !== 125) return undefined;
    // The phase (a short word) is looked for near the end only; a longer one is left to the
    // general path (the text would then run into it and not parse as one string).
    const p = type === 'agent_message' ? text.indexOf(CODEX_PHASE_KEY, n - PHASE_SEARCH) : -1;
    const value = readStringUntil(text, p === -1 ? n - 2 : p);
    if (value === undefined) return undefined;
    if (p === -1) return readLiteral(text, '}}') ? { id, type, text: value } : undefined;
    cursor += CODEX_PHASE_KEY.length;
    const phase = readPlain(text);
    return phase !== undefined && readLiteral(text, '}}') && atEnd(text)
      ? { id, type, text: value, phase }
      : undefined;
  }
  if (c !== 99 || !readLiteral(text, CODEX_ITEM_TYPE_HEADS.command_execution)) return undefined;
  // A started command's usual rest (everything after the command) or a completed one's usual
  // tail (after the output), found at the end of the line, stands for the reads below it would
  // take: when the value before it is one string, no `,"aggregated_output":` can be inside it
  // (an unescaped quote), so the search below would stop where the rest starts, and the tail's
  // exit code key is the last in the line. Any other end takes the reads below. The properties of
  // test/codex/fast-path.test.ts hold the shortcut equal to the general path on these lines
  // (`usualCommand` in test/codex/lines.ts) and on their near misses.
  const restAt = n - COMMAND_STARTED_REST.length;
  if (text.indexOf(COMMAND_STARTED_REST, restAt) === restAt) {
    const command = readStringUntil(text, restAt);
    if (command !== undefined) return commandItem(id, command, '', null, 'in_progress');
  }
  const { output: outputKey, exitCode: exitCodeKey } = CODEX_COMMAND_KEYS;
  const command = readStringBefore(text, outputKey, text.indexOf(outputKey, cursor));
  if (command === undefined) return undefined;
  const tailAt = n - COMMAND_COMPLETED_TAIL.length;
  if (text.indexOf(COMMAND_COMPLETED_TAIL, tailAt) === tailAt) {
    const output = readStringUntil(text, tailAt);
    if (output !== undefined) return commandItem(id, command, output, 0, 'completed');
  }
  const output = readStringBefore(text, exitCodeKey, text.lastIndexOf(exitCodeKey));
  if (output === undefined) return undefined;
  const exitCode = readExitCode(text);
  if (exitCode === undefined || !readLiteral(text, CODEX_COMMAND_KEYS.status)) return undefined;
  const status = readPlain(text);
  if (status === undefined || !readLiteral(text, '}}') || !atEnd(text)) return undefined;
  return commandItem(id, command, output, exitCode, status);
}

// A command item as the general path's record holds it: one literal for the three reads above
// (one hidden class, one allocation site).
function commandItem(
  id: string,
  command: string,
  output: string,
  exitCode: number | null,
  status: string,
): JsonObject {
  return { id, type: 'command_execution', command, aggregated_output: output, exit_code: exitCode, status };
}

// A file change item from after its id, its changes `{"path":…,"kind":"…"}` each (the path
// found from the key after it, as readItem finds its values), the status last; else undefined.
function readFileChange(text: string, id: string): JsonObject | undefined {
  if (!readLiteral(text, CODEX_ITEM_TYPE_HEADS.file_change)) return undefined;
  const changes: Array<{ path: string; kind: string }> = [];
  if (text.charCodeAt(cursor) !== 93)
    for (;;) {
      if (!readLiteral(text, CODEX_LIST_KEYS.path)) return undefined;
      const path = readStringBefore(text, CODEX_LIST_KEYS.kind, text.indexOf(CODEX_LIST_KEYS.kind, cursor));
      if (path === undefined) return undefined;
      const kind = readPlain(text);
      if (kind === undefined || !readLiteral(text, '}')) return undefined;
      changes.push({ path, kind });
      if (text.charCodeAt(cursor) !== 44) break;
      cursor++;
    }
  if (!readLiteral(text, CODEX_LIST_KEYS.status)) return undefined;
  const status = readPlain(text);
  if (status === undefined || !readLiteral(text, '}}') || !atEnd(text)) return undefined;
  return { id, type: 'file_change', changes, status };
}

// A todo list item from after its id, its entries `{"text":…,"completed":true|false}` each, the
// list last; else undefined.
function readTodoList(text: string, id: string): JsonObject | undefined {
  if (!readLiteral(text, CODEX_ITEM_TYPE_HEADS.todo_list)) return undefined;
  const items: Array<{ text: string; completed: boolean }> = [];
  if (text.charCodeAt(cursor) !== 93)
    for (;;) {
      if (!readLiteral(text, CODEX_LIST_KEYS.text)) return undefined;
      const { completed: key } = CODEX_LIST_KEYS;
      const entry = readStringBefore(text, key, text.indexOf(key, cursor));
      if (entry === undefined) return undefined;
      const completed = readLiteral(text, 'true}') ? true : readLiteral(text, 'false}') ? false : undefined;
      if (completed === undefined) return undefined;
      items.push({ text: entry, completed });
      if (text.charCodeAt(cursor) !== 44) break;
      cursor++;
    }
  return readLiteral(text, CODEX_LIST_KEYS.end) && atEnd(text) ? { id, type: 'todo_list', items } : undefined;
}

// How far from the end of an agent message line its `phase` key is looked for.
const PHASE_SEARCH = 64;

// What follows the command of a started command line as Codex writes it (no output yet, no exit
// code, in progress), and what follows the output of a command completed with exit code 0.
const COMMAND_STARTED_REST = `${CODEX_COMMAND_KEYS.output}""${CODEX_COMMAND_KEYS.exitCode}null${CODEX_COMMAND_KEYS.status}in_progress"}}`;
const COMMAND_COMPLETED_TAIL = `${CODEX_COMMAND_KEYS.exitCode}0${CODEX_COMMAND_KEYS.status}completed"}}`;

// The shortcut's reads take a line spelled as Codex writes it left to right from `cursor`: each
// moves it past what it read, or gives false/undefined (and the line takes the general path). The
// cursor is module state, not a field of a reader object: code that reads an object's field
// embeds its hidden class, and a decoder's object literal has none that outlives a full GC
// until its factory has run often enough to hold one (docs/performance.md, "Codex decoder",
// round five). Every read is synchronous and a line is read from start to end by one call.
let cursor = 0;

/**
 * True (and moves past it) when `s` is written at the cursor. indexOf, not startsWith (see
 * itemKindOf); a miss searches on to the end of the line, and only a line that takes the
 * general path misses.
 */
function readLiteral(text: string, s: string): boolean {
  if (text.indexOf(s, cursor) !== cursor) return false;
  cursor += s.length;
  return true;
}

/** True at the end of the line. */
function atEnd(text: string): boolean {
  return cursor === text.length;
}

/**
 * The text from the cursor to `end` parsed as one JSON string (undefined when it is not one:
 * `end` -1 or before the cursor, no quote at either end, or more than one value); the cursor
 * then at `end`.
 */
function readStringUntil(text: string, end: number): string | undefined {
  const start = cursor;
  if (end - start < 2 || text.charCodeAt(start) !== 34 || text.charCodeAt(end - 1) !== 34) return undefined;
  const token = text.slice(start, end);
  let value: string;
  try {
    value = JSON.parse(token) as string;
  } catch {
    return undefined;
  }
  // A `\u` in the token: the line takes the general path. Every escape makes the value shorter
  // than the token's inside, so a value that is not has no backslash to look for (the line-wide
  // search this replaces: docs/performance.md, "Codex decoder", round twelve).
  if (value.length !== end - start - 2 && token.indexOf('\\u') !== -1) return undefined;
  cursor = end;
  return value;
}

/**
 * The string value from the cursor up to `at`, where the caller found `key` (-1: not found), as
 * readStringUntil reads it, and the cursor moved past the key (no second look at it); undefined
 * when the text before it is not one string.
 */
function readStringBefore(text: string, key: string, at: number): string | undefined {
  const value = readStringUntil(text, at);
  if (value !== undefined) cursor += key.length;
  return value;
}

/**
 * The rest of a string whose opening quote is behind the cursor, up to its closing quote, when
 * none of its characters is a backslash or a control character (an id, a status word: what
 * `JSON.parse` gives is the text itself). Moves past the closing quote.
 */
function readPlain(text: string): string | undefined {
  const start = cursor;
  let i = start;
  // `>= 32` is false past the end (NaN) too.
  for (let c = text.charCodeAt(i); c !== 34; c = text.charCodeAt(++i))
    if (!(c >= 32) || c === 92) return undefined;
  cursor = i + 1;
  return text.slice(start, i);
}

/**
 * `null`, or an integer in plain digits (an optional minus, no leading zero, at most 15 digits:
 * always a safe integer, the number JSON.parse reads; `-0` is left to the general path).
 */
function readExitCode(text: string): number | null | undefined {
  if (text.charCodeAt(cursor) === 110 && text.indexOf('null', cursor) === cursor) {
    cursor += 4;
    return null;
  }
  const negative = text.charCodeAt(cursor) === 45;
  const start = negative ? cursor + 1 : cursor;
  let i = start;
  let value = 0;
  for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) value = value * 10 + c - 48;
  const digits = i - start;
  if (digits === 0 || digits > 15 || (text.charCodeAt(start) === 48 && (digits > 1 || negative)))
    return undefined;
  cursor = i;
  return negative ? -value : value;
}

// A `\u` escape: the writer spells every character itself. The search for the backslash alone is
// a native byte search; the two-character one starts from there (most short lines have none).
function hasUnicodeEscape(text: string): boolean {
  const at = text.indexOf('\\');
  return at !== -1 && text.indexOf('\\u', at) !== -1;
}

// The status and exit code of a command snapshot taken before it completed, when not the usual.
function early(item: JsonObject): CodexHints {
  const hints: CodexHints = { status: item.status as string };
  if (item.exit_code !== null) hints.exitCode = item.exit_code as number;
  return hints;
}

/** The `status` a tool end's `ok`/`denied` imply (the writer's default). */
export function endStatus(ok: boolean, denied: boolean): string {
  return denied ? 'declined' : ok ? 'completed' : 'failed';
}

// The text blocks of an MCP result's content, joined: the call's result as text.
function contentText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  let text: string | undefined;
  for (const block of content) {
    if (isJsonObject(block) && block.type === 'text' && typeof block.text === 'string')
      text = text === undefined ? block.text : `${text}\n${block.text}`;
  }
  return text;
}

// The run's own usage: the running total minus the thread's previous total (`undefined` when
// any count went down, which a running total never does).
function difference(total: CodexUsageTotal, previous: CodexUsageTotal | undefined): Usage | undefined {
  const usage: Usage = {};
  for (const key of CODEX_USAGE_KEYS) {
    const name = CODEX_USAGE_FIELDS[key];
    const value = total[name];
    if (value === undefined) continue;
    const before = previous?.[name] ?? 0;
    if (value < before) return undefined;
    usage[name] = value - before;
  }
  return usage;
}
