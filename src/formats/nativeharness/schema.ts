import * as z from 'zod/mini';

// The zod schemas of nativeharness v1's records: the source of the wire types (wire.ts) and of the
// reports' wording, which the decoder writes without zod (the guards and shapes in wire.ts, held
// equal to these by the guard tests). They live apart from wire.ts so that a program that only
// decodes and writes never loads zod (docs/performance.md "The CLI against jq"); the format's
// entry exports them. Every zod call is marked pure: an app that imports only the codec bundles
// none of zod; an app that imports a schema gets it whole.

const int = /* @__PURE__ */ z.int();

/** The envelope around every payload. */
export const NhEnvelope = /* @__PURE__ */ z.looseObject({
  seq: /* @__PURE__ */ z.int().check(/* @__PURE__ */ z.minimum(0)),
  ts: /* @__PURE__ */ z.number(),
  type: /* @__PURE__ */ z.string(),
  workspace_id: /* @__PURE__ */ z.string(),
  session_id: /* @__PURE__ */ z.string(),
  turn_id: /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
  payload: /* @__PURE__ */ z.record(/* @__PURE__ */ z.string(), /* @__PURE__ */ z.unknown()),
});

/** Token totals in `done` and `hop`. */
export const NhUsage = /* @__PURE__ */ z.looseObject({
  input_tokens: int,
  output_tokens: int,
  cost_usd: /* @__PURE__ */ z.number(),
});

/** One option of an approval card (ACP's permission option kinds). */
export const NhApprovalOption = /* @__PURE__ */ z.looseObject({
  option_id: /* @__PURE__ */ z.string(),
  label: /* @__PURE__ */ z.string(),
  kind: /* @__PURE__ */ z.string(),
});

/** One option of a question. */
export const NhQuestionOption = /* @__PURE__ */ z.looseObject({
  option_id: /* @__PURE__ */ z.string(),
  label: /* @__PURE__ */ z.string(),
});

/** One question of `ask_user`. */
export const NhQuestion = /* @__PURE__ */ z.looseObject({
  id: /* @__PURE__ */ z.string(),
  text: /* @__PURE__ */ z.string(),
  options: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.array(NhQuestionOption)),
  multiple: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.boolean()),
});

const runStatus = /* @__PURE__ */ z.enum(['completed', 'failed', 'cancelled']);

/** Payload schemas by event type. */
export const NhPayloads = {
  session_created: /* @__PURE__ */ z.looseObject({
    v: int,
    actor: /* @__PURE__ */ z.string(),
    mode: /* @__PURE__ */ z.string(),
    title: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
    producer: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
  }),
  title: /* @__PURE__ */ z.looseObject({ title: /* @__PURE__ */ z.string() }),
  turn_started: /* @__PURE__ */ z.looseObject({ input: /* @__PURE__ */ z.string() }),
  token: /* @__PURE__ */ z.looseObject({ hop: int, text: /* @__PURE__ */ z.string() }),
  progress: /* @__PURE__ */ z.looseObject({
    status: /* @__PURE__ */ z.string(),
    detail: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
  }),
  tool_started: /* @__PURE__ */ z.looseObject({
    hop: int,
    call_id: /* @__PURE__ */ z.string(),
    tool: /* @__PURE__ */ z.string(),
    args: /* @__PURE__ */ z.record(/* @__PURE__ */ z.string(), /* @__PURE__ */ z.unknown()),
    command: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
    args_summary: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
  }),
  output: /* @__PURE__ */ z.looseObject({
    call_id: /* @__PURE__ */ z.string(),
    stream: /* @__PURE__ */ z.enum(['stdout', 'stderr']),
    text: /* @__PURE__ */ z.string(),
  }),
  tool_result: /* @__PURE__ */ z.looseObject({
    hop: int,
    call_id: /* @__PURE__ */ z.string(),
    tool: /* @__PURE__ */ z.string(),
    status: /* @__PURE__ */ z.enum(['ok', 'error', 'denied', 'cancelled']),
    exit_code: /* @__PURE__ */ z.nullable(int),
    files_changed: /* @__PURE__ */ z.array(/* @__PURE__ */ z.string()),
    output: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
    error: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
  }),
  approval_required: /* @__PURE__ */ z.looseObject({
    approval_id: /* @__PURE__ */ z.string(),
    call_id: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
    tool: /* @__PURE__ */ z.string(),
    title: /* @__PURE__ */ z.string(),
    effects: /* @__PURE__ */ z.array(/* @__PURE__ */ z.string()),
    options: /* @__PURE__ */ z.array(NhApprovalOption),
  }),
  approval_resolved: /* @__PURE__ */ z.looseObject({
    approval_id: /* @__PURE__ */ z.string(),
    decision: /* @__PURE__ */ z.string(),
    by: /* @__PURE__ */ z.string(),
    option_id: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
  }),
  ask_user: /* @__PURE__ */ z.looseObject({
    question_id: /* @__PURE__ */ z.string(),
    questions: /* @__PURE__ */ z.array(NhQuestion),
  }),
  child_started: /* @__PURE__ */ z.looseObject({
    child_id: /* @__PURE__ */ z.string(),
    name: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
    task: /* @__PURE__ */ z.string(),
  }),
  child_done: /* @__PURE__ */ z.looseObject({
    child_id: /* @__PURE__ */ z.string(),
    status: runStatus,
    result: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
  }),
  compacted: /* @__PURE__ */ z.looseObject({ tokens_freed: int }),
  error: /* @__PURE__ */ z.looseObject({
    message: /* @__PURE__ */ z.string(),
    recoverable: /* @__PURE__ */ z.boolean(),
    code: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
  }),
  cancelled: /* @__PURE__ */ z.looseObject({ by: /* @__PURE__ */ z.string() }),
  done: /* @__PURE__ */ z.looseObject({
    status: runStatus,
    stop_reason: /* @__PURE__ */ z.string(),
    usage: NhUsage,
  }),
  hop: /* @__PURE__ */ z.looseObject({
    hop: int,
    text: /* @__PURE__ */ z.string(),
    tool_calls: /* @__PURE__ */ z.array(/* @__PURE__ */ z.string()),
    stop_reason: /* @__PURE__ */ z.string(),
    usage: NhUsage,
  }),
} as const;
