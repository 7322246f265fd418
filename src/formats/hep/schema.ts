import * as z from 'zod/mini';
import type { JsonObject } from '../../json';

// HEP v1 wire records. These schemas are the single source of the wire types; each is compiled
// (zod's ahead-of-time fast path) because validation runs once per frame on the hot path.

const turnId = z.int();

/** `hep_header`: always the first line. */
export const HepHeaderFrame = z.looseObject({
  type: z.literal('hep_header'),
  hep: z.string(),
  fah: z.string(),
  session: z.string(),
});
/** `agent_start`: the run began. */
export const HepAgentStartFrame = z.looseObject({ type: z.literal('agent_start'), turn_id: turnId });
/** `message_start`: an assistant message starts. */
export const HepMessageStartFrame = z.looseObject({
  type: z.literal('message_start'),
  turn_id: turnId,
  role: z.literal('assistant'),
});
/** `message_delta`: a chunk of assistant text. */
export const HepMessageDeltaFrame = z.looseObject({
  type: z.literal('message_delta'),
  turn_id: turnId,
  delta: z.string(),
});
/** `tool_start`: a tool call starts. */
export const HepToolStartFrame = z.looseObject({
  type: z.literal('tool_start'),
  turn_id: turnId,
  id: z.string(),
  name: z.string(),
  args_summary: z.string(),
});
/** `tool_delta`: partial tool output. */
export const HepToolDeltaFrame = z.looseObject({
  type: z.literal('tool_delta'),
  turn_id: turnId,
  id: z.string(),
  update: z.string(),
});
/** `tool_liveness`: heartbeat or stuck-call follow-up. */
export const HepToolLivenessFrame = z.looseObject({
  type: z.literal('tool_liveness'),
  turn_id: turnId,
  id: z.string(),
  name: z.string(),
  action: z.string(),
  elapsed_ms: z.int(),
  output_bytes: z.optional(z.int()),
  detail: z.optional(z.string()),
});
/** One entry of `turn_done.tool_results`. */
export const HepToolResult = z.looseObject({
  id: z.string(),
  name: z.string(),
  ok: z.boolean(),
  text: z.string(),
});
/** `turn_done.usage`. */
export const HepUsage = z.looseObject({ input: z.int(), output: z.int(), cost: z.number() });
/** `turn_done`: terminal frame of a round that completed. */
export const HepTurnDoneFrame = z.looseObject({
  type: z.literal('turn_done'),
  turn_id: turnId,
  message: z.string(),
  tool_results: z.array(HepToolResult),
  usage: HepUsage,
  stop_reason: z.string(),
});
/** `turn_error`: terminal frame of a round that failed. */
export const HepTurnErrorFrame = z.looseObject({
  type: z.literal('turn_error'),
  turn_id: turnId,
  error: z.string(),
  fatal: z.boolean(),
});
/** `cancelled`: the run was aborted. */
export const HepCancelledFrame = z.looseObject({ type: z.literal('cancelled'), turn_id: turnId });
/** `compaction_start`. */
export const HepCompactionStartFrame = z.looseObject({
  type: z.literal('compaction_start'),
  turn_id: turnId,
});
/** `compaction_end`. */
export const HepCompactionEndFrame = z.looseObject({
  type: z.literal('compaction_end'),
  turn_id: turnId,
  tokens_freed: z.int(),
});

/** Every HEP v1 frame this library knows. */
export type HepFrame =
  | z.infer<typeof HepHeaderFrame>
  | z.infer<typeof HepAgentStartFrame>
  | z.infer<typeof HepMessageStartFrame>
  | z.infer<typeof HepMessageDeltaFrame>
  | z.infer<typeof HepToolStartFrame>
  | z.infer<typeof HepToolDeltaFrame>
  | z.infer<typeof HepToolLivenessFrame>
  | z.infer<typeof HepTurnDoneFrame>
  | z.infer<typeof HepTurnErrorFrame>
  | z.infer<typeof HepCancelledFrame>
  | z.infer<typeof HepCompactionStartFrame>
  | z.infer<typeof HepCompactionEndFrame>;

/** The `type` of a known HEP frame. */
export type HepFrameType = HepFrame['type'];

const frameSchemas = {
  hep_header: HepHeaderFrame,
  agent_start: HepAgentStartFrame,
  message_start: HepMessageStartFrame,
  message_delta: HepMessageDeltaFrame,
  tool_start: HepToolStartFrame,
  tool_delta: HepToolDeltaFrame,
  tool_liveness: HepToolLivenessFrame,
  turn_done: HepTurnDoneFrame,
  turn_error: HepTurnErrorFrame,
  cancelled: HepCancelledFrame,
  compaction_start: HepCompactionStartFrame,
  compaction_end: HepCompactionEndFrame,
} as const;

/** Key order of every frame, as the reference writer emits it (HEP v1 facts, "Byte shape"). */
export const HEP_KEY_ORDER: Readonly<Record<HepFrameType, readonly string[]>> = {
  hep_header: ['type', 'hep', 'fah', 'session'],
  agent_start: ['type', 'turn_id'],
  message_start: ['type', 'turn_id', 'role'],
  message_delta: ['type', 'turn_id', 'delta'],
  tool_start: ['type', 'turn_id', 'id', 'name', 'args_summary'],
  tool_delta: ['type', 'turn_id', 'id', 'update'],
  tool_liveness: ['type', 'turn_id', 'id', 'name', 'action', 'elapsed_ms', 'output_bytes', 'detail'],
  turn_done: ['type', 'turn_id', 'message', 'tool_results', 'usage', 'stop_reason'],
  turn_error: ['type', 'turn_id', 'error', 'fatal'],
  cancelled: ['type', 'turn_id'],
  compaction_start: ['type', 'turn_id'],
  compaction_end: ['type', 'turn_id', 'tokens_freed'],
};

/** Key order inside a `tool_results` entry. */
export const HEP_TOOL_RESULT_KEYS: readonly string[] = ['id', 'name', 'ok', 'text'];
/** Key order inside `usage`. */
export const HEP_USAGE_KEYS: readonly string[] = ['input', 'output', 'cost'];

// `z.validate` on a compiled schema runs zod's assert-only fast path: the same checks, no output
// object built. Only a rejected frame pays for `safeParse`, which produces the issue report.
const compiled = new Map<string, z.ZodMiniType>();
for (const [type, schema] of Object.entries(frameSchemas)) {
  compiled.set(type, z.compile(schema as z.ZodMiniType));
}

/** What the decoder needs of one frame type, found with one lookup per record. */
export interface HepFrameSpec {
  /** The type, as the constant string (a `switch` on it compares pointers, not characters). */
  readonly type: HepFrameType;
  /** The compiled schema. */
  readonly schema: z.ZodMiniType;
  /** The reference key order. */
  readonly keys: readonly string[];
}

const specs = new Map<string, HepFrameSpec>();
for (const [type, schema] of compiled) {
  specs.set(type, { type: type as HepFrameType, schema, keys: HEP_KEY_ORDER[type as HepFrameType] });
}
const spec = (type: HepFrameType): HepFrameSpec => specs.get(type)!;
const MESSAGE_DELTA = spec('message_delta');
const TOOL_DELTA = spec('tool_delta');
const TOOL_START = spec('tool_start');
const TURN_DONE = spec('turn_done');
const MESSAGE_START = spec('message_start');

/**
 * The spec of a known frame type, `undefined` for any other string. A `type` read from JSON is a
 * fresh string each record when longer than 10 characters (V8 internalises only shorter values),
 * so a Map would hash it and a property lookup would search the string table first (measured:
 * 4–7 % of HEP decode time). Comparing with the few frequent types first costs a length check
 * and at most one short compare each.
 */
export function hepFrameSpec(type: string): HepFrameSpec | undefined {
  if (type === 'message_delta') return MESSAGE_DELTA;
  if (type === 'tool_delta') return TOOL_DELTA;
  if (type === 'tool_start') return TOOL_START;
  if (type === 'turn_done') return TURN_DONE;
  if (type === 'message_start') return MESSAGE_START;
  return specs.get(type);
}

/**
 * Validates a record against `spec` (found from the record's own `type`): `undefined` when valid,
 * else what is wrong (see {@link validateHepFrame}).
 *
 * The frequent frames are checked first by hand-written guards that read each field once, with
 * no call through zod: a valid `message_delta` is most of a stream. Each guard accepts exactly
 * what its schema accepts (a fast-check property, `test/hep/guards.test.ts`, holds them equal);
 * zod still decides every record a guard does not accept, and writes the report.
 */
export function validateHepFrameSpec(spec: HepFrameSpec, record: JsonObject): string | undefined {
  switch (spec) {
    case MESSAGE_DELTA:
      if (isValidMessageDelta(record)) return undefined;
      break;
    case TOOL_DELTA:
      if (isValidToolDelta(record)) return undefined;
      break;
    case TOOL_START:
      if (
        Number.isSafeInteger(record.turn_id) &&
        typeof record.id === 'string' &&
        typeof record.name === 'string' &&
        typeof record.args_summary === 'string'
      )
        return undefined;
      break;
    case MESSAGE_START:
      if (Number.isSafeInteger(record.turn_id) && record.role === 'assistant') return undefined;
      break;
  }
  if (z.validate(spec.schema, record)) return undefined;
  return describe(spec.schema, record);
}

/** Guard of {@link HepMessageDeltaFrame} for a record whose `type` is `message_delta`. */
export function isValidMessageDelta(record: JsonObject): boolean {
  return Number.isSafeInteger(record.turn_id) && typeof record.delta === 'string';
}

/** Guard of {@link HepToolDeltaFrame} for a record whose `type` is `tool_delta`. */
export function isValidToolDelta(record: JsonObject): boolean {
  return (
    Number.isSafeInteger(record.turn_id) && typeof record.id === 'string' && typeof record.update === 'string'
  );
}

/** True when `type` names a HEP v1 frame this library knows. */
export function isHepFrameType(type: string): type is HepFrameType {
  return compiled.has(type);
}

/**
 * Validates a record whose `type` is a known frame type. Returns `undefined` when valid, else a
 * short description of the first problems (field path and what was expected).
 */
export function validateHepFrame(type: HepFrameType, record: unknown): string | undefined {
  const schema = compiled.get(type)!;
  if (z.validate(schema, record)) return undefined;
  return describe(schema, record);
}

function describe(schema: z.ZodMiniType, record: unknown): string | undefined {
  const result = schema.safeParse(record);
  if (result.success) return undefined;
  return result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(record)'}: ${issue.message}`)
    .join('; ');
}
