import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import {
  isJsonObject,
  type JsonObject,
  mayHoldUnsafeNumber,
  parseObjectRecord,
  resolveMaxDepth,
  unsafeNumberMessage,
} from '../../json';
import type { AgentEvent, AgentEventOf, Provenance, RunStatus, Usage } from '../../model';
import { addUsage } from '../../usage';
import {
  AMP_LEGACY_TYPES,
  AMP_SUCCESS,
  type AmpHints,
  isMappedAssistantBlock,
  isMappedUserBlock,
} from './wire';

/** Options of the Amp decoder. */
export interface AmpDecodeOptions extends DecodeOptions {}

const FORMAT = 'amp' as const;

/** An event being built: its type, and fields set as the record gives them. */
type Emit = { type: AgentEvent['type'] } & Record<string, unknown>;

function num(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

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
  const usage: Usage = {};
  const input = num(u.input_tokens);
  const write = num(u.cache_creation_input_tokens);
  const read = num(u.cache_read_input_tokens);
  if (input !== undefined || write !== undefined || read !== undefined)
    usage.input = (input ?? 0) + (write ?? 0) + (read ?? 0);
  const output = num(u.output_tokens);
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

/**
 * The Amp stream-json decoder: one record per line → canonical events. A run is the span from
 * the user's message to `result` (one per `--stream-json-input` message); each main-lane assistant
 * line begins a round (its content blocks), the `tool_result` blocks of the next user line end its
 * calls, and the round ends (a derived `round.end` with the line's usage) when the next assistant
 * line or the result comes; lines of a subagent carry its `parent_tool_use_id` as their lane.
 */
export class AmpRecordDecoder implements RecordDecoder {
  private readonly sink: DiagnosticSink;
  private readonly report: LineReport;
  private readonly maxDepth: number;
  private session: string | undefined;
  private legacy = false;
  private runOpen = false;
  private round = 0;
  private runUsage: Usage | undefined;
  private openRound: { ctx: Line; event: Emit } | undefined;
  // Calls and lanes still open: entries leave when their end arrives.
  private readonly toolNames = new Map<string, string>();
  private readonly lanes = new Set<string>();
  private lastLine = 0;
  private lastOffset = 0;

  /** Creates a decoder that reports to `sink`. */
  constructor(options: AmpDecodeOptions, sink: DiagnosticSink) {
    this.sink = sink;
    this.report = lineReporter(sink, FORMAT);
    this.maxDepth = resolveMaxDepth(options.maxDepth);
  }

  line(text: string, line: number, offset: number, out: AgentEvent[]): void {
    this.lastLine = line;
    this.lastOffset = offset;
    const record = parseObjectRecord(text, line, offset, this.maxDepth, FORMAT, this.sink);
    if (record === undefined) return;
    const ctx: Line = {
      record,
      text,
      line,
      offset,
      lane: typeof record.parent_tool_use_id === 'string' ? record.parent_tool_use_id : undefined,
      out,
    };
    if (typeof record.session_id === 'string') this.session = record.session_id;
    const problem = this.map(ctx);
    if (problem !== undefined) {
      this.report('invalid_record', 'error', line, offset, `${problem}; kept as unknown`);
      this.unknown(ctx);
    }
  }

  end(out: AgentEvent[]): void {
    // The last round ends with the stream (its line's usage and text, derived).
    this.closeRound(out);
    if (!this.runOpen) return;
    this.endRun(
      { type: 'run.end', status: 'incomplete' },
      this.syntheticAt(this.lastLine, this.lastOffset),
      out,
    );
  }

  /** A kept record with a number `JSON.parse` could not hold exactly: reported (no schema reads it). */
  private checkNumbers(record: JsonObject, text: string, line: number, offset: number): void {
    if (!mayHoldUnsafeNumber(record)) return;
    const message = unsafeNumberMessage(text);
    if (message !== undefined) this.report('invalid_record', 'error', line, offset, message);
  }

  private syntheticAt(line: number, offset: number): Provenance {
    return { format: FORMAT, line, offset, synthetic: true };
  }

  private push(ctx: Line, e: Emit, block?: JsonObject, synthetic = false): void {
    const event = e as unknown as AgentEvent;
    if (this.session !== undefined) event.session = this.session;
    if (ctx.lane !== undefined && !synthetic) event.lane = ctx.lane;
    else if (e.round !== undefined) {
      // already stamped (a round's end derived later)
    } else if (
      ctx.lane === undefined &&
      this.runOpen &&
      this.round > 0 &&
      e.type !== 'run.start' &&
      e.type !== 'run.end'
    )
      event.round = this.round;
    if (synthetic) {
      event.provenance = this.syntheticAt(ctx.line, ctx.offset);
    } else {
      const hints: AmpHints = { raw: ctx.text, record: ctx.record };
      if (block !== undefined) hints.block = block;
      event.provenance = {
        format: FORMAT,
        line: ctx.line,
        offset: ctx.offset,
        hints: hints as Record<string, unknown>,
      };
    }
    ctx.out.push(event);
  }

  private unknown(ctx: Line): void {
    this.checkNumbers(ctx.record, ctx.text, ctx.line, ctx.offset);
    const e: Emit = { type: 'unknown', record: ctx.record };
    if (typeof ctx.record.type === 'string') e.recordType = ctx.record.type;
    this.push(ctx, e);
  }

  // A subagent's first line opens its lane (derived: Amp marks lanes only by parent_tool_use_id).
  private openLane(ctx: Line): void {
    const lane = ctx.lane;
    if (lane === undefined || this.lanes.has(lane)) return;
    this.lanes.add(lane);
    const e: Emit = { type: 'child.start', child: lane, call: lane };
    const name = this.toolNames.get(lane);
    if (name !== undefined) e.name = name;
    this.push(ctx, e, undefined, true);
  }

  private openRun(ctx: Line, input: string | undefined, synthetic: boolean): void {
    this.runOpen = true;
    this.round = 0;
    this.runUsage = undefined;
    const e: Emit = { type: 'run.start' };
    if (input !== undefined) e.input = input;
    this.push(ctx, e, undefined, synthetic);
  }

  private endRun(e: AgentEventOf<'run.end'>, provenance: Provenance, out: AgentEvent[]): void {
    if (this.runUsage !== undefined) e.usage = this.runUsage;
    if (this.session !== undefined) e.session = this.session;
    e.provenance = provenance;
    out.push(e);
    this.runOpen = false;
    this.round = 0;
  }

  /** Maps one record; returns what is wrong with it when it cannot be mapped. */
  private map(ctx: Line): string | undefined {
    const r = ctx.record;
    const type = r.type;
    if (this.legacy || (typeof type === 'string' && AMP_LEGACY_TYPES.includes(type))) {
      if (!this.legacy)
        this.report(
          'unsupported_version',
          'error',
          ctx.line,
          ctx.offset,
          `the legacy Amp output (${JSON.stringify(type)} records, before stream-json) is not read; its lines are kept as unknown`,
        );
      this.legacy = true;
      this.unknown(ctx);
      return undefined;
    }
    switch (type) {
      case 'assistant':
        return this.assistant(ctx);
      case 'user':
        return this.user(ctx);
      case 'result':
        return this.result(ctx);
      case 'system':
        if (r.subtype !== 'init') break;
        {
          const e: Emit = { type: 'session.start' };
          if (typeof r.cwd === 'string') e.cwd = r.cwd;
          if (Array.isArray(r.tools) && r.tools.every((t) => typeof t === 'string')) e.tools = r.tools;
          this.push(ctx, e);
        }
        return undefined;
      case undefined:
        return 'a record without "type"';
    }
    this.unknown(ctx);
    return undefined;
  }

  private assistant(ctx: Line): string | undefined {
    const m = ctx.record.message;
    if (!isJsonObject(m) || !Array.isArray(m.content)) return 'an assistant line without message.content';
    this.openLane(ctx);
    const main = ctx.lane === undefined;
    if (main) this.closeRound(ctx.out);
    if (main && !this.runOpen) this.openRun(ctx, undefined, true);
    if (main) this.round++;
    const before = ctx.out.length;
    let text = '';
    for (const b of m.content) {
      if (!isMappedAssistantBlock(b)) {
        // A block this codec does not know: it stays in the kept record, and the writer keeps it there.
        this.checkNumbers(b as JsonObject, ctx.text, ctx.line, ctx.offset);
        continue;
      }
      if (b.type === 'text') {
        text += b.text;
        this.push(ctx, { type: 'text.delta', text: b.text }, b);
      } else if (b.type === 'thinking') {
        const e: Emit = { type: 'reasoning.delta', text: b.thinking };
        if (typeof b.signature === 'string') e.signature = b.signature;
        this.push(ctx, e, b);
      } else if (b.type === 'redacted_thinking') {
        this.push(ctx, { type: 'reasoning.delta', text: '', redacted: b.data }, b);
      } else {
        const call = b.id as string;
        this.toolNames.set(call, b.name as string);
        const e: Emit = { type: 'tool.start', call, name: b.name };
        if (isJsonObject(b.input)) e.args = b.input;
        this.push(ctx, e, b);
      }
    }
    const e: Emit = { type: 'round.end', message: text };
    if (typeof m.stop_reason === 'string') e.stopReason = m.stop_reason;
    if (isJsonObject(m.usage)) {
      const u = lineUsage(m.usage);
      e.usage = u;
      if (main && this.runOpen) this.runUsage = addUsage(this.runUsage ?? {}, u);
    }
    // A main-lane round ends once its tool results are in: at the next assistant line, the
    // result, or the end of the stream (derived there from this line). Rounds are the main
    // agent's: a subagent's line reports its API call's usage in its lane instead.
    if (main) {
      e.round = this.round;
      if (this.session !== undefined) e.session = this.session;
      this.openRound = { ctx, event: e };
    } else if (e.usage !== undefined && ctx.out.length === before) {
      // A subagent's line with nothing else to say still needs an event (its line is written back
      // from it); otherwise its usage stays in the line (the run's total is the main agent's).
      this.push(ctx, { type: 'usage', usage: { ...(e.usage as Usage), scope: 'call' } });
    }
    return undefined;
  }

  // The round the last main-lane assistant line began ends here (derived, at that line's place).
  private closeRound(out: AgentEvent[]): void {
    const r = this.openRound;
    if (r === undefined) return;
    this.openRound = undefined;
    // Pushed where the events of the line being read go (the round's own line is long gone).
    r.ctx.out = out;
    this.push(r.ctx, r.event, undefined, true);
  }

  private user(ctx: Line): string | undefined {
    const m = ctx.record.message;
    if (!isJsonObject(m)) return 'a user line without message';
    this.openLane(ctx);
    const main = ctx.lane === undefined;
    const content = m.content;
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    if (!Array.isArray(blocks)) return 'a user line whose message.content is neither text nor blocks';
    let pushed = false;
    for (const b of blocks) {
      if (!isMappedUserBlock(b)) continue;
      if (b.type === 'text') {
        if (main && !this.runOpen) this.openRun(ctx, b.text as string, false);
        else
          this.push(ctx, { type: 'user.message', text: b.text }, typeof content === 'string' ? undefined : b);
        pushed = true;
      } else {
        const call = b.tool_use_id as string;
        const e: Emit = { type: 'tool.end', call, ok: b.is_error !== true };
        const name = this.toolNames.get(call);
        if (name !== undefined) e.name = name;
        this.toolNames.delete(call);
        const text = resultText(b.content);
        if (text !== undefined) e.text = text;
        this.push(ctx, e, b);
        pushed = true;
        if (this.lanes.delete(call)) {
          const end: Emit = {
            type: 'child.end',
            child: call,
            status: b.is_error === true ? 'failed' : 'completed',
          };
          if (text !== undefined) end.result = text;
          this.push(ctx, end, undefined, true);
        }
      }
    }
    // A line with nothing the model reads (an image, an empty message) is kept whole.
    if (!pushed) this.unknown(ctx);
    return undefined;
  }

  private result(ctx: Line): string | undefined {
    const r = ctx.record;
    if (typeof r.subtype !== 'string') return 'a result without a string "subtype"';
    this.closeRound(ctx.out);
    if (!this.runOpen) this.openRun(ctx, undefined, true);
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
    if (isJsonObject(r.usage)) this.runUsage = lineUsage(r.usage);
    const hints: AmpHints = { raw: ctx.text, record: r };
    this.endRun(
      e,
      { format: FORMAT, line: ctx.line, offset: ctx.offset, hints: hints as Record<string, unknown> },
      ctx.out,
    );
    return undefined;
  }
}
