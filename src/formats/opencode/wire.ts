// Every byte rule of `opencode run --format json`, in one place. The emitter is OpenCode's
// `packages/opencode/src/cli/cmd/run.ts` `emit(type, data)`: `JSON.stringify({ type, timestamp:
// Date.now(), sessionID, ...data }) + os.EOL` (CRLF on Windows). `data` is `{ part }` (a message
// part as the server holds it), `{ error }` or `{ reason, rejected }`.

import type { Detection } from '../../detect';
import type { LineEnd } from '../../framing/line-ends';
import { finiteOr, isOneOf, num } from '../../guards';
import { isJsonObject, type JsonObject } from '../../json';
import type { Usage } from '../../model';
import { aOr } from '../../words';

/** The record types `opencode run --format json` writes. */
export const OPENCODE_RECORD_TYPES = [
  'step_start',
  'text',
  'reasoning',
  'tool_use',
  'step_finish',
  'error',
  'done',
] as const;

/** One of {@link OPENCODE_RECORD_TYPES}. */
export type OpencodeRecordType = (typeof OPENCODE_RECORD_TYPES)[number];

/** True for a record type OpenCode writes. */
export function isOpencodeRecordType(type: unknown): type is OpencodeRecordType {
  return isOneOf(OPENCODE_RECORD_TYPES, type);
}

/**
 * Default `maxLineBytes` for OpenCode: a `tool_use` line carries the tool's whole output (a file
 * read, a build log) and its metadata copy of it, so lines of several MiB are ordinary.
 */
export const OPENCODE_MAX_LINE_BYTES: number = 16 * 1024 * 1024;

/**
 * Most characters of another format's text or reasoning deltas the writer joins into one part:
 * 1 Mi. Past it the part is written and the deltas go on in the next part of the same step,
 * which a reader joins back (a step's message is its text parts together), so a converted
 * runaway message holds bounded memory and loses nothing (docs/limits.md).
 */
export const OPENCODE_MAX_HELD_TEXT: number = 1024 * 1024;

/**
 * The fixed text of the lines the decoder reads without parsing them whole (its canonical-line
 * reader, docs/performance.md "OpenCode decoder, round six"): `step_start`, `text`, `tool_use`
 * (completed or failed) and `step_finish` lines as `emit` spells them, the envelope's keys
 * first, then the part's (no space).
 */
export const OPENCODE_CANONICAL_TEXT = {
  head: '{"type":"',
  timestamp: '","timestamp":',
  session: ',"sessionID":',
  part: ',"part":{"id":',
  partSession: ',"sessionID":',
  message: ',"messageID":',
  partType: ',"type":"',
  stepStart: 'step-start","snapshot":',
  text: 'text","text":',
  time: ',"time":{"start":',
  end: ',"end":',
  stepFinish: 'step-finish","reason":',
  snapshot: ',"snapshot":',
  cost: ',"cost":',
  tokens: ',"tokens":{"input":',
  output: ',"output":',
  reasoning: ',"reasoning":',
  cache: ',"cache":{"read":',
  write: ',"write":',
  tool: 'tool","callID":',
  toolName: ',"tool":',
  completed: ',"state":{"status":"completed","input":',
  failed: ',"state":{"status":"error","input":',
  title: ',"title":',
  metadata: ',"metadata":',
  metadataOutput: '{"output":',
  exit: ',"exit":',
  description: ',"description":',
  error: ',"error":',
} as const;

/**
 * The decoder's reading of a canonical line's head in one match, {@link OPENCODE_CANONICAL_TEXT}'s
 * `head` up to `partType`: the record type (one the reader takes), the timestamp (plain digits, at
 * most 15), the session, the part's id, the part's session (the record's again) and the message,
 * each id a string without escapes or control characters (the text between its quotes is its
 * value). A head this does not match is read piece by piece.
 */
export const OPENCODE_CANONICAL_HEAD: RegExp =
  /^\{"type":"(?:step_start|text|tool_use|step_finish)","timestamp":(0|[1-9]\d{0,14}),"sessionID":"([^"\\\u0000-\u001f]*)","part":\{"id":"([^"\\\u0000-\u001f]*)","sessionID":"\2","messageID":"([^"\\\u0000-\u001f]*)","type":"/;

/** The part `type` each record type carries (`step_start` → `step-start`, …). */
export const OPENCODE_PART_TYPE: Readonly<Record<string, string>> = {
  step_start: 'step-start',
  text: 'text',
  reasoning: 'reasoning',
  tool_use: 'tool',
  step_finish: 'step-finish',
};

/** The `state.status` values a `tool_use` record can carry: only finished tools are written. */
export const OPENCODE_TOOL_DONE = ['completed', 'error'] as const;

/** The `step_finish` reason that ends the run when an older build writes no `done`. */
export const OPENCODE_STOP_REASON = 'stop';

/** The `done.reason` OpenCode writes (the session went idle). */
export const OPENCODE_DONE_REASON = 'idle';

/** Id prefixes OpenCode gives parts and messages (a writer making ids for foreign events uses them). */
export const OPENCODE_PART_PREFIX = 'prt_';
/** See {@link OPENCODE_PART_PREFIX}. */
export const OPENCODE_MESSAGE_PREFIX = 'msg_';

/**
 * What the OpenCode decoder leaves in `provenance.hints` for the writer. The writer rebuilds a
 * record from `record` with the event's mapped fields put back (so an edited event is written
 * as edited, unknown fields and nested key order kept), and writes `raw` when the rebuilt line
 * says the same (`rawIfSame`).
 */
export interface OpencodeHints {
  /** The line as written (terminator excluded). */
  raw?: string;
  /**
   * The record as parsed: the template the writer puts the event's fields back into.
   * The writer trusts it to be what `raw` parses to: while the event says what it says, the line
   * is written as kept without reading `record` whole (edit the event, not its hints).
   */
  record?: unknown;
  /** The line's terminator when it was not `\n`: `\r\n` (Windows) or `''` (last line, none). */
  eol?: LineEnd;
}

/** `step_finish.part.tokens` as OpenCode writes it (`input` excludes cache, `output` excludes reasoning). */
export interface OpencodeTokens {
  total?: number;
  input: number;
  output: number;
  reasoning: number;
  cache: { read: number; write: number };
}

/**
 * Canonical usage from a step's `tokens` and `cost`: OpenCode's `input` is the uncached input
 * (`inputTokens − cache.read − cache.write`) and `output` excludes reasoning, so the canonical
 * `input` adds the cache back and `output` adds reasoning (docs/model.md "Usage").
 */
export function usageFromWire(tokens: unknown, cost: unknown): Usage | undefined {
  const usage: Usage = {};
  if (isJsonObject(tokens)) {
    const input = num(tokens.input);
    const output = num(tokens.output);
    const reasoning = num(tokens.reasoning);
    const cache = isJsonObject(tokens.cache) ? tokens.cache : undefined;
    const read = num(cache?.read);
    const write = num(cache?.write);
    const all = input === undefined ? undefined : finiteOr(input + (read ?? 0) + (write ?? 0));
    if (all !== undefined) usage.input = all;
    const out = output === undefined ? undefined : finiteOr(output + (reasoning ?? 0));
    if (out !== undefined) usage.output = out;
    if (read !== undefined) usage.cacheRead = read;
    if (write !== undefined) usage.cacheWrite = write;
    if (reasoning !== undefined) usage.reasoning = reasoning;
  }
  const c = num(cost);
  if (c !== undefined) usage.costUsd = c;
  for (const _ in usage) return usage;
  return undefined;
}

/** OpenCode's `tokens` fields from canonical usage (the inverse of {@link usageFromWire}). */
export function tokensToWire(usage: Usage | undefined): OpencodeTokens {
  const read = usage?.cacheRead ?? 0;
  const write = usage?.cacheWrite ?? 0;
  const reasoning = usage?.reasoning ?? 0;
  return {
    input: (usage?.input ?? 0) - read - write,
    output: (usage?.output ?? 0) - reasoning,
    reasoning,
    cache: { read, write },
  };
}

/**
 * The sniffing rule `detectFormat` calls with the first record: OpenCode's envelope is
 * `type, timestamp, sessionID` (camelCase `ID`, no other agent spells it so) with a `part`
 * object, an `error` object or a `done`.
 */
export function sniffOpencode(record: JsonObject): Detection | undefined {
  if (typeof record.sessionID !== 'string' || typeof record.type !== 'string') return undefined;
  if (typeof record.timestamp !== 'number') return undefined;
  if (isOpencodeRecordType(record.type)) {
    return { format: 'opencode', confidence: 'certain', reason: `${aOr(record.type)} record with sessionID` };
  }
  if (isJsonObject(record.part)) {
    return { format: 'opencode', confidence: 'likely', reason: 'a part record with sessionID' };
  }
  return undefined;
}

/**
 * One line of each common record (step start, text, step finish with tokens, a finished and a
 * failed tool call) as one stream: the codec's `heldInput`, which its held decoder reads and
 * whose events it keeps, so their hidden classes outlive a full GC between streams (createReader;
 * docs/performance.md, "Round thirty-four"). Times past a small integer, as real ones are (a
 * field's representation is part of its hidden class); a sum of plain strings, so a bundle that
 * does not use it drops it.
 */
export const OPENCODE_HELD_INPUT =
  '{"type":"step_start","timestamp":1767036059931,"sessionID":"ses_1","part":{"id":"prt_1","sessionID":"ses_1","messageID":"msg_1","type":"step-start","snapshot":"a"}}\n' +
  '{"type":"text","timestamp":1767036059931,"sessionID":"ses_1","part":{"id":"prt_2","sessionID":"ses_1","messageID":"msg_1","type":"text","text":"a","time":{"start":1767036059931,"end":1767036059931}}}\n' +
  '{"type":"step_finish","timestamp":1767036059931,"sessionID":"ses_1","part":{"id":"prt_3","sessionID":"ses_1","messageID":"msg_1","type":"step-finish","reason":"stop","snapshot":"a","cost":0.5,"tokens":{"input":1,"output":1,"reasoning":0,"cache":{"read":1,"write":0}}}}\n' +
  '{"type":"tool_use","timestamp":1767036059931,"sessionID":"ses_1","part":{"id":"prt_4","sessionID":"ses_1","messageID":"msg_1","type":"tool","callID":"c1","tool":"bash","state":{"status":"completed","input":{"command":"a","description":"a"},"output":"a","title":"a","metadata":{"output":"a","exit":0,"description":"a"},"time":{"start":1767036059931,"end":1767036059931}}}}\n' +
  '{"type":"tool_use","timestamp":1767036059931,"sessionID":"ses_1","part":{"id":"prt_5","sessionID":"ses_1","messageID":"msg_1","type":"tool","callID":"c2","tool":"bash","state":{"status":"error","input":{"command":"a","description":"a"},"error":"a","time":{"start":1767036059931,"end":1767036059931}}}}\n';
