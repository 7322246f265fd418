// Every byte rule of `cursor-agent -p --output-format stream-json` (closed source: the facts are
// public captures and community notes: docs/protocols/cursor.md). Records are one JSON object per line; `session_id` on every
// record, `timestamp_ms` on most; tool payloads sit under a variable key (`shellToolCall`, …).

import type { Detection } from '../../detect';
import { isFiniteNumber, isOneOf, num } from '../../guards';
import { isJsonObject, type JsonObject } from '../../json';
import type { ToolKind, Usage } from '../../model';
import { aOr } from '../../words';

/** The record types Cursor writes (with their subtypes, where they have them). */
export const CURSOR_RECORD_TYPES = [
  'system',
  'user',
  'thinking',
  'assistant',
  'tool_call',
  'result',
  'connection',
  'retry',
] as const;

/** One of {@link CURSOR_RECORD_TYPES}. */
export type CursorRecordType = (typeof CURSOR_RECORD_TYPES)[number];

/** True for a record type Cursor writes. */
export function isCursorRecordType(type: unknown): type is CursorRecordType {
  return isOneOf(CURSOR_RECORD_TYPES, type);
}

/** Default `maxLineBytes` for Cursor: a completed shell call carries its output twice. */
export const CURSOR_MAX_LINE_BYTES: number = 16 * 1024 * 1024;

/**
 * Most characters of a run's text the writer holds for the `result` of another format's run end
 * without an answer (Cursor's `result` repeats the run's assistant text). Past it the result is
 * empty, a `loss` on `run.end.answer`; the assistant records carry the text whole. 1 Mi
 * characters: far above any real run, and it keeps a converted runaway stream's memory bounded
 * (docs/limits.md).
 */
export const CURSOR_MAX_HELD_TEXT: number = 1024 * 1024;

/** The suffix of every tool payload key: `shellToolCall` is the `shell` tool. */
export const CURSOR_TOOL_KEY_SUFFIX = 'ToolCall';

/** What each payload key says the tool does (the key is Cursor's own word for its kind). */
export const CURSOR_TOOL_KINDS: Readonly<Record<string, ToolKind>> = {
  shellToolCall: 'execute',
  editToolCall: 'edit',
  writeToolCall: 'edit',
  deleteToolCall: 'delete',
  readToolCall: 'read',
  lsToolCall: 'read',
  readLintsToolCall: 'read',
  grepToolCall: 'search',
  globToolCall: 'search',
  semSearchToolCall: 'search',
  webSearchToolCall: 'fetch',
  webFetchToolCall: 'fetch',
  updateTodosToolCall: 'think',
  readTodosToolCall: 'think',
  mcpToolCall: 'other',
};

/** The kind a payload key says (own keys of the table only: `constructor` is no kind). */
export function toolKindOf(key: string): ToolKind | undefined {
  return Object.hasOwn(CURSOR_TOOL_KINDS, key) ? CURSOR_TOOL_KINDS[key] : undefined;
}

/** The payload key a writer picks for a foreign call of a kind (when its name has no key). */
export const CURSOR_KEY_FOR_KIND: Readonly<Partial<Record<ToolKind, string>>> = {
  execute: 'shellToolCall',
  edit: 'editToolCall',
  delete: 'deleteToolCall',
  read: 'readToolCall',
  search: 'grepToolCall',
  fetch: 'webFetchToolCall',
};

/** Keys of `tool_call` that are not the payload. */
export const CURSOR_TOOL_CALL_FIELDS: readonly string[] = [
  'hookAdditionalContexts',
  'toolCallId',
  'startedAtMs',
  'completedAtMs',
];

/**
 * The payload key of a `tool_call` object: its first key naming a tool (`…ToolCall`) with an
 * object, else its first other key with an object (a tool of a name Cursor may spell otherwise).
 * An object under a key no reader knows before the payload is not taken for the tool.
 */
export function toolKeyOf(toolCall: JsonObject): string | undefined {
  let other: string | undefined;
  for (const key in toolCall) {
    if (CURSOR_TOOL_CALL_FIELDS.includes(key) || !isJsonObject(toolCall[key])) continue;
    if (key.endsWith(CURSOR_TOOL_KEY_SUFFIX)) return key;
    other ??= key;
  }
  return other;
}

/** The tool name a payload key stands for: the key without its `ToolCall` suffix. */
export function toolNameOf(key: string): string {
  return key.endsWith(CURSOR_TOOL_KEY_SUFFIX) && key.length > CURSOR_TOOL_KEY_SUFFIX.length
    ? key.slice(0, -CURSOR_TOOL_KEY_SUFFIX.length)
    : key;
}

/**
 * What the Cursor decoder leaves in `provenance.hints` for the writer: the line as written and
 * the record as parsed (the template the writer puts the event's fields back into; the tool
 * payload key and `startedAtMs` as a string live there).
 */
export interface CursorHints {
  /** The line as written. */
  raw?: string;
  /**
   * The record as parsed.
   * The writer trusts it to be what `raw` parses to: while the event says what it says, the line
   * is written as kept without reading `record` whole (edit the event, not its hints).
   */
  record?: unknown;
}

/**
 * Canonical usage from `result.usage` (camelCase). `inputTokens` already counts the cache reads
 * (the captures show `inputTokens` ≥ `cacheReadTokens`), so it is the canonical `input` as is.
 */
export function usageFromWire(usage: unknown): Usage | undefined {
  if (!isJsonObject(usage)) return undefined;
  const u: Usage = {};
  const input = num(usage.inputTokens);
  const output = num(usage.outputTokens);
  const read = num(usage.cacheReadTokens);
  const write = num(usage.cacheWriteTokens);
  if (input !== undefined) u.input = input;
  if (output !== undefined) u.output = output;
  if (read !== undefined) u.cacheRead = read;
  if (write !== undefined) u.cacheWrite = write;
  return u;
}

/** `result.usage` from canonical usage, in Cursor's key order. */
export function usageToWire(usage: Usage): JsonObject {
  return {
    inputTokens: usage.input ?? 0,
    outputTokens: usage.output ?? 0,
    cacheReadTokens: usage.cacheRead ?? 0,
    cacheWriteTokens: usage.cacheWrite ?? 0,
  };
}

/** `startedAtMs`/`completedAtMs` as a number (Cursor writes them as strings of digits). */
export function msOf(value: unknown): number | undefined {
  if (isFiniteNumber(value)) return value;
  if (typeof value !== 'string' || value.length === 0 || value.length > 16) return undefined;
  // 1 to 16 ASCII digits (a regular expression test cost more than the rest of the field), summed
  // as they are read instead of `Number`'s string-to-number conversion: the sum of the first 15 is
  // exact (below 2^53), ten times it is even and below 2^54, so exact too, and the last digit's
  // addition is the one rounding, to nearest even, as `Number` rounds the decimal text.
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
    // The digit's value first: `n * 10 + c - 48` would round at `+ c` and again at `- 48`.
    n = n * 10 + (c - 48);
  }
  return n;
}

// The init field set Cursor writes, which Claude's init (tools, mcp_servers, uuid, …) never matches.
const CURSOR_INIT_FIELDS = [
  'type',
  'subtype',
  'apiKeySource',
  'cwd',
  'session_id',
  'model',
  'permissionMode',
];

/**
 * The sniffing rule `detectFormat` calls with the first record. Cursor looks like Claude Code at
 * first glance (`type`, `subtype`, `session_id`): decide only by what Claude never writes —
 * `timestamp_ms`, `model_call_id`, the `thinking` and `tool_call` record types, camelCase usage in
 * `result`, an init with Cursor's field set exactly — and say nothing otherwise.
 */
export function sniffCursor(record: JsonObject): Detection | undefined {
  if (typeof record.session_id !== 'string' || typeof record.type !== 'string') return undefined;
  const type = record.type;
  if (type === 'system' && record.subtype === 'init') {
    const keys = Object.keys(record);
    const exact =
      keys.length === CURSOR_INIT_FIELDS.length && keys.every((k, i) => k === CURSOR_INIT_FIELDS[i]);
    return exact
      ? { format: 'cursor', confidence: 'likely', reason: "an init with Cursor's field set" }
      : undefined;
  }
  if ((type === 'thinking' || type === 'tool_call') && typeof record.subtype === 'string') {
    return { format: 'cursor', confidence: 'certain', reason: `${aOr(`${type}/${record.subtype}`)} record` };
  }
  if (type === 'result' && isJsonObject(record.usage) && 'inputTokens' in record.usage) {
    return { format: 'cursor', confidence: 'likely', reason: 'a result with camelCase usage' };
  }
  if ((type === 'assistant' || type === 'user') && ('timestamp_ms' in record || 'model_call_id' in record)) {
    return { format: 'cursor', confidence: 'likely', reason: `an ${type} record with timestamp_ms` };
  }
  return undefined;
}

// The line shapes Cursor writes most, as the canonical-line reader of the decoder reads them
// without `JSON.parse` of the whole line (docs/performance.md, "Cursor decoder, round five").
// Every record is compact JSON in Cursor's key order; a line spelled any other way is parsed.

/** The head of a `thinking/delta` line, up to the opening quote of its `text`. */
export const CURSOR_THINKING_DELTA_HEAD = '{"type":"thinking","subtype":"delta","text":';
/** The head of a `thinking/completed` line, up to the opening quote of its `session_id`. */
export const CURSOR_THINKING_COMPLETED_HEAD = '{"type":"thinking","subtype":"completed","session_id":"';
/** The head of an `assistant` line of one text block, up to the opening quote of the text. */
export const CURSOR_ASSISTANT_HEAD =
  '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":';
/** What closes an `assistant` line's text block, up to the opening quote of its `session_id`. */
export const CURSOR_ASSISTANT_TEXT_END = '}]},"session_id":"';
/** The head of a `tool_call` line, up to its subtype. */
export const CURSOR_TOOL_CALL_HEAD = '{"type":"tool_call","subtype":"';
/** After a `tool_call` line's subtype, up to the opening quote of its `call_id`. */
export const CURSOR_CALL_ID_KEY = '","call_id":"';
/** After a `tool_call` line's `call_id`, up to its `tool_call` object. */
export const CURSOR_TOOL_CALL_KEY = ',"tool_call":';
/** `session_id` after a string value, up to its opening quote. */
export const CURSOR_SESSION_KEY = ',"session_id":"';
/** `model_call_id` after a value, up to its opening quote. */
export const CURSOR_MODEL_CALL_KEY = ',"model_call_id":"';
/** `timestamp_ms` after a value, up to the number. */
export const CURSOR_TIMESTAMP_KEY = ',"timestamp_ms":';
/** A `tool_call` object's head when its payload is a shell call's, up to the payload object. */
export const CURSOR_SHELL_PAYLOAD_KEY = '{"shellToolCall":';
/** What follows a `tool_call` object's payload, up to the opening quote of its `toolCallId`. */
export const CURSOR_TOOL_CALL_FIELDS_HEAD = '},"hookAdditionalContexts":[],"toolCallId":"';
/** `startedAtMs` after the `toolCallId`, up to the opening quote of its digits. */
export const CURSOR_STARTED_AT_KEY = ',"startedAtMs":"';
/** `completedAtMs` after the `startedAtMs`, up to the opening quote of its digits. */
export const CURSOR_COMPLETED_AT_KEY = ',"completedAtMs":"';
/** The head of a `system/init` line, up to the opening quote of its `apiKeySource`. */
export const CURSOR_INIT_HEAD = '{"type":"system","subtype":"init","apiKeySource":"';
/** `cwd` after the `apiKeySource`, up to its opening quote. */
export const CURSOR_CWD_KEY = ',"cwd":"';
/** `model` after the init's `session_id`, up to its opening quote. */
export const CURSOR_MODEL_KEY = ',"model":"';
/** `permissionMode` after the `model`, up to its opening quote. */
export const CURSOR_PERMISSION_MODE_KEY = ',"permissionMode":"';
/** The head of a `user` line of one text block, up to the opening quote of the text. */
export const CURSOR_USER_HEAD = '{"type":"user","message":{"role":"user","content":[{"type":"text","text":';

/**
 * One line of each common record (init, the prompt, thinking, text, a shell call started and
 * completed, the result) as one stream: the codec's `heldInput`, which its held decoder reads
 * and whose events it keeps, so their hidden classes outlive a full GC between streams
 * (createReader; docs/performance.md, "Round thirty-four"). Times past a small integer, as real
 * ones are (a field's representation is part of its hidden class); a sum of plain strings, so a
 * bundle that does not use it drops it.
 */
export const CURSOR_HELD_INPUT =
  '{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s1","model":"Auto","permissionMode":"default"}\n' +
  '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"}]},"session_id":"s1"}\n' +
  '{"type":"thinking","subtype":"delta","text":"a","session_id":"s1","timestamp_ms":1786540600505}\n' +
  '{"type":"thinking","subtype":"completed","session_id":"s1","timestamp_ms":1786540600505}\n' +
  '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}]},"session_id":"s1","model_call_id":"m","timestamp_ms":1786540600505}\n' +
  '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"\\"a"}]},"session_id":"s1","model_call_id":"m","timestamp_ms":1786540600505}\n' +
  '{"type":"tool_call","subtype":"started","call_id":"t1","tool_call":{"shellToolCall":{"args":{"command":"a","workingDirectory":"/w","timeout":1,"toolCallId":"t1","simpleCommands":["a"],"isBackground":false},"description":"a"},"hookAdditionalContexts":[],"toolCallId":"t1","startedAtMs":"1"},"model_call_id":"m","session_id":"s1","timestamp_ms":1786540600505}\n' +
  '{"type":"tool_call","subtype":"completed","call_id":"t1","tool_call":{"shellToolCall":{"args":{"command":"a","workingDirectory":"/w","timeout":1,"toolCallId":"t1","simpleCommands":["a"],"isBackground":false},"result":{"success":{"command":"a","workingDirectory":"/w","exitCode":0,"signal":"","stdout":"a","stderr":"","executionTime":1}},"description":"a"},"hookAdditionalContexts":[],"toolCallId":"t1","startedAtMs":"1","completedAtMs":"1"},"model_call_id":"m","session_id":"s1","timestamp_ms":1786540600505}\n' +
  '{"type":"result","subtype":"success","duration_ms":1,"duration_api_ms":1,"is_error":false,"result":"a","session_id":"s1","request_id":"r","usage":{"inputTokens":1,"outputTokens":1,"cacheReadTokens":1,"cacheWriteTokens":0}}\n';
