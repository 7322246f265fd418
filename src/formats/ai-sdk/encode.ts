import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import { BEFORE_RUN, carriedValue, HeldRecords, isZeroUsage } from '../../framing/carry';
import { frameJson, type JsonFraming } from '../../framing/json-stream';
import { decisionAllows } from '../../guards';
import { assertEncodable, isJsonObject, type JsonObject, jsonString, rawIfSame } from '../../json';
import { LossReporter } from '../../loss';
import type { AgentEvent, AgentEventOf, Usage } from '../../model';
import { hintsFrom } from '../../record';
import {
  AISDK_DATA_PREFIX,
  AISDK_DONE,
  AISDK_META_KEY,
  type AiSdkHints,
  finishReasonOf,
  usageToMetadata,
} from './wire';

/** Options of the AI SDK UI message stream writer. */
export interface AiSdkEncodeOptions extends EncodeOptions {
  /**
   * `sse` (`data: {json}\n\n` closed by `data: [DONE]\n\n`, what `useChat` reads; the default)
   * or `jsonl`. Default: the framing the events were read in, else `sse`.
   */
  framing?: JsonFraming;
  /** Makes the message and part ids events do not have. Default: a counter. */
  idSource?: () => string;
}

const FORMAT = 'ai-sdk' as const;

/**
 * The switch of the writer's shortcuts (chunks written in pieces, text deltas of an open text
 * part written without the general dispatch). Tests turn it off to hold the shortcuts to the
 * general path (test/ui/writer-shortcuts.test.ts); nothing else should.
 */
export const AISDK_WRITER_SHORTCUTS: { enabled: boolean } = { enabled: true };
const ENV = ['run', 'round'];

// Events the UI message stream has a chunk for, and the fields it carries; every other type
// (and every event of a child lane) goes whole in a `data-agentwire.<type>` part.
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'run.start': [...ENV],
  'run.end': [...ENV, 'status', 'reason', 'error', 'answer', 'stopReason', 'usage', 'durationMs'],
  'round.start': ENV,
  'round.end': [...ENV, 'message', 'usage'],
  'message.start': [...ENV, 'role', 'message'],
  'message.end': [...ENV, 'message'],
  'text.delta': [...ENV, 'text', 'message'],
  'reasoning.delta': [...ENV, 'text', 'message', 'signature', 'redacted'],
  'tool.args.delta': [...ENV, 'call', 'name', 'text'],
  'tool.start': [...ENV, 'call', 'name', 'kind', 'server', 'args', 'argsSummary', 'command', 'startedAt'],
  'tool.end': [
    ...ENV,
    'call',
    'name',
    'ok',
    'text',
    'result',
    'error',
    'exitCode',
    'filesChanged',
    'denied',
    'startedAt',
    'endedAt',
  ],
  'approval.request': [...ENV, 'approval', 'call', 'tool', 'title'],
  'approval.resolve': [...ENV, 'approval', 'decision'],
  error: [...ENV, 'message', 'fatal'],
};

const TEXT_DELTA_CARRIED = CARRIED['text.delta']!;

// Outside a run (one assistant message) these wait for the next one; everything else opens one.
const WAITING = BEFORE_RUN;
/** Most events kept waiting for a run; more are reported lost. */
const MAX_WAITING = 1024;

function ownHints(event: AgentEvent): AiSdkHints | undefined {
  return hintsFrom<AiSdkHints>(event, FORMAT);
}

function addUsage(total: Usage, u: Usage): void {
  for (const k of ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning', 'costUsd'] as const) {
    if (u[k] !== undefined) total[k] = (total[k] ?? 0) + u[k];
  }
}

/**
 * The AI SDK UI message stream writer: canonical events → `UIMessageChunk`s, framed as SSE
 * (closed by `data: [DONE]`) or JSON Lines. A chunk the decoder read is written from its kept
 * record with the event's fields put back, and as it came while it says the same (`rawIfSame`).
 * Events from another format become the stream `readUIMessageStream` builds a message from: a
 * run is one assistant message (`start` … `finish`), rounds are steps, text and reasoning parts
 * open and close, a tool call is its input chunks then its output (a call with no input written
 * gets one, so its output always has an invocation), approvals are the approval chunks, the run's
 * usage (or its rounds' summed) rides `finish`'s `messageMetadata`. What the stream has no chunk
 * for, and every event of a child lane, travels whole in a `data-agentwire.<type>` part.
 */
export class AiSdkEncoder implements Encoder {
  private readonly loss: LossReporter;
  private readonly idSource: () => string;
  private framing: JsonFraming | undefined;
  private counter = 0;
  private runOpen = false;
  private stepOpen = false;
  /** A round the source opened (`round.start`) and has not ended. */
  private roundOpen = false;
  private text: string | undefined;
  /** The id a `message.start` gave the next text part. */
  private nextText: string | undefined;
  private reasoning: string | undefined;
  private wrote = false;
  private errorWritten = false;
  private roundUsage: Usage | undefined;
  /** Calls with a tool invocation in the message, by id: their tool's name. */
  private readonly invocations = new Map<string, string>();
  /** Calls whose input is written whole (`tool-input-available`). */
  private readonly inputs = new Set<string>();
  private readonly approvals = new Set<string>();
  /** Each approval's call, and the approvals whose call already has its output. */
  private readonly approvalCall = new Map<string, string>();
  private readonly decided = new Set<string>();
  private waiting: AgentEvent[] = [];
  /** Chunks of events read as before a run (`hints.early`): written after the next chunk. */
  private readonly early = new HeldRecords(MAX_WAITING);

  /** Creates a writer reporting losses to `sink`. */
  constructor(options: AiSdkEncodeOptions, sink: DiagnosticSink) {
    this.loss = new LossReporter(FORMAT, sink);
    this.idSource = options.idSource ?? (() => `aw-${++this.counter}`);
    this.framing = options.framing;
  }

  write(event: AgentEvent): string {
    if (AISDK_WRITER_SHORTCUTS.enabled && event.type === 'text.delta') {
      const text = this.openDelta(event);
      if (text !== undefined) return this.early.after(text);
    }
    const hints = ownHints(event);
    if (hints !== undefined) {
      this.framing ??= hints.framing;
      if (event.provenance?.synthetic) return '';
      if (isJsonObject(hints.record)) {
        const text = this.own(event, hints.record, hints);
        // Read as before the run, written where it was: right after the run's `start`.
        if (hints.early === true && this.early.hold(text)) return '';
        return this.early.after(text);
      }
    } else if (event.provenance?.format === FORMAT && event.provenance.synthetic) return '';
    return this.early.after(this.foreign(event));
  }

  end(): string {
    const out = this.early.after('');
    for (const e of this.waiting) this.loss.report(e, e.type, 'no message follows to carry it');
    this.waiting = [];
    // `[DONE]` closes a stream whose last run ended; one cut off mid-run stays as it was.
    if (this.framingOf() !== 'sse' || !this.wrote || this.runOpen) return out;
    return out + frameJson('sse', AISDK_DONE);
  }

  /**
   * Most of a stream from another format: a main-agent text delta of the text part already open
   * in the message's open step (no reasoning open) is the general path's `text-delta` alone,
   * written here without its dispatch. `undefined` for any other delta (the general path writes
   * it). Held to the general path by test/ui/writer-shortcuts.test.ts.
   */
  private openDelta(event: AgentEventOf<'text.delta'>): string | undefined {
    const p = event.provenance;
    if ((p !== undefined && p.format === FORMAT) || event.lane !== undefined || !this.runOpen)
      return undefined;
    const text = event.text;
    const open = this.text;
    if (typeof text !== 'string' || text === '' || open === undefined || !this.stepOpen) return undefined;
    if ((event.message !== undefined && event.message !== open) || this.reasoning !== undefined)
      return undefined;
    this.loss.check(event, TEXT_DELTA_CARRIED);
    this.nextText = undefined;
    this.wrote = true;
    return frameJson(
      this.framingOf(),
      `{"type":"text-delta","id":${jsonString(open)},"delta":${jsonString(text)}}`,
    );
  }

  // ---- chunks read from the AI SDK: their record, with the event's fields put back ----

  private own(event: AgentEvent, template: JsonObject, hints: AiSdkHints): string {
    const r: JsonObject = { ...template };
    switch (event.type) {
      case 'run.start':
        this.runOpen = true;
        if (event.run !== undefined && 'messageId' in r) r.messageId = event.run;
        break;
      case 'run.end':
        this.runOpen = false;
        if (event.stopReason !== undefined && 'finishReason' in r) r.finishReason = event.stopReason;
        break;
      case 'text.delta':
      case 'reasoning.delta':
        if ('delta' in r) r.delta = event.text;
        break;
      case 'tool.args.delta':
        if ('inputTextDelta' in r) r.inputTextDelta = event.text;
        break;
      case 'tool.end':
        if (event.text !== undefined && typeof r.output === 'string') r.output = event.text;
        if (typeof event.error === 'string' && typeof r.errorText === 'string') r.errorText = event.error;
        break;
      case 'error':
        // An `error` chunk's text (a carried error's record has no such field).
        if (r.type === 'error') r.errorText = event.message;
        break;
      default:
        break;
    }
    this.wrote = true;
    let out = '';
    if (hints.before !== undefined) for (const raw of hints.before) out += frameJson(this.framingOf(), raw);
    return out + frameJson(this.framingOf(), rawIfSame(hints.raw, JSON.stringify(r)));
  }

  // ---- events from another format ----

  private foreign(event: AgentEvent): string {
    if (!this.runOpen && WAITING.has(event.type)) {
      if (this.waiting.length < MAX_WAITING) this.waiting.push(event);
      else this.loss.report(event, event.type, 'too many events before a run');
      return '';
    }
    if (event.lane !== undefined) return this.ensureRun(event) + this.data(event);
    const carried = CARRIED[event.type];
    // Approvals are checked where they are written: as chunks, or whole in a data part.
    if (carried !== undefined && event.type !== 'approval.request' && event.type !== 'approval.resolve')
      this.loss.check(event, carried);
    switch (event.type) {
      case 'run.start': {
        const out = this.runOpen ? this.finish(undefined) : '';
        return out + this.start(event);
      }
      case 'run.end':
        // A run the source never ended stays open: its end came from no record.
        if (event.status === 'incomplete' && (!this.runOpen || event.provenance?.synthetic)) return '';
        // Nor does a derived end while a round the source opened is still open: it was cut off.
        if (event.provenance?.synthetic && this.roundOpen) return '';
        return this.ensureRun(event) + this.finish(event);
      default:
        return this.ensureRun(event) + this.content(event);
    }
  }

  private content(event: AgentEvent): string {
    switch (event.type) {
      case 'round.start':
        this.roundOpen = true;
        return this.closeParts() + this.closeStep() + this.openStep();
      case 'round.end': {
        this.roundOpen = false;
        if (event.usage !== undefined) {
          this.roundUsage ??= {};
          addUsage(this.roundUsage, event.usage);
        }
        return this.closeParts() + (this.stepOpen ? '' : this.openStep()) + this.closeStep();
      }
      case 'message.start':
        // The part opens with its first text: a message that says nothing leaves no empty part.
        this.nextText = event.message;
        return this.closeParts();
      case 'message.end':
        return this.text !== undefined && (event.message === undefined || event.message === this.text)
          ? this.closeText()
          : '';
      case 'text.delta': {
        if (event.text === '') return '';
        let out = this.ensureStep() + this.closeReasoning();
        if (this.text !== undefined && event.message !== undefined && event.message !== this.text)
          out += this.closeText();
        if (this.text === undefined) out += this.openText(event.message ?? this.nextText);
        this.nextText = undefined;
        // Most of a stream, spelled out: the same bytes as emit() gives, without an object.
        this.wrote = true;
        return (
          out +
          frameJson(
            this.framingOf(),
            `{"type":"text-delta","id":${jsonString(this.text!)},"delta":${jsonString(event.text)}}`,
          )
        );
      }
      case 'reasoning.delta':
        return this.ensureStep() + this.reasoningDelta(event);
      case 'tool.args.delta': {
        let out = this.ensureStep() + this.closeParts();
        if (!this.invocations.has(event.call)) {
          const name = event.name ?? 'unknown';
          this.invocations.set(event.call, name);
          out += this.emit('tool-input-start', { toolCallId: event.call, toolName: name });
        }
        if (event.text === '') return out;
        return out + this.emit('tool-input-delta', { toolCallId: event.call, inputTextDelta: event.text });
      }
      case 'tool.start':
        return this.ensureStep() + this.closeParts() + this.toolInput(event);
      case 'tool.end':
        return this.ensureStep() + this.closeParts() + this.toolOutput(event);
      case 'approval.request':
        if (event.call === undefined || !this.invocations.has(event.call)) return this.data(event);
        this.approvals.add(event.approval);
        this.approvalCall.set(event.approval, event.call);
        this.loss.check(event, CARRIED['approval.request']!);
        return (
          this.closeParts() +
          this.emit('tool-approval-request', {
            approvalId: event.approval,
            toolCallId: event.call,
            reason: event.title,
          })
        );
      case 'approval.resolve':
        // A decision after the call's output would take the part back from its outcome.
        if (!this.approvals.has(event.approval) || this.decided.has(event.approval)) return this.data(event);
        this.loss.check(event, CARRIED['approval.resolve']!);
        return this.emit('tool-approval-response', {
          approvalId: event.approval,
          approved: decisionAllows(event.decision),
        });
      case 'cancel':
        // The run stops here: its step ends before the cancellation is said.
        return this.closeParts() + this.closeStep() + this.data(event);
      case 'error':
        if (!event.fatal) return this.data(event);
        this.errorWritten = true;
        return this.closeParts() + this.emit('error', { errorText: event.message });
      default:
        return this.data(event);
    }
  }

  private data(event: AgentEvent): string {
    // The message states its run and steps; a session, workspace or sequence number it cannot.
    for (const k of ['session', 'workspace', 'seq'] as const)
      if (event[k] !== undefined)
        this.loss.report(event, `${event.type}.${k}`, `the UI message stream has no place for ${k}`);
    const value = carriedValue(event);
    if (event.lane !== undefined) value.lane = event.lane;
    if (event.ts !== undefined) value.ts = event.ts;
    for (const k of Object.keys(value)) assertEncodable(value[k], `${event.type}.${k}`, undefined, FORMAT);
    return this.emit(`${AISDK_DATA_PREFIX}${event.type}`, { data: value });
  }

  private emit(type: string, fields: JsonObject): string {
    this.wrote = true;
    if (!AISDK_WRITER_SHORTCUTS.enabled) {
      const r: JsonObject = { type };
      for (const k of Object.keys(fields)) if (fields[k] !== undefined) r[k] = fields[k];
      return frameJson(this.framingOf(), JSON.stringify(r));
    }
    // The chunk's text in pieces, without copying `fields` behind a `type` key: `JSON.stringify`
    // drops undefined fields as the chunk would not have them, and slicing its braces off copies
    // nothing. Held to the object above by test/ui/writer-shortcuts.test.ts.
    const body = JSON.stringify(fields);
    return frameJson(
      this.framingOf(),
      body.length > 2 ? `{"type":${jsonString(type)},${body.slice(1)}` : `{"type":${jsonString(type)}}`,
    );
  }

  private framingOf(): JsonFraming {
    this.framing ??= 'sse';
    return this.framing;
  }

  // ---- the message: start, steps, finish ----

  private ensureRun(event: AgentEvent): string {
    return this.runOpen ? '' : this.start(event);
  }

  private start(event: AgentEvent): string {
    this.runOpen = true;
    this.stepOpen = false;
    this.roundOpen = false;
    this.errorWritten = false;
    this.roundUsage = undefined;
    this.invocations.clear();
    this.inputs.clear();
    this.approvals.clear();
    this.approvalCall.clear();
    this.decided.clear();
    let out = this.emit('start', { messageId: event.run ?? this.idSource() });
    const waiting = this.waiting;
    this.waiting = [];
    for (const e of waiting) out += e.lane !== undefined ? this.data(e) : this.content(e);
    return out;
  }

  private finish(event: AgentEventOf<'run.end'> | undefined): string {
    let out = this.closeParts() + this.closeStep();
    this.runOpen = false;
    if (event?.status === 'cancelled') {
      for (const k of ['stopReason', 'usage', 'durationMs'] as const)
        if (event[k] !== undefined)
          this.loss.report(event, `run.end.${k}`, 'an abort chunk carries a reason only');
      return out + this.emit('abort', { reason: event.reason });
    }
    const failed = event?.status === 'failed';
    if (failed && !this.errorWritten)
      out += this.emit('error', { errorText: event?.error ?? event?.reason ?? 'failed' });
    if (event?.status === 'incomplete')
      this.loss.report(event, 'run.end.status', 'the UI message stream has no incomplete finish');
    const fields: JsonObject = {};
    const reason = failed ? 'error' : finishReasonOf(event?.stopReason);
    if (reason !== undefined) fields.finishReason = reason;
    const usage = event?.usage ?? this.roundUsage;
    const metadata: JsonObject = usage !== undefined && !isZeroUsage(usage) ? usageToMetadata(usage) : {};
    if (event?.durationMs !== undefined) metadata.durationMs = event.durationMs;
    if (event?.reason !== undefined) metadata.reason = event.reason;
    if (Object.keys(metadata).length > 0) fields.messageMetadata = metadata;
    return out + this.emit('finish', fields);
  }

  private openStep(): string {
    this.stepOpen = true;
    return this.emit('start-step', {});
  }

  private ensureStep(): string {
    return this.stepOpen ? '' : this.openStep();
  }

  private closeStep(): string {
    if (!this.stepOpen) return '';
    this.stepOpen = false;
    return this.emit('finish-step', {});
  }

  // ---- text and reasoning parts ----

  private openText(id: string | undefined): string {
    this.text = id ?? this.idSource();
    return this.emit('text-start', { id: this.text });
  }

  private closeText(): string {
    if (this.text === undefined) return '';
    const id = this.text;
    this.text = undefined;
    return this.emit('text-end', { id });
  }

  private reasoningDelta(event: AgentEventOf<'reasoning.delta'>): string {
    let out = this.closeText();
    if (this.reasoning !== undefined && event.message !== undefined && event.message !== this.reasoning)
      out += this.closeReasoning();
    const opaque: JsonObject = {};
    if (event.signature !== undefined) opaque.signature = event.signature;
    if (event.redacted !== undefined) opaque.redacted = event.redacted;
    const hasOpaque = Object.keys(opaque).length > 0;
    if (event.text === '' && !hasOpaque) return out;
    if (this.reasoning === undefined) {
      this.reasoning = event.message ?? this.idSource();
      out += this.emit('reasoning-start', { id: this.reasoning });
    }
    const fields: JsonObject = { id: this.reasoning, delta: event.text };
    if (hasOpaque) fields.providerMetadata = { [AISDK_META_KEY]: opaque };
    return out + this.emit('reasoning-delta', fields);
  }

  private closeReasoning(): string {
    if (this.reasoning === undefined) return '';
    const id = this.reasoning;
    this.reasoning = undefined;
    return this.emit('reasoning-end', { id });
  }

  private closeParts(): string {
    return this.closeText() + this.closeReasoning();
  }

  // ---- tool calls ----

  private toolInput(event: AgentEventOf<'tool.start'>): string {
    const input = event.args ?? (event.command !== undefined ? { command: event.command } : {});
    if (event.args !== undefined) assertEncodable(event.args, 'tool.start.args', undefined, FORMAT);
    this.invocations.set(event.call, event.name);
    this.inputs.add(event.call);
    const meta: JsonObject = {};
    for (const k of ['kind', 'server', 'argsSummary', 'command', 'startedAt'] as const) {
      if (event[k] !== undefined) meta[k] = event[k];
    }
    return this.emit('tool-input-available', {
      toolCallId: event.call,
      toolName: event.name,
      input,
      toolMetadata: Object.keys(meta).length > 0 ? { [AISDK_META_KEY]: meta } : undefined,
    });
  }

  private toolOutput(event: AgentEventOf<'tool.end'>): string {
    let out = '';
    if (!this.inputs.has(event.call)) {
      // An output needs its invocation: a call whose start never came gets its input here.
      const name = this.invocations.get(event.call) ?? event.name ?? 'unknown';
      out += this.toolInput({ type: 'tool.start', call: event.call, name });
    }
    this.inputs.delete(event.call);
    for (const [approval, call] of this.approvalCall) if (call === event.call) this.decided.add(approval);
    const meta: JsonObject = {};
    for (const k of ['exitCode', 'filesChanged', 'startedAt', 'endedAt'] as const) {
      if (event[k] !== undefined) meta[k] = event[k];
    }
    const toolMetadata = (): JsonObject | undefined =>
      Object.keys(meta).length > 0 ? { [AISDK_META_KEY]: meta } : undefined;
    if (event.denied === true) {
      if (event.error !== undefined) meta.error = event.error;
      if (event.text !== undefined) meta.text = event.text;
      if (Object.keys(meta).length > 0)
        this.loss.report(event, 'tool.end.error', 'tool-output-denied has no text');
      return out + this.emit('tool-output-denied', { toolCallId: event.call });
    }
    if (!event.ok) {
      const errorText =
        typeof event.error === 'string'
          ? event.error
          : (event.text ?? (event.error !== undefined ? JSON.stringify(event.error) : 'failed'));
      if (event.result !== undefined) meta.result = event.result;
      if (event.text !== undefined && event.text !== errorText) meta.text = event.text;
      if (event.error !== undefined && typeof event.error !== 'string') meta.error = event.error;
      return (
        out +
        this.emit('tool-output-error', { toolCallId: event.call, errorText, toolMetadata: toolMetadata() })
      );
    }
    let output: unknown = event.text ?? null;
    if (event.result !== undefined) {
      assertEncodable(event.result, 'tool.end.result', undefined, FORMAT);
      output = event.result;
      if (event.text !== undefined) meta.text = event.text;
    }
    return (
      out +
      this.emit('tool-output-available', { toolCallId: event.call, output, toolMetadata: toolMetadata() })
    );
  }
}
