import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type DiagnosticSink, diagnosticAt } from '../../diagnostics';
import { isFiniteNumber, str } from '../../guards';
import {
  DEPTH_PRECHECK_CHARS,
  isJsonObject,
  type JsonObject,
  mayHoldUnsafeNumber,
  NOT_PARSED,
  parseRecordText,
  readStringToken,
  refuseTooDeep,
  resolveMaxDepth,
  unsafeNumberMessage,
  valueExceedsDepth,
  valueTooDeep,
} from '../../json';
import { copyJsonBySpread } from '../../kept';
import type { AgentEvent, AgentEventOf, Provenance } from '../../model';
import { incompleteRunEnd } from '../../record';
import { isPlainUint } from '../../text-reader';
import {
  AT,
  CLOSED,
  KNOWN,
  LAST_LINE,
  LAST_OFFSET,
  LAST_TS,
  MAX_DEPTH,
  RUN_OPEN,
  SEGMENT,
  SESSION,
  SINK,
} from './slots';
import {
  CURSOR_ASSISTANT_HEAD,
  CURSOR_ASSISTANT_TEXT_END,
  CURSOR_CALL_ID_KEY,
  CURSOR_COMPLETED_AT_KEY,
  CURSOR_CWD_KEY,
  CURSOR_INIT_HEAD,
  CURSOR_MODEL_CALL_KEY,
  CURSOR_MODEL_KEY,
  CURSOR_PERMISSION_MODE_KEY,
  CURSOR_SESSION_KEY,
  CURSOR_SHELL_PAYLOAD_KEY,
  CURSOR_STARTED_AT_KEY,
  CURSOR_THINKING_COMPLETED_HEAD,
  CURSOR_THINKING_DELTA_HEAD,
  CURSOR_TIMESTAMP_KEY,
  CURSOR_TOOL_CALL_FIELDS_HEAD,
  CURSOR_TOOL_CALL_HEAD,
  CURSOR_TOOL_CALL_KEY,
  CURSOR_USER_HEAD,
  type CursorHints,
  isCursorRecordType,
  msOf,
  toolKeyOf,
  toolKindOf,
  toolNameOf,
  usageFromWire,
} from './wire';

/** Options of the Cursor decoder (`maxLineBytes` defaults to 16 MiB here). */
export interface CursorDecodeOptions extends DecodeOptions {}

const FORMAT = 'cursor' as const;

/**
 * Test hook: `enabled: false` sends every line through the general path, so that
 * test/cursor/decode-shortcut.test.ts can hold the decoder's shortcut equal to it.
 */
export const cursorDecodeShortcut: { enabled: boolean } = { enabled: true };

/** One line's facts, shared by the events it yields. */
interface LineContext {
  record: JsonObject;
  line: number;
  offset: number;
  provenance: Provenance;
}

/** The text blocks of a `message.content` (an array of `{type:"text",text}`, or a string). */
function contentText(message: unknown): string | undefined {
  if (!isJsonObject(message)) return undefined;
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const block of content) {
    if (isJsonObject(block) && block.type === 'text' && typeof block.text === 'string') text += block.text;
  }
  return text;
}

/**
 * The Cursor record decoder: one `cursor-agent -p --output-format stream-json` line → canonical
 * events. `system/init` → `session.start`; the `user` prompt echo → `run.start` (`user.message`
 * inside a run); `thinking/delta` → `reasoning.delta`, `thinking/completed` → an empty
 * `reasoning.delta` (the block ends); `assistant` → `text.delta`, except the snapshot Cursor
 * repeats after streaming a segment as token deltas (`--stream-partial-output`), which is a
 * `message.end` (its text was already delivered); `tool_call/started` → `tool.start` and
 * `/completed` → `tool.end` (the payload key is the tool: `shellToolCall` → `shell`, kind
 * `execute`); `result` → `run.end` with its camelCase usage; `connection`/`retry` → `notice`.
 * A stream that ends inside a run ends it `incomplete`.
 *
 * A factory over module functions and the decoder's state in an array of slots (see `Decoder`).
 */
export function createCursorRecordDecoder(options: CursorDecodeOptions, sink: DiagnosticSink): RecordDecoder {
  return new CursorRecordDecoder(newDecoder(options, sink));
}

/**
 * The record decoder: the state in its element 0, `line` and `end` on the prototype (the Codex
 * record decoder's shape). One `line` for every decoder, so the line splitter's call site keeps
 * its target, and the code that inlined it, from one stream to the next; a bound function made
 * per decoder was a new call target each time ("wrong call target" at every new stream:
 * docs/performance.md, "Record decoders as classes", round twenty-two).
 */
class CursorRecordDecoder implements RecordDecoder {
  declare readonly 0: Decoder;

  constructor(d: Decoder) {
    (this as { 0: Decoder })[0] = d;
  }

  line(text: string, line: number, offset: number, out: AgentEvent[]): void {
    readLine(this[0], text, line, offset, out);
  }

  end(out: AgentEvent[]): void {
    endStream(this[0], out);
  }
}

/**
 * The decoder's state between lines ({@link newDecoder}): an array of slots (the indices below),
 * the canonical-line reader's three first, not a literal. A literal made once per decoder gets no
 * allocation site until its factory has run several times, so its hidden class dies with the last
 * decoder at a full GC and takes the optimised per-line code that embedded it along; an array's
 * hidden class is the realm's and outlives every GC (docs/performance.md, "Cursor decoder, round
 * thirteen"; the Amp decoder's state).
 */
type Decoder = [
  at: number,
  known: string | undefined,
  maxDepth: number,
  sink: DiagnosticSink,
  runOpen: boolean,
  session: string | undefined,
  // Text of the assistant segment being streamed as deltas.
  segment: string,
  // The segment a tool call just closed (its replay may land after the call).
  closed: string,
  // Where the last line was, for the events the stream's end implies (no object per line).
  lastLine: number,
  lastOffset: number,
  lastTs: number | undefined,
];

function newDecoder(options: CursorDecodeOptions, sink: DiagnosticSink): Decoder {
  return [0, undefined, resolveMaxDepth(options.maxDepth), sink, false, undefined, '', '', 1, 0, undefined];
}

function readLine(d: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  // A canonical line's record is within the depth bound (its reader measured what can nest).
  const canonical = cursorCanonicalLines.enabled ? readCanonicalLine(d, text) : undefined;
  if (canonical === undefined) parsedLine(d, text, line, offset, out);
  else if (isRunLine(text)) canonicalLine(d, canonical, text, line, offset, out);
  else {
    // A session's or run's own line: the shortcut would turn it down (it has no time).
    const hints = keptLine(text, canonical);
    general(d, canonical, hintedProvenance(line, offset, hints), line, offset, out);
  }
}

// A line the canonical reader read: its record is one of the reader's literals, whose hidden
// classes outlive a full GC. The shortcut reads it at sites no line `JSON.parse` read reaches:
// such a record's hidden class dies at a full GC, and with it the optimised code of every line
// that had seen it (docs/performance.md, "Cursor decoder, round thirteen"). Both paths are held
// to the general one by test/cursor/decode-shortcut.test.ts (the shortcut on and off) and
// test/cursor/canonical-lines.test.ts (the reader on and off).
function canonicalLine(
  d: Decoder,
  record: JsonObject,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): void {
  const hints = keptLine(text, record);
  const provenance = hintedProvenance(line, offset, hints);
  if (d[RUN_OPEN] && cursorDecodeShortcut.enabled && shortcut(d, record, provenance, line, offset, out))
    return;
  general(d, record, provenance, line, offset, out);
}

// The line's hints and provenance: copies of these templates (`{ ...template }`, then its fields
// set), neither literals nor src/plain.ts's constructors. A constructor's instance hidden class is
// a chain of transitions a full GC frees when no instance is alive, and every function that built
// or read one (`canonicalLine`, `parsedLine`, `readLine`, `lineOf`) was thrown away with it; a
// literal keeps its hidden class but has an allocation site, which V8 switched to the old
// generation in the bench (the pretenuring of src/plain.ts). A copy has no allocation site. It
// does not take the template's hidden class, though (`%HaveSameMap` is false, and the first
// copies' class differs from the later ones': docs/performance.md, "highbar decode, round
// sixteen"), so why the copies won their A/B ("Cursor decoder, round fifteen") is measured, not
// traced. The templates' fields start `undefined` so that no field is tracked as a small integer
// or a string only. The same plain objects, keys in the same order.
const KEPT_LINE: CursorHints = { raw: undefined as unknown as string, record: undefined };
const HINTED_PROVENANCE: {
  format: typeof FORMAT;
  line: number;
  offset: number;
  hints: Record<string, unknown>;
} = {
  format: FORMAT,
  line: undefined as unknown as number,
  offset: undefined as unknown as number,
  hints: undefined as unknown as Record<string, unknown>,
};

function keptLine(raw: string, record: unknown): CursorHints {
  const h = { ...KEPT_LINE };
  h.raw = raw;
  h.record = record;
  return h;
}

function hintedProvenance(line: number, offset: number, hints: CursorHints): Provenance {
  const p = { ...HINTED_PROVENANCE };
  p.line = line;
  p.offset = offset;
  p.hints = hints as Record<string, unknown>;
  return p;
}

// A line `JSON.parse` read. Only the record types the shortcut takes are shown to it (the others,
// which it would turn down, are most of these lines: `system`, `user`, `result`).
function parsedLine(d: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  const value = parseRecordText(text, line, offset, d[MAX_DEPTH], FORMAT, d[SINK]);
  if (value === NOT_PARSED) return;
  if (valueTooDeep(text, value, d[MAX_DEPTH]) && refuseTooDeep(d[SINK], line, offset, d[MAX_DEPTH], FORMAT))
    return;
  const hints = keptLine(text, value);
  const provenance = hintedProvenance(line, offset, hints);
  if (!isJsonObject(value)) {
    report(d, 'invalid_json', line, offset, 'not a JSON object; kept as an unknown event');
    out.push({ type: 'unknown', record: value, provenance });
    return;
  }
  const type = value.type;
  if (
    d[RUN_OPEN] &&
    cursorDecodeShortcut.enabled &&
    (type === 'thinking' || type === 'assistant' || type === 'tool_call') &&
    shortcut(d, value, provenance, line, offset, out)
  )
    return;
  general(d, value, provenance, line, offset, out);
}

// The general path of a record (the shortcut's, when it took none). `provenance`: the line's
// (`hintedProvenance`), its hints the line's text (`keptLine`).
function general(
  d: Decoder,
  value: JsonObject,
  provenance: Provenance,
  line: number,
  offset: number,
  out: AgentEvent[],
): void {
  const cx: LineContext = { record: value, line, offset, provenance };
  const session = str(value.session_id);
  if (session !== undefined) d[SESSION] = session;
  d[LAST_LINE] = line;
  d[LAST_OFFSET] = offset;
  d[LAST_TS] = isFiniteNumber(value.timestamp_ms) ? value.timestamp_ms : undefined;
  const type = value.type;
  const problem = isCursorRecordType(type) ? invalid(type, value) : 'unknown';
  if (problem !== undefined) {
    if (problem !== 'unknown')
      report(d, 'invalid_record', line, offset, `invalid ${String(type)} record: ${problem}`);
    else if (mayHoldUnsafeNumber(value))
      checkIntegers(d, (provenance.hints as CursorHints).raw as string, line, offset);
    const e: AgentEventOf<'unknown'> = { type: 'unknown', record: value, provenance };
    if (typeof type === 'string') e.recordType = type;
    stamp(e, cx);
    out.push(e);
    return;
  }
  map(d, type as string, cx, out);
}

/**
 * The shortcut beside the general path, for the records a run is made of (thinking, assistant,
 * shell and other tool calls, with `session_id` and `timestamp_ms`, inside an open run): their
 * events built whole, in the general path's key order, each field read once. One method called
 * for every line, so that it is optimised as soon as `line` is: a method called for a fraction
 * of the lines is optimised late, after every forced full GC again (docs/performance.md,
 * "OpenCode and Cursor decoders"). Whatever it does not take returns false having changed
 * nothing, and takes the general path; test/cursor/decode-shortcut.test.ts holds the two equal.
 */
function shortcut(
  d: Decoder,
  r: JsonObject,
  provenance: Provenance,
  line: number,
  offset: number,
  out: AgentEvent[],
): boolean {
  const session = r.session_id;
  const ts = r.timestamp_ms;
  if (typeof session !== 'string' || !isFiniteNumber(ts)) return false;
  const type = r.type;
  let e: AgentEvent;
  if (type === 'thinking') {
    const subtype = r.subtype;
    let text = '';
    if (subtype === 'delta') {
      const t = r.text;
      if (typeof t === 'string') text = t;
    } else if (subtype !== 'completed') return false;
    e = { type: 'reasoning.delta', text, provenance, session, ts };
  } else if (type === 'assistant') {
    const message = r.message;
    if (!isJsonObject(message)) return false;
    const text = contentText(message) ?? '';
    const id = r.model_call_id;
    if (typeof id !== 'string') {
      // A token delta (timestamp_ms and no model_call_id).
      d[SEGMENT] += text;
      e = { type: 'text.delta', text, provenance, session, ts };
    } else if (text !== '' && (text === d[SEGMENT] || text === d[CLOSED])) {
      if (text === d[SEGMENT]) d[SEGMENT] = '';
      else d[CLOSED] = '';
      e = { type: 'message.end', provenance, message: id, session, ts };
    } else {
      d[SEGMENT] = '';
      e = { type: 'text.delta', text, provenance, message: id, session, ts };
    }
  } else if (type === 'tool_call') {
    const toolCall = r.tool_call;
    const subtype = r.subtype;
    if (!isJsonObject(toolCall) || (subtype !== 'started' && subtype !== 'completed')) return false;
    const key = toolKeyOf(toolCall);
    if (key === undefined) return false;
    const kind = toolKindOf(key);
    const id = r.call_id;
    const call = typeof id === 'string' ? id : toolCall.toolCallId;
    if (typeof kind !== 'string' || typeof call !== 'string') return false;
    const payload = toolCall[key] as JsonObject;
    const args = payload.args;
    const startedAt = msOf(toolCall.startedAtMs);
    if (!isJsonObject(args) || startedAt === undefined) return false;
    const name = toolNameOf(key);
    if (subtype === 'started') {
      if (d[SEGMENT] !== '') {
        d[CLOSED] = d[SEGMENT];
        d[SEGMENT] = '';
      }
      // Copies: an edit of the event must not edit the kept record (the writer compares them).
      const command = args.command;
      e =
        kind === 'execute' && typeof command === 'string'
          ? {
              type: 'tool.start',
              call,
              name,
              provenance,
              kind,
              args: copyJsonBySpread(args),
              command,
              startedAt,
              session,
              ts,
            }
          : {
              type: 'tool.start',
              call,
              name,
              provenance,
              kind,
              args: copyJsonBySpread(args),
              startedAt,
              session,
              ts,
            };
    } else {
      const result = payload.result;
      const success = isJsonObject(result) ? result.success : undefined;
      const endedAt = msOf(toolCall.completedAtMs);
      if (!isJsonObject(success) || endedAt === undefined) return false;
      const text = str(success.stdout) ?? str(success.content) ?? str(success.message);
      const exitCode = success.exitCode;
      // A result without an exit code (a read, a search) takes the general path.
      if (text === undefined || !isFiniteNumber(exitCode)) return false;
      e = {
        type: 'tool.end',
        call,
        name,
        ok: true,
        provenance,
        result: copyJsonBySpread(result),
        text,
        exitCode,
        startedAt,
        endedAt,
        session,
        ts,
      };
    }
  } else return false;
  d[SESSION] = session;
  d[LAST_LINE] = line;
  d[LAST_OFFSET] = offset;
  d[LAST_TS] = ts;
  out.push(e);
  return true;
}

/**
 * Test hook: `enabled: false` parses every line with `JSON.parse`, so that
 * test/cursor/canonical-lines.test.ts can hold the canonical-line reader equal to it.
 */
export const cursorCanonicalLines: { enabled: boolean } = { enabled: true };

/**
 * What the canonical-line reader keeps between reads, the first three slots of the decoder's
 * state: where the last read ended, the session id last read whose text is itself (nothing
 * escaped: a line naming it again gets the same string, compared in place, not sliced), and the
 * decoder's depth bound (a record nesting deeper is left to the general path).
 */
export type LineReader = [at: number, known: string | undefined, maxDepth: number, ...state: unknown[]];

/** A reader alone (for tests): nothing read yet. */
export function newLineReader(maxDepth: number): LineReader {
  return [0, undefined, maxDepth];
}

/**
 * The record of a line in one of the shapes Cursor writes most (wire.ts: a `thinking` delta or
 * completion, an `assistant` line of one text block, a `tool_call` line with its
 * `model_call_id`, a `system/init` line, a `user` prompt of one text block), read without
 * `JSON.parse` of the whole line: the fixed text compared in
 * place, each string value read alone (sliced when it holds nothing to unescape), the integer
 * read from its digits, the tool call's payload (free-form) parsed alone, the record built in one
 * literal (its hidden class outlives a full GC; docs/performance.md, "Cursor decoder, round
 * five"). The same keys in the same order with the same values as `JSON.parse(text)`, or
 * `undefined` (having read nothing that matters) for any other spelling, which the caller
 * parses: test/cursor/canonical-lines.test.ts holds the two equal.
 */
export function readCanonicalLine(r: LineReader, text: string): JsonObject | undefined {
  // An assistant line's record nests four levels, and so does the least tool call.
  if (r[MAX_DEPTH] < CANONICAL_DEPTH || text.charCodeAt(text.length - 1) !== 125) return undefined;
  // `{"type":"` is nine characters: the type word's first letters tell the shapes apart.
  const c = text.charCodeAt(9);
  if (c === 116) return text.charCodeAt(10) === 104 ? readThinking(r, text) : readToolCall(r, text);
  if (c === 97) return readMessage(r, text, CURSOR_ASSISTANT_HEAD, 'assistant');
  if (c === 115) return readInit(r, text);
  return c === 117 ? readMessage(r, text, CURSOR_USER_HEAD, 'user') : undefined;
}

/**
 * Whether a line the canonical reader read is one of a run's (`thinking`, `assistant`,
 * `tool_call`), which the shortcut may take, rather than a session's or run's own (`system/init`,
 * the `user` prompt: the reader takes them without `timestamp_ms` only, and the shortcut turns
 * such a record down unread).
 */
function isRunLine(text: string): boolean {
  const c = text.charCodeAt(9);
  return c === 116 || c === 97;
}

// `{"type":"system","subtype":"init",…}` with its five strings, as Cursor writes it.
function readInit(r: LineReader, text: string): JsonObject | undefined {
  if (text.indexOf(CURSOR_INIT_HEAD) !== 0) return undefined;
  const apiKeySource = readString(r, text, CURSOR_INIT_HEAD.length);
  const cwd = apiKeySource === undefined ? undefined : readAfter(r, text, CURSOR_CWD_KEY);
  const session =
    cwd === undefined || text.indexOf(CURSOR_SESSION_KEY, r[AT]) !== r[AT]
      ? undefined
      : readSession(r, text, r[AT] + CURSOR_SESSION_KEY.length);
  const model = session === undefined ? undefined : readAfter(r, text, CURSOR_MODEL_KEY);
  const mode = model === undefined ? undefined : readAfter(r, text, CURSOR_PERMISSION_MODE_KEY);
  return mode === undefined || r[AT] !== text.length - 1
    ? undefined
    : {
        type: 'system',
        subtype: 'init',
        apiKeySource,
        cwd,
        session_id: session,
        model,
        permissionMode: mode,
      };
}

// `key` (which ends with a string's opening quote) at the reader, then that string; the reader
// then past its closing quote.
function readAfter(r: LineReader, text: string, key: string): string | undefined {
  const at = r[AT];
  return text.indexOf(key, at) === at ? readString(r, text, at + key.length) : undefined;
}

// How deep the canonical records nest at least (an assistant line: record, message, content, block).
const CANONICAL_DEPTH = 4;

// `{"type":"thinking","subtype":"`: the subtype's first letter is at this index.
const THINKING_SUBTYPE_AT = 30;

function readThinking(r: LineReader, text: string): JsonObject | undefined {
  if (text.charCodeAt(THINKING_SUBTYPE_AT) === 100) {
    if (text.indexOf(CURSOR_THINKING_DELTA_HEAD) !== 0) return undefined;
    const open = CURSOR_THINKING_DELTA_HEAD.length;
    const key = text.indexOf(CURSOR_SESSION_KEY, open);
    const value = key === -1 ? undefined : readStringToken(text, open, key - 1);
    const session = value === undefined ? undefined : readSession(r, text, key + CURSOR_SESSION_KEY.length);
    const ts = session === undefined ? undefined : readTimestamp(text, r[AT]);
    return ts === undefined
      ? undefined
      : { type: 'thinking', subtype: 'delta', text: value, session_id: session, timestamp_ms: ts };
  }
  if (text.indexOf(CURSOR_THINKING_COMPLETED_HEAD) !== 0) return undefined;
  const session = readSession(r, text, CURSOR_THINKING_COMPLETED_HEAD.length);
  const ts = session === undefined ? undefined : readTimestamp(text, r[AT]);
  return ts === undefined
    ? undefined
    : { type: 'thinking', subtype: 'completed', session_id: session, timestamp_ms: ts };
}

// `{"type":"user"|"assistant","message":{"role":…,"content":[{"type":"text","text":…}]},"session_id":…}`
// (`head` the line's spelling up to the text's opening quote, `role` its type and role): the
// prompt echo ends there; an assistant line may go on with its model call and its time. One
// reader for both, as they are one shape with the role changed.
function readMessage(
  r: LineReader,
  text: string,
  head: string,
  role: 'user' | 'assistant',
): JsonObject | undefined {
  if (text.indexOf(head) !== 0) return undefined;
  const open = head.length;
  const end = text.indexOf(CURSOR_ASSISTANT_TEXT_END, open);
  const value = end === -1 ? undefined : readStringToken(text, open, end - 1);
  const session =
    value === undefined ? undefined : readSession(r, text, end + CURSOR_ASSISTANT_TEXT_END.length);
  if (session === undefined) return undefined;
  const message = { role, content: [{ type: 'text', text: value }] };
  const at = r[AT];
  // The prompt echo, and the snapshot that ends a turn, have neither a model call nor a time.
  if (at === text.length - 1) return { type: role, message, session_id: session };
  if (role === 'user') return undefined;
  if (text.indexOf(CURSOR_MODEL_CALL_KEY, at) !== at) {
    const ts = readTimestamp(text, at);
    return ts === undefined
      ? undefined
      : { type: 'assistant', message, session_id: session, timestamp_ms: ts };
  }
  const id = readString(r, text, at + CURSOR_MODEL_CALL_KEY.length);
  const ts = id === undefined ? undefined : readTimestamp(text, r[AT]);
  return ts === undefined
    ? undefined
    : { type: 'assistant', message, session_id: session, model_call_id: id, timestamp_ms: ts };
}

// A tool call's payload is free-form: it is found between the fixed head and the fixed tail
// (`,"model_call_id":"` outside a string is a key: inside one its quotes would be escaped) and
// parsed alone. A line long enough to be measured for depth before parsing is left to the
// general path, which measures it.
function readToolCall(r: LineReader, text: string): JsonObject | undefined {
  if (text.length > DEPTH_PRECHECK_CHARS || text.indexOf(CURSOR_TOOL_CALL_HEAD) !== 0) return undefined;
  const head = CURSOR_TOOL_CALL_HEAD.length;
  const subtype = text.charCodeAt(head) === 115 ? 'started' : 'completed';
  const key = head + subtype.length;
  if (text.indexOf(subtype, head) !== head || text.indexOf(CURSOR_CALL_ID_KEY, key) !== key) return undefined;
  const call = readString(r, text, key + CURSOR_CALL_ID_KEY.length);
  const start = r[AT] + CURSOR_TOOL_CALL_KEY.length;
  if (call === undefined || text.indexOf(CURSOR_TOOL_CALL_KEY, r[AT]) !== r[AT]) return undefined;
  const tail = text.lastIndexOf(CURSOR_MODEL_CALL_KEY);
  if (tail <= start) return undefined;
  const id = readString(r, text, tail + CURSOR_MODEL_CALL_KEY.length);
  if (id === undefined || text.indexOf(CURSOR_SESSION_KEY, r[AT]) !== r[AT]) return undefined;
  const session = readSession(r, text, r[AT] + CURSOR_SESSION_KEY.length);
  const ts = session === undefined ? undefined : readTimestamp(text, r[AT]);
  if (ts === undefined) return undefined;
  const toolCall = readToolCallObject(r, text, start, tail);
  if (toolCall === undefined) return undefined;
  return {
    type: 'tool_call',
    subtype,
    call_id: call,
    tool_call: toolCall,
    model_call_id: id,
    session_id: session,
    timestamp_ms: ts,
  };
}

// The `tool_call` object of a line, `text[start..end)`: its payload parsed alone when the rest is
// spelled as Cursor writes it (wire.ts), else the whole object parsed; undefined when it is not
// JSON or nests deeper than the bound (the general path says why).
function readToolCallObject(r: LineReader, text: string, start: number, end: number): JsonObject | undefined {
  const fields = text.lastIndexOf(CURSOR_TOOL_CALL_FIELDS_HEAD, end);
  // The object closes just before the tail: checked once here, since the reads below only say
  // where the last string ends (a `]` or a stray quote there is no JSON).
  if (
    fields > start &&
    text.charCodeAt(end - 1) === 125 &&
    text.indexOf(CURSOR_SHELL_PAYLOAD_KEY, start) === start
  ) {
    const payload = parseObject(text, start + CURSOR_SHELL_PAYLOAD_KEY.length, fields + 1);
    const id =
      payload === undefined ? undefined : readString(r, text, fields + CURSOR_TOOL_CALL_FIELDS_HEAD.length);
    const startedAt = id === undefined ? undefined : readAfter(r, text, CURSOR_STARTED_AT_KEY);
    if (startedAt !== undefined) {
      // The object as JSON.parse builds it: a started call ends with its start time, a
      // completed one goes on with its end time.
      const call: JsonObject = {
        shellToolCall: payload,
        hookAdditionalContexts: [],
        toolCallId: id,
        startedAtMs: startedAt,
      };
      if (endsShellCall(r, end, payload)) return call;
      const completedAt = readAfter(r, text, CURSOR_COMPLETED_AT_KEY);
      if (completedAt !== undefined && endsShellCall(r, end, payload)) {
        call.completedAtMs = completedAt;
        return call;
      }
    }
  }
  const toolCall = parseObject(text, start, end);
  return toolCall === undefined || valueExceedsDepth(toolCall, r[MAX_DEPTH] - 1) ? undefined : toolCall;
}

// Whether the tool call object ends just after the string last read (the line's `}` at `end - 1`)
// and its shell payload, two levels down, keeps to the depth bound.
function endsShellCall(r: LineReader, end: number, payload: unknown): boolean {
  return r[AT] === end - 1 && !valueExceedsDepth(payload, r[MAX_DEPTH] - 2);
}

// `text[start..end)` parsed, when it is one JSON object; else undefined.
function parseObject(text: string, start: number, end: number): JsonObject | undefined {
  if (end - start < 2 || text.charCodeAt(start) !== 123 || text.charCodeAt(end - 1) !== 125) return undefined;
  try {
    return JSON.parse(text.slice(start, end)) as JsonObject;
  } catch {
    return undefined;
  }
}

// The session id whose opening quote is just before `at`: the one last read when the line
// names it again, else read as any string. The reader then past its closing quote.
function readSession(r: LineReader, text: string, at: number): string | undefined {
  const known = r[KNOWN];
  if (known !== undefined && text.indexOf(known, at) === at && text.charCodeAt(at + known.length) === 34) {
    r[AT] = at + known.length + 1;
    return known;
  }
  const value = readString(r, text, at);
  // As long as its text: nothing in it was escaped, so the text says the id itself.
  if (value !== undefined && value.length === r[AT] - 1 - at) r[KNOWN] = value;
  return value;
}

// The string whose opening quote is just before `at`, up to the next quote (one escaped there
// is left to the general path); the reader then past its closing quote.
function readString(r: LineReader, text: string, at: number): string | undefined {
  const close = text.indexOf('"', at);
  const value = close === -1 ? undefined : readStringToken(text, at - 1, close);
  if (value !== undefined) r[AT] = close + 1;
  return value;
}

// `,"timestamp_ms":` at `at`, then an integer in plain digits (no sign, no leading zero, at
// most 15 digits: the number JSON.parse reads, exactly) that ends the record.
function readTimestamp(text: string, at: number): number | undefined {
  if (text.indexOf(CURSOR_TIMESTAMP_KEY, at) !== at) return undefined;
  const start = at + CURSOR_TIMESTAMP_KEY.length;
  let i = start;
  let value = 0;
  for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) value = value * 10 + c - 48;
  if (i !== text.length - 1 || !isPlainUint(text, start, i)) return undefined;
  return value;
}

function endStream(d: Decoder, out: AgentEvent[]): void {
  if (!d[RUN_OPEN]) return;
  d[RUN_OPEN] = false;
  const e = incompleteRunEnd(FORMAT, d[LAST_LINE], d[LAST_OFFSET]);
  if (d[SESSION] !== undefined) e.session = d[SESSION];
  if (d[LAST_TS] !== undefined) e.ts = d[LAST_TS];
  out.push(e);
}

function map(d: Decoder, type: string, cx: LineContext, out: AgentEvent[]): void {
  const r = cx.record;
  switch (type) {
    case 'system': {
      if (cursorDecodeShortcut.enabled && wholeSessionStart(cx, out)) return;
      const e: AgentEventOf<'session.start'> = { type: 'session.start', provenance: cx.provenance };
      const model = str(r.model);
      if (model !== undefined) e.model = model;
      const cwd = str(r.cwd);
      if (cwd !== undefined) e.cwd = cwd;
      const mode = str(r.permissionMode);
      if (mode !== undefined) e.mode = mode;
      stamp(e, cx);
      out.push(e);
      return;
    }
    case 'user': {
      const text = contentText(r.message) ?? '';
      if (!d[RUN_OPEN]) {
        d[RUN_OPEN] = true;
        d[SEGMENT] = '';
        d[CLOSED] = '';
        const session = r.session_id;
        if (
          cursorDecodeShortcut.enabled &&
          typeof session === 'string' &&
          typeof r.timestamp_ms !== 'number'
        ) {
          out.push({ type: 'run.start', input: text, provenance: cx.provenance, session });
          return;
        }
        const e: AgentEventOf<'run.start'> = { type: 'run.start', input: text, provenance: cx.provenance };
        stamp(e, cx);
        out.push(e);
        return;
      }
      const e: AgentEventOf<'user.message'> = { type: 'user.message', text, provenance: cx.provenance };
      stamp(e, cx);
      out.push(e);
      return;
    }
    case 'thinking': {
      openRun(d, cx, out);
      const text = r.subtype === 'delta' && typeof r.text === 'string' ? r.text : '';
      const e: AgentEventOf<'reasoning.delta'> = {
        type: 'reasoning.delta',
        text,
        provenance: cx.provenance,
      };
      stamp(e, cx);
      out.push(e);
      return;
    }
    case 'assistant':
      openRun(d, cx, out);
      assistant(d, cx, out);
      return;
    case 'tool_call':
      openRun(d, cx, out);
      tool(d, cx, out);
      return;
    case 'result': {
      openRun(d, cx, out);
      d[RUN_OPEN] = false;
      if (cursorDecodeShortcut.enabled && wholeRunEnd(cx, out)) return;
      const failed = r.is_error === true;
      const e: AgentEventOf<'run.end'> = {
        type: 'run.end',
        status: failed ? 'failed' : 'completed',
        provenance: cx.provenance,
      };
      const subtype = str(r.subtype);
      if (subtype !== undefined) e.reason = subtype;
      if (isFiniteNumber(r.duration_ms)) e.durationMs = r.duration_ms;
      const answer = str(r.result);
      if (answer !== undefined) {
        if (failed) e.error = answer;
        else e.answer = answer;
      }
      const usage = usageFromWire(r.usage);
      if (usage !== undefined) e.usage = usage;
      stamp(e, cx);
      out.push(e);
      return;
    }
    default: {
      // connection / retry: the CLI lost its connection and resumes (not an error).
      const e: AgentEventOf<'notice'> = { type: 'notice', kind: type, provenance: cx.provenance };
      const subtype = str(r.subtype);
      if (subtype !== undefined) e.message = subtype;
      stamp(e, cx);
      out.push(e);
    }
  }
}

// The events of the records that open and close a session and a run, as Cursor writes them
// (`system/init` with its model, directory and mode; a `result` that succeeded, with its
// duration, answer and four counts; each with a session id and no time), built whole in one
// literal each, in the general path's key order (what `stamp` would add after the fields): a
// literal's hidden class outlives the forced GC where one grown by `stamp` dies with the last
// event (docs/performance.md, "Cursor decoder, round seven"). False, nothing done, for any other
// record, which the general path maps.
function wholeSessionStart(cx: LineContext, out: AgentEvent[]): boolean {
  const r = cx.record;
  const { model, cwd, permissionMode: mode, session_id: session } = r;
  if (
    typeof model !== 'string' ||
    typeof cwd !== 'string' ||
    typeof mode !== 'string' ||
    typeof session !== 'string' ||
    typeof r.timestamp_ms === 'number'
  )
    return false;
  out.push({ type: 'session.start', provenance: cx.provenance, model, cwd, mode, session });
  return true;
}

function wholeRunEnd(cx: LineContext, out: AgentEvent[]): boolean {
  const r = cx.record;
  const { subtype: reason, duration_ms: durationMs, result: answer, usage: u, session_id: session } = r;
  if (
    r.is_error === true ||
    typeof reason !== 'string' ||
    !isFiniteNumber(durationMs) ||
    typeof answer !== 'string' ||
    typeof session !== 'string' ||
    typeof r.timestamp_ms === 'number' ||
    !isJsonObject(u)
  )
    return false;
  const {
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  } = u;
  if (
    !isFiniteNumber(input) ||
    !isFiniteNumber(output) ||
    !isFiniteNumber(cacheRead) ||
    !isFiniteNumber(cacheWrite)
  )
    return false;
  const usage = { input, output, cacheRead, cacheWrite };
  out.push({
    type: 'run.end',
    status: 'completed',
    provenance: cx.provenance,
    reason,
    durationMs,
    answer,
    usage,
    session,
  });
  return true;
}

function assistant(d: Decoder, cx: LineContext, out: AgentEvent[]): void {
  const r = cx.record;
  const text = contentText(r.message) ?? '';
  const message = str(r.model_call_id);
  // A token delta carries timestamp_ms and never model_call_id; anything else is a segment whole.
  const delta = 'timestamp_ms' in r && message === undefined;
  if (!delta && text !== '' && (text === d[SEGMENT] || text === d[CLOSED])) {
    if (text === d[SEGMENT]) d[SEGMENT] = '';
    else d[CLOSED] = '';
    const e: AgentEventOf<'message.end'> = { type: 'message.end', provenance: cx.provenance };
    if (message !== undefined) e.message = message;
    stamp(e, cx);
    out.push(e);
    return;
  }
  if (delta) d[SEGMENT] += text;
  else d[SEGMENT] = '';
  const e: AgentEventOf<'text.delta'> = { type: 'text.delta', text, provenance: cx.provenance };
  if (message !== undefined) e.message = message;
  stamp(e, cx);
  out.push(e);
}

function tool(d: Decoder, cx: LineContext, out: AgentEvent[]): void {
  const r = cx.record;
  const toolCall = r.tool_call as JsonObject;
  const key = toolKeyOf(toolCall)!;
  const payload = toolCall[key] as JsonObject;
  const name = toolNameOf(key);
  const call = str(r.call_id) ?? (toolCall.toolCallId as string);
  const startedAt = msOf(toolCall.startedAtMs);
  const args = isJsonObject(payload.args) ? payload.args : undefined;
  if (r.subtype === 'started') {
    if (d[SEGMENT] !== '') {
      d[CLOSED] = d[SEGMENT];
      d[SEGMENT] = '';
    }
    const e: AgentEventOf<'tool.start'> = { type: 'tool.start', call, name, provenance: cx.provenance };
    const kind = toolKindOf(key);
    if (kind !== undefined) e.kind = kind;
    if (args !== undefined) {
      // Copies: an edit of the event must not edit the kept record (the writer compares them).
      e.args = copyJsonBySpread(args);
      if (kind === 'execute' && typeof args.command === 'string') e.command = args.command;
    }
    if (startedAt !== undefined) e.startedAt = startedAt;
    stamp(e, cx);
    out.push(e);
    return;
  }
  const e: AgentEventOf<'tool.end'> = {
    type: 'tool.end',
    call,
    name,
    ok: false,
    provenance: cx.provenance,
  };
  const result = payload.result;
  if (result !== undefined) e.result = copyJsonBySpread(result);
  if (isJsonObject(result)) {
    const success = result.success;
    if (isJsonObject(success)) {
      e.ok = true;
      const text = str(success.stdout) ?? str(success.content) ?? str(success.message);
      if (text !== undefined) e.text = text;
      if (isFiniteNumber(success.exitCode)) e.exitCode = success.exitCode;
    } else {
      // The failure's text is the error (the whole result stays in `result`).
      const failure = result.error ?? result.failure ?? result.rejected;
      if (result.rejected !== undefined) e.denied = true;
      if (isJsonObject(failure)) {
        const text =
          str(failure.errorMessage) ?? str(failure.message) ?? str(failure.stderr) ?? str(failure.reason);
        if (text !== undefined) {
          e.text = text;
          e.error = text;
        } else e.error = failure;
        if (isFiniteNumber(failure.exitCode)) e.exitCode = failure.exitCode;
      } else if (failure !== undefined) e.error = failure;
    }
  }
  if (startedAt !== undefined) e.startedAt = startedAt;
  const endedAt = msOf(toolCall.completedAtMs);
  if (endedAt !== undefined) e.endedAt = endedAt;
  stamp(e, cx);
  out.push(e);
}

function openRun(d: Decoder, cx: LineContext, out: AgentEvent[]): void {
  if (d[RUN_OPEN]) return;
  d[RUN_OPEN] = true;
  d[SEGMENT] = '';
  d[CLOSED] = '';
  const e: AgentEventOf<'run.start'> = {
    type: 'run.start',
    provenance: { format: FORMAT, line: cx.line, offset: cx.offset, synthetic: true },
  };
  stamp(e, cx);
  out.push(e);
}

function stamp(e: AgentEvent, cx: LineContext): void {
  const session = cx.record.session_id;
  if (typeof session === 'string') e.session = session;
  const ts = cx.record.timestamp_ms;
  if (isFiniteNumber(ts)) e.ts = ts;
}

function checkIntegers(d: Decoder, text: string, line: number, offset: number): void {
  const message = unsafeNumberMessage(text);
  if (message !== undefined) report(d, 'invalid_record', line, offset, message);
}

function report(
  d: Decoder,
  code: 'invalid_json' | 'invalid_record',
  line: number,
  offset: number,
  what: string,
): void {
  d[SINK].report(diagnosticAt(code, 'error', line, offset, what, FORMAT));
}

/** Why a known record cannot be mapped (`unknown` for a subtype Cursor is not known to write). */
function invalid(type: string, r: JsonObject): string | undefined {
  switch (type) {
    case 'system':
      return r.subtype === 'init' ? undefined : 'unknown';
    case 'thinking':
      return r.subtype === 'delta' || r.subtype === 'completed' ? undefined : 'unknown';
    case 'assistant':
    case 'user':
      return isJsonObject(r.message) ? undefined : '"message" is not an object';
    case 'tool_call': {
      if (r.subtype !== 'started' && r.subtype !== 'completed') return 'unknown';
      if (!isJsonObject(r.tool_call)) return '"tool_call" is not an object';
      if (toolKeyOf(r.tool_call) === undefined) return 'tool_call has no tool payload';
      if (typeof r.call_id !== 'string' && typeof r.tool_call.toolCallId !== 'string') return 'no call_id';
      return undefined;
    }
    default:
      return undefined;
  }
}
