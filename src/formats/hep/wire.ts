import type * as z from 'zod/mini';
import type { Detection } from '../../detect';
import { isFiniteNumber, isInt, isObjectValue, type Shape, shape, shapeProblems } from '../../guards';
import type { JsonObject } from '../../json';
import { aOr } from '../../words';
import type {
  HepAgentStartFrame,
  HepCancelledFrame,
  HepCompactionEndFrame,
  HepCompactionStartFrame,
  HepHeaderFrame,
  HepMessageDeltaFrame,
  HepMessageStartFrame,
  HepToolDeltaFrame,
  HepToolLivenessFrame,
  HepToolStartFrame,
  HepTurnDoneFrame,
  HepTurnErrorFrame,
} from './schema';

// Every byte rule of HEP v1 (docs/protocols/hep.md): the frames and their zod schemas (the source
// of the wire types and of the reports), the reference writer's key orders, bounds and
// templates, the version rule, the sniffing rule `detectFormat` calls, and what the decoder
// leaves in `provenance.hints` for the writer. decode.ts, encode.ts and check.ts import these;
// none of them spells a HEP byte of its own.

/** The format id. */
export const HEP = 'hep' as const;

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

/** `turn_done.tool_results[].text` cap, in UTF-16 code units. */
export const HEP_TOOL_RESULT_TEXT_CAP = 2000;
/**
 * How many UTF-16 code units of tool results the writer holds for a round it made up itself
 * (the events carry no round number, e.g. from highbar). `turn_done` carries a round's results,
 * so they wait for its end; past this the writer ends the round (`turn_done`, `toolUse`) and the
 * next event opens another, so a run of endless tool calls holds bounded memory. The bound keeps
 * that `turn_done` far under the 1 MiB line bound readers apply (3 UTF-8 bytes per code unit at
 * most), and a made-up round short: what a round holds lives until its end, so a long one makes
 * every held result outlive V8's young generation (docs/performance.md, "Round twenty-eight").
 * A round the source numbers is held whole.
 */
export const HEP_MAX_HELD_RESULT_CHARS = 32 * 1024;
/** `tool_start.args_summary` cap in `full` mode, in UTF-16 code units. */
export const HEP_FULL_ARGS_CAP = 4000;
/** `tool_start.args_summary` cap in `summary` mode (then `...`). */
export const HEP_SUMMARY_ARGS_CAP = 100;

/** The protocol version a writer puts in `hep_header.hep` when it has none to keep. */
export const HEP_VERSION = 'v1';

/** True when a `hep_header.hep` value is a v1 version (`v1`, `v1.x`): the only major read and written. */
export function isHepV1(version: string): boolean {
  return /^v1(?:\.|$)/.test(version);
}

/** The start of every `message_delta` line the reference writes, up to the `turn_id` digits. */
export const HEP_DELTA_HEAD = '{"type":"message_delta","turn_id":';
/** What follows the `turn_id` digits of a `message_delta` line, up to the delta's JSON string. */
export const HEP_DELTA_KEY = ',"delta":';

/**
 * A `message_delta` line as the reference writes it: `turn` in plain digits, `delta` already a
 * JSON string. The decoder's shortcut reads exactly this spelling back (see decode.ts).
 */
export function hepMessageDeltaLine(turn: string, delta: string): string {
  return `${HEP_DELTA_HEAD}${turn}${HEP_DELTA_KEY}${delta}}\n`;
}

/** A `tool_delta` line as the reference writes it (`id` and `update` already JSON strings). */
export function hepToolDeltaLine(turn: string, id: string, update: string): string {
  return `{"type":"tool_delta","turn_id":${turn},"id":${id},"update":${update}}\n`;
}

/**
 * What the HEP decoder leaves in `provenance.hints` for the HEP writer: the typed contract
 * between the two (writers never import decoders).
 */
export interface HepHints {
  /**
   * The line as written, kept when re-serialising its record would not give it back (a Dart
   * `1.0` in an unknown field, integer-like keys); written back while the event says the same.
   */
  raw?: string;
  /** `turn_done.usage` fields beyond `input`/`output`/`cost`, in their order. */
  usageExtra?: JsonObject;
  /** `turn_done.usage`'s key order, when it is not the reference order. */
  usageOrder?: string[];
}

// Hand-written guards, one per frame, for records whose `type` already matched: each accepts
// exactly what its schema accepts (test/hep/guards.test.ts holds every guard alone equal to its
// schema with fast-check). A rejected frame's report is written from its shape (HEP_SHAPES).

function isToolResult(v: unknown): boolean {
  return (
    isObjectValue(v) &&
    typeof v.id === 'string' &&
    typeof v.name === 'string' &&
    typeof v.ok === 'boolean' &&
    typeof v.text === 'string'
  );
}

function isToolResults(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (!isToolResult(v[i])) return false;
  return true;
}

/** Guard of {@link HepMessageDeltaFrame} for a record whose `type` is `message_delta`. */
export function isValidMessageDelta(record: JsonObject): boolean {
  return isInt(record.turn_id) && typeof record.delta === 'string';
}

/** Guard of {@link HepToolDeltaFrame} for a record whose `type` is `tool_delta`. */
export function isValidToolDelta(record: JsonObject): boolean {
  return isInt(record.turn_id) && typeof record.id === 'string' && typeof record.update === 'string';
}

/** The guard of every frame type: true exactly when the frame's schema accepts the record. */
export const HEP_GUARDS: Readonly<Record<HepFrameType, (r: JsonObject) => boolean>> = {
  hep_header: (r) => typeof r.hep === 'string' && typeof r.fah === 'string' && typeof r.session === 'string',
  agent_start: (r) => isInt(r.turn_id),
  message_start: (r) => isInt(r.turn_id) && r.role === 'assistant',
  message_delta: isValidMessageDelta,
  tool_start: (r) =>
    isInt(r.turn_id) &&
    typeof r.id === 'string' &&
    typeof r.name === 'string' &&
    typeof r.args_summary === 'string',
  tool_delta: isValidToolDelta,
  tool_liveness: (r) =>
    isInt(r.turn_id) &&
    typeof r.id === 'string' &&
    typeof r.name === 'string' &&
    typeof r.action === 'string' &&
    isInt(r.elapsed_ms) &&
    (r.output_bytes === undefined || isInt(r.output_bytes)) &&
    (r.detail === undefined || typeof r.detail === 'string'),
  turn_done: (r) => {
    const u = r.usage;
    return (
      isInt(r.turn_id) &&
      typeof r.message === 'string' &&
      isToolResults(r.tool_results) &&
      isObjectValue(u) &&
      isInt(u.input) &&
      isInt(u.output) &&
      isFiniteNumber(u.cost) &&
      typeof r.stop_reason === 'string'
    );
  },
  turn_error: (r) => isInt(r.turn_id) && typeof r.error === 'string' && typeof r.fatal === 'boolean',
  cancelled: (r) => isInt(r.turn_id),
  compaction_start: (r) => isInt(r.turn_id),
  compaction_end: (r) => isInt(r.turn_id) && isInt(r.tokens_freed),
};

const { string, int, number, boolean, literal, optional, array, object } = shape;
// Every call in the shapes is marked pure, so that a bundle that only sniffs the format
// (`detectFormat`) leaves them out, with the guards and the spec map that name them.
const toolResult = /* @__PURE__ */ object({ id: string, name: string, ok: boolean, text: string });

/**
 * Each frame's schema as a {@link Shape}, for the report of a frame its guard rejects: zod's
 * report without zod (test/hep/guards.test.ts holds every report equal to its schema's).
 */
export const HEP_SHAPES: Readonly<Record<HepFrameType, Shape>> = {
  hep_header: /* @__PURE__ */ object({
    type: /* @__PURE__ */ literal('hep_header'),
    hep: string,
    fah: string,
    session: string,
  }),
  agent_start: /* @__PURE__ */ object({ type: /* @__PURE__ */ literal('agent_start'), turn_id: int }),
  message_start: /* @__PURE__ */ object({
    type: /* @__PURE__ */ literal('message_start'),
    turn_id: int,
    role: /* @__PURE__ */ literal('assistant'),
  }),
  message_delta: /* @__PURE__ */ object({
    type: /* @__PURE__ */ literal('message_delta'),
    turn_id: int,
    delta: string,
  }),
  tool_start: /* @__PURE__ */ object({
    type: /* @__PURE__ */ literal('tool_start'),
    turn_id: int,
    id: string,
    name: string,
    args_summary: string,
  }),
  tool_delta: /* @__PURE__ */ object({
    type: /* @__PURE__ */ literal('tool_delta'),
    turn_id: int,
    id: string,
    update: string,
  }),
  tool_liveness: /* @__PURE__ */ object({
    type: /* @__PURE__ */ literal('tool_liveness'),
    turn_id: int,
    id: string,
    name: string,
    action: string,
    elapsed_ms: int,
    output_bytes: /* @__PURE__ */ optional(int),
    detail: /* @__PURE__ */ optional(string),
  }),
  turn_done: /* @__PURE__ */ object({
    type: /* @__PURE__ */ literal('turn_done'),
    turn_id: int,
    message: string,
    tool_results: /* @__PURE__ */ array(toolResult),
    usage: /* @__PURE__ */ object({ input: int, output: int, cost: number }),
    stop_reason: string,
  }),
  turn_error: /* @__PURE__ */ object({
    type: /* @__PURE__ */ literal('turn_error'),
    turn_id: int,
    error: string,
    fatal: boolean,
  }),
  cancelled: /* @__PURE__ */ object({ type: /* @__PURE__ */ literal('cancelled'), turn_id: int }),
  compaction_start: /* @__PURE__ */ object({
    type: /* @__PURE__ */ literal('compaction_start'),
    turn_id: int,
  }),
  compaction_end: /* @__PURE__ */ object({
    type: /* @__PURE__ */ literal('compaction_end'),
    turn_id: int,
    tokens_freed: int,
  }),
};

/** What the decoder needs of one frame type, found with one lookup per record. */
export interface HepFrameSpec {
  /** The type, as the constant string (a `switch` on it compares pointers, not characters). */
  readonly type: HepFrameType;
  /** The schema's checks as a shape: the frame's report when the guard rejects it. */
  readonly report: Shape;
  /** The guard: the schema's check, written out. */
  readonly guard: (r: JsonObject) => boolean;
  /** The reference key order. */
  readonly keys: readonly string[];
}

// Built by calls marked pure, as the shapes are: a bundle that only sniffs the format
// (`detectFormat`) leaves the map out, and the guards and shapes it names.
const specs = /* @__PURE__ */ new Map<string, HepFrameSpec>(
  /* @__PURE__ */ (Object.keys(HEP_KEY_ORDER) as HepFrameType[]).map((type) => [
    type,
    { type, report: HEP_SHAPES[type], guard: HEP_GUARDS[type], keys: HEP_KEY_ORDER[type] },
  ]),
);
const spec = (type: HepFrameType): HepFrameSpec => specs.get(type)!;
const MESSAGE_DELTA = /* @__PURE__ */ spec('message_delta');
const TOOL_DELTA = /* @__PURE__ */ spec('tool_delta');
const TOOL_START = /* @__PURE__ */ spec('tool_start');
const TURN_DONE = /* @__PURE__ */ spec('turn_done');
const MESSAGE_START = /* @__PURE__ */ spec('message_start');

/**
 * The spec of a known frame type, `undefined` for any other string. A `type` read from JSON is a
 * fresh string each record when longer than 10 characters (V8 internalises only shorter values),
 * so a Map would hash it and a property lookup would search the string table first (a measurable
 * share of HEP decode time: docs/performance.md). Comparing with the few frequent types first
 * costs a length check and at most one short compare each.
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
 */
export function validateHepFrameSpec(spec: HepFrameSpec, record: JsonObject): string | undefined {
  // The frequent frames by a direct call (inlined), the others through their spec.
  let valid: boolean;
  if (spec === MESSAGE_DELTA) valid = isValidMessageDelta(record);
  else if (spec === TOOL_DELTA) valid = isValidToolDelta(record);
  else valid = spec.guard(record);
  if (valid) return undefined;
  return shapeProblems(spec.report, record);
}

/** True when `type` names a HEP v1 frame this library knows. */
export function isHepFrameType(type: string): type is HepFrameType {
  // The key order's own keys are the spec map's (it is built from them): the sniffer needs no map.
  return Object.hasOwn(HEP_KEY_ORDER, type);
}

/**
 * Validates a record whose `type` is a known frame type. Returns `undefined` when valid, else a
 * short description of the first problems (field path and what was expected).
 */
export function validateHepFrame(type: HepFrameType, record: unknown): string | undefined {
  const s = specs.get(type)!;
  if (isObjectValue(record) && s.guard(record)) return undefined;
  return shapeProblems(s.report, record);
}

/** The start of a `hep_header` line, recognised even when the line is cut. */
const HEADER_START = '{"type":"hep_header"';

/**
 * HEP's sniffing rule (called by `detectFormat` with the first non-blank line, and the JSON
 * object it holds when it is one): a `hep_header` is certain; a known frame with a `turn_id` is
 * likely.
 */
export function sniffHep(line: string, record: JsonObject | undefined): Detection | undefined {
  if (record === undefined) {
    // A first line cut by the detection window, or not JSON: look at its start.
    return line.startsWith(HEADER_START)
      ? { format: HEP, confidence: 'certain', reason: 'hep_header' }
      : undefined;
  }
  const type = record.type;
  if (type === 'hep_header') return { format: HEP, confidence: 'certain', reason: 'hep_header first' };
  if (typeof type === 'string' && isHepFrameType(type) && 'turn_id' in record) {
    return { format: HEP, confidence: 'likely', reason: `${aOr(type)} frame` };
  }
  return undefined;
}

/**
 * A short HEP stream whose run ends as the usual stream's does (a session, a round's usage and
 * stop reason, an answer), which the codec's held decoder reads once and whose events it keeps:
 * the run end is the one event a stream makes once, field by field, so its hidden classes died
 * at each full GC between streams, and a writer's optimised check of it met a class it had no
 * feedback for, stream after stream (createReader's `heldInput`; docs/performance.md, "Round
 * thirty-seven"). A sum of plain strings, so a bundle that does not use it drops it.
 */
export const HEP_HELD_INPUT =
  '{"type":"hep_header","hep":"v1","fah":"0","session":"s"}\n' +
  '{"type":"agent_start","turn_id":1}\n' +
  '{"type":"turn_done","turn_id":1,"message":"a","tool_results":[],"usage":{"input":1,"output":1,"cost":0.1},"stop_reason":"stop"}\n';
