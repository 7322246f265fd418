import type { EncodeOptions, Encoder } from '../../codec';
import { AgentwireError, type DiagnosticSink } from '../../diagnostics';
import { randomId } from '../../ids';
import { IsoWriter, parseTimestamp } from '../../iso';
import {
  assertEncodable,
  encodeJson,
  isJsonObject,
  type JsonObject,
  jsonString,
  rawIfSame,
  setOwn,
} from '../../json';
import { LossReporter } from '../../loss';
import type { AgentEvent, AgentEventOf, Usage } from '../../model';
import { joinRecord } from '../../record';
import {
  COPILOT_EPHEMERAL_TYPES,
  type CopilotEnvelope,
  type CopilotHints,
  type CopilotRecordType,
  copilotEnvelope,
} from './wire';

/** Options of the Copilot writer. */
export interface CopilotEncodeOptions extends EncodeOptions {
  /** Makes event, session and message ids when the events have none. Default `crypto.randomUUID()`. */
  idSource?: () => string;
  /** `timestamp` for events without `ts`, ms since the epoch. Default `Date.now`. */
  clock?: () => number;
  /** `sessionId` of a `session.start` written for events without `session`. Default: from `idSource`. */
  session?: string;
  /** `producer` of a written `session.start` without one. Default `"agentwire"`. */
  producer?: string;
  /** `copilotVersion` of a `session.start` written from the model (it has no slot). Default `"0.0.0"`. */
  copilotVersion?: string;
}

const FORMAT = 'copilot' as const;

const json = (value: unknown, field: string): string => encodeJson(value, field, FORMAT);
// A count JSON cannot hold (not finite) is an AgentwireError naming the field.
function count(n: number | undefined, field: string): number | undefined {
  if (n !== undefined && !Number.isFinite(n)) assertEncodable(n, field, undefined, FORMAT);
  return n;
}

// Fields each event type carries into Copilot; anything else present is reported as a loss.
const ENV = ['session', 'ts', 'lane', 'round'];
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'session.start': [...ENV, 'producer', 'protocol', 'model', 'cwd'],
  'session.title': [...ENV, 'title'],
  'run.start': [...ENV, 'input'],
  'run.end': [...ENV, 'status', 'answer', 'usage', 'error'],
  'round.start': [...ENV, 'model'],
  'round.end': [...ENV, 'message', 'usage', 'model'],
  'message.start': [...ENV, 'role', 'message'],
  'message.end': [...ENV, 'message'],
  'text.delta': [...ENV, 'text', 'message'],
  'reasoning.delta': [...ENV, 'text', 'message'],
  'user.message': [...ENV, 'text'],
  status: [...ENV, 'status'],
  'tool.start': [...ENV, 'call', 'name', 'args', 'server'],
  'tool.output': [...ENV, 'call', 'text'],
  'tool.end': [...ENV, 'call', 'name', 'ok', 'text', 'result', 'error'],
  usage: [...ENV, 'usage'],
  'child.start': [...ENV, 'child', 'name', 'task', 'call'],
  'child.end': [...ENV, 'child', 'status', 'result'],
  'compaction.start': [...ENV, 'trigger'],
  'compaction.end': [...ENV, 'tokensFreed', 'trigger', 'tokensBefore', 'tokensAfter'],
  error: [...ENV, 'message', 'fatal', 'code'],
  cancel: [...ENV, 'by'],
  unknown: [...ENV, 'record', 'recordType'],
};

// The `data` of an Out whose `dataText` is given (never read).
const EMPTY: JsonObject = Object.freeze({}) as JsonObject;

function put(d: JsonObject, key: string, value: unknown): void {
  if (value === undefined) delete d[key];
  else d[key] = value;
}

/** One record about to be written: its type, data and the event it came from. */
interface Out {
  type: CopilotRecordType;
  data: JsonObject;
  /** `data` as JSON already (a template write: `JSON.stringify(data)` exactly), when known. */
  dataText?: string;
  event: AgentEvent;
  /** The envelope `agentId` (a child lane, or the child a subagent record is about). */
  agent?: string | undefined;
}

/**
 * The Copilot session event writer: canonical events → one envelope per line. Events decoded
 * from Copilot come back byte for byte (their line is kept); events built by hand or converted
 * get SDK-ordered envelopes, ids from `idSource`, each `parentId` naming the record before it,
 * and the turns, messages and session start the format needs around them.
 */
export class CopilotEncoder implements Encoder {
  private readonly options: CopilotEncodeOptions;
  private readonly loss: LossReporter;
  private readonly iso = new IsoWriter();
  private lastId: string | null = null;
  private lastQuoted = 'null';
  private lastTime = '';
  private lastTimeQuoted = '""';
  // The clock's or an event's ms of the last record written from the model, and it quoted.
  private lastMs = Number.NaN;
  private lastMsQuoted = '""';
  // Whether the frequent records built from the model are written from templates, and the
  // envelope's pieces known to need no escaping are quoted as they are (the property test turns
  // it off to hold both equal to `JSON.stringify`).
  private readonly templates: boolean;
  private wroteAny = false;
  // The type of the last record written (by an event, not kept as unknown).
  private lastType: string | undefined;
  // A foreign stream's first run start, held for one event: its session's start may follow it.
  private held: AgentEvent | undefined;
  private turn: string | undefined;
  private turnCount = 0;
  private usageInTurn = false;
  // The message of the last session.error written in the run (undefined: none yet).
  private runError: string | undefined;
  private openMessage: string | undefined;
  private openReasoning: string | undefined;
  // Text and reasoning of messages not yet ended, by message id (entries leave at their end).
  private readonly texts = new Map<string, string>();
  private reasoning = '';
  private readonly children = new Map<string, { call: string; name: string | undefined }>();

  /**
   * Creates a writer reporting losses to `sink`. `templates` false writes every record's data
   * with `JSON.stringify` (for the test that holds the template writes equal to it).
   */
  constructor(options: CopilotEncodeOptions, sink: DiagnosticSink, templates = true) {
    this.options = options;
    this.loss = new LossReporter(FORMAT, sink);
    this.templates = templates;
  }

  write(event: AgentEvent): string {
    const held = this.held;
    if (held !== undefined) {
      this.held = undefined;
      // The session's start came right after its first run's start (AG-UI and the AI SDK open
      // with the run): written first, as Copilot writes a session, instead of a second one.
      return event.type === 'session.start'
        ? this.record(event) + this.record(held)
        : this.record(held) + this.record(event);
    }
    if (!this.wroteAny && event.type === 'run.start' && event.provenance?.format !== FORMAT) {
      this.held = event;
      return '';
    }
    return this.record(event);
  }

  /** The records of one event (after the held first run start, if any). */
  private record(event: AgentEvent): string {
    const carried = CARRIED[event.type];
    if (carried !== undefined) this.loss.check(event, carried);
    const p = event.provenance;
    const own = p?.format === FORMAT;
    if (own && p.synthetic === true) {
      // Derived on reading (a message's text without deltas, a run end at shutdown): the record
      // they came from is written by its own event; their text only feeds that record.
      if (event.type === 'text.delta') this.addText(event.message ?? this.openMessage, event.text);
      else if (event.type === 'reasoning.delta') this.reasoning += event.text;
      return '';
    }
    const hints = own ? (p.hints as CopilotHints | undefined) : undefined;
    const env = copilotEnvelope(hints?.record);
    const tpl = env?.data;
    let text = '';
    if (!this.wroteAny && !own && event.type !== 'session.start') text += this.sessionStart(event, undefined);
    switch (event.type) {
      case 'session.start':
        return text + this.sessionStart(event, tpl);
      case 'session.title':
        return (
          text + this.emit({ type: 'session.title_changed', data: { ...tpl, title: event.title }, event })
        );
      case 'run.start':
        this.runError = undefined;
        if (event.input === undefined) return text;
        return (
          text + this.emit({ type: 'user.message', data: this.with(tpl, [['content', event.input]]), event })
        );
      case 'user.message':
        return (
          text + this.emit({ type: 'user.message', data: this.with(tpl, [['content', event.text]]), event })
        );
      case 'round.start':
        return text + this.turnStart(event, tpl);
      case 'round.end':
        return text + this.turnEnd(event, tpl, own);
      case 'message.start': {
        const id = event.message ?? this.newId();
        this.openMessage = id;
        this.texts.set(id, '');
        return (
          text +
          this.lazyTurn(event, own) +
          this.emit({ type: 'assistant.message_start', data: this.with(tpl, [['messageId', id]]), event })
        );
      }
      case 'text.delta': {
        const head = this.lazyTurn(event, own);
        const id = event.message ?? this.openMessage ?? (this.openMessage = this.newId());
        this.addText(id, event.text);
        if (tpl === undefined && this.templates && typeof event.text === 'string' && typeof id === 'string') {
          // Most records of a stream: `JSON.stringify` of `{messageId, deltaContent}`, spelled out.
          const dataText = `{"messageId":${jsonString(id)},"deltaContent":${jsonString(event.text)}}`;
          return text + head + this.emit({ type: 'assistant.message_delta', data: EMPTY, dataText, event });
        }
        const data = this.with(tpl, [
          ['messageId', id],
          ['deltaContent', event.text],
        ]);
        return text + head + this.emit({ type: 'assistant.message_delta', data, event });
      }
      case 'reasoning.delta':
        // Another format's empty delta (a reasoning block's start or end there) says nothing here.
        if (!own && event.text === '' && event.redacted === undefined && event.signature === undefined)
          return text;
        return text + this.reasoningRecord(event, tpl, own);
      case 'message.end':
        return text + this.messageRecord(event, tpl, event.message);
      case 'tool.start': {
        const data = this.with(tpl, [
          ['toolCallId', event.call],
          ['toolName', event.name],
          ['arguments', event.args ?? (tpl === undefined ? {} : tpl.arguments)],
          ['mcpServerName', event.server],
        ]);
        if (!own && event.args !== undefined)
          assertEncodable(event.args, 'tool.start.args', undefined, FORMAT);
        return text + this.lazyTurn(event, own) + this.emit({ type: 'tool.execution_start', data, event });
      }
      case 'tool.output': {
        const data = this.with(tpl, [
          ['toolCallId', event.call],
          ['partialOutput', event.text],
        ]);
        return text + this.emit({ type: 'tool.execution_partial_result', data, event });
      }
      case 'tool.end':
        return text + this.toolEnd(event, tpl, own);
      case 'usage':
        return text + this.usageRecord(event, tpl, own, env);
      case 'child.start':
        return text + this.childStart(event, tpl);
      case 'child.end':
        return text + this.childEnd(event, tpl);
      case 'run.end':
        return text + this.runEnd(event, tpl);
      case 'status':
        if (event.status !== 'idle') {
          this.loss.report(event, 'status', `${FORMAT} has no place for a status other than idle`);
          return text;
        }
        return text + this.emit({ type: 'session.idle', data: { ...tpl }, event });
      case 'error': {
        // Another format's error derived from its run's end (a failed result): the run's end
        // writes it (one session.error, not two, and the same one whichever came first).
        if (!own && event.provenance?.synthetic === true && (event.fatal || event.message === this.runError))
          return text;
        this.runError = event.message;
        const data = this.with(tpl, [
          ['errorType', event.code ?? (tpl === undefined ? 'error' : tpl.errorType)],
          ['message', event.message],
        ]);
        return text + this.emit({ type: 'session.error', data, event });
      }
      case 'cancel': {
        const data = this.with(tpl, [
          ['reason', event.by ?? (tpl === undefined ? 'user_initiated' : tpl.reason)],
        ]);
        return text + this.emit({ type: 'abort', data, event });
      }
      case 'compaction.start':
        return (
          text +
          this.emit({
            type: 'session.compaction_start',
            data: this.with(tpl, [['trigger', event.trigger]]),
            event,
          })
        );
      case 'compaction.end': {
        const data = this.with(tpl, [
          ['success', tpl === undefined ? true : tpl.success],
          ['trigger', event.trigger],
          ['preCompactionTokens', count(event.tokensBefore, 'compaction.end.tokensBefore')],
          ['postCompactionTokens', count(event.tokensAfter, 'compaction.end.tokensAfter')],
          ['tokensRemoved', count(event.tokensFreed, 'compaction.end.tokensFreed')],
        ]);
        return text + this.emit({ type: 'session.compaction_complete', data, event });
      }
      case 'unknown':
        return text + this.unknown(event, own);
      default:
        this.loss.report(event, event.type, `${FORMAT} has no event for ${event.type}`);
        return text;
    }
  }

  end(): string {
    const held = this.held;
    this.held = undefined;
    return held === undefined ? '' : this.record(held);
  }

  // Events of a burst share their timestamp: quoted once.
  private quotedTime(timestamp: string): string {
    if (timestamp !== this.lastTime) {
      this.lastTime = timestamp;
      this.lastTimeQuoted = jsonString(timestamp);
    }
    return this.lastTimeQuoted;
  }

  /**
   * `timestamp` of a record written from the model, quoted: its event's `ts` (else the clock's
   * time) as `toISOString` writes it. Records of a burst share their ms: written once.
   */
  private quotedAt(ts: number | undefined): string {
    const ms = ts ?? (this.options.clock ?? Date.now)();
    if (ms !== this.lastMs) {
      // Digits, dashes, colons, a dot and letters: nothing to escape. (A time no timestamp can
      // hold throws: NaN is never equal to the last ms.)
      this.lastMsQuoted = `"${this.timestamp(ms)}"`;
      this.lastMs = ms;
    }
    return this.lastMsQuoted;
  }

  /** `timestamp` of an event: its `ts` (else the clock's time) as `toISOString` writes it. */
  private timestamp(ts: number | undefined): string {
    const ms = ts ?? (this.options.clock ?? Date.now)();
    const text = this.iso.write(ms);
    if (text === '')
      throw new AgentwireError({
        code: 'unencodable',
        severity: 'error',
        message: `ts: ${ms} is no time a timestamp can hold`,
        format: FORMAT,
      });
    return text;
  }

  private newId(): string {
    return (this.options.idSource ?? randomId)();
  }

  /** The data for a record: the kept template (its other fields in place) with `set` applied. */
  private with(tpl: JsonObject | undefined, set: Array<[string, unknown]>): JsonObject {
    if (tpl === undefined) {
      // Built fresh: only the fields that are set (a delete would slow the object down).
      const d: JsonObject = {};
      for (const [k, v] of set) if (v !== undefined) d[k] = v;
      return d;
    }
    const d: JsonObject = { ...tpl };
    for (const [k, v] of set) put(d, k, v);
    return d;
  }

  private addText(id: string | undefined, text: string): void {
    if (id === undefined) return;
    this.texts.set(id, (this.texts.get(id) ?? '') + text);
  }

  private sessionStart(event: AgentEvent, tpl: JsonObject | undefined): string {
    const e = event.type === 'session.start' ? event : undefined;
    const session = event.session ?? this.options.session ?? this.newId();
    const protocol = e?.protocol;
    const version = protocol !== undefined && /^\d+$/.test(protocol) ? Number(protocol) : 1;
    const at = this.timestamp(event.ts);
    const set: Array<[string, unknown]> = [
      ['sessionId', session],
      ['version', tpl !== undefined && protocol === undefined ? tpl.version : version],
      [
        'producer',
        e?.producer ?? (tpl === undefined ? (this.options.producer ?? 'agentwire') : tpl.producer),
      ],
    ];
    if (tpl === undefined)
      set.push(['copilotVersion', this.options.copilotVersion ?? '0.0.0'], ['startTime', at]);
    set.push(['selectedModel', e?.model ?? (tpl === undefined ? undefined : tpl.selectedModel)]);
    const data = this.with(tpl, set);
    if (e?.cwd !== undefined)
      data.context = isJsonObject(tpl?.context) ? { ...tpl.context, cwd: e.cwd } : { cwd: e.cwd };
    const start: AgentEvent = e ?? { type: 'session.start', session };
    return this.emit({ type: 'session.start', data, event: start });
  }

  // A round of another format's events opens a turn the first time one of its events comes.
  private lazyTurn(event: AgentEvent, own: boolean): string {
    if (own || this.turn !== undefined || event.lane !== undefined) return '';
    return this.turnStart(
      { type: 'round.start', ...(event.round === undefined ? {} : { round: event.round }) },
      undefined,
      event.ts,
    );
  }

  private turnStart(event: AgentEventOf<'round.start'>, tpl: JsonObject | undefined, ts?: number): string {
    this.turnCount++;
    const turnId =
      event.round !== undefined
        ? String(event.round)
        : tpl !== undefined
          ? (tpl.turnId as string)
          : String(this.turnCount - 1);
    if (event.lane === undefined) {
      this.turn = turnId;
      this.usageInTurn = false;
    }
    const data = this.with(tpl, [
      ['turnId', turnId],
      ['model', event.model],
    ]);
    const e = ts !== undefined && event.ts === undefined ? { ...event, ts } : event;
    return this.emit({ type: 'assistant.turn_start', data, event: e });
  }

  private turnEnd(event: AgentEventOf<'round.end'>, tpl: JsonObject | undefined, own: boolean): string {
    let text = '';
    if (!own) {
      text += this.lazyTurn(event, own);
      // Another format's round: its message and usage become the records Copilot has for them.
      if (this.openMessage !== undefined)
        text += this.messageRecord(
          { type: 'message.end', ts: event.ts } as AgentEvent,
          undefined,
          this.openMessage,
        );
      if (event.usage !== undefined && !this.usageInTurn && event.lane === undefined) {
        const u: AgentEventOf<'usage'> = { type: 'usage', usage: { ...event.usage, scope: 'call' } };
        if (event.model !== undefined) u.usage.model ??= event.model;
        if (event.ts !== undefined) u.ts = event.ts;
        text += this.usageRecord(u, undefined, false, undefined);
      }
    }
    const turnId =
      event.round !== undefined
        ? String(event.round)
        : tpl !== undefined
          ? (tpl.turnId as string)
          : (this.turn ?? String(this.turnCount));
    const data = this.with(tpl, [
      ['turnId', turnId],
      ['model', event.model],
    ]);
    if (event.lane === undefined) this.turn = undefined;
    return text + this.emit({ type: 'assistant.turn_end', data, event });
  }

  private reasoningRecord(
    event: AgentEventOf<'reasoning.delta'>,
    tpl: JsonObject | undefined,
    own: boolean,
  ): string {
    const head = this.lazyTurn(event, own);
    const id = event.message ?? this.openReasoning ?? (this.openReasoning = this.newId());
    this.reasoning += event.text;
    const hints = own ? (event.provenance?.hints as CopilotHints | undefined) : undefined;
    if (hints?.record?.type === 'assistant.reasoning') {
      const data = this.with(tpl, [
        ['reasoningId', id],
        ['content', event.text],
      ]);
      return head + this.emit({ type: 'assistant.reasoning', data, event });
    }
    const data = this.with(tpl, [
      ['reasoningId', id],
      ['deltaContent', event.text],
    ]);
    return head + this.emit({ type: 'assistant.reasoning_delta', data, event });
  }

  private messageRecord(event: AgentEvent, tpl: JsonObject | undefined, message: string | undefined): string {
    const id = message ?? this.openMessage ?? this.newId();
    const content = this.texts.get(id) ?? '';
    this.texts.delete(id);
    if (this.openMessage === id) this.openMessage = undefined;
    const data = this.with(tpl, [
      ['messageId', id],
      ['content', content],
    ]);
    if (this.reasoning !== '') data.reasoningText = this.reasoning;
    this.reasoning = '';
    this.openReasoning = undefined;
    return this.emit({ type: 'assistant.message', data, event });
  }

  private toolEnd(event: AgentEventOf<'tool.end'>, tpl: JsonObject | undefined, own: boolean): string {
    const content =
      event.text ??
      (event.result === undefined || event.result === null
        ? undefined
        : json(event.result, 'tool.end.result'));
    const keptResult = isJsonObject(tpl?.result) ? tpl.result : undefined;
    const keptError = isJsonObject(tpl?.error) ? tpl.error : undefined;
    const error =
      event.error === undefined
        ? undefined
        : typeof event.error === 'string'
          ? event.error
          : json(event.error, 'tool.end.error');
    const data = this.with(tpl, [
      ['toolCallId', event.call],
      ['success', event.ok],
      ['result', content === undefined ? undefined : { ...keptResult, content }],
      ['error', error === undefined ? undefined : { ...keptError, message: error }],
    ]);
    return this.lazyTurn(event, own) + this.emit({ type: 'tool.execution_complete', data, event });
  }

  private usageRecord(
    event: AgentEventOf<'usage'>,
    tpl: JsonObject | undefined,
    own: boolean,
    env: CopilotEnvelope | undefined,
  ): string {
    const u = event.usage;
    if (u.costUsd !== undefined)
      this.loss.report(
        event,
        'usage.costUsd',
        `${FORMAT} has no cost in US dollars (its cost is a billing multiplier)`,
      );
    if (u.scope === 'thread') return this.shutdown(event, u, tpl);
    if (event.lane === undefined) this.usageInTurn = true;
    // The key is the API call id; a record without one was keyed by its own event id.
    const key = u.key === undefined || u.key === env?.id ? undefined : u.key;
    const data = this.with(tpl, [
      // The schema requires a model; one the events do not name is left out, never invented.
      ['model', u.model ?? (tpl === undefined ? undefined : tpl.model)],
      ['inputTokens', count(u.input, 'usage.input')],
      ['outputTokens', count(u.output, 'usage.output')],
      ['cacheReadTokens', count(u.cacheRead, 'usage.cacheRead')],
      ['cacheWriteTokens', count(u.cacheWrite, 'usage.cacheWrite')],
      ['reasoningTokens', count(u.reasoning, 'usage.reasoning')],
      ['apiCallId', key ?? (tpl === undefined ? undefined : tpl.apiCallId)],
    ]);
    return this.lazyTurn(event, own) + this.emit({ type: 'assistant.usage', data, event });
  }

  private shutdown(event: AgentEventOf<'usage'>, u: Usage, tpl: JsonObject | undefined): string {
    const metrics: JsonObject = {};
    const kept = isJsonObject(tpl?.modelMetrics) ? tpl.modelMetrics : undefined;
    for (const model of Object.keys(u.byModel ?? {})) {
      const m = u.byModel![model]!;
      const was = isJsonObject(kept?.[model]) ? (kept[model] as JsonObject) : undefined;
      const usage: JsonObject = isJsonObject(was?.usage) ? { ...was.usage } : {};
      put(usage, 'inputTokens', count(m.input, 'usage.byModel.input') ?? 0);
      put(usage, 'outputTokens', count(m.output, 'usage.byModel.output') ?? 0);
      put(usage, 'cacheReadTokens', count(m.cacheRead, 'usage.byModel.cacheRead') ?? 0);
      put(usage, 'cacheWriteTokens', count(m.cacheWrite, 'usage.byModel.cacheWrite') ?? 0);
      put(usage, 'reasoningTokens', count(m.reasoning, 'usage.byModel.reasoning'));
      const metric: JsonObject = was === undefined ? { requests: {} } : { ...was };
      metric.usage = usage;
      setOwn(metrics, model, metric);
    }
    const data = this.with(tpl, [['modelMetrics', metrics]]);
    if (tpl === undefined) {
      const fresh: JsonObject = {
        shutdownType: 'routine',
        totalApiDurationMs: 0,
        sessionStartTime: event.ts ?? (this.options.clock ?? Date.now)(),
        codeChanges: { linesAdded: 0, linesRemoved: 0, filesModified: [] },
        modelMetrics: metrics,
      };
      return this.emit({ type: 'session.shutdown', data: fresh, event });
    }
    return this.emit({ type: 'session.shutdown', data, event });
  }

  private childStart(event: AgentEventOf<'child.start'>, tpl: JsonObject | undefined): string {
    const call = event.call ?? event.child;
    this.children.set(event.child, { call, name: event.name });
    const name = event.name ?? (tpl === undefined ? 'agent' : tpl.agentName);
    const data = this.with(tpl, [
      ['toolCallId', call],
      ['agentName', name],
      ['agentDisplayName', tpl === undefined ? name : tpl.agentDisplayName],
      ['agentDescription', event.task ?? (tpl === undefined ? '' : tpl.agentDescription)],
    ]);
    return this.emit({
      type: 'subagent.started',
      data,
      event,
      agent: event.child === call ? undefined : event.child,
    });
  }

  private childEnd(event: AgentEventOf<'child.end'>, tpl: JsonObject | undefined): string {
    const started = this.children.get(event.child);
    this.children.delete(event.child);
    const call = started?.call ?? (tpl === undefined ? event.child : (tpl.toolCallId as string));
    const name = started?.name ?? (tpl === undefined ? 'agent' : tpl.agentName);
    const failed = event.status === 'failed' || event.status === 'incomplete';
    const set: Array<[string, unknown]> = [
      ['toolCallId', call],
      ['agentName', tpl === undefined ? name : tpl.agentName],
      ['agentDisplayName', tpl === undefined ? name : tpl.agentDisplayName],
    ];
    if (failed) set.push(['error', event.result ?? (tpl === undefined ? event.status : tpl.error)]);
    else if (event.status === 'cancelled') set.push(['cancelled', true]);
    else if (tpl !== undefined) set.push(['cancelled', tpl.cancelled === true ? undefined : tpl.cancelled]);
    if (!failed && event.result !== undefined)
      this.loss.report(event, 'child.end.result', `${FORMAT} has no result text for a completed subagent`);
    const data = this.with(tpl, set);
    const agent = event.child === call ? undefined : event.child;
    return this.emit({ type: failed ? 'subagent.failed' : 'subagent.completed', data, event, agent });
  }

  private runEnd(event: AgentEventOf<'run.end'>, tpl: JsonObject | undefined): string {
    if (event.status === 'incomplete') return '';
    // Right after a session.shutdown a completed run has ended already (a reader ends it there):
    // a session.idle would read as one more run.
    if (this.lastType === 'session.shutdown' && event.status === 'completed' && tpl === undefined) return '';
    let text = '';
    if (
      event.status === 'failed' &&
      tpl === undefined &&
      (this.runError === undefined || (event.error !== undefined && event.error !== this.runError))
    ) {
      const message = event.error ?? event.reason ?? 'the run failed';
      text += this.emit({
        type: 'session.error',
        data: { errorType: 'error', message },
        event: { ...event },
      });
    }
    this.runError = undefined;
    const data: JsonObject =
      tpl !== undefined ? { ...tpl } : event.status === 'cancelled' ? { aborted: true } : {};
    return text + this.emit({ type: 'session.idle', data, event });
  }

  private unknown(event: AgentEventOf<'unknown'>, own: boolean): string {
    const r = event.record;
    if (!own || !isJsonObject(r)) {
      this.loss.report(event, 'unknown', `${FORMAT} writes back only records read from ${FORMAT}`);
      return '';
    }
    this.lastType = undefined;
    if (typeof r.id === 'string') {
      this.lastId = r.id;
      this.lastQuoted = jsonString(r.id);
    }
    this.wroteAny = true;
    return `${rawIfSame(event.provenance?.hints?.raw, json(r, 'unknown.record'))}\n`;
  }

  /** Writes one record's envelope around its data, in the order it came (or the SDK's). */
  private emit(o: Out): string {
    const event = o.event;
    const p = event.provenance;
    const own = p?.format === FORMAT;
    const hints = own ? (p.hints as CopilotHints | undefined) : undefined;
    const env = copilotEnvelope(hints?.record);
    const kept = env !== undefined && env.type === o.type ? env : undefined;
    const id = kept !== undefined ? kept.id : this.newId();
    const parentId = kept !== undefined ? kept.parentId : this.lastId;
    const quotedTime =
      kept !== undefined && (event.ts === undefined || parseTimestamp(kept.timestamp).ms === event.ts)
        ? this.quotedTime(kept.timestamp)
        : this.templates
          ? this.quotedAt(event.ts)
          : jsonString(this.timestamp(event.ts));
    const agent =
      o.agent ?? (event.lane === undefined || o.type.startsWith('subagent.') ? undefined : event.lane);
    const ephemeral =
      kept !== undefined ? kept.ephemeral : COPILOT_EPHEMERAL_TYPES.has(o.type) ? true : undefined;
    const data = o.dataText ?? json(o.data, `${event.type}`);
    // An id of the default source (a UUID) has nothing to escape. The previous record's quoted id
    // is this one's parentId: quoted once.
    const quotedId =
      this.templates && kept === undefined && this.options.idSource === undefined
        ? `"${id}"`
        : jsonString(id);
    const quotedParent =
      parentId === null ? 'null' : parentId === this.lastId ? this.lastQuoted : jsonString(parentId);
    // Record types are plain words: nothing to escape.
    const type = this.templates
      ? `"type":"${o.type}","data":${data}`
      : `"type":${jsonString(o.type)},"data":${data}`;
    // COPILOT_ENVELOPE_KEYS, or COPILOT_DISK_KEYS for a record that came in the on-disk order.
    const text0 =
      kept?.layout === 'disk'
        ? `{${type},"id":${quotedId},"timestamp":${quotedTime},"parentId":${quotedParent}`
        : `{"id":${quotedId},"parentId":${quotedParent},"timestamp":${quotedTime},${type}`;
    const tail =
      (agent === undefined ? '' : `,"agentId":${jsonString(agent)}`) +
      (ephemeral === undefined
        ? ''
        : ephemeral === true
          ? ',"ephemeral":true'
          : `,"ephemeral":${json(ephemeral, 'ephemeral')}`);
    let text = `${text0}${tail}}`;
    if (kept?.extra !== undefined) text = this.withExtra(text, kept.extra);
    if (kept !== undefined && hints?.raw !== undefined) text = rawIfSame(hints.raw, text);
    this.lastId = id;
    this.lastQuoted = quotedId;
    this.wroteAny = true;
    this.lastType = o.type;
    return `${text}\n`;
  }

  // Envelope fields the model has no slot for, kept by the decoder: re-joined in place.
  private withExtra(text: string, extra: Record<string, unknown>): string {
    const record = JSON.parse(text) as JsonObject;
    const pieces: Array<[string, string]> = Object.keys(record).map((k) => [k, JSON.stringify(record[k])]);
    return joinRecord(pieces, { extra }, (v) => json(v, 'extra'), FORMAT);
  }
}
