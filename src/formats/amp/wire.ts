// Every byte rule of Amp's `amp --execute --stream-json` output, in one place. Amp writes a
// Claude Code compatible envelope with its own field set (no `uuid`, no `message.id`/`model`, no
// cost); docs/protocols/amp.md cites the sources. No real capture was available here: the key
// orders below are the ones the public sample lines show.

import type { Detection } from '../../detect';
import type { JsonObject } from '../../json';

/** Default `maxLineBytes` of the Amp decoder: a tool result inside one line can be large. */
export const AMP_MAX_LINE_BYTES: number = 16 * 1024 * 1024;

/**
 * Most characters of one text block the writer joins from another format's deltas: 1 Mi. Past
 * it the assistant line gathered so far is written and the text goes on in the next line,
 * which a reader takes for another round (a `loss` on `text.delta.message`), so a converted
 * runaway message holds bounded memory (docs/limits.md).
 */
export const AMP_MAX_HELD_TEXT: number = 1024 * 1024;

/** The record types of the stream-json output (`type`; `system` has `subtype: init`). */
export const AMP_RECORD_TYPES = ['system', 'user', 'assistant', 'result'] as const;

/** A record type of the stream-json output. */
export type AmpRecordType = (typeof AMP_RECORD_TYPES)[number];

/**
 * Record types of the legacy (mid-2025) output, `{"type":"initial","threadID":…}` then
 * `{"type":"messages","messages":[[index, message]],"toolResults":[]}`: a version marker, reported
 * as `unsupported_version` and kept as unknown records.
 */
export const AMP_LEGACY_TYPES: readonly string[] = ['initial', 'messages'];

/**
 * True when `system/init`'s `tools` is read as the session's tools: an array of names. The
 * decoder reads it so, and the writer takes a kept list out of the record when the event has
 * none (the list was deleted from the event).
 */
export function isAmpToolList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((t) => typeof t === 'string');
}

/** Key order of `system/init`, as Amp writes it. */
export const AMP_INIT_KEYS: readonly string[] = [
  'type',
  'subtype',
  'cwd',
  'session_id',
  'tools',
  'mcp_servers',
];
/** Key order of `user` and `assistant` lines. */
export const AMP_MESSAGE_LINE_KEYS: readonly string[] = [
  'type',
  'message',
  'parent_tool_use_id',
  'session_id',
];
/** Key order of an assistant `message`. */
export const AMP_ASSISTANT_MESSAGE_KEYS: readonly string[] = [
  'type',
  'role',
  'content',
  'stop_reason',
  'usage',
];
/** Key order of `message.usage` (the writer adds `max_tokens`/`service_tier` only when kept). */
export const AMP_USAGE_KEYS: readonly string[] = [
  'input_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'output_tokens',
  'max_tokens',
  'service_tier',
];
/**
 * The assistant line built from the model, up to its content blocks (`AMP_MESSAGE_LINE_KEYS`,
 * then `AMP_ASSISTANT_MESSAGE_KEYS`): the writer's template, spelled as `JSON.stringify` spells
 * the record.
 */
export const AMP_ASSISTANT_LINE_HEAD =
  '{"type":"assistant","message":{"type":"message","role":"assistant","content":[';
/**
 * The user line built from the model, up to its content blocks (`AMP_MESSAGE_LINE_KEYS`, then
 * `role` and `content`): the writer's template, spelled as `JSON.stringify` spells the record.
 */
export const AMP_USER_LINE_HEAD = '{"type":"user","message":{"role":"user","content":[';
/** A text content block, up to its text (the writer's template). */
export const AMP_TEXT_BLOCK_HEAD = '{"type":"text","text":';
/**
 * The fixed text of the lines the decoder reads without parsing them whole (its canonical-line
 * reader, docs/performance.md "Amp decoder, round six"): assistant and user lines of text,
 * `tool_use` and `tool_result` blocks, spelled as Amp and this codec's writer spell them
 * (`AMP_MESSAGE_LINE_KEYS`, `AMP_ASSISTANT_MESSAGE_KEYS`, `AMP_USAGE_KEYS`,
 * `AMP_TOOL_RESULT_KEYS`, no space). `head` is {@link AMP_ASSISTANT_LINE_HEAD}.
 */
export const AMP_CANONICAL_TEXT = {
  userHead: '{"type":"user","message":{"role":"user","content":[',
  text: AMP_TEXT_BLOCK_HEAD,
  toolUse: '{"type":"tool_use","id":',
  name: ',"name":',
  input: ',"input":',
  toolResult: '{"type":"tool_result","tool_use_id":',
  content: ',"content":',
  isError: ',"is_error":',
  stopReason: ',"stop_reason":',
  usage: ',"usage":{"input_tokens":',
  cacheWrite: ',"cache_creation_input_tokens":',
  cacheRead: ',"cache_read_input_tokens":',
  output: ',"output_tokens":',
  maxTokens: ',"max_tokens":',
  tier: ',"service_tier":',
  lane: '},"parent_tool_use_id":',
  session: ',"session_id":',
} as const;

/** Key order of `result`. */
export const AMP_RESULT_KEYS: readonly string[] = [
  'type',
  'subtype',
  'duration_ms',
  'is_error',
  'num_turns',
  'result',
  'session_id',
];
/** Key order of a `tool_result` content block (the Amp SDK's `ToolResultContent`). */
export const AMP_TOOL_RESULT_KEYS: readonly string[] = ['type', 'tool_use_id', 'content', 'is_error'];

/** `result.subtype` of a run that ended well; the others (`error_*`) are failures. */
export const AMP_SUCCESS = 'success';

/** Amp thread (session) ids: `T-` and a UUID. */
export const AMP_THREAD_ID: RegExp = /^T-[0-9a-fA-F]{8}-[0-9a-fA-F-]{27}$/;

/**
 * What the decoder leaves in `provenance.hints` for the writer (the writer never imports the
 * decoder). Every event of a line carries the same `raw` and `record`; events from one content
 * block also carry that block.
 */
export interface AmpHints {
  /** The line as it came: written back while the events of the line still say what they said. */
  raw?: string;
  /** The record as decoded: the template a rewritten line keeps its other fields from. */
  record?: JsonObject;
  /** The content block the event came from (text, thinking, tool_use or tool_result). */
  block?: JsonObject;
}

/**
 * The rule `detectFormat` applies. Amp's lines look like Claude Code's, so only Amp's own marks
 * count: a `T-<uuid>` thread id as `session_id` on a record without Claude's `uuid`, or the legacy
 * `initial` record's `threadID`. A Claude-looking line without them is left undecided.
 */
export function sniffAmp(r: JsonObject): Detection | undefined {
  if (r.type === 'initial' && typeof r.threadID === 'string' && r.threadID.startsWith('T-'))
    return {
      format: 'amp',
      confidence: 'certain',
      reason: 'a legacy Amp initial record (unsupported version)',
    };
  if (r.type === 'messages' && Array.isArray(r.messages) && Array.isArray(r.toolResults))
    return {
      format: 'amp',
      confidence: 'likely',
      reason: 'a legacy Amp messages record (unsupported version)',
    };
  if (typeof r.session_id !== 'string' || !AMP_THREAD_ID.test(r.session_id) || 'uuid' in r) return undefined;
  if (typeof r.type !== 'string' || !(AMP_RECORD_TYPES as readonly string[]).includes(r.type))
    return undefined;
  return { format: 'amp', confidence: 'certain', reason: `an Amp ${r.type} record (T- thread id)` };
}

/**
 * True for an assistant content block the codec maps onto an event (text, thinking, redacted
 * thinking, tool_use). Other blocks stay in the kept record, and the writer keeps them in place.
 */
export function isMappedAssistantBlock(b: unknown): b is JsonObject {
  if (typeof b !== 'object' || b === null || Array.isArray(b)) return false;
  const x = b as JsonObject;
  switch (x.type) {
    case 'text':
      return typeof x.text === 'string';
    case 'thinking':
      return typeof x.thinking === 'string';
    case 'redacted_thinking':
      return typeof x.data === 'string';
    case 'tool_use':
      return typeof x.id === 'string' && typeof x.name === 'string';
    default:
      return false;
  }
}

/** True for a user content block the codec maps onto an event (text, tool_result). */
export function isMappedUserBlock(b: unknown): b is JsonObject {
  if (typeof b !== 'object' || b === null || Array.isArray(b)) return false;
  const x = b as JsonObject;
  return (
    (x.type === 'text' && typeof x.text === 'string') ||
    (x.type === 'tool_result' && typeof x.tool_use_id === 'string')
  );
}

/**
 * The content of a rewritten message: the kept blocks, each mapped one replaced by the next block
 * built from the events (blocks the codec does not map stay where they were), then any blocks the
 * events add.
 */
export function mergeBlocks(
  kept: readonly unknown[],
  built: readonly JsonObject[],
  mapped: (b: unknown) => boolean,
): unknown[] {
  const out: unknown[] = [];
  let j = 0;
  for (const b of kept) {
    if (!mapped(b)) out.push(b);
    else if (j < built.length) out.push(built[j++]);
  }
  while (j < built.length) out.push(built[j++]);
  return out;
}
