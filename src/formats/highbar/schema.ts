import * as z from 'zod/mini';

// highbar trace contract v1 wire records (and the v0 tool call). These schemas are the single
// source of the wire types. Timestamps are not typed here: a timestamp that is not a number falls
// back to `ts` (a warning), it does not make the record invalid.

const context = z.optional(z.record(z.string(), z.unknown()));

/** `tool`: one tool call. */
export const HighbarToolRecord = z.looseObject({
  v: z.literal(1),
  type: z.literal('tool'),
  fn: z.string(),
  args: z.optional(z.record(z.string(), z.unknown())),
  context,
});
/** `turn`: one message handled. */
export const HighbarTurnRecord = z.looseObject({
  v: z.literal(1),
  type: z.literal('turn'),
  message: z.optional(z.string()),
  response: z.optional(z.string()),
  context,
});
/** `hello`: the writer started. */
export const HighbarHelloRecord = z.looseObject({
  v: z.literal(1),
  type: z.literal('hello'),
  sdk: z.optional(z.string()),
  pid: z.optional(z.int()),
  tools: z.optional(z.array(z.string())),
  context,
});
/** `tools`: the tools the writer records. */
export const HighbarToolsRecord = z.looseObject({
  v: z.literal(1),
  type: z.literal('tools'),
  names: z.array(z.string()),
  context,
});
/** A v0 line: a tool call without `v` (or with `"v": 0`); every other field is context. */
export const HighbarV0Record = z.looseObject({
  v: z.optional(z.literal(0)),
  fn: z.string(),
  args: z.optional(z.record(z.string(), z.unknown())),
});

/** Every v1 record type this library knows. */
export type HighbarRecordType = 'tool' | 'turn' | 'hello' | 'tools';

/** A v1 record of a known type. */
export type HighbarRecord =
  | z.infer<typeof HighbarToolRecord>
  | z.infer<typeof HighbarTurnRecord>
  | z.infer<typeof HighbarHelloRecord>
  | z.infer<typeof HighbarToolsRecord>;

/** The newest contract version this library reads. */
export const HIGHBAR_VERSION = 1;

/**
 * Key order of every v1 record as the contract's examples show it: `v`, `type`, `ts`, the
 * record's fields, `context` last.
 */
export const HIGHBAR_KEY_ORDER: Readonly<Record<HighbarRecordType, readonly string[]>> = {
  tool: ['v', 'type', 'ts', 'fn', 'args', 'result', 'error', 'started_at', 'ended_at', 'context'],
  turn: ['v', 'type', 'ts', 'message', 'response', 'context'],
  hello: ['v', 'type', 'ts', 'sdk', 'pid', 'tools', 'context'],
  tools: ['v', 'type', 'ts', 'names', 'context'],
};

// A `type` read from JSON is a fresh string each record: a Map finds it by hash, where a property
// lookup on a plain object has to look it up in V8's string table first.
/** {@link HIGHBAR_KEY_ORDER} by type, for lookups with a type read from the wire. */
export const HIGHBAR_KEY_ORDER_BY_TYPE: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(HIGHBAR_KEY_ORDER),
);

/** The fields of a v0 tool call; every other top-level field is its context. */
export const HIGHBAR_V0_FIELDS: readonly string[] = [
  'v',
  'fn',
  'args',
  'result',
  'error',
  'started_at',
  'ended_at',
];

// `z.validate` on a compiled schema runs zod's assert-only fast path: the same checks, no output
// object built. Only a rejected record pays for `safeParse`, which produces the issue report.
const compiled = new Map<string, z.ZodMiniType>([
  ['tool', z.compile(HighbarToolRecord as z.ZodMiniType)],
  ['turn', z.compile(HighbarTurnRecord as z.ZodMiniType)],
  ['hello', z.compile(HighbarHelloRecord as z.ZodMiniType)],
  ['tools', z.compile(HighbarToolsRecord as z.ZodMiniType)],
  ['v0', z.compile(HighbarV0Record as z.ZodMiniType)],
]);

/** True when `type` names a v1 record type this library knows. */
export function isHighbarRecordType(type: unknown): type is HighbarRecordType {
  return type === 'tool' || type === 'turn' || type === 'hello' || type === 'tools';
}

/**
 * Validates a record of a known type (or a v0 line). Returns `undefined` when valid, else a short
 * description of the first problems (field path and what was expected).
 */
export function validateHighbarRecord(type: HighbarRecordType | 'v0', record: unknown): string | undefined {
  const schema = compiled.get(type)!;
  if (z.validate(schema, record)) return undefined;
  const result = schema.safeParse(record);
  if (result.success) return undefined;
  const issues = result.error.issues;
  return issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(record)'}: ${issue.message}`)
    .join('; ');
}
