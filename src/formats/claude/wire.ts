import { finiteOr, num } from '../../guards';
import { isJsonObject, type JsonObject, setOwn } from '../../json';
import type { AgentEventType, ModelUsage, Usage } from '../../model';
import { hasSomeKey } from '../../record';

// Every byte rule of Claude Code's `--output-format stream-json` (the Claude Agent SDK's
// `SDKMessage` lines): record types, the content-block and usage shapes, the templates and key
// orders the writer uses for records it builds from the model, the sniffing rule, and the typed
// hints contract between decoder and writer. docs/protocols/claude.md explains each rule and
// where it comes from. Amp writes Claude-shaped lines: the envelope and content-block helpers
// here are meant to be reused by its codec.

/** Format id. */
export const CLAUDE_FORMAT = 'claude' as const;

/**
 * Default `maxLineBytes` of the Claude decoder: 16 MiB. A `Read` of a large file or a long
 * command output arrives as one `user` line of several MB; the shared 1 MiB default would cut
 * real streams (docs/limits.md).
 */
export const CLAUDE_MAX_LINE_BYTES: number = 16 * 1024 * 1024;

/**
 * Most characters of a call's streamed output (`tool.output` of another format) the writer holds
 * for the call's `tool_result` when its end carries no text of its own: 1 Mi characters. Past it
 * the rest is a `loss`, so a command that never stops printing cannot grow the writer without
 * bound (docs/limits.md).
 */
export const CLAUDE_MAX_HELD_OUTPUT: number = 1024 * 1024;

/**
 * Most characters of text and thinking the writer holds in one message's blocks while another
 * format's message goes on: 1 Mi. Past it the message's blocks so far are written as its lines
 * (`stop_reason` null, as Claude Code writes a message's lines before its last), and the message
 * goes on in new blocks of the same message, which a reader joins back by the message id
 * (docs/limits.md).
 */
export const CLAUDE_MAX_HELD_TEXT: number = 1024 * 1024;

/**
 * Most characters of records the writer queues behind a message that has not ended when the
 * events have no round numbers (highbar's): 32 Ki, instead of {@link CLAUDE_MAX_HELD_TEXT}. Such a
 * stream has no round end to write the message at, so the writer cuts it there (its blocks so far
 * as lines, `stop_reason` null; a reader joins them by the message id: nothing lost) and what
 * waited behind it is written. Held longer, the queue outlives the young generation and every
 * record of it is promoted (docs/performance.md, "Round twenty-nine").
 */
export const CLAUDE_MAX_HELD_UNNUMBERED: number = 32 * 1024;

/** `system` subtypes this codec maps; any other subtype is kept as an `unknown` event. */
export const CLAUDE_SYSTEM_SUBTYPES = [
  'init',
  'hook_started',
  'hook_progress',
  'hook_response',
  'thinking_tokens',
  'task_started',
  'task_progress',
  'task_updated',
  'task_notification',
  'background_tasks_changed',
  'compact_boundary',
  'status',
  'session_state_changed',
  'api_retry',
  'permission_denied',
  'model_refusal_fallback',
  'model_refusal_no_fallback',
  'mirror_error',
  'informational',
  'notification',
  'local_command_output',
] as const;

/**
 * The `system` subtypes read as a `notice` whose `kind` is the subtype and whose `message` is
 * the record's text (`message`, `content`, `text` or `error`, whichever it has), each with its
 * severity: a call denied without a prompt, a model refusal and a failed session mirror warn;
 * an informational line, a notification and a slash command's output inform (a `level:
 * "warning"` warns). Source: `@anthropic-ai/claude-agent-sdk` `sdk.d.ts`
 * (`SDKPermissionDeniedMessage`, `SDKModelRefusalFallbackMessage`,
 * `SDKModelRefusalNoFallbackMessage`, `SDKMirrorErrorMessage`, `SDKInformationalMessage`,
 * `SDKNotificationMessage`, `SDKLocalCommandOutputMessage`; read, not copied).
 */
export const CLAUDE_NOTICE_SUBTYPES: Readonly<Record<string, 'warning' | 'info'>> = {
  permission_denied: 'warning',
  model_refusal_fallback: 'warning',
  model_refusal_no_fallback: 'warning',
  mirror_error: 'warning',
  informational: 'info',
  notification: 'info',
  local_command_output: 'info',
};

/** Top-level `type`s this codec maps (`system` per {@link CLAUDE_SYSTEM_SUBTYPES}). */
export const CLAUDE_RECORD_TYPES = [
  'system',
  'assistant',
  'user',
  'result',
  'stream_event',
  'rate_limit_event',
  'tool_progress',
  'control_request',
] as const;

/**
 * What the decoder leaves in `provenance.hints` for the writer (the writer never imports the
 * decoder). One line gives one or more events; the first of them (the line's *owner*) carries
 * the line:
 *
 * - `raw`: the line as written (terminator excluded), put back while the line's events still
 *   say what they said;
 * - `n`: how many events the line gave, when more than one (the writer waits for them all);
 * - `before`: lines that gave no event of their own (a `content_block_stop`, a `ping`, an
 *   `assistant` snapshot whose block was already streamed), written verbatim before this line;
 *
 * and each event whose fields the writer can check carries
 *
 * - `said`: those fields ({@link CLAUDE_CHECKED}) as decoded — an edited event is written by
 *   patching the line's record, not by putting the line back;
 * - `block`: the index of its content block in `message.content`, when the line has several;
 * - `state`: on a `status` read from a `system/session_state_changed` line, so that rebuilt
 *   without its line it is written back as that record, not as the `system/status` any other
 *   status becomes ({@link CLAUDE_SESSION_STATE}).
 */
export interface ClaudeHints {
  raw?: string;
  n?: number;
  before?: string[];
  said?: Record<string, unknown>;
  block?: number;
  state?: true;
}

/**
 * The fields, per event type, that decide whether a line is put back as written: when one of
 * them differs from `hints.said`, the writer patches the line's record with the new values.
 */
export const CLAUDE_CHECKED: Readonly<Partial<Record<AgentEventType, readonly string[]>>> = {
  'text.delta': ['text'],
  'reasoning.delta': ['text', 'signature', 'redacted'],
  'tool.start': ['name', 'args'],
  'tool.end': ['ok', 'text'],
  'user.message': ['text'],
  'run.end': ['status', 'answer'],
  error: ['message'],
};

/**
 * `system/session_state_changed`: the session's state (`idle` | `running` | `requires_action`;
 * `idle` is the SDK's turn-over signal), read as a `status` of that state, as `system/status` is,
 * and rebuilt in the SDK's key order (`type, subtype, state, uuid, session_id`). Source:
 * `@anthropic-ai/claude-agent-sdk` `sdk.d.ts` (`SDKSessionStateChangedMessage`; read, not copied:
 * in the union, not seen in public captures).
 */
export const CLAUDE_SESSION_STATE = 'session_state_changed' as const;

/** `assistant.message.model` of lines the CLI wrote itself (errors, local commands). */
export const SYNTHETIC_MODEL = '<synthetic>';

/** The id prefix of a heartbeat `tool_progress` (`toolu_…-heartbeat-0`). */
export const HEARTBEAT_MARK = '-heartbeat-';

// ---------------------------------------------------------------------------------------------
// Canonical lines: the frequent `assistant`, `user` and `system/thinking_tokens` lines spelled
// exactly as the CLI writes them (`JSON.stringify` of its records, keys in its order), which the
// decoder reads without parsing the whole record (docs/performance.md, "Claude decoder"). Each
// string is the fixed text between two values; a line spelled any other way takes the general
// path.

/** The fixed text of a canonical `assistant` line, in line order. */
export const CLAUDE_ASSISTANT_TEXT = {
  head: '{"type":"assistant","message":{"model":',
  id: ',"id":',
  content: ',"type":"message","role":"assistant","content":[',
  text: '{"type":"text","text":',
  thinking: '{"type":"thinking","thinking":',
  signature: ',"signature":',
  toolUse: '{"type":"tool_use","id":',
  name: ',"name":',
  input: ',"input":',
  caller: ',"caller":{"type":"direct"}',
  container: ',"container":null',
  stopReason: ',"stop_reason":',
  stopSequence: ',"stop_sequence":null',
  stopDetails: ',"stop_details":null',
  usage: ',"usage":',
  transformations: ',"input_transformations":[]',
  tail: ',"diagnostics":null,"context_management":null',
} as const;

/** The fixed text of a canonical `usage` object (the two optional parts may be absent). */
export const CLAUDE_USAGE_TEXT = {
  head: '{"input_tokens":',
  cacheWrite: ',"cache_creation_input_tokens":',
  cacheRead: ',"cache_read_input_tokens":',
  ephemeral5m: ',"cache_creation":{"ephemeral_5m_input_tokens":',
  ephemeral1h: ',"ephemeral_1h_input_tokens":',
  output: ',"output_tokens":',
  tier: ',"service_tier":',
  geo: ',"inference_geo":',
} as const;

/** The fixed text of a canonical `user` line holding one tool result. */
export const CLAUDE_USER_TEXT = {
  head: '{"type":"user","message":{"role":"user","content":[{"tool_use_id":',
  content: ',"type":"tool_result","content":',
  isError: ',"is_error":',
  /** What follows the result's content string, up to the envelope. */
  close: '}]}',
  result: ',"tool_use_result":',
} as const;

/** The fixed text of a canonical `system/thinking_tokens` line. */
export const CLAUDE_THINKING_TOKENS_TEXT = {
  head: '{"type":"system","subtype":"thinking_tokens","estimated_tokens":',
  delta: ',"estimated_tokens_delta":',
} as const;

/** The envelope after a canonical line's body: the lane, the session, the line's ids. */
export const CLAUDE_ENVELOPE_TEXT = {
  lane: ',"parent_tool_use_id":',
  session: ',"session_id":',
  uuid: ',"uuid":',
  timestamp: ',"timestamp":',
  request: ',"request_id":',
} as const;

// ---------------------------------------------------------------------------------------------
// Envelope and content blocks (shared with Claude-shaped formats)

/** The lane of a line: its `parent_tool_use_id` when it is a string (a subagent's line). */
export function laneOf(record: JsonObject): string | undefined {
  const p = record.parent_tool_use_id;
  return typeof p === 'string' ? p : undefined;
}

/** `message.content` as a list of blocks: a string is one text block; anything else, none. */
export function contentBlocks(content: unknown): JsonObject[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const out: JsonObject[] = [];
  for (const b of content) if (isJsonObject(b)) out.push(b);
  return out;
}

/** The MCP server of a tool named `mcp__<server>__<tool>`, else `undefined`. */
export function mcpServer(name: string): string | undefined {
  if (!name.startsWith('mcp__')) return undefined;
  const end = name.indexOf('__', 5);
  return end > 5 ? name.slice(5, end) : undefined;
}

/**
 * An Anthropic `usage` object in the model's terms: `input` is every input token
 * (`input_tokens + cache_read_input_tokens + cache_creation_input_tokens`), with the cache parts
 * beside it; `reasoning` from `output_tokens_details.thinking_tokens`. `undefined` when the
 * object has no count at all.
 */
export function usageFromClaude(u: unknown): Usage | undefined {
  if (!isJsonObject(u)) return undefined;
  const fresh = num(u.input_tokens);
  const read = num(u.cache_read_input_tokens);
  const write = num(u.cache_creation_input_tokens);
  const output = num(u.output_tokens);
  if (fresh === undefined && read === undefined && write === undefined && output === undefined)
    return undefined;
  const usage: Usage = {};
  const input =
    fresh !== undefined || read !== undefined || write !== undefined
      ? finiteOr((fresh ?? 0) + (read ?? 0) + (write ?? 0))
      : undefined;
  if (input !== undefined) usage.input = input;
  if (output !== undefined) usage.output = output;
  if (read !== undefined) usage.cacheRead = read;
  if (write !== undefined) usage.cacheWrite = write;
  const details = u.output_tokens_details;
  const thinking = isJsonObject(details) ? num(details.thinking_tokens) : undefined;
  if (thinking !== undefined) usage.reasoning = thinking;
  return usage;
}

// The figures of a `result.modelUsage` entry the model keeps (camelCase, unlike `usage`'s).
const MODEL_USAGE_FIGURES = [
  'inputTokens',
  'outputTokens',
  'cacheReadInputTokens',
  'cacheCreationInputTokens',
  'costUSD',
] as const;

// Whether a `result.modelUsage` entry is a model's usage: an object with one of its figures. A
// key of another kind a later version puts there (an object of other fields) is no model: read
// as one, the run's end would name a model that never ran, with no figures.
function isModelUsage(u: unknown): u is JsonObject {
  return hasSomeKey(u, MODEL_USAGE_FIGURES);
}

/** `result.modelUsage` (camelCase, per model) as the model's `byModel`. */
export function byModelFromClaude(m: unknown): Record<string, ModelUsage> | undefined {
  if (!isJsonObject(m)) return undefined;
  const out: Record<string, ModelUsage> = {};
  let any = false;
  for (const name of Object.keys(m)) {
    const u = m[name];
    if (!isModelUsage(u)) continue;
    const entry: ModelUsage = {};
    const fresh = num(u.inputTokens);
    const read = num(u.cacheReadInputTokens);
    const write = num(u.cacheCreationInputTokens);
    const input =
      fresh !== undefined || read !== undefined || write !== undefined
        ? finiteOr((fresh ?? 0) + (read ?? 0) + (write ?? 0))
        : undefined;
    if (input !== undefined) entry.input = input;
    const output = num(u.outputTokens);
    if (output !== undefined) entry.output = output;
    if (read !== undefined) entry.cacheRead = read;
    if (write !== undefined) entry.cacheWrite = write;
    const cost = num(u.costUSD);
    if (cost !== undefined) entry.costUsd = cost;
    Object.defineProperty(out, name, { value: entry, enumerable: true, writable: true, configurable: true });
    any = true;
  }
  return any ? out : undefined;
}

/** The model's usage as an Anthropic `usage` object (the writer's; fresh input is `input` minus cache). */
export function usageToClaude(u: Usage | undefined): JsonObject {
  const read = u?.cacheRead ?? 0;
  const write = u?.cacheWrite ?? 0;
  const out: JsonObject = {
    input_tokens: Math.max(0, (u?.input ?? 0) - read - write),
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
    output_tokens: u?.output ?? 0,
  };
  if (u?.reasoning !== undefined) out.output_tokens_details = { thinking_tokens: u.reasoning };
  return out;
}

// The counts of an Anthropic `usage` object, each with the figure of the model's usage it says.
const USAGE_COUNTS = [
  ['input_tokens', 'input'],
  ['cache_creation_input_tokens', 'cacheWrite'],
  ['cache_read_input_tokens', 'cacheRead'],
  ['output_tokens', 'output'],
] as const;

/**
 * Writes the model's usage into a line's Anthropic `usage` object, in place (an edited usage put
 * back in its line): each count takes `usageToClaude`'s value where the object has it or the
 * usage has its figure, and the thinking count likewise; every other key the line says beside
 * them (`service_tier`, `server_tool_use`, `inference_geo`, …) stays as written, in its order.
 * `cache_creation`, which splits the cache write by lifetime, goes when that count changes: it
 * would say the old figure (a redacted one) again.
 */
export function usageIntoClaude(target: JsonObject, u: Usage): void {
  const counts = usageToClaude(u);
  for (const [key, figure] of USAGE_COUNTS) {
    if (!Object.hasOwn(target, key) && u[figure] === undefined) continue;
    if (key === 'cache_creation_input_tokens' && target[key] !== counts[key]) delete target.cache_creation;
    target[key] = counts[key]!;
  }
  const details = target.output_tokens_details;
  if (u.reasoning !== undefined) {
    if (isJsonObject(details)) details.thinking_tokens = u.reasoning;
    else target.output_tokens_details = { thinking_tokens: u.reasoning };
  } else if (isJsonObject(details)) delete details.thinking_tokens;
}

/**
 * Whether a line's Anthropic `usage` object says the model's usage as the decoder reads it: its
 * counts and thinking count. `partial`: a streamed `message_delta`'s, which a reader completes
 * with its message's start, compared on the counts it spells.
 */
export function usageSaid(said: JsonObject, u: Usage, partial: boolean): boolean {
  if (!partial) {
    const read = usageFromClaude(said);
    return (
      read?.input === u.input &&
      read?.output === u.output &&
      read?.cacheRead === u.cacheRead &&
      read?.cacheWrite === u.cacheWrite &&
      read?.reasoning === u.reasoning
    );
  }
  const counts = usageToClaude(u);
  for (const [key] of USAGE_COUNTS) if (Object.hasOwn(said, key) && said[key] !== counts[key]) return false;
  const details = said.output_tokens_details;
  const thinking = isJsonObject(details) ? details.thinking_tokens : undefined;
  return thinking === undefined || thinking === u.reasoning;
}

/**
 * The model's `byModel` written into a line's `result.modelUsage` (an edited usage put back in
 * its line): a model the line has keeps its entry, with the counts and cost written in place and
 * its other keys (`contextWindow`, `maxOutputTokens`, …) as written; a model it lacks gets the
 * writer's entry; a model the usage no longer names is left out. An entry that is no model's
 * usage (a key of a later version's) stays, after the models.
 */
export function byModelIntoClaude(line: unknown, by: Record<string, ModelUsage> | undefined): JsonObject {
  const out = by === undefined ? {} : byModelToClaude(by);
  for (const name of Object.keys(out)) {
    const was = isJsonObject(line) && Object.hasOwn(line, name) ? line[name] : undefined;
    if (isJsonObject(was)) setOwn(out, name, Object.assign(was, out[name]));
  }
  if (isJsonObject(line))
    for (const name of Object.keys(line))
      if (!Object.hasOwn(out, name) && !isModelUsage(line[name])) setOwn(out, name, line[name]!);
  return out;
}

/** The model's `byModel` as `result.modelUsage`. */
export function byModelToClaude(by: Record<string, ModelUsage>): JsonObject {
  const out: JsonObject = {};
  for (const name of Object.keys(by)) {
    const u = by[name]!;
    const read = u.cacheRead ?? 0;
    const write = u.cacheWrite ?? 0;
    Object.defineProperty(out, name, {
      value: {
        inputTokens: Math.max(0, (u.input ?? 0) - read - write),
        outputTokens: u.output ?? 0,
        cacheReadInputTokens: read,
        cacheCreationInputTokens: write,
        costUSD: u.costUsd ?? 0,
      },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Run outcome

/** `result.subtype` values the SDK lists. */
export const RESULT_SUBTYPES = [
  'success',
  'error_during_execution',
  'error_max_turns',
  'error_max_budget_usd',
  'error_max_structured_output_retries',
] as const;

/**
 * `terminal_reason`s (the SDK's `TerminalReason`: why the query loop stopped) that say the run
 * did not do its work, whatever `is_error` says: Claude Code 2.1.220 wrote a context-exhausted
 * resume as `subtype:"success", is_error:false, terminal_reason:"prompt_too_long"`
 * (`@anthropic-ai/claude-agent-sdk` `sdk.d.ts` `TerminalReason`, read, not copied). The
 * others (`completed`, `tool_deferred`, `hook_stopped`, `stop_hook_prevented`,
 * `background_requested`) end a run that did what it was let do.
 */
export const FAILED_TERMINAL_REASONS: readonly string[] = [
  'blocking_limit',
  'rapid_refill_breaker',
  'prompt_too_long',
  'image_error',
  'model_error',
  'api_error',
  'malformed_tool_use_exhausted',
  'max_turns',
  'budget_exhausted',
  'structured_output_retry_exhausted',
  'tool_deferred_unavailable',
  'turn_setup_failed',
];

/**
 * A `result`'s outcome. `is_error` is read on its own (model-not-found is `subtype:"success"`
 * with `is_error:true`); `error_during_execution` without `is_error` is an interrupted run, and
 * so is a `success` whose `terminal_reason` is `aborted_streaming`/`aborted_tools`; a `success`
 * whose `terminal_reason` is one of {@link FAILED_TERMINAL_REASONS} failed, never `completed`.
 * `reason` is the subtype when it is an error subtype, else `terminal_reason` when present.
 */
export function resultOutcome(record: JsonObject): {
  status: 'completed' | 'failed' | 'cancelled';
  reason?: string;
} {
  const subtype = typeof record.subtype === 'string' ? record.subtype : undefined;
  const terminal = typeof record.terminal_reason === 'string' ? record.terminal_reason : undefined;
  const status =
    record.is_error === true
      ? 'failed'
      : subtype === undefined || subtype === 'success'
        ? terminal === undefined
          ? 'completed'
          : FAILED_TERMINAL_REASONS.includes(terminal)
            ? 'failed'
            : terminal.startsWith('aborted_')
              ? 'cancelled'
              : 'completed'
        : subtype === 'error_during_execution'
          ? 'cancelled'
          : 'failed';
  const reason = subtype !== undefined && subtype !== 'success' ? subtype : (terminal ?? subtype);
  return reason === undefined ? { status } : { status, reason };
}

/** A `task_notification` / `task_updated` status as a child status. */
export function childStatus(status: unknown): 'completed' | 'failed' | 'cancelled' | undefined {
  switch (status) {
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'killed':
    case 'stopped':
      return 'cancelled';
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Sniffing

/**
 * True when a first record looks like Claude Code stream-json: a `system` record with a
 * `subtype` and a `session_id` (`init`, or the SessionStart hooks that precede it), or another
 * Claude record type with a `session_id`.
 */
export function sniffClaude(record: JsonObject): boolean {
  const type = record.type;
  if (typeof record.session_id !== 'string') return false;
  if (type === 'system') return typeof record.subtype === 'string';
  return (
    type === 'assistant' ||
    type === 'user' ||
    type === 'result' ||
    type === 'stream_event' ||
    type === 'rate_limit_event'
  );
}
