import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import { str } from '../../guards';
import {
  isJsonObject,
  type JsonObject,
  nestingTooDeep,
  parseJsonLine,
  resolveMaxDepth,
  sameJson,
  setOwn,
  unsafeNumberMessage,
  valueExceedsDepth,
} from '../../json';
import type { AgentEvent, AgentEventOf, QuestionItem, Usage } from '../../model';
import {
  byModelFromClaude,
  CLAUDE_CHECKED,
  CLAUDE_FORMAT,
  type ClaudeHints,
  childStatus,
  contentBlocks,
  laneOf,
  mcpServer,
  resultOutcome,
  toolResultText,
  usageFromClaude,
} from './wire';

/** Options of the Claude decoder (`maxLineBytes` defaults to 16 MiB here). */
export interface ClaudeDecodeOptions extends DecodeOptions {}

const FORMAT = CLAUDE_FORMAT;

// Bounds on what the decoder remembers across lines: call names and lanes, open approvals,
// task ids. A stream with more live calls than this forgets the oldest (a result then has no name).
const MAX_REMEMBERED = 10_000;

/**
 * One assistant message being read (one API call), per lane. Every field is there from the
 * start (`undefined` until known), so that all of them share one hidden class.
 */
interface MessageState {
  id: string;
  lane: string | undefined;
  round: number;
  /** The text of its text blocks (the round's message, for the main lane). */
  text: string;
  stopReason: string | undefined;
  model: string | undefined;
  /** Usage objects already reported for this message id (copies are not reported again). */
  usages: unknown[];
  /** Content blocks announced by `stream_event`s, by index; `streamed` once a delta arrived. */
  streamed: Map<number, StreamBlock> | undefined;
  /** `message_start`'s usage, which `message_delta`'s final counts complete. */
  startUsage: JsonObject | undefined;
  /** The index the next snapshot block takes (snapshot lines come in block order). */
  snapshotIndex: number;
}

interface StreamBlock {
  type: string;
  call?: string;
  name?: string;
  streamed: boolean;
}

interface CallInfo {
  name: string;
  lane: string | undefined;
  question: boolean;
}

/** The line being decoded: where it is, and where its events start in `out`. */
interface LineContext {
  record: JsonObject;
  text: string;
  line: number;
  offset: number;
  out: AgentEvent[];
  start: number;
  lane: string | undefined;
}

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.size >= MAX_REMEMBERED && !map.has(key)) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

// The record's fields beside its envelope, for a notice's `data` (plain stores: a
// `defineProperty` per key was a tenth of the decoder's time; `setOwn` keeps a `__proto__` key).
function dataOf(record: JsonObject): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const key in record) {
    if (key !== 'type' && key !== 'uuid' && key !== 'session_id') setOwn(data, key, record[key]);
  }
  return data;
}

function questionsOf(input: unknown): QuestionItem[] {
  const list = isJsonObject(input) && Array.isArray(input.questions) ? input.questions : [];
  const out: QuestionItem[] = [];
  for (const q of list) {
    if (!isJsonObject(q) || typeof q.question !== 'string') continue;
    const item: QuestionItem = { text: q.question };
    if (typeof q.header === 'string') item.id = q.header;
    if (Array.isArray(q.options)) {
      item.options = q.options
        .filter((o): o is JsonObject => isJsonObject(o) && typeof o.label === 'string')
        .map((o) => ({ id: o.label as string, label: o.label as string }));
    }
    if (typeof q.multiSelect === 'boolean') item.multiple = q.multiSelect;
    out.push(item);
  }
  return out;
}

/**
 * The Claude Code stream-json record decoder: one line → the canonical events it means.
 * Stateful: it opens and ends runs (`system/init`, `result`, implied starts, an incomplete end
 * at the end of input), numbers the main agent's rounds (one per `message.id`), puts subagent
 * lines in their lane, joins tool results to their calls by id, counts each message's usage once,
 * and reassembles `stream_event` partial messages without repeating the snapshot lines that
 * follow them. Every line it reads is kept for the writer (see `ClaudeHints`).
 */
export class ClaudeRecordDecoder implements RecordDecoder {
  private readonly sink: DiagnosticSink;
  private readonly report: LineReport;
  private readonly maxDepth: number;
  private session: string | undefined;
  private sessionStarted = false;
  private runOpen = false;
  private round = 0;
  private readonly messages = new Map<string, MessageState>();
  private readonly calls = new Map<string, CallInfo>();
  private readonly approvals = new Map<string, string>();
  private readonly tasks = new Map<string, { child: string; lane: string | undefined }>();
  private compacting = false;
  // Lines that gave no event (written back before the next line that does).
  private pending: string[] = [];
  private lastLine = 0;
  private lastOffset = 0;

  /** Creates a decoder that reports to `sink`. */
  constructor(options: ClaudeDecodeOptions, sink: DiagnosticSink) {
    this.sink = sink;
    this.report = lineReporter(sink, FORMAT);
    this.maxDepth = resolveMaxDepth(options.maxDepth);
  }

  line(text: string, line: number, offset: number, out: AgentEvent[]): void {
    this.lastLine = line;
    this.lastOffset = offset;
    if (text.length === 0) {
      this.pending.push(text);
      return;
    }
    // Parsed first at any length: V8's JSON.parse is iterative (no stack to overflow), and a
    // tool result of several MB would cost a character scan if measured as text. The parsed
    // value is measured instead, one step per object or array (a long string is one step):
    // cheaper than counting the brackets of the text, which tool output is full of.
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      const parsed = parseJsonLine(text, line, offset, this.maxDepth, FORMAT);
      if (!parsed.ok) this.sink.report(parsed.diagnostic);
      this.pending.push(text);
      return;
    }
    if (valueExceedsDepth(record, this.maxDepth)) {
      this.sink.report(nestingTooDeep(line, offset, this.maxDepth, FORMAT));
      this.pending.push(text);
      return;
    }
    if (!isJsonObject(record)) {
      this.report('invalid_json', 'error', line, offset, 'not a JSON object');
      this.pending.push(text);
      return;
    }
    if (typeof record.session_id === 'string') this.session = record.session_id;
    const ctx: LineContext = { record, text, line, offset, out, start: out.length, lane: laneOf(record) };
    this.dispatch(ctx);
    this.finishLine(ctx);
  }

  end(out: AgentEvent[]): void {
    if (!this.runOpen) return;
    const end = this.runEnd({ status: 'incomplete' });
    end.provenance = { format: FORMAT, line: this.lastLine, offset: this.lastOffset, synthetic: true };
    if (this.pending.length > 0) {
      end.provenance.hints = { before: this.pending } satisfies ClaudeHints;
      this.pending = [];
    }
    out.push(end);
    this.runOpen = false;
  }

  // ------------------------------------------------------------------------------------------
  // Line plumbing

  // The line's first event carries the line (and the lines before it that gave none).
  private finishLine(ctx: LineContext): void {
    const count = ctx.out.length - ctx.start;
    if (count === 0) {
      this.pending.push(ctx.text);
      return;
    }
    const owner = ctx.out[ctx.start]!;
    const hints = (owner.provenance!.hints ??= {}) as ClaudeHints;
    hints.raw = ctx.text;
    if (count > 1) hints.n = count;
    if (this.pending.length > 0) {
      hints.before = this.pending;
      this.pending = [];
    }
  }

  // Stamps the envelope and provenance and appends the event.
  private emit<E extends AgentEvent>(ctx: LineContext, event: E, synthetic = false): E {
    if (this.session !== undefined) event.session = this.session;
    if (ctx.lane !== undefined) event.lane = ctx.lane;
    else if (
      this.round > 0 &&
      event.round === undefined &&
      event.type !== 'run.start' &&
      event.type !== 'run.end'
    )
      event.round = this.round;
    event.provenance = synthetic
      ? { format: FORMAT, line: ctx.line, offset: ctx.offset, synthetic: true }
      : { format: FORMAT, line: ctx.line, offset: ctx.offset };
    const checked = synthetic ? undefined : CLAUDE_CHECKED[event.type];
    if (checked !== undefined) {
      const said: Record<string, unknown> = {};
      for (const key of checked) {
        const value = (event as Record<string, unknown>)[key];
        if (value !== undefined) said[key] = value;
      }
      event.provenance.hints = { said } satisfies ClaudeHints;
    }
    ctx.out.push(event);
    return event;
  }

  private blockHint(event: AgentEvent, index: number, count: number): void {
    if (count <= 1) return;
    const hints = (event.provenance!.hints ??= {}) as ClaudeHints;
    hints.block = index;
  }

  private dispatch(ctx: LineContext): void {
    const { record } = ctx;
    switch (record.type) {
      case 'system': {
        this.system(ctx);
        return;
      }
      case 'assistant': {
        this.assistant(ctx);
        return;
      }
      case 'user': {
        this.user(ctx);
        return;
      }
      case 'result': {
        this.result(ctx);
        return;
      }
      case 'stream_event': {
        this.streamEvent(ctx);
        return;
      }
      case 'rate_limit_event': {
        this.rateLimit(ctx);
        return;
      }
      case 'tool_progress': {
        this.toolProgress(ctx);
        return;
      }
      case 'control_request': {
        this.controlRequest(ctx);
        return;
      }
      default: {
        this.unknown(ctx, typeof record.type === 'string' ? record.type : undefined);
        return;
      }
    }
  }

  private unknown(ctx: LineContext, recordType: string | undefined): void {
    if (recordType === undefined)
      this.report(
        'invalid_record',
        'warning',
        ctx.line,
        ctx.offset,
        'a record without a string "type"; kept as unknown',
      );
    const problem = unsafeNumberMessage(ctx.text);
    if (problem !== undefined) this.report('invalid_record', 'warning', ctx.line, ctx.offset, problem);
    const e: AgentEventOf<'unknown'> = { type: 'unknown', record: ctx.record };
    if (recordType !== undefined) e.recordType = recordType;
    this.emit(ctx, e);
  }

  // ------------------------------------------------------------------------------------------
  // Runs and rounds

  private ensureRun(ctx: LineContext): void {
    // A background subagent's lines between turns belong to its lane, not to a run of their own.
    if (this.runOpen || ctx.lane !== undefined) return;
    this.emit(ctx, { type: 'run.start' }, true);
    this.runOpen = true;
    this.round = 0;
  }

  private runEnd(fields: Omit<AgentEventOf<'run.end'>, 'type'>): AgentEventOf<'run.end'> {
    const e: AgentEventOf<'run.end'> = { type: 'run.end', ...fields };
    if (this.session !== undefined) e.session = this.session;
    return e;
  }

  // Closes every open message: the main one ends its round (when the run goes on normally).
  private closeMessages(ctx: LineContext, endRound: boolean): void {
    const main = this.messages.get('');
    if (main !== undefined && endRound) this.endRound(ctx, main);
    this.messages.clear();
  }

  private endRound(ctx: LineContext, m: MessageState): void {
    const e: AgentEventOf<'round.end'> = { type: 'round.end', message: m.text, round: m.round };
    if (m.stopReason !== undefined) e.stopReason = m.stopReason;
    if (m.model !== undefined) e.model = m.model;
    this.emit(ctx, e, true);
  }

  // The open message of a lane with this id, or a new one (ending the lane's previous round).
  private messageFor(ctx: LineContext, id: string, model: string | undefined): MessageState {
    const key = ctx.lane ?? '';
    const current = this.messages.get(key);
    if (current !== undefined && current.id === id) return current;
    if (current !== undefined && ctx.lane === undefined) this.endRound(ctx, current);
    if (ctx.lane === undefined) this.round++;
    const m: MessageState = {
      id,
      lane: ctx.lane,
      round: this.round,
      text: '',
      stopReason: undefined,
      model,
      usages: [],
      streamed: undefined,
      startUsage: undefined,
      snapshotIndex: 0,
    };
    remember(this.messages, key, m);
    const start: AgentEventOf<'message.start'> = { type: 'message.start', role: 'assistant', message: id };
    if (model !== undefined) start.model = model;
    this.emit(ctx, start);
    return m;
  }

  // A message's usage, once per distinct figure: the per-line copies are not reported again.
  private usage(ctx: LineContext, m: MessageState, raw: unknown, final: boolean): void {
    if (!isJsonObject(raw)) return;
    for (const seen of m.usages) if (sameJson(seen, raw)) return;
    m.usages.push(raw);
    const usage: Usage | undefined = usageFromClaude(raw);
    if (usage === undefined) return;
    usage.scope = 'call';
    usage.final = final;
    usage.key = m.id;
    if (m.model !== undefined) usage.model = m.model;
    this.emit(ctx, { type: 'usage', usage });
  }

  // ------------------------------------------------------------------------------------------
  // system/*

  private system(ctx: LineContext): void {
    const r = ctx.record;
    switch (r.subtype) {
      case 'init': {
        this.init(ctx);
        return;
      }
      case 'hook_started':
      case 'hook_progress':
      case 'hook_response': {
        const e: AgentEventOf<'notice'> = { type: 'notice', kind: 'hook', data: dataOf(r) };
        const name = str(r.hook_name);
        if (name !== undefined) e.message = name;
        this.emit(ctx, e);
        return;
      }
      case 'thinking_tokens':
        this.emit(ctx, { type: 'notice', kind: 'thinking_tokens', data: dataOf(r) });
        return;
      case 'background_tasks_changed':
        this.emit(ctx, { type: 'notice', kind: 'background_tasks', data: dataOf(r) });
        return;
      case 'api_retry': {
        const e: AgentEventOf<'notice'> = {
          type: 'notice',
          kind: 'retry',
          severity: 'warning',
          data: dataOf(r),
        };
        const error = str(r.error);
        if (error !== undefined) e.message = error;
        this.emit(ctx, e);
        return;
      }
      case 'task_started': {
        this.taskStarted(ctx);
        return;
      }
      case 'task_progress':
      case 'task_updated':
      case 'task_notification': {
        this.task(ctx);
        return;
      }
      case 'compact_boundary': {
        this.compactBoundary(ctx);
        return;
      }
      case 'status': {
        this.status(ctx);
        return;
      }
      default: {
        this.unknown(ctx, typeof r.subtype === 'string' ? `system/${r.subtype}` : 'system');
        return;
      }
    }
  }

  private init(ctx: LineContext): void {
    const r = ctx.record;
    if (this.runOpen) {
      // A new turn without the previous one's result: that run never said how it ended.
      this.closeMessages(ctx, false);
      this.emit(ctx, this.runEnd({ status: 'incomplete' }), true);
      this.runOpen = false;
    }
    if (!this.sessionStarted) {
      this.sessionStarted = true;
      const e: AgentEventOf<'session.start'> = { type: 'session.start' };
      const version = str(r.claude_code_version);
      if (version !== undefined) e.producer = version;
      const model = str(r.model);
      if (model !== undefined) e.model = model;
      const cwd = str(r.cwd);
      if (cwd !== undefined) e.cwd = cwd;
      const mode = str(r.permissionMode);
      if (mode !== undefined) e.mode = mode;
      if (Array.isArray(r.tools) && r.tools.every((t) => typeof t === 'string'))
        e.tools = r.tools as string[];
      this.emit(ctx, e);
    }
    this.ensureRun(ctx);
  }

  private taskStarted(ctx: LineContext): void {
    const r = ctx.record;
    const call = str(r.tool_use_id);
    const taskId = str(r.task_id);
    const child = call ?? taskId;
    if (child === undefined) {
      this.unknown(ctx, 'system/task_started');
      return;
    }
    // A task a subagent started belongs to that subagent's lane.
    if (r.owned_by_subagent === true && call !== undefined) {
      const lane = this.calls.get(call)?.lane;
      if (lane !== undefined) ctx.lane = lane;
    }
    if (taskId !== undefined) remember(this.tasks, taskId, { child, lane: ctx.lane });
    const e: AgentEventOf<'child.start'> = { type: 'child.start', child };
    const name = str(r.subagent_type);
    if (name !== undefined) e.name = name;
    const task = str(r.description);
    if (task !== undefined) e.task = task;
    if (call !== undefined) e.call = call;
    if (typeof r.is_backgrounded === 'boolean') e.background = r.is_backgrounded;
    const type = str(r.task_type);
    if (type !== undefined)
      e.kind = type === 'local_agent' ? 'agent' : type === 'local_bash' ? 'shell' : type;
    this.emit(ctx, e);
  }

  private task(ctx: LineContext): void {
    const r = ctx.record;
    const taskId = str(r.task_id);
    const known = taskId === undefined ? undefined : this.tasks.get(taskId);
    const child = known?.child ?? str(r.tool_use_id) ?? taskId;
    if (child === undefined) {
      this.unknown(ctx, `system/${String(r.subtype)}`);
      return;
    }
    if (known !== undefined) ctx.lane = known.lane;
    if (r.subtype === 'task_notification') {
      const e: AgentEventOf<'child.end'> = {
        type: 'child.end',
        child,
        status: childStatus(r.status) ?? 'incomplete',
      };
      const summary = str(r.summary);
      if (summary !== undefined) e.result = summary;
      this.emit(ctx, e);
      if (taskId !== undefined) this.tasks.delete(taskId);
      return;
    }
    const e: AgentEventOf<'child.progress'> = { type: 'child.progress', child };
    const patch = r.patch;
    const detail =
      r.subtype === 'task_updated'
        ? isJsonObject(patch)
          ? str(patch.status)
          : undefined
        : (str(r.summary) ?? str(r.description));
    if (detail !== undefined) e.detail = detail;
    this.emit(ctx, e);
  }

  private compactBoundary(ctx: LineContext): void {
    const meta = isJsonObject(ctx.record.compact_metadata) ? ctx.record.compact_metadata : {};
    const trigger = str(meta.trigger);
    if (!this.compacting) {
      const start: AgentEventOf<'compaction.start'> = { type: 'compaction.start' };
      if (trigger !== undefined) start.trigger = trigger;
      this.emit(ctx, start, true);
    }
    this.compacting = false;
    const e: AgentEventOf<'compaction.end'> = { type: 'compaction.end' };
    if (trigger !== undefined) e.trigger = trigger;
    const before = typeof meta.pre_tokens === 'number' ? meta.pre_tokens : undefined;
    const after = typeof meta.post_tokens === 'number' ? meta.post_tokens : undefined;
    if (before !== undefined) e.tokensBefore = before;
    if (after !== undefined) e.tokensAfter = after;
    if (before !== undefined && after !== undefined) e.tokensFreed = before - after;
    this.emit(ctx, e);
  }

  private status(ctx: LineContext): void {
    const status = ctx.record.status;
    if (status === 'compacting') {
      this.compacting = true;
      this.emit(ctx, { type: 'compaction.start' });
      return;
    }
    this.emit(ctx, { type: 'status', status: typeof status === 'string' ? status : 'idle' });
  }

  // ------------------------------------------------------------------------------------------
  // assistant

  // An assistant or user record's `message` (the run opened for it), or `undefined` when it has
  // no message object: then the record is kept as unknown.
  private messageOf(ctx: LineContext, kind: 'assistant' | 'user'): JsonObject | undefined {
    const msg = ctx.record.message;
    if (!isJsonObject(msg)) {
      const what = `${kind === 'user' ? 'a' : 'an'} ${kind} record without a message object; kept as unknown`;
      this.report('invalid_record', 'warning', ctx.line, ctx.offset, what);
      this.unknown(ctx, kind);
      return undefined;
    }
    this.ensureRun(ctx);
    return msg;
  }

  private assistant(ctx: LineContext): void {
    const r = ctx.record;
    const msg = this.messageOf(ctx, 'assistant');
    if (msg === undefined) return;
    const blocks = contentBlocks(msg.content);
    if (typeof r.error === 'string') {
      // An API error the CLI wrote as a message of its own: an error, not the model's answer.
      let text = '';
      for (const b of blocks) if (typeof b.text === 'string') text += b.text;
      // It is the outcome of an API call of its own: the main agent's open round ends first.
      if (ctx.lane === undefined) {
        const main = this.messages.get('');
        if (main !== undefined) this.endRound(ctx, main);
        this.messages.delete('');
        this.round++;
      }
      this.emit(ctx, { type: 'error', message: text, fatal: false, code: r.error });
      return;
    }
    const m = this.messageFor(ctx, str(msg.id) ?? '', str(msg.model));
    const stop = str(msg.stop_reason);
    if (stop !== undefined) m.stopReason = stop;
    this.usage(ctx, m, msg.usage, stop !== undefined);
    for (let i = 0; i < blocks.length; i++) this.block(ctx, m, blocks[i]!, i, blocks.length);
  }

  private block(ctx: LineContext, m: MessageState, b: JsonObject, i: number, count: number): void {
    const streamed = m.streamed?.get(m.snapshotIndex++)?.streamed === true;
    let e: AgentEvent | undefined;
    switch (b.type) {
      case 'text':
        if (streamed || typeof b.text !== 'string') return;
        m.text += b.text;
        e = this.emit(ctx, { type: 'text.delta', text: b.text, message: m.id });
        break;
      case 'thinking': {
        if (streamed) return;
        const r: AgentEventOf<'reasoning.delta'> = {
          type: 'reasoning.delta',
          text: str(b.thinking) ?? '',
          message: m.id,
        };
        const signature = str(b.signature);
        if (signature !== undefined) r.signature = signature;
        e = this.emit(ctx, r);
        break;
      }
      case 'redacted_thinking':
        if (streamed) return;
        e = this.emit(ctx, { type: 'reasoning.delta', text: '', message: m.id, redacted: str(b.data) ?? '' });
        break;
      case 'tool_use':
        e = this.toolUse(ctx, b);
        break;
      default:
        return;
    }
    if (e !== undefined) this.blockHint(e, i, count);
  }

  private toolUse(ctx: LineContext, b: JsonObject): AgentEvent | undefined {
    const call = str(b.id);
    const name = str(b.name);
    if (call === undefined || name === undefined) return undefined;
    const question = name === 'AskUserQuestion';
    remember(this.calls, call, { name, lane: ctx.lane, question });
    const e: AgentEventOf<'tool.start'> = { type: 'tool.start', call, name };
    const server = mcpServer(name);
    if (server !== undefined) e.server = server;
    if (isJsonObject(b.input)) e.args = b.input;
    this.emit(ctx, e);
    if (question) {
      this.emit(ctx, { type: 'question', question: call, questions: questionsOf(b.input), call });
    }
    return e;
  }

  // ------------------------------------------------------------------------------------------
  // user

  private user(ctx: LineContext): void {
    const r = ctx.record;
    const msg = this.messageOf(ctx, 'user');
    if (msg === undefined) return;
    const synthetic = r.isSynthetic === true;
    if (typeof msg.content === 'string') {
      this.userText(ctx, msg.content, synthetic);
      return;
    }
    const blocks = contentBlocks(msg.content);
    let resultUsed = false;
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i]!;
      let e: AgentEvent | undefined;
      if (b.type === 'tool_result') {
        e = this.toolResult(ctx, b, resultUsed ? undefined : r.tool_use_result);
        resultUsed = true;
      } else if (b.type === 'text' && typeof b.text === 'string') {
        e = this.userText(ctx, b.text, synthetic);
      }
      if (e !== undefined) this.blockHint(e, i, blocks.length);
    }
  }

  private userText(ctx: LineContext, text: string, synthetic: boolean): AgentEvent {
    const e: AgentEventOf<'user.message'> = { type: 'user.message', text };
    if (synthetic) e.synthetic = true;
    return this.emit(ctx, e);
  }

  private toolResult(ctx: LineContext, b: JsonObject, result: unknown): AgentEvent | undefined {
    const call = str(b.tool_use_id);
    if (call === undefined) return undefined;
    const info = this.calls.get(call);
    const ok = b.is_error !== true;
    const e: AgentEventOf<'tool.end'> = { type: 'tool.end', call, ok };
    if (info !== undefined) e.name = info.name;
    const text = toolResultText(b.content);
    if (text !== undefined) e.text = text;
    // A failed call's `tool_use_result` is its error text ("Error: …"), not a result.
    if (!ok) e.error = typeof result === 'string' ? result : (text ?? '');
    if (result !== undefined && !(typeof result === 'string' && !ok)) e.result = result;
    const denied = this.deniedByMeta(ctx.record, call);
    if (denied) e.denied = true;
    const event = this.emit(ctx, e);
    const approval = this.approvals.get(call);
    if (approval !== undefined) {
      this.approvals.delete(call);
      this.emit(ctx, { type: 'approval.resolve', approval, decision: denied ? 'deny' : 'allow' }, true);
    }
    if (info?.question === true && isJsonObject(result) && isJsonObject(result.answers)) {
      this.emit(ctx, { type: 'question.answer', question: call, answers: result.answers }, true);
    }
    return event;
  }

  // `tool_result_meta[{id, non_execution_kind}]`: the call never ran (a permission rule, a hook).
  private deniedByMeta(record: JsonObject, call: string): boolean {
    const meta = record.tool_result_meta;
    if (!Array.isArray(meta)) return false;
    for (const m of meta)
      if (isJsonObject(m) && m.id === call && typeof m.non_execution_kind === 'string') return true;
    return false;
  }

  // ------------------------------------------------------------------------------------------
  // result

  private result(ctx: LineContext): void {
    const r = ctx.record;
    this.ensureRun(ctx);
    this.closeMessages(ctx, true);
    const outcome = resultOutcome(r);
    const e = this.runEnd({ status: outcome.status });
    if (outcome.reason !== undefined) e.reason = outcome.reason;
    if (outcome.status === 'failed') {
      const errors = Array.isArray(r.errors)
        ? r.errors.filter((x): x is string => typeof x === 'string')
        : [];
      const error = errors.length > 0 ? errors.join('\n') : str(r.result);
      if (error !== undefined) e.error = error;
    }
    if (typeof r.duration_ms === 'number') e.durationMs = r.duration_ms;
    const answer = str(r.result);
    if (answer !== undefined) e.answer = answer;
    const stop = str(r.stop_reason);
    if (stop !== undefined) e.stopReason = stop;
    const usage = usageFromClaude(r.usage) ?? {};
    if (typeof r.total_cost_usd === 'number') usage.costUsd = r.total_cost_usd;
    const byModel = byModelFromClaude(r.modelUsage);
    if (byModel !== undefined) usage.byModel = byModel;
    if (Object.keys(usage).length > 0) e.usage = usage;
    this.emit(ctx, e);
    this.runOpen = false;
    this.round = 0;
  }

  // ------------------------------------------------------------------------------------------
  // stream_event (--include-partial-messages)

  private streamEvent(ctx: LineContext): void {
    const ev = ctx.record.event;
    if (!isJsonObject(ev)) {
      this.unknown(ctx, 'stream_event');
      return;
    }
    this.ensureRun(ctx);
    const current = this.messages.get(ctx.lane ?? '');
    switch (ev.type) {
      case 'message_start': {
        const msg = isJsonObject(ev.message) ? ev.message : {};
        const m = this.messageFor(ctx, str(msg.id) ?? '', str(msg.model));
        m.streamed ??= new Map();
        if (isJsonObject(msg.usage)) m.startUsage = msg.usage;
        this.usage(ctx, m, msg.usage, false);
        return;
      }
      case 'content_block_start': {
        this.streamBlockStart(ctx, current, ev);
        return;
      }
      case 'content_block_delta': {
        this.streamDelta(ctx, current, ev);
        return;
      }
      case 'message_delta': {
        if (current === undefined) return;
        const delta = isJsonObject(ev.delta) ? ev.delta : {};
        const stop = str(delta.stop_reason);
        if (stop !== undefined) current.stopReason = stop;
        if (isJsonObject(ev.usage)) this.usage(ctx, current, { ...current.startUsage, ...ev.usage }, true);
        return;
      }
      case 'message_stop':
        if (current !== undefined) this.emit(ctx, { type: 'message.end', message: current.id });
        return;
      case 'content_block_stop':
      case 'ping':
        return;
      default: {
        this.unknown(ctx, typeof ev.type === 'string' ? `stream_event/${ev.type}` : 'stream_event');
        return;
      }
    }
  }

  private streamBlockStart(ctx: LineContext, m: MessageState | undefined, ev: JsonObject): void {
    const cb = ev.content_block;
    if (m === undefined || typeof ev.index !== 'number' || !isJsonObject(cb)) return;
    m.streamed ??= new Map();
    const block: StreamBlock = { type: str(cb.type) ?? '', streamed: false };
    m.streamed.set(ev.index, block);
    if (cb.type === 'tool_use') {
      const call = str(cb.id);
      const name = str(cb.name);
      if (call !== undefined) block.call = call;
      if (name !== undefined) block.name = name;
    } else if (cb.type === 'text' && typeof cb.text === 'string' && cb.text !== '') {
      block.streamed = true;
      m.text += cb.text;
      this.emit(ctx, { type: 'text.delta', text: cb.text, message: m.id });
    } else if (cb.type === 'redacted_thinking') {
      block.streamed = true;
      this.emit(ctx, { type: 'reasoning.delta', text: '', message: m.id, redacted: str(cb.data) ?? '' });
    }
  }

  private streamDelta(ctx: LineContext, m: MessageState | undefined, ev: JsonObject): void {
    const d = ev.delta;
    if (m === undefined || typeof ev.index !== 'number' || !isJsonObject(d)) return;
    let block = m.streamed?.get(ev.index);
    if (block === undefined) {
      block = { type: '', streamed: false };
      (m.streamed ??= new Map()).set(ev.index, block);
    }
    switch (d.type) {
      case 'text_delta':
        if (typeof d.text !== 'string') return;
        block.streamed = true;
        m.text += d.text;
        this.emit(ctx, { type: 'text.delta', text: d.text, message: m.id });
        return;
      case 'thinking_delta':
        if (typeof d.thinking !== 'string') return;
        block.streamed = true;
        this.emit(ctx, { type: 'reasoning.delta', text: d.thinking, message: m.id });
        return;
      case 'signature_delta':
        if (typeof d.signature !== 'string') return;
        block.streamed = true;
        this.emit(ctx, { type: 'reasoning.delta', text: '', message: m.id, signature: d.signature });
        return;
      case 'input_json_delta': {
        if (typeof d.partial_json !== 'string' || block.call === undefined) return;
        const e: AgentEventOf<'tool.args.delta'> = {
          type: 'tool.args.delta',
          call: block.call,
          text: d.partial_json,
        };
        if (block.name !== undefined) e.name = block.name;
        this.emit(ctx, e);
        return;
      }
      default:
        return;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Notices, heartbeats, permission requests

  private rateLimit(ctx: LineContext): void {
    const info = isJsonObject(ctx.record.rate_limit_info) ? ctx.record.rate_limit_info : {};
    const status = str(info.status);
    const e: AgentEventOf<'notice'> = {
      type: 'notice',
      kind: 'rate_limit',
      severity: status === undefined || status === 'allowed' ? 'info' : 'warning',
      data: info,
    };
    if (status !== undefined) e.message = status;
    this.emit(ctx, e);
  }

  private toolProgress(ctx: LineContext): void {
    const r = ctx.record;
    const call = str(r.tool_use_id);
    if (call === undefined) {
      this.unknown(ctx, 'tool_progress');
      return;
    }
    this.ensureRun(ctx);
    const e: AgentEventOf<'tool.liveness'> = {
      type: 'tool.liveness',
      call,
      action: 'heartbeat',
      elapsedMs: typeof r.elapsed_time_seconds === 'number' ? r.elapsed_time_seconds * 1000 : 0,
    };
    const name = str(r.tool_name);
    if (name !== undefined) e.name = name;
    this.emit(ctx, e);
  }

  private controlRequest(ctx: LineContext): void {
    const r = ctx.record;
    const req = r.request;
    const id = str(r.request_id);
    if (!isJsonObject(req) || req.subtype !== 'can_use_tool' || id === undefined) {
      const sub = isJsonObject(req) ? str(req.subtype) : undefined;
      this.unknown(ctx, sub === undefined ? 'control_request' : `control_request/${sub}`);
      return;
    }
    this.ensureRun(ctx);
    const e: AgentEventOf<'approval.request'> = { type: 'approval.request', approval: id };
    const call = str(req.tool_use_id);
    if (call !== undefined) {
      e.call = call;
      remember(this.approvals, call, id);
      const lane = this.calls.get(call)?.lane;
      if (lane !== undefined) ctx.lane = lane;
    }
    const tool = str(req.tool_name);
    if (tool !== undefined) e.tool = tool;
    const title = str(req.description) ?? str(req.display_name);
    if (title !== undefined) e.title = title;
    if (isJsonObject(req.input)) e.args = req.input;
    this.emit(ctx, e);
  }
}
