import * as z from 'zod/mini';

// nativeharness v1 wire records (docs/protocols/nativeharness.md). These schemas are the single
// source of the wire types; compiled because validation runs once per event on the hot path.

/** The protocol major version this library reads and writes (`session_created.payload.v`). */
export const NH_PROTOCOL_VERSION = 1;

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
  session_created: ['v', 'actor', 'mode', 'title'],
  title: ['title'],
  turn_started: ['input'],
  token: ['hop', 'text'],
  progress: ['status', 'detail'],
  tool_started: ['hop', 'call_id', 'tool', 'args', 'command'],
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
const compiledEnvelope = z.compile(NhEnvelope as z.ZodMiniType);
const compiled = new Map<string, z.ZodMiniType>();
for (const [type, schema] of Object.entries(NhPayloads)) {
  compiled.set(type, z.compile(schema as z.ZodMiniType));
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

/** Validates an envelope; `undefined` when valid, else a short description of the problems. */
export function validateNhEnvelope(record: unknown): string | undefined {
  return check(compiledEnvelope, record, '');
}

/** Validates the payload of a known type; `undefined` when valid, else what is wrong. */
export function validateNhPayload(type: NhEventType, payload: unknown): string | undefined {
  return check(compiled.get(type)!, payload, 'payload.');
}
