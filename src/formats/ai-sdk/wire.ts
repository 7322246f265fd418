// Every byte rule of the Vercel AI SDK UI message stream (protocol `v1`, the `ai` package's
// `UIMessageChunk`s, what `useChat` consumes): one JSON chunk per SSE event (`data: {json}\n\n`,
// closed by `data: [DONE]\n\n`) or per line. Chunk types are kebab-case; `data-*` parts are the
// application's own.

import type { Detection } from '../../detect';
import type { JsonFraming } from '../../framing/json-stream';
import { num, wordLookup } from '../../guards';
import { isJsonObject, type JsonObject } from '../../json';
import type { Usage } from '../../model';

/** Every chunk type of the UI message stream (plus the `data-*` family, see {@link isAiSdkChunkType}). */
export const AISDK_CHUNK_TYPES = [
  'start',
  'finish',
  'abort',
  'error',
  'message-metadata',
  'start-step',
  'finish-step',
  'reset-step',
  'text-start',
  'text-delta',
  'text-end',
  'reasoning-start',
  'reasoning-delta',
  'reasoning-end',
  'tool-input-start',
  'tool-input-delta',
  'tool-input-available',
  'tool-input-error',
  'tool-approval-request',
  'tool-approval-response',
  'tool-output-available',
  'tool-output-error',
  'tool-output-denied',
  'source-url',
  'source-document',
  'file',
  'reasoning-file',
  'custom',
  'steering-message',
] as const;

/** One of {@link AISDK_CHUNK_TYPES}. */
export type AiSdkChunkType = (typeof AISDK_CHUNK_TYPES)[number];

const TYPES: ReadonlySet<string> = /* @__PURE__ */ new Set(AISDK_CHUNK_TYPES);

/** True for a chunk type of the UI message stream, `data-*` parts included. */
export function isAiSdkChunkType(type: unknown): type is AiSdkChunkType | `data-${string}` {
  return typeof type === 'string' && (TYPES.has(type) || (type.startsWith('data-') && type.length > 5));
}

const chunkWord = /* @__PURE__ */ wordLookup(AISDK_CHUNK_TYPES);

/**
 * The chunk type a parsed `type` names: the literal of {@link AISDK_CHUNK_TYPES} (the decoder's
 * later `switch` and table lookups then match it by identity), a `data-*` part's type as it is,
 * or `undefined` for any other value. Accepts what {@link isAiSdkChunkType} accepts.
 */
export function aiSdkChunkType(type: unknown): AiSdkChunkType | `data-${string}` | undefined {
  const word = chunkWord(type);
  if (word !== undefined) return word;
  return typeof type === 'string' && type.length > 5 && type.startsWith('data-')
    ? (type as `data-${string}`)
    : undefined;
}

/**
 * How a `text-delta` chunk begins as agentwire and the `ai` package write it: the decoder reads
 * such a chunk without parsing it whole.
 */
export const AISDK_DELTA_HEAD = '{"type":"text-delta","id":"';

/**
 * The fixed text of the other frequent chunks as agentwire writes them, read by the decoder
 * without parsing them whole (its canonical-line readers): a carried tool output
 * (`{"type":"data-agentwire.tool.output","data":{"call":"…","text":"…"}}`), a call's text output
 * (`{"type":"tool-output-available","toolCallId":"…","output":"…"}`) and its error
 * (`{"type":"tool-output-error","toolCallId":"…","errorText":"…"}`); the short chunks of a step
 * and a text part (`{"type":"start-step"}`, `{"type":"finish-step"}`,
 * `{"type":"text-start","id":"…"}`, `{"type":"text-end","id":"…"}`) and a call's input whole
 * (`{"type":"tool-input-available","toolCallId":"…","toolName":"…","input":{…}}`, bare or with
 * `,"toolMetadata":{"agentwire":{"argsSummary":"…"}}` before its last brace). Each piece is a
 * constant of its own, not a key of one object: a minified bundle names a constant by a letter,
 * where it spells an object's keys at every read.
 */
export const C_CARRIED_HEAD = '{"type":"data-agentwire.tool.output","data":{"call":';
/** A carried tool output's key before its text. */
export const C_CARRIED_TEXT = ',"text":';
/** A call's text output's head, up to its call id. */
export const C_OUTPUT_HEAD = '{"type":"tool-output-available","toolCallId":';
/** A call's text output's key before the output. */
export const C_OUTPUT = ',"output":';
/** A call's error's head, up to its call id. */
export const C_ERROR_HEAD = '{"type":"tool-output-error","toolCallId":';
/** A call's error's key before its text. */
export const C_ERROR_TEXT = ',"errorText":';
/** A step's start, whole. */
export const C_START_STEP = '{"type":"start-step"}';
/** A step's end, whole. */
export const C_FINISH_STEP = '{"type":"finish-step"}';
/** A text part's start, up to its id. */
export const C_TEXT_START_HEAD = '{"type":"text-start","id":';
/** A text part's end, up to its id. */
export const C_TEXT_END_HEAD = '{"type":"text-end","id":';
/** A call's input's head, up to its call id. */
export const C_INPUT_HEAD = '{"type":"tool-input-available","toolCallId":';
/** A call's input's key before its tool name. */
export const C_INPUT_NAME = ',"toolName":';
/** A call's input's key before the input object. */
export const C_INPUT = ',"input":';
/** A call's input's metadata, up to its arguments' summary. */
export const C_INPUT_SUMMARY = ',"toolMetadata":{"agentwire":{"argsSummary":';

/** The SSE data of the stream's terminator: `data: [DONE]`. */
export const AISDK_DONE = '[DONE]';

/** The header that marks a UI message stream response, and its version. */
export const AISDK_STREAM_HEADER = 'x-vercel-ai-ui-message-stream';
/** The protocol version agentwire writes in {@link AISDK_STREAM_HEADER}. */
export const AISDK_STREAM_VERSION = 'v1';

/** The headers of a UI message stream response (the `ai` package's `UI_MESSAGE_STREAM_HEADERS`). */
export const AISDK_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  // Spelled out, not `[AISDK_STREAM_HEADER]`: a computed key keeps the literal in every bundle
  // that imports wire.ts (a reader's too), where a plain one lets it drop when unused.
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};

/** The prefix of the `data-*` parts in which agentwire carries a canonical event whole. */
export const AISDK_DATA_PREFIX = 'data-agentwire.';

/** The `finishReason`s a `finish` chunk may carry. */
export const AISDK_FINISH_REASONS = [
  'stop',
  'length',
  'content-filter',
  'tool-calls',
  'error',
  'other',
] as const;

/** A canonical stop reason as a `finishReason` (the AI SDK's closed set). */
export function finishReasonOf(stopReason: string | undefined): string | undefined {
  if (stopReason === undefined) return undefined;
  if ((AISDK_FINISH_REASONS as readonly string[]).includes(stopReason)) return stopReason;
  if (/^(end_?turn|stop_?sequence|completed?|success)$/i.test(stopReason)) return 'stop';
  if (/^(max_?tokens|length|max_output_tokens)$/i.test(stopReason)) return 'length';
  if (/^(tool_?use|tool_?calls|toolUse)$/i.test(stopReason)) return 'tool-calls';
  if (/^(content_?filter|refusal|safety)$/i.test(stopReason)) return 'content-filter';
  return 'other';
}

/**
 * What the AI SDK decoder leaves in `provenance.hints` for the writer: the chunk's JSON text as
 * read, the chunk as parsed (the template an edited event's fields are put back into), and the
 * framing it came in.
 */
export interface AiSdkHints {
  /** The chunk's JSON text as read. */
  raw?: string;
  /** The chunk as parsed. */
  record?: unknown;
  /** The framing of the stream the chunk came in. */
  framing?: JsonFraming;
  /**
   * True on a carried event read as coming before its run (see `BEFORE_RUN`): the writer puts
   * its chunk back right after the run's `start`.
   */
  early?: boolean;
  /**
   * Chunks before this event's that have no event of their own (an `error` chunk restating an
   * error the run already said, written for its failed end), as read: the writer puts them back
   * before it.
   */
  before?: string[];
}

/** The key under `toolMetadata` and `providerMetadata` where agentwire keeps facts chunks have no field for. */
export const AISDK_META_KEY = 'agentwire';

/** `value.agentwire` of a `toolMetadata` or `providerMetadata` object, when it is an object. */
export function metaOf(value: unknown): JsonObject | undefined {
  if (!isJsonObject(value)) return undefined;
  const ours = value[AISDK_META_KEY];
  return isJsonObject(ours) ? ours : undefined;
}

// guards.ts's num: a count past a double's range is left out and its line warned of.
const count = num;

/**
 * Canonical usage from `messageMetadata.usage` in the AI SDK's `LanguageModelUsage` shape
 * (`inputTokens` counts the cache, `inputTokenDetails.cacheReadTokens` is its part; reasoning
 * is part of `outputTokens`), plus `costUsd` and `model` beside it when written.
 */
export function usageFromMetadata(metadata: unknown): Usage | undefined {
  if (!isJsonObject(metadata) || !isJsonObject(metadata.usage)) return undefined;
  const w = metadata.usage;
  const u: Usage = {};
  const inDetails = isJsonObject(w.inputTokenDetails) ? w.inputTokenDetails : {};
  const outDetails = isJsonObject(w.outputTokenDetails) ? w.outputTokenDetails : {};
  // In the order the usage's keys are set.
  putCount(u, 'input', count(w.inputTokens));
  putCount(u, 'output', count(w.outputTokens));
  putCount(u, 'cacheRead', count(inDetails.cacheReadTokens) ?? count(w.cachedInputTokens));
  putCount(u, 'cacheWrite', count(inDetails.cacheWriteTokens));
  putCount(u, 'reasoning', count(outDetails.reasoningTokens) ?? count(w.reasoningTokens));
  putCount(u, 'costUsd', count(metadata.costUsd));
  if (typeof metadata.model === 'string') u.model = metadata.model;
  return u;
}

function putCount(
  u: Usage,
  key: 'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'reasoning' | 'costUsd',
  n: number | undefined,
): void {
  if (n !== undefined) u[key] = n;
}

/** `messageMetadata` carrying canonical usage in the `LanguageModelUsage` shape. */
export function usageToMetadata(usage: Usage): JsonObject {
  const w: JsonObject = {};
  if (usage.input !== undefined) w.inputTokens = usage.input;
  if (usage.cacheRead !== undefined || usage.cacheWrite !== undefined) {
    const d: JsonObject = {};
    if (usage.input !== undefined)
      d.noCacheTokens = usage.input - (usage.cacheRead ?? 0) - (usage.cacheWrite ?? 0);
    if (usage.cacheRead !== undefined) d.cacheReadTokens = usage.cacheRead;
    if (usage.cacheWrite !== undefined) d.cacheWriteTokens = usage.cacheWrite;
    w.inputTokenDetails = d;
  }
  if (usage.output !== undefined) w.outputTokens = usage.output;
  if (usage.reasoning !== undefined) {
    const d: JsonObject = {};
    if (usage.output !== undefined) d.textTokens = usage.output - usage.reasoning;
    d.reasoningTokens = usage.reasoning;
    w.outputTokenDetails = d;
  }
  if (usage.input !== undefined && usage.output !== undefined) w.totalTokens = usage.input + usage.output;
  const m: JsonObject = { usage: w };
  if (usage.costUsd !== undefined) m.costUsd = usage.costUsd;
  if (usage.model !== undefined) m.model = usage.model;
  return m;
}

/**
 * The sniffing rule `detectFormat` calls with the first record (from a JSON line or an SSE
 * `data:` line): a UI message stream chunk type, with the fields that type has (so a generic
 * `{"type":"error"}` of another format is not taken for one).
 */
export function sniffAiSdk(record: JsonObject): Detection | undefined {
  const type = record.type;
  if (!isAiSdkChunkType(type)) return undefined;
  if (type === 'error' && typeof record.errorText !== 'string') return undefined;
  if (type === 'file' && typeof record.mediaType !== 'string') return undefined;
  if (type === 'custom' && typeof record.kind !== 'string') return undefined;
  const keys = Object.keys(record);
  if (type === 'start' && keys.some((k) => k !== 'type' && k !== 'messageId' && k !== 'messageMetadata'))
    return undefined;
  return {
    format: 'ai-sdk',
    confidence: type === 'start' ? 'certain' : 'likely',
    reason: `an AI SDK ${type} chunk`,
  };
}
