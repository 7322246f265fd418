import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import { finiteOr, num } from '../../guards';
import {
  DEPTH_PRECHECK_CHARS,
  isJsonObject,
  type JsonObject,
  mayHoldUnsafeNumber,
  parseObjectRecord,
  resolveMaxDepth,
  unsafeNumberMessage,
  valueExceedsDepth,
} from '../../json';
import { copyJson } from '../../kept';
import type { AgentEvent, AgentEventOf, Provenance, RunStatus, Usage } from '../../model';
import {
  readDigits,
  readFixed,
  readJsonValue,
  readString,
  readStringTo,
  type TextReader,
  textReader,
} from '../../text-reader';
import { addUsage } from '../../usage';
import {
  LANES,
  LAST_LINE,
  LAST_OFFSET,
  LEGACY,
  MAX_DEPTH,
  OPEN_ROUND,
  REPORT,
  ROUND,
  ROUND_GAP,
  RUN_OPEN,
  RUN_USAGE,
  SESSION,
  SINK,
  TOOL_NAMES,
} from './slots';
import {
  AMP_ASSISTANT_LINE_HEAD,
  AMP_CANONICAL_TEXT,
  AMP_LEGACY_TYPES,
  AMP_SUCCESS,
  type AmpHints,
  isAmpToolList,
  isMappedAssistantBlock,
  isMappedUserBlock,
} from './wire';

/** Options of the Amp decoder. */
export interface AmpDecodeOptions extends DecodeOptions {}

const FORMAT = 'amp' as const;

/** An event being built: its type, and fields set as the record gives them. */
type Emit = { type: AgentEvent['type'] } & Record<string, unknown>;

/** The text of a `tool_result` content: a string, or text blocks joined. */
function resultText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const b of content)
    if (isJsonObject(b) && b.type === 'text' && typeof b.text === 'string') text += b.text;
  return text;
}

/**
 * An assistant line's usage. Amp writes it as Anthropic does: `input_tokens` without the cache,
 * `cache_creation_input_tokens` and `cache_read_input_tokens` beside it; the model's `input` is
 * all three (docs/model.md "Usage").
 */
function lineUsage(u: JsonObject): Usage {
  const input = num(u.input_tokens);
  const write = num(u.cache_creation_input_tokens);
  const read = num(u.cache_read_input_tokens);
  const output = num(u.output_tokens);
  // All four given (what Amp writes): one literal, the same object the general path builds.
  if (AMP_WHOLE_EVENTS.enabled && input !== undefined && output !== undefined) {
    // (A sum past a double's range takes the general path, which leaves it out.)
    if (write !== undefined && read !== undefined && Number.isFinite(input + write + read))
      return { input: input + write + read, output, cacheRead: read, cacheWrite: write };
    // Without the cache counts (what this codec's writer spells for a usage without them).
    if (write === undefined && read === undefined) return { input: input + 0, output };
  }
  const usage: Usage = {};
  const all =
    input !== undefined || write !== undefined || read !== undefined
      ? finiteOr((input ?? 0) + (write ?? 0) + (read ?? 0))
      : undefined;
  if (all !== undefined) usage.input = all;
  if (output !== undefined) usage.output = output;
  if (read !== undefined) usage.cacheRead = read;
  if (write !== undefined) usage.cacheWrite = write;
  return usage;
}

/** The line being mapped: what every event built from it shares. */
interface Line {
  record: JsonObject;
  text: string;
  line: number;
  offset: number;
  /** `parent_tool_use_id`: the child lane (subagent) the line belongs to. */
  lane: string | undefined;
  out: AgentEvent[];
}

/** Where an event of the line being read belongs: a subagent's lane, a main-lane round, or neither. */
type Place = 'lane' | 'round' | 'none';

/** What came between a main-lane assistant line and the next: nothing, only tool results, or else. */
type RoundGap = 'none' | 'results' | 'other';

/** The main-lane round an assistant line began, ended later by {@link closeRound}. */
interface OpenRound {
  ctx: Line;
  message: string;
  stopReason: string | undefined;
  usage: Usage | undefined;
  round: number;
}

/**
 * The decoder's state between lines ({@link newDecoder}): an array of slots (the indices below),
 * not a literal. A literal made once per decoder gets no allocation site until its factory has run
 * several times, so its hidden class dies with the last decoder at a full GC and takes the
 * optimised per-line code that embedded it along; an array's hidden class is the realm's and
 * outlives every GC (docs/performance.md, "Amp decoder, round twelve"; the Claude decoder's state).
 */
type Decoder = [
  sink: DiagnosticSink,
  report: LineReport,
  maxDepth: number,
  session: string | undefined,
  legacy: boolean,
  runOpen: boolean,
  round: number,
  runUsage: Usage | undefined,
  openRound: OpenRound | undefined,
  // What came since the open round's line (see `continuedRound`).
  roundGap: RoundGap,
  // Calls still open: entries leave when their end arrives.
  toolNames: Map<string, string>,
  // Lanes still open.
  lanes: Set<string>,
  lastLine: number,
  lastOffset: number,
];

function newDecoder(options: AmpDecodeOptions, sink: DiagnosticSink): Decoder {
  return [
    sink,
    lineReporter(sink, FORMAT),
    resolveMaxDepth(options.maxDepth),
    undefined,
    false,
    false,
    0,
    undefined,
    undefined,
    'other',
    new Map(),
    new Set(),
    0,
    0,
  ];
}

/**
 * The Amp stream-json decoder: one record per line → canonical events. A run is the span from
 * the user's message to `result` (one per `--stream-json-input` message); each main-lane assistant
 * line begins a round (its content blocks), the `tool_result` blocks of the next user line end its
 * calls, and the round ends (a derived `round.end` with the line's usage) when the next assistant
 * line or the result comes; lines of a subagent carry its `parent_tool_use_id` as their lane.
 */
export function createAmpRecordDecoder(options: AmpDecodeOptions, sink: DiagnosticSink): RecordDecoder {
  return new AmpRecordDecoder(newDecoder(options, sink));
}

/**
 * The record decoder: the state in its element 0, `line` and `end` on the prototype (the Codex
 * record decoder's shape). One `line` for every decoder, so the line splitter's call site keeps
 * its target, and the code that inlined it, from one stream to the next; a bound function made
 * per decoder was a new call target each time ("wrong call target" at every new stream:
 * docs/performance.md, "Record decoders as classes", round twenty-two).
 */
class AmpRecordDecoder implements RecordDecoder {
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
 * Whether the frequent events (a text block, a tool call and its result, a round's end) are
 * built whole, each in one object literal with every field it has, instead of through
 * {@link push}, which adds the envelope to a literal afterwards. The two give the same events;
 * off, only the general path runs (the property test in test/amp/whole-events.test.ts holds them
 * equal). Whole literals keep their hidden classes across a full GC and give monomorphic stores.
 */
export const AMP_WHOLE_EVENTS: { enabled: boolean } = { enabled: true };

// Where `push` would put a kept-line event: its lane, its run's round, or neither. Whole events
// are built only for a known session (every Amp line has one), else they take the general path.
function placeOf(d: Decoder, ctx: Line): Place {
  if (!AMP_WHOLE_EVENTS.enabled || d[SESSION] === undefined) return 'none';
  if (ctx.lane !== undefined) return 'lane';
  return d[RUN_OPEN] && d[ROUND] > 0 ? 'round' : 'none';
}

function keptAt(ctx: Line, block: JsonObject): Provenance {
  return {
    format: FORMAT,
    line: ctx.line,
    offset: ctx.offset,
    hints: { raw: ctx.text, record: ctx.record, block },
  };
}

function pushText(d: Decoder, ctx: Line, text: string, b: JsonObject): void {
  const place = placeOf(d, ctx);
  if (place === 'none') {
    push(d, ctx, { type: 'text.delta', text }, b);
    return;
  }
  const session = d[SESSION] as string;
  const provenance = keptAt(ctx, b);
  ctx.out.push(
    place === 'round'
      ? { type: 'text.delta', text, session, round: d[ROUND], provenance }
      : { type: 'text.delta', text, session, lane: ctx.lane as string, provenance },
  );
}

function pushToolStart(d: Decoder, ctx: Line, call: string, name: string, b: JsonObject): void {
  // The event gets a copy of the kept block's input: the writer's kept-line check trusts that the
  // kept record is what its line says, and an in-place edit of an object the event shared with it
  // would change the kept record too (src/kept.ts, `copyJson`).
  const input = b.input;
  const args = isJsonObject(input) ? copyJson(input) : input;
  const place = placeOf(d, ctx);
  if (place === 'none' || !isJsonObject(args)) {
    const e: Emit = { type: 'tool.start', call, name };
    if (isJsonObject(args)) e.args = args;
    push(d, ctx, e, b);
    return;
  }
  const session = d[SESSION] as string;
  const provenance = keptAt(ctx, b);
  ctx.out.push(
    place === 'round'
      ? { type: 'tool.start', call, name, args, session, round: d[ROUND], provenance }
      : { type: 'tool.start', call, name, args, session, lane: ctx.lane as string, provenance },
  );
}

/** A `tool_result` block as the decoder reads it. */
interface ToolEnd {
  call: string;
  ok: boolean;
  name: string | undefined;
  text: string | undefined;
}

function pushToolEnd(d: Decoder, ctx: Line, t: ToolEnd, b: JsonObject): void {
  const { call, ok, name, text } = t;
  const place = placeOf(d, ctx);
  if (place === 'none' || name === undefined || text === undefined) {
    const e: Emit = { type: 'tool.end', call, ok };
    if (name !== undefined) e.name = name;
    if (text !== undefined) e.text = text;
    push(d, ctx, e, b);
    return;
  }
  const session = d[SESSION] as string;
  const provenance = keptAt(ctx, b);
  ctx.out.push(
    place === 'round'
      ? { type: 'tool.end', call, ok, name, text, session, round: d[ROUND], provenance }
      : { type: 'tool.end', call, ok, name, text, session, lane: ctx.lane as string, provenance },
  );
}

// ------------------------------------------------------------------------------------------
// Lines

function readLine(d: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  d[LAST_LINE] = line;
  d[LAST_OFFSET] = offset;
  // A canonical line's record is within the depth bound (its reader measured what can nest).
  const canonical = ampCanonicalLines.enabled ? readAmpCanonicalLine(text, d[MAX_DEPTH]) : undefined;
  if (canonical !== undefined) {
    canonicalLine(d, canonical, text, line, offset, out);
    return;
  }
  parsedLine(d, text, line, offset, out);
}

/** Any other line: parsed whole, then mapped by its type (`map`). */
function parsedLine(d: Decoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  const record = parseObjectRecord(text, line, offset, d[MAX_DEPTH], FORMAT, d[SINK]);
  if (record === undefined) return;
  const ctx: Line = {
    record,
    text,
    line,
    offset,
    lane: typeof record.parent_tool_use_id === 'string' ? record.parent_tool_use_id : undefined,
    out,
  };
  if (typeof record.session_id === 'string') d[SESSION] = record.session_id;
  const problem = map(d, ctx);
  if (problem !== undefined) {
    d[REPORT]('invalid_record', 'error', line, offset, `${problem}; kept as unknown`);
    unknown(d, ctx);
  }
}

/**
 * A line the canonical-line reader read (an assistant or user record, built by its literals): what
 * {@link readLine} does with a parsed record, its fields read at sites of their own and the record
 * handed to `assistant`/`user` without `map`'s look at its type. A parsed record (the `system` and
 * `result` lines) gets a hidden class `JSON.parse` makes anew after a full GC; read at the same
 * sites as the canonical records, it deoptimised the whole per-line path once a run
 * (docs/performance.md, "Amp decoder, round twelve"). The decoder properties of
 * test/amp/canonical-lines.test.ts hold this path equal to `map`'s (the reader off).
 */
function canonicalLine(
  d: Decoder,
  record: JsonObject,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): void {
  const lane = record.parent_tool_use_id;
  const ctx: Line = { record, text, line, offset, lane: typeof lane === 'string' ? lane : undefined, out };
  d[SESSION] = record.session_id as string;
  // After a legacy record every line is kept as unknown: `map` says so.
  const problem = d[LEGACY] ? map(d, ctx) : record.type === 'assistant' ? assistant(d, ctx) : user(d, ctx);
  if (problem !== undefined) {
    d[REPORT]('invalid_record', 'error', line, offset, `${problem}; kept as unknown`);
    unknown(d, ctx);
  }
}

function endStream(d: Decoder, out: AgentEvent[]): void {
  // The last round ends with the stream (its line's usage and text, derived).
  closeRound(d, out);
  if (!d[RUN_OPEN]) return;
  endRun(d, { type: 'run.end', status: 'incomplete' }, syntheticAt(d[LAST_LINE], d[LAST_OFFSET]), out);
}

/** A kept record with a number `JSON.parse` could not hold exactly: reported (no schema reads it). */
function checkNumbers(d: Decoder, record: JsonObject, text: string, line: number, offset: number): void {
  if (!mayHoldUnsafeNumber(record)) return;
  const message = unsafeNumberMessage(text);
  if (message !== undefined) d[REPORT]('invalid_record', 'error', line, offset, message);
}

function syntheticAt(line: number, offset: number): Provenance {
  return { format: FORMAT, line, offset, synthetic: true };
}

function push(d: Decoder, ctx: Line, e: Emit, block?: JsonObject, synthetic = false): void {
  const event = e as unknown as AgentEvent;
  if (d[SESSION] !== undefined) event.session = d[SESSION];
  if (ctx.lane !== undefined && !synthetic) event.lane = ctx.lane;
  else if (e.round !== undefined) {
    // already stamped (a round's end derived later)
  } else if (
    ctx.lane === undefined &&
    d[RUN_OPEN] &&
    d[ROUND] > 0 &&
    e.type !== 'run.start' &&
    e.type !== 'run.end'
  )
    event.round = d[ROUND];
  if (synthetic) {
    event.provenance = syntheticAt(ctx.line, ctx.offset);
  } else {
    const hints: AmpHints =
      block === undefined
        ? { raw: ctx.text, record: ctx.record }
        : { raw: ctx.text, record: ctx.record, block };
    event.provenance = {
      format: FORMAT,
      line: ctx.line,
      offset: ctx.offset,
      hints: hints as Record<string, unknown>,
    };
  }
  ctx.out.push(event);
}

function unknown(d: Decoder, ctx: Line): void {
  checkNumbers(d, ctx.record, ctx.text, ctx.line, ctx.offset);
  const e: Emit = { type: 'unknown', record: ctx.record };
  if (typeof ctx.record.type === 'string') e.recordType = ctx.record.type;
  push(d, ctx, e);
}

// A subagent's first line opens its lane (derived: Amp marks lanes only by parent_tool_use_id).
function openLane(d: Decoder, ctx: Line): void {
  const lane = ctx.lane;
  if (lane === undefined || d[LANES].has(lane)) return;
  d[LANES].add(lane);
  const e: Emit = { type: 'child.start', child: lane, call: lane };
  const name = d[TOOL_NAMES].get(lane);
  if (name !== undefined) e.name = name;
  push(d, ctx, e, undefined, true);
}

function openRun(d: Decoder, ctx: Line, input: string | undefined, synthetic: boolean): void {
  d[RUN_OPEN] = true;
  d[ROUND] = 0;
  d[RUN_USAGE] = undefined;
  const e: Emit = { type: 'run.start' };
  if (input !== undefined) e.input = input;
  push(d, ctx, e, undefined, synthetic);
}

function endRun(d: Decoder, e: AgentEventOf<'run.end'>, provenance: Provenance, out: AgentEvent[]): void {
  if (d[RUN_USAGE] !== undefined) e.usage = d[RUN_USAGE];
  if (d[SESSION] !== undefined) e.session = d[SESSION];
  e.provenance = provenance;
  out.push(e);
  d[RUN_OPEN] = false;
  d[ROUND] = 0;
}

/** Maps one record; returns what is wrong with it when it cannot be mapped. */
function map(d: Decoder, ctx: Line): string | undefined {
  const r = ctx.record;
  const type = r.type;
  if (d[LEGACY] || (typeof type === 'string' && AMP_LEGACY_TYPES.includes(type))) {
    if (!d[LEGACY])
      d[REPORT](
        'unsupported_version',
        'error',
        ctx.line,
        ctx.offset,
        `the legacy Amp output (${JSON.stringify(type)} records, before stream-json) is not read; its lines are kept as unknown`,
      );
    d[LEGACY] = true;
    unknown(d, ctx);
    return undefined;
  }
  if (type !== 'assistant' && type !== 'user') d[ROUND_GAP] = 'other';
  switch (type) {
    case 'assistant':
      return assistant(d, ctx);
    case 'user':
      return user(d, ctx);
    case 'result':
      return result(d, ctx);
    case 'system':
      if (r.subtype !== 'init') break;
      {
        const e: Emit = { type: 'session.start' };
        if (typeof r.cwd === 'string') e.cwd = r.cwd;
        if (isAmpToolList(r.tools)) e.tools = r.tools;
        push(d, ctx, e);
      }
      return undefined;
    case undefined:
      return 'a record without "type"';
  }
  unknown(d, ctx);
  return undefined;
}

function assistant(d: Decoder, ctx: Line): string | undefined {
  const m = ctx.record.message;
  if (!isJsonObject(m) || !Array.isArray(m.content)) return 'an assistant line without message.content';
  openLane(d, ctx);
  const main = ctx.lane === undefined;
  if (!main) d[ROUND_GAP] = 'other';
  const goesOn = main ? continuedRound(d) : undefined;
  if (main && goesOn === undefined) closeRound(d, ctx.out);
  if (main && !d[RUN_OPEN]) openRun(d, ctx, undefined, true);
  if (main && goesOn === undefined) d[ROUND]++;
  const before = ctx.out.length;
  let text = '';
  for (const b of m.content) {
    if (!isMappedAssistantBlock(b)) {
      // A block this codec does not know: it stays in the kept record, and the writer keeps it there.
      checkNumbers(d, b as JsonObject, ctx.text, ctx.line, ctx.offset);
      continue;
    }
    if (b.type === 'text') {
      text += b.text;
      pushText(d, ctx, b.text as string, b);
    } else if (b.type === 'thinking') {
      const e: Emit = { type: 'reasoning.delta', text: b.thinking };
      if (typeof b.signature === 'string') e.signature = b.signature;
      push(d, ctx, e, b);
    } else if (b.type === 'redacted_thinking') {
      push(d, ctx, { type: 'reasoning.delta', text: '', redacted: b.data }, b);
    } else {
      const call = b.id as string;
      d[TOOL_NAMES].set(call, b.name as string);
      pushToolStart(d, ctx, call, b.name as string, b);
    }
  }
  const stopReason = typeof m.stop_reason === 'string' ? m.stop_reason : undefined;
  const usage = isJsonObject(m.usage) ? lineUsage(m.usage) : undefined;
  if (usage !== undefined && main && d[RUN_OPEN]) d[RUN_USAGE] = addUsage(d[RUN_USAGE] ?? {}, usage);
  // A main-lane round ends once its tool results are in: at the next assistant line, the
  // result, or the end of the stream (derived there from this line). Rounds are the main
  // agent's: a subagent's line reports its API call's usage in its lane instead.
  if (main) {
    d[ROUND_GAP] = 'none';
    d[OPEN_ROUND] = {
      ctx,
      message: goesOn === undefined ? text : goesOn.message + text,
      stopReason,
      usage,
      round: d[ROUND],
    };
  } else if (usage !== undefined && ctx.out.length === before) {
    // A subagent's line with nothing else to say still needs an event (its line is written back
    // from it); otherwise its usage stays in the line (the run's total is the main agent's).
    push(d, ctx, { type: 'usage', usage: { ...usage, scope: 'call' } });
  }
  return undefined;
}

// The open round when the next main-lane assistant line goes on with it, else undefined: its line
// reported neither a stop reason nor usage, and main-lane tool results and nothing else came since.
// Amp writes both on every line; a line without them comes from a writer that split one round
// where lanes were lost (a subagent's text after a tool result). Lines written apart for another
// reason (a subagent's or another record's lines between, nothing between) keep their rounds.
function continuedRound(d: Decoder): OpenRound | undefined {
  const r = d[OPEN_ROUND];
  return r !== undefined && d[ROUND_GAP] === 'results' && r.stopReason === undefined && r.usage === undefined
    ? r
    : undefined;
}

// The round the last main-lane assistant line began ends here (derived, at that line's place).
function closeRound(d: Decoder, out: AgentEvent[]): void {
  const r = d[OPEN_ROUND];
  if (r === undefined) return;
  d[OPEN_ROUND] = undefined;
  const { message, stopReason, usage, round } = r;
  const session = d[SESSION];
  // Pushed where the events of the line being read go (the round's own line is long gone).
  if (AMP_WHOLE_EVENTS.enabled && session !== undefined && stopReason !== undefined && usage !== undefined) {
    out.push({
      type: 'round.end',
      message,
      stopReason,
      usage,
      round,
      session,
      provenance: syntheticAt(r.ctx.line, r.ctx.offset),
    });
    return;
  }
  const e: Emit = { type: 'round.end', message };
  if (stopReason !== undefined) e.stopReason = stopReason;
  if (usage !== undefined) e.usage = usage;
  e.round = round;
  r.ctx.out = out;
  push(d, r.ctx, e, undefined, true);
}

function user(d: Decoder, ctx: Line): string | undefined {
  const gap = d[ROUND_GAP];
  d[ROUND_GAP] = 'other';
  const m = ctx.record.message;
  if (!isJsonObject(m)) return 'a user line without message';
  openLane(d, ctx);
  const main = ctx.lane === undefined;
  const content = m.content;
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  if (!Array.isArray(blocks)) return 'a user line whose message.content is neither text nor blocks';
  let pushed = false;
  for (const b of blocks) {
    if (!isMappedUserBlock(b)) continue;
    if (b.type === 'text') {
      if (main && !d[RUN_OPEN]) openRun(d, ctx, b.text as string, false);
      else push(d, ctx, { type: 'user.message', text: b.text }, typeof content === 'string' ? undefined : b);
      pushed = true;
    } else {
      const call = b.tool_use_id as string;
      const name = d[TOOL_NAMES].get(call);
      d[TOOL_NAMES].delete(call);
      const text = resultText(b.content);
      pushToolEnd(d, ctx, { call, ok: b.is_error !== true, name, text }, b);
      pushed = true;
      if (d[LANES].delete(call)) {
        const end: Emit = {
          type: 'child.end',
          child: call,
          status: b.is_error === true ? 'failed' : 'completed',
        };
        if (text !== undefined) end.result = text;
        push(d, ctx, end, undefined, true);
      }
    }
  }
  // A line with nothing the model reads (an image, an empty message) is kept whole.
  if (!pushed) unknown(d, ctx);
  if (
    main &&
    gap !== 'other' &&
    blocks.length > 0 &&
    blocks.every((b) => isJsonObject(b) && b.type === 'tool_result')
  )
    d[ROUND_GAP] = 'results';
  return undefined;
}

function result(d: Decoder, ctx: Line): string | undefined {
  const r = ctx.record;
  if (typeof r.subtype !== 'string') return 'a result without a string "subtype"';
  closeRound(d, ctx.out);
  if (!d[RUN_OPEN]) openRun(d, ctx, undefined, true);
  // is_error decides; an `error_*` subtype fails the run even without it.
  const failed = r.is_error === true || (r.subtype !== AMP_SUCCESS && r.subtype.startsWith('error'));
  const status: RunStatus = failed ? 'failed' : 'completed';
  const e: AgentEventOf<'run.end'> = { type: 'run.end', status, reason: r.subtype };
  const duration = num(r.duration_ms);
  if (duration !== undefined) e.durationMs = duration;
  // An empty result says nothing: no answer (the field is required, so writers put "").
  const text = typeof r.result === 'string' && r.result !== '' ? r.result : undefined;
  if (failed) {
    const error = typeof r.error === 'string' ? r.error : text;
    if (error !== undefined) e.error = error;
  } else if (text !== undefined) e.answer = text;
  // The SDK's optional total (written when no assistant line carried usage) replaces the sum.
  if (isJsonObject(r.usage)) d[RUN_USAGE] = lineUsage(r.usage);
  const hints: AmpHints = { raw: ctx.text, record: r };
  endRun(
    d,
    e,
    { format: FORMAT, line: ctx.line, offset: ctx.offset, hints: hints as Record<string, unknown> },
    ctx.out,
  );
  return undefined;
}

// ------------------------------------------------------------------------------------------
// The canonical-line reader

/**
 * Test hook: `enabled: false` parses every line with `JSON.parse`, so that
 * test/amp/canonical-lines.test.ts can hold the canonical-line reader equal to it.
 */
export const ampCanonicalLines: { enabled: boolean } = { enabled: true };

// How deep a canonical record nests at least (record, message, content, block): a tool's input
// is measured alone against what is left of the bound.
const CANONICAL_DEPTH = 4;

/**
 * The record of an assistant or user line spelled as Amp writes it (wire.ts `AMP_CANONICAL_TEXT`:
 * text, `tool_use` and `tool_result` blocks, the stop reason and the usage in their order), read
 * without `JSON.parse` of the whole line: the fixed text compared in place, each string read
 * alone (sliced when it holds nothing to unescape), the counts from their digits, a tool's input
 * (free-form) parsed alone, the record built in literals (their hidden classes outlive a full GC;
 * docs/performance.md, "Amp decoder, round six"). The same keys in the same order with the same
 * values as `JSON.parse(text)`, within `maxDepth`, or `undefined` for any other spelling, which
 * the caller parses: test/amp/canonical-lines.test.ts holds the two equal.
 */
export function readAmpCanonicalLine(text: string, maxDepth: number): JsonObject | undefined {
  if (maxDepth < CANONICAL_DEPTH || text.charCodeAt(text.length - 1) !== 125) return undefined;
  // `{"type":"` is nine characters: the type word's first letter tells the lines apart.
  const c = text.charCodeAt(9);
  if (c === 97) return readAssistantLine(textReader(text), maxDepth);
  return c === 117 ? readUserLine(textReader(text), maxDepth) : undefined;
}

function readAssistantLine(r: TextReader, maxDepth: number): JsonObject | undefined {
  const T = AMP_CANONICAL_TEXT;
  if (!readFixed(r, AMP_ASSISTANT_LINE_HEAD)) return undefined;
  const content = readBlocks(r, maxDepth);
  if (content === undefined) return undefined;
  let stop: string | undefined;
  if (readFixed(r, T.stopReason)) {
    stop = readString(r);
    if (stop === undefined) return undefined;
  }
  let usage: JsonObject | undefined;
  if (readFixed(r, T.usage)) {
    usage = readUsage(r);
    if (usage === undefined) return undefined;
  }
  const message =
    stop === undefined
      ? usage === undefined
        ? { type: 'message', role: 'assistant', content }
        : { type: 'message', role: 'assistant', content, usage }
      : usage === undefined
        ? { type: 'message', role: 'assistant', content, stop_reason: stop }
        : { type: 'message', role: 'assistant', content, stop_reason: stop, usage };
  const lane = readLane(r);
  const session = lane === undefined ? undefined : readSession(r);
  return session === undefined
    ? undefined
    : { type: 'assistant', message, parent_tool_use_id: lane, session_id: session };
}

function readUserLine(r: TextReader, maxDepth: number): JsonObject | undefined {
  if (!readFixed(r, AMP_CANONICAL_TEXT.userHead)) return undefined;
  const content = readBlocks(r, maxDepth);
  const lane = content === undefined ? undefined : readLane(r);
  const session = lane === undefined ? undefined : readSession(r);
  return session === undefined
    ? undefined
    : { type: 'user', message: { role: 'user', content }, parent_tool_use_id: lane, session_id: session };
}

// `},"parent_tool_use_id":` then `null` or a string (the lane); `undefined` for anything else.
function readLane(r: TextReader): string | null | undefined {
  if (!readFixed(r, AMP_CANONICAL_TEXT.lane)) return undefined;
  return readFixed(r, 'null') ? null : readString(r);
}

// `,"session_id":` then a string that ends the record, and the line.
function readSession(r: TextReader): string | undefined {
  if (!readFixed(r, AMP_CANONICAL_TEXT.session)) return undefined;
  const session = readString(r);
  return session !== undefined && r.at === r.text.length - 1 ? session : undefined;
}

// The content blocks after the list's `[`, up to and past its `]`.
function readBlocks(r: TextReader, maxDepth: number): JsonObject[] | undefined {
  const blocks: JsonObject[] = [];
  if (readFixed(r, ']')) return blocks;
  for (;;) {
    const b = readBlock(r, maxDepth);
    if (b === undefined) return undefined;
    blocks.push(b);
    if (readFixed(r, ']')) return blocks;
    if (!readFixed(r, ',')) return undefined;
  }
}

// `{"type":"t` starts every block read here: the letter after it tells text (`e`) from a tool's
// call or result (`o`), and `tool_` is followed by `u` or `r`.
const BLOCK_KIND_AT = 10;
const TOOL_KIND_AT = 14;

function readBlock(r: TextReader, maxDepth: number): JsonObject | undefined {
  const T = AMP_CANONICAL_TEXT;
  const at = r.at;
  const text = r.text;
  if (text.charCodeAt(at + BLOCK_KIND_AT) === 101) {
    if (!readFixed(r, T.text)) return undefined;
    const value = readLongString(r, false);
    return value !== undefined && readFixed(r, '}') ? { type: 'text', text: value } : undefined;
  }
  const kind = text.charCodeAt(at + TOOL_KIND_AT);
  if (kind === 117) {
    if (!readFixed(r, T.toolUse)) return undefined;
    const id = readString(r);
    const name = id !== undefined && readFixed(r, T.name) ? readString(r) : undefined;
    if (name === undefined || !readFixed(r, T.input)) return undefined;
    const start = r.at;
    // `{}` (a call without arguments) made here, not parsed: the same empty object `JSON.parse`
    // gives, without its call (held equal by test/amp/canonical-lines.test.ts).
    const input =
      text.charCodeAt(start) === 123 && text.charCodeAt(start + 1) === 125 ? emptyInput(r) : readJsonValue(r);
    // A long input is left to the general path, which measures its text before parsing it.
    if (input === undefined || r.at - start > DEPTH_PRECHECK_CHARS) return undefined;
    if (valueExceedsDepth(input, maxDepth - CANONICAL_DEPTH) || !readFixed(r, '}')) return undefined;
    return { type: 'tool_use', id, name, input };
  }
  if (kind !== 114 || !readFixed(r, T.toolResult)) return undefined;
  const id = readString(r);
  const content = id !== undefined && readFixed(r, T.content) ? readLongString(r, true) : undefined;
  if (content === undefined) return undefined;
  if (readFixed(r, '}')) return { type: 'tool_result', tool_use_id: id, content };
  if (!readFixed(r, T.isError)) return undefined;
  const isError = readFixed(r, 'true') ? true : readFixed(r, 'false') ? false : undefined;
  return isError !== undefined && readFixed(r, '}')
    ? { type: 'tool_result', tool_use_id: id, content, is_error: isError }
    : undefined;
}

// An empty input, the cursor moved past its `{}`.
function emptyInput(r: TextReader): JsonObject {
  r.at += 2;
  return {};
}

/**
 * A block's long string at the cursor (a text, whose closing quote `"}` follows, or a tool's output,
 * `","is_error":`), read by `JSON.parse` of its token alone, its end found by one native search for
 * that quote and the character after it. These strings nearly all hold an escape (`\n`, `\"`), and
 * for them {@link readString} runs its plain-run scan up to the first one, then walks from quote to
 * quote (one search per escaped quote inside), then parses: here the parse is the one pass over
 * the text. When the line is spelled as expected, the first such pair whose quote is not escaped
 * ends the token (an unescaped quote before it would be followed by the same character, or the line
 * is no JSON); anything else (the quote escaped, no pair, a result without `is_error`, a slice
 * that is no single string token) is read by {@link readString}, the general reading. Held to
 * `JSON.parse` by test/amp/canonical-lines.test.ts (strings with the pairs inside, escaped, and
 * ending in a backslash; results with and without `is_error`).
 */
function readLongString(r: TextReader, beforeIsError: boolean): string | undefined {
  const text = r.text;
  const end = text.indexOf(beforeIsError ? '",' : '"}', r.at + 1);
  if (
    end !== -1 &&
    text.charCodeAt(end - 1) !== 92 &&
    // `","i`: a result's `is_error` key (one without it takes the general reading, not a throw).
    (!beforeIsError || (text.charCodeAt(end + 2) === 34 && text.charCodeAt(end + 3) === 105))
  ) {
    // From a quote to a quote: parsed, a single string token or nothing (the cursor unmoved).
    const value = readStringTo(r, end + 1);
    if (value !== undefined) return value;
  }
  return readString(r);
}

// The usage after `{"input_tokens":`: the two counts this codec's writer spells alone, or Amp's
// four, with its `max_tokens` and `service_tier` or without, then the closing brace.
function readUsage(r: TextReader): JsonObject | undefined {
  const T = AMP_CANONICAL_TEXT;
  const input = readDigits(r);
  if (input === undefined) return undefined;
  if (readFixed(r, T.output)) {
    const output = readDigits(r);
    return output !== undefined && readFixed(r, '}')
      ? { input_tokens: input, output_tokens: output }
      : undefined;
  }
  if (!readFixed(r, T.cacheWrite)) return undefined;
  const write = readDigits(r);
  const read = write !== undefined && readFixed(r, T.cacheRead) ? readDigits(r) : undefined;
  const output = read !== undefined && readFixed(r, T.output) ? readDigits(r) : undefined;
  if (output === undefined) return undefined;
  if (readFixed(r, '}'))
    return {
      input_tokens: input,
      cache_creation_input_tokens: write,
      cache_read_input_tokens: read,
      output_tokens: output,
    };
  const max = readFixed(r, T.maxTokens) ? readDigits(r) : undefined;
  const tier = max !== undefined && readFixed(r, T.tier) ? readString(r) : undefined;
  return tier !== undefined && readFixed(r, '}')
    ? {
        input_tokens: input,
        cache_creation_input_tokens: write,
        cache_read_input_tokens: read,
        output_tokens: output,
        max_tokens: max,
        service_tier: tier,
      }
    : undefined;
}
