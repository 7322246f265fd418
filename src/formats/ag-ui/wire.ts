// Every byte rule of AG-UI 1.0 (`@ag-ui/core` events): one JSON object per event, framed as
// server-sent events (`data: {json}\n\n`, what `@ag-ui/encoder` writes) or as JSON Lines. Event
// types are SCREAMING_SNAKE names; ids are strings; `timestamp` is integer milliseconds.

import type { Detection } from '../../detect';
import type { JsonFraming } from '../../framing/json-stream';
import { isFiniteNumber, nonFiniteSeen, wordLookup } from '../../guards';
import {
  assertFiniteNumber,
  contentPartsText,
  isJsonObject,
  type JsonObject,
  jsonString,
  setOwn,
} from '../../json';
import type { Usage } from '../../model';

/** Every event type AG-UI 1.0 defines. */
export const AGUI_EVENT_TYPES = [
  'TEXT_MESSAGE_START',
  'TEXT_MESSAGE_CONTENT',
  'TEXT_MESSAGE_END',
  'TEXT_MESSAGE_CHUNK',
  'TOOL_CALL_START',
  'TOOL_CALL_ARGS',
  'TOOL_CALL_END',
  'TOOL_CALL_CHUNK',
  'TOOL_CALL_RESULT',
  'STATE_SNAPSHOT',
  'STATE_DELTA',
  'MESSAGES_SNAPSHOT',
  'ACTIVITY_SNAPSHOT',
  'ACTIVITY_DELTA',
  'RAW',
  'CUSTOM',
  'RUN_STARTED',
  'RUN_FINISHED',
  'RUN_ERROR',
  'STEP_STARTED',
  'STEP_FINISHED',
  'REASONING_START',
  'REASONING_MESSAGE_START',
  'REASONING_MESSAGE_CONTENT',
  'REASONING_MESSAGE_END',
  'REASONING_MESSAGE_CHUNK',
  'REASONING_END',
  'REASONING_ENCRYPTED_VALUE',
  'SUBAGENT_STARTED',
  'SUBAGENT_FINISHED',
  'SUBAGENT_ERROR',
] as const;

/** One of {@link AGUI_EVENT_TYPES}. */
export type AguiEventType = (typeof AGUI_EVENT_TYPES)[number];

const TYPES: ReadonlySet<string> = /* @__PURE__ */ new Set(AGUI_EVENT_TYPES);

/** True for an event type AG-UI 1.0 defines. */
export function isAguiEventType(type: unknown): type is AguiEventType {
  return typeof type === 'string' && TYPES.has(type);
}

/**
 * The event type a parsed `type` names, as the literal of {@link AGUI_EVENT_TYPES} (the decoder's
 * later `switch` and table lookups then match it by identity), or `undefined` for any other value.
 */
export const aguiEventType: (type: unknown) => AguiEventType | undefined =
  /* @__PURE__ */ wordLookup(AGUI_EVENT_TYPES);

/**
 * How a text delta record begins as agentwire writes it (and as `@ag-ui/encoder` serialises a
 * `TextMessageContentEvent`): the decoder reads such a record without parsing it whole.
 */
export const AGUI_DELTA_HEAD = '{"type":"TEXT_MESSAGE_CONTENT","messageId":"';

/**
 * The fixed text of the other frequent records as agentwire writes them, read by the decoder
 * without parsing them whole (its canonical-line readers): a carried tool output
 * (`{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":"…","text":"…"}}`) and a
 * tool result (`{"type":"TOOL_CALL_RESULT","messageId":"…","toolCallId":"…","content":"…",
 * "role":"tool"}`, or with the metadata of a failed call, `{"agentwire":{"ok":false}}`); and the
 * short records of a step, a message and a call: `{"type":"STEP_STARTED","stepName":"…"}`,
 * `{"type":"TEXT_MESSAGE_START","messageId":"…","role":"assistant"}`,
 * `{"type":"TEXT_MESSAGE_END","messageId":"…"}`,
 * `{"type":"TOOL_CALL_START","toolCallId":"…","toolCallName":"…"}`,
 * `{"type":"TOOL_CALL_ARGS","toolCallId":"…","delta":"…"}` and `{"type":"TOOL_CALL_END",
 * "toolCallId":"…"}`, bare or with the metadata `{"agentwire":{"argsSummary":"…"}}`; a round's
 * end with its stop reason, one usage entry of input, output and total tokens, and its cost or
 * none (`{"type":"STEP_FINISHED","stepName":"…","metadata":{"agentwire":{"stopReason":"…",
 * "usage":[{"inputTokens":1,"outputTokens":2,"totalTokens":3}],"costUsd":0.5}}}`). Each piece is a
 * constant of its own, not a key of one object: a minified bundle names a constant by a letter,
 * where it spells an object's keys at every read.
 */
export const C_CARRIED_HEAD = '{"type":"CUSTOM","name":"agentwire.tool.output","value":{"call":';
/** A carried tool output's key before its text. */
export const C_CARRIED_TEXT = ',"text":';
/** A tool result's head, up to its message id. */
export const C_RESULT_HEAD = '{"type":"TOOL_CALL_RESULT","messageId":';
/** A tool result's key before its call id. */
export const C_RESULT_CALL = ',"toolCallId":';
/** A tool result's key before its content. */
export const C_RESULT_CONTENT = ',"content":';
/** A tool result's tail: its role. */
export const C_RESULT_TAIL = ',"role":"tool"}';
/** A failed call's result's tail: its role and `ok: false`. */
export const C_RESULT_FAILED_TAIL = ',"role":"tool","metadata":{"agentwire":{"ok":false}}}';
/** A step start's head, up to its name. */
export const C_STEP_START_HEAD = '{"type":"STEP_STARTED","stepName":';
/** A message start's head, up to its id. */
export const C_MESSAGE_START_HEAD = '{"type":"TEXT_MESSAGE_START","messageId":';
/** A message start's tail: the assistant's role. */
export const C_MESSAGE_START_TAIL = ',"role":"assistant"}';
/** A message end's head, up to its id. */
export const C_MESSAGE_END_HEAD = '{"type":"TEXT_MESSAGE_END","messageId":';
/** A call start's head, up to its call id. */
export const C_CALL_START_HEAD = '{"type":"TOOL_CALL_START","toolCallId":';
/** A call start's key before its tool name. */
export const C_CALL_START_NAME = ',"toolCallName":';
/** A call's argument chunk's head, up to its call id. */
export const C_CALL_ARGS_HEAD = '{"type":"TOOL_CALL_ARGS","toolCallId":';
/** A call's argument chunk's key before its text. */
export const C_CALL_ARGS_DELTA = ',"delta":';
/** A call end's head, up to its call id. */
export const C_CALL_END_HEAD = '{"type":"TOOL_CALL_END","toolCallId":';
/** A call end's metadata, up to its arguments' summary. */
export const C_CALL_END_SUMMARY = ',"metadata":{"agentwire":{"argsSummary":';
/** A step end's head, up to its name. */
export const C_STEP_END_HEAD = '{"type":"STEP_FINISHED","stepName":';
/** A step end's metadata, up to its stop reason. */
export const C_STEP_END_REASON = ',"metadata":{"agentwire":{"stopReason":';
/** A step end's usage entry, up to its input tokens. */
export const C_STEP_END_INPUT = ',"usage":[{"inputTokens":';
/** A step end's usage key before its output tokens. */
export const C_STEP_END_OUTPUT = ',"outputTokens":';
/** A step end's usage key before its total tokens. */
export const C_STEP_END_TOTAL = ',"totalTokens":';
/** The end of a step end's usage entry and list. */
export const C_STEP_END_USAGE_END = '}]';
/** A step end's key before its cost. */
export const C_STEP_END_COST = ',"costUsd":';

/** The protocol version agentwire writes and reads (`PROTOCOL_VERSION` of `@ag-ui/core`). */
export const AGUI_PROTOCOL_VERSION = '1.0';

/**
 * The key under an event's `metadata` where agentwire keeps canonical facts AG-UI has no field
 * for (a round's usage, a tool call's kind, a failed call's error). The protocol reserves `ag-ui`
 * only; any other key is open.
 */
export const AGUI_META_KEY = 'agentwire';

/**
 * Most characters of a run's text the writer holds to tell whether the run's answer only repeats
 * it (then `RUN_FINISHED` carries no `result`). Past it nothing is held and an answer is written
 * as `result` whatever it says: more bytes, nothing lost. 1 Mi characters: far above any real
 * run, and it keeps a converted runaway stream's memory bounded (docs/limits.md).
 */
export const AGUI_MAX_HELD_TEXT: number = 1024 * 1024;

/**
 * Most characters of a call's arguments text the decoder gathers from its `TOOL_CALL_ARGS`
 * (past it the text stops growing and reads as no arguments); the writer counts as it does.
 */
export const AGUI_MAX_ARGS_CHARS: number = 16 * 1024 * 1024;

/** The interrupt `reason` agentwire writes for an approval. */
export const AGUI_APPROVAL_REASON = 'human_approval';
/** The interrupt `reason` agentwire writes for questions to the user. */
export const AGUI_QUESTION_REASON = 'user_input';

/** The `stepName` agentwire writes for a round: `round N`. */
export function stepNameOf(round: number): string {
  // `round NaN` would be valid JSON and no round: refused, as writers refuse what they cannot write.
  assertFiniteNumber(round, 'round', 'ag-ui');
  return `round ${round}`;
}

/**
 * The round a `stepName` written by {@link stepNameOf} names, or `undefined` for any other name
 * (such a step takes the next number in the run).
 */
export function roundOfStepName(name: unknown): number | undefined {
  return typeof name === 'string' && /^round (?:0|[1-9]\d{0,14})$/.test(name)
    ? Number(name.slice(6))
    : undefined;
}

/**
 * What the AG-UI decoder leaves in `provenance.hints` for the writer: the event's JSON text as
 * read, the record as parsed (the template the writer puts an edited event's fields back into),
 * the framing it came in, and `part` on events derived from a record another event writes
 * (interrupts of a `RUN_FINISHED`, resume entries of a `RUN_STARTED`).
 */
export interface AguiHints {
  /** The event's JSON text as read. */
  raw?: string;
  /** The record as parsed. */
  record?: unknown;
  /** The framing of the stream the record came in. */
  framing?: JsonFraming;
  /** True on an event derived from part of a record another event of the same line writes. */
  part?: boolean;
  /**
   * Records before this event's that have no event of their own (a step the run's end closed,
   * marked `metadata.agentwire.closing`), as read: the writer puts them back before it.
   */
  before?: string[];
  /**
   * True on a carried event read as coming before its run (see `BEFORE_RUN`): the writer puts
   * its record back right after the run's opening record.
   */
  early?: boolean;
}

function count(v: unknown): number | undefined {
  if (typeof v !== 'number') return undefined;
  if (Number.isSafeInteger(v) && v >= 0) return v;
  // A count past a double's range is counted, so its line gets a warning (guards.ts).
  return Number.isFinite(v) ? undefined : nonFiniteSeen();
}

function add(u: Usage, key: 'input' | 'output' | 'reasoning' | 'cacheRead' | 'cacheWrite', v: unknown): void {
  const n = count(v);
  if (n !== undefined) u[key] = (u[key] ?? 0) + n;
}

/**
 * A round's usage when its `usage` array is one entry of input and output tokens (a total or
 * nothing else) and its cost, if any, a number: {@link usageFromWire}'s object with the cost last
 * (where the decoder puts it), built whole in one literal. `usageFromWire` builds it field by
 * field, and those fields' hidden classes die at a full GC with the optimised code that stored
 * into them (docs/performance.md, "AG-UI and AI SDK codecs", round fourteen). Undefined
 * otherwise: the general path reads it (test/ui/whole-events.test.ts holds the two equal).
 */
export function wholeRoundUsage(usage: unknown, cost: unknown): Usage | undefined {
  if (!Array.isArray(usage) || usage.length !== 1) return undefined;
  const entry: unknown = usage[0];
  if (!isJsonObject(entry)) return undefined;
  const input = count(entry.inputTokens);
  const output = count(entry.outputTokens);
  if (
    input === undefined ||
    output === undefined ||
    entry.reasoningTokens !== undefined ||
    entry.cachedInputTokens !== undefined ||
    entry.cacheWriteInputTokens !== undefined ||
    entry.model !== undefined
  )
    return undefined;
  return isFiniteNumber(cost) ? { input, output, costUsd: cost } : { input, output };
}

/**
 * Canonical usage from a `usage` array of `TokenUsage` (one entry per provider and model). AG-UI's
 * accounting is the model's own: `inputTokens` counts the cached part, `outputTokens` the
 * reasoning. Several entries are summed, each kept in `byModel` under its model.
 */
export function usageFromWire(usage: unknown): Usage | undefined {
  if (!Array.isArray(usage) || usage.length === 0) return undefined;
  const u: Usage = {};
  const byModel: NonNullable<Usage['byModel']> = {};
  let models = 0;
  for (const entry of usage) {
    if (!isJsonObject(entry)) continue;
    add(u, 'input', entry.inputTokens);
    add(u, 'output', entry.outputTokens);
    add(u, 'reasoning', entry.reasoningTokens);
    add(u, 'cacheRead', entry.cachedInputTokens);
    add(u, 'cacheWrite', entry.cacheWriteInputTokens);
    if (typeof entry.model === 'string') {
      const m: Usage = {};
      add(m, 'input', entry.inputTokens);
      add(m, 'output', entry.outputTokens);
      add(m, 'reasoning', entry.reasoningTokens);
      add(m, 'cacheRead', entry.cachedInputTokens);
      add(m, 'cacheWrite', entry.cacheWriteInputTokens);
      // Own, also under a model named `__proto__` (an assignment would set byModel's prototype).
      setOwn(byModel as JsonObject, entry.model, m);
      models++;
    }
  }
  if (models === 1 && usage.length === 1) u.model = Object.keys(byModel)[0]!;
  else if (models > 0) u.byModel = byModel;
  return u;
}

/** A `TokenUsage` entry: one literal of every key, a count not given `undefined` (left out as JSON). */
function tokenUsage(u: Usage, model: string | undefined): JsonObject {
  const { input, output } = u;
  return {
    model,
    inputTokens: input,
    outputTokens: output,
    totalTokens: input !== undefined && output !== undefined ? input + output : undefined,
    reasoningTokens: u.reasoning,
    cachedInputTokens: u.cacheRead,
    cacheWriteInputTokens: u.cacheWrite,
  };
}

/**
 * The JSON text of {@link usageToWire}'s array when it is one entry of plain values (no
 * `byModel`; a string `model` or none; every count whole and non-negative), spelled without the
 * entry object: a writer's round end is frequent, and the entry grown field by field has hidden
 * classes that die at each full GC with the code that built them. `undefined` for anything else
 * (the caller builds the array). Held to `JSON.stringify(usageToWire(usage))` by
 * test/ui/writer-shortcuts.test.ts.
 */
export function usageEntryJson(u: Usage): string | undefined {
  const model = u.model;
  if (u.byModel !== undefined || (model !== undefined && typeof model !== 'string')) return undefined;
  const input = u.input;
  const output = u.output;
  const reasoning = u.reasoning;
  const cacheRead = u.cacheRead;
  const cacheWrite = u.cacheWrite;
  if (
    (input !== undefined && count(input) === undefined) ||
    (output !== undefined && count(output) === undefined) ||
    (reasoning !== undefined && count(reasoning) === undefined) ||
    (cacheRead !== undefined && count(cacheRead) === undefined) ||
    (cacheWrite !== undefined && count(cacheWrite) === undefined)
  )
    return undefined;
  // tokenUsage's keys in its order; a finite number's JSON is its string.
  let json = '';
  if (model !== undefined) json += `,"model":${jsonString(model)}`;
  if (input !== undefined) json += `,"inputTokens":${input}`;
  if (output !== undefined) json += `,"outputTokens":${output}`;
  if (input !== undefined && output !== undefined) json += `,"totalTokens":${input + output}`;
  if (reasoning !== undefined) json += `,"reasoningTokens":${reasoning}`;
  if (cacheRead !== undefined) json += `,"cachedInputTokens":${cacheRead}`;
  if (cacheWrite !== undefined) json += `,"cacheWriteInputTokens":${cacheWrite}`;
  return json === '' ? '[{}]' : `[{${json.slice(1)}}]`;
}

/** Only whole, non-negative token counts fit `TokenUsage`: a usage with anything else has no array. */
function fits(u: Usage): boolean {
  for (const k of ['input', 'output', 'reasoning', 'cacheRead', 'cacheWrite'] as const) {
    const v = u[k];
    if (v !== undefined && count(v) === undefined) return false;
  }
  return true;
}

/** A `usage` array from canonical usage: one entry per model of `byModel`, else one entry. */
export function usageToWire(usage: Usage): JsonObject[] | undefined {
  const byModel = usage.byModel;
  if (byModel !== undefined) {
    const models = Object.keys(byModel);
    if (!models.every((m) => fits(byModel[m]!))) return undefined;
    return models.map((m) => tokenUsage(byModel[m]!, m));
  }
  return fits(usage) ? [tokenUsage(usage, usage.model)] : undefined;
}

/** `metadata.agentwire` of a record, when it is an object. */
export function metaOf(record: JsonObject): JsonObject | undefined {
  const meta = record.metadata;
  if (!isJsonObject(meta)) return undefined;
  const ours = meta[AGUI_META_KEY];
  return isJsonObject(ours) ? ours : undefined;
}

/**
 * The sniffing rule `detectFormat` calls with the first record (from a JSON line or an SSE
 * `data:` line): a `type` AG-UI defines (SCREAMING_SNAKE, unlike every other format here).
 */
export function sniffAgui(record: JsonObject): Detection | undefined {
  if (!isAguiEventType(record.type)) return undefined;
  const certain = record.type === 'RUN_STARTED' && typeof record.threadId === 'string';
  return {
    format: 'ag-ui',
    confidence: certain ? 'certain' : 'likely',
    reason: `an AG-UI ${record.type} event`,
  };
}

/** Where the last user message of `messages` is, `-1` for none. */
function lastUser(messages: unknown[]): number {
  let i = messages.length - 1;
  while (i >= 0 && !(isJsonObject(messages[i]) && (messages[i] as JsonObject).role === 'user')) i--;
  return i;
}

/** The content of the last user message of a `RunAgentInput`, when it is text. */
export function lastUserText(input: unknown): string | undefined {
  if (!isJsonObject(input) || !Array.isArray(input.messages)) return undefined;
  const i = lastUser(input.messages);
  return i < 0 ? undefined : contentPartsText((input.messages[i] as JsonObject).content);
}

/**
 * `input` with the content of its last user message (one added at the end when it has none) made
 * `text`: where a run start's edited input goes back into its kept `RunAgentInput`. Copies what
 * it changes (the kept record's objects are never changed).
 */
export function withLastUserText(input: JsonObject, text: string, id: () => string): JsonObject {
  const messages = Array.isArray(input.messages) ? input.messages.slice() : [];
  const i = lastUser(messages);
  if (i < 0) messages.push({ id: id(), role: 'user', content: text });
  else messages[i] = { ...(messages[i] as JsonObject), content: text };
  return { ...input, messages };
}

/**
 * `input` without its last user message: where a run start's deleted input goes back into its
 * kept `RunAgentInput` (the rest of it, resume entries among it, stays). Copies what it changes.
 */
export function withoutLastUser(input: JsonObject): JsonObject {
  const messages = Array.isArray(input.messages) ? input.messages.slice() : [];
  const i = lastUser(messages);
  if (i >= 0) messages.splice(i, 1);
  return { ...input, messages };
}
