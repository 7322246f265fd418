// agentwire/otel: canonical events → OpenTelemetry spans (GenAI semantic conventions), as the
// events arrive. Browser-safe: it imports only `@opentelemetry/api` (an optional peer
// dependency); the OTLP exporter is wired up by the CLI (`agentwire otel`), not here.
import {
  type Attributes,
  type Context,
  context as contextApi,
  type HrTime,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { Format } from '../diagnostics';
import type { AgentEvent, AgentEventOf, Usage } from '../model';
import * as sc from './semconv';

export * as semconv from './semconv';

/** Options of {@link EventTracer} and {@link traceEvents}. */
export interface TraceOptions {
  /** The tracer spans are made with (`trace.getTracer('agentwire')` of your provider). */
  tracer: Tracer;
  /**
   * `gen_ai.provider.name`. Default: told by the format (`claude`, `amp` → `anthropic`; `codex` →
   * `openai`; `gemini` → `gcp.gemini`), else the format id.
   */
  provider?: string;
  /**
   * `gen_ai.agent.name`. Default: the agent the format belongs to (`hep` → `fa`, `claude` →
   * `claude-code`, `gemini` → `gemini-cli`, …), else the format id.
   */
  agentName?: string;
  /**
   * Record message content (prompts, answers, tool arguments and results) as span attributes.
   * Off by default, as the GenAI conventions require: content may hold secrets.
   */
  captureContent?: boolean;
  /** Most characters of one content attribute; longer text is cut with `…(+N chars)`. Default 8192. */
  maxContentChars?: number;
  /** Time (ms since the epoch) for events without `ts` (HEP has none). Default `Date.now`. */
  clock?: () => number;
  /** The context top-level run spans are children of. Default: the active context. */
  parent?: Context;
  /** The input format, for events without provenance. */
  format?: Format;
}

const DEFAULT_MAX_CONTENT = 8192;

const PROVIDER_BY_FORMAT: Partial<Record<Format, string>> = {
  claude: sc.GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  amp: sc.GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  codex: sc.GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
  gemini: sc.GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI,
};

const AGENT_BY_FORMAT: Partial<Record<Format, string>> = {
  hep: 'fa',
  claude: 'claude-code',
  codex: 'codex',
  gemini: 'gemini-cli',
  opencode: 'opencode',
  cursor: 'cursor-agent',
  amp: 'amp',
  copilot: 'copilot',
};

interface Open {
  span: Span;
  ctx: Context;
  start: number;
}

// A run and what is open inside it: the main agent's, or one child's (a subagent lane).
interface Lane {
  id: string;
  run: Open | undefined;
  parent: Context;
  round: Open | undefined;
  roundNo: number | undefined;
  tools: Map<string, Open>;
  // Usage of the open round reported as separate `usage` events (last figure per key).
  callUsage: Map<string, Usage> | undefined;
  text: string;
}

/**
 * Turns canonical events into spans as they arrive: one `invoke_agent` span per run (and per
 * subagent, under the tool call that spawned it), one `chat` span per round, one `execute_tool`
 * span per tool call, notices as span events. A span is ended and forgotten as soon as its end
 * event arrives, so memory stays bounded on endless streams; {@link EventTracer.end} closes what
 * is still open as `incomplete`.
 */
export class EventTracer {
  private readonly o: Required<Omit<TraceOptions, 'provider' | 'agentName' | 'format' | 'parent'>> &
    Pick<TraceOptions, 'provider' | 'agentName' | 'format'>;
  private readonly root: Context;
  private readonly lanes = new Map<string, Lane>();
  private session: string | undefined;
  private producer: string | undefined;
  private model: string | undefined;
  private format: Format | undefined;
  private last = 0;
  private started = 0;

  /** Creates a tracer over `options.tracer`. */
  constructor(options: TraceOptions) {
    this.o = {
      tracer: options.tracer,
      captureContent: options.captureContent ?? false,
      maxContentChars: options.maxContentChars ?? DEFAULT_MAX_CONTENT,
      clock: options.clock ?? Date.now,
      ...(options.provider === undefined ? {} : { provider: options.provider }),
      ...(options.agentName === undefined ? {} : { agentName: options.agentName }),
      ...(options.format === undefined ? {} : { format: options.format }),
    };
    this.format = options.format;
    this.root = options.parent ?? contextApi.active();
  }

  /** Spans started and not yet ended (bounded by what the stream has open at once). */
  get openSpans(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += (lane.run ? 1 : 0) + (lane.round ? 1 : 0) + lane.tools.size;
    return n;
  }

  /** Spans started so far. */
  get spansStarted(): number {
    return this.started;
  }

  /** Takes the next event. */
  push(e: AgentEvent): void {
    const t = this.time(e);
    if (e.session !== undefined) this.session = e.session;
    if (this.format === undefined && e.provenance !== undefined) this.format = e.provenance.format;
    const lane = this.laneOf(e, t);
    switch (e.type) {
      case 'session.start':
        if (e.producer !== undefined) this.producer = e.producer;
        if (e.model !== undefined) this.model = e.model;
        return;
      case 'run.start':
        this.startRun(lane, t, e);
        return;
      case 'run.end':
        this.endRun(lane, t, e);
        return;
      case 'round.start':
        this.closeRound(lane, t, undefined);
        this.openRound(lane, t, e.round, e.model);
        return;
      case 'round.end':
        this.endRound(lane, t, e);
        return;
      case 'message.start':
      case 'text.delta':
      case 'reasoning.delta':
        this.roundFor(lane, t, e.round);
        if (e.type === 'text.delta' && this.o.captureContent) lane.text = this.cap(lane.text + e.text);
        return;
      case 'tool.start':
        this.startTool(lane, t, e);
        return;
      case 'tool.end':
        this.endTool(lane, t, e);
        return;
      case 'usage':
        this.noteUsage(lane, e.usage);
        return;
      case 'child.start':
        this.startChild(lane, t, e);
        return;
      case 'child.end':
        this.endChild(t, e);
        return;
      case 'error':
        this.onError(lane, t, e);
        return;
      case 'approval.request':
      case 'approval.resolve':
      case 'question':
      case 'question.answer':
      case 'compaction.start':
      case 'compaction.end':
      case 'notice':
      case 'cancel':
      case 'tool.liveness':
      case 'file.change':
      case 'child.progress':
        this.spanEvent(lane, t, e);
        return;
      default:
        return;
    }
  }

  /**
   * The stream ended: every span still open is ended at the last time seen, marked
   * `agentwire.run.status = incomplete` — never left open, never passed as a success.
   */
  end(): void {
    for (const lane of [...this.lanes.values()].reverse()) this.closeLane(lane, this.last, 'incomplete');
    this.lanes.clear();
  }

  private time(e: AgentEvent): number {
    const t = e.ts ?? this.o.clock();
    if (t > this.last) this.last = t;
    return this.last;
  }

  private laneOf(e: AgentEvent, t: number): Lane {
    const id = e.lane ?? '';
    let lane = this.lanes.get(id);
    if (lane !== undefined) return lane;
    // A child's events before (or without) its child.start: the child hangs under the tool call
    // its lane id names when there is one (Claude's lane id is that call id), else the main run.
    lane = newLane(id, id === '' ? this.root : this.childParent(id, t));
    this.lanes.set(id, lane);
    return lane;
  }

  private mainLane(): Lane {
    let lane = this.lanes.get('');
    if (lane === undefined) this.lanes.set('', (lane = newLane('', this.root)));
    return lane;
  }

  private childParent(call: string | undefined, t: number): Context {
    const main = this.mainLane();
    if (call !== undefined) {
      for (const lane of this.lanes.values()) {
        const tool = lane.tools.get(call);
        if (tool !== undefined) return tool.ctx;
      }
    }
    return this.ensureRun(main, t).ctx;
  }

  private base(): Attributes {
    const a: Attributes = {
      [sc.ATTR_GEN_AI_PROVIDER_NAME]:
        this.o.provider ?? PROVIDER_BY_FORMAT[this.format ?? 'hep'] ?? this.format ?? 'unknown',
    };
    if (this.session !== undefined) a[sc.ATTR_GEN_AI_CONVERSATION_ID] = this.session;
    return a;
  }

  private start(name: string, kind: SpanKind, parent: Context, t: number, attributes: Attributes): Open {
    const span = this.o.tracer.startSpan(name, { kind, startTime: hrTime(t), attributes }, parent);
    this.started++;
    return { span, ctx: trace.setSpan(parent, span), start: t };
  }

  private agentName(): string {
    const byFormat = this.format === undefined ? undefined : AGENT_BY_FORMAT[this.format];
    return this.o.agentName ?? byFormat ?? this.format ?? 'agent';
  }

  private ensureRun(lane: Lane, t: number): Open {
    if (lane.run !== undefined) return lane.run;
    const name = lane.id === '' ? this.agentName() : lane.id;
    const attributes = this.base();
    attributes[sc.ATTR_GEN_AI_OPERATION_NAME] = sc.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT;
    attributes[sc.ATTR_GEN_AI_AGENT_NAME] = name;
    if (this.format !== undefined) attributes['agentwire.format'] = this.format;
    if (this.producer !== undefined) attributes['agentwire.producer'] = this.producer;
    if (this.model !== undefined) attributes[sc.ATTR_GEN_AI_REQUEST_MODEL] = this.model;
    lane.run = this.start(`invoke_agent ${name}`, SpanKind.INTERNAL, lane.parent, t, attributes);
    return lane.run;
  }

  private startRun(lane: Lane, t: number, e: AgentEventOf<'run.start'>): void {
    // A run that never ended before the next began ended unseen: say so, do not merge the two.
    if (lane.run !== undefined) this.closeLane(lane, t, 'incomplete');
    const run = this.ensureRun(lane, t);
    if (e.run !== undefined) run.span.setAttribute('agentwire.run.id', e.run);
    if (e.input !== undefined && this.o.captureContent) {
      run.span.setAttribute(sc.ATTR_GEN_AI_INPUT_MESSAGES, this.messages('user', e.input));
    }
  }

  private endRun(lane: Lane, t: number, e: AgentEventOf<'run.end'>): void {
    const run = this.ensureRun(lane, t);
    const span = run.span;
    if (e.usage !== undefined) setUsage(span, e.usage);
    if (e.answer !== undefined && this.o.captureContent) {
      span.setAttribute(sc.ATTR_GEN_AI_OUTPUT_MESSAGES, this.messages('assistant', e.answer));
    }
    if (e.reason !== undefined) span.setAttribute('agentwire.run.reason', e.reason);
    if (e.stopReason !== undefined) span.setAttribute('agentwire.run.stop_reason', e.stopReason);
    this.closeLane(lane, t, e.status, e.error ?? e.reason);
  }

  // Ends a lane's open tools, round and run with `status`; the lane stays for the next run.
  private closeLane(lane: Lane, t: number, status: AgentEventOf<'run.end'>['status'], why?: string): void {
    const open = status === 'incomplete' ? 'incomplete' : 'unfinished';
    for (const tool of lane.tools.values()) {
      tool.span.setAttribute('agentwire.tool.status', open);
      this.finish(tool, t);
    }
    lane.tools.clear();
    this.closeRound(lane, t, open === 'incomplete' ? 'incomplete' : undefined);
    if (lane.run === undefined) return;
    const span = lane.run.span;
    span.setAttribute('agentwire.run.status', status);
    if (status === 'failed' || status === 'incomplete') {
      const type = status === 'incomplete' ? 'incomplete' : (why ?? 'agent_error');
      span.setAttribute(sc.ATTR_ERROR_TYPE, type);
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message:
          status === 'incomplete' ? "the stream ended without the run's terminal record" : (why ?? 'failed'),
      });
    }
    this.finish(lane.run, t);
    lane.run = undefined;
  }

  private openRound(lane: Lane, t: number, round: number | undefined, model: string | undefined): Open {
    const run = this.ensureRun(lane, t);
    const m = model ?? this.model;
    const attributes = this.base();
    attributes[sc.ATTR_GEN_AI_OPERATION_NAME] = sc.GEN_AI_OPERATION_NAME_VALUE_CHAT;
    if (m !== undefined) attributes[sc.ATTR_GEN_AI_REQUEST_MODEL] = m;
    if (round !== undefined) attributes['agentwire.round'] = round;
    lane.round = this.start(m === undefined ? 'chat' : `chat ${m}`, SpanKind.CLIENT, run.ctx, t, attributes);
    lane.roundNo = round;
    lane.callUsage = undefined;
    lane.text = '';
    return lane.round;
  }

  // The round an event belongs to: the open one, or a new one when the event names another.
  private roundFor(lane: Lane, t: number, round: number | undefined): Open {
    if (lane.round !== undefined && (round === undefined || round === lane.roundNo)) return lane.round;
    this.closeRound(lane, t, undefined);
    return this.openRound(lane, t, round, undefined);
  }

  private endRound(lane: Lane, t: number, e: AgentEventOf<'round.end'>): void {
    const round = this.roundFor(lane, t, e.round);
    const span = round.span;
    const model = e.model;
    if (model !== undefined) span.setAttribute(sc.ATTR_GEN_AI_RESPONSE_MODEL, model);
    if (e.stopReason !== undefined) span.setAttribute(sc.ATTR_GEN_AI_RESPONSE_FINISH_REASONS, [e.stopReason]);
    const usage = e.usage ?? sumCalls(lane.callUsage);
    if (usage !== undefined) setUsage(span, usage);
    if (this.o.captureContent) {
      const text = e.message !== '' ? e.message : lane.text;
      if (text !== '') span.setAttribute(sc.ATTR_GEN_AI_OUTPUT_MESSAGES, this.messages('assistant', text));
    }
    this.closeRound(lane, t, undefined);
  }

  private closeRound(lane: Lane, t: number, status: 'incomplete' | undefined): void {
    if (lane.round === undefined) return;
    if (status !== undefined) lane.round.span.setAttribute('agentwire.round.status', status);
    if (status === undefined && lane.callUsage !== undefined)
      setUsage(lane.round.span, sumCalls(lane.callUsage)!);
    this.finish(lane.round, t);
    lane.round = undefined;
    lane.callUsage = undefined;
    lane.text = '';
  }

  private noteUsage(lane: Lane, usage: Usage): void {
    // Only whole per-call figures add up to a round; snapshots and running totals do not.
    if (usage.final === false || (usage.scope !== undefined && usage.scope !== 'call')) return;
    if (lane.round === undefined) return;
    lane.callUsage ??= new Map();
    lane.callUsage.set(usage.key ?? `#${lane.callUsage.size}`, usage);
  }

  private startTool(lane: Lane, t: number, e: AgentEventOf<'tool.start'>): void {
    const parent =
      e.round !== undefined ? this.roundFor(lane, t, e.round) : (lane.round ?? this.ensureRun(lane, t));
    const attributes = this.base();
    attributes[sc.ATTR_GEN_AI_OPERATION_NAME] = sc.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL;
    attributes[sc.ATTR_GEN_AI_TOOL_NAME] = e.name;
    attributes[sc.ATTR_GEN_AI_TOOL_CALL_ID] = e.call;
    attributes[sc.ATTR_GEN_AI_TOOL_TYPE] = e.server !== undefined ? 'extension' : 'function';
    if (e.kind !== undefined) attributes['agentwire.tool.kind'] = e.kind;
    if (e.server !== undefined) attributes['agentwire.tool.server'] = e.server;
    if (this.o.captureContent) {
      const args = e.args !== undefined ? JSON.stringify(e.args) : (e.command ?? e.argsSummary);
      if (args !== undefined) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = this.cap(args);
    }
    const old = lane.tools.get(e.call);
    if (old !== undefined) this.finish(old, t);
    lane.tools.set(
      e.call,
      this.start(`execute_tool ${e.name}`, SpanKind.INTERNAL, parent.ctx, e.startedAt ?? t, attributes),
    );
  }

  private endTool(lane: Lane, t: number, e: AgentEventOf<'tool.end'>): void {
    let tool = lane.tools.get(e.call);
    if (tool === undefined) {
      // An end without its start (a resumed stream): a span of its own, so the call is not lost.
      this.startTool(lane, e.startedAt ?? t, { type: 'tool.start', call: e.call, name: e.name ?? 'tool' });
      tool = lane.tools.get(e.call)!;
    }
    const span = tool.span;
    if (e.exitCode !== undefined) span.setAttribute('agentwire.tool.exit_code', e.exitCode);
    if (e.denied === true) span.setAttribute('agentwire.tool.denied', true);
    if (!e.ok) {
      const type =
        e.denied === true ? 'permission_denied' : e.exitCode !== undefined ? 'exit_code' : 'tool_error';
      span.setAttribute(sc.ATTR_ERROR_TYPE, type);
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorText(e.error) ?? type });
    }
    if (this.o.captureContent) {
      const result = e.text ?? (e.result !== undefined ? JSON.stringify(e.result) : undefined);
      if (result !== undefined) span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, this.cap(result));
    }
    this.finish(tool, e.endedAt ?? t);
    lane.tools.delete(e.call);
  }

  private startChild(lane: Lane, t: number, e: AgentEventOf<'child.start'>): void {
    let child = this.lanes.get(e.child);
    if (child === undefined) {
      const parent =
        e.call !== undefined ? this.childParent(e.call, t) : (lane.round ?? this.ensureRun(lane, t)).ctx;
      child = newLane(e.child, parent);
      this.lanes.set(e.child, child);
    }
    const run = this.ensureRun(child, t);
    run.span.setAttribute(sc.ATTR_GEN_AI_AGENT_ID, e.child);
    if (e.name !== undefined) {
      run.span.setAttribute(sc.ATTR_GEN_AI_AGENT_NAME, e.name);
      run.span.updateName(`invoke_agent ${e.name}`);
    }
    if (e.task !== undefined && this.o.captureContent) {
      run.span.setAttribute(sc.ATTR_GEN_AI_INPUT_MESSAGES, this.messages('user', e.task));
    }
    if (e.background === true) run.span.setAttribute('agentwire.child.background', true);
    if (e.kind !== undefined) run.span.setAttribute('agentwire.child.kind', e.kind);
  }

  private endChild(t: number, e: AgentEventOf<'child.end'>): void {
    const child = this.lanes.get(e.child);
    if (child === undefined) return;
    if (child.run !== undefined && e.usage !== undefined) setUsage(child.run.span, e.usage);
    if (child.run !== undefined && e.result !== undefined && this.o.captureContent) {
      child.run.span.setAttribute(sc.ATTR_GEN_AI_OUTPUT_MESSAGES, this.messages('assistant', e.result));
    }
    this.closeLane(child, t, e.status);
    this.lanes.delete(e.child);
  }

  private onError(lane: Lane, t: number, e: AgentEventOf<'error'>): void {
    const target = lane.round ?? this.ensureRun(lane, t);
    const attributes: Attributes = { 'agentwire.error.fatal': e.fatal };
    if (e.code !== undefined) attributes[sc.ATTR_ERROR_TYPE] = e.code;
    attributes['agentwire.error.message'] = this.cap(e.message);
    target.span.addEvent('agentwire.error', attributes, hrTime(t));
    if (e.fatal) {
      const run = this.ensureRun(lane, t);
      run.span.setAttribute(sc.ATTR_ERROR_TYPE, e.code ?? 'agent_error');
      run.span.setStatus({ code: SpanStatusCode.ERROR, message: this.cap(e.message) });
    }
  }

  private spanEvent(lane: Lane, t: number, e: AgentEvent): void {
    const call = 'call' in e && typeof e.call === 'string' ? e.call : undefined;
    const target =
      (call !== undefined ? lane.tools.get(call) : undefined) ?? lane.round ?? this.ensureRun(lane, t);
    target.span.addEvent(`agentwire.${e.type}`, eventAttributes(e), hrTime(t));
  }

  private finish(open: Open, t: number): void {
    open.span.end(hrTime(Math.max(t, open.start)));
  }

  private cap(text: string): string {
    const max = this.o.maxContentChars;
    return text.length <= max ? text : `${text.slice(0, max)}…(+${text.length - max} chars)`;
  }

  private messages(role: 'user' | 'assistant', text: string): string {
    return JSON.stringify([{ role, parts: [{ type: 'text', content: this.cap(text) }] }]);
  }
}

// Epoch milliseconds as [seconds, nanoseconds]: a plain number below the SDK's time origin would
// be read as a performance.now() offset, and a Date drops fractions of a millisecond.
function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  const nanos = Math.round((ms - seconds * 1000) * 1e6);
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos];
}

function newLane(id: string, parent: Context): Lane {
  return {
    id,
    run: undefined,
    parent,
    round: undefined,
    roundNo: undefined,
    tools: new Map(),
    callUsage: undefined,
    text: '',
  };
}

function errorText(error: unknown): string | undefined {
  if (error === undefined || error === null || error === false) return undefined;
  return typeof error === 'string' ? error : JSON.stringify(error);
}

function sumCalls(calls: Map<string, Usage> | undefined): Usage | undefined {
  if (calls === undefined || calls.size === 0) return undefined;
  const total: Usage = {};
  for (const u of calls.values()) {
    for (const k of ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning', 'costUsd'] as const) {
      const v = u[k];
      if (v !== undefined) total[k] = (total[k] ?? 0) + v;
    }
  }
  return total;
}

function setUsage(span: Span, u: Usage): void {
  if (u.input !== undefined) span.setAttribute(sc.ATTR_GEN_AI_USAGE_INPUT_TOKENS, u.input);
  if (u.output !== undefined) span.setAttribute(sc.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, u.output);
  if (u.cacheRead !== undefined) span.setAttribute(sc.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, u.cacheRead);
  if (u.cacheWrite !== undefined)
    span.setAttribute(sc.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS, u.cacheWrite);
  if (u.reasoning !== undefined) span.setAttribute(sc.ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS, u.reasoning);
  if (u.costUsd !== undefined) span.setAttribute('agentwire.usage.cost_usd', u.costUsd);
  if (u.model !== undefined) span.setAttribute(sc.ATTR_GEN_AI_RESPONSE_MODEL, u.model);
}

// The few scalar facts of an event worth a span event; never content.
function eventAttributes(e: AgentEvent): Attributes {
  const a: Attributes = {};
  switch (e.type) {
    case 'approval.request':
      a['agentwire.approval.id'] = e.approval;
      if (e.tool !== undefined) a[sc.ATTR_GEN_AI_TOOL_NAME] = e.tool;
      break;
    case 'approval.resolve':
      a['agentwire.approval.id'] = e.approval;
      a['agentwire.approval.decision'] = e.decision;
      if (e.by !== undefined) a['agentwire.approval.by'] = e.by;
      break;
    case 'question':
      a['agentwire.question.id'] = e.question;
      a['agentwire.question.count'] = e.questions.length;
      break;
    case 'question.answer':
      a['agentwire.question.id'] = e.question;
      break;
    case 'compaction.start':
      if (e.trigger !== undefined) a['agentwire.compaction.trigger'] = e.trigger;
      break;
    case 'compaction.end':
      if (e.tokensFreed !== undefined) a['agentwire.compaction.tokens_freed'] = e.tokensFreed;
      if (e.tokensBefore !== undefined) a['agentwire.compaction.tokens_before'] = e.tokensBefore;
      if (e.tokensAfter !== undefined) a['agentwire.compaction.tokens_after'] = e.tokensAfter;
      break;
    case 'notice':
      a['agentwire.notice.kind'] = e.kind;
      if (e.severity !== undefined) a['agentwire.notice.severity'] = e.severity;
      if (e.message !== undefined) a['agentwire.notice.message'] = e.message.slice(0, 1024);
      break;
    case 'cancel':
      if (e.by !== undefined) a['agentwire.cancel.by'] = e.by;
      break;
    case 'tool.liveness':
      a['agentwire.liveness.action'] = e.action;
      a['agentwire.liveness.elapsed_ms'] = e.elapsedMs;
      break;
    case 'file.change':
      a['agentwire.file.paths'] = e.changes.map((c) => c.path);
      a['agentwire.file.kinds'] = e.changes.map((c) => c.kind);
      break;
    case 'child.progress':
      a['agentwire.child.id'] = e.child;
      break;
    default:
      break;
  }
  return a;
}

/** What {@link traceEvents} returns. */
export interface TraceSummary {
  /** Events read. */
  events: number;
  /** Spans started (all of them ended). */
  spans: number;
}

/**
 * Traces a whole stream of canonical events — an array, a generator, or a live decoder such as
 * `claude.decode(child.stdout)` — and ends every span by the time it resolves.
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * import { hep } from 'agentwire/hep';
 * import { traceEvents } from 'agentwire/otel';
 * await traceEvents(hep.decode(child.stdout), { tracer: trace.getTracer('agentwire') });
 * ```
 */
export async function traceEvents(
  events: Iterable<AgentEvent> | AsyncIterable<AgentEvent>,
  options: TraceOptions,
): Promise<TraceSummary> {
  const tracer = new EventTracer(options);
  let n = 0;
  try {
    for await (const e of events as AsyncIterable<AgentEvent>) {
      tracer.push(e);
      n++;
    }
  } finally {
    tracer.end();
  }
  return { events: n, spans: tracer.spansStarted };
}
