import { ownString } from '../../bounded';
import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import {
  assertArgsWritable,
  assertEncodable,
  assertText,
  encodeJsonText,
  isJsonObject,
  type JsonObject,
  jsonString,
  jsonText,
  parsedRawIfSame,
  rawIfSame,
  refuseKind,
  requireText,
  unencodable,
} from '../../json';
import { checkLoss, type LossState, newLoss, reportLoss } from '../../loss';
import type { AgentEvent, AgentEventOf, PlanItem, Usage } from '../../model';
import { hintsFrom, joinRecord } from '../../record';
import { addUsage as addUsageFigures, assertUsageFigures, assertUsageNumbers } from '../../usage';
import { aOr } from '../../words';
import {
  CODEX_COMMAND_KEYS,
  CODEX_COMMAND_TOOL,
  CODEX_ITEM_TYPE_HEADS,
  CODEX_MAX_HELD_TEXT,
  CODEX_USAGE_FIELDS,
  CODEX_USAGE_KEYS,
  CODEX_WEB_SEARCH_TOOL,
  CODEX_WRITE_HEADS,
  type CodexHints,
  type CodexItemRecord,
  type CodexUsageTotal,
  itemObjectStart,
  scanItemIds,
} from './wire';

/** Options of the Codex writer. */
export interface CodexEncodeOptions extends EncodeOptions {
  /**
   * Makes the thread id of a `session.start` without a session, and the ids of items built from
   * another format's events that have none. Default `crypto.randomUUID()` for threads and
   * `item_N` for items.
   */
  idSource?: () => string;
}

const FORMAT = 'codex' as const;

// Fields each event type carries into Codex; anything else present is reported as a loss.
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'session.start': ['session'],
  'run.start': ['session'],
  'run.end': ['session', 'status', 'usage', 'answer', 'reason', 'error'],
  'round.end': ['session', 'message', 'usage'],
  'message.start': ['session', 'role', 'message'],
  'message.end': ['session', 'message'],
  'text.delta': ['session', 'text', 'message'],
  'reasoning.delta': ['session', 'text', 'message'],
  'tool.start': ['session', 'call', 'name', 'kind', 'server', 'args', 'command'],
  'tool.output': ['session', 'call', 'text'],
  'tool.end': ['session', 'call', 'name', 'ok', 'text', 'result', 'error', 'exitCode', 'denied'],
  plan: ['session', 'plan', 'items', 'text'],
  'file.change': ['session', 'call', 'changes', 'status'],
  error: ['session', 'message', 'fatal', 'data'],
  unknown: ['session', 'record', 'recordType'],
};

/** Collab tools: a `tool.start` of kind `agent` with one of these names is a `collab_tool_call`. */
const COLLAB_TOOLS: ReadonlySet<string> = new Set(['spawn_agent', 'send_input', 'wait', 'close_agent']);
const COLLAB_FIELDS = ['sender_thread_id', 'receiver_thread_ids', 'prompt', 'agents_states'] as const;
const COLLAB_DEFAULTS: Readonly<Record<string, unknown>> = {
  sender_thread_id: '',
  receiver_thread_ids: [],
  prompt: null,
  agents_states: {},
};

type CallKind = 'command' | 'mcp' | 'web_search' | 'collab';

/** What the writer remembers of a call between its start and its end. */
interface OpenCall {
  kind: CallKind;
  name: string;
  command: string;
  server: string;
  args: unknown;
  output: string;
  /**
   * A command's item as written up to its command value (`{"id":…,"type":"command_execution",
   * "command":…`), spelled by the start's template for the end's: '' until then.
   */
  head: string;
}

function defaultThreadId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID !== undefined) return c.randomUUID();
  return `agentwire-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

const encodeValue = (value: unknown): string => {
  assertEncodable(value, 'value', undefined, FORMAT);
  return JSON.stringify(value) ?? 'null';
};

/**
 * Test hook: `enabled: false` makes the writer spell every line the general way, so that
 * test/codex/writer-fast-path.test.ts can hold the template writes equal to it.
 */
export const codexTemplates: { enabled: boolean } = { enabled: true };

function hintsOf(event: AgentEvent): CodexHints | undefined {
  return hintsFrom<CodexHints>(event, FORMAT);
}

function fromCodex(event: AgentEvent): boolean {
  return event.provenance?.format === FORMAT;
}

/** Another format's text or reasoning, held until its message ends (Codex writes one item each). */
interface Pending {
  type: 'agent_message' | 'reasoning';
  text: string;
  message: string | undefined;
  grouped: boolean;
  /** Part of the text was already written as an item (CODEX_MAX_HELD_TEXT). */
  split?: boolean;
}

/**
 * The writer's state ({@link newWriter}): an array of slots (the indices below), not a literal.
 * An array's hidden class belongs to the realm and outlives every GC; a literal's, made before
 * the factory has an allocation site, dies with the last writer and takes the per-event code
 * that checked it along (docs/performance.md, "Codex writer", round six).
 */
type Writer = [
  options: CodexEncodeOptions,
  loss: LossState,
  thread: string,
  totals: Map<string, CodexUsageTotal>,
  texts: Map<string, string>,
  calls: Map<string, OpenCall>,
  nextItem: number,
  // Ids the turn's items already have (another format's call ids may look like item_N).
  used: Set<string>,
  pending: Pending | undefined,
  // A foreign message.start was seen: the deltas after it (until a boundary) are one message.
  grouping: string | undefined | null,
  textThisRound: boolean,
  textThisRun: boolean,
  roundUsage: Usage | undefined,
  lastFatal: string | undefined,
];

const OPTIONS = 0;
const LOSS = 1;
const THREAD = 2;
const TOTALS = 3;
const TEXTS = 4;
const CALLS = 5;
const NEXT_ITEM = 6;
const USED = 7;
const PENDING = 8;
const GROUPING = 9;
const TEXT_THIS_ROUND = 10;
const TEXT_THIS_RUN = 11;
const ROUND_USAGE = 12;
const LAST_FATAL = 13;

function newWriter(options: CodexEncodeOptions, sink: DiagnosticSink): Writer {
  return [
    options,
    newLoss(FORMAT, sink),
    '',
    new Map(),
    new Map(),
    new Map(),
    0,
    new Set(),
    undefined,
    null,
    false,
    false,
    undefined,
    undefined,
  ];
}

/**
 * The Codex `exec --json` writer: canonical events → `ThreadEvent` lines, byte-exact for events
 * decoded from Codex (key order, the running usage total, a web search's two ids). Events from
 * other formats are written as Codex writes them: text and reasoning as one item per message,
 * shell calls as `command_execution`, other tools as `mcp_tool_call`, plans as `todo_list`, a
 * run's end as `turn.completed` with the thread's new running total. Losses go to `sink`.
 */
export function createCodexEncoder(options: CodexEncodeOptions, sink: DiagnosticSink): Encoder {
  return new CodexEncoder(newWriter(options, sink));
}

/**
 * Refuses an event whose string field this writer reads as text (a length, a slice, an escape)
 * holds anything else ({@link assertText}): a caller building events by hand from JSON may
 * send a number, null, an object or an array, which threw a `TypeError` mid-write. A switch on
 * the type and a `typeof` per field: a table looked up by type cost the fastest writers a few
 * per cent (docs/performance.md, round thirty-five). Its own switch: the writer has no one dispatch that comes before everything it writes or
 * keeps (a derived call's start kept, a run's end, the template, the general path; round
 * thirty-six).
 */
function assertTextFields(event: AgentEvent): void {
  switch (event.type) {
    // (A required field missing is refused too.)
    case 'tool.start':
      requireText(event.call, event, 'call', FORMAT);
      return;
    case 'tool.output':
      requireText(event.text, event, 'text', FORMAT);
      return;
    case 'round.end':
      requireText(event.message, event, 'message', FORMAT);
      // Summed into the run's total: a figure of no number (a BigInt) threw a TypeError there.
      if (event.usage !== undefined) assertUsageNumbers(event.usage, 'round.end.usage', FORMAT);
      return;
    case 'plan':
      if (!Array.isArray(event.items)) refuseKind(event, 'items', 'an array', FORMAT);
      return;
    case 'run.end':
      assertText(event.answer, event, 'answer', FORMAT);
      return;
    case 'session.start':
      // The thread's id (a number was written as the text of its digits, an object as
      // `[object Object]`), kept as the thread the run totals are counted for.
      assertText(event.session, event, 'session', FORMAT);
      return;
  }
}

/**
 * The encoder: the writer's state in its element 0, `write` and `end` on the prototype (the Amp
 * writer's shape). A literal of two closures per encoder gave a caller's loop a new `write` call
 * target with every encoder, and the code that inlined the last one was marked at the next full
 * GC and compiled again inside the next run (docs/performance.md, "Codex writer and decoder,
 * round twenty").
 */
class CodexEncoder implements Encoder {
  declare readonly 0: Writer;

  constructor(w: Writer) {
    (this as { 0: Writer })[0] = w;
  }

  write(event: AgentEvent): string {
    assertTextFields(event);
    return writeEvent(this[0], event);
  }

  end(): string {
    return endWrite(this[0]);
  }
}

function writeEvent(w: Writer, event: AgentEvent): string {
  // The provenance is read once here and handed on: events come in a dozen shapes, so every
  // read of one of their fields is a megamorphic lookup.
  const p = event.provenance;
  const codex = p !== undefined && p.format === FORMAT;
  // Refused before anything is kept of it: a call's start kept, its end (which repeats the
  // arguments) would be refused too.
  assertArgsWritable(event, FORMAT);
  if (codex && p.synthetic === true) {
    // Derived from a line another event writes: remember what that line will need.
    if (event.type === 'tool.start') openCall(w, event);
    return '';
  }
  assertRecordWritable(event, codex);
  // A completed run's end whose total Codex cannot count is refused before the message held
  // ahead of it is written or its losses are reported; the total, made once, is runEnd's.
  if (event.type === 'run.end') {
    const hints = hintsOf(event);
    const total =
      event.status === 'completed'
        ? completedTotal(w, event.usage ?? w[ROUND_USAGE] ?? {}, hints, codex)
        : undefined;
    checkLoss(w[LOSS], event, CARRIED_RUN_END);
    const head = flush(w);
    return head + runEnd(w, event, codex, hints, total);
  }
  if (
    codex &&
    codexTemplates.enabled &&
    p.hints === undefined &&
    p.order === undefined &&
    w[PENDING] === undefined
  ) {
    // The template checks the event's losses itself once it writes it (one dispatch on the type).
    const line = template(w, event, p.extra);
    if (line !== undefined) return line;
  }
  const carried = CARRIED[event.type];
  // A call's end is built before the message held ahead of it is written and its losses are
  // reported: refused, it takes nothing down (the message stays held for the next record, and a
  // loss reported for it would have used up a later event's report).
  if (event.type === 'tool.end') {
    const line = toolEnd(w, event);
    if (carried !== undefined) checkLoss(w[LOSS], event, carried);
    return flush(w) + line;
  }
  if (carried !== undefined) checkLoss(w[LOSS], event, carried);
  if (event.type === 'text.delta' || event.type === 'reasoning.delta') return textDelta(w, event, codex);
  const head = flush(w);
  return head + recordLine(w, event, codex);
}

/**
 * Throws now what the record written after the held message (flush) would throw for `event`: a
 * file change's changes, a Codex line's record, JSON cannot hold. Refused after, the held message
 * was written and its item id taken for nothing, and a loss reported for the event (found by
 * test/fuzz/refusal.test.ts).
 */
function assertRecordWritable(event: AgentEvent, codex: boolean): void {
  if (event.type === 'file.change') {
    // Codex's own `{path, kind}` strings (the template's) hold nothing to refuse: no walk.
    if (!isPathKindList(event.changes))
      assertEncodable(event.changes, 'file.change.changes', undefined, FORMAT);
  } else if (event.type === 'unknown' && codex && isJsonObject(event.record))
    assertEncodable(event.record, 'unknown.record', undefined, FORMAT);
}

function endWrite(w: Writer): string {
  return flush(w);
}

// The carried fields of the event types the templates write (the CARRIED entries themselves: the
// loss check knows a clean key list by them).
const CARRIED_TEXT = CARRIED['text.delta']!;
const CARRIED_REASONING = CARRIED['reasoning.delta']!;
const CARRIED_START = CARRIED['tool.start']!;
const CARRIED_END = CARRIED['tool.end']!;
const CARRIED_FILE = CARRIED['file.change']!;
const CARRIED_RUN_END = CARRIED['run.end']!;

/**
 * The template writes beside the general path: the frequent item lines of events decoded from
 * Codex that kept nothing of their line (no hints, no fields of their own but a message's
 * `phase`, no key order), spelled from the wire's fixed text and each value's `JSON.stringify`
 * (`jsonString`), the bytes `JSON.stringify` gives the record the general path spells piece by
 * piece, without building the record (its cost: docs/performance.md, "Codex writer"); a command's
 * item head, spelled for its start, is kept for its end. Undefined, having changed nothing (the
 * loss check included), for any other event or state (a held message, earlier snapshots): the
 * general path writes it. test/codex/writer-fast-path.test.ts holds the two equal.
 */
function template(w: Writer, event: AgentEvent, extra: JsonObject | undefined): string | undefined {
  switch (event.type) {
    case 'tool.end':
      return extra === undefined ? endTemplate(w, event) : undefined;
    case 'tool.start':
      return extra === undefined ? startTemplate(w, event) : undefined;
    case 'reasoning.delta':
      return extra === undefined ? reasoningTemplate(w, event) : undefined;
    case 'text.delta':
      return messageTemplate(w, event, extra);
    case 'file.change':
      return extra === undefined ? fileTemplate(w, event) : undefined;
    default:
      return undefined;
  }
}

function reasoningTemplate(w: Writer, event: AgentEventOf<'reasoning.delta'>): string | undefined {
  const id = event.message;
  const text = event.text;
  if (typeof id !== 'string' || typeof text !== 'string' || w[TEXTS].size !== 0) return undefined;
  checkLoss(w[LOSS], event, CARRIED_REASONING);
  return `${CODEX_WRITE_HEADS['item.completed']}${CODEX_WRITE_HEADS.id}${jsonString(id)}${CODEX_ITEM_TYPE_HEADS.reasoning}${jsonText(text)}}}\n`;
}

function messageTemplate(
  w: Writer,
  event: AgentEventOf<'text.delta'>,
  extra: JsonObject | undefined,
): string | undefined {
  const id = event.message;
  const text = event.text;
  if (typeof id !== 'string' || typeof text !== 'string' || w[TEXTS].size !== 0) return undefined;
  let phase = '';
  if (extra !== undefined) {
    const value = extra.phase;
    if (typeof value !== 'string' || !onlyKey(extra, 'phase')) return undefined;
    phase = `${CODEX_WRITE_HEADS.phase}${jsonString(value)}`;
  }
  checkLoss(w[LOSS], event, CARRIED_TEXT);
  wroteText(w);
  return `${CODEX_WRITE_HEADS['item.completed']}${CODEX_WRITE_HEADS.id}${jsonString(id)}${CODEX_ITEM_TYPE_HEADS.agent_message}${jsonText(text)}${phase}}}\n`;
}

function startTemplate(w: Writer, event: AgentEventOf<'tool.start'>): string | undefined {
  const command = event.command;
  const id = event.call;
  // A Codex command (what `classify` says of an event from Codex named and kinded so).
  if (
    typeof command !== 'string' ||
    typeof id !== 'string' ||
    event.name !== CODEX_COMMAND_TOOL ||
    event.kind !== 'execute'
  )
    return undefined;
  checkLoss(w[LOSS], event, CARRIED_START);
  const head = commandHead(id, command);
  // What openCall remembers of a Codex command without hints.
  remember(w, id, {
    kind: 'command',
    name: CODEX_COMMAND_TOOL,
    command,
    server: event.server ?? '',
    args: event.args ?? {},
    output: '',
    head,
  });
  return `${CODEX_WRITE_HEADS['item.started']}${head}${CODEX_WRITE_HEADS.commandStarted}`;
}

// A command item up to its command value.
function commandHead(id: string, command: string): string {
  return `${CODEX_WRITE_HEADS.id}${jsonString(id)}${CODEX_ITEM_TYPE_HEADS.command_execution}${jsonString(command)}`;
}

function endTemplate(w: Writer, event: AgentEventOf<'tool.end'>): string | undefined {
  const id = event.call;
  const call = w[CALLS].get(id);
  const output = event.text;
  const exitCode = event.exitCode;
  if (
    call?.kind !== 'command' ||
    typeof id !== 'string' ||
    typeof call.command !== 'string' ||
    typeof output !== 'string' ||
    (exitCode !== undefined && !Number.isSafeInteger(exitCode))
  )
    return undefined;
  checkLoss(w[LOSS], event, CARRIED_END);
  w[CALLS].delete(id);
  const head = call.head !== '' ? call.head : commandHead(id, call.command);
  // `String` of a safe integer is its JSON (`-0` too: both say 0).
  return `${CODEX_WRITE_HEADS['item.completed']}${head}${CODEX_COMMAND_KEYS.output}${jsonText(output)}${CODEX_COMMAND_KEYS.exitCode}${exitCode === undefined ? 'null' : String(exitCode)}${CODEX_COMMAND_KEYS.status}${event.denied ? 'declined' : event.ok ? 'completed' : 'failed'}"}}\n`;
}

// A file change with its own id whose changes are Codex's `{path, kind}` strings: the line
// `fileChange` spells, with no `encodeValue` walk of the changes (they are checked here).
function fileTemplate(w: Writer, event: AgentEventOf<'file.change'>): string | undefined {
  const id = event.call;
  const status = event.status ?? 'completed';
  const changes = event.changes;
  if (typeof id !== 'string' || typeof status !== 'string' || !isPathKindList(changes)) return undefined;
  checkLoss(w[LOSS], event, CARRIED_FILE);
  return `${JSON.stringify({ type: 'item.completed', item: { id, type: 'file_change', changes, status } })}\n`;
}

// True when `changes` is an array of objects whose enumerable keys are `path` and `kind`, both
// strings: what `JSON.stringify` writes as `assertEncodable` lets it, with nothing to refuse.
function isPathKindList(changes: unknown): boolean {
  if (!Array.isArray(changes)) return false;
  for (let i = 0; i < changes.length; i++) {
    const c: unknown = changes[i];
    if (typeof c !== 'object' || c === null) return false;
    const { path, kind } = c as { path?: unknown; kind?: unknown };
    if (typeof path !== 'string' || typeof kind !== 'string') return false;
    let keys = 0;
    for (const k in c) {
      if (k !== 'path' && k !== 'kind') return false;
      keys++;
    }
    if (keys !== 2) return false;
  }
  return true;
}

function recordLine(w: Writer, event: AgentEvent, codex: boolean): string {
  switch (event.type) {
    case 'tool.start':
      return toolStart(w, event);
    case 'tool.end':
      return toolEnd(w, event);
    case 'tool.output':
      return toolOutput(w, event, codex);
    case 'session.start':
      return sessionStart(w, event);
    case 'run.start':
      w[USED].clear();
      w[TEXTS].clear();
      w[TEXT_THIS_RUN] = false;
      w[TEXT_THIS_ROUND] = false;
      w[ROUND_USAGE] = undefined;
      w[LAST_FATAL] = undefined;
      // (Keys Codex may add to the record, and their order, come back as the decoder kept them.)
      return topLine('turn.started', [], event);
    case 'round.end':
      return roundEnd(w, event);
    // (A run's end is writeEvent's: its total is made before the held message is written.)
    case 'plan':
      return planLine(w, event);
    case 'file.change':
      return fileChange(w, event);
    case 'error':
      return errorLine(w, event, codex);
    case 'unknown':
      return unknownLine(w, event);
    case 'message.start':
      w[GROUPING] = event.message;
      return '';
    case 'message.end':
      // An agent_message item is one message: its bounds are implied.
      w[GROUPING] = null;
      return '';
    default:
      reportLoss(w[LOSS], event, event.type, `codex exec has no record for ${event.type} events`);
      return '';
  }
}

function allocate(w: Writer): string {
  let id = `item_${w[NEXT_ITEM]++}`;
  while (w[USED].has(id)) id = `item_${w[NEXT_ITEM]++}`;
  return id;
}

// Kept as strings of their own (`ownString`): a call id sliced from a chunk would keep the chunk.
function use(w: Writer, id: string): void {
  if (w[USED].size < 4096 && !w[USED].has(id)) w[USED].add(ownString(id));
}

// The line as the decoder kept it while the event still says what it said; else `text`.
// `parsed`: what the kept line parses to, when the writer has parsed it already (`keptTodo`).
function keptLine(text: string, event: AgentEvent, parsed?: KeptTodo): string {
  if (parsed !== undefined) return `${parsedRawIfSame(parsed.raw, parsed.record, text)}\n`;
  const raw = hintsOf(event)?.raw;
  return `${raw === undefined ? text : rawIfSame(raw, text)}\n`;
}

// A top-level record from its pieces, with the fields and key order its provenance kept.
function topLine(type: string, pieces: Array<[string, string]>, event: AgentEvent): string {
  const p = fromCodex(event) ? event.provenance : undefined;
  if (p?.extra === undefined && p?.order === undefined) {
    let text = `{"type":"${type}"`;
    for (const [k, v] of pieces) text += `,"${k}":${v}`;
    return keptLine(`${text}}`, event);
  }
  pieces.unshift(['type', `"${type}"`]);
  return keptLine(joinRecord(pieces, { extra: p.extra, order: p.order }, encodeValue, FORMAT), event);
}

// An item record: `{"type":kind,"item":{…}}`, the item's fields in Codex's order. `ids`: a
// web_search item's ids as `pieces` spell them (the item's, then the search's, which its
// provenance keeps as the extra `id`). `parsed`: the kept line as the writer parsed it.
function itemLine(
  kind: CodexItemRecord,
  pieces: Array<[string, string]>,
  event: AgentEvent,
  ids?: readonly string[],
  parsed?: KeptTodo,
): string {
  const p = fromCodex(event) ? event.provenance : undefined;
  let inner: string;
  let extra = p?.extra;
  if (extra !== undefined && ids !== undefined && Object.hasOwn(extra, 'id')) {
    const { id: _, ...others } = extra;
    extra = Object.keys(others).length === 0 ? undefined : others;
  }
  if (extra === undefined && p?.order === undefined) {
    inner = '{';
    for (let i = 0; i < pieces.length; i++)
      inner += `${i === 0 ? '' : ','}"${pieces[i]![0]}":${pieces[i]![1]}`;
    inner += '}';
  } else inner = joinRecord(pieces, { extra, order: p?.order }, encodeValue, FORMAT);
  const recordExtra = hintsOf(event)?.recordExtra;
  const text =
    recordExtra === undefined
      ? `{"type":"${kind}","item":${inner}}`
      : joinRecord(
          [
            ['type', `"${kind}"`],
            ['item', inner],
          ],
          { extra: recordExtra },
          encodeValue,
          FORMAT,
        );
  const line = keptLine(text, event, parsed);
  // A web_search item spells `id` twice, and JSON.parse keeps the second only, so the comparison
  // cannot see the first: the kept line is put back only if its item spells the ids the event
  // now says, whatever keys stand around them (a key of a later Codex's before the first).
  if (ids !== undefined && line !== `${text}\n` && !sameIds(line, ids)) return `${text}\n`;
  return line;
}

// Whether the item of `line` spells `id` as `ids` say, in order, and no more often.
function sameIds(line: string, ids: readonly string[]): boolean {
  const at = itemObjectStart(line);
  if (at === -1) return false;
  const read = scanItemIds(line, at);
  if (read.length !== ids.length) return false;
  for (let i = 0; i < ids.length; i++) if (read[i] !== ids[i]) return false;
  return true;
}

function sessionStart(w: Writer, event: AgentEventOf<'session.start'>): string {
  w[THREAD] = event.session ?? (w[OPTIONS].idSource ?? defaultThreadId)();
  return topLine('thread.started', [['thread_id', jsonString(w[THREAD])]], event);
}

// --- text and reasoning -------------------------------------------------------------------

function textDelta(
  w: Writer,
  event: AgentEventOf<'text.delta'> | AgentEventOf<'reasoning.delta'>,
  codex: boolean,
): string {
  const type = event.type === 'text.delta' ? 'agent_message' : 'reasoning';
  if (codex && event.message !== undefined) {
    const hints = hintsOf(event);
    const kind = hints?.record ?? 'item.completed';
    const id = event.message;
    let text = event.text;
    if (hints?.snapshot !== true && w[TEXTS].size > 0) {
      const before = w[TEXTS].get(id);
      if (before !== undefined) text = before + text;
    }
    if (kind === 'item.completed') w[TEXTS].delete(id);
    else w[TEXTS].set(id, text);
    if (type === 'agent_message') wroteText(w);
    const head = flush(w);
    return (
      head +
      itemLine(
        kind,
        [
          ['id', jsonString(id)],
          ['type', `"${type}"`],
          ['text', jsonString(text)],
        ],
        event,
      )
    );
  }
  // Deltas are one message while they say so: the same message id, or the message a
  // message.start opened. A delta on its own (a format without message bounds) is a message.
  const p = w[PENDING];
  let head = '';
  if (p !== undefined && !(p.type === type && p.grouped && p.message === event.message)) head = flush(w);
  if (w[PENDING] === undefined) {
    const grouped =
      event.message !== undefined ||
      (type === 'agent_message' && w[GROUPING] !== null && w[GROUPING] === event.message);
    w[PENDING] = { type, text: '', message: event.message, grouped };
  }
  const pending = w[PENDING];
  pending.text += event.text;
  if (pending.text.length < CODEX_MAX_HELD_TEXT) return head;
  // Past the cap the text so far becomes an item of its own and the message goes on in the
  // next: text kept, memory bounded, but a reader takes the last item as the round's message.
  reportLoss(
    w[LOSS],
    event,
    `${event.type}.message`,
    `a message past ${CODEX_MAX_HELD_TEXT} characters is written as several ${type} items; a reader takes the last as the whole message`,
  );
  if (type === 'agent_message') wroteText(w);
  const text = pending.text;
  pending.text = '';
  pending.split = true;
  return head + agentItem(w, type, text);
}

function wroteText(w: Writer): void {
  w[TEXT_THIS_ROUND] = true;
  w[TEXT_THIS_RUN] = true;
}

function flush(w: Writer): string {
  const p = w[PENDING];
  if (p?.type === 'agent_message') w[GROUPING] = null;
  if (p === undefined) return '';
  w[PENDING] = undefined;
  // A split message that ended right at a cut: its text is all written.
  if (p.split === true && p.text === '') return '';
  if (p.type === 'agent_message') wroteText(w);
  return agentItem(w, p.type, p.text);
}

function agentItem(w: Writer, type: 'agent_message' | 'reasoning', text: string): string {
  return `{"type":"item.completed","item":{"id":${jsonString(allocate(w))},"type":"${type}","text":${jsonText(text)}}}\n`;
}

// --- runs -----------------------------------------------------------------------------------

function roundEnd(w: Writer, event: AgentEventOf<'round.end'>): string {
  let text = '';
  if (!w[TEXT_THIS_ROUND] && event.message !== '') {
    wroteText(w);
    text = agentItem(w, 'agent_message', event.message);
  }
  w[TEXT_THIS_ROUND] = false;
  const usage = event.usage;
  if (usage === undefined) return text;
  // A round's usage goes into its run's total, the only place Codex writes it. One Codex cannot
  // count (a fraction, a negative, past 2^53) is left out of the total, said: taken in, the
  // run's end, a clean event, was refused for it (found by test/fuzz/refusal.test.ts). A run's
  // end whose own usage Codex cannot count is refused (completedTotal).
  const rounds = addUsage(w[ROUND_USAGE], usage);
  if (uncountedKey(runningTotal(w[TOTALS].get(w[THREAD]), rounds, false)) === undefined)
    w[ROUND_USAGE] = rounds;
  else
    reportLoss(
      w[LOSS],
      event,
      'round.end.usage',
      "codex counts tokens in non-negative integers: left out of the turn's total",
    );
  return text;
}

/**
 * A run's end; `total`, for a completed one, its thread's running total ({@link completedTotal}),
 * made by writeEvent before the held message is written: a total Codex cannot count was refused
 * before the run's end wrote or let go anything (its answer's item id, the run's texts, the
 * rounds' usage), which the refusal took down with it (found by test/fuzz/refusal.test.ts).
 */
function runEnd(
  w: Writer,
  event: AgentEventOf<'run.end'>,
  codex: boolean,
  hints: CodexHints | undefined,
  total: CodexUsageTotal | undefined,
): string {
  const roundUsage = w[ROUND_USAGE];
  const usage = event.usage ?? roundUsage ?? {};
  let text = '';
  if (!codex && !w[TEXT_THIS_RUN] && event.answer !== undefined && event.answer !== '') {
    text = agentItem(w, 'agent_message', event.answer);
  }
  if (event.reason !== undefined && event.reason !== 'turn.failed')
    reportLoss(w[LOSS], event, 'run.end.reason', 'codex has no place for the source terminal word');
  w[TEXT_THIS_RUN] = false;
  w[TEXT_THIS_ROUND] = false;
  if (event.status !== 'incomplete') w[TEXTS].clear();
  w[ROUND_USAGE] = undefined;
  switch (event.status) {
    case 'incomplete':
      unwrittenUsage(w, event, roundUsage, 'a codex turn cut off reports no usage');
      return text;
    case 'completed':
      usageLoss(w, event, usage);
      w[TOTALS].set(w[THREAD], total!);
      return text + topLine('turn.completed', [['usage', usageText(total!, hints?.usageExtra)]], event);
    case 'cancelled':
      reportLoss(
        w[LOSS],
        event,
        'run.end.status',
        'codex exec has no cancelled turn: written as turn.failed',
      );
      unwrittenUsage(w, event, roundUsage, FAILED_NO_USAGE);
      return text + turnFailed(event, event.error ?? 'cancelled');
    case 'failed':
      unwrittenUsage(w, event, roundUsage, FAILED_NO_USAGE);
      return text + turnFailed(event, event.error ?? w[LAST_FATAL] ?? 'turn failed');
  }
}

// A completed turn's running total of the thread's usage; refused when Codex cannot count it.
function completedTotal(
  w: Writer,
  usage: Usage,
  hints: CodexHints | undefined,
  codex: boolean,
): CodexUsageTotal {
  // Its counts are spelled into the line (usageText): a NaN there would be no JSON.
  assertUsageFigures(usage, 'run.end.usage', FORMAT);
  const previous = w[TOTALS].get(w[THREAD]);
  const total =
    // the kept total while the run's usage is still its difference (or, after a total that
    // went down, the total itself)
    hints?.total !== undefined &&
    (isDifference(hints.total, previous, usage) || isDifference(hints.total, undefined, usage))
      ? hints.total
      : runningTotal(previous, usage, codex);
  assertCodexCounts(total);
  return total;
}

const FAILED_NO_USAGE = 'a failed codex turn reports no usage';

// A turn that ends without `turn.completed`, the only record with usage: the run's usage, or the
// rounds' usage that would have been summed into it, is lost.
function unwrittenUsage(
  w: Writer,
  event: AgentEventOf<'run.end'>,
  roundUsage: Usage | undefined,
  why: string,
): void {
  if (event.usage !== undefined) reportLoss(w[LOSS], event, 'run.end.usage', why);
  else if (roundUsage !== undefined) reportLoss(w[LOSS], event, 'round.end.usage', why);
}

function turnFailed(event: AgentEventOf<'run.end'>, message: string): string {
  const errorExtra = hintsOf(event)?.errorExtra;
  const error =
    errorExtra === undefined
      ? `{"message":${jsonString(message)}}`
      : joinRecord([['message', jsonString(message)]], { extra: errorExtra }, encodeValue, FORMAT);
  return topLine('turn.failed', [['error', error]], event);
}

function usageLoss(w: Writer, event: AgentEvent, usage: Usage): void {
  if (usage.costUsd !== undefined)
    reportLoss(w[LOSS], event, 'run.end.usage.costUsd', 'codex reports tokens only, never a cost');
  if (usage.model !== undefined || usage.byModel !== undefined)
    reportLoss(w[LOSS], event, 'run.end.usage.model', 'codex names no model in its stream');
}

function errorLine(w: Writer, event: AgentEventOf<'error'>, codex: boolean): string {
  if (!codex && event.data !== undefined)
    reportLoss(
      w[LOSS],
      event,
      'error.data',
      'codex error messages are text (structured errors only as JSON text)',
    );
  if (event.fatal) {
    w[LAST_FATAL] = event.message;
    return topLine('error', [['message', jsonString(event.message)]], event);
  }
  const hints = hintsOf(event);
  const id = hints?.item ?? allocate(w);
  return itemLine(
    hints?.record ?? 'item.completed',
    [
      ['id', jsonString(id)],
      ['type', '"error"'],
      ['message', jsonString(event.message)],
    ],
    event,
  );
}

function unknownLine(w: Writer, event: AgentEventOf<'unknown'>): string {
  if (!fromCodex(event)) {
    reportLoss(
      w[LOSS],
      event,
      'unknown.record',
      `${aOr(event.provenance?.format ?? 'foreign')} record has no codex line`,
    );
    return '';
  }
  if (!isJsonObject(event.record)) {
    reportLoss(w[LOSS], event, 'unknown.record', 'codex records are JSON objects');
    return '';
  }
  return keptLine(encodeValue(event.record), event);
}

// --- plans and file changes -----------------------------------------------------------------

function planLine(w: Writer, event: AgentEventOf<'plan'>): string {
  const kind = hintsOf(event)?.record ?? 'item.completed';
  const id = jsonString(event.plan ?? allocate(w));
  if (event.items.length === 0 && event.text !== undefined) {
    return itemLine(
      kind,
      [
        ['id', id],
        ['type', '"plan"'],
        ['text', jsonString(event.text)],
      ],
      event,
    );
  }
  if (event.text !== undefined) reportLoss(w[LOSS], event, 'plan.text', 'a codex todo_list has items only');
  const parsed = keptTodo(event);
  return itemLine(
    kind,
    [
      ['id', id],
      ['type', '"todo_list"'],
      ['items', todoItems(w, event, event.items, keptEntries(parsed))],
    ],
    event,
    undefined,
    parsed,
  );
}

function todoItems(
  w: Writer,
  event: AgentEvent,
  items: readonly PlanItem[],
  kept: unknown[] | undefined,
): string {
  let text = '[';
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.status === 'in_progress')
      reportLoss(
        w[LOSS],
        event,
        'plan.items.status',
        'a codex to-do entry is completed or not: in_progress is written as not completed',
      );
    const entry = `{"text":${jsonString(item.text)},"completed":${item.status === 'completed'}}`;
    text += `${i === 0 ? '' : ','}${keptEntry(kept, i, item) ?? entry}`;
  }
  return `${text}]`;
}

/** The line the decoder kept of a to-do list, and what it parses to (parsed once per write). */
interface KeptTodo {
  raw: string;
  record: unknown;
}

// The kept line of a to-do list parsed, or `undefined` when there is none (or it is no JSON).
function keptTodo(event: AgentEvent): KeptTodo | undefined {
  const raw = fromCodex(event) ? hintsOf(event)?.raw : undefined;
  if (typeof raw !== 'string') return undefined;
  try {
    return { raw, record: JSON.parse(raw) };
  } catch {
    return undefined;
  }
}

// The to-do entries of the line the decoder kept (an entry with fields of its own makes it keep
// the line), so that an entry that still says what the event says is written with its fields
// and the line comes back byte for byte (`parsedRawIfSame`).
function keptEntries(kept: KeptTodo | undefined): unknown[] | undefined {
  const record = kept?.record;
  if (!isJsonObject(record) || !isJsonObject(record.item)) return undefined;
  const items = record.item.items;
  return Array.isArray(items) ? items : undefined;
}

function keptEntry(kept: unknown[] | undefined, i: number, item: PlanItem): string | undefined {
  const entry = kept?.[i] as { text?: unknown; completed?: unknown } | undefined;
  if (typeof entry !== 'object' || entry === null || entry.text !== item.text) return undefined;
  if (entry.completed !== (item.status === 'completed')) return undefined;
  // (Parsed from a line: JSON text again, whatever it holds.)
  return JSON.stringify(entry);
}

function fileChange(w: Writer, event: AgentEventOf<'file.change'>): string {
  const kind = hintsOf(event)?.record ?? 'item.completed';
  return itemLine(
    kind,
    [
      ['id', jsonString(event.call ?? allocate(w))],
      ['type', '"file_change"'],
      ['changes', encodeValue(event.changes)],
      ['status', jsonString(event.status ?? 'completed')],
    ],
    event,
  );
}

// --- tools ----------------------------------------------------------------------------------

function classify(event: AgentEventOf<'tool.start'>): CallKind {
  if (fromCodex(event)) {
    if (event.name === CODEX_COMMAND_TOOL && event.kind === 'execute') return 'command';
    if (event.name === CODEX_WEB_SEARCH_TOOL && event.kind === 'search') return 'web_search';
    if (event.kind === 'agent' && COLLAB_TOOLS.has(event.name)) return 'collab';
    if (event.server !== undefined) return 'mcp';
  }
  return event.command !== undefined || event.kind === 'execute' || argsCommand(event) !== undefined
    ? 'command'
    : 'mcp';
}

function openCall(w: Writer, event: AgentEventOf<'tool.start'>): OpenCall {
  const kind = classify(event);
  const hints = hintsOf(event);
  const call: OpenCall = {
    kind,
    name: event.name,
    command: event.command ?? argsCommand(event) ?? event.argsSummary ?? event.name,
    server: event.server ?? '',
    args: hints !== undefined && 'args' in hints ? hints.args : (event.args ?? {}),
    output: hints?.output ?? '',
    head: '',
  };
  if (!fromCodex(event)) {
    if (kind === 'command' && event.command === undefined && argsCommand(event) === undefined)
      reportLoss(
        w[LOSS],
        event,
        'tool.start.name',
        'a codex command has no tool name: the name is written as the command',
      );
    if (kind === 'mcp' && event.argsSummary !== undefined && event.args === undefined)
      reportLoss(w[LOSS], event, 'tool.start.argsSummary', 'codex MCP calls carry arguments as an object');
  }
  remember(w, event.call, call);
  return call;
}

// An open call kept until its end (the oldest dropped past 4096), its id used.
function remember(w: Writer, id: string, call: OpenCall): void {
  if (w[CALLS].has(id)) w[CALLS].set(id, call);
  else {
    if (w[CALLS].size >= 4096) w[CALLS].delete(w[CALLS].keys().next().value as string);
    w[CALLS].set(ownString(id), call);
  }
  use(w, id);
}

function toolStart(w: Writer, event: AgentEventOf<'tool.start'>): string {
  const call = openCall(w, event);
  return toolItem(w, 'item.started', event.call, call, event, undefined);
}

function toolOutput(w: Writer, event: AgentEventOf<'tool.output'>, codex: boolean): string {
  let call = w[CALLS].get(event.call);
  if (call === undefined) {
    call = {
      kind: 'command',
      name: CODEX_COMMAND_TOOL,
      command: '',
      server: '',
      args: {},
      output: '',
      head: '',
    };
    w[CALLS].set(event.call, call);
  }
  const hints = hintsOf(event);
  if (codex) {
    call.output = hints?.snapshot === true ? event.text : call.output + event.text;
    return toolItem(w, 'item.updated', event.call, call, event, undefined);
  }
  // Held up to the cap; what does not fit, the delta that crosses it included, is a loss.
  const room = CODEX_MAX_HELD_TEXT - call.output.length;
  if (room > 0) call.output += event.text.length <= room ? event.text : event.text.slice(0, room);
  if (event.text.length > room)
    reportLoss(
      w[LOSS],
      event,
      'tool.output.text',
      'output past 1 MiB characters is not held for the command item',
    );
  return '';
}

function toolEnd(w: Writer, event: AgentEventOf<'tool.end'>): string {
  const call = w[CALLS].get(event.call) ?? {
    kind: 'mcp',
    name: event.name ?? 'tool',
    command: event.name ?? '',
    server: '',
    args: {},
    output: '',
    head: '',
  };
  const line = toolItem(w, 'item.completed', event.call, call, event, event);
  // Let go once its item is written: refused, the call stays open.
  w[CALLS].delete(event.call);
  return line;
}

function toolItem(
  w: Writer,
  kind: CodexItemRecord,
  id: string,
  call: OpenCall,
  event: AgentEvent,
  end: AgentEventOf<'tool.end'> | undefined,
): string {
  const hints = hintsOf(event);
  const pieces: Array<[string, string]> = [['id', jsonString(id)]];
  switch (call.kind) {
    case 'command': {
      let output = call.output;
      if (
        end !== undefined &&
        !fromCodex(end) &&
        end.text !== undefined &&
        errorText(end.error) !== undefined
      )
        reportLoss(
          w[LOSS],
          end,
          'tool.end.error',
          'a codex command has one output: the error text is not written',
        );
      if (end !== undefined)
        output =
          end.text ??
          (call.output !== '' ? call.output : (errorText(end.error) ?? resultText(end.result) ?? ''));
      const status =
        hints?.status ??
        (end === undefined ? 'in_progress' : end.denied ? 'declined' : end.ok ? 'completed' : 'failed');
      pieces.push(
        ['type', '"command_execution"'],
        ['command', jsonString(call.command)],
        ['aggregated_output', jsonString(output)],
        ['exit_code', exitCode(w, end, hints)],
        ['status', jsonString(status)],
      );
      return itemLine(kind, pieces, event);
    }
    case 'mcp': {
      pieces.push(
        ['type', '"mcp_tool_call"'],
        ['server', jsonString(call.server)],
        ['tool', jsonString(call.name)],
        ['arguments', encodeValue(call.args)],
      );
      if (end === undefined) {
        const early = hints?.early;
        pieces.push(
          ['result', encodeValue(early?.result ?? null)],
          ['error', encodeValue(early?.error ?? null)],
          ['status', jsonString(hints?.status ?? 'in_progress')],
        );
      } else {
        const codex = fromCodex(end);
        pieces.push(
          ['result', encodeValue(codex ? codexResult(end.result) : mcpResult(end))],
          ['error', encodeValue(mcpError(end, codex))],
          ['status', jsonString(hints?.status ?? (end.ok ? 'completed' : 'failed'))],
        );
      }
      return itemLine(kind, pieces, event);
    }
    case 'web_search': {
      const searchId = event.provenance?.extra?.id;
      pieces.push(['type', '"web_search"']);
      const ids = [id];
      if (typeof searchId === 'string') {
        pieces.push(['id', jsonString(searchId)]);
        ids.push(searchId);
      }
      const bag = end === undefined ? (event as AgentEventOf<'tool.start'>).args : end.result;
      const fields = isJsonObject(bag) ? bag : {};
      pieces.push(
        ['query', encodeValue(fields.query ?? '')],
        ['action', encodeValue(fields.action ?? { type: 'other' })],
      );
      if (fields.results !== undefined) pieces.push(['results', encodeValue(fields.results)]);
      return itemLine(kind, pieces, event, ids);
    }
    case 'collab': {
      const bag = end === undefined ? (event as AgentEventOf<'tool.start'>).args : end.result;
      const fields = isJsonObject(bag) ? bag : {};
      pieces.push(['type', '"collab_tool_call"'], ['tool', jsonString(call.name)]);
      for (const key of COLLAB_FIELDS) pieces.push([key, encodeValue(fields[key] ?? COLLAB_DEFAULTS[key])]);
      const status = hints?.status ?? (end === undefined ? 'in_progress' : end.ok ? 'completed' : 'failed');
      pieces.push(['status', jsonString(status)]);
      return itemLine(kind, pieces, event);
    }
  }
}

// True when `o`'s one own key is `key`.
function onlyKey(o: JsonObject, key: string): boolean {
  for (const k in o) if (k !== key) return false;
  return Object.hasOwn(o, key);
}

// A tool named as Codex names commands, whose arguments hold the command line (as the Codex
// decoder writes them): the command, read back from another format that kept only the arguments.
function argsCommand(event: AgentEventOf<'tool.start'>): string | undefined {
  const command = event.args?.command;
  return event.name === CODEX_COMMAND_TOOL && typeof command === 'string' ? command : undefined;
}

function exitCode(
  w: Writer,
  end: AgentEventOf<'tool.end'> | undefined,
  hints: CodexHints | undefined,
): string {
  const code = end === undefined ? hints?.exitCode : end.exitCode;
  if (code === undefined) return 'null';
  // Codex's exit codes are integers (its reader takes no other): another format's `1.5` or
  // `1e308` is written as no exit code, and said.
  if (!Number.isSafeInteger(code)) {
    if (end !== undefined) reportLoss(w[LOSS], end, 'tool.end.exitCode', 'a codex exit code is an integer');
    return 'null';
  }
  return String(code);
}

// A failure's or a result's text: a BigInt or a cycle in it is refused, not a TypeError, and a
// number JSON cannot hold, not written as `null`.
function errorText(error: unknown): string | undefined {
  if (error === undefined || error === null) return undefined;
  return typeof error === 'string' ? error : encodeJsonText(error, 'tool.end.error', FORMAT);
}

function resultText(result: unknown): string | undefined {
  if (result === undefined || result === null) return undefined;
  return typeof result === 'string' ? result : encodeJsonText(result, 'tool.end.result', FORMAT);
}

// Another format's result as an MCP result: its text as one text block, a JSON result as the
// structured content.
function mcpResult(end: AgentEventOf<'tool.end'>): unknown {
  if (!end.ok) return null;
  const result = end.result;
  if (isJsonObject(result) && Array.isArray(result.content)) return result;
  const text = end.text ?? (typeof result === 'string' ? result : undefined);
  return {
    content: text === undefined ? [] : [{ type: 'text', text }],
    structured_content: text === undefined && result !== undefined ? result : null,
  };
}

// A Codex MCP result as the decoder gave it: the whole result, or its structured content alone
// when the content was empty.
function codexResult(result: unknown): unknown {
  if (result === undefined) return null;
  return isJsonObject(result) && Array.isArray(result.content)
    ? result
    : { content: [], structured_content: result };
}

function mcpError(end: AgentEventOf<'tool.end'>, codex: boolean): unknown {
  const error = end.error;
  if (codex) {
    if (typeof error !== 'string') return error === undefined ? null : error;
    // The fields the decoder kept beside the message (`mcpErrorOf`), so the kept line compares equal.
    const extra = hintsOf(end)?.errorExtra;
    return extra === undefined ? { message: error } : { message: error, ...extra };
  }
  if (end.ok) return null;
  return { message: errorText(error) ?? end.text ?? 'tool call failed' };
}

// Exact decimal sums (costs too): the one usage adder, src/usage.ts.
function addUsage(a: Usage | undefined, b: Usage): Usage {
  return addUsageFigures<Usage>({ ...a }, b);
}

// The thread's new running total: the previous one plus this run's own usage. Codex's five
// fields for another format's run (zeros where it had none); an edited Codex run keeps its own.
function runningTotal(previous: CodexUsageTotal | undefined, usage: Usage, codex: boolean): CodexUsageTotal {
  const total: CodexUsageTotal = {};
  for (const key of CODEX_USAGE_KEYS) {
    const name = CODEX_USAGE_FIELDS[key];
    const own = usage[name];
    if (
      codex &&
      own === undefined &&
      previous?.[name] === undefined &&
      (name === 'cacheWrite' || name === 'reasoning')
    )
      continue;
    total[name] = (previous?.[name] ?? 0) + (own ?? 0);
  }
  return total;
}

// True when `usage` is what `total` adds to `previous` in each of Codex's counts: the total's
// count less the previous one, and unset where the total has none. Named field by field, no
// usage object built (the keyed loop it replaces: docs/performance.md, "Codex writer").
function isDifference(total: CodexUsageTotal, previous: CodexUsageTotal | undefined, usage: Usage): boolean {
  return (
    isCountDifference(total.input, previous?.input, usage.input) &&
    isCountDifference(total.cacheRead, previous?.cacheRead, usage.cacheRead) &&
    isCountDifference(total.cacheWrite, previous?.cacheWrite, usage.cacheWrite) &&
    isCountDifference(total.output, previous?.output, usage.output) &&
    isCountDifference(total.reasoning, previous?.reasoning, usage.reasoning)
  );
}

function isCountDifference(
  total: number | undefined,
  previous: number | undefined,
  own: number | undefined,
): boolean {
  return total === undefined ? own === undefined : own === total - (previous ?? 0);
}

// Codex counts tokens in non-negative integers, and its reader takes a `turn.completed` with any
// other count as no usage at all. The first of Codex's keys whose count in `total` is none (a
// fraction, a negative count, one past 2^53, a NaN or an Infinity from a figure that is none),
// else undefined.
function uncountedKey(total: CodexUsageTotal): (typeof CODEX_USAGE_KEYS)[number] | undefined {
  for (const key of CODEX_USAGE_KEYS) {
    const n = total[CODEX_USAGE_FIELDS[key]];
    if (n !== undefined && !(Number.isSafeInteger(n) && n >= 0)) return key;
  }
  return undefined;
}

// A run's total another format's usage made that Codex cannot count is refused, not written as a
// line Codex's readers refuse.
function assertCodexCounts(total: CodexUsageTotal): void {
  const key = uncountedKey(total);
  if (key === undefined) return;
  throw unencodable(
    `run.end.usage: the thread's ${key} would be ${total[CODEX_USAGE_FIELDS[key]]}, and Codex counts tokens in non-negative integers`,
    FORMAT,
  );
}

function usageText(total: CodexUsageTotal, extra: JsonObject | undefined): string {
  if (extra === undefined && codexTemplates.enabled) {
    // Codex's keys in its order (CODEX_USAGE_KEYS), each count the total has, spelled whole.
    const text =
      (total.input === undefined ? '' : `,"input_tokens":${total.input}`) +
      (total.cacheRead === undefined ? '' : `,"cached_input_tokens":${total.cacheRead}`) +
      (total.cacheWrite === undefined ? '' : `,"cache_write_input_tokens":${total.cacheWrite}`) +
      (total.output === undefined ? '' : `,"output_tokens":${total.output}`) +
      (total.reasoning === undefined ? '' : `,"reasoning_output_tokens":${total.reasoning}`);
    return text === '' ? '{}' : `{${text.slice(1)}}`;
  }
  const pieces: Array<[string, string]> = [];
  for (const key of CODEX_USAGE_KEYS) {
    const value = total[CODEX_USAGE_FIELDS[key]];
    if (value !== undefined) pieces.push([key, String(value)]);
  }
  if (extra === undefined) {
    let text = '{';
    for (let i = 0; i < pieces.length; i++)
      text += `${i === 0 ? '' : ','}"${pieces[i]![0]}":${pieces[i]![1]}`;
    return `${text}}`;
  }
  return joinRecord(pieces, { extra }, encodeValue, FORMAT);
}
