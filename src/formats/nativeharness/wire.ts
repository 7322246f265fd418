import type * as z from 'zod/mini';
import type { Detection } from '../../detect';
import { isBomByte, isBomChar } from '../../framing/bom';
import {
  isFiniteNumber,
  isInt,
  isObjectValue,
  isOptionalString,
  isPlainRecord,
  isStringArray,
  type Shape,
  shape,
  shapeProblems,
} from '../../guards';
import { formatInteger, isJsonObject, type JsonObject, unencodable } from '../../json';
import type { NhEnvelope, NhPayloads } from './schema';

// Every byte rule of nativeharness v1 (docs/protocols/nativeharness.md): the envelope and the
// payloads with their zod schemas (the source of the wire types and of the reports) and guards,
// the key orders (nested ones too), the protocol version, the payload and envelope templates,
// the framing rule and the sniffing rule `detectFormat` calls, and what the decoder leaves in
// `provenance.hints` for the writer. SSE itself is src/framing/sse.ts.

/** The format id. */
export const NH = 'nativeharness' as const;

/** How the events are framed on the wire: SSE (`/stream`), a JSON array (`/events`), JSON Lines (the log). */
export type NhFraming = 'sse' | 'json' | 'jsonl';

/** The protocol major version this library reads and writes (`session_created.payload.v`). */
export const NH_PROTOCOL_VERSION = 1;

/**
 * agentwire's extension (docs/protocols/nativeharness.md "agentwire extension"), written only
 * when the writer's `extensions` option is on: an event this format has no type for travels
 * whole as an envelope of this type, its payload `{"event": {…}}` (the canonical event without
 * `seq`, `ts`, `workspace`, `session`, `run`: the envelope has them). The decoder leaves the
 * payload's `event` as read in `provenance.hints.extensionEvent`, for the writer.
 */
export const NH_EXTENSION_TYPE = 'agentwire_event';

/**
 * The payload key of the extension on the format's own types: an object of the canonical
 * fields the type has no place for (`lane`, `kind`, `reason`, …). It stays in the payload's
 * extra keys (`hints.payloadExtra`), so the writer puts it back as it was.
 */
export const NH_EXTENSION_KEY = 'agentwire';

/**
 * Inside the extension key: the fields the wire type requires but the canonical event did not
 * have (written as their empty default, e.g. `child_started` `task: ""`); a reader removes them.
 */
export const NH_EXTENSION_ABSENT = 'absent';

/**
 * Per event type, the one canonical field its wire type requires and the event may lack, with the
 * default the writer fills in (`child_started.task` `""`, `hop.stop_reason` `stop`). With the
 * extension on, the field is then named in the {@link NH_EXTENSION_ABSENT} list.
 */
export const NH_DEFAULTED_FIELDS: Readonly<Partial<Record<string, readonly [field: string, value: string]>>> =
  {
    'child.start': ['task', ''],
    'round.end': ['stopReason', 'stop'],
  };

/**
 * The default of each field {@link NH_DEFAULTED_FIELDS} names: the reader takes a field of the
 * {@link NH_EXTENSION_ABSENT} list back out only when it still holds this value (`""` for a field
 * not named here).
 */
export const NH_ABSENT_DEFAULTS: Readonly<Record<string, string>> = /* @__PURE__ */ Object.fromEntries(
  /* @__PURE__ */ Object.values(NH_DEFAULTED_FIELDS).map((entry) => entry!),
);

/** Envelope-level fields of a canonical event, never written inside the extension. */
export const NH_EXTENSION_ENVELOPE: ReadonlySet<string> = /* @__PURE__ */ new Set([
  'type',
  'seq',
  'ts',
  'workspace',
  'session',
  'run',
  'provenance',
]);

/** Every event type of nativeharness v1 (the seed's 17 plus `hop`). */
export type NhEventType = keyof typeof NhPayloads;

/** The payload of one event type. */
export type NhPayload<T extends NhEventType> = z.infer<(typeof NhPayloads)[T]>;

/** The envelope as decoded. */
export type NhEnvelopeRecord = z.infer<typeof NhEnvelope>;

/** Envelope key order, as writers emit it. */
export const NH_ENVELOPE_KEYS: readonly string[] = [
  'seq',
  'ts',
  'type',
  'workspace_id',
  'session_id',
  'turn_id',
  'payload',
];

/** Key order inside `usage`. */
export const NH_USAGE_KEYS: readonly string[] = ['input_tokens', 'output_tokens', 'cost_usd'];

/** Key order of an approval option (`approval_required.options[]`). */
export const NH_APPROVAL_OPTION_KEYS: readonly string[] = ['option_id', 'label', 'kind'];
/** Key order of a question (`ask_user.questions[]`). */
export const NH_QUESTION_KEYS: readonly string[] = ['id', 'text', 'options', 'multiple'];
/** Key order of a question's option. */
export const NH_QUESTION_OPTION_KEYS: readonly string[] = ['option_id', 'label'];

/**
 * The version a writer puts in `session_created.payload.v`: the event's own `protocol` when it
 * came from this format and is a plain integer, else {@link NH_PROTOCOL_VERSION}.
 */
export function nhProtocolVersion(protocol: string | undefined, own: boolean): number {
  return own && protocol !== undefined && /^\d+$/.test(protocol) ? Number(protocol) : NH_PROTOCOL_VERSION;
}

/** A `token` payload as writers spell it (`hop` digits, `text` a JSON string). */
export function nhTokenPayload(hop: string, text: string): string {
  return `{"hop":${hop},"text":${text}}`;
}

/** An `output` payload as writers spell it (every value already JSON). */
export function nhOutputPayload(call: string, stream: string, text: string): string {
  return `{"call_id":${call},"stream":${stream},"text":${text}}`;
}

/**
 * An envelope in the pinned key order: `ids` is the `,"workspace_id":…,"session_id":…,
 * "turn_id":…,"payload":` piece, `type` a JSON string, the rest JSON values.
 */
export function nhEnvelopeText(seq: string, ts: string, type: string, ids: string, payload: string): string {
  return `{"seq":${seq},"ts":${ts},"type":${type}${ids}${payload}}`;
}

/**
 * The event types the writer frames by {@link nhSseEnvelope}, each with its `head` and
 * `typeIds` prefix ({@link nhTypeIds}). Indices, not names: the writer keeps a piece per type.
 */
export const NH_SSE_PLAIN_TYPES = ['token', 'output', 'tool_started', 'tool_result', 'hop'] as const;

/** One of {@link NH_SSE_PLAIN_TYPES}, by its index. */
export type NhSsePlainType = 0 | 1 | 2 | 3 | 4;

// One flat string: `join` copies the pieces into one, where `+` made a rope that a sink walks
// piece by piece on every block it flattens.
function flat(pieces: readonly string[]): string {
  return pieces.join('');
}

/**
 * The SSE block's text between the `id` line's seq and the envelope's seq, per type of
 * {@link NH_SSE_PLAIN_TYPES}: `\nevent: <type>\ndata: {"seq":`, each one flat string.
 */
export const NH_SSE_HEADS: readonly string[] = /* @__PURE__ */ NH_SSE_PLAIN_TYPES.map((t) =>
  flat(['\nevent: ', t, '\ndata: {"seq":']),
);

/**
 * The envelope's type and ids as one flat piece: `,"type":"<type>"` then `ids` (the
 * `,"workspace_id":…,"payload":` piece of {@link nhEnvelopeText}). A writer keeps it per type
 * while the ids stay the same.
 */
export function nhTypeIds(type: NhSsePlainType, ids: string): string {
  return flat([',"type":"', NH_SSE_PLAIN_TYPES[type], '"', ids]);
}

/**
 * An envelope of a type of {@link NH_SSE_PLAIN_TYPES} as the SSE block the writer frames it in:
 * the same text as `id: <seq>\nevent: <type>\ndata: ` + {@link nhEnvelopeText} + a blank line,
 * from fewer pieces (`head` from {@link NH_SSE_HEADS}, `typeIds` from
 * {@link nhTypeIds}). The sink that writes the block flattens it, at a cost per piece.
 */
export function nhSseEnvelope(
  seq: string,
  ts: string,
  head: string,
  typeIds: string,
  payload: string,
): string {
  return `id: ${seq}${head}${seq},"ts":${ts}${typeIds}${payload}}\n\n`;
}

/**
 * A `token` envelope's text from its type to its text's opening quote, as one flat piece:
 * {@link nhTypeIds} of the token's type, then {@link nhTokenPayload} up to the text (`{"hop":<hop>,"text":"`),
 * each spelled once there. A writer keeps it while the ids and the hop stay the same (the tokens
 * of a hop).
 */
export function nhTokenHead(ids: string, hop: string): string {
  // The payload with an empty text, less its closing quote and brace: the part before the text.
  const payload = nhTokenPayload(hop, '""');
  return flat([nhTypeIds(0, ids), payload.slice(0, -2)]);
}

/**
 * A `token` envelope SSE-framed, for a text that JSON spells as itself between quotes (nothing
 * in it to escape): the same text as {@link nhSseEnvelope} of the token's type with
 * {@link nhTokenPayload}, from fewer pieces (`head` from {@link NH_SSE_HEADS}, `tokenHead` from
 * {@link nhTokenHead}, `text` the delta without quotes).
 */
export function nhSseToken(seq: string, ts: string, head: string, tokenHead: string, text: string): string {
  return `id: ${seq}${head}${seq},"ts":${ts}${tokenHead}${text}"}}\n\n`;
}

/**
 * Whether `value` can be an SSE `id` or `event` line's value: none holds CR, LF or NUL (what the
 * SSE formatter refuses). The writer asks it of the names kept in hints before the write begins.
 */
export function nhSseNameWritable(value: string): boolean {
  return !/[\r\n\0]/.test(value);
}

/**
 * The SSE `retry` block the writer puts before its first event: `ms` as ASCII digits, the only
 * spelling an SSE reader takes (it ignores `-1`, `1.5`, `1e3`). Throws an `AgentwireError`
 * (`unencodable`) for any other `ms`: the writer asks it when it is made, before any write.
 */
export function nhSseRetry(ms: number): string {
  const digits = formatInteger(ms, 'retry', NH);
  if (ms < 0) throw unencodable(`retry: ${digits} is no wait an SSE reader takes (ASCII digits only)`, NH);
  return `retry: ${digits}\n\n`;
}

/**
 * What the nativeharness decoder leaves in `provenance.hints` for the nativeharness writer: the
 * typed contract between the two (writers never import decoders). Most events carry none.
 */
export interface NhHints {
  /** The SSE `id` when it was not the envelope's `seq` (`null`: the block had no id). */
  sseId?: string | null;
  /** The SSE `event` when it was not the envelope's `type` (`null`: the block had none). */
  sseEvent?: string | null;
  /** A turn-level event written with `turn_id: null` (outside a turn). */
  turnNull?: true;
  /** Payload fields the mapping has no slot for, in their order. */
  payloadExtra?: JsonObject;
  /** The payload's key order, when not the writers' order. */
  payloadOrder?: string[];
  /** A `tool_result` status the model's `ok` cannot tell (`denied`, `cancelled`). */
  status?: string;
  /** `approval_required.options` as written, when an option has keys of its own or another order. */
  rawOptions?: unknown;
  /** `ask_user.questions` as written (same rule). */
  rawQuestions?: unknown;
  /** `usage` as written (same rule). */
  rawUsage?: unknown;
  /** `hop.tool_calls`: the call ids of the hop. */
  toolCalls?: unknown;
  /** An {@link NH_EXTENSION_TYPE} envelope's `payload.event` as read (written back while the event still says it). */
  extensionEvent?: unknown;
}

// Hand-written guards: one for the envelope and one per payload type. Each accepts exactly what
// its schema accepts on JSON values (test/nativeharness/guards.test.ts holds every guard alone
// equal to its schema with fast-check); a rejected record's report is written from its shape
// (NH_ENVELOPE_SHAPE, PAYLOAD_FIELDS). zod's check of `payload: z.record(...)` would walk
// every payload key with a propertyIsEnumerable call each; a parsed JSON object needs no walk.

/** The envelope's guard: true exactly when {@link NhEnvelope} accepts `r`. */
export function isValidEnvelope(r: Record<string, unknown>): boolean {
  const seq = r.seq;
  const turn = r.turn_id;
  return (
    isInt(seq) &&
    (seq as number) >= 0 &&
    isFiniteNumber(r.ts) &&
    typeof r.type === 'string' &&
    typeof r.workspace_id === 'string' &&
    typeof r.session_id === 'string' &&
    (turn === null || typeof turn === 'string') &&
    isPlainRecord(r.payload)
  );
}

function isValidUsage(u: unknown): boolean {
  return isObjectValue(u) && isInt(u.input_tokens) && isInt(u.output_tokens) && isFiniteNumber(u.cost_usd);
}

function isValidToken(p: JsonObject): boolean {
  return isInt(p.hop) && typeof p.text === 'string';
}

function isValidOutput(p: JsonObject): boolean {
  return (
    typeof p.call_id === 'string' &&
    (p.stream === 'stdout' || p.stream === 'stderr') &&
    typeof p.text === 'string'
  );
}

/**
 * The guards of the frequent payload types: true exactly when the type's schema accepts the
 * payload. The other types (a few records a turn) are checked by their shape alone, which also
 * writes the report of a payload it rejects: a second spelling of each would cost a reader's
 * bundle its bytes (issue #16) for records too rare to time.
 */
export const NH_PAYLOAD_GUARDS: Readonly<Partial<Record<NhEventType, (p: JsonObject) => boolean>>> = {
  token: isValidToken,
  tool_started: (p) =>
    isInt(p.hop) &&
    typeof p.call_id === 'string' &&
    typeof p.tool === 'string' &&
    isPlainRecord(p.args) &&
    isOptionalString(p.command) &&
    isOptionalString(p.args_summary),
  output: isValidOutput,
  tool_result: (p) => {
    const status = p.status;
    return (
      isInt(p.hop) &&
      typeof p.call_id === 'string' &&
      typeof p.tool === 'string' &&
      (status === 'ok' || status === 'error' || status === 'denied' || status === 'cancelled') &&
      (p.exit_code === null || isInt(p.exit_code)) &&
      isStringArray(p.files_changed) &&
      isOptionalString(p.output) &&
      isOptionalString(p.error)
    );
  },
  hop: (p) =>
    isInt(p.hop) &&
    typeof p.text === 'string' &&
    isStringArray(p.tool_calls) &&
    typeof p.stop_reason === 'string' &&
    isValidUsage(p.usage),
};

// Every call in the shapes is marked pure, so that a bundle that only sniffs the format
// (`detectFormat`) leaves them out, with the guards and the spec map that name them.
const { string, nonNegativeInt, number, boolean, record, literal, optional, nullable, array, object } = shape;
const integer = shape.int;

/**
 * {@link NhEnvelope} as a {@link Shape}, for the report of an envelope its guard rejects: zod's
 * report without zod (test/nativeharness/guards.test.ts holds the two equal).
 */
export const NH_ENVELOPE_SHAPE: Shape = /* @__PURE__ */ object({
  seq: nonNegativeInt,
  ts: number,
  type: string,
  workspace_id: string,
  session_id: string,
  turn_id: /* @__PURE__ */ nullable(string),
  payload: record,
});

const usage = /* @__PURE__ */ object({ input_tokens: integer, output_tokens: integer, cost_usd: number });
const runStatusShape = /* @__PURE__ */ literal('completed', 'failed', 'cancelled');

/**
 * {@link NhPayloads}' fields as shapes, in the key order writers emit them: the source of
 * {@link NH_PAYLOAD_KEYS} and of the shape that writes the report of a payload its guard rejects
 * (test/nativeharness/guards.test.ts holds the reports to zod's), one table where each was one.
 */
const PAYLOAD_FIELDS: Readonly<Record<NhEventType, Readonly<Record<string, Shape>>>> = {
  session_created: {
    v: integer,
    actor: string,
    mode: string,
    title: /* @__PURE__ */ optional(string),
    producer: /* @__PURE__ */ optional(string),
  },
  title: { title: string },
  turn_started: { input: string },
  token: { hop: integer, text: string },
  progress: { status: string, detail: /* @__PURE__ */ optional(string) },
  tool_started: {
    hop: integer,
    call_id: string,
    tool: string,
    args: record,
    command: /* @__PURE__ */ optional(string),
    args_summary: /* @__PURE__ */ optional(string),
  },
  output: {
    call_id: string,
    stream: /* @__PURE__ */ literal('stdout', 'stderr'),
    text: string,
  },
  tool_result: {
    hop: integer,
    call_id: string,
    tool: string,
    status: /* @__PURE__ */ literal('ok', 'error', 'denied', 'cancelled'),
    exit_code: /* @__PURE__ */ nullable(integer),
    files_changed: /* @__PURE__ */ array(string),
    output: /* @__PURE__ */ optional(string),
    error: /* @__PURE__ */ optional(string),
  },
  approval_required: {
    approval_id: string,
    call_id: /* @__PURE__ */ optional(string),
    tool: string,
    title: string,
    effects: /* @__PURE__ */ array(string),
    options: /* @__PURE__ */ array(
      /* @__PURE__ */ object({ option_id: string, label: string, kind: string }),
    ),
  },
  approval_resolved: {
    approval_id: string,
    decision: string,
    by: string,
    option_id: /* @__PURE__ */ optional(string),
  },
  ask_user: {
    question_id: string,
    questions: /* @__PURE__ */ array(
      /* @__PURE__ */ object({
        id: string,
        text: string,
        options: /* @__PURE__ */ optional(
          /* @__PURE__ */ array(/* @__PURE__ */ object({ option_id: string, label: string })),
        ),
        multiple: /* @__PURE__ */ optional(boolean),
      }),
    ),
  },
  child_started: {
    child_id: string,
    name: /* @__PURE__ */ optional(string),
    task: string,
  },
  child_done: {
    child_id: string,
    status: runStatusShape,
    result: /* @__PURE__ */ optional(string),
  },
  compacted: { tokens_freed: integer },
  error: {
    message: string,
    recoverable: boolean,
    code: /* @__PURE__ */ optional(string),
  },
  cancelled: { by: string },
  done: { status: runStatusShape, stop_reason: string, usage },
  hop: {
    hop: integer,
    text: string,
    tool_calls: /* @__PURE__ */ array(string),
    stop_reason: string,
    usage,
  },
};

/** Every event type, in the order the protocol document lists them. */
export const NH_EVENT_TYPES: readonly NhEventType[] = /* @__PURE__ */ Object.keys(
  PAYLOAD_FIELDS,
) as NhEventType[];

/** Payload key order of every event type, as writers emit it. */
export const NH_PAYLOAD_KEYS: Readonly<Record<NhEventType, readonly string[]>> =
  /* @__PURE__ */ Object.fromEntries(
    /* @__PURE__ */ NH_EVENT_TYPES.map((t): [NhEventType, readonly string[]] => [
      t,
      Object.keys(PAYLOAD_FIELDS[t]),
    ]),
  ) as Record<NhEventType, readonly string[]>;

/** What the decoder needs of one event type, found with one lookup per record. */
export interface NhEventSpec {
  /** The type, as the constant string. */
  readonly type: NhEventType;
  /** The payload schema's checks as a shape: the payload's report when the guard rejects it. */
  readonly report: Shape;
  /** The payload guard: the schema's check, written out; none for a rare type (its shape checks it). */
  readonly guard: ((p: JsonObject) => boolean) | undefined;
  /** The payload key order writers emit. */
  readonly keys: readonly string[];
  /**
   * True when a valid payload of this type with only its own fields holds no object or array
   * of objects: its nesting depth is bounded without looking (no depth scan needed).
   */
  readonly flat: boolean;
}

const FLAT_TYPES: ReadonlySet<string> = /* @__PURE__ */ new Set([
  'session_created',
  'title',
  'turn_started',
  'token',
  'progress',
  'output',
  'tool_result',
  'approval_resolved',
  'child_started',
  'child_done',
  'compacted',
  'error',
  'cancelled',
]);

// Built by calls marked pure, as the shapes are: a bundle that only sniffs the format
// (`detectFormat`) leaves the map out, and the guards and shapes it names.
const specs = /* @__PURE__ */ new Map<string, NhEventSpec>(
  /* @__PURE__ */ NH_EVENT_TYPES.map((t) => [
    t,
    {
      type: t,
      report: object(PAYLOAD_FIELDS[t]),
      guard: NH_PAYLOAD_GUARDS[t],
      keys: NH_PAYLOAD_KEYS[t],
      flat: FLAT_TYPES.has(t),
    },
  ]),
);
const spec = (type: NhEventType): NhEventSpec => specs.get(type)!;
const TOKEN = /* @__PURE__ */ spec('token');
const OUTPUT = /* @__PURE__ */ spec('output');
const HOP = /* @__PURE__ */ spec('hop');
const TOOL_STARTED = /* @__PURE__ */ spec('tool_started');
const TOOL_RESULT = /* @__PURE__ */ spec('tool_result');

/** True when `type` names a nativeharness v1 event type. */
export function isNhEventType(type: string): type is NhEventType {
  // The payload key lists' own keys are the spec map's (it is built from them): no map needed.
  return Object.hasOwn(NH_PAYLOAD_KEYS, type);
}

/**
 * The spec of an event type, `undefined` for any other string. JSON.parse returns a fresh,
 * unhashed string for values longer than 10 characters: the frequent types are compared first.
 */
export function nhEventSpec(type: string): NhEventSpec | undefined {
  if (type === 'token') return TOKEN;
  if (type === 'output') return OUTPUT;
  if (type === 'hop') return HOP;
  if (type === 'tool_started') return TOOL_STARTED;
  if (type === 'tool_result') return TOOL_RESULT;
  return specs.get(type);
}

/** Validates an envelope; `undefined` when valid, else a short description of the problems. */
export function validateNhEnvelope(record: unknown): string | undefined {
  if (isJsonObject(record) && isValidEnvelope(record)) return undefined;
  return shapeProblems(NH_ENVELOPE_SHAPE, record);
}

/** Validates the payload of a known type; `undefined` when valid, else what is wrong. */
export function validateNhPayload(type: NhEventType, payload: unknown): string | undefined {
  return validateNhEventPayload(specs.get(type)!, payload);
}

/** {@link validateNhPayload} with the spec already found. */
export function validateNhEventPayload(spec: NhEventSpec, p: unknown): string | undefined {
  if (isJsonObject(p)) {
    // The frequent payloads by a direct call (inlined), the others through their spec; a rare
    // type has no guard: its shape, below, checks it and says what is wrong in one walk.
    if (spec === TOKEN ? isValidToken(p) : spec === OUTPUT ? isValidOutput(p) : spec.guard?.(p)) {
      return undefined;
    }
  }
  return shapeProblems(spec.report, p, 'payload.');
}

// Leading bytes that do not decide the framing: whitespace, and the parts of one BOM.
const BLANK = new Set([0x20, 0x09, 0x0d, 0x0a]);

/** Past this many blank leading bytes, the framing defaults to SSE (blank lines are SSE). */
export const NH_FRAMING_DETECT_LIMIT = 64 * 1024;

/**
 * Most tool calls a writer remembers for one hop's `tool_calls` when the events do not say them
 * (a `round.end` without the decoder's `toolCalls` hint): the calls since the hop began. A stream
 * with no hops (highbar's traces: one run, calls only) would otherwise make the list grow with
 * the input. Past it, a hop record lists the first ones and the writer reports the loss.
 */
export const NH_MAX_HOP_CALLS = 16_384;

/** The framing a first non-blank character shows: `[` a JSON array, `{` JSON Lines, else SSE. */
function framingOf(c: number): NhFraming {
  return c === 0x5b ? 'json' : c === 0x7b ? 'jsonl' : 'sse';
}

/**
 * The framing rule: the framing the first non-blank byte of a stream shows, reading `chunk`
 * that starts at stream position `position`; `blank` when the chunk has only blanks.
 */
export function sniffNhFraming(chunk: Uint8Array | string, position: number): NhFraming | 'blank' {
  if (typeof chunk === 'string') {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (isBomChar(c, position + i) || BLANK.has(c)) continue;
      return framingOf(c);
    }
    return 'blank';
  }
  for (let i = 0; i < chunk.length; i++) {
    const c = chunk[i]!;
    if (isBomByte(c, position + i) || BLANK.has(c)) continue;
    return framingOf(c);
  }
  return 'blank';
}

const SSE_LINE = /^(?:id|event|data|retry)(?::|$)|^:/;

/**
 * nativeharness's sniffing rule (called by `detectFormat` with the first non-blank line, and the
 * JSON object it holds when it is one): an SSE field line is certain, a JSON array likely, an
 * event envelope certain.
 */
export function sniffNativeharness(line: string, record: JsonObject | undefined): Detection | undefined {
  if (SSE_LINE.test(line))
    return { format: NH, confidence: 'certain', framing: 'sse', reason: 'server-sent events' };
  if (line.startsWith('['))
    return { format: NH, confidence: 'likely', framing: 'json', reason: 'a JSON array of events' };
  if (
    record !== undefined &&
    typeof record.seq === 'number' &&
    typeof record.type === 'string' &&
    ('session_id' in record || 'payload' in record)
  ) {
    return { format: NH, confidence: 'certain', framing: 'jsonl', reason: 'an event envelope' };
  }
  return undefined;
}

// The envelopes of `lines` (each `type payload`) as writers spell them, one per line: `seq` from
// 1, one time, workspace and session, and one turn but for the first (the session's own record).
function heldEnvelopes(lines: readonly string[]): string {
  let out = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const space = line.indexOf(' ');
    out += `{"seq":${i + 1},"ts":1796515228945,"type":"${line.slice(0, space)}","workspace_id":"w","session_id":"s","turn_id":${i === 0 ? 'null' : '"t"'},"payload":${line.slice(space + 1)}}\n`;
  }
  return out;
}

/**
 * The common envelopes, one per line as writers spell them (JSON Lines), which the codec's held
 * decoder reads once and whose events and parsed records it keeps, so their hidden classes
 * outlive a full GC between streams (createReader's `heldInput` and `holdsRecords`;
 * docs/performance.md, "Round thirty-five"). The records as well as the events: no event keeps
 * the envelope or payload object `JSON.parse` made, and the code that checked them was thrown
 * away when the last one died. Times past a small integer and a cost past one, as real ones are
 * (a field's representation is part of its hidden class); an exit code as a number and as
 * `null`. Each line as its type and payload, the rest spelled once by {@link heldEnvelopes}
 * (a call marked pure, so a bundle that does not use it drops it).
 */
export const NH_HELD_INPUT: string = /* @__PURE__ */ heldEnvelopes([
  'session_created {"v":1,"actor":"user","mode":"default","producer":"p"}',
  'turn_started {"input":"a"}',
  'token {"hop":1,"text":"a"}',
  'tool_started {"hop":1,"call_id":"c1","tool":"read","args":{},"args_summary":"a"}',
  'output {"call_id":"c1","stream":"stdout","text":"a"}',
  'tool_result {"hop":1,"call_id":"c1","tool":"read","status":"ok","exit_code":0,"files_changed":[],"output":"a"}',
  'tool_started {"hop":1,"call_id":"c2","tool":"read","args":{}}',
  'tool_result {"hop":1,"call_id":"c2","tool":"read","status":"error","exit_code":null,"files_changed":[],"output":"a"}',
  'hop {"hop":1,"text":"a","tool_calls":["c1","c2"],"stop_reason":"toolUse","usage":{"input_tokens":1,"output_tokens":1,"cost_usd":1.5}}',
  'done {"status":"completed","stop_reason":"stop","usage":{"input_tokens":1,"output_tokens":1,"cost_usd":1.5}}',
]);
