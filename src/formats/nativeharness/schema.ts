import * as z from 'zod/mini';
import { isOptionalString, isPlainRecord, isStringArray } from '../../guards';
import { isJsonObject } from '../../json';

// nativeharness v1 wire records (docs/protocols/nativeharness.md). These schemas are the single
// source of the wire types; compiled because validation runs once per event on the hot path.

/** The protocol major version this library reads and writes (`session_created.payload.v`). */
export const NH_PROTOCOL_VERSION = 1;

/**
 * agentwire's extension (docs/protocols/nativeharness.md "agentwire extension"), written only
 * when the writer's `extensions` option is on: an event this format has no type for travels
 * whole as an envelope of this type, its payload `{"event": {…}}` (the canonical event without
 * `seq`, `ts`, `workspace`, `session`, `run`: the envelope has them).
 */
export const NH_EXTENSION_TYPE = 'agentwire_event';

/**
 * The payload key of the extension on the format's own types: an object of the canonical
 * fields the type has no place for (`lane`, `kind`, `reason`, …).
 */
export const NH_EXTENSION_KEY = 'agentwire';

/** Envelope-level fields of a canonical event, never written inside the extension. */
export const NH_EXTENSION_ENVELOPE: ReadonlySet<string> = new Set([
  'type',
  'seq',
  'ts',
  'workspace',
  'session',
  'run',
  'provenance',
]);

const int = z.int();

/** The envelope around every payload. */
export const NhEnvelope = z.looseObject({
  seq: z.int().check(z.minimum(0)),
  ts: z.number(),
  type: z.string(),
  workspace_id: z.string(),
  session_id: z.string(),
  turn_id: z.nullable(z.string()),
  payload: z.record(z.string(), z.unknown()),
});

/** Token totals in `done` and `hop`. */
export const NhUsage = z.looseObject({ input_tokens: int, output_tokens: int, cost_usd: z.number() });

/** One option of an approval card (ACP's permission option kinds). */
export const NhApprovalOption = z.looseObject({ option_id: z.string(), label: z.string(), kind: z.string() });

/** One option of a question. */
export const NhQuestionOption = z.looseObject({ option_id: z.string(), label: z.string() });

/** One question of `ask_user`. */
export const NhQuestion = z.looseObject({
  id: z.string(),
  text: z.string(),
  options: z.optional(z.array(NhQuestionOption)),
  multiple: z.optional(z.boolean()),
});

const runStatus = z.enum(['completed', 'failed', 'cancelled']);

/** Payload schemas by event type. */
export const NhPayloads = {
  session_created: z.looseObject({
    v: int,
    actor: z.string(),
    mode: z.string(),
    title: z.optional(z.string()),
    producer: z.optional(z.string()),
  }),
  title: z.looseObject({ title: z.string() }),
  turn_started: z.looseObject({ input: z.string() }),
  token: z.looseObject({ hop: int, text: z.string() }),
  progress: z.looseObject({ status: z.string(), detail: z.optional(z.string()) }),
  tool_started: z.looseObject({
    hop: int,
    call_id: z.string(),
    tool: z.string(),
    args: z.record(z.string(), z.unknown()),
    command: z.optional(z.string()),
    args_summary: z.optional(z.string()),
  }),
  output: z.looseObject({ call_id: z.string(), stream: z.enum(['stdout', 'stderr']), text: z.string() }),
  tool_result: z.looseObject({
    hop: int,
    call_id: z.string(),
    tool: z.string(),
    status: z.enum(['ok', 'error', 'denied', 'cancelled']),
    exit_code: z.nullable(int),
    files_changed: z.array(z.string()),
    output: z.optional(z.string()),
    error: z.optional(z.string()),
  }),
  approval_required: z.looseObject({
    approval_id: z.string(),
    call_id: z.optional(z.string()),
    tool: z.string(),
    title: z.string(),
    effects: z.array(z.string()),
    options: z.array(NhApprovalOption),
  }),
  approval_resolved: z.looseObject({
    approval_id: z.string(),
    decision: z.string(),
    by: z.string(),
    option_id: z.optional(z.string()),
  }),
  ask_user: z.looseObject({ question_id: z.string(), questions: z.array(NhQuestion) }),
  child_started: z.looseObject({ child_id: z.string(), name: z.optional(z.string()), task: z.string() }),
  child_done: z.looseObject({ child_id: z.string(), status: runStatus, result: z.optional(z.string()) }),
  compacted: z.looseObject({ tokens_freed: int }),
  error: z.looseObject({ message: z.string(), recoverable: z.boolean(), code: z.optional(z.string()) }),
  cancelled: z.looseObject({ by: z.string() }),
  done: z.looseObject({ status: runStatus, stop_reason: z.string(), usage: NhUsage }),
  hop: z.looseObject({
    hop: int,
    text: z.string(),
    tool_calls: z.array(z.string()),
    stop_reason: z.string(),
    usage: NhUsage,
  }),
} as const;

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

/** Payload key order of every event type, as writers emit it. */
export const NH_PAYLOAD_KEYS: Readonly<Record<NhEventType, readonly string[]>> = {
  session_created: ['v', 'actor', 'mode', 'title', 'producer'],
  title: ['title'],
  turn_started: ['input'],
  token: ['hop', 'text'],
  progress: ['status', 'detail'],
  tool_started: ['hop', 'call_id', 'tool', 'args', 'command', 'args_summary'],
  output: ['call_id', 'stream', 'text'],
  tool_result: ['hop', 'call_id', 'tool', 'status', 'exit_code', 'files_changed', 'output', 'error'],
  approval_required: ['approval_id', 'call_id', 'tool', 'title', 'effects', 'options'],
  approval_resolved: ['approval_id', 'decision', 'by', 'option_id'],
  ask_user: ['question_id', 'questions'],
  child_started: ['child_id', 'name', 'task'],
  child_done: ['child_id', 'status', 'result'],
  compacted: ['tokens_freed'],
  error: ['message', 'recoverable', 'code'],
  cancelled: ['by'],
  done: ['status', 'stop_reason', 'usage'],
  hop: ['hop', 'text', 'tool_calls', 'stop_reason', 'usage'],
};

// A `type` read from JSON is a fresh string each record: a Map finds it by hash, where a property
// lookup on a plain object has to look it up in V8's string table first.
/** {@link NH_PAYLOAD_KEYS} by type, for lookups with a type read from the wire. */
export const NH_PAYLOAD_KEYS_BY_TYPE: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(NH_PAYLOAD_KEYS),
);

/** Key order inside `usage`. */
export const NH_USAGE_KEYS: readonly string[] = ['input_tokens', 'output_tokens', 'cost_usd'];

/** Every event type, in the order the protocol document lists them. */
export const NH_EVENT_TYPES: readonly NhEventType[] = Object.keys(NH_PAYLOAD_KEYS) as NhEventType[];

// `z.validate` on a compiled schema runs zod's assert-only fast path: the same checks, no output
// object built. Only a rejected record pays for `safeParse`, which produces the issue report.
// Compiling generates code (`new Function`): a host that forbids it (a page under a strict
// Content-Security-Policy, which sets zod's `jitless` first) keeps the runtime parser, and its
// CSP never sees an attempt.
const compile = (schema: z.ZodMiniType): z.ZodMiniType => (z.config().jitless ? schema : z.compile(schema));
const compiledEnvelope = compile(NhEnvelope as z.ZodMiniType);
const compiled = new Map<string, z.ZodMiniType>();
for (const [type, schema] of Object.entries(NhPayloads)) {
  compiled.set(type, compile(schema as z.ZodMiniType));
}

/** True when `type` names a nativeharness v1 event type. */
export function isNhEventType(type: string): type is NhEventType {
  return compiled.has(type);
}

function check(schema: z.ZodMiniType, value: unknown, prefix: string): string | undefined {
  if (z.validate(schema, value)) return undefined;
  const result = schema.safeParse(value);
  if (result.success) return undefined;
  return result.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? prefix + i.path.join('.') : prefix || '(record)'}: ${i.message}`)
    .join('; ');
}

// Hand-written guards for the envelope and the frequent payloads, tried before zod. zod's
// compiled check of `payload: z.record(...)` walks every payload key with a
// propertyIsEnumerable call each (about a fifth of nativeharness decode time); a parsed JSON
// object needs no walk. Each guard accepts exactly what its schema accepts on JSON values (a
// fast-check property, `test/nativeharness/guards.test.ts`, holds them equal); zod still decides
// everything a guard does not accept, and writes the report.

function isValidEnvelope(r: Record<string, unknown>): boolean {
  const seq = r.seq;
  const ts = r.ts;
  const turn = r.turn_id;
  return (
    Number.isSafeInteger(seq) &&
    (seq as number) >= 0 &&
    typeof ts === 'number' &&
    Number.isFinite(ts) &&
    typeof r.type === 'string' &&
    typeof r.workspace_id === 'string' &&
    typeof r.session_id === 'string' &&
    (turn === null || typeof turn === 'string') &&
    isPlainRecord(r.payload)
  );
}

function isValidUsage(u: unknown): boolean {
  return (
    isJsonObject(u) &&
    Number.isSafeInteger(u.input_tokens) &&
    Number.isSafeInteger(u.output_tokens) &&
    typeof u.cost_usd === 'number' &&
    Number.isFinite(u.cost_usd)
  );
}

/** What the decoder needs of one event type, found with one lookup per record. */
export interface NhEventSpec {
  /** The type, as the constant string. */
  readonly type: NhEventType;
  /** The compiled payload schema. */
  readonly schema: z.ZodMiniType;
  /** The payload key order writers emit. */
  readonly keys: readonly string[];
  /**
   * True when a valid payload of this type with only its own fields holds no object or array
   * of objects: its nesting depth is bounded without looking (no depth scan needed).
   */
  readonly flat: boolean;
}

const FLAT_TYPES: ReadonlySet<string> = new Set([
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

const specs = new Map<string, NhEventSpec>();
for (const [type, schema] of compiled) {
  specs.set(type, {
    type: type as NhEventType,
    schema,
    keys: NH_PAYLOAD_KEYS[type as NhEventType],
    flat: FLAT_TYPES.has(type),
  });
}
const spec = (type: NhEventType): NhEventSpec => specs.get(type)!;
const TOKEN = spec('token');
const OUTPUT = spec('output');
const HOP = spec('hop');
const TOOL_STARTED = spec('tool_started');
const TOOL_RESULT = spec('tool_result');

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
  return check(compiledEnvelope, record, '');
}

/** Validates the payload of a known type; `undefined` when valid, else what is wrong. */
export function validateNhPayload(type: NhEventType, payload: unknown): string | undefined {
  return validateNhEventPayload(specs.get(type)!, payload);
}

/** {@link validateNhPayload} with the spec already found. */
export function validateNhEventPayload(spec: NhEventSpec, p: unknown): string | undefined {
  if (isJsonObject(p)) {
    switch (spec) {
      case TOKEN:
        if (Number.isSafeInteger(p.hop) && typeof p.text === 'string') return undefined;
        break;
      case OUTPUT:
        if (
          typeof p.call_id === 'string' &&
          (p.stream === 'stdout' || p.stream === 'stderr') &&
          typeof p.text === 'string'
        )
          return undefined;
        break;
      case HOP:
        if (
          Number.isSafeInteger(p.hop) &&
          typeof p.text === 'string' &&
          isStringArray(p.tool_calls) &&
          typeof p.stop_reason === 'string' &&
          isValidUsage(p.usage)
        )
          return undefined;
        break;
      case TOOL_STARTED:
        if (
          Number.isSafeInteger(p.hop) &&
          typeof p.call_id === 'string' &&
          typeof p.tool === 'string' &&
          isPlainRecord(p.args) &&
          isOptionalString(p.command) &&
          isOptionalString(p.args_summary)
        )
          return undefined;
        break;
      case TOOL_RESULT: {
        const status = p.status;
        if (
          Number.isSafeInteger(p.hop) &&
          typeof p.call_id === 'string' &&
          typeof p.tool === 'string' &&
          (status === 'ok' || status === 'error' || status === 'denied' || status === 'cancelled') &&
          (p.exit_code === null || Number.isSafeInteger(p.exit_code)) &&
          isStringArray(p.files_changed) &&
          isOptionalString(p.output) &&
          isOptionalString(p.error)
        )
          return undefined;
        break;
      }
    }
  }
  return check(spec.schema, p, 'payload.');
}
