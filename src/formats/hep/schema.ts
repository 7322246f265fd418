import * as z from 'zod/mini';

// The zod schemas of HEP v1's records: the source of the wire types (wire.ts) and of the
// reports' wording, which the decoder writes without zod (the guards and shapes in wire.ts, held
// equal to these by the guard tests). They live apart from wire.ts so that a program that only
// decodes and writes never loads zod (docs/performance.md "The CLI against jq"); the format's
// entry exports them. Every zod call is marked pure: an app that imports only the codec bundles
// none of zod; an app that imports a schema gets it whole.

const turnId = /* @__PURE__ */ z.int();

/** `hep_header`: always the first line. */
export const HepHeaderFrame = /* @__PURE__ */ z.looseObject({
  type: /* @__PURE__ */ z.literal('hep_header'),
  hep: /* @__PURE__ */ z.string(),
  fah: /* @__PURE__ */ z.string(),
  session: /* @__PURE__ */ z.string(),
});
/** `agent_start`: the run began. */
export const HepAgentStartFrame = /* @__PURE__ */ z.looseObject({
  type: /* @__PURE__ */ z.literal('agent_start'),
  turn_id: turnId,
});
/** `message_start`: an assistant message starts. */
export const HepMessageStartFrame = /* @__PURE__ */ z.looseObject({
  type: /* @__PURE__ */ z.literal('message_start'),
  turn_id: turnId,
  role: /* @__PURE__ */ z.literal('assistant'),
});
/** `message_delta`: a chunk of assistant text. */
export const HepMessageDeltaFrame = /* @__PURE__ */ z.looseObject({
  type: /* @__PURE__ */ z.literal('message_delta'),
  turn_id: turnId,
  delta: /* @__PURE__ */ z.string(),
});
/** `tool_start`: a tool call starts. */
export const HepToolStartFrame = /* @__PURE__ */ z.looseObject({
  type: /* @__PURE__ */ z.literal('tool_start'),
  turn_id: turnId,
  id: /* @__PURE__ */ z.string(),
  name: /* @__PURE__ */ z.string(),
  args_summary: /* @__PURE__ */ z.string(),
});
/** `tool_delta`: partial tool output. */
export const HepToolDeltaFrame = /* @__PURE__ */ z.looseObject({
  type: /* @__PURE__ */ z.literal('tool_delta'),
  turn_id: turnId,
  id: /* @__PURE__ */ z.string(),
  update: /* @__PURE__ */ z.string(),
});
/** `tool_liveness`: heartbeat or stuck-call follow-up. */
export const HepToolLivenessFrame = /* @__PURE__ */ z.looseObject({
  type: /* @__PURE__ */ z.literal('tool_liveness'),
  turn_id: turnId,
  id: /* @__PURE__ */ z.string(),
  name: /* @__PURE__ */ z.string(),
  action: /* @__PURE__ */ z.string(),
  elapsed_ms: /* @__PURE__ */ z.int(),
  output_bytes: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.int()),
  detail: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
});
/** One entry of `turn_done.tool_results`. */
export const HepToolResult = /* @__PURE__ */ z.looseObject({
  id: /* @__PURE__ */ z.string(),
  name: /* @__PURE__ */ z.string(),
  ok: /* @__PURE__ */ z.boolean(),
  text: /* @__PURE__ */ z.string(),
});
/** `turn_done.usage`. */
export const HepUsage = /* @__PURE__ */ z.looseObject({
  input: /* @__PURE__ */ z.int(),
  output: /* @__PURE__ */ z.int(),
  cost: /* @__PURE__ */ z.number(),
});
/** `turn_done`: terminal frame of a round that completed. */
export const HepTurnDoneFrame = /* @__PURE__ */ z.looseObject({
  type: /* @__PURE__ */ z.literal('turn_done'),
  turn_id: turnId,
  message: /* @__PURE__ */ z.string(),
  tool_results: /* @__PURE__ */ z.array(HepToolResult),
  usage: HepUsage,
  stop_reason: /* @__PURE__ */ z.string(),
});
/** `turn_error`: terminal frame of a round that failed. */
export const HepTurnErrorFrame = /* @__PURE__ */ z.looseObject({
  type: /* @__PURE__ */ z.literal('turn_error'),
  turn_id: turnId,
  error: /* @__PURE__ */ z.string(),
  fatal: /* @__PURE__ */ z.boolean(),
});
/** `cancelled`: the run was aborted. */
export const HepCancelledFrame = /* @__PURE__ */ z.looseObject({
  type: /* @__PURE__ */ z.literal('cancelled'),
  turn_id: turnId,
});
/** `compaction_start`. */
export const HepCompactionStartFrame = /* @__PURE__ */ z.looseObject({
  type: /* @__PURE__ */ z.literal('compaction_start'),
  turn_id: turnId,
});
/** `compaction_end`. */
export const HepCompactionEndFrame = /* @__PURE__ */ z.looseObject({
  type: /* @__PURE__ */ z.literal('compaction_end'),
  turn_id: turnId,
  tokens_freed: /* @__PURE__ */ z.int(),
});
