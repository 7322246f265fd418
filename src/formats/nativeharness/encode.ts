import type { EncodeOptions, Encoder } from '../../codec';
import { AgentwireError, type DiagnosticSink } from '../../diagnostics';
import { formatSseJsonEvent } from '../../framing/sse';
import {
  assertEncodable,
  formatInteger,
  isJsonObject,
  type JsonObject,
  jsonString,
  sameJson,
} from '../../json';
import { LossReporter } from '../../loss';
import type { AgentEvent, AgentEventOf, Usage } from '../../model';
import { joinRecord, quoteKey } from '../../record';
import {
  NH,
  NH_DEFAULTED_FIELDS,
  NH_EXTENSION_ABSENT,
  NH_EXTENSION_ENVELOPE,
  NH_EXTENSION_KEY,
  NH_EXTENSION_TYPE,
  type NhFraming,
  type NhHints,
  nhEnvelopeText,
  nhOutputPayload,
  nhProtocolVersion,
  nhTokenPayload,
} from './wire';

/** Options of the nativeharness writer. */
export interface NhEncodeOptions extends EncodeOptions {
  /** `sse` (default), `json` (the `/events` array) or `jsonl` (the log file). */
  framing?: NhFraming;
  /** `workspace_id` for events without `workspace`. Default `"default"`. */
  workspace?: string;
  /** `session_id` for events without `session`. Default: from `idSource`. */
  session?: string;
  /** The `seq` of the first event that carries none. Default 1. */
  startSeq?: number;
  /** `ts` for events without one, ms since the epoch. Default `Date.now`. */
  clock?: () => number;
  /** Makes session and turn ids when none is given. Default `crypto.randomUUID()`. */
  idSource?: () => string;
  /**
   * Make a conforming session out of events from another format: a `session_created` first when
   * the events have none, a second session start reported as `loss` instead of written, and a
   * `tool_result` (status `error`) for every call still open when its turn's `done` comes.
   * `convert` and `agentwire serve` turn it on; events of this format are written as they are.
   */
  conform?: boolean;
  /** SSE only: a `retry` (ms) written before the first event. */
  retry?: number;
  /**
   * Carry what this format has no place for in agentwire's extension instead of reporting it as
   * `loss`: an event type without a nativeharness type as an `agentwire_event` envelope, other
   * fields (`lane`, `kind`, …) in an `agentwire` payload key (docs/protocols/nativeharness.md).
   * Other nativeharness readers skip the one and ignore the other. `agentwire serve` turns it on
   * so its viewer sees reasoning, lanes and notices.
   */
  extensions?: boolean;
}

const FORMAT = NH;
const encodeValue = (value: unknown): string => JSON.stringify(value);

function defaultId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID !== undefined) return c.randomUUID();
  return `nh-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

function fail(message: string): never {
  throw new AgentwireError({ code: 'unencodable', severity: 'error', message, format: FORMAT });
}

function str(value: unknown, field: string): string {
  if (typeof value !== 'string')
    fail(`${field}: expected a string, got ${value === null ? 'null' : typeof value}`);
  return jsonString(value);
}

/**
 * The envelope's id fields as one piece of text, `,"workspace_id":…,"session_id":…,"turn_id":…,
 * "payload":`, remembered while the ids stay the same (every event of a turn). One flat piece
 * instead of six keeps the envelope a short concatenation: a sink flattens every piece of it.
 */
class EnvelopeIds {
  private workspace: unknown;
  private session: unknown;
  private turn: unknown;
  private text = '';

  get(workspace: unknown, session: unknown, turn: unknown, eventType: string): string {
    // Never a hit before the first piece: the envelope's workspace and session are strings.
    if (workspace === this.workspace && session === this.session && turn === this.turn) return this.text;
    // Joined, not concatenated: the piece is flat text once, not a tree walked on every event.
    const text = [
      ',"workspace_id":',
      str(workspace, `${eventType}.workspace`),
      ',"session_id":',
      str(session, `${eventType}.session`),
      ',"turn_id":',
      turn === undefined ? 'null' : str(turn, `${eventType}.run`),
      ',"payload":',
    ].join('');
    this.workspace = workspace;
    this.session = session;
    this.turn = turn;
    this.text = text;
    return text;
  }
}

function num(value: number, field: string): string {
  if (typeof value === 'bigint') fail(`${field}: a BigInt (${String(value)}n), not a number`);
  if (typeof value !== 'number' || !Number.isFinite(value))
    fail(`${field}: ${String(value)} is not a finite number`);
  return String(value);
}

function strings(value: readonly string[], field: string): string {
  return `[${value.map((v, i) => str(v, `${field}[${i}]`)).join(',')}]`;
}

function json(value: unknown, field: string): string {
  assertEncodable(value, field, undefined, FORMAT);
  return JSON.stringify(value);
}

const ENVELOPE = ['seq', 'ts', 'workspace', 'session', 'run', 'round'];

// Read-only stand-in for events without hints (one object, not one per event).
const NO_HINTS: Readonly<NhHints> = Object.freeze({});

// Fields each event type carries; anything else present is reported as a loss.
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'session.start': [...ENVELOPE, 'protocol', 'actor', 'mode', 'title', 'producer'],
  'session.title': [...ENVELOPE, 'title'],
  'run.start': [...ENVELOPE, 'input'],
  'run.end': [...ENVELOPE, 'status', 'stopReason', 'usage'],
  'round.start': ENVELOPE,
  'round.end': [...ENVELOPE, 'message', 'stopReason', 'usage'],
  'message.start': [...ENVELOPE, 'role'],
  'text.delta': [...ENVELOPE, 'text'],
  status: [...ENVELOPE, 'status', 'detail'],
  'tool.start': [...ENVELOPE, 'call', 'name', 'args', 'command', 'argsSummary'],
  'tool.output': [...ENVELOPE, 'call', 'stream', 'text'],
  'tool.end': [...ENVELOPE, 'call', 'name', 'ok', 'text', 'result', 'error', 'exitCode', 'filesChanged'],
  'approval.request': [...ENVELOPE, 'approval', 'call', 'tool', 'title', 'effects', 'options'],
  'approval.resolve': [...ENVELOPE, 'approval', 'decision', 'by', 'option'],
  question: [...ENVELOPE, 'question', 'questions'],
  'child.start': [...ENVELOPE, 'child', 'name', 'task'],
  'child.end': [...ENVELOPE, 'child', 'status', 'result'],
  'compaction.start': ENVELOPE,
  'compaction.end': [...ENVELOPE, 'tokensFreed'],
  error: [...ENVELOPE, 'message', 'fatal', 'code'],
  cancel: [...ENVELOPE, 'by'],
  unknown: [...ENVELOPE, 'record', 'recordType'],
};

// The canonical fields of an event its nativeharness type has no place for (undefined: none).
function extensionFields(event: AgentEvent, carried: readonly string[]): JsonObject | undefined {
  let out: JsonObject | undefined;
  for (const key of Object.keys(event)) {
    const value = (event as Record<string, unknown>)[key];
    if (value === undefined || NH_EXTENSION_ENVELOPE.has(key) || carried.includes(key)) continue;
    out ??= {};
    out[key] = value;
  }
  return out;
}

// Whether a decoded event's payload had the extension key (written back with its extra keys).
function hasExtension(hints: Readonly<Record<string, unknown>>): boolean {
  const extra = hints.payloadExtra;
  return isJsonObject(extra) && Object.hasOwn(extra, NH_EXTENSION_KEY);
}

/**
 * The nativeharness writer: canonical events → envelopes in SSE, JSON array or JSON Lines
 * framing. Deterministic (ids, `seq` and clock injectable); byte-exact for events decoded from
 * this format (synthetic events are skipped, unknown keys and key orders restored).
 */
export class NhEncoder implements Encoder {
  private readonly options: NhEncodeOptions;
  private readonly framing: NhFraming;
  private readonly loss: LossReporter;
  private lastSeq: number | undefined;
  private lastTs = Number.NaN;
  private lastTsText = '';
  private workspace: string | undefined;
  private session: string | undefined;
  private turn: string | undefined;
  private hop = 1;
  private calls: string[] = [];
  private sessionCreated = false;
  private readonly open = new Map<string, AgentEventOf<'tool.start'>>();
  private written = 0;
  private readonly ids = new EnvelopeIds();

  /** Creates a writer reporting losses to `sink`. */
  constructor(options: NhEncodeOptions, sink: DiagnosticSink) {
    this.options = options;
    this.framing = options.framing ?? 'sse';
    this.loss = new LossReporter(FORMAT, sink);
  }

  write(event: AgentEvent): string {
    // A run end implied by a stream that stopped (docs/model.md "Run outcome") came from no record.
    if (event.type === 'run.end' && event.status === 'incomplete' && event.provenance?.synthetic) return '';
    if (this.options.conform !== true || event.provenance?.format === FORMAT) {
      if (event.type === 'session.start') this.sessionCreated = true;
      return this.writeOne(event);
    }
    // conform: events from another format are made into a conforming session: it starts with
    // one session_created, and a turn's calls all have a result before its done.
    let prefix = '';
    if (event.type === 'session.start') {
      if (this.sessionCreated) {
        this.loss.report(
          event,
          'session.start',
          'a session has one session_created; a second session start is not written',
        );
        return '';
      }
      this.sessionCreated = true;
    } else if (!this.sessionCreated) {
      this.sessionCreated = true;
      const start: AgentEventOf<'session.start'> = { type: 'session.start' };
      if (event.session !== undefined) start.session = event.session;
      if (event.workspace !== undefined) start.workspace = event.workspace;
      if (event.ts !== undefined) start.ts = event.ts;
      prefix = this.writeOne(start);
    }
    if (event.type === 'tool.start') this.open.set(event.call, event);
    else if (event.type === 'tool.end') this.open.delete(event.call);
    else if (event.type === 'run.end') {
      for (const start of this.open.values()) {
        const end: AgentEventOf<'tool.end'> = {
          type: 'tool.end',
          call: start.call,
          name: start.name,
          ok: false,
          error: `the call had not ended when its turn ended (${event.status})`,
        };
        if (start.round !== undefined) end.round = start.round;
        if (event.ts !== undefined) end.ts = event.ts;
        prefix += this.writeOne(end);
      }
      this.open.clear();
    }
    return prefix + this.writeOne(event);
  }

  private hopPiece(): [string, string] {
    return ['hop', formatInteger(this.hop, 'round', FORMAT)];
  }

  private writeOne(event: AgentEvent): string {
    const p = event.provenance;
    const own = p?.format === FORMAT;
    if (own && p?.synthetic === true) return '';
    // A run that ended without its terminal record (docs/model.md "Run outcome"): the turn is
    // left without `done`, which is how a nativeharness log says it.
    if (event.type === 'run.end' && event.status === 'incomplete') {
      this.turn = undefined;
      return '';
    }
    const carried = CARRIED[event.type];
    const hints: Readonly<NhHints> = own ? ((p?.hints as NhHints | undefined) ?? NO_HINTS) : NO_HINTS;
    if (carried === undefined && (hints.extensionEvent !== undefined || this.options.extensions === true)) {
      return this.extensionEvent(event, hints);
    }
    // Fields the type has no place for travel in the extension key (written back from the
    // payload's extra keys for events of this format).
    let extension =
      carried !== undefined && this.options.extensions === true && !own
        ? extensionFields(event, carried)
        : undefined;
    // tool_result has one output text: a JSON result beside a text goes in the extension.
    if (
      this.options.extensions === true &&
      !own &&
      event.type === 'tool.end' &&
      event.text !== undefined &&
      event.result !== undefined
    ) {
      extension = { ...extension, result: event.result };
    }
    // A field the wire type requires but the event does not have is written as its default and
    // named in the extension, so the reader gives the event back without it.
    const defaulted = this.options.extensions === true && !own ? NH_DEFAULTED_FIELDS[event.type] : undefined;
    if (
      defaulted !== undefined &&
      (event as unknown as Record<string, unknown>)[defaulted[0]] === undefined
    ) {
      extension = { ...extension, [NH_EXTENSION_ABSENT]: [defaulted[0]] };
    }
    // An event type with no counterpart is reported once as a whole, not field by field.
    if (carried !== undefined && extension === undefined && !hasExtension(hints)) {
      this.loss.check(event, carried);
    }
    if (typeof event.round === 'number') this.hop = event.round;
    // The most frequent payloads, without extra keys or another key order to restore, are built
    // as one string: what joinRecord gives for the same pieces, without the piece arrays.
    const plain =
      hints.payloadExtra === undefined && hints.payloadOrder === undefined && extension === undefined;
    let type: string;
    let pieces: Array<[string, string]> = [];
    let direct: string | undefined;
    switch (event.type) {
      case 'session.start': {
        const v = nhProtocolVersion(event.protocol, own);
        type = 'session_created';
        pieces = [
          ['v', formatInteger(v, 'session.start.protocol', FORMAT)],
          ['actor', str(event.actor ?? 'user', 'session.start.actor')],
          ['mode', str(event.mode ?? 'default', 'session.start.mode')],
        ];
        if (event.title !== undefined) pieces.push(['title', str(event.title, 'session.start.title')]);
        if (event.producer !== undefined)
          pieces.push(['producer', str(event.producer, 'session.start.producer')]);
        break;
      }
      case 'session.title':
        type = 'title';
        pieces = [['title', str(event.title, 'session.title.title')]];
        break;
      case 'run.start':
        this.turn = event.run ?? (this.options.idSource ?? defaultId)();
        if (event.round === undefined) this.hop = 1;
        this.calls = [];
        type = 'turn_started';
        pieces = [['input', str(event.input ?? '', 'run.start.input')]];
        break;
      case 'text.delta':
        type = 'token';
        if (plain) {
          direct = nhTokenPayload(
            formatInteger(this.hop, 'round', FORMAT),
            str(event.text, 'text.delta.text'),
          );
        } else pieces = [this.hopPiece(), ['text', str(event.text, 'text.delta.text')]];
        break;
      case 'status':
        type = 'progress';
        pieces = [['status', str(event.status, 'status.status')]];
        if (event.detail !== undefined) pieces.push(['detail', str(event.detail, 'status.detail')]);
        break;
      case 'compaction.start':
        type = 'progress';
        pieces = [['status', '"compacting"']];
        break;
      case 'tool.start':
        this.calls.push(event.call);
        type = 'tool_started';
        pieces = [
          this.hopPiece(),
          ['call_id', str(event.call, 'tool.start.call')],
          ['tool', str(event.name, 'tool.start.name')],
          ['args', json(event.args ?? {}, 'tool.start.args')],
        ];
        if (event.command !== undefined) pieces.push(['command', str(event.command, 'tool.start.command')]);
        // A summary that is only the arguments' compact JSON (HEP `events=full`) says nothing more.
        if (
          event.argsSummary !== undefined &&
          (own || event.args === undefined || event.argsSummary !== JSON.stringify(event.args))
        )
          pieces.push(['args_summary', str(event.argsSummary, 'tool.start.argsSummary')]);
        break;
      case 'tool.output':
        type = 'output';
        if (plain) {
          direct = nhOutputPayload(
            str(event.call, 'tool.output.call'),
            str(event.stream ?? 'stdout', 'tool.output.stream'),
            str(event.text, 'tool.output.text'),
          );
        } else {
          pieces = [
            ['call_id', str(event.call, 'tool.output.call')],
            ['stream', str(event.stream ?? 'stdout', 'tool.output.stream')],
            ['text', str(event.text, 'tool.output.text')],
          ];
        }
        break;
      case 'tool.end': {
        type = 'tool_result';
        const status = typeof hints.status === 'string' ? hints.status : event.ok ? 'ok' : 'error';
        pieces = [
          this.hopPiece(),
          ['call_id', str(event.call, 'tool.end.call')],
          ['tool', str(event.name ?? '', 'tool.end.name')],
          ['status', str(status, 'tool.end.ok')],
          [
            'exit_code',
            event.exitCode === undefined
              ? 'null'
              : formatInteger(event.exitCode, 'tool.end.exitCode', FORMAT),
          ],
          ['files_changed', strings(event.filesChanged ?? [], 'tool.end.filesChanged')],
        ];
        let output = event.text;
        if (output === undefined && event.result !== undefined) {
          output = typeof event.result === 'string' ? event.result : json(event.result, 'tool.end.result');
        } else if (event.result !== undefined && extension?.result === undefined) {
          this.loss.report(
            event,
            'tool.end.result',
            'tool_result carries one output text; the JSON result was not written',
          );
        }
        if (output !== undefined) pieces.push(['output', str(output, 'tool.end.text')]);
        if (event.error !== undefined && event.error !== null) {
          const error = typeof event.error === 'string' ? event.error : json(event.error, 'tool.end.error');
          pieces.push(['error', str(error, 'tool.end.error')]);
        }
        break;
      }
      case 'approval.request': {
        type = 'approval_required';
        pieces = [['approval_id', str(event.approval, 'approval.request.approval')]];
        if (event.call !== undefined) pieces.push(['call_id', str(event.call, 'approval.request.call')]);
        const options =
          hints.rawOptions !== undefined
            ? json(hints.rawOptions, 'approval.request.options')
            : `[${(event.options ?? [])
                .map((o, i) =>
                  joinRecord(
                    [
                      ['option_id', str(o.id, `approval.request.options[${i}].id`)],
                      ['label', str(o.label, `approval.request.options[${i}].label`)],
                      [
                        'kind',
                        str(
                          o.kind ?? (/^(reject|deny|no)/i.test(o.id) ? 'reject_once' : 'allow_once'),
                          'kind',
                        ),
                      ],
                    ],
                    undefined,
                    encodeValue,
                    FORMAT,
                  ),
                )
                .join(',')}]`;
        pieces.push(
          ['tool', str(event.tool ?? '', 'approval.request.tool')],
          ['title', str(event.title ?? '', 'approval.request.title')],
          ['effects', strings(event.effects ?? [], 'approval.request.effects')],
          ['options', options],
        );
        break;
      }
      case 'approval.resolve':
        type = 'approval_resolved';
        pieces = [
          ['approval_id', str(event.approval, 'approval.resolve.approval')],
          ['decision', str(event.decision, 'approval.resolve.decision')],
          ['by', str(event.by ?? 'user', 'approval.resolve.by')],
        ];
        if (event.option !== undefined)
          pieces.push(['option_id', str(event.option, 'approval.resolve.option')]);
        break;
      case 'question': {
        type = 'ask_user';
        const questions =
          hints.rawQuestions !== undefined
            ? json(hints.rawQuestions, 'question.questions')
            : `[${event.questions
                .map((q, i) => {
                  const qp: Array<[string, string]> = [
                    ['id', str(q.id ?? `q${i + 1}`, `question.questions[${i}].id`)],
                    ['text', str(q.text, `question.questions[${i}].text`)],
                  ];
                  if (q.options !== undefined) {
                    const opts = q.options.map((o) =>
                      joinRecord(
                        [
                          ['option_id', str(o.id, 'question option id')],
                          ['label', str(o.label, 'question option label')],
                        ],
                        undefined,
                        encodeValue,
                        FORMAT,
                      ),
                    );
                    qp.push(['options', `[${opts.join(',')}]`]);
                  }
                  if (q.multiple !== undefined) qp.push(['multiple', q.multiple ? 'true' : 'false']);
                  return joinRecord(qp, undefined, encodeValue, FORMAT);
                })
                .join(',')}]`;
        pieces = [
          ['question_id', str(event.question, 'question.question')],
          ['questions', questions],
        ];
        break;
      }
      case 'child.start':
        type = 'child_started';
        pieces = [['child_id', str(event.child, 'child.start.child')]];
        if (event.name !== undefined) pieces.push(['name', str(event.name, 'child.start.name')]);
        pieces.push(['task', str(event.task ?? '', 'child.start.task')]);
        break;
      case 'child.end':
        type = 'child_done';
        pieces = [
          ['child_id', str(event.child, 'child.end.child')],
          ['status', str(event.status, 'child.end.status')],
        ];
        if (event.result !== undefined) pieces.push(['result', str(event.result, 'child.end.result')]);
        break;
      case 'compaction.end':
        type = 'compacted';
        pieces = [
          ['tokens_freed', formatInteger(event.tokensFreed ?? 0, 'compaction.end.tokensFreed', FORMAT)],
        ];
        break;
      case 'error':
        type = 'error';
        pieces = [
          ['message', str(event.message, 'error.message')],
          ['recoverable', event.fatal ? 'false' : 'true'],
        ];
        if (event.code !== undefined) pieces.push(['code', str(event.code, 'error.code')]);
        break;
      case 'cancel':
        type = 'cancelled';
        pieces = [['by', str(event.by ?? 'user', 'cancel.by')]];
        break;
      case 'run.end':
        type = 'done';
        if (event.answer !== undefined && extension === undefined) {
          this.loss.report(event, 'run.end.answer', 'done carries no answer (the text is in the hops)');
        }
        // done has no `incomplete` (a run the stream left open): the nearest word it has, and
        // the stop reason says which it was.
        if (event.status === 'incomplete')
          this.loss.report(event, 'run.end.status', 'done has no incomplete status: written as failed');
        pieces = [
          ['status', str(event.status === 'incomplete' ? 'failed' : event.status, 'run.end.status')],
          [
            'stop_reason',
            str(
              event.stopReason ?? (event.status === 'completed' ? 'stop' : event.status),
              'run.end.stopReason',
            ),
          ],
          ['usage', this.usage(event.usage, hints.rawUsage)],
        ];
        break;
      case 'round.end': {
        type = 'hop';
        const calls = Array.isArray(hints.toolCalls) ? (hints.toolCalls as string[]) : this.calls;
        pieces = [
          this.hopPiece(),
          ['text', str(event.message, 'round.end.message')],
          ['tool_calls', strings(calls, 'round.end.toolCalls')],
          ['stop_reason', str(event.stopReason ?? 'stop', 'round.end.stopReason')],
          ['usage', this.usage(event.usage, hints.rawUsage)],
        ];
        break;
      }
      case 'unknown':
        return this.unknown(event);
      case 'message.start':
      case 'round.start':
        // Implied by the first token / tool call of a hop.
        return '';
      default:
        this.loss.report(event, event.type, `nativeharness has no event for ${event.type}`);
        return '';
    }

    const sessionLevel = type === 'session_created' || type === 'title';
    const turn = event.run ?? (sessionLevel || hints.turnNull === true ? undefined : this.turn);
    const payload =
      direct ??
      joinRecord(
        pieces,
        {
          extra: extension !== undefined ? { [NH_EXTENSION_KEY]: extension } : hints.payloadExtra,
          order: hints.payloadOrder,
        },
        encodeValue,
        FORMAT,
      );
    const envelope = this.envelope(event, type, turn, payload, own);
    if (event.type === 'run.end') this.turn = undefined;
    if (event.type === 'round.end') {
      this.calls = [];
      if (event.round === undefined) this.hop++;
    }
    return this.frame(envelope.seq, type, envelope.text, hints, true);
  }

  end(): string {
    if (this.framing !== 'json') return '';
    return this.written === 0 ? '[]\n' : '\n]\n';
  }

  private usage(usage: Usage | undefined, raw: unknown): string {
    if (raw !== undefined) return json(raw, 'usage');
    return joinRecord(
      [
        ['input_tokens', formatInteger(usage?.input ?? 0, 'usage.input', FORMAT)],
        ['output_tokens', formatInteger(usage?.output ?? 0, 'usage.output', FORMAT)],
        ['cost_usd', num(usage?.costUsd ?? 0, 'usage.costUsd')],
      ],
      undefined,
      encodeValue,
      FORMAT,
    );
  }

  private nextSeq(seq: number | undefined, type: string): number {
    if (seq !== undefined) {
      if (!Number.isSafeInteger(seq)) formatInteger(seq, `${type}.seq`, FORMAT);
      if (this.lastSeq !== undefined && seq <= this.lastSeq) {
        fail(
          `${type}.seq: seq ${seq} is not above the previous seq ${this.lastSeq}; seq must increase strictly`,
        );
      }
    } else seq = this.lastSeq === undefined ? (this.options.startSeq ?? 1) : this.lastSeq + 1;
    this.lastSeq = seq;
    return seq;
  }

  private envelope(
    event: AgentEvent,
    type: string,
    turn: string | undefined,
    payload: string,
    own: boolean,
  ): { seq: number; text: string } {
    const seq = this.nextSeq(event.seq, event.type);
    const ts = event.ts ?? (this.options.clock ?? Date.now)();
    const workspace = event.workspace ?? this.workspace ?? this.options.workspace ?? 'default';
    this.workspace = workspace;
    const session =
      event.session ?? this.session ?? this.options.session ?? (this.options.idSource ?? defaultId)();
    this.session = session;
    const p = event.provenance;
    if (!own || (p?.extra === undefined && p?.order === undefined)) {
      // The usual envelope, in the pinned key order, built as one string (what joinRecord would
      // give for these pieces without extra keys or another order).
      const t = event.type;
      const tsText = this.tsText(ts, t);
      const text = nhEnvelopeText(
        seq,
        tsText,
        quoteKey(type),
        this.ids.get(workspace, session, turn, t),
        payload,
      );
      return { seq, text };
    }
    const text = joinRecord(
      [
        ['seq', String(seq)],
        ['ts', num(ts, `${event.type}.ts`)],
        ['type', jsonString(type)],
        ['workspace_id', str(workspace, `${event.type}.workspace`)],
        ['session_id', str(session, `${event.type}.session`)],
        ['turn_id', turn === undefined ? 'null' : str(turn, `${event.type}.run`)],
        ['payload', payload],
      ],
      { extra: p?.extra, order: p?.order },
      encodeValue,
      FORMAT,
    );
    return { seq, text };
  }

  // Events of one burst share their ms (a clock's, mostly): print it once.
  private tsText(ts: number, eventType: string): string {
    if (ts === this.lastTs) return this.lastTsText;
    const text = typeof ts === 'number' && Number.isFinite(ts) ? String(ts) : num(ts, `${eventType}.ts`);
    this.lastTs = ts;
    this.lastTsText = text;
    return text;
  }

  // An event type this format has no type for, whole in an `agentwire_event` envelope.
  private extensionEvent(event: AgentEvent, hints: Readonly<Record<string, unknown>>): string {
    const inner: Record<string, unknown> = {};
    for (const key of Object.keys(event)) {
      const value = (event as Record<string, unknown>)[key];
      if (value !== undefined && (key === 'type' || !NH_EXTENSION_ENVELOPE.has(key))) inner[key] = value;
    }
    // The record as it was read when the event still says what it said (its key order kept).
    const kept = hints.extensionEvent;
    const payload = `{"event":${json(kept !== undefined && sameJson(kept, inner) ? kept : inner, `${event.type}`)}}`;
    const turn = event.run ?? (hints.turnNull === true ? undefined : this.turn);
    const envelope = this.envelope(
      event,
      NH_EXTENSION_TYPE,
      turn,
      payload,
      event.provenance?.format === FORMAT,
    );
    return this.frame(envelope.seq, NH_EXTENSION_TYPE, envelope.text, hints, true);
  }

  private unknown(event: AgentEvent & { type: 'unknown' }): string {
    const r = event.record;
    if (!isJsonObject(r) || typeof r.type !== 'string' || event.provenance?.format !== FORMAT) {
      this.loss.report(
        event,
        'unknown.record',
        'only nativeharness envelopes can be written back as records',
      );
      return '';
    }
    const seq = this.nextSeq(typeof r.seq === 'number' ? r.seq : undefined, 'unknown.record');
    const text = json(r.seq === seq ? r : { ...r, seq }, 'unknown.record');
    return this.frame(seq, r.type, text, (event.provenance.hints as NhHints | undefined) ?? NO_HINTS);
  }

  // `ownType`: `type` is one of this format's event types (not a name read from a record).
  private frame(seq: number, type: string, text: string, hints: Readonly<NhHints>, ownType = false): string {
    const n = this.written++;
    switch (this.framing) {
      case 'jsonl':
        return `${text}\n`;
      case 'json':
        return n === 0 ? `[\n${text}` : `,\n${text}`;
      case 'sse': {
        // The usual event: the id is the seq's digits and the event name one of this format's
        // types, neither of which can hold CR, LF or NUL, so nothing needs checking.
        if (
          ownType &&
          hints.sseId === undefined &&
          hints.sseEvent === undefined &&
          (n > 0 || this.options.retry === undefined)
        ) {
          return `id: ${seq}\nevent: ${type}\ndata: ${text}\n\n`;
        }
        const id =
          hints.sseId === null ? undefined : typeof hints.sseId === 'string' ? hints.sseId : String(seq);
        const ev =
          hints.sseEvent === null ? undefined : typeof hints.sseEvent === 'string' ? hints.sseEvent : type;
        const retry =
          n === 0 && this.options.retry !== undefined
            ? `retry: ${formatInteger(this.options.retry, 'retry', FORMAT)}\n\n`
            : '';
        return retry + formatSseJsonEvent(id, ev, text);
      }
    }
  }
}
