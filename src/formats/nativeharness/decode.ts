import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type Diagnostic, type DiagnosticSink, diagnosticAt } from '../../diagnostics';
import {
  DEFAULT_MAX_DEPTH,
  isJsonObject,
  type JsonObject,
  mayHoldUnsafeNumber,
  NOT_PARSED,
  parseJsonLine,
  parseRecordText,
  refuseDeepValue,
  resolveMaxDepth,
  setOwn,
  unsafeNumberMessage,
} from '../../json';
import {
  type AgentEvent,
  type AgentEventOf,
  type Choice,
  type Provenance,
  type QuestionItem,
  type Usage,
  validateEvent,
} from '../../model';
import { provenanceOf, splitRecord } from '../../record';
import { decodeUtf8, encodeUtf8, isValidUtf8 } from '../../utf8';
import {
  NH_ENVELOPE_KEYS,
  NH_EXTENSION_ENVELOPE,
  NH_EXTENSION_KEY,
  NH_EXTENSION_TYPE,
  NH_PROTOCOL_VERSION,
  NH_USAGE_KEYS,
  type NhEventType,
  nhEventSpec,
  validateNhEnvelope,
  validateNhEventPayload,
} from './schema';
import { DEFAULT_MAX_EVENT_BYTES, type SseMessage, SseReader } from './sse';

/** How the events are framed on the wire. */
export type NhFraming = 'sse' | 'json' | 'jsonl';

/**
 * `id === String(n)` for the validated `seq` (a non-negative integer) without building a string
 * per event: digits only, no leading zero, the same value. Past 15 digits, the plain comparison.
 */
function isDecimalOf(id: string, n: number): boolean {
  const length = id.length;
  if (length === 0 || length > 15 || n > 999_999_999_999_999) return id === String(n);
  if (length > 1 && id.charCodeAt(0) === 48) return false;
  let value = 0;
  for (let i = 0; i < length; i++) {
    const digit = id.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return false;
    value = value * 10 + digit;
  }
  return value === n;
}

/** Options of the nativeharness decoder. */
export interface NhDecodeOptions extends DecodeOptions {
  /** The framing; detected from the first non-blank byte when absent (`[` JSON, `{` JSONL, else SSE). */
  framing?: NhFraming;
  /**
   * Most bytes of one SSE event (all its lines) or one JSON array element. Default
   * {@link DEFAULT_MAX_EVENT_BYTES} (4 MiB). Past it the event is reported as `event_too_large`
   * and discarded; the stream goes on.
   */
  maxEventBytes?: number;
}

const FORMAT = 'nativeharness' as const;

/** SSE facts of the block an envelope came in, for checks and byte-exact rewrites. */
export interface SseOrigin {
  id: string | undefined;
  event: string | undefined;
}

/**
 * Maps nativeharness envelopes to canonical events. Framing-independent: the SSE, JSON array
 * and JSON Lines readers all hand it parsed records. Stateful where the protocol is: `seq` must
 * increase per session, `hop` is remembered per turn for events that do not carry it, and the
 * part of a `hop`'s text not yet delivered by `token` events is delivered before its
 * `round.end` (so a replay, which has no tokens, still yields the text).
 */
export class NhEnvelopeDecoder {
  private readonly sink: DiagnosticSink;
  private readonly lastSeq = new Map<string, number>();
  private seqSession: string | undefined;
  private seqLast: number | undefined;
  // Most events have no hints: one empty object is reused until an event keeps it.
  private scratchHints: Record<string, unknown> = {};
  private hopTurn: string | undefined;
  private hop: number | undefined;
  private tokenSession: string | undefined;
  private tokenTurn = '';
  private tokenHop: unknown;
  private delivered = 0;

  /** Creates a mapper that reports to `sink`. */
  constructor(sink: DiagnosticSink) {
    this.sink = sink;
  }

  /** Reports a diagnostic at a place. */
  report(
    code: Diagnostic['code'],
    severity: Diagnostic['severity'],
    line: number,
    offset: number,
    what: string,
  ): void {
    this.sink.report(diagnosticAt(code, severity, line, offset, what, FORMAT));
  }

  /** One record's JSON text. */
  text(
    text: string,
    line: number,
    offset: number,
    maxDepth: number,
    out: AgentEvent[],
    sse?: SseOrigin,
  ): void {
    // Short records are measured only when their shape leaves room for depth (see `record`),
    // so a well-formed event never pays for the scan.
    const value = parseRecordText(text, line, offset, maxDepth, FORMAT, this.sink);
    if (value === NOT_PARSED) return;
    this.record(value, line, offset, out, sse, text, maxDepth);
  }

  /**
   * One parsed record. With its `text` and the `maxDepth` it was parsed under, a record whose
   * text was not measured before parsing is refused as too deep (before anything else is said of
   * it) when its shape leaves room for depth and the value is deeper.
   */
  record(
    value: unknown,
    line: number,
    offset: number,
    out: AgentEvent[],
    sse?: SseOrigin,
    text?: string,
    maxDepth?: number,
  ): void {
    if (!isJsonObject(value)) {
      if (!this.refuseDeep(text, value, maxDepth, line, offset))
        this.report('invalid_json', 'error', line, offset, 'not a JSON object');
      return;
    }
    const problem = validateNhEnvelope(value);
    // Everything the depth decision needs, before anything is reported.
    const spec = problem === undefined ? nhEventSpec(value.type as string) : undefined;
    const payloadProblem = spec === undefined ? undefined : validateNhEventPayload(spec, value.payload);
    const envelopeRest = problem === undefined ? splitRecord(value, NH_ENVELOPE_KEYS) : undefined;
    const rest =
      spec === undefined || payloadProblem !== undefined
        ? undefined
        : splitRecord(value.payload as JsonObject, spec.keys);
    if (
      (spec === undefined ||
        !spec.flat ||
        payloadProblem !== undefined ||
        envelopeRest !== undefined ||
        rest !== undefined) &&
      this.refuseDeep(text, value, maxDepth, line, offset)
    ) {
      return;
    }
    if (problem !== undefined) {
      this.report('invalid_record', 'error', line, offset, `invalid envelope: ${problem}`);
      return;
    }
    const type = value.type as string;
    const payload = value.payload as JsonObject;
    const seq = value.seq as number;
    const session = value.session_id as string;
    // One session per stream is the rule: a one-entry cache in front of the map.
    let last: number | undefined;
    if (session === this.seqSession) last = this.seqLast;
    else {
      if (this.seqSession !== undefined && this.seqLast !== undefined) {
        this.lastSeq.set(this.seqSession, this.seqLast);
      }
      last = this.lastSeq.get(session);
      this.seqSession = session;
    }
    if (last !== undefined && seq <= last) {
      this.report(
        'order',
        'error',
        line,
        offset,
        `seq ${seq} is not above the previous seq ${last} of session ${JSON.stringify(session)}`,
      );
    }
    this.seqLast = last === undefined ? seq : Math.max(last, seq);

    const provenance: Provenance =
      envelopeRest === undefined
        ? { format: FORMAT, line, offset }
        : provenanceOf(FORMAT, line, offset, envelopeRest);
    // Values no schema checks (tool args, unknown records and fields) may hold numbers JSON.parse
    // rounds or overflows: say so rather than let them change silently (off the hot path).
    const scanned =
      text !== undefined &&
      (envelopeRest?.extra !== undefined ||
        spec === undefined ||
        (spec.type === 'tool_started' && mayHoldUnsafeNumber(payload.args)));
    if (scanned) this.checkNumbers(text, line, offset);
    let hints = this.scratchHints;
    // Left over by an event that returned (or threw) early: start from a fresh one.
    for (const _ in hints) {
      hints = this.scratchHints = {};
      break;
    }
    if (sse !== undefined) {
      if (sse.id === undefined || !isDecimalOf(sse.id, seq)) {
        if (sse.id !== undefined) {
          this.report(
            'invalid_record',
            'warning',
            line,
            offset,
            `SSE id ${JSON.stringify(sse.id)} is not the envelope seq ${seq}`,
          );
        }
        hints.sseId = sse.id ?? null;
      }
      if (sse.event !== type) {
        if (sse.event !== undefined) {
          this.report(
            'invalid_record',
            'warning',
            line,
            offset,
            `SSE event ${JSON.stringify(sse.event)} is not the envelope type ${JSON.stringify(type)}`,
          );
        }
        hints.sseEvent = sse.event ?? null;
      }
    }

    const ts = value.ts as number;
    const workspace = value.workspace_id as string;
    const turn = value.turn_id as string | null;

    if (spec === undefined && type === NH_EXTENSION_TYPE) {
      const e = this.extensionEvent(payload, seq, ts, workspace, session, turn, provenance, hints);
      if (e !== undefined) {
        out.push(e);
        return;
      }
    }
    if (spec === undefined) {
      // The unknown event keeps its historical key order (recordType and record first).
      const e = {
        type: 'unknown',
        recordType: type,
        record: value,
        seq,
        ts,
        workspace,
        session,
      } as AgentEventOf<'unknown'>;
      if (turn !== null) e.run = turn;
      e.provenance = provenance;
      this.report(
        'unknown_record',
        'info',
        line,
        offset,
        `unknown event type ${JSON.stringify(type)}; kept as an unknown event`,
      );
      out.push(e);
      return;
    }
    if (payloadProblem !== undefined) {
      this.report('invalid_record', 'error', line, offset, `invalid ${type} event: ${payloadProblem}`);
      return;
    }
    // Turn-level events outside a turn: the writer would otherwise put the open turn's id.
    if (turn === null && spec.type !== 'session_created' && spec.type !== 'title') hints.turnNull = true;
    if (rest !== undefined) {
      if (rest.extra !== undefined && text !== undefined && !scanned) this.checkNumbers(text, line, offset);
      if (rest.extra !== undefined) hints.payloadExtra = rest.extra;
      if (rest.order !== undefined) hints.payloadOrder = rest.order;
    }
    const round = this.roundOf(turn, payload.hop);
    const e = this.map(spec.type, payload, seq, ts, workspace, session, turn, round, provenance, hints, out);
    const extension = rest?.extra?.[NH_EXTENSION_KEY];
    if (extension !== undefined) this.mergeExtension(e, extension, line, offset);
    for (const _ in hints) {
      provenance.hints = hints;
      this.scratchHints = {};
      break;
    }
    out.push(e);
  }

  // An `agentwire_event` envelope (docs/protocols/nativeharness.md "agentwire extension") as the
  // canonical event it carries; undefined (read as an unknown record) when it carries none.
  private extensionEvent(
    payload: JsonObject,
    seq: number,
    ts: number,
    workspace: string,
    session: string,
    turn: string | null,
    provenance: Provenance,
    hints: Record<string, unknown>,
  ): AgentEvent | undefined {
    const inner = payload.event;
    if (!isJsonObject(inner) || typeof inner.type !== 'string' || Object.keys(payload).length !== 1) {
      return undefined;
    }
    const e: JsonObject = { type: inner.type, seq, ts, workspace, session };
    if (turn !== null) e.run = turn;
    for (const key of Object.keys(inner)) {
      if (!NH_EXTENSION_ENVELOPE.has(key)) setOwn(e, key, inner[key]);
    }
    if (!validateEvent(e).success) {
      this.report(
        'invalid_record',
        'warning',
        provenance.line,
        provenance.offset,
        `${NH_EXTENSION_TYPE} carries no valid canonical event; kept as an unknown event`,
      );
      return undefined;
    }
    const event = e as AgentEvent;
    if (turn === null) hints.turnNull = true;
    hints.extensionEvent = inner;
    provenance.hints = hints;
    this.scratchHints = {};
    event.provenance = provenance;
    return event;
  }

  // The `agentwire` payload key: canonical fields the envelope's type has no place for, added
  // to the decoded event when together they are a valid event (the key stays in the payload's
  // extra keys, so the writer puts it back as it was).
  private mergeExtension(e: AgentEvent, extension: unknown, line: number, offset: number): void {
    if (!isJsonObject(extension)) return;
    const target = e as unknown as JsonObject;
    const added: string[] = [];
    for (const key of Object.keys(extension)) {
      if (NH_EXTENSION_ENVELOPE.has(key) || Object.hasOwn(target, key)) continue;
      setOwn(target, key, extension[key]);
      added.push(key);
    }
    if (added.length === 0 || validateEvent(e).success) return;
    for (const key of added) delete target[key];
    this.report(
      'invalid_record',
      'warning',
      line,
      offset,
      `the ${NH_EXTENSION_KEY} payload key does not fit a ${e.type} event; ignored`,
    );
  }

  // Reports a record deeper than maxDepth, unless its text was measured before it was parsed.
  private refuseDeep(
    text: string | undefined,
    value: unknown,
    maxDepth: number | undefined,
    line: number,
    offset: number,
  ): boolean {
    if (text === undefined || maxDepth === undefined) return false;
    return refuseDeepValue(text, value, line, offset, maxDepth, FORMAT, this.sink);
  }

  // Reports the first number JSON.parse cannot keep exactly.
  private checkNumbers(text: string, line: number, offset: number): void {
    const message = unsafeNumberMessage(text);
    if (message !== undefined) this.report('invalid_record', 'error', line, offset, message);
  }

  private roundOf(turn: string | null, hop: unknown): number | undefined {
    if (typeof hop === 'number') {
      this.hopTurn = turn ?? undefined;
      this.hop = hop;
      return hop;
    }
    return turn !== null && turn === this.hopTurn ? this.hop : undefined;
  }

  // The envelope part of an event, built property by property (no object spread: a spread in the
  // middle of a literal takes V8's slow generic path, and this runs once per event).
  private head<T extends AgentEvent['type']>(
    type: T,
    seq: number,
    ts: number,
    workspace: string,
    session: string,
    turn: string | null,
    round: number | undefined,
  ): AgentEventOf<T> {
    const e = { type, seq, ts, workspace, session } as unknown as AgentEventOf<T>;
    if (turn !== null) e.run = turn;
    if (round !== undefined) e.round = round;
    return e;
  }

  // Whether a token run (session, turn, hop) is the one whose delivered length is counted.
  private sameTokenRun(session: string, turn: string | null, hop: unknown): boolean {
    // The hop as it came (a validated integer): comparing numbers, not a string made per token.
    return this.tokenHop === hop && this.tokenSession === session && this.tokenTurn === (turn ?? '');
  }

  private map(
    type: NhEventType,
    p: JsonObject,
    seq: number,
    ts: number,
    workspace: string,
    session: string,
    turn: string | null,
    round: number | undefined,
    provenance: NonNullable<AgentEvent['provenance']>,
    hints: Record<string, unknown>,
    out: AgentEvent[],
  ): AgentEvent {
    switch (type) {
      case 'session_created': {
        const e = this.head('session.start', seq, ts, workspace, session, turn, round);
        e.protocol = String(p.v);
        e.actor = p.actor as string;
        e.mode = p.mode as string;
        e.provenance = provenance;
        if (p.title !== undefined) e.title = p.title as string;
        if (p.producer !== undefined) e.producer = p.producer as string;
        if (p.v !== NH_PROTOCOL_VERSION) {
          this.report(
            'unsupported_version',
            'error',
            provenance.line,
            provenance.offset,
            `nativeharness protocol version ${String(p.v)} is not supported (this library reads v${NH_PROTOCOL_VERSION}); read on as v${NH_PROTOCOL_VERSION}`,
          );
        }
        return e;
      }
      case 'title': {
        const e = this.head('session.title', seq, ts, workspace, session, turn, round);
        e.title = p.title as string;
        e.provenance = provenance;
        return e;
      }
      case 'turn_started': {
        const e = this.head('run.start', seq, ts, workspace, session, turn, round);
        e.input = p.input as string;
        e.provenance = provenance;
        return e;
      }
      case 'token': {
        if (!this.sameTokenRun(session, turn, p.hop)) {
          this.tokenSession = session;
          this.tokenTurn = turn ?? '';
          this.tokenHop = p.hop;
          this.delivered = 0;
        }
        const text = p.text as string;
        this.delivered += text.length;
        // The usual token in one literal: head() and then four fields added one by one cost a
        // property store each and a growing out-of-object property array per event.
        if (turn !== null && round !== undefined) {
          return { type: 'text.delta', seq, ts, workspace, session, run: turn, round, text, provenance };
        }
        const e = this.head('text.delta', seq, ts, workspace, session, turn, round);
        e.text = text;
        e.provenance = provenance;
        return e;
      }
      case 'progress': {
        const e = this.head('status', seq, ts, workspace, session, turn, round);
        e.status = p.status as string;
        e.provenance = provenance;
        if (p.detail !== undefined) e.detail = p.detail as string;
        return e;
      }
      case 'tool_started': {
        const e = this.head('tool.start', seq, ts, workspace, session, turn, round);
        e.call = p.call_id as string;
        e.name = p.tool as string;
        e.args = p.args as Record<string, unknown>;
        e.provenance = provenance;
        if (p.command !== undefined) e.command = p.command as string;
        if (p.args_summary !== undefined) e.argsSummary = p.args_summary as string;
        return e;
      }
      case 'output': {
        const e = this.head('tool.output', seq, ts, workspace, session, turn, round);
        e.call = p.call_id as string;
        e.stream = p.stream as 'stdout' | 'stderr';
        e.text = p.text as string;
        e.provenance = provenance;
        return e;
      }
      case 'tool_result': {
        const status = p.status as string;
        const e = this.head('tool.end', seq, ts, workspace, session, turn, round);
        e.call = p.call_id as string;
        e.name = p.tool as string;
        e.ok = status === 'ok';
        e.filesChanged = p.files_changed as string[];
        e.provenance = provenance;
        if (status !== 'ok' && status !== 'error') hints.status = status;
        if (p.exit_code !== null) e.exitCode = p.exit_code as number;
        if (p.output !== undefined) e.text = p.output as string;
        if (p.error !== undefined) e.error = p.error as string;
        return e;
      }
      case 'approval_required': {
        const options = p.options as JsonObject[];
        this.keepRaw(hints, 'rawOptions', options, options, ['option_id', 'label', 'kind']);
        const e = this.head('approval.request', seq, ts, workspace, session, turn, round);
        e.approval = p.approval_id as string;
        e.tool = p.tool as string;
        e.title = p.title as string;
        e.effects = p.effects as string[];
        e.options = options.map((o) => ({
          id: o.option_id as string,
          label: o.label as string,
          kind: o.kind as string,
        }));
        e.provenance = provenance;
        if (p.call_id !== undefined) e.call = p.call_id as string;
        return e;
      }
      case 'approval_resolved': {
        const e = this.head('approval.resolve', seq, ts, workspace, session, turn, round);
        e.approval = p.approval_id as string;
        e.decision = p.decision as string;
        e.by = p.by as string;
        e.provenance = provenance;
        if (p.option_id !== undefined) e.option = p.option_id as string;
        return e;
      }
      case 'ask_user': {
        const raw = p.questions as JsonObject[];
        let exact = true;
        const questions = raw.map((q) => {
          if (splitRecord(q, ['id', 'text', 'options', 'multiple']) !== undefined) exact = false;
          const item: QuestionItem = { id: q.id as string, text: q.text as string };
          if (q.options !== undefined) {
            const opts = q.options as JsonObject[];
            for (const o of opts) if (splitRecord(o, ['option_id', 'label']) !== undefined) exact = false;
            item.options = opts.map((o): Choice => ({ id: o.option_id as string, label: o.label as string }));
          }
          if (q.multiple !== undefined) item.multiple = q.multiple as boolean;
          return item;
        });
        if (!exact) hints.rawQuestions = raw;
        const e = this.head('question', seq, ts, workspace, session, turn, round);
        e.question = p.question_id as string;
        e.questions = questions;
        e.provenance = provenance;
        return e;
      }
      case 'child_started': {
        const e = this.head('child.start', seq, ts, workspace, session, turn, round);
        e.child = p.child_id as string;
        e.task = p.task as string;
        e.provenance = provenance;
        if (p.name !== undefined) e.name = p.name as string;
        return e;
      }
      case 'child_done': {
        const e = this.head('child.end', seq, ts, workspace, session, turn, round);
        e.child = p.child_id as string;
        e.status = p.status as 'completed' | 'failed' | 'cancelled';
        e.provenance = provenance;
        if (p.result !== undefined) e.result = p.result as string;
        return e;
      }
      case 'compacted': {
        const e = this.head('compaction.end', seq, ts, workspace, session, turn, round);
        e.tokensFreed = p.tokens_freed as number;
        e.provenance = provenance;
        return e;
      }
      case 'error': {
        const e = this.head('error', seq, ts, workspace, session, turn, round);
        e.message = p.message as string;
        e.fatal = !(p.recoverable as boolean);
        e.provenance = provenance;
        if (p.code !== undefined) e.code = p.code as string;
        return e;
      }
      case 'cancelled': {
        const e = this.head('cancel', seq, ts, workspace, session, turn, round);
        e.by = p.by as string;
        e.provenance = provenance;
        return e;
      }
      case 'done': {
        const e = this.head('run.end', seq, ts, workspace, session, turn, round);
        e.status = p.status as 'completed' | 'failed' | 'cancelled';
        e.stopReason = p.stop_reason as string;
        e.usage = this.usage(p.usage as JsonObject, hints);
        e.provenance = provenance;
        return e;
      }
      case 'hop': {
        const text = p.text as string;
        const seen = this.sameTokenRun(session, turn, p.hop) ? this.delivered : 0;
        this.tokenSession = undefined;
        this.delivered = 0;
        if (seen < text.length) {
          const d = this.head('text.delta', seq, ts, workspace, session, turn, round);
          d.text = text.slice(seen);
          d.provenance = {
            format: FORMAT,
            line: provenance.line,
            offset: provenance.offset,
            synthetic: true,
          };
          out.push(d);
        }
        hints.toolCalls = p.tool_calls;
        const e = this.head('round.end', seq, ts, workspace, session, turn, round);
        e.message = text;
        e.stopReason = p.stop_reason as string;
        e.usage = this.usage(p.usage as JsonObject, hints);
        e.provenance = provenance;
        return e;
      }
    }
  }

  private usage(u: JsonObject, hints: Record<string, unknown>): Usage {
    this.keepRaw(hints, 'rawUsage', u, [u], NH_USAGE_KEYS);
    return {
      input: u.input_tokens as number,
      output: u.output_tokens as number,
      costUsd: u.cost_usd as number,
    };
  }

  // Nested wire objects with unknown keys or another key order are kept whole in the hints, so
  // the writer can reproduce them byte for byte.
  private keepRaw(
    hints: Record<string, unknown>,
    hint: string,
    raw: unknown,
    items: JsonObject[],
    known: readonly string[],
  ): void {
    for (const item of items) {
      if (splitRecord(item, known) !== undefined) {
        hints[hint] = raw;
        return;
      }
    }
  }
}

/** JSON Lines framing: one envelope per line. */
export class NhJsonlRecordDecoder implements RecordDecoder {
  private readonly envelopes: NhEnvelopeDecoder;
  private readonly maxDepth: number;

  /** Creates a line decoder over `envelopes`. */
  constructor(envelopes: NhEnvelopeDecoder, maxDepth: number = DEFAULT_MAX_DEPTH) {
    this.envelopes = envelopes;
    this.maxDepth = maxDepth;
  }

  line(text: string, line: number, offset: number, out: AgentEvent[]): void {
    if (text.length === 0) {
      this.envelopes.report(
        'invalid_json',
        'warning',
        line,
        offset,
        'an empty line (the log has no blank lines); skipped',
      );
      return;
    }
    this.envelopes.text(text, line, offset, this.maxDepth, out);
  }

  end(_out: AgentEvent[]): void {}
}

/**
 * JSON array framing (the `/events` response): a streaming scanner over bytes that cuts the
 * top-level array into elements without holding more than one element, so any layout (compact
 * on one line, one per line, pretty-printed) is read in bounded memory. It scans bytes, not
 * text: JSON's structural characters are ASCII, which never occurs inside a UTF-8 sequence, so
 * byte offsets are exact and an element with invalid UTF-8 is reported at its own place.
 */
export class NhJsonArrayReader {
  private readonly envelopes: NhEnvelopeDecoder;
  private readonly maxDepth: number;
  private readonly maxElementBytes: number;
  private state: 'start' | 'between' | 'element' | 'done' = 'start';
  private buffer: Uint8Array = new Uint8Array(256);
  private bufferBytes = 0;
  private skipping = false;
  private failed = false;
  private depth = 0;
  private inString = false;
  private escape = false;
  private line = 1;
  private byte = 0;
  private elementLine = 1;
  private elementOffset = 0;
  private bomSeen = 0;

  /** Creates an array reader over `envelopes`; elements above `maxElementBytes` are skipped. */
  constructor(envelopes: NhEnvelopeDecoder, maxDepth: number, maxElementBytes: number) {
    this.envelopes = envelopes;
    this.maxDepth = maxDepth;
    this.maxElementBytes = maxElementBytes;
  }

  /** Takes the next chunk (strings are encoded as UTF-8 first). */
  push(chunk: Uint8Array | string, out: AgentEvent[]): void {
    if (this.failed) return;
    const bytes = typeof chunk === 'string' ? encodeUtf8(chunk) : chunk;
    const n = bytes.length;
    let start = 0;
    for (let i = 0; i < n; i++) {
      const c = bytes[i]!;
      // One BOM at byte 0 of the input.
      if (this.byte < 3 && this.bomSeen === this.byte && c === [0xef, 0xbb, 0xbf][this.byte]) {
        this.bomSeen++;
        this.byte++;
        continue;
      }
      if (this.state === 'element') {
        if (this.inString) {
          if (this.escape) this.escape = false;
          else if (c === 92) this.escape = true;
          else if (c === 34) this.inString = false;
        } else if (c === 34) this.inString = true;
        else if (c === 123 || c === 91) this.depth++;
        else if (c === 125 || c === 93) {
          this.depth--;
          if (this.depth === 0) {
            this.append(bytes, start, i + 1);
            this.finishElement(out);
            this.state = 'between';
          } else if (this.depth < 0) {
            // `]` right after a primitive element: the element ends before it, and the array.
            this.append(bytes, start, i);
            this.finishElement(out);
            this.state = 'done';
          }
        } else if (c === 44 && this.depth === 0) {
          this.append(bytes, start, i);
          this.finishElement(out);
          this.state = 'between';
        }
      } else if (c === 32 || c === 9 || c === 13 || c === 10) {
        // whitespace
      } else if (this.state === 'start') {
        if (c === 91) this.state = 'between';
        else this.fail('a JSON array must start with "["');
      } else if (this.state === 'between') {
        if (c === 93) this.state = 'done';
        else if (c !== 44) {
          this.state = 'element';
          this.bufferBytes = 0;
          this.skipping = false;
          this.depth = c === 123 || c === 91 ? 1 : 0;
          this.inString = c === 34;
          this.escape = false;
          this.elementLine = this.line;
          this.elementOffset = this.byte;
          start = i;
        }
      } else if (this.state === 'done') {
        this.fail('content after the end of the JSON array');
      }
      if (this.failed) return;
      this.byte++;
      if (c === 10) this.line++;
    }
    if (this.state === 'element') this.append(bytes, start, n);
  }

  /** Ends the input; an unfinished array is reported. */
  end(): void {
    if (this.state === 'between' || this.state === 'element') {
      this.envelopes.report(
        'incomplete_line',
        'warning',
        this.elementLine,
        this.elementOffset,
        'the input ended inside the JSON array; an unfinished element was not used',
      );
    }
    this.state = 'done';
  }

  private append(bytes: Uint8Array, start: number, end: number): void {
    if (this.skipping || end <= start) return;
    const total = this.bufferBytes + (end - start);
    if (total > this.maxElementBytes) {
      this.skipping = true;
      this.bufferBytes = 0;
      this.envelopes.report(
        'event_too_large',
        'error',
        this.elementLine,
        this.elementOffset,
        `array element too large, > maxEventBytes (${this.maxElementBytes}); the element was skipped`,
      );
      return;
    }
    if (total > this.buffer.length) {
      const grown = new Uint8Array(Math.min(Math.max(total, this.buffer.length * 2), this.maxElementBytes));
      grown.set(this.buffer.subarray(0, this.bufferBytes), 0);
      this.buffer = grown;
    }
    this.buffer.set(bytes.subarray(start, end), this.bufferBytes);
    this.bufferBytes = total;
  }

  private finishElement(out: AgentEvent[]): void {
    if (!this.skipping) {
      const text = decodeUtf8(this.buffer, 0, this.bufferBytes);
      if (text.indexOf('\uFFFD') !== -1 && !isValidUtf8(this.buffer, 0, this.bufferBytes)) {
        this.envelopes.report(
          'invalid_utf8',
          'error',
          this.elementLine,
          this.elementOffset,
          'the array element is not valid UTF-8; the element was skipped',
        );
      } else {
        this.envelopes.text(text.trimEnd(), this.elementLine, this.elementOffset, this.maxDepth, out);
      }
    }
    this.bufferBytes = 0;
    this.skipping = false;
  }

  private fail(what: string): void {
    this.envelopes.report('invalid_json', 'error', this.line, this.byte, `${what}; the rest was not read`);
    this.state = 'done';
    this.failed = true;
  }
}

/** Handles SSE messages: envelopes, the `gap` signal, and whatever else a server sends. */
export class NhSseMessageDecoder {
  private readonly envelopes: NhEnvelopeDecoder;
  private readonly maxDepth: number;

  /** Creates an SSE message decoder over `envelopes`. */
  constructor(envelopes: NhEnvelopeDecoder, maxDepth: number = DEFAULT_MAX_DEPTH) {
    this.envelopes = envelopes;
    this.maxDepth = maxDepth;
  }

  /** One dispatched SSE event. */
  message(m: SseMessage, out: AgentEvent[]): void {
    if (m.event === 'gap') {
      let detail = m.data;
      const parsed = parseJsonLine(m.data, m.line, m.offset, this.maxDepth, FORMAT);
      if (parsed.ok && isJsonObject(parsed.value)) {
        const { after, next } = parsed.value;
        detail = `events after seq ${String(after)} are no longer available; the stream resumes at seq ${String(next)}`;
      }
      this.envelopes.report('gap', 'warning', m.line, m.offset, `the server signalled a gap: ${detail}`);
      return;
    }
    this.envelopes.text(m.data, m.line, m.offset, this.maxDepth, out, m);
  }
}

/** Creates the SSE reader + envelope mapping of one stream. */
export function nhSseDecoder(
  options: NhDecodeOptions,
  envelopes: NhEnvelopeDecoder,
  sink: DiagnosticSink,
  target: { out: AgentEvent[] },
  extra?: { lastEventId?: string; retry?: (ms: number) => void },
): SseReader {
  const messages = new NhSseMessageDecoder(envelopes, resolveMaxDepth(options.maxDepth));
  const readerOptions: ConstructorParameters<typeof SseReader>[1] = {
    format: FORMAT,
    maxEventBytes: options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
  };
  if (options.maxLineBytes !== undefined) readerOptions.maxLineBytes = options.maxLineBytes;
  if (extra?.lastEventId !== undefined) readerOptions.lastEventId = extra.lastEventId;
  return new SseReader(
    {
      message: (m) => messages.message(m, target.out),
      diagnostic: (d) => sink.report(d),
      retry: (ms) => extra?.retry?.(ms),
    },
    readerOptions,
  );
}
