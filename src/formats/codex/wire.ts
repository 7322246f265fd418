import { isJsonObject, type JsonObject, parseJsonObject } from '../../json';
import type { PlanItem } from '../../model';

// Every byte rule of `codex exec --json` (one `ThreadEvent` per line, compact JSON as serde_json
// writes it): record types, key orders, the item types and their fields, the usage object, the
// legacy markers, the sniffing rule detectFormat calls, and the typed hints the decoder leaves
// for the writer. docs/protocols/codex.md explains them.

/** The default `maxLineBytes` of the Codex decoder: 16 MiB (Codex's own stdout lines reach 8 MiB). */
export const CODEX_MAX_LINE_BYTES: number = 16 * 1024 * 1024;

/**
 * Most characters the writer holds for one item it builds from another format's deltas: a
 * command's `aggregated_output` (past it: a `loss`, the rest not held) and an `agent_message` or
 * `reasoning` text (past it: the text so far is written as its own item and the message goes on
 * in the next one, a `loss` on `text.delta.message`). 1 Mi characters: far above any real
 * message, and it keeps a converted runaway stream's memory bounded (docs/limits.md).
 */
export const CODEX_MAX_HELD_TEXT: number = 1024 * 1024;

/** Top-level record types (`ThreadEvent.type`) the codec maps. */
export const CODEX_EVENT_TYPES = [
  'thread.started',
  'turn.started',
  'item.started',
  'item.updated',
  'item.completed',
  'turn.completed',
  'turn.failed',
  'error',
] as const;

/** A top-level record type the codec maps. */
export type CodexEventType = (typeof CODEX_EVENT_TYPES)[number];

/** The three item records: one item's snapshots, keyed by `item.id`. */
export type CodexItemRecord = 'item.started' | 'item.updated' | 'item.completed';

/** Item types (`item.type`) the codec maps. */
export const CODEX_ITEM_TYPES = [
  'agent_message',
  'reasoning',
  'plan',
  'command_execution',
  'file_change',
  'mcp_tool_call',
  'collab_tool_call',
  'web_search',
  'todo_list',
  'error',
] as const;

/** An item type the codec maps. */
export type CodexItemType = (typeof CODEX_ITEM_TYPES)[number];

/** Key order of each top-level record as Codex writes it (serde field order). */
export const CODEX_RECORD_KEYS: Readonly<Record<CodexEventType, readonly string[]>> = {
  'thread.started': ['type', 'thread_id'],
  'turn.started': ['type'],
  'item.started': ['type', 'item'],
  'item.updated': ['type', 'item'],
  'item.completed': ['type', 'item'],
  'turn.completed': ['type', 'usage'],
  'turn.failed': ['type', 'error'],
  error: ['type', 'message'],
};

/**
 * Key order of each item as Codex writes it: `id`, then the `type` tag, then the item's fields
 * (serde `flatten`). `agent_message.phase` is newer and optional (kept as an extra field).
 * `web_search` carries a second `id` right after `type` (its own search id): see
 * {@link scanItemIds}.
 */
export const CODEX_ITEM_KEYS: Readonly<Record<CodexItemType, readonly string[]>> = {
  agent_message: ['id', 'type', 'text', 'phase'],
  reasoning: ['id', 'type', 'text'],
  plan: ['id', 'type', 'text'],
  command_execution: ['id', 'type', 'command', 'aggregated_output', 'exit_code', 'status'],
  file_change: ['id', 'type', 'changes', 'status'],
  mcp_tool_call: ['id', 'type', 'server', 'tool', 'arguments', 'result', 'error', 'status'],
  collab_tool_call: [
    'id',
    'type',
    'tool',
    'sender_thread_id',
    'receiver_thread_ids',
    'prompt',
    'agents_states',
    'status',
  ],
  web_search: ['id', 'type', 'query', 'action', 'results'],
  todo_list: ['id', 'type', 'items'],
  error: ['id', 'type', 'message'],
};

/**
 * The item lines as Codex writes them (compact, the item's keys in {@link CODEX_ITEM_KEYS} order),
 * up to the first character of the item id: one per item record. The decoder reads a reasoning,
 * agent message or command line spelled so without building its record (docs/performance.md,
 * "Codex decoder").
 */
export const CODEX_ITEM_HEADS: Readonly<Record<CodexItemRecord, string>> = {
  'item.completed': '{"type":"item.completed","item":{"id":"',
  'item.started': '{"type":"item.started","item":{"id":"',
  'item.updated': '{"type":"item.updated","item":{"id":"',
};

/**
 * What follows the item id's closing quote in those lines, up to the first value: the type tag
 * and the first field's key.
 */
export const CODEX_ITEM_TYPE_HEADS = {
  reasoning: ',"type":"reasoning","text":',
  agent_message: ',"type":"agent_message","text":',
  command_execution: ',"type":"command_execution","command":',
  file_change: ',"type":"file_change","changes":[',
  todo_list: ',"type":"todo_list","items":[',
} as const;

/**
 * The keys around the values of a file change's `changes` and of a todo list's `items`, and the
 * end of their list, as Codex writes them (an entry's first key opens it).
 */
export const CODEX_LIST_KEYS = {
  path: '{"path":',
  kind: ',"kind":"',
  text: '{"text":',
  completed: ',"completed":',
  status: '],"status":"',
  end: ']}}',
} as const;

/** The keys between a command item's values, as Codex writes them. */
export const CODEX_COMMAND_KEYS = {
  output: ',"aggregated_output":',
  exitCode: ',"exit_code":',
  status: ',"status":"',
} as const;

/**
 * The run and thread lines as Codex writes them (compact, `type` first): `turn.started` whole,
 * and the heads of `thread.started` (up to the first character of the thread id) and
 * `turn.completed` (up to the first usage key). The decoder reads lines spelled so without
 * building their record (docs/performance.md, "Codex decoder").
 */
export const CODEX_TOP_LINES = {
  turnStarted: '{"type":"turn.started"}',
  threadStarted: '{"type":"thread.started","thread_id":"',
  turnCompleted: '{"type":"turn.completed","usage":{',
} as const;

/** An agent message's optional `phase` key, as Codex writes it. */
export const CODEX_PHASE_KEY = ',"phase":"';

/**
 * The item lines as the writer spells them from templates (the bytes `JSON.stringify` gives a
 * record in Codex's key order): each item record up to its item object, the id's key, and what
 * follows a started command's command (no output, no exit code, in progress) with the line end.
 */
export const CODEX_WRITE_HEADS = {
  'item.completed': '{"type":"item.completed","item":',
  'item.started': '{"type":"item.started","item":',
  id: '{"id":',
  commandStarted: ',"aggregated_output":"","exit_code":null,"status":"in_progress"}}\n',
  phase: ',"phase":',
} as const;

/** `turn.completed.usage` keys in Codex's order (the last two are newer and may be absent). */
export const CODEX_USAGE_KEYS = [
  'input_tokens',
  'cached_input_tokens',
  'cache_write_input_tokens',
  'output_tokens',
  'reasoning_output_tokens',
] as const;

/** The canonical usage field each Codex usage key maps to. */
export const CODEX_USAGE_FIELDS = {
  input_tokens: 'input',
  cached_input_tokens: 'cacheRead',
  cache_write_input_tokens: 'cacheWrite',
  output_tokens: 'output',
  reasoning_output_tokens: 'reasoning',
} as const;

/** A thread's running usage total, as canonical counts (only the fields the wire had). */
export interface CodexUsageTotal {
  input?: number;
  cacheRead?: number;
  cacheWrite?: number;
  output?: number;
  reasoning?: number;
}

/** The `status` words of a command execution. */
export type CodexCommandStatus = 'in_progress' | 'completed' | 'failed' | 'declined';

/** The name tool events of a `command_execution` item carry (Codex gives commands no tool name). */
export const CODEX_COMMAND_TOOL = 'command_execution';
/** The name tool events of a `web_search` item carry. */
export const CODEX_WEB_SEARCH_TOOL = 'web_search';

/**
 * How a collab agent's last state maps onto a child's end (`running`/`pending_init`: not ended).
 * `interrupted` is newer (`CollabAgentStatus::Interrupted`, mapped from the app-server's in
 * openai/codex:codex-rs/exec/src/event_processor_with_jsonl_output.rs): its turn was stopped.
 */
export const CODEX_AGENT_END: Readonly<Record<string, 'completed' | 'failed' | 'cancelled'>> = {
  completed: 'completed',
  errored: 'failed',
  shutdown: 'cancelled',
  interrupted: 'cancelled',
  not_found: 'failed',
};

/** `todo_list.items[]` → plan items. */
export function todoToPlan(items: readonly JsonObject[]): PlanItem[] {
  const out: PlanItem[] = [];
  for (const item of items)
    out.push({ text: item.text as string, status: item.completed ? 'completed' : 'pending' });
  return out;
}

/**
 * What the Codex decoder leaves in `provenance.hints` for the writer (and nothing else does).
 * Each event type has a natural record: `tool.start` ↔ `item.started`, `tool.output` ↔
 * `item.updated`, `tool.end` ↔ `item.completed`, every other item event ↔ `item.completed`;
 * `record` says when it was another.
 */
export type CodexHints = {
  /**
   * The line as written, kept when the writer's own spelling might not give it back (free-form
   * JSON inside: MCP arguments and results, web search actions, agent states; fields of its own;
   * another key order; `\u` escapes). The writer puts it back while the event says the same.
   */
  raw?: string;
  /** Which item record the event came from, when not its natural one. */
  record?: CodexItemRecord;
  /** An `error` event decoded from an `error` item: the item's id (top-level errors have none). */
  item?: string;
  /** `tool.end`: the wire `status` when `ok`/`denied` do not say it (`completed` with a null exit code). */
  status?: string;
  /** `run.end` of a `turn.completed`: the thread's running total as written. */
  total?: CodexUsageTotal;
  /** A text or reasoning snapshot that does not extend the previous one: `text` is all of it. */
  snapshot?: true;
  /** `tool.start`/`tool.output`: the exit code a `command_execution` snapshot had before it completed. */
  exitCode?: number;
  /** `tool.start` of an MCP call: its `result` and `error` when the started snapshot had them. */
  early?: JsonObject;
  /** `tool.start`: the output a `command_execution` snapshot already had when it started. */
  output?: string;
  /** `tool.start`/`tool.end` of an MCP call whose `arguments` is not an object: the value. */
  args?: unknown;
  /** Fields of an item record beside `type` and `item`, in order. */
  recordExtra?: JsonObject;
  /** `turn.completed.usage` fields beyond Codex's five, in order. */
  usageExtra?: JsonObject;
  /** `turn.failed.error` (and a failed MCP call's `error`) fields beside `message`, in order. */
  errorExtra?: JsonObject;
};

/** The record types of the pre-2025-10 exec format (`session.created`, items with `item_type`). */
export const CODEX_LEGACY_TYPES: readonly string[] = ['session.created', 'session.configured'];

/** True for a record of the legacy (pre-2025-10) exec shape. */
export function isLegacyRecord(record: JsonObject): boolean {
  const type = record.type;
  if (typeof type === 'string' && CODEX_LEGACY_TYPES.includes(type)) return true;
  const item = record.item;
  return isJsonObject(item) && typeof item.item_type === 'string' && item.type === undefined;
}

/** True for a top-level record type the codec maps. */
export function isCodexEventType(type: unknown): type is CodexEventType {
  return codexEventType(type) !== undefined;
}

/** True for an item type the codec maps. */
export function isCodexItemType(type: unknown): type is CodexItemType {
  return codexItemType(type) !== undefined;
}

// The type words as the code spells them: JSON.parse gives a fresh string for a value longer than
// ten characters, and every keyed lookup with it would look it up in the string table first. One
// map of each word to itself gives the constant (a switch over the words spelled each twice); the
// annotation lets a bundle without the decoder (the writer half) drop the maps.
/* @__NO_SIDE_EFFECTS__ */
function typeWords<T>(list: readonly T[]): ReadonlyMap<unknown, T> {
  return new Map(list.map((t) => [t, t]));
}
const EVENT_TYPE_WORDS = typeWords(CODEX_EVENT_TYPES);
const ITEM_TYPE_WORDS = typeWords(CODEX_ITEM_TYPES);

/** The top-level record type `type` names, as the constant (`undefined` for another value). */
export function codexEventType(type: unknown): CodexEventType | undefined {
  return EVENT_TYPE_WORDS.get(type);
}

/** The item type `type` names, as the constant (`undefined` for another value). */
export function codexItemType(type: unknown): CodexItemType | undefined {
  return ITEM_TYPE_WORDS.get(type);
}

/**
 * The sniffing rule {@link detectFormat} calls on a first record: `certain` for
 * `thread.started` (or a legacy `session.created`), `likely` for the other ThreadEvents in their
 * Codex shape. Gemini's `error` has `severity`, nativeharness records have `seq`: neither fits.
 */
export function sniffCodex(
  record: JsonObject,
): { confidence: 'certain' | 'likely'; reason: string } | undefined {
  const type = record.type;
  if (type === 'thread.started' && typeof record.thread_id === 'string')
    return { confidence: 'certain', reason: 'thread.started' };
  if (type === 'session.created' && 'id' in record)
    return { confidence: 'likely', reason: 'a legacy session.created' };
  if (type === 'turn.started' && Object.keys(record).length === 1)
    return { confidence: 'likely', reason: 'turn.started' };
  if (
    (type === 'item.started' || type === 'item.updated' || type === 'item.completed') &&
    isJsonObject(record.item) &&
    typeof record.item.id === 'string'
  )
    return { confidence: 'likely', reason: `an ${type} record` };
  if (type === 'turn.completed' && isJsonObject(record.usage) && 'input_tokens' in record.usage)
    return { confidence: 'likely', reason: 'turn.completed' };
  if (type === 'turn.failed' && isJsonObject(record.error))
    return { confidence: 'likely', reason: 'turn.failed' };
  if (type === 'error' && typeof record.message === 'string' && Object.keys(record).length === 2)
    return { confidence: 'likely', reason: 'a top-level error' };
  return undefined;
}

/**
 * Every value of the key `"id"` at the top level of the JSON object starting at `text[start]`
 * (`{`), in order, as raw JSON string tokens parsed. `JSON.parse` keeps only the last of a
 * duplicated key; a Codex `web_search` item has two (`item_N`, then the search's own id). A
 * string-aware scan; returns `[]` when the text is not what it expects.
 */
export function scanItemIds(text: string, start: number): string[] {
  const ids: string[] = [];
  let depth = 0;
  let i = start;
  const n = text.length;
  let expectKey = false;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const end = stringEnd(text, i);
      if (end === -1) return ids;
      if (depth === 1 && expectKey && text.startsWith('"id"', i) && end === i + 3) {
        let j = end + 1;
        while (text.charCodeAt(j) === 32) j++;
        if (text.charCodeAt(j) === 58) {
          j++;
          while (text.charCodeAt(j) === 32) j++;
          if (text.charCodeAt(j) === 34) {
            const valueEnd = stringEnd(text, j);
            if (valueEnd === -1) return ids;
            try {
              ids.push(JSON.parse(text.slice(j, valueEnd + 1)) as string);
            } catch {
              return ids;
            }
            i = valueEnd + 1;
            expectKey = false;
            continue;
          }
        }
      }
      expectKey = false;
      i = end + 1;
      continue;
    }
    if (c === 123 || c === 91) {
      depth++;
      expectKey = c === 123 && depth === 1;
    } else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return ids;
    } else if (c === 44 && depth === 1) expectKey = true;
    i++;
  }
  return ids;
}

// The index of the quote closing the string that opens at `at`, or -1.
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i;
  }
  return -1;
}

/** Where the `item` object of an item record starts in its line (`{`), or -1. */
export function itemObjectStart(text: string): number {
  const at = text.indexOf('"item":');
  if (at === -1) return -1;
  let i = at + 7;
  while (text.charCodeAt(i) === 32) i++;
  return text.charCodeAt(i) === 123 ? i : -1;
}

/**
 * A provider error Codex put inside an error `message` as JSON (compact or pretty-printed):
 * the parsed object, or `undefined` when the message is plain text.
 */
export function parseEmbeddedError(message: string): JsonObject | undefined {
  const c = message.charCodeAt(0);
  if (c !== 123 || message.charCodeAt(message.length - 1) !== 125) return undefined;
  return parseJsonObject(message);
}
