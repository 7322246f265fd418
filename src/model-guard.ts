import { FORMATS } from './diagnostics';
import type { AgentEventType } from './model';

// The canonical model's checks written out as data, and read without zod. The zod schemas in
// model.ts stay the source of the types and of `validateEvent` (public; its result carries zod's
// error); the decoders that must decide whether a carried value is a canonical event (the
// nativeharness `agentwire_event` extension, AG-UI and AI SDK carried events) ask
// `isAgentEvent` here, so a program that only decodes never loads zod (its module graph is most
// of the CLI's start-up memory: docs/performance.md "The CLI against jq"). A test derives this
// table from `AgentEventSchema` and holds the two equal, and a fast-check property holds
// `isAgentEvent` equal to `AgentEventSchema.safeParse(…).success`.

/**
 * One value check, as data: a primitive zod type by name, a literal, an enum, an array, a string
 * keyed record, or an object.
 */
export type ModelCheck =
  | 'string'
  | 'number'
  | 'boolean'
  | 'unknown'
  | { readonly literal: string }
  | { readonly oneOf: readonly string[] }
  | { readonly array: ModelCheck }
  | { readonly record: ModelCheck }
  | { readonly object: ModelFields };

/** An object's keys: each a check, or `{ optional }` for a key that may be absent (`z.exactOptional`). */
export type ModelFields = Readonly<Record<string, ModelCheck | { readonly optional: ModelCheck }>>;

// Literals, not calls: a bundle that takes only the type list leaves every one out.
const S: ModelCheck = 'string';
const N: ModelCheck = 'number';
const B: ModelCheck = 'boolean';
const U: ModelCheck = 'unknown';
const oS = { optional: S };
const oN = { optional: N };
const oB = { optional: B };
const anyRecord: ModelCheck = { record: U };

const PROVENANCE: ModelCheck = {
  object: {
    format: { oneOf: FORMATS },
    line: N,
    offset: N,
    extra: { optional: anyRecord },
    order: { optional: { array: S } },
    synthetic: oB,
    hints: { optional: anyRecord },
  },
};

const USAGE_COUNTS = { input: oN, output: oN, cacheRead: oN, cacheWrite: oN, reasoning: oN, costUsd: oN };
const USAGE: ModelCheck = {
  object: {
    ...USAGE_COUNTS,
    scope: { optional: { oneOf: ['call', 'round', 'run', 'thread'] } },
    final: oB,
    key: oS,
    model: oS,
    byModel: { optional: { record: { object: USAGE_COUNTS } } },
  },
};
const oUsage = { optional: USAGE };
const RUN_STATUS: ModelCheck = { oneOf: ['completed', 'failed', 'cancelled', 'incomplete'] };
const OPTION: ModelCheck = { object: { id: S, label: S, kind: oS } };

const ENVELOPE: ModelFields = {
  session: oS,
  workspace: oS,
  run: oS,
  round: oN,
  seq: oN,
  ts: oN,
  context: { optional: anyRecord },
  lane: oS,
  provenance: { optional: PROVENANCE },
};

/** Every canonical event type, in the order docs/model.md lists them. */
export const AGENT_EVENT_TYPES: readonly AgentEventType[] = [
  'session.start',
  'session.title',
  'tools.declare',
  'run.start',
  'run.end',
  'round.start',
  'round.end',
  'message.start',
  'message.end',
  'text.delta',
  'reasoning.delta',
  'user.message',
  'status',
  'tool.start',
  'tool.args.delta',
  'tool.output',
  'tool.liveness',
  'tool.end',
  'approval.request',
  'approval.resolve',
  'question',
  'question.answer',
  'plan',
  'file.change',
  'notice',
  'usage',
  'child.start',
  'child.progress',
  'child.end',
  'compaction.start',
  'compaction.end',
  'error',
  'cancel',
  'unknown',
];

// Each event type's own keys, in the order of model.ts (the envelope and `type` are added below),
// type by type in the order of AGENT_EVENT_TYPES: a list beside the list of types, not a table
// keyed by them, so that a bundle that takes only the types (the `agentwire` entry, a writer that
// looks a type up) carries no check; the table test holds each type's check to its zod schema.
const OWN_FIELDS: readonly ModelFields[] = [
  // session.start
  {
    producer: oS,
    protocol: oS,
    pid: oN,
    tools: { optional: { array: S } },
    title: oS,
    actor: oS,
    mode: oS,
    model: oS,
    cwd: oS,
  },
  // session.title
  { title: S },
  // tools.declare
  { tools: { array: S } },
  // run.start
  { input: oS },
  // run.end
  {
    status: RUN_STATUS,
    reason: oS,
    error: oS,
    durationMs: oN,
    answer: oS,
    input: oS,
    stopReason: oS,
    usage: oUsage,
  },
  // round.start
  { model: oS },
  // round.end
  { message: S, stopReason: oS, usage: oUsage, model: oS },
  // message.start
  { role: { literal: 'assistant' }, message: oS, model: oS },
  // message.end
  { message: oS },
  // text.delta
  { text: S, message: oS },
  // reasoning.delta
  { text: S, message: oS, signature: oS, redacted: oS },
  // user.message
  { text: S, synthetic: oB },
  // status
  { status: S, detail: oS },
  // tool.start
  {
    call: S,
    name: S,
    kind: {
      optional: {
        oneOf: ['read', 'edit', 'delete', 'move', 'search', 'execute', 'fetch', 'think', 'agent', 'other'],
      },
    },
    server: oS,
    args: { optional: anyRecord },
    argsSummary: oS,
    command: oS,
    startedAt: oN,
  },
  // tool.args.delta
  { call: S, name: oS, text: S },
  // tool.output
  { call: S, stream: { optional: { oneOf: ['stdout', 'stderr'] } }, text: S },
  // tool.liveness
  { call: S, name: oS, action: S, elapsedMs: N, outputBytes: oN, detail: oS },
  // tool.end
  {
    call: S,
    name: oS,
    ok: B,
    text: oS,
    result: { optional: U },
    error: { optional: U },
    exitCode: oN,
    filesChanged: { optional: { array: S } },
    denied: oB,
    startedAt: oN,
    endedAt: oN,
  },
  // approval.request
  {
    approval: S,
    call: oS,
    tool: oS,
    title: oS,
    args: { optional: anyRecord },
    effects: { optional: { array: S } },
    options: { optional: { array: OPTION } },
  },
  // approval.resolve
  { approval: S, decision: S, by: oS, option: oS },
  // question
  {
    question: S,
    questions: {
      array: { object: { id: oS, text: S, options: { optional: { array: OPTION } }, multiple: oB } },
    },
    call: oS,
  },
  // question.answer
  { question: S, answers: anyRecord },
  // plan
  {
    plan: oS,
    items: { array: { object: { text: S, status: { oneOf: ['pending', 'in_progress', 'completed'] } } } },
    text: oS,
  },
  // file.change
  { call: oS, changes: { array: { object: { path: S, kind: S } } }, status: oS },
  // notice
  {
    kind: S,
    message: oS,
    severity: { optional: { oneOf: ['info', 'warning'] } },
    data: { optional: anyRecord },
  },
  // usage
  { usage: USAGE },
  // child.start
  { child: S, name: oS, task: oS, call: oS, background: oB, kind: oS },
  // child.progress
  { child: S, detail: oS, usage: oUsage },
  // child.end
  { child: S, status: RUN_STATUS, result: oS, usage: oUsage },
  // compaction.start
  { trigger: oS },
  // compaction.end
  { tokensFreed: oN, trigger: oS, tokensBefore: oN, tokensAfter: oN },
  // error
  { message: S, fatal: B, code: oS, data: { optional: U } },
  // cancel
  { by: oS },
  // unknown
  { recordType: oS, record: U },
];

// Built by calls marked pure: a bundle that takes only the type list from here (the `agentwire`
// entry) leaves the checks out.
/** Each event type's whole check, as `AgentEventSchema`'s member for that type checks it. */
export const EVENT_CHECKS: Readonly<Record<AgentEventType, ModelCheck>> = /* @__PURE__ */ Object.fromEntries(
  /* @__PURE__ */ AGENT_EVENT_TYPES.map((type, i): [AgentEventType, ModelCheck] => [
    type,
    { object: { type: { literal: type }, ...ENVELOPE, ...OWN_FIELDS[i] } },
  ]),
) as Record<AgentEventType, ModelCheck>;

// zod's object check: a non-null object that is not an array.
function isObject(value: unknown): value is Record<PropertyKey, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// zod's record check (`isPlainObject`), to the letter: an object whose `constructor` is absent,
// not a function, or one whose prototype owns `isPrototypeOf` (Object, in any realm).
function isPlainObject(value: unknown): value is Record<PropertyKey, unknown> {
  if (!isObject(value)) return false;
  const ctor = value.constructor;
  if (ctor === undefined || typeof ctor !== 'function') return true;
  const proto: unknown = ctor.prototype;
  return isObject(proto) && Object.hasOwn(proto, 'isPrototypeOf');
}

function passesRecord(check: ModelCheck, value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  // Like zod: own enumerable keys, `__proto__` skipped; a symbol key is not a string.
  for (const key of Reflect.ownKeys(value)) {
    if (key === '__proto__' || !Object.prototype.propertyIsEnumerable.call(value, key)) continue;
    if (typeof key !== 'string' || !passes(check, value[key])) return false;
  }
  return true;
}

function passesObject(fields: ModelFields, value: unknown): boolean {
  if (!isObject(value)) return false;
  for (const key in fields) {
    const field = fields[key]!;
    // zod asks `key in value` (inherited keys count) and reads `value[key]`.
    const present = key in value;
    if (typeof field === 'object' && 'optional' in field) {
      if (present && !passes(field.optional, value[key])) return false;
    } else if (!present || !passes(field, value[key])) return false;
  }
  return true;
}

function passes(check: ModelCheck, value: unknown): boolean {
  switch (check) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'unknown':
      return true;
  }
  if ('literal' in check) return value === check.literal;
  if ('oneOf' in check) return typeof value === 'string' && check.oneOf.includes(value);
  if ('array' in check) {
    if (!Array.isArray(value)) return false;
    for (let i = 0; i < value.length; i++) if (!passes(check.array, value[i])) return false;
    return true;
  }
  if ('record' in check) return passesRecord(check.record, value);
  return passesObject(check.object, value);
}

/**
 * True when `value` is a well-formed canonical event: exactly what `validateEvent` (zod's
 * `AgentEventSchema`) accepts, decided without loading zod.
 */
export function isAgentEvent(value: unknown): boolean {
  if (!isObject(value)) return false;
  const type = value.type;
  if (typeof type !== 'string' || !Object.hasOwn(EVENT_CHECKS, type)) return false;
  return passes(EVENT_CHECKS[type as AgentEventType], value);
}
