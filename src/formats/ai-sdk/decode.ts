import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import { BEFORE_RUN, eventFromCarried } from '../../framing/carry';
import type { FramedRecordDecoder, JsonFraming, JsonStreamDecodeOptions } from '../../framing/json-stream';
import { missingString, str } from '../../guards';
import {
  isJsonObject,
  type JsonObject,
  NOT_PARSED,
  parseMeasuredRecord,
  readDeltaRecord,
  resolveMaxDepth,
} from '../../json';
import type { AgentEvent, AgentEventOf, Provenance } from '../../model';
import {
  AISDK_DATA_PREFIX,
  AISDK_DELTA_HEAD,
  AISDK_DONE,
  type AiSdkHints,
  aiSdkChunkType,
  metaOf,
  usageFromMetadata,
} from './wire';

/** Options of the AI SDK UI message stream decoder. */
export interface AiSdkDecodeOptions extends JsonStreamDecodeOptions {}

const FORMAT = 'ai-sdk' as const;

/**
 * The switch of the decoder's shortcut (text deltas read without parsing them whole). Tests turn
 * it off to hold the shortcut to the general path (test/ui/delta-shortcut.test.ts); nothing else
 * should.
 */
export const AISDK_DECODER_SHORTCUTS: { enabled: boolean } = { enabled: true };

/** Most chunks without an event of their own held for the next event. */
const MAX_BEFORE = 64;

interface Cx {
  r: JsonObject;
  line: number;
  offset: number;
  provenance: Provenance;
}

// Required string fields per chunk type: a chunk without them is refused (kept as `unknown`).
const REQUIRED: Partial<Record<string, readonly string[]>> = {
  'text-start': ['id'],
  'text-delta': ['id', 'delta'],
  'text-end': ['id'],
  'reasoning-start': ['id'],
  'reasoning-delta': ['id', 'delta'],
  'reasoning-end': ['id'],
  'tool-input-start': ['toolCallId', 'toolName'],
  'tool-input-delta': ['toolCallId', 'inputTextDelta'],
  'tool-input-available': ['toolCallId', 'toolName'],
  'tool-input-error': ['toolCallId', 'toolName', 'errorText'],
  'tool-approval-request': ['approvalId', 'toolCallId'],
  'tool-approval-response': ['approvalId'],
  'tool-output-available': ['toolCallId'],
  'tool-output-error': ['toolCallId', 'errorText'],
  'tool-output-denied': ['toolCallId'],
  error: ['errorText'],
};

/**
 * The AI SDK UI message stream decoder: one chunk → canonical events. `start` → `run.start`
 * (its `messageId` is the run); steps are rounds; `text-*` are `message.start`, `text.delta`,
 * `message.end`; `reasoning-*` are `reasoning.delta` (start and end empty); `tool-input-start`
 * and `-delta` are `tool.args.delta`, `tool-input-available` is `tool.start` with the input whole;
 * `tool-output-available` (`preliminary`: `tool.output`), `-error` and `-denied` are `tool.end`;
 * the approval chunks are `approval.request`/`approval.resolve`; `finish` → `run.end` with the
 * usage in its `messageMetadata`; `abort` ends the run `cancelled`; `error` is a fatal `error`
 * (the run then ends `failed`); `data-agentwire.<type>` parts are that canonical event; other
 * chunks (`data-*`, sources, files, metadata) are `unknown` events kept whole. `[DONE]` is the
 * transport's end and yields nothing.
 */
export class AiSdkRecordDecoder implements FramedRecordDecoder {
  private readonly sink: DiagnosticSink;
  private readonly report: LineReport;
  private readonly maxDepth: number;
  private mode: JsonFraming = 'sse';
  private run: string | undefined;
  private runOpen = false;
  private failed: string | undefined;
  private round = 0;
  private stepOpen = false;
  private stepText = '';
  private readonly names = new Map<string, string>();
  /**
   * A run's `start`, held until a chunk that is not a carried event from before the run (see
   * `BEFORE_RUN`): those are read as coming first.
   */
  private held: AgentEvent | undefined;
  /** The message of the last non-fatal error this run said (a carried `error`). */
  private saidError: string | undefined;
  /** Chunks with no event of their own, carried by the next event (`hints.before`). */
  private before: string[] = [];
  private lastLine = 1;
  private lastOffset = 0;

  /** Creates a decoder reporting to `sink`. */
  constructor(options: AiSdkDecodeOptions, sink: DiagnosticSink) {
    this.sink = sink;
    this.report = lineReporter(sink, FORMAT);
    this.maxDepth = resolveMaxDepth(options.maxDepth);
  }

  framing(framing: JsonFraming): void {
    this.mode = framing;
  }

  line(text: string, line: number, offset: number, out: AgentEvent[]): void {
    if (text === AISDK_DONE) return;
    // A text delta spelled as the writers spell it is read without parsing it whole (a flat
    // record: no depth to measure); anything else is parsed and measured.
    let value: unknown =
      AISDK_DECODER_SHORTCUTS.enabled && this.maxDepth > 0
        ? readDeltaRecord(text, AISDK_DELTA_HEAD, 'text-delta', 'id')
        : undefined;
    if (value === undefined) {
      value = parseMeasuredRecord(text, line, offset, this.maxDepth, FORMAT, this.sink);
      if (value === NOT_PARSED) return;
    }
    if (this.held !== undefined && !isEarly(value)) this.release(out);
    const hints: AiSdkHints = { raw: text, record: value, framing: this.mode };
    const provenance: Provenance = { format: FORMAT, line, offset, hints: hints as Record<string, unknown> };
    this.lastLine = line;
    this.lastOffset = offset;
    if (!isJsonObject(value)) {
      this.report('invalid_json', 'error', line, offset, 'not a JSON object; kept as an unknown event');
      out.push({ type: 'unknown', record: value, provenance });
      return;
    }
    const cx: Cx = { r: value, line, offset, provenance };
    // The type as the module's literal: the checks and the switch below then match it by identity.
    const type = aiSdkChunkType(value.type);
    const problem = type !== undefined ? missing(type, value) : undefined;
    if (type === undefined || problem !== undefined) {
      if (problem !== undefined)
        this.report('invalid_record', 'error', line, offset, `invalid ${type} chunk: ${problem}`);
      this.unknown(cx, out);
      return;
    }
    this.map(type, cx, out);
  }

  end(out: AgentEvent[]): void {
    this.release(out);
    // Chunks no event followed: kept whole.
    for (const raw of this.before) {
      const record = JSON.parse(raw) as JsonObject;
      const hints: AiSdkHints = { raw, record, framing: this.mode };
      const provenance: Provenance = { format: FORMAT, line: this.lastLine, offset: this.lastOffset };
      provenance.hints = hints as Record<string, unknown>;
      out.push({ type: 'unknown', recordType: record.type as string, record, provenance });
    }
    this.before = [];
    if (!this.runOpen) return;
    this.runOpen = false;
    const e: AgentEventOf<'run.end'> = {
      type: 'run.end',
      status: this.failed !== undefined ? 'failed' : 'incomplete',
      provenance: { format: FORMAT, line: this.lastLine, offset: this.lastOffset, synthetic: true },
    };
    if (this.failed !== undefined) e.error = this.failed;
    if (this.run !== undefined) e.run = this.run;
    out.push(e);
  }

  private release(out: AgentEvent[]): void {
    if (this.held === undefined) return;
    out.push(this.held);
    this.held = undefined;
  }

  private map(type: string, cx: Cx, out: AgentEvent[]): undefined {
    const r = cx.r;
    switch (type) {
      case 'start': {
        this.run = str(r.messageId);
        this.runOpen = true;
        this.failed = undefined;
        this.round = 0;
        this.stepOpen = false;
        this.saidError = undefined;
        // Held: carried events the writer put right after this chunk came before the run.
        const held: AgentEvent[] = [];
        this.push(held, cx, { type: 'run.start' });
        this.held = held[0];
        return;
      }
      case 'finish':
      case 'abort':
        return this.finish(type, cx, out);
      case 'start-step':
        this.openRun(cx, out);
        this.round++;
        this.stepOpen = true;
        this.stepText = '';
        return this.push(out, cx, { type: 'round.start' });
      case 'finish-step': {
        this.openRun(cx, out);
        this.push(out, cx, { type: 'round.end', message: this.stepText });
        this.stepOpen = false;
        this.stepText = '';
        return;
      }
      case 'text-start':
        this.openRun(cx, out);
        return this.push(out, cx, { type: 'message.start', role: 'assistant', message: r.id as string });
      case 'text-delta':
        this.openRun(cx, out);
        this.stepText += r.delta as string;
        return this.push(out, cx, { type: 'text.delta', text: r.delta as string, message: r.id as string });
      case 'text-end':
        this.openRun(cx, out);
        return this.push(out, cx, { type: 'message.end', message: r.id as string });
      case 'reasoning-start':
      case 'reasoning-delta':
      case 'reasoning-end':
        this.openRun(cx, out);
        return this.push(out, cx, this.reasoning(r));
      case 'tool-input-start': {
        this.openRun(cx, out);
        const call = r.toolCallId as string;
        this.names.set(call, r.toolName as string);
        return this.push(out, cx, { type: 'tool.args.delta', call, name: r.toolName as string, text: '' });
      }
      case 'tool-input-delta':
        this.openRun(cx, out);
        return this.push(out, cx, {
          type: 'tool.args.delta',
          call: r.toolCallId as string,
          text: r.inputTextDelta as string,
        });
      case 'tool-input-available': {
        this.openRun(cx, out);
        const call = r.toolCallId as string;
        this.names.set(call, r.toolName as string);
        const e: AgentEventOf<'tool.start'> = { type: 'tool.start', call, name: r.toolName as string };
        if (isJsonObject(r.input)) e.args = r.input;
        const meta = metaOf(r.toolMetadata);
        if (meta !== undefined) {
          for (const k of ['kind', 'server', 'argsSummary', 'command'] as const)
            if (typeof meta[k] === 'string') (e as Record<string, unknown>)[k] = meta[k];
          if (typeof meta.startedAt === 'number') e.startedAt = meta.startedAt;
        }
        return this.push(out, cx, e);
      }
      case 'tool-input-error':
      case 'tool-output-available':
      case 'tool-output-error':
      case 'tool-output-denied':
        this.openRun(cx, out);
        return this.toolEnd(type, cx, out);
      case 'tool-approval-request': {
        this.openRun(cx, out);
        const call = r.toolCallId as string;
        const e: AgentEventOf<'approval.request'> = {
          type: 'approval.request',
          approval: r.approvalId as string,
          call,
        };
        const name = this.names.get(call);
        if (name !== undefined) e.tool = name;
        const reason = str(r.reason);
        if (reason !== undefined) e.title = reason;
        return this.push(out, cx, e);
      }
      case 'tool-approval-response': {
        this.openRun(cx, out);
        const e: AgentEventOf<'approval.resolve'> = {
          type: 'approval.resolve',
          approval: r.approvalId as string,
          decision: r.approved === true ? 'allow' : 'deny',
        };
        return this.push(out, cx, e);
      }
      case 'error':
        this.openRun(cx, out);
        this.failed = r.errorText as string;
        if (r.errorText === this.saidError && this.before.length < MAX_BEFORE) {
          // The run's failure, restating an error this run already said: no second error event
          // (the writer writes this chunk for a failed run's end); the next event carries it.
          this.before.push(cx.provenance.hints!.raw as string);
          return;
        }
        this.saidError = undefined;
        return this.push(out, cx, { type: 'error', message: r.errorText as string, fatal: true });
      default: {
        if (type.startsWith(AISDK_DATA_PREFIX)) {
          const e = eventFromCarried(type.slice(AISDK_DATA_PREFIX.length), r.data);
          if (e !== undefined && this.held !== undefined) {
            (cx.provenance.hints as AiSdkHints).early = true;
            e.provenance = cx.provenance;
            out.push(e);
            return;
          }
          if (e?.type === 'error') this.saidError = e.fatal ? undefined : e.message;
          if (e !== undefined) return this.push(out, cx, e);
        }
        this.release(out);
        return this.unknown(cx, out);
      }
    }
  }

  private finish(type: string, cx: Cx, out: AgentEvent[]): undefined {
    const r = cx.r;
    this.openRun(cx, out);
    const e: AgentEventOf<'run.end'> = { type: 'run.end', status: 'completed' };
    if (type === 'abort') {
      e.status = 'cancelled';
      const reason = str(r.reason);
      if (reason !== undefined) e.reason = reason;
    } else {
      const finishReason = str(r.finishReason);
      if (finishReason !== undefined) e.stopReason = finishReason;
      if (this.failed !== undefined || finishReason === 'error') {
        e.status = 'failed';
        if (this.failed !== undefined) e.error = this.failed;
      }
      const usage = usageFromMetadata(r.messageMetadata);
      if (usage !== undefined) e.usage = usage;
      const m = r.messageMetadata;
      if (isJsonObject(m)) {
        if (typeof m.durationMs === 'number') e.durationMs = m.durationMs;
        if (typeof m.reason === 'string') e.reason = m.reason;
      }
    }
    this.push(out, cx, e);
    this.runOpen = false;
    this.failed = undefined;
  }

  private toolEnd(type: string, cx: Cx, out: AgentEvent[]): undefined {
    const r = cx.r;
    const call = r.toolCallId as string;
    if (type === 'tool-output-available' && r.preliminary === true) {
      const text = typeof r.output === 'string' ? r.output : JSON.stringify(r.output ?? null);
      return this.push(out, cx, { type: 'tool.output', call, text });
    }
    if (type === 'tool-input-error' && !this.names.has(call)) {
      // A call refused for its input never started: its start is implied by the refusal.
      const start: AgentEventOf<'tool.start'> = { type: 'tool.start', call, name: r.toolName as string };
      if (isJsonObject(r.input)) start.args = r.input;
      this.push(out, cx, start);
      start.provenance = { format: FORMAT, line: cx.line, offset: cx.offset, synthetic: true };
    }
    const e: AgentEventOf<'tool.end'> = { type: 'tool.end', call, ok: type === 'tool-output-available' };
    const name = str(r.toolName) ?? this.names.get(call);
    if (name !== undefined) e.name = name;
    if (type === 'tool-output-available') {
      if (typeof r.output === 'string') e.text = r.output;
      else if (r.output !== undefined) e.result = r.output;
    } else if (type === 'tool-output-denied') e.denied = true;
    else e.error = r.errorText as string;
    const meta = metaOf(r.toolMetadata);
    if (meta !== undefined) {
      if (typeof meta.text === 'string') e.text = meta.text;
      if (meta.result !== undefined) e.result = meta.result;
      if (meta.error !== undefined) e.error = meta.error;
      if (typeof meta.exitCode === 'number') e.exitCode = meta.exitCode;
      if (Array.isArray(meta.filesChanged))
        e.filesChanged = meta.filesChanged.filter((f) => typeof f === 'string');
      if (typeof meta.startedAt === 'number') e.startedAt = meta.startedAt;
      if (typeof meta.endedAt === 'number') e.endedAt = meta.endedAt;
    }
    this.push(out, cx, e);
  }

  private reasoning(r: JsonObject): AgentEventOf<'reasoning.delta'> {
    const e: AgentEventOf<'reasoning.delta'> = {
      type: 'reasoning.delta',
      text: str(r.delta) ?? '',
      message: r.id as string,
    };
    const meta = metaOf(r.providerMetadata);
    if (meta !== undefined) {
      if (typeof meta.signature === 'string') e.signature = meta.signature;
      if (typeof meta.redacted === 'string') e.redacted = meta.redacted;
    }
    return e;
  }

  /** A chunk of a run that has no `start`: the run opens there, implied. */
  private openRun(cx: Cx, out: AgentEvent[]): undefined {
    if (this.runOpen) return;
    this.runOpen = true;
    this.round = 0;
    this.failed = undefined;
    this.saidError = undefined;
    out.push({
      type: 'run.start',
      provenance: { format: FORMAT, line: cx.line, offset: cx.offset, synthetic: true },
    });
  }

  private unknown(cx: Cx, out: AgentEvent[]): undefined {
    const e: AgentEventOf<'unknown'> = { type: 'unknown', record: cx.r };
    if (typeof cx.r.type === 'string') e.recordType = cx.r.type;
    this.push(out, cx, e);
  }

  private push(out: AgentEvent[], cx: Cx, e: AgentEvent): undefined {
    if (this.run !== undefined && (this.runOpen || e.type === 'run.end')) e.run = this.run;
    if (this.stepOpen || e.type === 'round.start') e.round = this.round;
    if (this.before.length > 0) {
      (cx.provenance.hints as AiSdkHints).before = this.before;
      this.before = [];
    }
    e.provenance = cx.provenance;
    out.push(e);
  }
}

/** A `data-agentwire.<type>` part carrying an event from before the run (see `BEFORE_RUN`). */
function isEarly(r: unknown): boolean {
  if (!isJsonObject(r) || typeof r.type !== 'string' || !r.type.startsWith(AISDK_DATA_PREFIX)) return false;
  return (
    BEFORE_RUN.has(r.type.slice(AISDK_DATA_PREFIX.length)) && !(isJsonObject(r.data) && 'lane' in r.data)
  );
}

/** What a known chunk lacks, or `undefined` when its required fields are there. */
function missing(type: string, r: JsonObject): string | undefined {
  const fields = REQUIRED[type];
  return fields === undefined ? undefined : missingString(r, fields);
}
