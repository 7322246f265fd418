import { type ChunkDecoder, type DecodeOptions, lineChunkDecoder, type RecordDecoder } from '../../codec';
import { type DiagnosticCode, type DiagnosticSink, diagnosticAt, type Severity } from '../../diagnostics';
import { JsonArrayReader } from '../../framing/json-array';
import {
  DEFAULT_MAX_EVENT_BYTES,
  endSse,
  newSseState,
  pushSse,
  type SseHandler,
  type SseMessage,
  type SseState,
  sseBlockId,
  sseBlockLine,
  sseBlockOffset,
  sseReaderOptions,
} from '../../framing/sse';
import { nonFiniteReads } from '../../guards';
import {
  DEFAULT_MAX_DEPTH,
  DEPTH_PRECHECK_CHARS,
  isJsonObject,
  type JsonObject,
  mayHoldUnsafeNumber,
  NOT_PARSED,
  nonFiniteDiagnostic,
  parseJsonLine,
  parseRecordText,
  readStringToken,
  refuseTooDeep,
  resolveMaxDepth,
  setOwn,
  unsafeNumberMessage,
  valueTooDeep,
} from '../../json';
import type { AgentEvent, AgentEventOf, Choice, Provenance, QuestionItem, Usage } from '../../model';
import { isAgentEvent } from '../../model-guard';
import { incompleteRunEnd, provenanceOf, splitRecord } from '../../record';
import { readDigits, readFixed, readPlainString, type TextReader, textReader } from '../../text-reader';
import {
  DELIVERED,
  FACT_HINTS,
  FACT_PROVENANCE,
  FACT_ROUND,
  FACT_SEQ,
  FACT_SESSION,
  FACT_TS,
  FACT_TURN,
  FACT_WORKSPACE,
  HOP,
  HOP_TURN,
  LAST_SEQ,
  MID_HOP,
  MID_SESSION,
  MID_TURN,
  MID_WORKSPACE,
  OPEN_TURNS,
  SCRATCH_HINTS,
  SEQ_LAST,
  SEQ_SESSION,
  SINK,
  TOKEN_HOP,
  TOKEN_MID,
  TOKEN_SESSION,
  TOKEN_TURN,
} from './slots';
import {
  NH,
  NH_ABSENT_DEFAULTS,
  NH_APPROVAL_OPTION_KEYS,
  NH_ENVELOPE_KEYS,
  NH_EXTENSION_ABSENT,
  NH_EXTENSION_ENVELOPE,
  NH_EXTENSION_KEY,
  NH_EXTENSION_TYPE,
  NH_FRAMING_DETECT_LIMIT,
  NH_PROTOCOL_VERSION,
  NH_QUESTION_KEYS,
  NH_QUESTION_OPTION_KEYS,
  NH_USAGE_KEYS,
  type NhEventType,
  type NhFraming,
  type NhHints,
  nhEventSpec,
  sniffNhFraming,
  validateNhEnvelope,
  validateNhEventPayload,
} from './wire';

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

const FORMAT = NH;

// A turn whose `turn_started` was read and whose `done` was not (yet).
interface OpenTurn {
  session: string;
  workspace: string;
  turn: string;
}

/** One record's JSON text, where it came from, and where its events go. */
export interface NhRecordSource {
  text: string;
  /** 1-based line (or first line of the SSE block, or of the array element). */
  line: number;
  /** Byte offset of that line. */
  offset: number;
  /** The depth bound the text is parsed under. */
  maxDepth: number;
  out: AgentEvent[];
  /** The SSE block's id and event, for records that came in one. */
  sse: SseOrigin | undefined;
}

/** SSE facts of the block an envelope came in, for checks and byte-exact rewrites. */
export interface SseOrigin {
  id: string | undefined;
  event: string | undefined;
}

/**
 * The envelope decoder's state: an array of named slots (the indices below) in element 0 of the
 * {@link NhEnvelopeDecoder}, which has no named property of its own. A class instance's fields are
 * hidden classes a full GC frees with the last decoder, and every method that read them was
 * thrown away and compiled again inside the next stream; an array's hidden class is the realm's
 * and the instance keeps its class's initial one (docs/performance.md, "nativeharness decoder",
 * round sixteen).
 */
type EnvelopeState = [
  sink: DiagnosticSink,
  lastSeq: Map<string, number>,
  seqSession: string | undefined,
  seqLast: number | undefined,
  // Most events have no hints: one empty object is reused until an event keeps it.
  scratchHints: NhHints,
  // The last envelope's facts, read once and handed to the mapping in these slots (the mapping
  // keeps none of them): `seq` here, the rest from FACT_TS on. Slots, not an object: a reused
  // object's fields change representation when first set (a ts is no small integer), and the map
  // that makes dies at a full GC with the last decoder, taking every function that read it along.
  seq: number,
  hopTurn: string | undefined,
  hop: number | undefined,
  tokenSession: string | undefined,
  tokenTurn: string,
  tokenHop: unknown,
  delivered: number,
  // Turns started and not done, by session and turn id: what `end` closes as incomplete. Touched
  // by turn_started and done only, never by the per-token path.
  openTurns: Map<string, OpenTurn>,
  // The last token envelope's text from after `ts` to the start of its text
  // (`,"type":"token","workspace_id":…,"payload":{"hop":…,"text":`), and the ids and hop it
  // says: every token of a hop has the same ({@link NhEnvelopeDecoder.token}). Empty: none yet.
  tokenMid: string,
  midWorkspace: string,
  midSession: string,
  midTurn: string,
  midHop: number,
  ts: number,
  workspace: string,
  session: string,
  turn: string | null,
  round: number | undefined,
  provenance: Provenance,
  hints: NhHints,
];

/**
 * Maps nativeharness envelopes to canonical events. Framing-independent: the SSE, JSON array
 * and JSON Lines readers all hand it parsed records. Stateful where the protocol is: `seq` must
 * increase per session, `hop` is remembered per turn for events that do not carry it, and the
 * part of a `hop`'s text not yet delivered by `token` events is delivered before its
 * `round.end` (so a replay, which has no tokens, still yields the text).
 */
export class NhEnvelopeDecoder {
  declare private readonly 0: EnvelopeState;

  /** Creates a mapper that reports to `sink`. */
  constructor(sink: DiagnosticSink) {
    (this as unknown as { 0: EnvelopeState })[0] = [
      sink,
      new Map(),
      undefined,
      undefined,
      {},
      0,
      undefined,
      undefined,
      undefined,
      '',
      undefined,
      0,
      new Map(),
      '',
      '',
      '',
      '',
      0,
      0,
      '',
      '',
      null,
      undefined,
      { format: FORMAT, line: 0, offset: 0 },
      {},
    ];
  }

  /** Reports a diagnostic at a place. */
  report(code: DiagnosticCode, severity: Severity, line: number, offset: number, what: string): void {
    this[0][SINK].report(diagnosticAt(code, severity, line, offset, what, FORMAT));
  }

  /**
   * The warning of a record whose reading turned a number past a double's range down, as
   * codec.ts's `readRecord` gives a JSON Lines record's: for the records of SSE and of a JSON
   * array, which no line splitter reads.
   */
  nonFinite(text: string, line: number, offset: number): void {
    this[0][SINK].report(nonFiniteDiagnostic(text, line, offset, FORMAT));
  }

  /**
   * The input ended: every turn still open (a `turn_started` without its `done`: the server died
   * or the log was cut) ends with a synthetic `run.end` of status `incomplete` (docs/model.md,
   * "Run outcome"), which the writer skips. Only a decoder that reads a whole input calls this; a
   * live connection (`connect`) never does, since its turn may still be running.
   */
  end(out: AgentEvent[]): void {
    if (this[0][OPEN_TURNS].size === 0) return;
    const { line, offset } = this[0][FACT_PROVENANCE];
    for (const open of this[0][OPEN_TURNS].values()) {
      const e = incompleteRunEnd(FORMAT, line, offset);
      e.workspace = open.workspace;
      e.session = open.session;
      e.run = open.turn;
      e.ts = this[0][FACT_TS];
      out.push(e);
    }
    this[0][OPEN_TURNS].clear();
  }

  /** One record's JSON text, with where it came from and where its events go. */
  text(source: NhRecordSource): void {
    // Short records are measured only when their shape leaves room for depth (see `record`),
    // so a well-formed event never pays for the scan.
    const value = parseRecordText(
      source.text,
      source.line,
      source.offset,
      source.maxDepth,
      FORMAT,
      this[0][SINK],
    );
    if (value === NOT_PARSED) return;
    this.record(value, source);
  }

  /**
   * One parsed record. A record whose text was not measured before parsing is refused as too
   * deep (before anything else is said of it) when its shape leaves room for depth and the value
   * is deeper than the `maxDepth` it was parsed under.
   */
  private record(value: unknown, source: NhRecordSource): void {
    const { line, offset, out, sse, text } = source;
    if (!isJsonObject(value)) {
      if (!this.refuseDeep(value, source))
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
      this.refuseDeep(value, source)
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
    this.order(session, seq, line, offset);

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
    let hints = this[0][SCRATCH_HINTS];
    // Left over by an event that returned (or threw) early: start from a fresh one.
    for (const _ in hints) {
      hints = this[0][SCRATCH_HINTS] = {};
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
      const e = this.extensionEvent(value, provenance, hints);
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
    const f = this[0];
    f[FACT_SEQ] = seq;
    f[FACT_TS] = ts;
    f[FACT_WORKSPACE] = workspace;
    f[FACT_SESSION] = session;
    f[FACT_TURN] = turn;
    f[FACT_ROUND] = this.roundOf(turn, payload.hop);
    f[FACT_PROVENANCE] = provenance;
    f[FACT_HINTS] = hints;
    const e = this.map(spec.type, payload, out);
    const extension = rest?.extra?.[NH_EXTENSION_KEY];
    if (extension !== undefined) this.mergeExtension(e, extension, line, offset);
    for (const _ in hints) {
      provenance.hints = hints as Record<string, unknown>;
      this[0][SCRATCH_HINTS] = {};
      break;
    }
    out.push(e);
  }

  // `seq` must increase per session: reported when it does not, and remembered.
  private order(session: string, seq: number, line: number, offset: number): void {
    // One session per stream is the rule: a one-entry cache in front of the map.
    let last: number | undefined;
    if (session === this[0][SEQ_SESSION]) last = this[0][SEQ_LAST];
    else {
      if (this[0][SEQ_SESSION] !== undefined && this[0][SEQ_LAST] !== undefined) {
        this[0][LAST_SEQ].set(this[0][SEQ_SESSION], this[0][SEQ_LAST]);
      }
      last = this[0][LAST_SEQ].get(session);
      this[0][SEQ_SESSION] = session;
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
    this[0][SEQ_LAST] = last === undefined ? seq : Math.max(last, seq);
  }

  /**
   * A `token` envelope spelled as the writers spell it (the envelope and the payload in their key
   * order, no space, `seq`, `ts` and `hop` in plain digits, a turn id), in a block whose SSE id is
   * the `seq` (`id` undefined: a JSON Lines record, which has none), read without `JSON.parse` of
   * the record: the fixed text compared in place, the ids compared with the last event's, the
   * text read alone. What {@link record} does with the same envelope, without its checks and key
   * walks (the spelling proves them); false, having done nothing, for any other text, which the
   * caller then parses. test/nativeharness/canonical-token.test.ts holds the two paths equal.
   */
  token(text: string, id: string | undefined, line: number, offset: number, out: AgentEvent[]): boolean {
    const n = text.length;
    // A longer record is measured for depth before it is parsed: left to the general path.
    if (n > DEPTH_PRECHECK_CHARS || text.charCodeAt(n - 1) !== 125 || text.charCodeAt(n - 2) !== 125)
      return false;
    const r = textReader(text);
    if (!readFixed(r, '{"seq":')) return false;
    const seq = readDigits(r);
    if (seq === undefined || (id !== undefined && !isDecimalOf(id, seq)) || !readFixed(r, ',"ts":'))
      return false;
    const ts = readDigits(r);
    if (ts === undefined) return false;
    // The ids and the hop: one compare with the last token's text for them, else read one by one.
    const mid = this[0][TOKEN_MID];
    if (mid.length !== 0 && text.slice(r.at, r.at + mid.length) === mid) r.at += mid.length;
    else if (!this.tokenMid(r)) return false;
    // The text: one string token up to the closing braces.
    const delta = readStringToken(text, r.at, n - 3);
    if (delta === undefined) return false;
    const workspace = this[0][MID_WORKSPACE];
    const session = this[0][MID_SESSION];
    const turn = this[0][MID_TURN];
    const hop = this[0][MID_HOP];
    this.order(session, seq, line, offset);
    const provenance: Provenance = { format: FORMAT, line, offset };
    const f = this[0];
    f[FACT_SEQ] = seq;
    f[FACT_TS] = ts;
    f[FACT_WORKSPACE] = workspace;
    f[FACT_SESSION] = session;
    f[FACT_TURN] = turn;
    // What roundOf does with a hop.
    f[HOP_TURN] = turn;
    f[HOP] = hop;
    f[FACT_ROUND] = hop;
    f[FACT_PROVENANCE] = provenance;
    f[FACT_HINTS] = f[SCRATCH_HINTS];
    this.countToken(session, turn, hop, delta.length);
    out.push({
      type: 'text.delta',
      seq,
      ts,
      workspace,
      session,
      run: turn,
      round: hop,
      text: delta,
      provenance,
    });
    return true;
  }

  // A token envelope's ids and hop, read one by one from the cursor (after `ts`) to its text's
  // opening quote, and remembered with their spelling for the next token (a plain string is its
  // own JSON text between quotes, a hop read by readDigits its own digits).
  private tokenMid(r: TextReader): boolean {
    const f = this[0];
    if (!readFixed(r, ',"type":"token","workspace_id":')) return false;
    const workspace = readPlainString(r, f[FACT_WORKSPACE]);
    if (workspace === undefined || !readFixed(r, ',"session_id":')) return false;
    const session = readPlainString(r, f[FACT_SESSION]);
    if (session === undefined || !readFixed(r, ',"turn_id":')) return false;
    const turn = readPlainString(r, f[FACT_TURN] ?? undefined);
    if (turn === undefined || !readFixed(r, ',"payload":{"hop":')) return false;
    const hop = readDigits(r);
    if (hop === undefined || !readFixed(r, ',"text":')) return false;
    this[0][TOKEN_MID] =
      `,"type":"token","workspace_id":"${workspace}","session_id":"${session}","turn_id":"${turn}","payload":{"hop":${hop},"text":`;
    this[0][MID_WORKSPACE] = workspace;
    this[0][MID_SESSION] = session;
    this[0][MID_TURN] = turn;
    this[0][MID_HOP] = hop;
    return true;
  }

  // An `agentwire_event` envelope (docs/protocols/nativeharness.md "agentwire extension") as the
  // canonical event it carries; undefined (read as an unknown record) when it carries none.
  // `envelope`: the envelope record, checked (its fields read again here: a rare path).
  private extensionEvent(
    envelope: JsonObject,
    provenance: Provenance,
    hints: NhHints,
  ): AgentEvent | undefined {
    const payload = envelope.payload as JsonObject;
    const turn = envelope.turn_id as string | null;
    const inner = payload.event;
    if (!isJsonObject(inner) || typeof inner.type !== 'string' || Object.keys(payload).length !== 1) {
      return undefined;
    }
    const e: JsonObject = {
      type: inner.type,
      seq: envelope.seq,
      ts: envelope.ts,
      workspace: envelope.workspace_id,
      session: envelope.session_id,
    };
    if (turn !== null) e.run = turn;
    for (const key of Object.keys(inner)) {
      if (!NH_EXTENSION_ENVELOPE.has(key)) setOwn(e, key, inner[key]);
    }
    if (!isAgentEvent(e)) {
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
    provenance.hints = hints as Record<string, unknown>;
    this[0][SCRATCH_HINTS] = {};
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
    const absent = extension[NH_EXTENSION_ABSENT];
    // Only an empty default the writer filled in is taken back out; a real value stays.
    if (Array.isArray(absent)) {
      for (const key of absent) {
        if (
          typeof key === 'string' &&
          !NH_EXTENSION_ENVELOPE.has(key) &&
          target[key] === (Object.hasOwn(NH_ABSENT_DEFAULTS, key) ? NH_ABSENT_DEFAULTS[key] : '')
        )
          delete target[key];
      }
    }
    for (const key of Object.keys(extension)) {
      if (key === NH_EXTENSION_ABSENT || NH_EXTENSION_ENVELOPE.has(key) || Object.hasOwn(target, key))
        continue;
      setOwn(target, key, extension[key]);
      added.push(key);
    }
    if (added.length === 0 || isAgentEvent(e)) return;
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
  private refuseDeep(value: unknown, s: NhRecordSource): boolean {
    return (
      valueTooDeep(s.text, value, s.maxDepth) &&
      refuseTooDeep(this[0][SINK], s.line, s.offset, s.maxDepth, FORMAT)
    );
  }

  // Reports the first number JSON.parse cannot keep exactly.
  private checkNumbers(text: string, line: number, offset: number): void {
    const message = unsafeNumberMessage(text);
    if (message !== undefined) this.report('invalid_record', 'error', line, offset, message);
  }

  private roundOf(turn: string | null, hop: unknown): number | undefined {
    if (typeof hop === 'number') {
      this[0][HOP_TURN] = turn ?? undefined;
      this[0][HOP] = hop;
      return hop;
    }
    return turn !== null && turn === this[0][HOP_TURN] ? this[0][HOP] : undefined;
  }

  // The envelope part of an event, built property by property (no object spread: a spread in the
  // middle of a literal takes V8's slow generic path, and this runs once per event).
  private head<T extends AgentEvent['type']>(type: T): AgentEventOf<T> {
    const f = this[0];
    const e = {
      type,
      seq: f[FACT_SEQ],
      ts: f[FACT_TS],
      workspace: f[FACT_WORKSPACE],
      session: f[FACT_SESSION],
    } as unknown as AgentEventOf<T>;
    const turn = f[FACT_TURN];
    const round = f[FACT_ROUND];
    if (turn !== null) e.run = turn;
    if (round !== undefined) e.round = round;
    return e;
  }

  // A token's `length` counted as delivered in its run (session, turn, hop): a new run counts
  // from nought. Where the envelope's token shortcut and the general path each did it.
  private countToken(session: string, turn: string | null, hop: unknown, length: number): void {
    const f = this[0];
    if (!this.sameTokenRun(session, turn, hop)) {
      f[TOKEN_SESSION] = session;
      f[TOKEN_TURN] = turn ?? '';
      f[TOKEN_HOP] = hop;
      f[DELIVERED] = 0;
    }
    f[DELIVERED] += length;
  }

  // Whether a token run (session, turn, hop) is the one whose delivered length is counted.
  private sameTokenRun(session: string, turn: string | null, hop: unknown): boolean {
    // The hop as it came (a validated integer): comparing numbers, not a string made per token.
    return (
      this[0][TOKEN_HOP] === hop && this[0][TOKEN_SESSION] === session && this[0][TOKEN_TURN] === (turn ?? '')
    );
  }

  private map(type: NhEventType, p: JsonObject, out: AgentEvent[]): AgentEvent {
    const f = this[0];
    const seq = f[FACT_SEQ];
    const ts = f[FACT_TS];
    const workspace = f[FACT_WORKSPACE];
    const session = f[FACT_SESSION];
    const turn = f[FACT_TURN];
    const round = f[FACT_ROUND];
    const provenance = f[FACT_PROVENANCE];
    const hints = f[FACT_HINTS];
    switch (type) {
      case 'session_created': {
        const e = this.head('session.start');
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
        const e = this.head('session.title');
        e.title = p.title as string;
        e.provenance = provenance;
        return e;
      }
      case 'turn_started': {
        if (turn !== null) this[0][OPEN_TURNS].set(`${session}\u0000${turn}`, { session, workspace, turn });
        const e = this.head('run.start');
        e.input = p.input as string;
        e.provenance = provenance;
        return e;
      }
      case 'token': {
        const text = p.text as string;
        this.countToken(session, turn, p.hop, text.length);
        // The usual token in one literal: head() and then four fields added one by one cost a
        // property store each and a growing out-of-object property array per event.
        if (turn !== null && round !== undefined) {
          return { type: 'text.delta', seq, ts, workspace, session, run: turn, round, text, provenance };
        }
        const e = this.head('text.delta');
        e.text = text;
        e.provenance = provenance;
        return e;
      }
      case 'progress': {
        const e = this.head('status');
        e.status = p.status as string;
        e.provenance = provenance;
        if (p.detail !== undefined) e.detail = p.detail as string;
        return e;
      }
      case 'tool_started': {
        const e = this.head('tool.start');
        e.call = p.call_id as string;
        e.name = p.tool as string;
        e.args = p.args as Record<string, unknown>;
        e.provenance = provenance;
        if (p.command !== undefined) e.command = p.command as string;
        if (p.args_summary !== undefined) e.argsSummary = p.args_summary as string;
        return e;
      }
      case 'output': {
        const e = this.head('tool.output');
        e.call = p.call_id as string;
        e.stream = p.stream as 'stdout' | 'stderr';
        e.text = p.text as string;
        e.provenance = provenance;
        return e;
      }
      case 'tool_result': {
        const status = p.status as string;
        const e = this.head('tool.end');
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
        this.keepRaw(hints, 'rawOptions', options, options, NH_APPROVAL_OPTION_KEYS);
        const e = this.head('approval.request');
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
        const e = this.head('approval.resolve');
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
          if (splitRecord(q, NH_QUESTION_KEYS) !== undefined) exact = false;
          const item: QuestionItem = { id: q.id as string, text: q.text as string };
          if (q.options !== undefined) {
            const opts = q.options as JsonObject[];
            for (const o of opts) if (splitRecord(o, NH_QUESTION_OPTION_KEYS) !== undefined) exact = false;
            item.options = opts.map((o): Choice => ({ id: o.option_id as string, label: o.label as string }));
          }
          if (q.multiple !== undefined) item.multiple = q.multiple as boolean;
          return item;
        });
        if (!exact) hints.rawQuestions = raw;
        const e = this.head('question');
        e.question = p.question_id as string;
        e.questions = questions;
        e.provenance = provenance;
        return e;
      }
      case 'child_started': {
        const e = this.head('child.start');
        e.child = p.child_id as string;
        e.task = p.task as string;
        e.provenance = provenance;
        if (p.name !== undefined) e.name = p.name as string;
        return e;
      }
      case 'child_done': {
        const e = this.head('child.end');
        e.child = p.child_id as string;
        e.status = p.status as 'completed' | 'failed' | 'cancelled';
        e.provenance = provenance;
        if (p.result !== undefined) e.result = p.result as string;
        return e;
      }
      case 'compacted': {
        const e = this.head('compaction.end');
        e.tokensFreed = p.tokens_freed as number;
        e.provenance = provenance;
        return e;
      }
      case 'error': {
        const e = this.head('error');
        e.message = p.message as string;
        e.fatal = !(p.recoverable as boolean);
        e.provenance = provenance;
        if (p.code !== undefined) e.code = p.code as string;
        return e;
      }
      case 'cancelled': {
        const e = this.head('cancel');
        e.by = p.by as string;
        e.provenance = provenance;
        return e;
      }
      case 'done': {
        if (turn !== null) this[0][OPEN_TURNS].delete(`${session}\u0000${turn}`);
        const e = this.head('run.end');
        e.status = p.status as 'completed' | 'failed' | 'cancelled';
        e.stopReason = p.stop_reason as string;
        e.usage = this.usage(p.usage as JsonObject, hints);
        e.provenance = provenance;
        return e;
      }
      case 'hop': {
        const text = p.text as string;
        const seen = this.sameTokenRun(session, turn, p.hop) ? this[0][DELIVERED] : 0;
        this[0][TOKEN_SESSION] = undefined;
        this[0][DELIVERED] = 0;
        if (seen < text.length) {
          const d = this.head('text.delta');
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
        const e = this.head('round.end');
        e.message = text;
        e.stopReason = p.stop_reason as string;
        e.usage = this.usage(p.usage as JsonObject, hints);
        e.provenance = provenance;
        return e;
      }
    }
  }

  private usage(u: JsonObject, hints: NhHints): Usage {
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
    hints: NhHints,
    hint: 'rawOptions' | 'rawUsage',
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
    if (nhCanonicalTokens.enabled && this.envelopes.token(text, undefined, line, offset, out)) return;
    this.envelopes.text({ text, line, offset, maxDepth: this.maxDepth, out, sse: undefined });
  }

  end(out: AgentEvent[]): void {
    this.envelopes.end(out);
  }
}

/** Handles SSE messages: envelopes, the `gap` signal, and whatever else a server sends. */
export class NhSseMessageDecoder {
  // What a message is read with (the envelope decoder, the depth bound, and the current call's
  // output array) in element 0: no named property, so every instance keeps the class's initial
  // hidden class across a full GC (see EnvelopeState).
  declare private readonly 0: SseTarget;

  /** Creates an SSE message decoder over `envelopes`. */
  constructor(envelopes: NhEnvelopeDecoder, maxDepth: number = DEFAULT_MAX_DEPTH) {
    const self = this as unknown as { 0: SseTarget };
    self[0] = [envelopes, maxDepth, NO_OUT];
  }

  /** One dispatched SSE event. */
  message(m: SseMessage, out: AgentEvent[]): void {
    const t = this[0];
    t[2] = out;
    sseMessage(t, m.id, m.event, m.data, m.line, m.offset);
    // Not held past the call.
    t[2] = NO_OUT;
  }
}

// What an SseTarget's output slot holds between calls (nothing is pushed to it).
const NO_OUT: AgentEvent[] = [];

// One SSE event (`t`: what it is read with) at `line` and `offset`: a `gap` signal, a token read
// from its text, or an envelope parsed.
function sseMessage(
  t: SseTarget,
  id: string | undefined,
  event: string | undefined,
  data: string,
  line: number,
  offset: number,
): void {
  const envelopes = t[0];
  // As codec.ts's readRecord: one warning for a record whose reading turned a non-finite number down.
  const seen = nonFiniteReads();
  if (event === 'gap') gapSignal(envelopes, t[1], data, line, offset);
  else if (
    event !== 'token' ||
    id === undefined ||
    !nhCanonicalTokens.enabled ||
    !envelopes.token(data, id, line, offset, t[2])
  )
    envelopes.text({ text: data, line, offset, maxDepth: t[1], out: t[2], sse: { id, event } });
  if (nonFiniteReads() !== seen) envelopes.nonFinite(data, line, offset);
}

// The server's `gap` signal (its data `{after, next}` when it is that): a warning.
function gapSignal(
  envelopes: NhEnvelopeDecoder,
  maxDepth: number,
  data: string,
  line: number,
  offset: number,
): void {
  let detail = data;
  const parsed = parseJsonLine(data, line, offset, maxDepth, FORMAT);
  if (parsed.ok && isJsonObject(parsed.value)) {
    const { after, next } = parsed.value;
    detail = `events after seq ${String(after)} are no longer available; the stream resumes at seq ${String(next)}`;
  }
  envelopes.report('gap', 'warning', line, offset, `the server signalled a gap: ${detail}`);
}

/**
 * Test hook: `enabled: false` reads every envelope with `JSON.parse`, so that
 * test/nativeharness/canonical-token.test.ts can hold {@link NhEnvelopeDecoder.token} equal to it.
 */
export const nhCanonicalTokens: { enabled: boolean } = { enabled: true };

/**
 * What an SSE event of one decoded stream is read with: the envelope decoder, the depth bound,
 * and the array the current chunk's events go to. Slots, for the reason EnvelopeState gives.
 */
type SseTarget = [envelopes: NhEnvelopeDecoder, maxDepth: number, out: AgentEvent[]];

// One dispatched SSE event of a decoded stream, read as NhSseMessageDecoder reads a message
// (without the message object): its id, line and offset in the reader's state.
function sseEvent(t: SseTarget, s: SseState, event: string | undefined, data: string): void {
  sseMessage(t, sseBlockId(s), event, data, sseBlockLine(s), sseBlockOffset(s));
}

// The SSE reader's diagnostics and `retry` fields: the sink's report, and nothing (a decoder of
// a whole input does not reconnect).
function sseHandler(sink: DiagnosticSink): Omit<SseHandler, 'message'> {
  return { diagnostic: (d) => sink.report(d) };
}

function framedDecoder(framing: NhFraming, options: NhDecodeOptions, sink: DiagnosticSink): ChunkDecoder {
  const envelopes = new NhEnvelopeDecoder(sink);
  const maxDepth = resolveMaxDepth(options.maxDepth);
  if (framing === 'jsonl') {
    return lineChunkDecoder(FORMAT, 'jsonl', options, sink, new NhJsonlRecordDecoder(envelopes, maxDepth));
  }
  if (framing === 'json') {
    let target: AgentEvent[] = [];
    const reader = new JsonArrayReader(
      {
        element: (text, line, offset) => {
          // As codec.ts's readRecord: one warning for an element whose reading turned a
          // non-finite number down.
          const seen = nonFiniteReads();
          envelopes.text({ text, line, offset, maxDepth, out: target, sse: undefined });
          if (nonFiniteReads() !== seen) envelopes.nonFinite(text, line, offset);
        },
        diagnostic: (d) => sink.report(d),
      },
      { format: FORMAT, maxElementBytes: options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES },
    );
    return {
      push(chunk, out) {
        target = out;
        reader.push(chunk);
      },
      end(out) {
        target = out;
        if (options.incompleteLine !== 'hold') {
          reader.end();
          envelopes.end(out);
        }
      },
    };
  }
  const target: SseTarget = [envelopes, maxDepth, []];
  // sseEvent is the same function for every stream (newSseState): a function made per stream
  // would be the call target the reader's optimised code embeds, and would die with the stream.
  const reader = newSseState(sseHandler(sink), sseEvent, target, sseReaderOptions(FORMAT, options));
  return {
    push(chunk, out) {
      target[2] = out;
      pushSse(reader, chunk);
    },
    end(out) {
      target[2] = out;
      if (options.incompleteLine !== 'hold') {
        endSse(reader);
        envelopes.end(out);
      }
    },
  };
}

/** The chunk decoder of nativeharness: the given framing, or the one the first bytes show. */
export function createNhChunkDecoder(options: NhDecodeOptions, sink: DiagnosticSink): ChunkDecoder {
  if (options.framing !== undefined) return framedDecoder(options.framing, options, sink);
  let inner: ChunkDecoder | undefined;
  let held: Array<Uint8Array | string> = [];
  let position = 0;
  const choose = (framing: NhFraming, out: AgentEvent[]): ChunkDecoder => {
    const decoder = framedDecoder(framing, options, sink);
    for (const chunk of held) decoder.push(chunk, out);
    held = [];
    return decoder;
  };
  return {
    push(chunk, out) {
      if (inner !== undefined) return inner.push(chunk, out);
      const found = sniffNhFraming(chunk, position);
      position += chunk.length;
      held.push(typeof chunk === 'string' ? chunk : chunk.slice());
      if (found !== 'blank') inner = choose(found, out);
      else if (position > NH_FRAMING_DETECT_LIMIT) inner = choose('sse', out);
    },
    end(out) {
      if (inner === undefined) {
        if (held.length === 0) return;
        inner = choose('sse', out);
      }
      inner.end(out);
    },
  };
}
