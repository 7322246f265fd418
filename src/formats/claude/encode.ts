import { ownString, setBounded, setBoundedOwn, sharedString } from '../../bounded';
import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import {
  assertEncodable,
  assertNumber,
  assertText,
  encodeJson,
  encodeJsonText,
  isJsonObject,
  type JsonObject,
  parseJsonObject,
  plainRunEnd,
  readStringToken,
  requireObject,
  requireText,
  sameJson,
  setOwn,
  stringTokenEnd,
} from '../../json';
import { LossReporter } from '../../loss';
import type { AgentEvent, AgentEventOf, Usage } from '../../model';
import { addUsage, assertByModelFigures, assertUsageNumbers } from '../../usage';
import {
  byModelFromClaude,
  byModelIntoClaude,
  byModelToClaude,
  CLAUDE_CHECKED,
  CLAUDE_FORMAT,
  CLAUDE_MAX_HELD_OUTPUT,
  CLAUDE_MAX_HELD_TEXT,
  CLAUDE_MAX_HELD_UNNUMBERED,
  CLAUDE_SESSION_STATE,
  type ClaudeHints,
  RESULT_SUBTYPES,
  SYNTHETIC_MODEL,
  usageFromClaude,
  usageIntoClaude,
  usageSaid,
  usageToClaude,
} from './wire';

/** Options of the Claude writer. */
export interface ClaudeEncodeOptions extends EncodeOptions {
  /**
   * Makes the ids events do not carry (`uuid`, message ids, a `session_id` when no event has a
   * session). Default `crypto.randomUUID`; inject one for deterministic output.
   */
  idSource?: () => string;
  /** `session_id` for events without `session`. */
  session?: string;
}

const FORMAT = CLAUDE_FORMAT;
// What Claude Code writes as the result of a call the user interrupted.
const INTERRUPTED = '[Request interrupted by user for tool use]';
const ENVELOPE = ['session', 'lane', 'round'] as const;

// What each event type carries into a Claude record (the rest is reported as a loss).
const CARRIED: Readonly<Partial<Record<AgentEvent['type'], readonly string[]>>> = {
  'session.start': [...ENVELOPE, 'producer', 'model', 'cwd', 'mode', 'tools'],
  'run.start': [...ENVELOPE, 'input'],
  'run.end': [...ENVELOPE, 'status', 'reason', 'error', 'durationMs', 'answer', 'stopReason', 'usage'],
  'round.start': [...ENVELOPE, 'model'],
  'round.end': [...ENVELOPE, 'message', 'stopReason', 'usage', 'model'],
  'message.start': [...ENVELOPE, 'role', 'message', 'model'],
  'message.end': [...ENVELOPE, 'message'],
  'text.delta': [...ENVELOPE, 'text', 'message'],
  'reasoning.delta': [...ENVELOPE, 'text', 'message', 'signature', 'redacted'],
  'user.message': [...ENVELOPE, 'text', 'synthetic'],
  status: [...ENVELOPE, 'status'],
  'tool.start': [...ENVELOPE, 'call', 'name', 'args'],
  'tool.args.delta': [...ENVELOPE, 'call', 'name', 'text'],
  'tool.output': [...ENVELOPE, 'call', 'text', 'stream'],
  'tool.liveness': [...ENVELOPE, 'call', 'name', 'action', 'elapsedMs'],
  'tool.end': [...ENVELOPE, 'call', 'name', 'ok', 'text', 'result', 'error', 'denied'],
  'approval.request': [...ENVELOPE, 'approval', 'call', 'tool', 'title', 'args'],
  question: [...ENVELOPE, 'question', 'questions', 'call'],
  notice: [...ENVELOPE, 'kind', 'message', 'severity', 'data'],
  usage: [...ENVELOPE, 'usage'],
  'child.start': [...ENVELOPE, 'child', 'name', 'task', 'call', 'background', 'kind'],
  'child.progress': [...ENVELOPE, 'child', 'detail'],
  'child.end': [...ENVELOPE, 'child', 'status', 'result'],
  'compaction.start': [...ENVELOPE],
  'compaction.end': [...ENVELOPE, 'tokensFreed', 'trigger', 'tokensBefore', 'tokensAfter'],
  error: [...ENVELOPE, 'message', 'code', 'fatal'],
};

// Events whose lines a Claude reader takes outside a run as they are (no `init` before them):
// written where they stand. Everything else outside a run waits for the next one.
const OUTSIDE_RUN: ReadonlySet<string> = new Set([
  'session.start',
  'status',
  'notice',
  'compaction.start',
  'compaction.end',
]);
/** Most events kept waiting for a run; more are reported lost. */
const MAX_HELD = 1024;
/** What a `tool_use` block counts towards CLAUDE_MAX_HELD_TEXT (its input is not measured). */
const TOOL_USE_HELD = 128;

function isEmptyText(block: Block): boolean {
  return block.type === 'text' && block.text === '';
}

type Block = JsonObject & { type: string };

/** An assistant message being assembled from events: one line per block when it is written. */
interface Message {
  id: string;
  model: string;
  lane: string | undefined;
  blocks: Block[];
  usage?: JsonObject;
  /** The usage written on its lines, as the model says it (summed into the run's `result`). */
  said?: Usage;
  stop: string | null;
  done: boolean;
  /** Some of its blocks were written before it ended (CLAUDE_MAX_HELD_TEXT). */
  ahead?: boolean;
  /** Characters of text and thinking its blocks hold (CLAUDE_MAX_HELD_TEXT). */
  held?: number;
}

/** The events one line gave, waiting for the last of them (see `ClaudeHints`). */
interface Group {
  raw: string;
  n: number;
  before: string[] | undefined;
  line: number;
  offset: number;
  events: AgentEvent[];
  // What the checks read from the line, once for all its events (`undefined`: not yet). Every
  // group has each key from the start: one shape, whichever of them its events read.
  /** `raw` parsed, when a value was not found in it as spelled (see `onLine`). */
  record: JsonObject | undefined;
  /** The line's `session_id` (`null`: it has none). */
  session: string | null | undefined;
  /** Where `lineSession` found the `session_id` key (-1: nowhere). */
  sessionAt: number;
  /** Whether the line is a subagent's (`lineLane`). */
  lane: boolean | undefined;
  /** Its events whose fields that are not text the line says otherwise (`structuredOtherwise`). */
  restated: AgentEvent[] | undefined;
  /** The line's record with an edited usage it repeats written in (`repeatsEdit`). */
  patched: JsonObject | undefined;
}

function defaultId(): string {
  return globalThis.crypto.randomUUID();
}

// ---------------------------------------------------------------------------------------------
// Putting a line back: as written while its events say the same, patched where they do not

/** What writing a kept line takes: nothing (as written), a patch, or the event rebuilt. */
type Edit = 'none' | 'patch' | 'rebuild';

// String fields an event does not read as written from its own line (from an earlier line, or
// mapped from a value the line spells otherwise): not looked for in it. An edit of one of these is
// put back as the line says; the event without its line does not write it either (no Claude entry
// in test/edits-kept.known.json). Those its line does say otherwise are compared in `editOf`.
const NOT_ON_LINE: Readonly<Partial<Record<AgentEvent['type'], readonly string[]>>> = {
  'tool.end': ['name'],
  'tool.args.delta': ['call', 'name'],
  'tool.liveness': ['action'],
  'message.end': ['message'],
  'approval.request': ['session'],
  'child.start': ['lane'],
  'child.end': ['lane'],
  notice: ['kind', 'severity'],
  unknown: ['recordType', 'session'],
};
// String fields read as part of a string of the line (an error's text inside its tags).
const PART_OF_LINE: Readonly<Partial<Record<AgentEvent['type'], readonly string[]>>> = {
  'tool.start': ['server'],
};

// Whether a field's value is one the line says: the JSON string looked for in the line (cheap,
// exact for the CLI's own spelling), then, only when missing, in the parsed record (a line spelled
// otherwise: `\u` or `\/` escapes). A value the line does not hold was edited.
function onLine(group: Group, value: string, part: boolean): boolean {
  const json = JSON.stringify(value);
  if (group.raw.includes(part ? json.slice(1, -1) : json)) return true;
  group.record ??= parseJsonObject(group.raw);
  return group.record !== undefined && holds(group.record, value, part);
}

// The line's `session_id`, read once per line and from its end: the CLI writes it after the
// message, so a search from the start would read the whole content for every event of the line
// (the writer's cost, docs/performance.md). A nested `"session_id":"` (a structured tool result
// after it) may be read instead: the value then differs and `onLine` decides, as for any field.
function lineSession(group: Group): string | null {
  if (group.session !== undefined) return group.session;
  const key = '"session_id":"';
  const raw = group.raw;
  const at = raw.lastIndexOf(key);
  const open = at + key.length - 1; // the value's opening quote
  group.sessionAt = at;
  if (at < 0) group.session = null;
  else {
    // A plain id (the CLI's) sliced; else the token up to its first unescaped quote, parsed.
    const end = plainRunEnd(raw, open + 1);
    group.session =
      raw.charCodeAt(end) === 34
        ? raw.slice(open + 1, end)
        : (readStringToken(raw, open, stringTokenEnd(raw, open) - 1) ?? null);
  }
  return group.session;
}

function holds(value: unknown, text: string, part: boolean): boolean {
  if (value === text || (part && typeof value === 'string' && value.includes(text))) return true;
  if (typeof value !== 'object' || value === null) return false;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (holds(v, text, part)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Fields that are not text (a tool's structured result, a permission request's input, a notice's
// data, the init line's tools, counts): looked for in the line as `JSON.stringify` spells them

// Characters a JSON string spells otherwise than as themselves (escaped, or a surrogate, which
// is escaped when alone).
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/g;
// The letter of a character's short escape (`\n`), by its code; 0: none. JSON.stringify's own:
// a character it spells in four characters (`"\n"`) has one.
const SHORT_ESCAPE: readonly number[] = Array.from({ length: 93 }, (_, c) => {
  const spelled = JSON.stringify(String.fromCharCode(c));
  return spelled.length === 4 ? spelled.charCodeAt(2) : 0;
});

// Where the JSON text of `value` ends when `text` spells it at `at` as `JSON.stringify` does
// (the CLI's own spelling, keys in the object's order), else -1. Walks the value and the line
// together: no text is built for the value (a Read's file content is compared in place, in
// chunks between the characters a JSON string escapes).
function spelledAt(text: string, at: number, value: unknown): number {
  if (at < 0) return -1;
  if (typeof value === 'string') {
    if (text.charCodeAt(at) !== 34) return -1;
    let pos = at + 1;
    // A short one (a key, a path, a status: most of them) compared character by character while
    // it needs no escape: a regular expression costs more for it than the comparison.
    let from = 0;
    if (value.length <= 64) {
      for (; from < value.length; from++) {
        const c = value.charCodeAt(from);
        if (c < 32 || c === 34 || c === 92 || (c >= 0xd800 && c <= 0xdfff)) break;
        if (text.charCodeAt(pos++) !== c) return -1;
      }
      if (from === value.length) return text.charCodeAt(pos) === 34 ? pos + 1 : -1;
    }
    ESCAPED.lastIndex = from;
    for (let m = ESCAPED.exec(value); m !== null; m = ESCAPED.exec(value)) {
      const i = m.index;
      if (i > from && !text.startsWith(value.slice(from, i), pos)) return -1;
      pos += i - from;
      const c = value.charCodeAt(i);
      const letter = c < 93 ? SHORT_ESCAPE[c]! : 0;
      // A newline, a quote and the like (the many of a file's content) compared without a
      // string made for them; a surrogate pair is written as it is; a lone surrogate and other
      // control characters as `\u` escapes.
      const next = value.charCodeAt(i + 1);
      const pair = c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
      if (letter !== 0) {
        if (text.charCodeAt(pos) !== 92 || text.charCodeAt(pos + 1) !== letter) return -1;
        pos += 2;
      } else {
        const spelled = pair ? value.slice(i, i + 2) : JSON.stringify(value[i]).slice(1, -1);
        if (!text.startsWith(spelled, pos)) return -1;
        pos += spelled.length;
      }
      from = pair ? i + 2 : i + 1;
      ESCAPED.lastIndex = from;
    }
    if (from < value.length && !text.startsWith(from === 0 ? value : value.slice(from), pos)) return -1;
    pos += value.length - from;
    return text.charCodeAt(pos) === 34 ? pos + 1 : -1;
  }
  if (typeof value === 'number' && value >= 0 && Number.isSafeInteger(value)) {
    // A count (most numbers here) read from the line's digits: no text made for it.
    let n = 0;
    let pos = at;
    let c = text.charCodeAt(pos);
    while (c >= 48 && c <= 57) {
      n = n * 10 + c - 48;
      c = text.charCodeAt(++pos);
    }
    const digits = pos - at;
    if (digits === 0 || (digits > 1 && text.charCodeAt(at) === 48) || c === 46 || c === 101 || c === 69)
      return -1;
    return n === value ? pos : -1;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) {
    const spelled = String(value);
    if (!text.startsWith(spelled, at)) return -1;
    const end = at + spelled.length;
    // Not the start of a longer number.
    const c = text.charCodeAt(end);
    return (c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 ? -1 : end;
  }
  if (typeof value !== 'object') return -1;
  let pos = at + 1;
  if (Array.isArray(value)) {
    let first = true;
    if (text.charCodeAt(at) !== 91) return -1;
    for (const item of value) {
      if (!first && text.charCodeAt(pos++) !== 44) return -1;
      first = false;
      pos = spelledAt(text, pos, item === undefined ? null : item);
      if (pos < 0) return -1;
    }
    return text.charCodeAt(pos) === 93 ? pos + 1 : -1;
  }
  if (text.charCodeAt(at) !== 123) return -1;
  pos = entriesAt(text, pos, value as Record<string, unknown>);
  return pos >= 0 && text.charCodeAt(pos) === 125 ? pos + 1 : -1;
}

// Where an object's entries (`"key":value`, comma-separated, no braces) end when `text` spells
// them at `at` (as `spelledAt`), else -1.
function entriesAt(text: string, at: number, fields: Record<string, unknown>): number {
  let pos = at;
  let first = true;
  // Keys as JSON.stringify takes them (own, enumerable, in order): `Object.keys` costs less
  // than a `for…in`, which asks the prototype chain too.
  const keys = Object.keys(fields);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const v = fields[key];
    if (v === undefined) continue;
    if (!first && text.charCodeAt(pos++) !== 44) return -1;
    first = false;
    pos = spelledAt(text, pos, key);
    if (pos < 0 || text.charCodeAt(pos++) !== 58) return -1;
    pos = spelledAt(text, pos, v);
    if (pos < 0) return -1;
  }
  return pos;
}

// A `system` line as the CLI writes it: its type first, its envelope (ids without escapes) last.
const SYSTEM_HEAD = '{"type":"system",';
const ENVELOPE_TAIL = /^(?:,"(?:uuid|session_id)":"[^"\\]*")*\}$/;

// Whether the line says `value` at `key`: the value's spelling after the key's last `"key":` in
// the line (the CLI writes the top-level keys these are read from after what the message holds),
// else, only when not found so (spelled otherwise, or the key found nested), the parsed record's
// value where the decoder read it (`read`).
function saysValue(group: Group, name: string, value: unknown, path: readonly string[]): boolean {
  const at = group.raw.lastIndexOf(name);
  if (at >= 0 && spelledAt(group.raw, at + name.length, value) >= 0) return true;
  const said = valueAt(group, path);
  return group.record !== undefined && sameJson(value, said);
}

// The parsed record's value at `path` (the line parsed once, for all its events).
function valueAt(group: Group, path: readonly string[]): unknown {
  group.record ??= parseJsonObject(group.raw);
  let value: unknown = group.record;
  for (const key of path) value = isJsonObject(value) ? value[key] : undefined;
  return value;
}

// Where each value is: its key as the line spells it (`"key":`, its path's last) and its path in
// the record. Made once, not per event.
type Place = readonly [string, readonly string[]];
function place(...path: string[]): Place {
  return [`"${path[path.length - 1]}":`, path];
}
const RESULT_AT = place('tool_use_result');
const INPUT_AT = place('request', 'input');
const TOOLS_AT = place('tools');
const BEFORE_AT = place('compact_metadata', 'pre_tokens');
const AFTER_AT = place('compact_metadata', 'post_tokens');
const DURATION_AT = place('duration_ms');
const RATE_AT = place('rate_limit_info');
const ELAPSED_AT = place('elapsed_time_seconds');

// Whether the line says `value` at `at` (`saysValue`).
function saysAt(group: Group, at: Place, value: unknown): boolean {
  return saysValue(group, at[0], value, at[1]);
}

// Whether a number differs from what the line says at `at`: edited, or taken out of the
// event while the line holds a number there (what the decoder reads; a value of another type was
// read as none, and the line is put back with it). The line is parsed only for a number taken out.
function countOtherwise(group: Group, at: Place, value: number | undefined): boolean {
  if (value !== undefined) return !saysAt(group, at, value);
  return group.raw.includes(at[0]) && typeof valueAt(group, at[1]) === 'number';
}

// Whether a field that is not text differs from what the line says (an edit: the event is
// patched with `restate`). Only the types with such a field on their line are looked at.
function structuredOtherwise(event: AgentEvent, group: Group): boolean {
  switch (event.type) {
    case 'tool.end': {
      // Only the line's first result has its `tool_use_result`; a string result is text (`editOf`).
      const result = event.result;
      return typeof result === 'object' && result !== null && !saysAt(group, RESULT_AT, result);
    }
    case 'approval.request':
      return event.args !== undefined && !saysAt(group, INPUT_AT, event.args);
    case 'session.start':
      return event.tools !== undefined && !saysAt(group, TOOLS_AT, event.tools);
    case 'compaction.end':
      return (
        countOtherwise(group, BEFORE_AT, event.tokensBefore) ||
        countOtherwise(group, AFTER_AT, event.tokensAfter)
      );
    case 'run.end': {
      if (countOtherwise(group, DURATION_AT, event.durationMs)) return true;
      // A run's usage is read from its `result` line, one per run: parsed.
      group.record ??= parseJsonObject(group.raw);
      return group.record !== undefined && !sameJson(event.usage, resultUsage(group.record));
    }
    case 'usage':
      return usageOtherwise(group, event.usage);
    case 'tool.liveness': {
      // Read as the line's seconds times 1000 (0 without a number there): compared as spelled,
      // else as read.
      const ms = event.elapsedMs;
      if (saysValue(group, ELAPSED_AT[0], ms / 1000, ELAPSED_AT[1])) return false;
      const seconds = valueAt(group, ELAPSED_AT[1]);
      return ms !== (typeof seconds === 'number' ? seconds * 1000 : 0);
    }
    case 'notice': {
      const data = event.data;
      if (data === undefined) return false;
      if (event.kind === 'rate_limit') return !saysAt(group, RATE_AT, data);
      // A `system` line's notice: its data is the record beside its envelope. Spelled between
      // the two (a `thinking_tokens` line, one per message), the line is not parsed.
      const raw = group.raw;
      if (raw.startsWith(SYSTEM_HEAD)) {
        const end = entriesAt(raw, SYSTEM_HEAD.length, data);
        if (end > SYSTEM_HEAD.length && ENVELOPE_TAIL.test(raw.slice(end))) return false;
      }
      group.record ??= parseJsonObject(raw);
      const record = group.record;
      if (record === undefined) return false;
      let n = 0;
      for (const key in record) {
        if (key === 'type' || key === 'uuid' || key === 'session_id') continue;
        n++;
        if (!sameJson(data[key], record[key])) return true;
      }
      return Object.keys(data).length !== n;
    }
    default:
      return false;
  }
}

// Whether a call's usage differs from what its line says (`usageSaid`). An unedited one is told
// from the line's text (`spellsUsage`); the line is parsed only when that cannot tell (a delta's
// usage, a thinking count, another spelling).
function usageOtherwise(group: Group, usage: Usage): boolean {
  if (spellsUsage(group.raw, usage)) return false;
  group.record ??= parseJsonObject(group.raw);
  const record = group.record;
  const said = record === undefined ? undefined : usageOf(record);
  return (
    said !== undefined &&
    !usageSaid(said, usage, isJsonObject(record!.event) && record!.event.type === 'message_delta')
  );
}

// Whether the line spells the usage's four counts after its last `"usage":{`, with no thinking
// count: the CLI writes a message's usage after its content, so the last one is the message's.
function spellsUsage(raw: string, u: Usage): boolean {
  const at = raw.lastIndexOf('"usage":{');
  const { input, output, cacheRead: read, cacheWrite: write } = u;
  return (
    at >= 0 &&
    input !== undefined &&
    output !== undefined &&
    read !== undefined &&
    write !== undefined &&
    u.reasoning === undefined &&
    countAt(raw, at, '"input_tokens":', input - read - write) &&
    countAt(raw, at, '"cache_creation_input_tokens":', write) &&
    countAt(raw, at, '"cache_read_input_tokens":', read) &&
    countAt(raw, at, '"output_tokens":', output) &&
    !raw.includes('"thinking_tokens":', at)
  );
}

// Whether `key`, first found in `raw` from `from`, has the count `n` after it.
function countAt(raw: string, from: number, key: string, n: number): boolean {
  const at = raw.indexOf(key, from);
  return at >= 0 && spelledAt(raw, at + key.length, n) >= 0;
}

// What a line says its message's usage (and id) in: an assistant line's `message`, a streamed
// message's start's `event.message`, its delta's `event` (no id).
function messageIn(record: JsonObject): JsonObject {
  const ev = isJsonObject(record.event) ? record.event : {};
  return isJsonObject(record.message) ? record.message : isJsonObject(ev.message) ? ev.message : ev;
}

// The usage object of a line's message (`messageIn`).
function usageOf(record: JsonObject): JsonObject | undefined {
  const usage = messageIn(record).usage;
  return isJsonObject(usage) ? usage : undefined;
}

// A `result` line's usage as the decoder reads it: its usage, cost and per-model usage.
function resultUsage(record: JsonObject): Usage | undefined {
  const usage = usageFromClaude(record.usage) ?? {};
  if (typeof record.total_cost_usd === 'number') usage.costUsd = record.total_cost_usd;
  const byModel = byModelFromClaude(record.modelUsage);
  if (byModel !== undefined) usage.byModel = byModel;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

// Writes an edited event's fields that are not text into its line's record (`structuredOtherwise`).
function restate(record: JsonObject, event: AgentEvent): void {
  switch (event.type) {
    case 'tool.end':
      record.tool_use_result = event.result as JsonObject;
      return;
    case 'approval.request':
      if (isJsonObject(record.request)) record.request.input = event.args ?? {};
      return;
    case 'session.start':
      if (event.tools !== undefined) record.tools = event.tools;
      return;
    case 'compaction.end': {
      const meta = isJsonObject(record.compact_metadata) ? record.compact_metadata : {};
      const { tokensBefore: before, tokensAfter: after, tokensFreed: freed } = event;
      // A count taken out leaves the line: `post_tokens` may be absent; `pre_tokens` may not (the
      // SDK's type), and says what the model writer says for it (what the counts kept imply).
      if (before !== undefined) meta.pre_tokens = before;
      else if (typeof meta.pre_tokens === 'number')
        meta.pre_tokens = freed !== undefined && after !== undefined ? freed + after : 0;
      if (after !== undefined) meta.post_tokens = after;
      else if (typeof meta.post_tokens === 'number') delete meta.post_tokens;
      record.compact_metadata = meta;
      return;
    }
    case 'run.end': {
      // A result always says its duration (0 for none, as the model writer writes it).
      if (event.durationMs !== undefined) record.duration_ms = event.durationMs;
      else if (typeof record.duration_ms === 'number') record.duration_ms = 0;
      // Only edited counts change: the line's usage says more than the model keeps (a usage taken
      // out is written as none, in the places a result always has).
      const usage = event.usage;
      if (sameJson(usage, resultUsage(record))) return;
      record.total_cost_usd = usage?.costUsd ?? 0;
      if (isJsonObject(record.usage)) usageIntoClaude(record.usage, usage ?? {});
      else record.usage = usageToClaude(usage);
      if (usage?.byModel !== undefined || isJsonObject(record.modelUsage))
        record.modelUsage = byModelIntoClaude(record.modelUsage, usage?.byModel);
      return;
    }
    case 'usage': {
      const said = usageOf(record);
      if (said !== undefined) usageIntoClaude(said, event.usage);
      return;
    }
    case 'tool.liveness':
      record.elapsed_time_seconds = event.elapsedMs / 1000;
      return;
    case 'notice': {
      const data = event.data ?? {};
      if (event.kind === 'rate_limit') {
        record.rate_limit_info = data as JsonObject;
        return;
      }
      // The line's own type and subtype stay: they say which record it is (the event's kind).
      for (const key of Object.keys(record))
        if (
          key !== 'type' &&
          key !== 'subtype' &&
          key !== 'uuid' &&
          key !== 'session_id' &&
          !Object.hasOwn(data, key)
        )
          delete record[key];
      for (const key of Object.keys(data))
        if (key !== 'type' && key !== 'subtype') setOwn(record, key, data[key]);
      return;
    }
    default:
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// Fields taken out: a line is not current once its event lacks a field the line gives it (a
// redaction by deletion would otherwise come back from the line as written)

// The fields the decoder gives an event of each type from its line: `[field]`, given whatever the
// line holds, or `[field, places]`, given when the line's record holds a value at one of
// `places` (paths of keys joined by `.`, `|` between the places), looked at only when the event
// lacks the field.
type FromLine = readonly [field: string, places?: string];
// Told apart by identity in `lost`, which asks more of them.
const TOOL_END: readonly FromLine[] = [['call']];
const RUN_END: readonly FromLine[] = [
  ['reason', 'subtype|terminal_reason'],
  ['stopReason', 'stop_reason'],
];
const FROM_LINE: Readonly<Partial<Record<AgentEvent['type'], readonly FromLine[]>>> = {
  'session.start': [
    ['producer', 'claude_code_version'],
    ['model', 'model'],
    ['cwd', 'cwd'],
    ['mode', 'permissionMode'],
    ['tools', 'tools'],
  ],
  'message.start': [['role'], ['message'], ['model', 'message.model|event.message.model']],
  'message.end': [['message']],
  'text.delta': [['message']],
  'reasoning.delta': [['message']],
  'tool.start': [['call']],
  'tool.args.delta': [['call'], ['text']],
  'tool.end': TOOL_END,
  'tool.liveness': [['call'], ['action'], ['name', 'tool_name']],
  'approval.request': [
    ['approval'],
    ['call', 'request.tool_use_id'],
    ['tool', 'request.tool_name'],
    ['title', 'request.description|request.display_name'],
    ['args', 'request.input'],
  ],
  question: [['question'], ['questions'], ['call']],
  'child.start': [
    ['child'],
    ['name', 'subagent_type'],
    ['task', 'description'],
    ['call', 'tool_use_id'],
    ['kind', 'task_type'],
  ],
  'child.progress': [['child'], ['detail', 'patch.status|summary|description']],
  'child.end': [['child'], ['status'], ['result', 'summary']],
  'compaction.end': [['trigger', 'compact_metadata.trigger']],
  notice: [['kind'], ['data']],
  status: [['status']],
  unknown: [['record'], ['recordType', 'type']],
  usage: [['usage']],
  error: [['code']],
  'run.end': RUN_END,
};

// Whether the line's record holds a value (a string, an object or an array) at `path` (keys
// joined by `.`). The last key is looked for in the line first (`"key":` is never part of a
// string the line holds, whose quotes are escaped): the line is parsed only when it is there.
function says(group: Group, path: string): boolean {
  const keys = path.split('.');
  if (!group.raw.includes(`"${keys[keys.length - 1]}":`)) return false;
  group.record ??= parseJsonObject(group.raw);
  let value: unknown = group.record;
  for (const key of keys) value = isJsonObject(value) ? value[key] : undefined;
  return typeof value === 'string' || (typeof value === 'object' && value !== null);
}

// Whether the line is a subagent's (a string `parent_tool_use_id`, which every event it gives
// carries as its lane). The CLI writes a main-agent line's envelope as
// `"parent_tool_use_id":null,"session_id":"…`: told by a few of its characters before the session
// key (`"p`, `":null,`; no other key of 18 characters starting with `p` comes there), without a
// search, which costs more than the check for the many lines that are not a subagent's.
function lineLane(group: Group): boolean {
  const raw = group.raw;
  const at = lineSession(group) === null ? -1 : group.sessionAt;
  group.lane =
    !(
      at >= 26 &&
      raw.charCodeAt(at - 1) === 44 &&
      raw.charCodeAt(at - 2) === 108 &&
      raw.charCodeAt(at - 6) === 58 &&
      raw.charCodeAt(at - 7) === 34 &&
      raw.charCodeAt(at - 25) === 112 &&
      raw.charCodeAt(at - 26) === 34
    ) &&
    raw.includes('"parent_tool_use_id":"') &&
    says(group, 'parent_tool_use_id');
  return group.lane;
}

// The task a line names (`task_id`; '' when it names none).
function lineTask(group: Group): string {
  group.record ??= parseJsonObject(group.raw);
  const task = group.record?.task_id;
  return typeof task === 'string' ? task : '';
}

// Whether the event lacks a field its line gives it: the line is written anew from the events.
// Synthetic events are derived from earlier lines: only their envelope is this line's.
function lost(event: AgentEvent, group: Group): boolean {
  const fields = event as Record<string, unknown>;
  if (fields.session === undefined && lineSession(group) !== null && says(group, 'session_id')) return true;
  // A task's lane is the lane of the call that started it, not its line's.
  // (The line's answer read inline once known: a call per event costs the writer's bench row.)
  if (fields.lane === undefined && (group.lane ?? lineLane(group)) && !event.type.startsWith('child.'))
    return true;
  if (event.provenance?.synthetic === true) return false;
  const from = FROM_LINE[event.type];
  if (from === undefined) return false;
  for (const f of from) {
    if (fields[f[0]] !== undefined) continue;
    if (f[1] === undefined || f[1].split('|').some((p) => says(group, p))) return true;
  }
  const hints = event.provenance?.hints as ClaudeHints | undefined;
  if (from === TOOL_END) {
    // An error a line cannot say (it says one only for a failed call, as text): the end is
    // written anew, where `toolEnd` writes the error or reports it lost.
    const error = fields.error;
    if (error !== undefined && error !== null && (fields.ok === true || typeof error !== 'string'))
      return true;
    // A failed call's error is read from its line; a call's structured copy of its output is its
    // first result block's (`block` names another one).
    if (hints?.said?.ok === false) return fields.error === undefined;
    return fields.result === undefined && hints?.block === undefined && says(group, 'tool_use_result');
  }
  // A failed run's error is its `errors` or its `result`.
  return (
    from === RUN_END &&
    hints?.said?.status === 'failed' &&
    fields.error === undefined &&
    (says(group, 'errors') || says(group, 'result'))
  );
}

/** What the writer saw of the stream that a line does not say (`ClaudeEncoder.seen`). */
interface Seen {
  /** Per lane (`''`: the main agent's), the id of the message its last `message.start` began. */
  messages: Map<string, string>;
  /** Per task id, the child its `child.start` named. */
  tasks: Map<string, string>;
  /** Per message id (as JSON spells it), its edited usage: the object its line said, and the usage now. */
  usages: Map<string, { said: JsonObject; now: Usage }>;
}

// An edited usage whose message's later lines repeat it: the CLI writes a message's usage on each
// of its lines, and a reader counts a repeat once. Those lines take the edit too (`repeatsEdit`),
// or the old figures would read back as a usage of their own. `group.record` was parsed by
// `usageOtherwise` and is never written to (`groupText` parses its own).
function noteUsage(group: Group, usage: Usage, seen: Seen): void {
  const record = group.record;
  const said = record === undefined ? undefined : usageOf(record);
  const id = record === undefined ? undefined : messageIn(record).id;
  if (said !== undefined && typeof id === 'string')
    setBounded(seen.usages, JSON.stringify(id), { said, now: usage }, 16);
}

// A line of a message whose usage was edited, repeating the usage the edit replaced: its record
// with the edit written in (`noteUsage`), else `undefined`. Asked only after a usage was edited;
// the line is parsed only when it names the message.
function repeatsEdit(raw: string, seen: Seen): JsonObject | undefined {
  for (const [id, edit] of seen.usages) {
    if (!raw.includes(id)) continue;
    const record = parseJsonObject(raw);
    const said = record === undefined ? undefined : usageOf(record);
    if (said === undefined || JSON.stringify(messageIn(record!).id) !== id || !sameJson(said, edit.said))
      continue;
    usageIntoClaude(said, edit.now);
    return record;
  }
  return undefined;
}

// Lines with the edited usage they repeat written in (`repeatsEdit`), the others as they are.
function withEdits(lines: string[] | undefined, seen: Seen): string[] | undefined {
  if (lines === undefined || seen.usages.size === 0) return lines;
  return lines.map((line) => {
    const record = repeatsEdit(line, seen);
    return record === undefined ? line : JSON.stringify(record);
  });
}

// Checked fields (CLAUDE_CHECKED) are compared with what the decoder said and patched into the
// record; every other string field of the event is looked for in its line, and one the line does
// not say makes the event rebuilt from the model (a stale line put back would drop the edit), as
// does a field the line gives that the event lacks (`lost`: one taken out). The check runs at
// write time, on the writer's side: the decoder allocates nothing more per event
// (its bench row has little margin; the writer's, putting lines back, has a large one).
function editOf(event: AgentEvent, group: Group, seen: Seen): Edit {
  if (lost(event, group)) return 'rebuild';
  if (event.provenance?.synthetic === true) return 'none';
  const checked = CLAUDE_CHECKED[event.type];
  const skip = NOT_ON_LINE[event.type];
  const fields = event as Record<string, unknown>;
  for (const key in fields) {
    if (key === 'type' || key === 'provenance' || checked?.includes(key) || skip?.includes(key)) continue;
    if (key === 'session') {
      // A line without a session of its own is in the one an earlier line said; one with it says
      // it for every event of the line (read once, from the end: see `lineSession`).
      const own = lineSession(group);
      if (own === null || fields[key] === own) continue;
    }
    // A message the line names no id for is ''.
    if (key === 'message' && fields[key] === '') continue;
    const field = fields[key];
    if (typeof field !== 'string') continue;
    let value = field;
    // A failed call's error is its text (checked; '' when it has none) or its `tool_use_result`
    // string, as spelled.
    if (key === 'error' && value === (fields.text ?? '')) continue;
    // `idle` is a status line's `null` (a state line says it).
    if (key === 'status' && value === 'idle' && !says(group, 'status') && !says(group, 'state')) continue;
    // A task's kind is its `task_type` as the writer spells it.
    if (key === 'kind' && event.type === 'child.start') value = taskType(value);
    // A streamed delta's message is the one its lane's last start began (its line names none); a
    // task's progress may name its task only: its child is the one the task started as.
    if (
      (key === 'message' &&
        (event.type === 'text.delta' || event.type === 'reasoning.delta') &&
        value === seen.messages.get(event.lane ?? '')) ||
      (key === 'child' && event.type === 'child.progress' && value === seen.tasks.get(lineTask(group)))
    )
      continue;
    if (!onLine(group, value, PART_OF_LINE[event.type]?.includes(key) === true)) return 'rebuild';
  }
  const other = structuredOtherwise(event, group);
  if (other) (group.restated ??= []).push(event);
  if (other && event.type === 'usage') noteUsage(group, event.usage, seen);
  if (!saidOtherwise(event)) return other ? 'patch' : 'none';
  // A thinking text where the line said none (a signature or redacted block): no place to patch.
  const said = (event.provenance?.hints as ClaudeHints | undefined)?.said;
  return event.type === 'reasoning.delta' && said?.text === '' && event.text !== '' ? 'rebuild' : 'patch';
}

// Reports each of `fields` the event holds: Claude has no place for it.
function noPlace(loss: LossReporter, e: AgentEvent, fields: readonly string[]): void {
  for (const field of fields)
    if ((e as Record<string, unknown>)[field] !== undefined)
      loss.report(e, `${e.type}.${field}`, `claude has no place for ${field}`);
}

// A child's kind as a `task_started` line's `task_type`.
function taskType(kind: string | undefined): string {
  return kind === 'shell' ? 'local_bash' : kind === undefined || kind === 'agent' ? 'local_agent' : kind;
}

// Whether a checked field (CLAUDE_CHECKED) differs from what the decoder said: the event is
// patched into its line's record.
function saidOtherwise(event: AgentEvent): boolean {
  const checked = CLAUDE_CHECKED[event.type];
  if (checked === undefined) return false;
  const said = (event.provenance?.hints as ClaudeHints | undefined)?.said ?? {};
  for (const key of checked) if (!sameJson((event as Record<string, unknown>)[key], said[key])) return true;
  return false;
}

function blockAt(
  content: unknown,
  event: AgentEvent,
  match: (b: JsonObject) => boolean,
): JsonObject | undefined {
  if (!Array.isArray(content)) return undefined;
  const index = (event.provenance?.hints as ClaudeHints | undefined)?.block;
  if (index !== undefined && isJsonObject(content[index])) return content[index] as JsonObject;
  return content.find((b): b is JsonObject => isJsonObject(b) && match(b));
}

// Writes an edited event's checked fields into its line's record.
function patch(record: JsonObject, event: AgentEvent): void {
  const msg = isJsonObject(record.message) ? record.message : undefined;
  const delta =
    isJsonObject(record.event) && isJsonObject(record.event.delta) ? record.event.delta : undefined;
  switch (event.type) {
    case 'text.delta':
    case 'error': {
      const text = event.type === 'text.delta' ? event.text : event.message;
      if (delta !== undefined) delta.text = text;
      const b = blockAt(msg?.content, event, (x) => x.type === 'text');
      if (b !== undefined) b.text = text;
      return;
    }
    case 'reasoning.delta': {
      if (delta !== undefined) {
        if (delta.type === 'signature_delta') delta.signature = event.signature ?? '';
        else delta.thinking = event.text;
        return;
      }
      const b = blockAt(msg?.content, event, (x) => x.type === 'thinking' || x.type === 'redacted_thinking');
      if (b === undefined) return;
      if (b.type === 'redacted_thinking') b.data = event.redacted ?? '';
      else {
        b.thinking = event.text;
        if (event.signature !== undefined) b.signature = event.signature;
      }
      return;
    }
    case 'tool.start': {
      const b = blockAt(msg?.content, event, (x) => x.type === 'tool_use' && x.id === event.call);
      if (b === undefined) return;
      b.name = event.name;
      b.input = event.args ?? {};
      return;
    }
    case 'tool.end': {
      const b = blockAt(msg?.content, event, (x) => x.type === 'tool_result' && x.tool_use_id === event.call);
      if (b === undefined) return;
      b.content = Array.isArray(b.content) ? [{ type: 'text', text: event.text ?? '' }] : (event.text ?? '');
      if (!event.ok) b.is_error = true;
      else if ('is_error' in b) b.is_error = false;
      outputAgain(record, event);
      return;
    }
    case 'user.message':
      if (msg === undefined) return;
      if (typeof msg.content === 'string') msg.content = event.text;
      else {
        const b = blockAt(msg.content, event, (x) => x.type === 'text');
        if (b !== undefined) b.text = event.text;
      }
      return;
    case 'run.end':
      if (event.answer !== undefined) record.result = event.answer;
      record.is_error = event.status === 'failed';
      if (event.status === 'completed' && record.subtype !== 'success') record.subtype = 'success';
      if (event.status === 'cancelled') record.subtype = 'error_during_execution';
      return;
    default:
      return;
  }
}

// The worst edit among a line's events: one rebuilt rebuilds the line.
function groupEdit(group: Group, seen: Seen): Edit {
  let edit: Edit = 'none';
  // After an edited usage: the lines that repeat it take it (before the line's own events, which
  // may edit another).
  if (seen.usages.size > 0) {
    group.before = withEdits(group.before, seen);
    group.patched = repeatsEdit(group.raw, seen);
    if (group.patched !== undefined) edit = 'patch';
  }
  for (const e of group.events) {
    const x = editOf(e, group, seen);
    if (x === 'rebuild') return x;
    if (x === 'patch') edit = x;
  }
  return edit;
}

// A failed call's error as the text a reader takes back as its error: a text as it is, any other
// value (`{ code, message }`, a number) as JSON text (a number JSON cannot hold is refused, not
// written as `null`). A null error is none, as is a successful call's (`errorLost`).
function failureText(e: AgentEventOf<'tool.end'>): string | undefined {
  const error = e.error;
  if (e.ok || error === undefined || error === null) return undefined;
  return typeof error === 'string' ? error : encodeJsonText(error, 'tool.end.error', FORMAT);
}

// A compaction's `compact_metadata`: the counts before and after, derived from what it freed.
function compactMetadata(e: AgentEventOf<'compaction.end'>): JsonObject {
  const meta: JsonObject = { trigger: e.trigger ?? 'auto' };
  const before =
    e.tokensBefore ?? (e.tokensFreed !== undefined ? e.tokensFreed + (e.tokensAfter ?? 0) : undefined);
  meta.pre_tokens = before ?? 0;
  const after = e.tokensAfter ?? (e.tokensFreed !== undefined ? 0 : undefined);
  if (after !== undefined) meta.post_tokens = after;
  return meta;
}

// A notice's record without its envelope (`undefined`: Claude has none for its kind).
function noticeRecord(e: AgentEventOf<'notice'>): JsonObject | undefined {
  const data = e.data ?? {};
  switch (e.kind) {
    case 'rate_limit':
      return { type: 'rate_limit_event', rate_limit_info: data };
    case 'retry': {
      const record: JsonObject = { type: 'system', subtype: 'api_retry', ...data };
      record.subtype = 'api_retry';
      return record;
    }
    case 'hook': {
      const record: JsonObject = { type: 'system', subtype: 'hook_response', ...data };
      if (e.message !== undefined && record.hook_name === undefined) record.hook_name = e.message;
      return record;
    }
    case 'thinking_tokens': {
      const record: JsonObject = { type: 'system', subtype: 'thinking_tokens', ...data };
      record.subtype = 'thinking_tokens';
      return record;
    }
    case 'background_tasks':
      return {
        type: 'system',
        subtype: 'background_tasks_changed',
        tasks: Array.isArray(data.tasks) ? data.tasks : [],
      };
    default:
      return undefined;
  }
}

// Why a call's error does not read back from its written line (`undefined`: it does). A reader
// takes a failed call's error from its `tool_use_result` string, else from its block's text
// (`content`), and no error for a call that succeeded.
function errorLost(
  e: AgentEventOf<'tool.end'>,
  failure: string | undefined,
  again: unknown,
  content: string,
): string | undefined {
  if (e.error === undefined || e.error === null) return undefined;
  if (e.ok) return 'claude reads an error only for a call that failed';
  if (failure === (typeof again === 'string' ? again : content)) return undefined;
  return "claude has no place for a failed call's error beside its text and its result";
}

// The CLI says a tool's output twice: in the tool_result block and at the top level
// (`tool_use_result`: the text, `Error: <text>`, or a structured copy such as Bash's stdout or a
// Read's file). A changed output must not stay in the second place (a redacted secret would
// come back): a string is rewritten around the new text, a structured copy is left out.
function outputAgain(record: JsonObject, event: AgentEventOf<'tool.end'>): void {
  const again = record.tool_use_result;
  const before = (event.provenance?.hints as ClaudeHints | undefined)?.said?.text;
  const text = event.text ?? '';
  if (again === undefined || text === before) return;
  if (typeof again === 'string' && typeof before === 'string' && again.endsWith(before))
    record.tool_use_result = again.slice(0, again.length - before.length) + text;
  else delete record.tool_use_result;
}

// The strings a value holds (its own, its items', its fields'), added to `out`.
function stringsOf(value: unknown, out: string[]): string[] {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'object' && value !== null)
    for (const v of Array.isArray(value) ? value : Object.values(value)) stringsOf(v, out);
  return out;
}

// The lines a kept line carries that no event stands for (`hints.before`), as read.
function linesBefore(lines: readonly string[] | undefined): string {
  let text = '';
  if (lines !== undefined) for (const l of lines) text += `${l}\n`;
  return text;
}

// The events whose model write opens a message in their lane (`ClaudeEncoder.message`) unless
// one is open: a round's end opens one only to end it.
const MESSAGE_OPENERS: ReadonlySet<string> = new Set([
  'message.start',
  'text.delta',
  'reasoning.delta',
  'tool.start',
]);

// An event outside a run that waits for the next one: refused now if at all (refused when the
// run's start or end writes it, it would take that event down with it).
function assertHoldable(event: AgentEvent): void {
  for (const key of Object.keys(event))
    if (key !== 'provenance')
      assertEncodable((event as Record<string, unknown>)[key], `${event.type}.${key}`, 1000, FORMAT);
}

// `copy`: the line's `tool_use_result` repeats arguments a redaction took out of the call
// (`ClaudeEncoder.staleCopy`): it is left out, as a structured copy of a changed output is.
function groupText(group: Group, edit: Edit, copy: boolean, record: JsonObject | undefined): string {
  const text = linesBefore(group.before);
  if (edit === 'none' && !copy) return `${text}${group.raw}\n`;
  const r = record ?? groupRecord(group, copy);
  if (r === undefined) return `${text}${group.raw}\n`;
  // (A record built by the check left the copy in when the check could not tell: `copyLeftOut`.)
  if (copy) delete r.tool_use_result;
  return `${text}${JSON.stringify(r)}\n`;
}

// The line's record with its events' edits patched in (`undefined`: the line is no JSON object),
// refused where JSON cannot hold it: built when the group's edit is checked (`groupEditChecked`),
// before anything is written for it. `copy`: its `tool_use_result` is left out (`groupText`),
// before the check: a copy that is not written refuses nothing.
function groupRecord(group: Group, copy: boolean): JsonObject | undefined {
  const record = group.patched ?? parseJsonObject(group.raw);
  if (record === undefined) return undefined;
  // No event of the line needs rebuilding, so those whose checked fields changed are the ones to
  // patch (synthetic events say nothing of the line).
  // Patched first: a changed output takes its structured copy out (`outputAgain`), an edited
  // structured result is then the one written.
  for (const e of group.events) {
    if (e.provenance?.synthetic === true) continue;
    if (saidOtherwise(e)) patch(record, e);
    if (group.restated?.includes(e) === true) restate(record, e);
  }
  if (copy) delete record.tool_use_result;
  assertEncodable(record, 'record', 1000, FORMAT);
  return record;
}

/**
 * Refuses an event whose string field this writer reads as text (a length, a slice, an escape)
 * holds anything else ({@link assertText}): a caller building events by hand from JSON may
 * send a number, null, an object or an array, which threw a `TypeError` mid-write. A switch on
 * the type and a `typeof` per field: a table looked up by type cost the fastest writers a few
 * per cent (docs/performance.md, round thirty-five). Its own switch: the writer has no one dispatch that comes before everything it writes or
 * holds (a kept line's group, the lines seen, the model's write; round thirty-six).
 * Every field a record is built from is asked here too, by the kind the record takes it as
 * (round thirty-seven): a value JSON cannot hold (a BigInt) in a field held for a later line
 * (a message's id, model, stop reason or text, the session's model or tools for its `init`, a
 * call's name) was refused only when that line was written, at a later event's write or the
 * end; one in a field of the event's own record was refused after its `init` was written or an
 * id taken; and a count that is no number at all threw a `TypeError` in the writer's sums.
 */
function assertTextFields(event: AgentEvent): void {
  // The envelope's ids: the session every record names (kept for the records after), the lane a
  // message is held under and its lines name.
  assertText(event.session, event, 'session', FORMAT);
  assertText(event.lane, event, 'lane', FORMAT);
  switch (event.type) {
    // (A required field missing is refused too.)
    case 'text.delta':
      requireText(event.text, event, 'text', FORMAT);
      assertText(event.message, event, 'message', FORMAT);
      return;
    case 'tool.output':
      requireText(event.call, event, 'call', FORMAT);
      requireText(event.text, event, 'text', FORMAT);
      return;
    case 'reasoning.delta':
      requireText(event.text, event, 'text', FORMAT);
      assertText(event.redacted, event, 'redacted', FORMAT);
      assertText(event.signature, event, 'signature', FORMAT);
      assertText(event.message, event, 'message', FORMAT);
      return;
    case 'tool.start':
      requireText(event.call, event, 'call', FORMAT);
      requireText(event.name, event, 'name', FORMAT);
      return;
    case 'tool.args.delta':
      requireText(event.call, event, 'call', FORMAT);
      requireText(event.text, event, 'text', FORMAT);
      return;
    case 'tool.end':
      requireText(event.call, event, 'call', FORMAT);
      // The result block's text, written after an init, the call let go and its lane closed.
      assertText(event.text, event, 'text', FORMAT);
      return;
    case 'tool.liveness':
      requireText(event.call, event, 'call', FORMAT);
      assertText(event.name, event, 'name', FORMAT);
      // (Missing, it is NaN seconds: the record's check refuses that, in its words.)
      assertNumber(event.elapsedMs, event, 'elapsedMs', FORMAT);
      return;
    case 'usage':
      requireObject(event.usage, event, 'usage', FORMAT);
      return;
    case 'session.start':
      // Kept for the `init` records written later (`ensureInit`).
      assertText(event.producer, event, 'producer', FORMAT);
      assertText(event.model, event, 'model', FORMAT);
      assertText(event.cwd, event, 'cwd', FORMAT);
      assertText(event.mode, event, 'mode', FORMAT);
      if (event.tools !== undefined) assertEncodable(event.tools, 'session.start.tools', 999, FORMAT);
      return;
    case 'run.start':
      assertText(event.input, event, 'input', FORMAT);
      return;
    case 'user.message':
      requireText(event.text, event, 'text', FORMAT);
      return;
    case 'message.start':
      assertText(event.message, event, 'message', FORMAT);
      assertText(event.model, event, 'model', FORMAT);
      return;
    case 'round.end':
      // Held on the round's message until it is written.
      requireText(event.message, event, 'message', FORMAT);
      assertText(event.stopReason, event, 'stopReason', FORMAT);
      assertText(event.model, event, 'model', FORMAT);
      return;
    case 'status':
      requireText(event.status, event, 'status', FORMAT);
      return;
    case 'approval.request':
      requireText(event.approval, event, 'approval', FORMAT);
      assertText(event.call, event, 'call', FORMAT);
      assertText(event.tool, event, 'tool', FORMAT);
      assertText(event.title, event, 'title', FORMAT);
      return;
    case 'child.start':
      requireText(event.child, event, 'child', FORMAT);
      assertText(event.call, event, 'call', FORMAT);
      assertText(event.task, event, 'task', FORMAT);
      assertText(event.name, event, 'name', FORMAT);
      assertText(event.kind, event, 'kind', FORMAT);
      if (event.background !== undefined)
        assertEncodable(event.background, 'child.start.background', undefined, FORMAT);
      return;
    case 'child.progress':
      requireText(event.child, event, 'child', FORMAT);
      assertText(event.detail, event, 'detail', FORMAT);
      return;
    case 'child.end':
      requireText(event.child, event, 'child', FORMAT);
      assertText(event.result, event, 'result', FORMAT);
      return;
    case 'compaction.end':
      // Summed into the record's counts (`compactMetadata`).
      assertNumber(event.tokensBefore, event, 'tokensBefore', FORMAT);
      assertNumber(event.tokensAfter, event, 'tokensAfter', FORMAT);
      assertNumber(event.tokensFreed, event, 'tokensFreed', FORMAT);
      return;
    case 'error':
      requireText(event.message, event, 'message', FORMAT);
      assertText(event.code, event, 'code', FORMAT);
      return;
  }
}

/**
 * The Claude Code stream-json writer. Events decoded from a Claude stream are put back line by
 * line as written (byte for byte) while they still say what they said, and patched into their
 * record where they do not. Events from anywhere else are written as a stream a Claude consumer
 * accepts: `system/init` first (again before each later run), one `assistant` line per content
 * block repeating its message's id and usage, the tool results in `user` lines after them, one
 * `result` per run; what Claude has no record for is reported as a `loss`. A main-agent message
 * is held until its round ends (its usage is known then): its lines and what followed them come
 * out together.
 */
export class ClaudeEncoder implements Encoder {
  // The writer's state is `#` fields: a bundler's minifier renames those (it keeps a property
  // name), which the writer's bundle is the smaller for. The helpers stay methods: as `#` methods
  // (a brand check at every call) the writer's bench row read a few per cent lower
  // (docs/performance.md, round forty-two). `runMessages` stays a property: a test reads it.
  readonly #options: ClaudeEncodeOptions;
  readonly #loss: LossReporter;
  #group: Group | undefined;
  // What a kept line's group wrote for an event refused after it: the next write's.
  #carried = '';
  #session: string | undefined;
  #info: { producer?: string; model?: string; cwd?: string; mode?: string; tools?: string[] } = {};
  #initWritten = false;
  #needInit = false;
  #rounds = 0;
  // Records in stream order; a message sits where its first block arrived until it is done.
  #queue: Array<string | Message> = [];
  readonly #open = new Map<string, Message>();
  /** Per lane: a call's usage said before the message it names (`key`) began. */
  readonly #usageAhead = new Map<string, AgentEventOf<'usage'>>();
  readonly #calls = new Map<string, string>();
  // The names `calls` holds, one copy each (`sharedString`): names repeat, call ids do not.
  readonly #names = new Map<string, string>();
  // Calls written without a result yet, with their lane: answered before the run's result.
  readonly #unanswered = new Map<string, string | undefined>();
  readonly #args = new Map<string, string>();
  readonly #outputs = new Map<string, string>();
  /** Between a `run.start` and its `run.end`: what comes outside a run waits in `held`. */
  #inRun = false;
  /** Events outside a run that would open one (an `assistant` line needs an `init`): they wait. */
  #held: AgentEvent[] = [];
  /**
   * The run's main-agent messages not yet summed into `runUsage`: their usage is the `result`'s
   * when the run's end has none. Only the messages since the first not done stay: a done message
   * says no more usage, and keeping every message of a long run (and its blocks) held the run.
   * (A property, not a `#` member: test/claude/writer-held.test.ts reads it.)
   */
  private runMessages: Message[] = [];
  /** The usage of the run's messages before `runMessages`, summed in their order. */
  #runUsage: Usage = {};
  /** Characters of records queued behind a message that has not ended (CLAUDE_MAX_HELD_TEXT). */
  #behind = 0;
  /**
   * What `behind` may reach: CLAUDE_MAX_HELD_UNNUMBERED while the event written has no round
   * number (no round end will come to write the message at), else CLAUDE_MAX_HELD_TEXT.
   */
  #behindCap = CLAUDE_MAX_HELD_TEXT;
  /** What later lines' events are checked against (`Seen`). */
  readonly #seen: Seen = { messages: new Map(), tasks: new Map(), usages: new Map() };
  /** Per call whose arguments were edited: the strings they said and no longer say (`noteArgs`). */
  readonly #redacted = new Map<string, string[]>();

  /** Creates a writer that reports losses to `sink`. */
  constructor(options: ClaudeEncodeOptions, sink: DiagnosticSink) {
    this.#options = options;
    this.#loss = new LossReporter(FORMAT, sink);
  }

  write(event: AgentEvent): string {
    assertTextFields(event);
    const text = this.writeOne(event);
    // A refused event's write left what a kept line's group wrote for it to the next write.
    if (this.#carried === '') return text;
    const out = this.#carried + text;
    this.#carried = '';
    return out;
  }

  private writeOne(event: AgentEvent): string {
    const p = event.provenance;
    // Checked before a kept line's group is written for it (its model write would refuse it
    // after: the group's text gone with the refusal, and, were the event's line the group's,
    // the group broken up for an event that changes nothing).
    if (this.#group !== undefined && this.modelAfterGroup(event)) this.assertAhead(event);
    // What a later line's events are checked against (`Seen`), whichever way this one is written.
    if (event.type === 'message.start') setBounded(this.#seen.messages, event.lane ?? '', event.message);
    if (p?.format === FORMAT) {
      const hints = p.hints as ClaudeHints | undefined;
      if (hints?.raw !== undefined) {
        let out = this.flushGroup();
        this.#group = {
          raw: hints.raw,
          n: hints.n ?? 1,
          before: hints.before,
          line: p.line,
          offset: p.offset,
          events: [event],
          record: undefined,
          session: undefined,
          sessionAt: -1,
          lane: undefined,
          restated: undefined,
          patched: undefined,
        };
        try {
          if (this.#group.n <= 1) out += this.flushGroup();
          else this.groupEditChecked(this.#group, true);
        } catch (error) {
          // Refused: its line is not written (nor waits), the one before it is, with the next write.
          this.#group = undefined;
          this.#carried += out;
          throw error;
        }
        return out;
      }
      const g = this.#group;
      if (g !== undefined && g.line === p.line && g.offset === p.offset) {
        g.events.push(event);
        try {
          if (g.events.length >= g.n) return this.flushGroup();
          // Checked now as the group's write will check it: refused at its own write, not at
          // the group's last event's, which it would take down with it.
          this.groupEditChecked(g, true);
          return '';
        } catch (error) {
          // Refused before the group was written (`flushGroup`): it waits as it did.
          if (this.#group === g) g.events.pop();
          throw error;
        }
      }
      // The lines before it are the stream's whether or not the event keeps its own.
      const before = this.flushGroup() + linesBefore(withEdits(hints?.before, this.#seen));
      if (p.synthetic === true) {
        // Derived events write nothing; an incomplete end carries the stream's last lines.
        if (event.type === 'run.end') this.#inRun = false;
        return before;
      }
      return this.afterFlush(before, event);
    }
    return this.afterFlush(this.flushGroup(), event);
  }

  // `flushed` (a kept line's group written) and the event from the model: refused there, what
  // was flushed goes with the next write.
  private afterFlush(flushed: string, event: AgentEvent): string {
    try {
      return flushed + this.model(event);
    } catch (error) {
      this.#carried += flushed;
      throw error;
    }
  }

  // Whether `event` is written from the model after the group waiting is written: not when it
  // keeps a line of its own (a group of its own), is of the group's line, or was derived.
  private modelAfterGroup(event: AgentEvent): boolean {
    const p = event.provenance;
    if (p?.format !== FORMAT) return true;
    const g = this.#group;
    if ((p.hints as ClaudeHints | undefined)?.raw !== undefined || p.synthetic === true) return false;
    return g === undefined || g.line !== p.line || g.offset !== p.offset;
  }

  /**
   * Throws now what the model write of `event` would throw (`model`: held outside a run, or
   * recorded), with a kept line's group still waiting: the refusal comes before the group is
   * written, as if the event had never been given. The run the group's lines leave open or
   * closed (`follow`) is the one the event meets.
   */
  private assertAhead(event: AgentEvent): void {
    let inRun = this.#inRun;
    for (const e of this.#group?.events ?? [])
      if (e.type === 'run.start') inRun = true;
      else if (e.type === 'run.end') inRun = false;
    if (inRun || OUTSIDE_RUN.has(event.type) || event.type === 'run.start' || event.type === 'run.end')
      this.assertWritable(
        event,
        event.type === 'round.end' ? this.laneOpenAfterGroup(event.lane) : undefined,
      );
    else assertHoldable(event);
  }

  /**
   * Whether `lane` has a message open once the waiting group is written (`flushGroup`), which
   * the state before it does not tell: the group's write first ends every message the model left
   * open (it writes what was queued before the line), so only a message the group's own events
   * open stays: a rebuilt line's events are written from the model (its edit is asked only when
   * one of them would open one; a kept line opens none).
   */
  private laneOpenAfterGroup(lane: string | undefined): boolean {
    const key = lane ?? '';
    if (this.#queue.length === 0 && this.#open.has(key)) return true;
    const g = this.#group;
    if (g === undefined) return false;
    for (const e of g.events)
      if (e.provenance?.synthetic !== true && (e.lane ?? '') === key && MESSAGE_OPENERS.has(e.type))
        return this.groupEditChecked(g, true)[0] === 'rebuild';
    return false;
  }

  end(): string {
    // No run follows to carry them: Claude has no line for them outside a run.
    for (const e of this.#held) this.#loss.report(e, e.type, 'no run follows to carry it');
    this.#held = [];
    for (const u of this.#usageAhead.values())
      this.#loss.report(u, 'usage', 'no assistant message it names followed');
    this.#usageAhead.clear();
    let out = this.#carried + this.flushGroup();
    this.#carried = '';
    for (const m of this.#open.values()) m.done = true;
    this.#open.clear();
    out += this.drain();
    return out;
  }

  // ------------------------------------------------------------------------------------------
  // Lines as written

  private flushGroup(): string {
    const g = this.#group;
    if (g === undefined) return '';
    const [edit, record] = this.groupEditChecked(g);
    this.#group = undefined;
    // Anything built from the model before it goes first, whole.
    let out = '';
    if (this.#queue.length > 0) {
      for (const m of this.#open.values()) m.done = true;
      this.#open.clear();
      out = this.drain();
    }
    if (edit === 'rebuild') return out + this.rebuild(g);
    if (edit === 'patch') for (const e of g.events) if (e.type === 'tool.start') this.noteArgs(e);
    for (const e of g.events) this.follow(e, g);
    return out + groupText(g, edit, this.#redacted.size > 0 && this.staleCopy(g), record);
  }

  /**
   * The group's edit (`groupEdit`), its events checked first as its write will write them (each
   * from the model when rebuilt, the line's record with the edits patched in otherwise, which is
   * returned): a refusal leaves the group, and what the edit noted, as they were, and nothing
   * written. `trial`: only the check (what the edit noted is put back in any case).
   */
  private groupEditChecked(g: Group, trial = false): [Edit, JsonObject | undefined] {
    const usages = this.#seen.usages;
    const saved = [g.before, g.restated?.slice(), g.patched, usages.size === 0 ? [] : [...usages]] as const;
    let kept = false;
    try {
      const edit = groupEdit(g, this.#seen);
      let record: JsonObject | undefined;
      if (edit === 'rebuild') {
        for (const e of g.events) if (e.provenance?.synthetic !== true) this.assertWritable(e);
      } else if (edit === 'patch') record = groupRecord(g, this.copyLeftOut(g));
      kept = !trial;
      return [edit, record];
    } finally {
      if (!kept) {
        [g.before, g.restated, g.patched] = saved;
        usages.clear();
        for (const [k, v] of saved[3]) usages.set(k, v);
      }
    }
  }

  // A call's arguments edited (a redaction, whichever way the call is written): the strings they
  // said and say no more, which the call's result may repeat. Claude Code's `tool_use_result`
  // copies some (an Edit's `oldString` and `newString`, and its patch's lines hold them too).
  private noteArgs(e: AgentEventOf<'tool.start'>): void {
    const p = e.provenance;
    const said = p?.format === FORMAT ? (p.hints as ClaudeHints | undefined)?.said?.args : undefined;
    if (said === undefined || sameJson(said, e.args)) return;
    const now = new Set(stringsOf(e.args, []));
    const gone = stringsOf(said, []).filter((s) => s !== '' && !now.has(s));
    if (gone.length > 0) setBounded(this.#redacted, e.call, gone);
  }

  // Whether a call's result repeats a string its edited arguments say no more (`noteArgs`), in a
  // value or part of one. Asked once per call: its result comes once.
  // `keep`: only asked (before the write), the call stays noted.
  private repeats(call: string, result: unknown, keep = false): boolean {
    const gone = this.#redacted.get(call);
    if (gone === undefined || result === undefined) return false;
    if (!keep) this.#redacted.delete(call);
    const text = JSON.stringify(result);
    return gone.some((s) => text.includes(JSON.stringify(s).slice(1, -1)));
  }

  // Whether the line's tool result repeats what a redaction took out of its call's arguments.
  // `keep`: only asked (`copyLeftOut`).
  private staleCopy(g: Group, keep = false): boolean {
    for (const e of g.events)
      if (e.type === 'tool.end' && this.#redacted.has(e.call)) {
        // An edited result is the one written (`restate`): it is the one that may repeat them.
        if (g.restated?.includes(e) === true) return this.repeats(e.call, e.result, keep);
        g.record ??= parseJsonObject(g.raw);
        return g.record !== undefined && this.repeats(e.call, g.record.tool_use_result, keep);
      }
    return false;
  }

  /**
   * Whether the line's write will leave its result copy out (`staleCopy`), asked when its edit is
   * checked, before the write: a copy that is not written is not checked (it refused the event
   * although it would never be written). A copy JSON.stringify cannot read (a BigInt, a cycle)
   * is left in for the check, which refuses it with its path: the write could not tell either.
   */
  private copyLeftOut(g: Group): boolean {
    if (this.#redacted.size === 0) return false;
    try {
      return this.staleCopy(g, true);
    } catch (error) {
      if (error instanceof TypeError) return false;
      throw error;
    }
  }

  // A line one of whose events says what the line does not (and no patch can write): its events
  // are written from the model, as events without a kept line are, after the lines before it. A
  // synthetic one writes nothing, as without its line (a round's end written from the model would
  // write the message again, whose lines went through as written); the writer follows it.
  private rebuild(g: Group): string {
    let out = linesBefore(g.before);
    for (const e of g.events)
      if (e.provenance?.synthetic === true) this.follow(e);
      else out += this.model(e);
    return out;
  }

  // Keeps the model writer's picture of the stream right when lines pass through as written.
  private follow(e: AgentEvent, g?: Group): void {
    if (e.session !== undefined) this.#session = e.session;
    if (e.type === 'session.start' || e.type === 'run.start') {
      this.#initWritten = true;
      this.#needInit = false;
      if (e.type === 'run.start') this.#inRun = true;
    } else if (e.type === 'run.end') {
      this.#needInit = true;
      this.#inRun = false;
    } else if (e.type === 'child.start' && g !== undefined && lineTask(g) !== '')
      // A task whose line goes through as written goes on as the task the line names (written
      // from the model, as its child: `child`).
      setBounded(this.#seen.tasks, lineTask(g), e.child);
  }

  // ------------------------------------------------------------------------------------------
  // Records from the model

  private id(): string {
    return (this.#options.idSource ?? defaultId)();
  }

  private sessionId(e: AgentEvent): string {
    if (e.session !== undefined) this.#session = e.session;
    this.#session ??= this.#options.session ?? this.id();
    return this.#session;
  }

  private envelope(e: AgentEvent, record: JsonObject, lane = true): JsonObject {
    if (lane) record.parent_tool_use_id = e.lane ?? null;
    record.session_id = this.sessionId(e);
    record.uuid = this.id();
    return record;
  }

  private push(record: JsonObject): void {
    assertEncodable(record, 'record', 1000, FORMAT);
    const text = JSON.stringify(record);
    this.#queue.push(text);
    // Counted whenever something waits before it (within one event that may be lines the event
    // itself queued: the count runs ahead, which only cuts sooner).
    if (this.#queue.length > 1) {
      this.#behind += text.length;
      if (this.#behind >= this.#behindCap) this.cutQueue();
    }
  }

  // The records queued behind messages that have not ended passed CLAUDE_MAX_HELD_TEXT: a round
  // whose end does not come while its calls' results pile up (a highbar trace has no rounds at
  // all, so its one message would hold the whole run). Each such message writes its blocks so far
  // ahead, in its place, and goes on at the end of the queue: what waited behind it is written,
  // and its later blocks follow the results they came after. A Claude reader joins the message's
  // lines by id, as for a message written ahead (writeAhead).
  private cutQueue(): void {
    this.#behind = 0;
    const open: Message[] = [];
    const queue: Array<string | Message> = [];
    for (const item of this.#queue) {
      if (typeof item === 'string' || item.done) {
        queue.push(item);
        continue;
      }
      const lines = this.takeAhead(item);
      if (lines !== '') queue.push(lines.slice(0, -1));
      open.push(item);
    }
    if (open.length > 0) this.#queue = queue.concat(open);
  }

  // The queue's ready prefix as text: records, and messages that are done.
  private drain(): string {
    let out = '';
    let i = 0;
    for (; i < this.#queue.length; i++) {
      const item = this.#queue[i]!;
      if (typeof item === 'string') out += `${item}\n`;
      else if (item.done) out += this.messageText(item);
      else break;
    }
    // Nothing ready (a message before everything has not ended): the queue stays as it is, not
    // copied once per event while it waits.
    if (i === 0) return out;
    if (i === this.#queue.length) {
      this.#queue = [];
      this.#behind = 0;
    } else this.#queue = this.#queue.slice(i);
    return out;
  }

  private messageText(m: Message): string {
    let out = '';
    for (const block of m.blocks) {
      // The empty block a message written ahead goes on in, when other blocks followed it.
      if (m.ahead === true && m.blocks.length > 1 && isEmptyText(block)) continue;
      const record: JsonObject = {
        type: 'assistant',
        message: {
          model: m.model,
          id: m.id,
          type: 'message',
          role: 'assistant',
          content: [block],
          stop_reason: m.stop,
          stop_sequence: null,
          usage: m.usage ?? usageToClaude(undefined),
        },
        parent_tool_use_id: m.lane ?? null,
        session_id: this.#session ?? '',
        uuid: this.id(),
      };
      assertEncodable(record, 'record', 1000, FORMAT);
      out += `${JSON.stringify(record)}\n`;
    }
    return out;
  }

  private ensureInit(e: AgentEvent): void {
    if (this.#initWritten && !this.#needInit) return;
    const info = this.#info;
    // One literal: JSON leaves out a field the session did not say (undefined).
    this.push({
      type: 'system',
      subtype: 'init',
      cwd: info.cwd,
      session_id: this.sessionId(e),
      tools: info.tools ?? [],
      mcp_servers: [],
      model: info.model,
      permissionMode: info.mode,
      claude_code_version: info.producer,
      uuid: this.id(),
    });
    this.#initWritten = true;
    this.#needInit = false;
  }

  private message(e: AgentEvent, id?: string, model?: string): Message {
    const key = e.lane ?? '';
    let m = this.#open.get(key);
    if (m !== undefined && !m.done && (id === undefined || m.id === id)) return m;
    if (m !== undefined) m.done = true;
    this.ensureInit(e);
    this.sessionId(e);
    m = {
      id: id ?? `msg_${this.id()}`,
      model: model ?? this.#info.model ?? SYNTHETIC_MODEL,
      lane: e.lane,
      blocks: [],
      stop: null,
      done: false,
    };
    this.#open.set(key, m);
    this.#queue.push(m);
    const ahead = this.#usageAhead.get(key);
    if (ahead !== undefined && ahead.usage.key === m.id) {
      m.usage = usageToClaude(ahead.usage);
      m.said = ahead.usage;
      this.#usageAhead.delete(key);
    }
    if (e.lane === undefined) {
      this.#rounds++;
      this.foldRun();
      this.runMessages.push(m);
    }
    return m;
  }

  private closeLane(lane: string | undefined): void {
    const key = lane ?? '';
    const m = this.#open.get(key);
    if (m !== undefined) m.done = true;
    this.#open.delete(key);
  }

  private model(event: AgentEvent): string {
    this.#behindCap = typeof event.round === 'number' ? CLAUDE_MAX_HELD_TEXT : CLAUDE_MAX_HELD_UNNUMBERED;
    if (event.type === 'run.start' && this.#inRun) this.cutRun();
    if (!this.#inRun && !OUTSIDE_RUN.has(event.type)) return this.outsideRun(event);
    this.modelEvent(event);
    return this.drain();
  }

  private modelEvent(event: AgentEvent): void {
    this.assertWritable(event);
    const carried = CARRIED[event.type];
    if (carried === undefined) {
      this.#loss.report(event, event.type, 'claude has no record for it');
      return;
    }
    this.#loss.check(event, carried);
    this.record(event);
  }

  /**
   * An event outside any run whose line would open one (a Claude reader takes an `init` and
   * what follows it for a run): it waits for the next run's start, so that no run is made up. A
   * run's end with no start before it ends the events that waited: they were its run.
   */
  private outsideRun(event: AgentEvent): string {
    if (event.type === 'run.start') {
      this.#inRun = true;
      this.newRun();
      this.modelEvent(event);
      return this.releaseHeld();
    }
    if (event.type === 'run.end') {
      // Refused before the events that waited are let go for it (they wait for the next run).
      this.assertWritable(event);
      let out = '';
      if (this.#held.length > 0) {
        this.#inRun = true;
        this.newRun();
        out = this.releaseHeld();
      }
      this.modelEvent(event);
      this.#inRun = false;
      return out + this.drain();
    }
    assertHoldable(event);
    if (this.#held.length < MAX_HELD) this.#held.push(event);
    else this.#loss.report(event, event.type, 'too many events outside a run');
    return '';
  }

  /**
   * Throws now what writing the event's record would throw (the same words: the record's own
   * paths), before the event reports a loss, writes an init, takes an id, ends a message, answers
   * a call or lets held events go: refused in the middle, it would have left them behind. A
   * round's usage is kept on its message until the message is written, and a refusal there would
   * take down a later event's write (every line of the message, and the run's result).
   */
  // `laneOpen`: whether the event's lane has a message open when the event is written (the
  // writer's state now, unless the caller knows it will differ: `assertAhead`).
  private assertWritable(e: AgentEvent, laneOpen?: boolean): void {
    switch (e.type) {
      case 'tool.start':
        // Arguments streamed instead are parsed JSON (`toolStart` checks them).
        if (isJsonObject(e.args)) assertEncodable(e.args, 'tool.start.args', 1000, FORMAT);
        return;
      case 'tool.end':
        if (e.result !== undefined) assertEncodable(e.result, 'record.tool_use_result', 999, FORMAT);
        failureText(e);
        return;
      case 'tool.liveness':
        assertEncodable(e.elapsedMs / 1000, 'record.elapsed_time_seconds', 999, FORMAT);
        return;
      case 'compaction.end':
        assertEncodable(compactMetadata(e), 'record.compact_metadata', 999, FORMAT);
        return;
      case 'approval.request':
        assertEncodable(e.args ?? {}, 'record.request.input', 998, FORMAT);
        return;
      case 'notice': {
        const record = noticeRecord(e);
        if (record !== undefined) assertEncodable(record, 'record', 1000, FORMAT);
        return;
      }
      case 'round.end':
        if (e.usage !== undefined && (e.message !== '' || (laneOpen ?? this.#open.has(e.lane ?? '')))) {
          // Its figures are numbers (`usageToClaude` subtracts them; the run's total sums them).
          assertUsageNumbers(e.usage, 'round.end.usage', FORMAT);
          assertEncodable(usageToClaude(e.usage), 'record.message.usage', 998, FORMAT);
        }
        return;
      case 'usage':
        // A call's usage is kept for its message's lines (the others are reported lost).
        if (e.usage.scope === 'call') {
          assertUsageNumbers(e.usage, 'usage.usage', FORMAT);
          assertEncodable(usageToClaude(e.usage), 'record.message.usage', 998, FORMAT);
        }
        return;
      case 'run.end':
        if (e.status === 'incomplete') return;
        // The total's figures and its models' are numbers (the result's counts subtract them).
        if (e.usage !== undefined) {
          assertUsageNumbers(e.usage, 'run.end.usage', FORMAT);
          assertByModelFigures(e.usage, 'run.end.usage', FORMAT, assertUsageNumbers);
        }
        assertEncodable(this.result(e, e.usage ?? this.writtenUsage(), '', ''), 'record', 1000, FORMAT);
        return;
      default:
        return;
    }
  }

  private releaseHeld(): string {
    const held = this.#held;
    this.#held = [];
    for (const e of held) this.modelEvent(e);
    return this.drain();
  }

  private record(event: AgentEvent): void {
    switch (event.type) {
      case 'session.start': {
        this.sessionStart(event);
        return;
      }
      case 'run.start':
        this.ensureInit(event);
        this.#rounds = 0;
        if (event.input !== undefined && event.input !== '')
          this.push(this.envelope(event, { type: 'user', message: { role: 'user', content: event.input } }));
        return;
      case 'message.start':
        this.message(event, event.message, event.model);
        return;
      case 'round.start':
      case 'message.end':
        return;
      case 'text.delta': {
        this.text(event);
        return;
      }
      case 'reasoning.delta': {
        this.reasoning(event);
        return;
      }
      case 'tool.start': {
        this.toolStart(event);
        return;
      }
      case 'tool.args.delta':
        this.#args.set(event.call, (this.#args.get(event.call) ?? '') + event.text);
        return;
      case 'tool.output':
        this.output(event);
        return;
      case 'tool.liveness': {
        this.liveness(event);
        return;
      }
      case 'tool.end': {
        this.toolEnd(event);
        return;
      }
      case 'approval.request': {
        this.approval(event);
        return;
      }
      case 'question':
        if (event.call === undefined || !this.#calls.has(event.call))
          this.#loss.report(event, 'question', 'claude asks only through an AskUserQuestion tool call');
        return;
      case 'user.message': {
        const record: JsonObject = {
          type: 'user',
          message: { role: 'user', content: [{ type: 'text', text: event.text }] },
        };
        this.envelope(event, record);
        if (event.synthetic === true) record.isSynthetic = true;
        this.ensureInit(event);
        this.push(record);
        return;
      }
      case 'status': {
        const p = event.provenance;
        this.push(
          p?.format === FORMAT && (p.hints as ClaudeHints | undefined)?.state
            ? // Read from the session's state (its line not kept): that record again, in its order.
              {
                type: 'system',
                subtype: CLAUDE_SESSION_STATE,
                state: event.status,
                uuid: this.id(),
                session_id: this.sessionId(event),
              }
            : this.envelope(
                event,
                { type: 'system', subtype: 'status', status: event.status === 'idle' ? null : event.status },
                false,
              ),
        );
        return;
      }
      case 'notice': {
        this.notice(event);
        return;
      }
      case 'usage': {
        const m = this.#open.get(event.lane ?? '');
        const key = event.usage.key;
        if (event.usage.scope === 'call' && m !== undefined && m.usage === undefined) {
          m.usage = usageToClaude(event.usage);
          m.said = event.usage;
        } else if (event.usage.scope === 'call' && key !== undefined && (m === undefined || m.id !== key)) {
          // Said before the message it names began (a stream that orders them so): it waits.
          const ahead = this.#usageAhead.get(event.lane ?? '');
          if (ahead !== undefined)
            this.#loss.report(ahead, 'usage', 'claude states usage only on assistant lines and the result');
          this.#usageAhead.set(event.lane ?? '', event);
        } else
          this.#loss.report(event, 'usage', 'claude states usage only on assistant lines and the result');
        return;
      }
      case 'child.start':
      case 'child.progress':
      case 'child.end': {
        this.child(event);
        return;
      }
      case 'compaction.start':
        this.push(this.envelope(event, { type: 'system', subtype: 'status', status: 'compacting' }, false));
        return;
      case 'compaction.end': {
        this.compactionEnd(event);
        return;
      }
      case 'error': {
        this.error(event);
        return;
      }
      case 'round.end': {
        this.roundEnd(event);
        return;
      }
      case 'run.end': {
        this.runEnd(event);
        return;
      }
      default:
        return;
    }
  }

  private sessionStart(e: AgentEventOf<'session.start'>): void {
    if (e.producer !== undefined) this.#info.producer = e.producer;
    if (e.model !== undefined) this.#info.model = e.model;
    if (e.cwd !== undefined) this.#info.cwd = e.cwd;
    if (e.mode !== undefined) this.#info.mode = e.mode;
    if (e.tools !== undefined) this.#info.tools = e.tools;
    this.sessionId(e);
    if (!this.#initWritten) this.ensureInit(e);
  }

  private text(e: AgentEventOf<'text.delta'>): void {
    const m = this.message(e, e.message);
    const last = m.blocks[m.blocks.length - 1];
    if (last?.type === 'text') last.text = (last.text as string) + e.text;
    else m.blocks.push({ type: 'text', text: e.text });
    this.hold(m, e.text.length);
  }

  // Text and thinking alike count towards the cap: a message of many blocks is held whole too.
  private hold(m: Message, length: number): void {
    m.held = (m.held ?? 0) + length;
    if (m.held >= CLAUDE_MAX_HELD_TEXT) this.writeAhead(m);
  }

  // A message whose text passed CLAUDE_MAX_HELD_TEXT: its blocks so far become its first lines,
  // in its place in the queue (written at once when nothing before it waits), and it goes on in
  // an empty text block, which its last line carries with the stop reason if nothing follows.
  private writeAhead(m: Message): void {
    const lines = this.takeAhead(m);
    if (lines !== '') this.#queue.splice(this.#queue.indexOf(m), 0, lines.slice(0, -1));
  }

  // The lines of `m`'s blocks so far ('' when it has none but the empty block it went on in), and
  // `m` left to go on in an empty text block.
  private takeAhead(m: Message): string {
    const fresh =
      m.blocks.length === 0 || (m.ahead === true && m.blocks.length === 1 && isEmptyText(m.blocks[0]!));
    const lines = fresh ? '' : this.messageText(m);
    m.blocks = [{ type: 'text', text: '' }];
    m.ahead = true;
    m.held = 0;
    return lines;
  }

  private reasoning(e: AgentEventOf<'reasoning.delta'>): void {
    const m = this.message(e, e.message);
    if (e.redacted !== undefined) {
      m.blocks.push({ type: 'redacted_thinking', data: e.redacted });
      this.hold(m, e.redacted.length);
      return;
    }
    const last = m.blocks[m.blocks.length - 1];
    if (last?.type === 'thinking' && last.signature === '') {
      last.thinking = (last.thinking as string) + e.text;
      if (e.signature !== undefined) last.signature = e.signature;
    } else m.blocks.push({ type: 'thinking', thinking: e.text, signature: e.signature ?? '' });
    this.hold(m, e.text.length);
  }

  private toolStart(e: AgentEventOf<'tool.start'>): void {
    let input: unknown = e.args;
    const streamed = this.#args.get(e.call);
    if (input === undefined && streamed !== undefined) {
      try {
        input = JSON.parse(streamed);
      } catch {
        input = undefined;
      }
    }
    // The call's block is written with its message, at a later event or at the end: arguments
    // JSON cannot hold (an Infinity) are refused now, as this event's refusal, before anything
    // is kept of it. Refused there, the refusal would take a later event's write, or the end's
    // whole output, down with it.
    // (The event's own arguments are checked before its losses are said: `assertWritable`.)
    if (input !== e.args && isJsonObject(input)) assertEncodable(input, 'tool.start.args', 1000, FORMAT);
    this.noteArgs(e);
    const m = this.message(e);
    // The id is held (by `calls`, by the message until it is written, by `unanswered` until the
    // call's result) as a string of its own: one sliced from a chunk's text would hold the chunk
    // (`ownString`). One copy serves the three.
    const id = ownString(e.call);
    // Names are looked up for the calls a question or a liveness report names: recent ones.
    setBoundedOwn(this.#calls, id, sharedString(e.name, this.#names));
    this.#unanswered.set(id, e.lane);
    this.#args.delete(e.call);
    if (e.args === undefined && e.argsSummary !== undefined)
      this.#loss.report(e, 'tool.start.argsSummary', 'claude keeps arguments as an object only');
    noPlace(this.#loss, e, ['kind', 'server', 'command', 'startedAt']);
    m.blocks.push({ type: 'tool_use', id, name: e.name, input: isJsonObject(input) ? input : {} });
    // A block of its own counts towards the cap too (its input unmeasured): a message of many
    // calls is not held whole.
    this.hold(m, TOOL_USE_HELD);
  }

  // Held for the call's tool_result up to CLAUDE_MAX_HELD_OUTPUT characters (as the Codex
  // writer holds a command's output); what does not fit is a loss.
  private output(e: AgentEventOf<'tool.output'>): void {
    const held = this.#outputs.get(e.call) ?? '';
    const room = CLAUDE_MAX_HELD_OUTPUT - held.length;
    if (room > 0) this.#outputs.set(e.call, held + (e.text.length <= room ? e.text : e.text.slice(0, room)));
    if (e.text.length > room)
      this.#loss.report(
        e,
        'tool.output.text',
        `streamed output past ${CLAUDE_MAX_HELD_OUTPUT} characters is not held for the tool result`,
      );
  }

  private liveness(e: AgentEventOf<'tool.liveness'>): void {
    this.ensureInit(e);
    const record: JsonObject = {
      type: 'tool_progress',
      tool_use_id: e.call,
      tool_name: e.name ?? this.#calls.get(e.call) ?? '',
      parent_tool_use_id: e.lane ?? null,
      elapsed_time_seconds: e.elapsedMs / 1000,
    };
    if (e.action !== 'heartbeat')
      this.#loss.report(e, 'tool.liveness.action', 'claude reports heartbeats only');
    noPlace(this.#loss, e, ['outputBytes', 'detail']);
    this.push(this.envelope(e, record, false));
  }

  private toolEnd(e: AgentEventOf<'tool.end'>): void {
    // Its result was checked (as `push` checks the record, where the result is a level down)
    // before an init is written, an id taken or the call let go for it: `assertWritable`.
    const failure = failureText(e);
    this.ensureInit(e);
    this.#unanswered.delete(e.call);
    const output = this.#outputs.get(e.call);
    this.#outputs.delete(e.call);
    let content = e.text;
    if (content === undefined && output !== undefined) content = output;
    else if (output !== undefined)
      this.#loss.report(e, 'tool.output', 'claude keeps only the result, not streamed output');
    // A failed call's structured result takes the line's `tool_use_result`: its error is read
    // from the block's text, which says the error when the call has no text of its own.
    const structured = e.result !== undefined && typeof e.result !== 'string';
    if (content === undefined && structured && failure !== undefined) content = failure;
    if (content === undefined && e.result !== undefined)
      content = typeof e.result === 'string' ? e.result : encodeJson(e.result, 'tool.end.result', FORMAT);
    // (A successful call's text error as its text, as the writer always wrote it: read as no error.)
    if (content === undefined) content = failure ?? (typeof e.error === 'string' ? e.error : undefined);
    const block: JsonObject = { tool_use_id: e.call, type: 'tool_result', content: content ?? '' };
    if (!e.ok) block.is_error = true;
    const record: JsonObject = { type: 'user', message: { role: 'user', content: [block] } };
    this.envelope(e, record);
    // A result that repeats what a redaction took out of the call's arguments is left out.
    if (e.result !== undefined && !this.repeats(e.call, e.result)) record.tool_use_result = e.result;
    // A failed call's `tool_use_result` string is read as its error: the error goes there unless
    // the text says it or a structured result holds the place (a text result is the block's text).
    const again = record.tool_use_result;
    if (
      failure !== undefined &&
      failure !== block.content &&
      (again === undefined || again === block.content)
    )
      record.tool_use_result = failure;
    if (e.denied === true) record.tool_result_meta = [{ id: e.call, non_execution_kind: 'permission-rule' }];
    noPlace(this.#loss, e, ['exitCode', 'filesChanged', 'startedAt', 'endedAt']);
    if (e.lane !== undefined) this.closeLane(e.lane);
    this.push(record);
    // After the push (its check may refuse the event, which then reports nothing).
    const lost = errorLost(e, failure, record.tool_use_result, block.content as string);
    if (lost !== undefined) this.#loss.report(e, 'tool.end.error', lost);
  }

  private approval(e: AgentEventOf<'approval.request'>): void {
    this.ensureInit(e);
    const request = {
      subtype: 'can_use_tool',
      tool_name: e.tool ?? '',
      input: e.args ?? {},
      description: e.title,
      tool_use_id: e.call,
    };
    noPlace(this.#loss, e, ['effects', 'options']);
    this.push({ type: 'control_request', request_id: e.approval, request });
  }

  private notice(e: AgentEventOf<'notice'>): void {
    const record = noticeRecord(e);
    if (record === undefined) {
      this.#loss.report(e, 'notice', `claude has no record for a ${e.kind} notice`);
      return;
    }
    this.push(this.envelope(e, record, false));
  }

  private child(e: AgentEventOf<'child.start' | 'child.progress' | 'child.end'>): void {
    this.ensureInit(e);
    // Each record one literal: JSON leaves out a field the event does not have (undefined).
    let record: JsonObject;
    if (e.type === 'child.start') {
      // A task's lane is read from the lane of the call that spawned it: without a call, one
      // started by a subagent reads back as the main agent's.
      if (e.lane !== undefined && e.call === undefined)
        this.#loss.report(
          e,
          'child.start.lane',
          'claude places a task by the call that spawned it, and this one names none',
        );
      setBounded(this.#seen.tasks, e.child, e.child);
      record = {
        type: 'system',
        subtype: 'task_started',
        task_id: e.child,
        tool_use_id: e.call ?? e.child,
        description: e.task ?? e.name ?? '',
        subagent_type: e.name,
        is_backgrounded: e.background,
        task_type: taskType(e.kind),
      };
    } else if (e.type === 'child.progress') {
      record = {
        type: 'system',
        subtype: 'task_progress',
        task_id: e.child,
        tool_use_id: e.child,
        description: e.detail ?? '',
      };
      if (e.usage !== undefined)
        this.#loss.report(e, 'child.progress.usage', 'claude counts a task in its own terms');
    } else {
      this.closeLane(e.child);
      record = {
        type: 'system',
        subtype: 'task_notification',
        task_id: e.child,
        tool_use_id: e.child,
        status: e.status === 'cancelled' ? 'stopped' : e.status === 'completed' ? 'completed' : 'failed',
        output_file: '',
        summary: e.result ?? '',
      };
      if (e.usage !== undefined)
        this.#loss.report(e, 'child.end.usage', 'claude counts a task in its own terms');
    }
    this.push(this.envelope(e, record, false));
  }

  private compactionEnd(e: AgentEventOf<'compaction.end'>): void {
    const meta = compactMetadata(e);
    this.push(
      this.envelope(e, { type: 'system', subtype: 'compact_boundary', compact_metadata: meta }, false),
    );
  }

  private error(e: AgentEventOf<'error'>): void {
    this.ensureInit(e);
    const record: JsonObject = {
      type: 'assistant',
      message: {
        model: SYNTHETIC_MODEL,
        id: this.id(),
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: e.message }],
        stop_reason: 'stop_sequence',
        stop_sequence: '',
        usage: usageToClaude(undefined),
      },
    };
    this.envelope(e, record);
    record.error = e.code ?? 'unknown';
    if (e.data !== undefined) this.#loss.report(e, 'error.data', 'claude keeps an error as text');
    this.push(record);
  }

  private roundEnd(e: AgentEventOf<'round.end'>): void {
    let m = this.#open.get(e.lane ?? '');
    if (m === undefined && e.message !== '') m = this.message(e);
    if (m === undefined) {
      if (e.usage !== undefined)
        this.#loss.report(e, 'round.end.usage', 'a round without content has no assistant line');
      return;
    }
    if (m.blocks.length === 0 && e.message !== '') m.blocks.push({ type: 'text', text: e.message });
    if (e.usage !== undefined) {
      m.usage = usageToClaude(e.usage);
      m.said = e.usage;
    }
    if (e.stopReason !== undefined) m.stop = e.stopReason;
    if (e.model !== undefined) m.model = e.model;
    this.closeLane(e.lane);
  }

  /**
   * Ends a run without its terminal record (what the source said: it was cut off). The next run
   * is a run of its own (its own `init`), not more of this one, and this run's calls stay
   * unanswered, as they were.
   */
  private cutRun(): void {
    for (const m of this.#open.values()) m.done = true;
    this.#open.clear();
    this.#inRun = false;
    this.#needInit = true;
    this.#unanswered.clear();
    this.newRun();
  }

  private runEnd(e: AgentEventOf<'run.end'>): void {
    if (e.status === 'incomplete') {
      // Tokens stay on the assistant lines; the cost is said only by the result a cut run lacks.
      const cost = e.usage?.costUsd ?? this.writtenUsage().costUsd;
      if (cost !== undefined && cost !== 0)
        this.#loss.report(
          e,
          'run.end.usage.costUsd',
          'claude states a cost only on the result a run cut off has not',
        );
      this.cutRun();
      return;
    }
    for (const m of this.#open.values()) m.done = true;
    this.#open.clear();
    this.#inRun = false;
    this.ensureInit(e);
    // Claude answers every tool_use before its result; a call cut short is interrupted.
    for (const [call, lane] of this.#unanswered) {
      const block = { tool_use_id: call, type: 'tool_result', content: INTERRUPTED, is_error: true };
      const record: JsonObject = { type: 'user', message: { role: 'user', content: [block] } };
      record.parent_tool_use_id = lane ?? null;
      record.session_id = this.sessionId(e);
      record.uuid = this.id();
      this.push(record);
    }
    this.#unanswered.clear();
    // The run's total, or (when its end has none) the sum of what its lines said.
    const usage: Usage = e.usage ?? this.writtenUsage();
    this.newRun();
    const session = this.sessionId(e);
    // A result always states a cost: 0 for a source that has none says what it does not know.
    if (usage.costUsd === undefined)
      this.#loss.report(
        e,
        'run.end.usage.costUsd',
        'claude writes total_cost_usd always: 0 for a cost not known',
      );
    this.push(this.result(e, usage, session, this.id()));
    this.#needInit = true;
  }

  /**
   * A run's `result` record, with `usage` its total; `session` and `uuid` as given (blank for
   * `assertWritable`, which checks the record before its ids are taken: the same shape).
   */
  private result(e: AgentEventOf<'run.end'>, usage: Usage, session: string, uuid: string): JsonObject {
    const reason = e.reason;
    const isSubtype = reason !== undefined && (RESULT_SUBTYPES as readonly string[]).includes(reason);
    let subtype: string;
    let terminal: string | undefined;
    if (isSubtype) subtype = reason;
    else if (e.status === 'completed') {
      subtype = 'success';
      terminal = reason;
    } else if (e.status === 'failed' && reason !== undefined) {
      subtype = 'success'; // the model-not-found shape: is_error says it failed
      terminal = reason;
    } else subtype = 'error_during_execution';
    // One literal: JSON leaves out a field that is undefined.
    return {
      type: 'result',
      subtype,
      is_error: e.status === 'failed',
      duration_ms: e.durationMs ?? 0,
      duration_api_ms: 0,
      num_turns: this.#rounds,
      result: e.answer,
      stop_reason: e.stopReason ?? null,
      session_id: session,
      total_cost_usd: usage.costUsd ?? 0,
      usage: usageToClaude(usage),
      modelUsage: usage.byModel === undefined ? undefined : byModelToClaude(usage.byModel),
      permission_denials: [],
      terminal_reason: terminal,
      errors: e.error === undefined ? undefined : [e.error],
      uuid,
    };
  }

  /** The usage the run's main-agent lines carry, summed: what a reader totals for the run. */
  private writtenUsage(): Usage {
    const total: Usage = { ...this.#runUsage };
    // Exact decimal sums (src/usage.ts): a cost such as 0.054201000000000006 added as written.
    for (const m of this.runMessages) if (m.said !== undefined) addUsage(total, m.said);
    return total;
  }

  private newRun(): void {
    this.runMessages = [];
    this.#runUsage = {};
  }

  // The done messages at the front of `runMessages` summed into `runUsage`, in the same order as
  // `writtenUsage` sums them (the sum is the same figures). A done message is out of `open`, so
  // its usage is final.
  private foldRun(): void {
    const messages = this.runMessages;
    let i = 0;
    for (; i < messages.length && messages[i]!.done; i++) {
      const said = messages[i]!.said;
      if (said !== undefined) addUsage(this.#runUsage, said);
    }
    if (i > 0) this.runMessages = messages.slice(i);
  }
}
