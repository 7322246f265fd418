import type * as z from 'zod/mini';
import type { Detection } from '../../detect';
import {
  isOptionalString,
  isPlainRecord,
  isStringArray,
  type Shape,
  shape,
  shapeProblems,
} from '../../guards';
import type { JsonObject } from '../../json';
import type { HighbarHelloRecord, HighbarToolRecord, HighbarToolsRecord, HighbarTurnRecord } from './schema';

// Every byte rule of the highbar trace contract v1 (and the v0 tool call), docs/protocols/
// highbar.md: the records and their zod schemas (the source of the wire types and of the
// reports), their guards, the key orders, the time fields, the reference emitter's `tool`
// template, the sniffing rule `detectFormat` calls, and what the decoder leaves in
// `provenance.hints` for the writer. Python `json.dumps` spelling itself is pyjson.ts.
// Timestamps are not typed in the schemas: a timestamp that is not a number falls back to `ts`
// (a warning), it does not make the record invalid.

/** The format id. */
export const HIGHBAR = 'highbar' as const;

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
export const HIGHBAR_KEY_ORDER_BY_TYPE: ReadonlyMap<string, readonly string[]> = /* @__PURE__ */ new Map(
  /* @__PURE__ */ Object.entries(HIGHBAR_KEY_ORDER),
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

// Python writers put `time.time()` floats here: `1792983764.0`, never `1792983764`. The writer
// prints them so in v1 records; a v0 line has no ts of its own (a `ts` there is context, data),
// and an unknown event is written back as data throughout.
/** The time fields of a v1 record (seconds, Python floats). */
export const HIGHBAR_TIME_FIELDS: readonly string[] = ['ts', 'started_at', 'ended_at'];
/** The time fields of a v0 line. */
export const HIGHBAR_V0_TIME_FIELDS: readonly string[] = ['started_at', 'ended_at'];

/**
 * What the highbar decoder leaves in `provenance.hints` for the highbar writer, beyond the model,
 * to reproduce a line byte for byte: the typed contract between the two (writers never import
 * decoders). Every field is optional and most lines need none.
 */
export interface HighbarHints {
  /** `ts` in seconds as written, when `ts / 1000` printed as a Python float would not give it back. */
  ts?: string;
  /** `started_at` as written (same rule). */
  started_at?: string;
  /** `ended_at` as written (same rule). */
  ended_at?: string;
  /** Time fields the line did not have, though the model holds their default (`ts`). */
  absent?: string[];
  /** Timestamps that were not numbers, as written (the model holds the `ts` fallback). */
  invalid?: Record<string, unknown>;
  /** Present on a v0 line: its keys in their order. */
  v0?: string[];
  /**
   * The line itself, as read (the decoder keeps every line). The writer gives it back while the
   * events still say the same thing: its own text when that is the line (Python's `json.dumps`
   * style), else this line (another writer's separators, `1.0` for an integral float, raw
   * non-ASCII…); edited events are written from the model.
   */
  raw?: string;
}

/** The already-spelled fields of a `tool` record in the reference emitter's full shape. */
export interface HighbarToolFields {
  ts: string;
  fn: string;
  args: string;
  result: string;
  error: string;
  startedAt: string;
  endedAt: string;
  /** Absent: no `context` key. */
  context: string | undefined;
}

/**
 * A `tool` line as the reference emitter writes it: every field (args, result and error as
 * `{}`, `null`, `null` when unknown) in the contract's key order, Python separators. Each value
 * is already Python JSON text.
 */
export function highbarToolLine(f: HighbarToolFields): string {
  const T = HIGHBAR_TOOL_TEMPLATE;
  const text = `${T.head}${f.ts}${T.fn}${f.fn}${T.args}${f.args}${T.result}${f.result}${T.error}${f.error}${T.startedAt}${f.startedAt}${T.endedAt}${f.endedAt}`;
  return f.context === undefined ? `${text}}\n` : `${text}${T.context}${f.context}}\n`;
}

/**
 * The text between the values of a `tool` line in the reference emitter's full shape
 * ({@link highbarToolLine}): what the writer puts there, and what the decoder's shortcut for
 * such lines compares (docs/protocols/highbar.md, "Decoding").
 */
export const HIGHBAR_TOOL_TEMPLATE = {
  /** Up to the `ts` value. */
  head: '{"v": 1, "type": "tool", "ts": ',
  /** Before the `fn` value. */
  fn: ', "fn": ',
  /** Before the `args` value. */
  args: ', "args": ',
  /** Before the `result` value. */
  result: ', "result": ',
  /** Before the `error` value. */
  error: ', "error": ',
  /** Before the `started_at` value. */
  startedAt: ', "started_at": ',
  /** Before the `ended_at` value. */
  endedAt: ', "ended_at": ',
  /** Before the `context` value, when there is one (the line ends with `}` either way). */
  context: ', "context": ',
} as const;

/** True when `type` names a v1 record type this library knows. */
export function isHighbarRecordType(type: unknown): type is HighbarRecordType {
  return type === 'tool' || type === 'turn' || type === 'hello' || type === 'tools';
}

// The guard: the zod schemas' checks written out, for the decoder's hot path. It accepts exactly
// what the schemas accept on JSON records (test/highbar/guard.test.ts holds them together on
// generated records, near misses included, the guard called alone); the report of a record it
// rejects is written from the record's shape (HIGHBAR_SHAPES).

function optionalRecord(x: unknown): boolean {
  return x === undefined || isPlainRecord(x);
}

/**
 * True when `record` (a JSON object) is a valid record of `type` (or a v0 line): the checks of
 * the zod schema, written out.
 */
export function passesHighbarGuard(type: HighbarRecordType | 'v0', record: Record<string, unknown>): boolean {
  switch (type) {
    case 'tool':
      return (
        record.v === 1 &&
        record.type === 'tool' &&
        typeof record.fn === 'string' &&
        optionalRecord(record.args) &&
        optionalRecord(record.context)
      );
    case 'turn':
      return (
        record.v === 1 &&
        record.type === 'turn' &&
        isOptionalString(record.message) &&
        isOptionalString(record.response) &&
        optionalRecord(record.context)
      );
    case 'hello':
      return (
        record.v === 1 &&
        record.type === 'hello' &&
        isOptionalString(record.sdk) &&
        (record.pid === undefined || Number.isSafeInteger(record.pid)) &&
        (record.tools === undefined || isStringArray(record.tools)) &&
        optionalRecord(record.context)
      );
    case 'tools':
      return (
        record.v === 1 &&
        record.type === 'tools' &&
        isStringArray(record.names) &&
        optionalRecord(record.context)
      );
    case 'v0':
      return (
        (record.v === undefined || record.v === 0) &&
        typeof record.fn === 'string' &&
        optionalRecord(record.args)
      );
  }
}

const { string, int, literal, optional, array, record, object } = shape;
// Every call in the shapes is marked pure, so that a bundle that only sniffs the format
// (`detectFormat`) leaves them out.
const anyRecord = /* @__PURE__ */ optional(record);

/**
 * Each record's schema as a {@link Shape}, for the report of a record the guard rejects: zod's
 * report without zod (test/highbar/guard.test.ts holds every report equal to its schema's).
 */
export const HIGHBAR_SHAPES: Readonly<Record<HighbarRecordType | 'v0', Shape>> = {
  tool: /* @__PURE__ */ object({
    v: /* @__PURE__ */ literal(1),
    type: /* @__PURE__ */ literal('tool'),
    fn: string,
    args: anyRecord,
    context: anyRecord,
  }),
  turn: /* @__PURE__ */ object({
    v: /* @__PURE__ */ literal(1),
    type: /* @__PURE__ */ literal('turn'),
    message: /* @__PURE__ */ optional(string),
    response: /* @__PURE__ */ optional(string),
    context: anyRecord,
  }),
  hello: /* @__PURE__ */ object({
    v: /* @__PURE__ */ literal(1),
    type: /* @__PURE__ */ literal('hello'),
    sdk: /* @__PURE__ */ optional(string),
    pid: /* @__PURE__ */ optional(int),
    tools: /* @__PURE__ */ optional(/* @__PURE__ */ array(string)),
    context: anyRecord,
  }),
  tools: /* @__PURE__ */ object({
    v: /* @__PURE__ */ literal(1),
    type: /* @__PURE__ */ literal('tools'),
    names: /* @__PURE__ */ array(string),
    context: anyRecord,
  }),
  v0: /* @__PURE__ */ object({
    v: /* @__PURE__ */ optional(/* @__PURE__ */ literal(0)),
    fn: string,
    args: anyRecord,
  }),
};

/**
 * Validates a record of a known type (or a v0 line). Returns `undefined` when valid, else a short
 * description of the first problems (field path and what was expected).
 */
export function validateHighbarRecord(type: HighbarRecordType | 'v0', record: unknown): string | undefined {
  if (isPlainRecord(record) && passesHighbarGuard(type, record)) return undefined;
  return shapeProblems(HIGHBAR_SHAPES[type], record);
}

/**
 * highbar's sniffing rule (called by `detectFormat` with the first non-blank line's JSON object):
 * a known v1 record with `v` is certain, a `fn` string (a v0 tool call) likely, `v` and `ts` a
 * guess.
 */
export function sniffHighbar(_line: string, record: JsonObject | undefined): Detection | undefined {
  if (record === undefined) return undefined;
  if (isHighbarRecordType(record.type) && 'v' in record) {
    return { format: HIGHBAR, confidence: 'certain', reason: `a v${String(record.v)} ${record.type} record` };
  }
  if (typeof record.fn === 'string')
    return { format: HIGHBAR, confidence: 'likely', reason: 'a v0 tool call' };
  if ('v' in record && 'ts' in record)
    return { format: HIGHBAR, confidence: 'guess', reason: 'v and ts fields' };
  return undefined;
}
