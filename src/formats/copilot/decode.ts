import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import { num, str } from '../../guards';
import { IsoReader } from '../../iso';
import {
  isJsonObject,
  type JsonObject,
  mayHoldUnsafeNumber,
  NOT_PARSED,
  parseMeasuredRecord,
  readStringToken,
  resolveMaxDepth,
  setOwn,
  unsafeNumberMessage,
} from '../../json';
import type { AgentEvent, AgentEventOf, ModelUsage, Provenance, RunStatus, Usage } from '../../model';
import { addUsage } from '../../usage';
import {
  COPILOT_DELTA_HEAD,
  COPILOT_DELTA_LINE,
  type CopilotHints,
  type CopilotRecordType,
  copilotTimestampMs,
  isCopilotRecordType,
} from './wire';

/** Options of the Copilot decoder. */
export interface CopilotDecodeOptions extends DecodeOptions {}

const FORMAT = 'copilot' as const;

/** An event being built: its type, and fields set as the record gives them. */
type Emit = { type: AgentEvent['type'] } & Record<string, unknown>;

// Copilot's token fields (assistant.usage, shutdown metrics) as model counts.
function tokenCounts(d: JsonObject): ModelUsage {
  const u: ModelUsage = {};
  const input = num(d.inputTokens);
  if (input !== undefined) u.input = input;
  const output = num(d.outputTokens);
  if (output !== undefined) u.output = output;
  const cacheRead = num(d.cacheReadTokens);
  if (cacheRead !== undefined) u.cacheRead = cacheRead;
  const cacheWrite = num(d.cacheWriteTokens);
  if (cacheWrite !== undefined) u.cacheWrite = cacheWrite;
  const reasoning = num(d.reasoningTokens);
  if (reasoning !== undefined) u.reasoning = reasoning;
  return u;
}

/** A record's envelope, checked: what every record needs before its type is looked at. */
function envelopeProblem(r: JsonObject): string | undefined {
  if (typeof r.id !== 'string') return '"id" is not a string';
  if (typeof r.timestamp !== 'string') return '"timestamp" is not a string';
  if (!(r.parentId === null || typeof r.parentId === 'string'))
    return '"parentId" is neither a string nor null';
  if (!isJsonObject(r.data)) return '"data" is not an object';
  if (r.agentId !== undefined && typeof r.agentId !== 'string') return '"agentId" is not a string';
  return undefined;
}

// The data fields each mapped type must have, with their JSON type.
const REQUIRED: Partial<Record<string, ReadonlyArray<readonly [string, 'string' | 'boolean' | 'object']>>> = {
  'session.start': [['sessionId', 'string']],
  'session.error': [['message', 'string']],
  'session.title_changed': [['title', 'string']],
  'user.message': [['content', 'string']],
  'assistant.turn_start': [['turnId', 'string']],
  'assistant.turn_end': [['turnId', 'string']],
  'assistant.message_start': [['messageId', 'string']],
  'assistant.message_delta': [
    ['messageId', 'string'],
    ['deltaContent', 'string'],
  ],
  'assistant.message': [
    ['messageId', 'string'],
    ['content', 'string'],
  ],
  'assistant.reasoning': [
    ['reasoningId', 'string'],
    ['content', 'string'],
  ],
  'assistant.reasoning_delta': [
    ['reasoningId', 'string'],
    ['deltaContent', 'string'],
  ],
  'tool.execution_start': [
    ['toolCallId', 'string'],
    ['toolName', 'string'],
  ],
  'tool.execution_partial_result': [
    ['toolCallId', 'string'],
    ['partialOutput', 'string'],
  ],
  'tool.execution_complete': [
    ['toolCallId', 'string'],
    ['success', 'boolean'],
  ],
  'subagent.started': [['toolCallId', 'string']],
  'subagent.completed': [['toolCallId', 'string']],
  'subagent.failed': [['toolCallId', 'string']],
};

function dataProblem(type: string, data: JsonObject): string | undefined {
  for (const [key, kind] of REQUIRED[type] ?? []) {
    const v = data[key];
    if (kind === 'object' ? !isJsonObject(v) : typeof v !== kind) return `data.${key} is not a ${kind}`;
  }
  return undefined;
}

/** Context of the record being mapped: what every event built from it shares. */
interface Line {
  record: JsonObject;
  data: JsonObject;
  type: string;
  text: string;
  line: number;
  offset: number;
  /** The envelope `agentId`: the child lane the record belongs to. */
  agent: string | undefined;
  ts: number | undefined;
  out: AgentEvent[];
  /** Whether the line's first (primary) event has been pushed. */
  primaryDone: boolean;
}

/**
 * The Copilot session event decoder: one event envelope per line → canonical events. Stateful:
 * a run is the span from a `user.message` (or the first turn) to `session.idle`; child lanes
 * come from the envelope's `agentId`; usage per API call is summed into the round and the run.
 */
export class CopilotRecordDecoder implements RecordDecoder {
  private readonly sink: DiagnosticSink;
  private readonly report: LineReport;
  private readonly maxDepth: number;
  private session: string | undefined;
  private runOpen = false;
  private turnOpen = false;
  private runError: string | undefined;
  private runCancelled = false;
  private answer: string | undefined;
  private runUsage: Usage | undefined;
  private round: number | undefined;
  private roundText = '';
  private roundUsage: Usage | undefined;
  // Open state keyed by ids: entries leave when their end arrives, so memory follows what is open.
  private readonly streamedMessages = new Set<string>();
  // The message last marked streamed (in `streamedMessages` while set): a message's deltas come
  // in a row, and a compare costs less than hashing its id into the set again.
  private lastStreamed: string | undefined;
  private readonly streamedReasoning = new Set<string>();
  private reasoningSinceMessage = false;
  private readonly toolNames = new Map<string, string>();
  private readonly childByCall = new Map<string, string>();
  private readonly laneUsage = new Map<string, Usage>();
  private lastLine = 0;
  private lastOffset = 0;
  private lastTs: number | undefined;
  private readonly clock = new IsoReader();
  // Whether canonical message_delta lines take the shortcut (the property test turns it off).
  private readonly shortcut: boolean;

  /**
   * Creates a decoder that reports to `sink`. `shortcut` false reads every line by the general
   * path (for the test that holds the message_delta shortcut equal to it).
   */
  constructor(options: CopilotDecodeOptions, sink: DiagnosticSink, shortcut = true) {
    this.sink = sink;
    this.report = lineReporter(sink, FORMAT);
    this.maxDepth = resolveMaxDepth(options.maxDepth);
    // The record nests two levels (the envelope, its data): a smaller bound refuses it.
    this.shortcut = shortcut && this.maxDepth >= 2;
  }

  line(text: string, line: number, offset: number, out: AgentEvent[]): void {
    this.lastLine = line;
    this.lastOffset = offset;
    if (this.shortcut && this.canonicalDelta(text, line, offset, out)) return;
    const record = this.parse(text, line, offset);
    if (record === undefined) return;
    const type = record.type;
    const problem = envelopeProblem(record);
    if (typeof type !== 'string' || problem !== undefined) {
      this.report(
        'invalid_record',
        'error',
        line,
        offset,
        typeof type !== 'string'
          ? 'a record without a string "type"; kept as unknown'
          : `invalid envelope: ${problem}; kept as unknown`,
      );
      this.unknown(record, typeof type === 'string' ? type : undefined, text, line, offset, out);
      return;
    }
    const data = record.data as JsonObject;
    const agent = str(record.agentId);
    const parsedTs = copilotTimestampMs(this.clock, record.timestamp as string);
    const ctx: Line = {
      record,
      data,
      type,
      text,
      line,
      offset,
      agent,
      ts: parsedTs,
      out,
      primaryDone: false,
    };
    if (ctx.ts !== undefined) this.lastTs = ctx.ts;
    if (!isCopilotRecordType(type)) {
      this.unknown(record, type, text, line, offset, out, ctx);
      return;
    }
    const bad = dataProblem(type, data);
    if (bad !== undefined) {
      this.report('invalid_record', 'error', line, offset, `invalid ${type} event: ${bad}; kept as unknown`);
      this.unknown(record, type, text, line, offset, out, ctx);
      return;
    }
    this.map(ctx);
  }

  /**
   * The shortcut beside the general path: an `assistant.message_delta` line spelled exactly as
   * the writer spells it (`COPILOT_DELTA_LINE` in wire.ts: SDK order, no spaces, ids and
   * timestamp without escapes) is read without `JSON.parse` of the line: its keys compared as
   * text, the delta parsed alone only when it holds an escape. The writer's template record is
   * built from the pieces, equal to what `JSON.parse` gives. Any other spelling returns false
   * having done nothing, and takes the general path, which gives the same events and
   * diagnostics for every line accepted here: the property test in test/copilot/shortcut.test.ts
   * holds the two equal (the cost: docs/performance.md, "Amp and Copilot").
   */
  private canonicalDelta(text: string, line: number, offset: number, out: AgentEvent[]): boolean {
    // The tail first: it turns records ending in a number or an object away before the
    // expression reads their ids.
    const L = COPILOT_DELTA_LINE;
    const ephemeral = text.endsWith(L.tail);
    if (!ephemeral && !text.endsWith(L.bareTail)) return false;
    const close = text.length - (ephemeral ? L.tail : L.bareTail).length - 1;
    if (text.charCodeAt(close) !== 34) return false;
    const head = COPILOT_DELTA_HEAD.exec(text);
    if (head === null) return false;
    const delta = readStringToken(text, head[0].length, close);
    if (delta === undefined) return false;
    const id = head[1]!;
    const parentId = head[2] ?? null;
    const timestamp = head[3]!;
    const message = head[4]!;
    // The record as JSON.parse builds it, keys in their order: the writer's template.
    const record: JsonObject = {
      id,
      parentId,
      timestamp,
      type: 'assistant.message_delta',
      data: { messageId: message, deltaContent: delta },
    };
    if (ephemeral) record.ephemeral = true;
    const ts = copilotTimestampMs(this.clock, timestamp);
    if (ts !== undefined) this.lastTs = ts;
    this.markStreamed(message);
    // As `push` builds it for a record without agentId or parentToolCallId: no lane.
    const e: Emit = { type: 'text.delta', text: delta, message };
    if (this.session !== undefined) e.session = this.session;
    if (ts !== undefined) e.ts = ts;
    if (this.round !== undefined) e.round = this.round;
    const hints: CopilotHints = { raw: text, record };
    e.provenance = { format: FORMAT, line, offset, hints: hints as Record<string, unknown> };
    out.push(e as unknown as AgentEvent);
    return true;
  }

  /**
   * `parseObjectRecord` with the depth bound measured on the parsed value: a Copilot record holds
   * a few objects (the envelope, its data, a result), so the walk visits those few where the
   * text measure sweeps the whole line twice (docs/performance.md, "Amp and Copilot"). The same
   * diagnostics, in the same order.
   */
  private parse(text: string, line: number, offset: number): JsonObject | undefined {
    const value = parseMeasuredRecord(text, line, offset, this.maxDepth, FORMAT, this.sink);
    if (value === NOT_PARSED) return undefined;
    if (isJsonObject(value)) return value;
    this.report('invalid_json', 'error', line, offset, 'not a JSON object');
    return undefined;
  }

  private markStreamed(message: string): void {
    if (message === this.lastStreamed) return;
    this.streamedMessages.add(message);
    this.lastStreamed = message;
  }

  end(out: AgentEvent[]): void {
    if (this.runOpen)
      this.endRun('incomplete', this.syntheticAt(this.lastLine, this.lastOffset), out, this.lastTs);
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

  /** Provenance of the line's events: the primary one carries the writer's hints. */
  private provenance(ctx: Line, synthetic = false): Provenance {
    if (synthetic) return this.syntheticAt(ctx.line, ctx.offset);
    // The record itself is the writer's template (its envelope, its data, fields of its own):
    // one reference, nothing copied.
    const hints: CopilotHints = { raw: ctx.text, record: ctx.record };
    return { format: FORMAT, line: ctx.line, offset: ctx.offset, hints: hints as Record<string, unknown> };
  }

  private push(ctx: Line, e: Emit, synthetic = false): void {
    const event = e as unknown as AgentEvent;
    if (this.session !== undefined) event.session = this.session;
    if (ctx.ts !== undefined) event.ts = ctx.ts;
    if (this.round !== undefined && event.type !== 'run.start' && event.type !== 'run.end')
      event.round = this.round;
    const lane = this.laneOf(ctx);
    if (lane !== undefined && e.type !== 'child.start' && e.type !== 'child.end') event.lane = lane;
    event.provenance = this.provenance(ctx, synthetic || ctx.primaryDone);
    if (!synthetic) ctx.primaryDone = true;
    ctx.out.push(event);
  }

  private laneOf(ctx: Line): string | undefined {
    if (ctx.agent !== undefined) return ctx.agent;
    // The deprecated parentToolCallId names the spawning call: its child, when one was started.
    const parent = str(ctx.data.parentToolCallId);
    return parent === undefined ? undefined : this.childByCall.get(parent);
  }

  private unknown(
    record: JsonObject,
    type: string | undefined,
    text: string,
    line: number,
    offset: number,
    out: AgentEvent[],
    ctx?: Line,
  ): void {
    this.checkNumbers(record, text, line, offset);
    const e: AgentEventOf<'unknown'> = {
      type: 'unknown',
      record,
      provenance: { format: FORMAT, line, offset, hints: { raw: text } },
    };
    if (type !== undefined) e.recordType = type;
    if (this.session !== undefined) e.session = this.session;
    if (ctx?.ts !== undefined) e.ts = ctx.ts;
    if (ctx?.agent !== undefined) e.lane = ctx.agent;
    out.push(e);
  }

  private openRun(ctx: Line, input: string | undefined, synthetic: boolean): void {
    this.runOpen = true;
    this.runError = undefined;
    this.runCancelled = false;
    this.answer = undefined;
    this.runUsage = undefined;
    const e: Emit = { type: 'run.start' };
    if (input !== undefined) e.input = input;
    this.push(ctx, e, synthetic);
  }

  private endRun(status: RunStatus, provenance: Provenance, out: AgentEvent[], ts: number | undefined): void {
    const e: AgentEventOf<'run.end'> = { type: 'run.end', status };
    if (this.answer !== undefined) e.answer = this.answer;
    if (this.runUsage !== undefined) e.usage = this.runUsage;
    if (this.runError !== undefined && status === 'failed') e.error = this.runError;
    if (this.session !== undefined) e.session = this.session;
    if (ts !== undefined) e.ts = ts;
    e.provenance = provenance;
    out.push(e);
    this.runOpen = false;
    this.turnOpen = false;
    this.round = undefined;
  }

  private map(ctx: Line): void {
    const d = ctx.data;
    const main = ctx.agent === undefined;
    switch (ctx.type as CopilotRecordType) {
      // The frequent records first.
      case 'assistant.message_delta': {
        const id = d.messageId as string;
        this.markStreamed(id);
        this.push(ctx, { type: 'text.delta', text: d.deltaContent, message: id });
        return;
      }
      case 'assistant.reasoning_delta': {
        const id = d.reasoningId as string;
        this.streamedReasoning.add(id);
        this.reasoningSinceMessage = true;
        this.push(ctx, { type: 'reasoning.delta', text: d.deltaContent, message: id });
        return;
      }
      case 'tool.execution_partial_result':
        this.push(ctx, { type: 'tool.output', call: d.toolCallId, text: d.partialOutput });
        return;
      case 'assistant.usage': {
        const u = this.callUsage(d, ctx);
        // A round's and a run's usage are the main agent's own calls (the run's total is the sum of its
        // rounds); a subagent's calls stay usage events in its lane.
        if (main) this.roundUsage = addUsage(this.roundUsage ?? {}, u);
        else this.laneUsage.set(ctx.agent!, addUsage(this.laneUsage.get(ctx.agent!) ?? {}, u));
        if (main && this.runOpen) this.runUsage = addUsage(this.runUsage ?? {}, u);
        this.push(ctx, { type: 'usage', usage: u });
        return;
      }
      case 'session.start': {
        this.session = d.sessionId as string;
        const e: Emit = { type: 'session.start' };
        if (typeof d.producer === 'string') e.producer = d.producer;
        if (typeof d.version === 'number') e.protocol = String(d.version);
        if (typeof d.selectedModel === 'string') e.model = d.selectedModel;
        const cwd = isJsonObject(d.context) ? str(d.context.cwd) : undefined;
        if (cwd !== undefined) e.cwd = cwd;
        this.push(ctx, e);
        return;
      }
      case 'user.message': {
        // `idle` delivery starts a run of its own: the one before ended, though the on-disk log
        // keeps no (ephemeral) session.idle to say so. Without a delivery, between turns, likewise.
        if (
          main &&
          this.runOpen &&
          (d.delivery === 'idle' || (d.delivery === undefined && this.round === undefined && !this.turnOpen))
        )
          this.endRun('completed', this.syntheticAt(ctx.line, ctx.offset), ctx.out, ctx.ts);
        if (main && !this.runOpen) this.openRun(ctx, d.content as string, false);
        else this.push(ctx, { type: 'user.message', text: d.content });
        return;
      }
      case 'assistant.turn_start': {
        if (main && !this.runOpen) this.openRun(ctx, undefined, true);
        const turn = d.turnId as string;
        if (main) {
          this.turnOpen = true;
          this.round = /^(?:0|[1-9]\d{0,14})$/.test(turn) ? Number(turn) : undefined;
          this.roundText = '';
          this.roundUsage = undefined;
        }
        const e: Emit = { type: 'round.start' };
        if (typeof d.model === 'string') e.model = d.model;
        this.push(ctx, e);
        return;
      }
      case 'assistant.turn_end': {
        const e: Emit = { type: 'round.end', message: main ? this.roundText : '' };
        if (typeof d.model === 'string') e.model = d.model;
        if (main && this.roundUsage !== undefined) e.usage = this.roundUsage;
        // A subagent's turn carries its own calls' usage (its calls' events are in its lane).
        const laneUsage = main ? undefined : this.laneUsage.get(ctx.agent!);
        if (laneUsage !== undefined) {
          e.usage = laneUsage;
          this.laneUsage.delete(ctx.agent!);
        }
        this.push(ctx, e);
        if (main) {
          this.turnOpen = false;
          this.round = undefined;
          this.roundText = '';
          this.roundUsage = undefined;
        }
        return;
      }
      case 'assistant.message_start':
        this.push(ctx, { type: 'message.start', role: 'assistant', message: d.messageId });
        return;
      case 'assistant.message':
        this.message(ctx, main);
        return;
      case 'assistant.reasoning': {
        const id = d.reasoningId as string;
        if (this.streamedReasoning.delete(id)) {
          // Its text already came as deltas: a second copy would be counted twice.
          this.unknown(ctx.record, ctx.type, ctx.text, ctx.line, ctx.offset, ctx.out, ctx);
          return;
        }
        this.reasoningSinceMessage = true;
        this.push(ctx, { type: 'reasoning.delta', text: d.content, message: id });
        return;
      }
      case 'tool.execution_start': {
        const call = d.toolCallId as string;
        this.toolNames.set(call, d.toolName as string);
        const e: Emit = { type: 'tool.start', call, name: d.toolName };
        if (isJsonObject(d.arguments)) e.args = d.arguments;
        if (typeof d.mcpServerName === 'string') e.server = d.mcpServerName;
        this.push(ctx, e);
        return;
      }
      case 'tool.execution_complete': {
        const call = d.toolCallId as string;
        const e: Emit = { type: 'tool.end', call, ok: d.success };
        const name = this.toolNames.get(call);
        if (name !== undefined) {
          e.name = name;
          this.toolNames.delete(call);
        }
        const content = isJsonObject(d.result) ? str(d.result.content) : undefined;
        if (content !== undefined) e.text = content;
        const error = isJsonObject(d.error) ? str(d.error.message) : undefined;
        if (error !== undefined) e.error = error;
        this.push(ctx, e);
        return;
      }
      case 'subagent.started': {
        const call = d.toolCallId as string;
        const child = ctx.agent ?? call;
        this.childByCall.set(call, child);
        const e: Emit = { type: 'child.start', child, call };
        if (typeof d.agentName === 'string') e.name = d.agentName;
        if (typeof d.agentDescription === 'string') e.task = d.agentDescription;
        this.push(ctx, e);
        return;
      }
      case 'subagent.completed':
      case 'subagent.failed': {
        const call = d.toolCallId as string;
        const child = ctx.agent ?? this.childByCall.get(call) ?? call;
        this.childByCall.delete(call);
        const failed = ctx.type === 'subagent.failed';
        const e: Emit = {
          type: 'child.end',
          child,
          status: failed ? 'failed' : d.cancelled === true ? 'cancelled' : 'completed',
        };
        if (failed && typeof d.error === 'string') e.result = d.error;
        this.push(ctx, e);
        return;
      }
      case 'session.idle': {
        if (!main) {
          this.push(ctx, { type: 'status', status: 'idle' });
          return;
        }
        // A run nothing announced (no user.message, no turn) still ends here.
        if (!this.runOpen) this.openRun(ctx, undefined, true);
        const aborted = d.aborted === true || this.runCancelled;
        const status: RunStatus = aborted
          ? 'cancelled'
          : this.runError !== undefined
            ? 'failed'
            : 'completed';
        this.endRun(status, this.provenance(ctx), ctx.out, ctx.ts);
        return;
      }
      case 'session.error': {
        // An error before anything else of a run belongs to the run it fails.
        if (main && !this.runOpen) this.openRun(ctx, undefined, true);
        const e: Emit = { type: 'error', message: d.message, fatal: false };
        if (typeof d.errorType === 'string') e.code = d.errorType;
        if (main && this.runOpen) this.runError = d.message as string;
        this.push(ctx, e);
        return;
      }
      case 'abort': {
        // Like an error, an abort before anything else of a run belongs to the run it cancels.
        if (main && !this.runOpen) this.openRun(ctx, undefined, true);
        const e: Emit = { type: 'cancel' };
        if (typeof d.reason === 'string') e.by = d.reason;
        if (main) this.runCancelled = true;
        this.push(ctx, e);
        return;
      }
      case 'session.shutdown': {
        this.push(ctx, { type: 'usage', usage: this.shutdownUsage(d) });
        if (this.runOpen) {
          if (d.shutdownType === 'error' && typeof d.errorReason === 'string') this.runError = d.errorReason;
          const status: RunStatus =
            d.shutdownType === 'error' ? 'failed' : this.turnOpen ? 'incomplete' : 'completed';
          this.endRun(status, this.syntheticAt(ctx.line, ctx.offset), ctx.out, ctx.ts);
        }
        return;
      }
      case 'session.title_changed':
        this.push(ctx, { type: 'session.title', title: d.title });
        return;
      case 'session.compaction_start': {
        const e: Emit = { type: 'compaction.start' };
        if (typeof d.trigger === 'string') e.trigger = d.trigger;
        this.push(ctx, e);
        return;
      }
      case 'session.compaction_complete': {
        const e: Emit = { type: 'compaction.end' };
        if (typeof d.tokensRemoved === 'number') e.tokensFreed = d.tokensRemoved;
        if (typeof d.trigger === 'string') e.trigger = d.trigger;
        if (typeof d.preCompactionTokens === 'number') e.tokensBefore = d.preCompactionTokens;
        if (typeof d.postCompactionTokens === 'number') e.tokensAfter = d.postCompactionTokens;
        this.push(ctx, e);
        return;
      }
    }
  }

  // assistant.message: the whole message. Its text and reasoning are events of their own only
  // when no deltas carried them (on-disk logs keep no ephemeral deltas); they are derived
  // (synthetic) and the message's end carries the record.
  private message(ctx: Line, main: boolean): void {
    const d = ctx.data;
    const id = d.messageId as string;
    const content = d.content as string;
    const streamed = this.streamedMessages.delete(id);
    if (id === this.lastStreamed) this.lastStreamed = undefined;
    const derived: Emit[] = [];
    const reasoning = str(d.reasoningText);
    if (reasoning !== undefined && reasoning !== '' && !this.reasoningSinceMessage)
      derived.push({ type: 'reasoning.delta', text: reasoning, message: id });
    this.reasoningSinceMessage = false;
    if (!streamed && content !== '') derived.push({ type: 'text.delta', text: content, message: id });
    // The primary event first (it carries the record), then what it implies.
    this.push(ctx, { type: 'message.end', message: id });
    const end = ctx.out.pop()!;
    for (const e of derived) this.push(ctx, e, true);
    ctx.out.push(end);
    if (main && content !== '') {
      this.roundText += content;
      this.answer = content;
    }
  }

  private callUsage(d: JsonObject, ctx: Line): Usage {
    const u: Usage = tokenCounts(d);
    u.scope = 'call';
    u.key = str(d.apiCallId) ?? (ctx.record.id as string);
    if (typeof d.model === 'string') u.model = d.model;
    return u;
  }

  private shutdownUsage(d: JsonObject): Usage {
    const u: Usage = { scope: 'thread' };
    const metrics = d.modelMetrics;
    if (!isJsonObject(metrics)) return u;
    const byModel: Record<string, ModelUsage> = {};
    let total: Usage | undefined;
    for (const model of Object.keys(metrics)) {
      const m = metrics[model];
      if (!isJsonObject(m) || !isJsonObject(m.usage)) continue;
      const mu = tokenCounts(m.usage);
      setOwn(byModel, model, mu);
      total = addUsage(total ?? {}, mu);
    }
    Object.assign(u, total);
    u.byModel = byModel;
    return u;
  }
}
