import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import { BEFORE_RUN, CARRY_PREFIX, carriedValue, HeldRecords, isZeroUsage } from '../../framing/carry';
import { frameJson, type JsonFraming } from '../../framing/json-stream';
import { decisionAllows } from '../../guards';
import { assertEncodable, isJsonObject, type JsonObject, jsonString, rawIfSame } from '../../json';
import { LossReporter } from '../../loss';
import type { AgentEvent, AgentEventOf, Usage } from '../../model';
import { hintsFrom } from '../../record';
import {
  AGUI_APPROVAL_REASON,
  AGUI_META_KEY,
  AGUI_QUESTION_REASON,
  type AguiHints,
  stepNameOf,
  usageToWire,
} from './wire';

/** Options of the AG-UI writer. */
export interface AguiEncodeOptions extends EncodeOptions {
  /**
   * `sse` (`data: {json}\n\n`, what `@ag-ui/encoder` writes; the default) or `jsonl` (one JSON
   * object per line). Default: the framing the events were read in, else `sse`.
   */
  framing?: JsonFraming;
  /** Makes the thread, run and message ids events do not have. Default: a counter. */
  idSource?: () => string;
}

const FORMAT = 'ag-ui' as const;
const META_KEY_JSON = JSON.stringify(AGUI_META_KEY);

/**
 * The switch of the writer's shortcuts (records written in pieces, text deltas of an open
 * message written without the general dispatch). Tests turn it off to hold the shortcuts to the
 * general path (test/ui/writer-shortcuts.test.ts); nothing else should.
 */
export const AGUI_WRITER_SHORTCUTS: { enabled: boolean } = { enabled: true };
const ENV = ['session', 'run', 'round', 'ts', 'lane'];

// Events AG-UI has a slot for, and the fields it carries; every other type goes whole in a
// `CUSTOM` event named `agentwire.<type>`.
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'run.start': [...ENV, 'input'],
  'run.end': [...ENV, 'status', 'reason', 'error', 'answer', 'usage', 'stopReason', 'durationMs', 'input'],
  'round.start': ENV,
  'round.end': [...ENV, 'message', 'stopReason', 'usage', 'model'],
  'message.start': [...ENV, 'role', 'message'],
  'message.end': [...ENV, 'message'],
  'text.delta': [...ENV, 'text', 'message'],
  'reasoning.delta': [...ENV, 'text', 'message', 'redacted'],
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
  'approval.request': [...ENV, 'approval', 'call', 'tool', 'title', 'args', 'effects', 'options'],
  'approval.resolve': [...ENV, 'approval', 'decision', 'option'],
  question: [...ENV, 'question', 'questions', 'call'],
  'question.answer': [...ENV, 'question', 'answers'],
  'child.start': [...ENV, 'child', 'name', 'task', 'call', 'background', 'kind'],
  'child.end': [...ENV, 'child', 'status', 'result', 'usage'],
  unknown: [...ENV, 'record', 'recordType'],
};

const TEXT_DELTA_CARRIED = CARRIED['text.delta']!;

// Outside a run AG-UI has no place for an event (a stream opens with RUN_STARTED and a finished
// run takes nothing more): these wait for the next run. Everything else opens one.
const WAITING = BEFORE_RUN;
/** Most events kept waiting for a run; more are reported lost. */
const MAX_WAITING = 1024;

function ownHints(event: AgentEvent): AguiHints | undefined {
  return hintsFrom<AguiHints>(event, FORMAT);
}

/** A `usage` array, or none for a usage that counts nothing (see {@link isZeroUsage}). */
function usageOf(usage: Usage | undefined): JsonObject[] | undefined {
  return usage === undefined || isZeroUsage(usage) ? undefined : usageToWire(usage);
}

/** What a run's end says beyond AG-UI's fields, kept in its `metadata.agentwire`. */
function runMeta(event: AgentEventOf<'run.end'> | undefined): JsonObject {
  const meta: JsonObject = {};
  if (event === undefined) return meta;
  for (const k of ['reason', 'stopReason', 'durationMs', 'input'] as const) {
    if (event[k] !== undefined && !(k === 'reason' && event.reason === 'interrupt')) meta[k] = event[k];
  }
  // TokenUsage counts tokens only: the cost rides beside it.
  if (event.usage?.costUsd !== undefined && !isZeroUsage(event.usage)) meta.costUsd = event.usage.costUsd;
  return meta;
}

function timestampOf(ts: number | undefined): number | undefined {
  return ts !== undefined && Number.isFinite(ts) ? Math.round(ts) : undefined;
}

/**
 * The AG-UI writer: canonical events → AG-UI 1.0 events, framed as SSE or JSON Lines. An event
 * the decoder read is written from its kept record with the event's fields put back, and as it
 * came while it says the same (`rawIfSame`). Events from another format become a stream AG-UI's
 * own verifier accepts: a run opens with `RUN_STARTED` (events that come before one wait for
 * it), rounds are steps, text, reasoning and tool calls open and close their messages,
 * approvals and questions still open when their run ends end it with an interrupt outcome (and
 * decisions after it are the next run's resume entries), subagents are `SUBAGENT_*` events and their
 * events carry `subagentRunId`; what AG-UI has no slot for travels whole in a `CUSTOM` event
 * named `agentwire.<type>` (a foreign record in `RAW`).
 */
export class AguiEncoder implements Encoder {
  private readonly loss: LossReporter;
  private readonly idSource: () => string;
  private framing: JsonFraming | undefined;
  private counter = 0;
  private thread: string | undefined;
  private run: string | undefined;
  private runOpen = false;
  private runs = 0;
  /** The open step of each lane (`''`: the main agent's). */
  private readonly step = new Map<string, string>();
  private steps = 0;
  private readonly text = new Map<string, string>();
  private readonly reasoning = new Map<string, string>();
  /** Calls whose TOOL_CALL_START is written and TOOL_CALL_END not yet. */
  private readonly calls = new Map<string, string>();
  /** Calls whose arguments were written whole (TOOL_CALL_END). */
  private readonly ended = new Set<string>();
  private readonly subagents = new Set<string>();
  private pending: Array<AgentEventOf<'approval.request'> | AgentEventOf<'question'>> = [];
  private resume: JsonObject[] = [];
  private waiting: AgentEvent[] = [];
  /** Records of events read as before a run (`hints.early`): written after the next record. */
  private readonly early = new HeldRecords(MAX_WAITING);
  private fatal: string | undefined;
  /** The main agent's text in this run (what an answer equal to it repeats). */
  private runText = '';

  /** Creates a writer reporting losses to `sink`. */
  constructor(options: AguiEncodeOptions, sink: DiagnosticSink) {
    this.loss = new LossReporter(FORMAT, sink);
    this.idSource = options.idSource ?? (() => `aw-${++this.counter}`);
    this.framing = options.framing;
  }

  write(event: AgentEvent): string {
    if (AGUI_WRITER_SHORTCUTS.enabled && event.type === 'text.delta') {
      const text = this.openDelta(event);
      if (text !== undefined) return this.early.after(text);
    }
    const hints = ownHints(event);
    if (hints !== undefined) {
      this.framing ??= hints.framing;
      if (event.provenance?.synthetic || hints.part) return '';
      const record = hints.record;
      if (isJsonObject(record)) {
        const text = this.own(event, record, hints);
        // Read as before the run, written where it was: right after the run's opening record.
        if (hints.early === true && this.early.hold(text)) return '';
        return this.early.after(text);
      }
    } else if (event.provenance?.format === FORMAT && event.provenance.synthetic) return '';
    return this.early.after(this.foreign(event));
  }

  end(): string {
    let out = this.early.after('');
    // A run still open when the events end was cut off: it stays open, as it was (AG-UI says
    // nothing of a run whose producer stopped), unless it waits on requests (an interrupt) or
    // failed. Events still waiting for a run are lost.
    for (const e of this.waiting) this.loss.report(e, e.type, 'no AG-UI run follows to carry it');
    this.waiting = [];
    if (this.runOpen && this.fatal !== undefined) out += this.runError(undefined);
    else if (this.runOpen && this.pending.length > 0) out += this.finishRun(undefined);
    return out;
  }

  /**
   * Most of a stream from another format: a main-agent text delta of the message already open in
   * the run's open step (no reasoning open) is the general path's `TEXT_MESSAGE_CONTENT` alone,
   * written here without its dispatch. `undefined` for any other delta (the general path writes
   * it). Held to the general path by test/ui/writer-shortcuts.test.ts.
   */
  private openDelta(event: AgentEventOf<'text.delta'>): string | undefined {
    const p = event.provenance;
    if ((p !== undefined && p.format === FORMAT) || event.lane !== undefined || !this.runOpen)
      return undefined;
    const text = event.text;
    if (typeof text !== 'string' || text === '') return undefined;
    const open = this.text.get('');
    if (open === undefined || (event.message !== undefined && event.message !== open)) return undefined;
    if (!this.step.has('') || this.reasoning.has('')) return undefined;
    this.loss.check(event, TEXT_DELTA_CARRIED);
    this.runText += text;
    return this.textContent(event, open);
  }

  // ---- events read from AG-UI: their record, with the event's fields put back ----

  private own(event: AgentEvent, template: JsonObject, hints: AguiHints): string {
    const r: JsonObject = { ...template };
    const e = event as Record<string, unknown>;
    const put = (key: string, value: unknown): void => {
      if (value !== undefined) r[key] = value;
    };
    switch (event.type) {
      case 'run.start':
        this.runOpen = true;
        put('threadId', event.session);
        put('runId', event.run);
        break;
      case 'run.end':
        this.runOpen = false;
        if (r.type === 'RUN_ERROR') put('message', event.error);
        else if (typeof event.answer === 'string') r.result = event.answer;
        break;
      case 'text.delta':
      case 'reasoning.delta':
        if ('delta' in r) r.delta = event.text;
        break;
      case 'tool.args.delta':
        if (r.type === 'TOOL_CALL_ARGS') r.delta = event.text;
        put('toolCallId', event.call);
        break;
      case 'tool.start':
      case 'tool.end':
        put('toolCallId', e.call);
        if (event.type === 'tool.end' && event.text !== undefined && typeof r.content === 'string')
          r.content = event.text;
        break;
      case 'child.start':
      case 'child.end':
        put('subagentRunId', e.child);
        break;
      default:
        break;
    }
    if ('timestamp' in r || event.ts !== undefined) put('timestamp', event.ts);
    let out = '';
    if (hints.before !== undefined) for (const raw of hints.before) out += frameJson(this.framingOf(), raw);
    return out + frameJson(this.framingOf(), rawIfSame(hints.raw, JSON.stringify(r)));
  }

  // ---- events from another format ----

  private foreign(event: AgentEvent): string {
    const carried = CARRIED[event.type];
    if (carried !== undefined) this.loss.check(event, carried);
    if (!this.runOpen && event.type !== 'run.start' && event.type !== 'run.end' && WAITING.has(event.type)) {
      if (this.runs > 0 && (event.type === 'approval.resolve' || event.type === 'question.answer')) {
        this.resume.push(this.resumeEntry(event));
        return '';
      }
      if (this.waiting.length < MAX_WAITING) this.waiting.push(event);
      else this.loss.report(event, event.type, 'too many events before a run');
      return '';
    }
    let out = '';
    switch (event.type) {
      case 'run.start':
        if (this.runOpen) out += this.finishRun(undefined);
        return out + this.startRun(event);
      case 'run.end':
        // A run the source never ended stays open (it came from no record), unless it waits on
        // a request: that is an interrupt, and says so.
        if (event.status === 'incomplete' && event.provenance?.synthetic && this.pending.length === 0)
          return '';
        if (!this.runOpen) {
          if (event.status === 'incomplete') return '';
          out += this.startRun(event);
        }
        return out + this.finishRun(event);
      default:
        break;
    }
    if (!this.runOpen) out += this.startRun(event);
    return out + this.content(event);
  }

  private content(event: AgentEvent): string {
    let out = '';
    const lane = event.lane;
    if (lane !== undefined && !this.subagents.has(lane) && event.type !== 'child.start') {
      out += this.openSubagent({ type: 'child.start', child: lane }, undefined, true);
    }
    switch (event.type) {
      case 'round.start':
        out += this.closeLane(lane) + this.closeStep(lane);
        return out + this.openStep(event);
      case 'round.end': {
        out += this.closeLane(lane);
        if (!this.step.has(lane ?? '')) out += this.openStep(event);
        const meta: JsonObject = {};
        if (event.stopReason !== undefined) meta.stopReason = event.stopReason;
        const usage = usageOf(event.usage);
        if (usage !== undefined) meta.usage = usage;
        if (usage !== undefined && event.usage?.costUsd !== undefined) meta.costUsd = event.usage.costUsd;
        else if (usage === undefined && event.usage !== undefined && !isZeroUsage(event.usage))
          this.loss.report(event, 'round.end.usage', 'not whole token counts');
        if (event.model !== undefined) meta.model = event.model;
        return out + this.closeStep(lane, event, meta);
      }
      case 'message.start':
        // A new message ends what the lane was saying, its reasoning too.
        out += this.ensureStep(event) + this.closeLane(lane);
        return out + this.openText(event, event.message);
      case 'message.end':
        return out + this.closeText(lane, event.message);
      case 'text.delta': {
        if (event.text === '' && !this.text.has(lane ?? '')) return out;
        out += this.ensureStep(event) + this.closeReasoning(lane);
        const open = this.text.get(lane ?? '');
        if (open !== undefined && event.message !== undefined && open !== event.message)
          out += this.closeText(lane);
        if (!this.text.has(lane ?? '')) out += this.openText(event, event.message);
        if (event.text === '') return out;
        if (lane === undefined) this.runText += event.text;
        return out + this.textContent(event, this.text.get(lane ?? '')!);
      }
      case 'reasoning.delta':
        return out + this.ensureStep(event) + this.reasoningDelta(event);
      case 'tool.args.delta':
        out += this.ensureStep(event) + this.closeLane(lane);
        if (!this.calls.has(event.call)) out += this.startCall(event, event.call, event.name);
        if (event.text === '') return out;
        return out + this.emit(event, 'TOOL_CALL_ARGS', { toolCallId: event.call, delta: event.text });
      case 'tool.start':
        return out + this.ensureStep(event) + this.closeLane(lane) + this.toolStart(event);
      case 'tool.end':
        return out + this.toolEnd(event);
      case 'approval.request':
      case 'question':
        // Said where it happens, and held: still open when the run ends, it is an interrupt.
        if (this.pending.length < MAX_WAITING) this.pending.push(event);
        return out + this.custom(event);
      case 'approval.resolve':
      case 'question.answer':
        return out + this.decided(event);
      case 'child.start':
        return out + this.openSubagent(event, lane);
      case 'child.end':
        return out + this.closeSubagent(event);
      case 'error':
        if (event.fatal) {
          this.fatal = event.message;
          return out;
        }
        return out + this.custom(event);
      case 'unknown':
        return (
          out +
          this.emit(event, 'RAW', { event: event.record, source: event.provenance?.format ?? 'agentwire' })
        );
      default:
        return out + this.custom(event);
    }
  }

  private custom(event: AgentEvent): string {
    // The stream states thread, run and step; a workspace or sequence number it cannot.
    for (const k of ['workspace', 'seq'] as const)
      if (event[k] !== undefined)
        this.loss.report(event, `${event.type}.${k}`, `AG-UI has no place for ${k}`);
    const value = carriedValue(event);
    for (const k of Object.keys(value)) assertEncodable(value[k], `${event.type}.${k}`, undefined, FORMAT);
    return this.emit(event, 'CUSTOM', { name: `${CARRY_PREFIX}${event.type}`, value });
  }

  /**
   * `TEXT_MESSAGE_CONTENT`, most of a stream, spelled out: the same bytes as {@link emit} gives,
   * without an object per record.
   */
  private textContent(event: AgentEventOf<'text.delta'>, id: string): string {
    let json = `{"type":"TEXT_MESSAGE_CONTENT","messageId":${jsonString(id)},"delta":${jsonString(event.text)}`;
    if (event.lane !== undefined) json += `,"subagentRunId":${jsonString(event.lane)}`;
    const ts = timestampOf(event.ts);
    if (ts !== undefined) json += `,"timestamp":${ts}`;
    return frameJson(this.framingOf(), `${json}}`);
  }

  /** Writes one record: `type`, its own fields, then `subagentRunId`, `timestamp`, `metadata`. */
  private emit(
    event: AgentEvent | undefined,
    type: string,
    fields: JsonObject,
    meta?: JsonObject,
    runScoped = false,
  ): string {
    if (!AGUI_WRITER_SHORTCUTS.enabled) return this.emitRecord(event, type, fields, meta, runScoped);
    // The record's text in pieces, without copying `fields` behind a `type` key: `JSON.stringify`
    // drops undefined fields as the record would not have them, and slicing its braces off
    // copies nothing. `type` is always one of this module's SCREAMING_SNAKE literals (nothing to
    // escape). Held to emitRecord by test/ui/writer-shortcuts.test.ts.
    const body = JSON.stringify(fields);
    let json = body.length > 2 ? `{"type":"${type}",${body.slice(1, -1)}` : `{"type":"${type}"`;
    if (!runScoped && event?.lane !== undefined && fields.subagentRunId === undefined)
      json += `,"subagentRunId":${jsonString(event.lane)}`;
    const ts = timestampOf(event?.ts);
    if (ts !== undefined) json += `,"timestamp":${ts}`;
    if (meta !== undefined && Object.keys(meta).length > 0) {
      assertEncodable(meta, `${type}.metadata`, undefined, FORMAT);
      json += `,"metadata":{${META_KEY_JSON}:${JSON.stringify(meta)}}`;
    }
    return frameJson(this.framingOf(), `${json}}`);
  }

  /** {@link emit}'s general path: the record built as an object, then `JSON.stringify`. */
  private emitRecord(
    event: AgentEvent | undefined,
    type: string,
    fields: JsonObject,
    meta: JsonObject | undefined,
    runScoped: boolean,
  ): string {
    const r: JsonObject = { type };
    for (const k of Object.keys(fields)) if (fields[k] !== undefined) r[k] = fields[k];
    if (!runScoped && event?.lane !== undefined && !('subagentRunId' in r)) r.subagentRunId = event.lane;
    const ts = timestampOf(event?.ts);
    if (ts !== undefined) r.timestamp = ts;
    if (meta !== undefined && Object.keys(meta).length > 0) {
      assertEncodable(meta, `${type}.metadata`, undefined, FORMAT);
      r.metadata = { [AGUI_META_KEY]: meta };
    }
    return frameJson(this.framingOf(), JSON.stringify(r));
  }

  private framingOf(): JsonFraming {
    this.framing ??= 'sse';
    return this.framing;
  }

  private newId(): string {
    return this.idSource();
  }

  // ---- runs ----

  private startRun(event: AgentEvent): string {
    this.runOpen = true;
    this.runs++;
    this.runText = '';
    this.steps = 0;
    this.fatal = undefined;
    this.thread = event.session ?? this.thread ?? this.newId();
    this.run = event.run !== undefined && event.run !== this.run ? event.run : this.newId();
    const fields: JsonObject = { threadId: this.thread, runId: this.run };
    const text = event.type === 'run.start' ? event.input : undefined;
    if (text !== undefined || this.resume.length > 0) {
      const input: JsonObject = { threadId: this.thread, runId: this.run, messages: [] };
      if (text !== undefined) input.messages = [{ id: this.newId(), role: 'user', content: text }];
      if (this.resume.length > 0) input.resume = this.resume;
      fields.input = input;
      this.resume = [];
    }
    let out = this.emit(event, 'RUN_STARTED', fields, undefined, true);
    const waiting = this.waiting;
    this.waiting = [];
    for (const e of waiting) out += this.content(e);
    return out;
  }

  private closeAll(): string {
    let out = '';
    for (const lane of [...this.text.keys()]) out += this.closeText(lane === '' ? undefined : lane);
    for (const lane of [...this.reasoning.keys()]) out += this.closeReasoning(lane === '' ? undefined : lane);
    for (const [call] of this.calls) out += this.emit(undefined, 'TOOL_CALL_END', { toolCallId: call });
    this.calls.clear();
    // A step the run's end closes is no round that ended: it says so, and reads back as none.
    for (const lane of [...this.step.keys()].reverse())
      out += this.closeStep(lane === '' ? undefined : lane, undefined, { closing: true });
    for (const child of [...this.subagents].reverse()) {
      // Closed by the run's end, not a child that ended: it says so, and reads back as none.
      out += this.emit(
        undefined,
        'SUBAGENT_FINISHED',
        { subagentRunId: child, outcome: { type: 'success' } },
        { closing: true },
      );
    }
    this.subagents.clear();
    return out;
  }

  private finishRun(event: AgentEventOf<'run.end'> | undefined): string {
    let out = this.closeAll();
    this.runOpen = false;
    if (event?.status === 'failed' || (event === undefined && this.fatal !== undefined)) {
      return out + this.runError(event);
    }
    const fields: JsonObject = { threadId: this.thread!, runId: this.run! };
    // The answer is the run's text: written only when it says something the text does not.
    if (event?.answer !== undefined && event.answer !== '' && event.answer !== this.runText)
      fields.result = event.answer;
    // A cancelled run asks for nothing (its requests were said where they happened).
    if (event?.status === 'cancelled') fields.outcome = { type: 'cancelled' };
    else if (this.pending.length > 0)
      fields.outcome = { type: 'interrupt', interrupts: this.pending.map((p) => this.interrupt(p)) };
    this.pending = [];
    const usage = usageOf(event?.usage);
    if (usage !== undefined) fields.usage = usage;
    const meta = runMeta(event);
    // A run that did not end (a new one begins, or its end says so) finishes, as AG-UI requires,
    // and says it was not complete: it reads back as incomplete, never as a success.
    if (fields.outcome === undefined && (event === undefined || event.status === 'incomplete'))
      meta.status = 'incomplete';
    out += this.emit(event, 'RUN_FINISHED', fields, meta, true);
    return out;
  }

  private runError(event: AgentEventOf<'run.end'> | undefined): string {
    this.runOpen = false;
    const fields: JsonObject = { message: event?.error ?? this.fatal ?? event?.reason ?? 'the run failed' };
    if (event?.reason !== undefined) fields.code = event.reason;
    const usage = usageOf(event?.usage);
    if (usage !== undefined) fields.usage = usage;
    this.fatal = undefined;
    this.pending = [];
    const meta = runMeta(event);
    delete meta.reason;
    return this.emit(event, 'RUN_ERROR', fields, meta, true);
  }

  // ---- approvals and questions: interrupts, and the resume entries that answer them ----

  private interrupt(p: AgentEventOf<'approval.request'> | AgentEventOf<'question'>): JsonObject {
    const i: JsonObject = {};
    if (p.lane !== undefined) i.subagentRunId = p.lane;
    const meta: JsonObject = {};
    if (p.type === 'approval.request') {
      i.id = p.approval;
      i.reason = AGUI_APPROVAL_REASON;
      if (p.title !== undefined) i.message = p.title;
      if (p.call !== undefined) i.toolCallId = p.call;
      if (p.tool !== undefined) meta.tool = p.tool;
      if (p.args !== undefined) meta.args = p.args;
      if (p.effects !== undefined) meta.effects = p.effects;
      if (p.options !== undefined) meta.options = p.options;
    } else {
      i.id = p.question;
      i.reason = AGUI_QUESTION_REASON;
      i.message = p.questions.map((q) => q.text).join('\n');
      if (p.call !== undefined) i.toolCallId = p.call;
      meta.questions = p.questions;
    }
    if (p.ts !== undefined) meta.ts = p.ts;
    if (Object.keys(meta).length > 0) {
      assertEncodable(meta, 'interrupt.metadata', undefined, FORMAT);
      i.metadata = { [AGUI_META_KEY]: meta };
    }
    return i;
  }

  private resumeEntry(event: AgentEventOf<'approval.resolve'> | AgentEventOf<'question.answer'>): JsonObject {
    if (event.type === 'question.answer') {
      return { interruptId: event.question, status: 'resolved', payload: { answers: event.answers } };
    }
    const payload: JsonObject = { approved: decisionAllows(event.decision), decision: event.decision };
    if (event.option !== undefined) payload.option = event.option;
    return {
      interruptId: event.approval,
      status: event.decision === 'cancel' ? 'cancelled' : 'resolved',
      payload,
    };
  }

  /** A decision within the run: the request it answers is no longer pending. */
  private decided(event: AgentEventOf<'approval.resolve'> | AgentEventOf<'question.answer'>): string {
    const id = event.type === 'approval.resolve' ? event.approval : event.question;
    this.pending = this.pending.filter(
      (p) => (p.type === 'approval.request' ? p.approval : p.question) !== id,
    );
    return this.custom(event);
  }

  // ---- steps, messages, reasoning ----

  private openStep(event: AgentEvent): string {
    this.steps++;
    const name = stepNameOf(event.round ?? this.steps);
    this.step.set(event.lane ?? '', name);
    return this.emit(event, 'STEP_STARTED', { stepName: name });
  }

  private ensureStep(event: AgentEvent): string {
    return !this.step.has('') && event.lane === undefined ? this.openStep(event) : '';
  }

  private closeStep(lane: string | undefined, event?: AgentEvent, meta?: JsonObject): string {
    const name = this.step.get(lane ?? '');
    if (name === undefined) return '';
    this.step.delete(lane ?? '');
    const at = event ?? (lane === undefined ? undefined : ({ lane } as AgentEvent));
    return this.emit(at, 'STEP_FINISHED', { stepName: name }, meta);
  }

  private openText(event: AgentEvent, id: string | undefined): string {
    const messageId = id ?? this.newId();
    this.text.set(event.lane ?? '', messageId);
    return this.emit(event, 'TEXT_MESSAGE_START', { messageId, role: 'assistant' });
  }

  private closeText(lane: string | undefined, id?: string): string {
    const open = this.text.get(lane ?? '');
    if (open === undefined || (id !== undefined && id !== open)) return '';
    this.text.delete(lane ?? '');
    return this.emit(lane === undefined ? undefined : ({ lane } as AgentEvent), 'TEXT_MESSAGE_END', {
      messageId: open,
    });
  }

  private reasoningDelta(event: AgentEventOf<'reasoning.delta'>): string {
    const lane = event.lane;
    let out = this.closeText(lane);
    const open = this.reasoning.get(lane ?? '');
    if (open !== undefined && event.message !== undefined && open !== event.message)
      out += this.closeReasoning(lane);
    if (event.text !== '') {
      if (!this.reasoning.has(lane ?? '')) {
        const id = event.message ?? this.newId();
        this.reasoning.set(lane ?? '', id);
        out += this.emit(event, 'REASONING_START', { messageId: id });
        out += this.emit(event, 'REASONING_MESSAGE_START', { messageId: id, role: 'reasoning' });
      }
      out += this.emit(event, 'REASONING_MESSAGE_CONTENT', {
        messageId: this.reasoning.get(lane ?? '')!,
        delta: event.text,
      });
    }
    const opaque = event.redacted ?? event.signature;
    if (opaque !== undefined) {
      if (event.redacted !== undefined && event.signature !== undefined)
        this.loss.report(event, 'reasoning.delta.signature', 'one encrypted value per reasoning block');
      // A signature is not redacted content: it says which it is, so it reads back as itself.
      out += this.emit(
        event,
        'REASONING_ENCRYPTED_VALUE',
        {
          subtype: 'message',
          entityId: this.reasoning.get(lane ?? '') ?? event.message ?? this.newId(),
          encryptedValue: opaque,
        },
        event.redacted === undefined ? { signature: true } : undefined,
      );
    }
    return out;
  }

  private closeReasoning(lane: string | undefined): string {
    const open = this.reasoning.get(lane ?? '');
    if (open === undefined) return '';
    this.reasoning.delete(lane ?? '');
    const at = lane === undefined ? undefined : ({ lane } as AgentEvent);
    return (
      this.emit(at, 'REASONING_MESSAGE_END', { messageId: open }) +
      this.emit(at, 'REASONING_END', { messageId: open })
    );
  }

  private closeLane(lane: string | undefined): string {
    return this.closeText(lane) + this.closeReasoning(lane);
  }

  // ---- tool calls ----

  private startCall(event: AgentEvent, call: string, name: string | undefined): string {
    const toolName = name ?? 'unknown';
    this.calls.set(call, toolName);
    const fields: JsonObject = { toolCallId: call, toolCallName: toolName };
    return this.emit(event, 'TOOL_CALL_START', fields);
  }

  private toolStart(event: AgentEventOf<'tool.start'>): string {
    let out = '';
    if (!this.calls.has(event.call)) {
      out += this.startCall(event, event.call, event.name);
      const args = event.args ?? (event.command !== undefined ? { command: event.command } : {});
      assertEncodable(args, 'tool.start.args', undefined, FORMAT);
      out += this.emit(event, 'TOOL_CALL_ARGS', { toolCallId: event.call, delta: JSON.stringify(args) });
    }
    this.calls.delete(event.call);
    this.ended.add(event.call);
    const meta: JsonObject = {};
    for (const k of ['kind', 'server', 'argsSummary', 'command', 'startedAt'] as const) {
      if (event[k] !== undefined) meta[k] = event[k];
    }
    return out + this.emit(event, 'TOOL_CALL_END', { toolCallId: event.call }, meta);
  }

  private toolEnd(event: AgentEventOf<'tool.end'>): string {
    let out = '';
    if (!this.ended.has(event.call)) {
      if (!this.calls.has(event.call)) out += this.startCall(event, event.call, event.name);
      this.calls.delete(event.call);
      out += this.emit(event, 'TOOL_CALL_END', { toolCallId: event.call });
    }
    this.ended.delete(event.call);
    const meta: JsonObject = {};
    if (!event.ok) meta.ok = false;
    for (const k of [
      'error',
      'result',
      'exitCode',
      'denied',
      'filesChanged',
      'startedAt',
      'endedAt',
    ] as const) {
      if (event[k] !== undefined) meta[k] = event[k];
    }
    const content =
      event.text ??
      (typeof event.error === 'string'
        ? event.error
        : event.result !== undefined
          ? JSON.stringify(event.result)
          : '');
    return (
      out +
      this.emit(
        event,
        'TOOL_CALL_RESULT',
        { messageId: this.newId(), toolCallId: event.call, content, role: 'tool' },
        meta,
      )
    );
  }

  // ---- subagents ----

  /**
   * `SUBAGENT_STARTED`; `implied` when no `child.start` said it (a lane seen first, an end with no
   * start): marked so, it reads back as no child start.
   */
  private openSubagent(
    event: AgentEventOf<'child.start'>,
    parent: string | undefined,
    implied = false,
  ): string {
    if (this.subagents.has(event.child)) return '';
    this.subagents.add(event.child);
    const fields: JsonObject = { subagentRunId: event.child, name: event.name ?? event.kind ?? 'subagent' };
    if (event.task !== undefined) fields.description = event.task;
    if (parent !== undefined && this.subagents.has(parent)) fields.parentSubagentRunId = parent;
    if (event.call !== undefined) fields.parentToolCallId = event.call;
    const meta: JsonObject = {};
    if (event.kind !== undefined) meta.kind = event.kind;
    if (event.background !== undefined) meta.background = event.background;
    if (implied) meta.implied = true;
    const { lane: _lane, ...rest } = event;
    return this.emit(rest as AgentEvent, 'SUBAGENT_STARTED', fields, meta);
  }

  private closeSubagent(event: AgentEventOf<'child.end'>): string {
    let out = '';
    if (!this.subagents.has(event.child))
      out += this.openSubagent({ type: 'child.start', child: event.child }, event.lane, true);
    out += this.closeLane(event.child) + this.closeStep(event.child);
    this.subagents.delete(event.child);
    const { lane: _lane, ...rest } = event;
    const at = rest as AgentEvent;
    const meta: JsonObject = {};
    const usage = usageOf(event.usage);
    if (usage !== undefined) meta.usage = usage;
    if (event.status === 'failed') {
      return (
        out +
        this.emit(
          at,
          'SUBAGENT_ERROR',
          { subagentRunId: event.child, message: event.result ?? 'failed' },
          meta,
        )
      );
    }
    const fields: JsonObject = { subagentRunId: event.child };
    if (event.result !== undefined) fields.result = event.result;
    fields.outcome = event.status === 'incomplete' ? { type: 'suspended' } : { type: 'success' };
    if (event.status === 'cancelled')
      this.loss.report(event, 'child.end.status', 'a subagent is not cancelled in AG-UI');
    return out + this.emit(at, 'SUBAGENT_FINISHED', fields, meta);
  }
}
