// Every byte rule of the GitHub Copilot CLI / SDK session event stream, in one place. Source:
// github/copilot-sdk:nodejs/src/generated/session-events.ts (generated from
// session-events.schema.json); docs/protocols/copilot.md cites the rest. No real capture was
// available: the rules below are the schema's, and the writer's key orders are documented choices.
// Approvals and questions: its `PermissionRequestedData` (`PermissionRequest*` by kind),
// `PermissionCompletedData` (`PermissionResult`: `PermissionApproved*`, `PermissionCancelled`,
// `PermissionDenied*`), `UserInputRequestedData` and `UserInputCompletedData` (both always
// ephemeral), read at github/copilot-sdk 01396124b646ec00b4380a67112d78d071df776f.

import type { Detection } from '../../detect';
import { type IsoClock, type IsoReader, readIso } from '../../iso';
import { isJsonObject, type JsonObject } from '../../json';

/**
 * Most characters the writer holds of one message for its `assistant.message` (which repeats the
 * deltas' text), and of the reasoning for its `reasoningText`. Past it a message's text so far is
 * written as an `assistant.message` of its own and the rest goes on under a new message id (a
 * `loss` on `text.delta.message`: a reader takes each for a message); reasoning past it is not
 * repeated (its deltas carry it). 1 Mi characters: far above any real message, and it keeps a
 * converted runaway stream's memory bounded (docs/limits.md).
 */
export const COPILOT_MAX_HELD_TEXT: number = 1024 * 1024;

/**
 * Most messages whose text the writer holds at once (each up to {@link COPILOT_MAX_HELD_TEXT}),
 * of any stream, Copilot's own included: the open one and those its events name while another is
 * open (interleaved lanes), whose end has not come. Past it the oldest but the open one is
 * written as its `assistant.message` before its end (a `loss` on `text.delta.message`: text that
 * follows under its id reads as another message). 16: more than the subagents that stream at
 * once, and it bounds what a stream whose messages never end holds (docs/limits.md).
 */
export const COPILOT_MAX_HELD_MESSAGES: number = 16;

/** Default `maxLineBytes` of the Copilot decoder: a tool result inside one event can be large. */
export const COPILOT_MAX_LINE_BYTES: number = 16 * 1024 * 1024;

/**
 * The envelope keys in the order the SDK emits them (`{id, parentId, timestamp, type, data,
 * agentId?, ephemeral?}`): what the writer produces for events built by hand or converted.
 */
export const COPILOT_ENVELOPE_KEYS: readonly string[] = [
  'id',
  'parentId',
  'timestamp',
  'type',
  'data',
  'agentId',
  'ephemeral',
];

/**
 * The key order of the on-disk log (`~/.copilot/session-state/<id>/events.jsonl`): `type, data,
 * id, timestamp, parentId`. A record that came in this order is written back in it.
 */
export const COPILOT_DISK_KEYS: readonly string[] = [
  'type',
  'data',
  'id',
  'timestamp',
  'parentId',
  'agentId',
  'ephemeral',
];

/** The record types this codec maps onto the model; every other type is kept as `unknown`. */
export const COPILOT_RECORD_TYPES = [
  'session.start',
  'session.idle',
  'session.error',
  'session.warning',
  'session.shutdown',
  'session.title_changed',
  'session.compaction_start',
  'session.compaction_complete',
  'user.message',
  'assistant.turn_start',
  'assistant.turn_end',
  'assistant.message_start',
  'assistant.message_delta',
  'assistant.message',
  'assistant.reasoning',
  'assistant.reasoning_delta',
  'assistant.usage',
  'tool.execution_start',
  'tool.execution_partial_result',
  'tool.execution_complete',
  'subagent.started',
  'subagent.completed',
  'subagent.failed',
  'abort',
  'permission.requested',
  'permission.completed',
  'user_input.requested',
  'user_input.completed',
] as const;

/** A record type this codec maps. */
export type CopilotRecordType = (typeof COPILOT_RECORD_TYPES)[number];

const KNOWN = /* @__PURE__ */ new Set<string>(COPILOT_RECORD_TYPES);

/** True for a record type this codec maps onto the model. */
export function isCopilotRecordType(type: unknown): type is CopilotRecordType {
  return typeof type === 'string' && KNOWN.has(type);
}

/** Types the schema marks `ephemeral: true` always (never persisted to the on-disk log). */
export const COPILOT_EPHEMERAL_TYPES: ReadonlySet<string> = new Set([
  'session.idle',
  'session.title_changed',
  'assistant.message_start',
  'assistant.message_delta',
  'assistant.reasoning_delta',
  'assistant.usage',
  'tool.execution_partial_result',
  'user_input.requested',
  'user_input.completed',
]);

/**
 * The `data` keys the writer puts first, in this order, for a record built from the model (the
 * schema lists fields alphabetically and fixes no order: these follow the order docs/protocols/copilot.md
 * and the SDK's examples name them). Fields a kept `data` template has are kept where they were.
 */
export const COPILOT_DATA_KEYS: Readonly<Record<CopilotRecordType, readonly string[]>> = {
  'session.start': [
    'sessionId',
    'version',
    'producer',
    'copilotVersion',
    'startTime',
    'selectedModel',
    'context',
  ],
  'session.idle': ['aborted'],
  'session.error': ['errorType', 'message', 'statusCode'],
  'session.warning': ['warningType', 'message'],
  'session.shutdown': [
    'shutdownType',
    'errorReason',
    'totalPremiumRequests',
    'totalApiDurationMs',
    'sessionStartTime',
    'codeChanges',
    'modelMetrics',
  ],
  'session.title_changed': ['title'],
  'session.compaction_start': ['trigger'],
  'session.compaction_complete': [
    'success',
    'trigger',
    'preCompactionTokens',
    'postCompactionTokens',
    'tokensRemoved',
  ],
  'user.message': ['content', 'delivery'],
  'assistant.turn_start': ['turnId', 'model'],
  'assistant.turn_end': ['turnId', 'model'],
  'assistant.message_start': ['messageId'],
  'assistant.message_delta': ['messageId', 'deltaContent'],
  'assistant.message': ['messageId', 'content', 'toolRequests', 'reasoningText'],
  'assistant.reasoning': ['reasoningId', 'content'],
  'assistant.reasoning_delta': ['reasoningId', 'deltaContent'],
  'assistant.usage': [
    'model',
    'inputTokens',
    'outputTokens',
    'cacheReadTokens',
    'cacheWriteTokens',
    'reasoningTokens',
    'apiCallId',
  ],
  'tool.execution_start': ['toolCallId', 'toolName', 'arguments', 'mcpServerName'],
  'tool.execution_partial_result': ['toolCallId', 'partialOutput'],
  'tool.execution_complete': ['toolCallId', 'success', 'result', 'error'],
  'subagent.started': ['toolCallId', 'agentName', 'agentDisplayName', 'agentDescription'],
  'subagent.completed': ['toolCallId', 'agentName', 'agentDisplayName', 'cancelled'],
  'subagent.failed': ['toolCallId', 'agentName', 'agentDisplayName', 'error'],
  abort: ['reason'],
  'permission.requested': ['requestId', 'permissionRequest'],
  'permission.completed': ['requestId', 'result'],
  'user_input.requested': ['requestId', 'question', 'choices', 'toolCallId'],
  'user_input.completed': ['requestId', 'answer'],
};

/**
 * Where `permission.requested.data.permissionRequest` (one shape per `kind`: `shell`, `write`,
 * `read`, `mcp`, `url`, `memory`, `custom-tool`, `hook`, …; session-events.ts
 * `PermissionRequest*`) keeps what an `approval.request` says: each model field is read from the
 * first of its keys the request has ({@link copilotSlot}; the kinds share none of them) and
 * written back there. One built from another format's request is a `custom-tool` one, the kind
 * any tool asks with (`toolCallId`, `toolName`, `toolDescription`, `args`: no place for effects).
 */
export const COPILOT_PERMISSION_SLOTS = {
  tool: ['toolName'],
  title: ['intention', 'toolTitle', 'hookMessage', 'description', 'toolDescription'],
  args: ['toolArgs', 'args'],
  effects: ['fullCommandText', 'fileName', 'path', 'url', 'fact'],
  call: ['toolCallId'],
} as const;

/**
 * The key of `keys` a permission request keeps a model field in: the first it has with a value of
 * the field's type (an object for `args`, else a string), `undefined` when it has none.
 */
export function copilotSlot(pr: JsonObject, keys: readonly string[], object = false): string | undefined {
  for (const k of keys) {
    const v = pr[k];
    if (object ? isJsonObject(v) : typeof v === 'string') return k;
  }
  return undefined;
}

/**
 * Who decided a `permission.completed` whose `result.kind` is a denial (session-events.ts
 * `PermissionDenied*`); an approval or a cancellation names no one.
 */
export const COPILOT_DENIED_BY: Readonly<Record<string, string>> = {
  'denied-interactively-by-user': 'user',
  'denied-by-rules': 'policy',
  'denied-by-content-exclusion-policy': 'policy',
  'denied-no-approval-rule-and-could-not-request-from-user': 'policy',
  'denied-by-permission-request-hook': 'hook',
};

/**
 * The model's `approval.resolve.decision` for a `permission.completed` `result.kind`: the
 * `approved*` kinds allow, the `denied-*` ones deny, `cancelled` cancels; another kind is kept as
 * the format's own word.
 */
export function copilotDecision(kind: string): string {
  if (kind.startsWith('approved')) return 'allow';
  if (kind.startsWith('denied')) return 'deny';
  return kind === 'cancelled' ? 'cancel' : kind;
}

/**
 * An `assistant.message_delta` line in the SDK's envelope order, as the writer writes it for an
 * event built from the model (most lines of a stream): `{"id":"…","parentId":"…"|null,
 * "timestamp":"…","type":"assistant.message_delta","data":{"messageId":"…","deltaContent":"…"},
 * "ephemeral":true}` (the `ephemeral` member may be absent). The decoder reads exactly this
 * spelling without `JSON.parse` of the record.
 */
export const COPILOT_DELTA_LINE = {
  // The envelope before the type (id, parent id, timestamp) is read by COPILOT_DELTA_HEAD.
  /** After the timestamp, up to the message id's first character. */
  type: '","type":"assistant.message_delta","data":{"messageId":"',
  /** After the message id, up to the delta's opening quote. */
  delta: '","deltaContent":',
  /** The end of a line after the delta's closing quote, with `ephemeral: true`. */
  tail: '},"ephemeral":true}',
  /** The end of a line after the delta's closing quote, without `ephemeral`. */
  bareTail: '}}',
} as const;

/**
 * The decoder's reading of {@link COPILOT_DELTA_LINE} up to the delta's opening quote: the id,
 * the parent id (no capture for `null`), the timestamp and the message id, each a string without
 * escapes or control characters (so the text between its quotes is its value).
 */
export const COPILOT_DELTA_HEAD: RegExp =
  /^\{"id":"([^"\\\u0000-\u001f]*)","parentId":(?:null|"([^"\\\u0000-\u001f]*)"),"timestamp":"([^"\\\u0000-\u001f]*)","type":"assistant\.message_delta","data":\{"messageId":"([^"\\\u0000-\u001f]*)","deltaContent":(?=")/;

/**
 * The decoder's reading of any canonical line's envelope, up to the quote of its data's first
 * key: {@link COPILOT_DELTA_HEAD}'s envelope (the same text up to the type's name, the same
 * captures), then the type's name, a string without escapes or control characters. An envelope
 * that needs an escape is not matched: the decoder leaves that line to `JSON.parse`. Both are
 * spelled as literals (a literal is what a bundler drops where it is unused) and held to one
 * envelope by test/copilot/canonical-lines.test.ts.
 */
export const COPILOT_CANONICAL_HEAD: RegExp =
  /^\{"id":"([^"\\\u0000-\u001f]*)","parentId":(?:null|"([^"\\\u0000-\u001f]*)"),"timestamp":"([^"\\\u0000-\u001f]*)","type":"([^"\\\u0000-\u001f]*)","data":\{"/;

/** The `data` of `session.shutdown.modelMetrics[model].usage`, in the writer's order. */
export const COPILOT_METRIC_USAGE_KEYS: readonly string[] = [
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'reasoningTokens',
];

/**
 * What the decoder leaves in `provenance.hints` for the writer (the writer never imports the
 * decoder; this is the whole contract). Every event decoded from a record carries them; the
 * envelope's parts are read from `record` with {@link copilotEnvelope}.
 */
export interface CopilotHints {
  /** The line as it came: written back while the events still say what they said. */
  raw?: string;
  /** The record as decoded: its `data` is the template a rewritten record keeps its fields from. */
  record?: JsonObject;
}

/** A kept record's envelope, as the writer and the checker read it. */
export interface CopilotEnvelope {
  /** The record type (several types map to one event type). */
  type: string;
  data: JsonObject;
  id: string;
  /** `null` for the first event of a session. */
  parentId: string | null;
  /** ISO 8601, as written (precision beyond ms stays here). */
  timestamp: string;
  /** `ephemeral`, when present. */
  ephemeral: unknown;
  /** `disk` when the keys came in the on-disk order (`type` first). */
  layout: 'sdk' | 'disk';
  /** Envelope fields of the record's own, in their order (`undefined` when there are none). */
  extra: JsonObject | undefined;
}

const ENVELOPE = /* @__PURE__ */ new Set(COPILOT_ENVELOPE_KEYS);

/**
 * Whether a kept record has a valid envelope: a string type, id and timestamp, and an object
 * `data` (what {@link copilotEnvelope} requires). The checker reads such a record's parts in place:
 * the envelope's copy, its own fields and its layout are the writer's, and a reader's bundle that
 * holds no writer holds none of them (issue #16).
 */
export function isCopilotEnvelope(
  r: JsonObject | undefined,
): r is JsonObject & { type: string; id: string; timestamp: string; data: JsonObject } {
  return (
    r !== undefined &&
    typeof r.type === 'string' &&
    typeof r.id === 'string' &&
    typeof r.timestamp === 'string' &&
    typeof r.data === 'object' &&
    r.data !== null
  );
}

/** The envelope of a record the decoder kept, or `undefined` when it is not a valid one. */
export function copilotEnvelope(r: JsonObject | undefined): CopilotEnvelope | undefined {
  if (!isCopilotEnvelope(r)) return undefined;
  const keys = Object.keys(r);
  let extra: JsonObject | undefined;
  for (const k of keys) {
    if (ENVELOPE.has(k)) continue;
    extra ??= {};
    Object.defineProperty(extra, k, { value: r[k], enumerable: true, writable: true, configurable: true });
  }
  return {
    type: r.type,
    data: r.data,
    id: r.id,
    parentId: typeof r.parentId === 'string' ? r.parentId : null,
    timestamp: r.timestamp,
    ephemeral: r.ephemeral,
    layout: keys[0] === 'type' ? 'disk' : 'sdk',
    extra,
  };
}

/**
 * `copilotEnvelope(r)?.data` without building the envelope: the writer reads a kept record's
 * `data` for every event decoded from Copilot, and its envelope only where it writes one.
 */
export function copilotData(r: JsonObject | undefined): JsonObject | undefined {
  return isCopilotEnvelope(r) ? r.data : undefined;
}

/**
 * The rule `detectFormat` applies: a session event envelope (`id`, `parentId`, `timestamp`, a
 * dotted `type`, an object `data`) is Copilot; a `session.start` whose data names `copilotVersion`
 * or `producer` is certain. Nothing else here looks like it (Claude-style records have no `data`).
 */
export function sniffCopilot(r: JsonObject): Detection | undefined {
  if (typeof r.type !== 'string' || typeof r.id !== 'string' || !('parentId' in r)) return undefined;
  if (typeof r.timestamp !== 'string' || typeof r.data !== 'object' || r.data === null) return undefined;
  const data = r.data as JsonObject;
  if (
    r.type === 'session.start' &&
    (typeof data.copilotVersion === 'string' || typeof data.producer === 'string')
  ) {
    return { format: 'copilot', confidence: 'certain', reason: 'a Copilot session.start' };
  }
  if (!r.type.includes('.') && r.type !== 'abort') return undefined;
  return { format: 'copilot', confidence: 'likely', reason: `a session event envelope (${r.type})` };
}

/**
 * ms since the epoch of an envelope's `timestamp` (ISO 8601; the SDK writes `toISOString`'s
 * form, read without `Date.parse` by `reader`), `undefined` when it names no time.
 */
export function copilotTimestampMs(reader: IsoReader, text: string): number | undefined {
  return orDateParse(reader.read(text), text);
}

/** {@link copilotTimestampMs} over an {@link IsoClock} literal (the decoder's). */
export function copilotTimestampAt(clock: IsoClock, text: string): number | undefined {
  return orDateParse(readIso(clock, text), text);
}

// What `readIso` read, else what `Date.parse` makes of a timestamp in another form.
function orDateParse(ms: number, text: string): number | undefined {
  if (!Number.isNaN(ms)) return ms;
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? undefined : parsed;
}
