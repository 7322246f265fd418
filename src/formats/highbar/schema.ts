import * as z from 'zod/mini';

// The zod schemas of highbar's records: the source of the wire types (wire.ts) and of the
// reports' wording, which the decoder writes without zod (the guards and shapes in wire.ts, held
// equal to these by the guard tests). They live apart from wire.ts so that a program that only
// decodes and writes never loads zod (docs/performance.md "The CLI against jq"); the format's
// entry exports them. Every zod call is marked pure: an app that imports only the codec bundles
// none of zod; an app that imports a schema gets it whole.

const context = /* @__PURE__ */ z.optional(
  /* @__PURE__ */ z.record(/* @__PURE__ */ z.string(), /* @__PURE__ */ z.unknown()),
);

/** `tool`: one tool call. */
export const HighbarToolRecord = /* @__PURE__ */ z.looseObject({
  v: /* @__PURE__ */ z.literal(1),
  type: /* @__PURE__ */ z.literal('tool'),
  fn: /* @__PURE__ */ z.string(),
  args: /* @__PURE__ */ z.optional(
    /* @__PURE__ */ z.record(/* @__PURE__ */ z.string(), /* @__PURE__ */ z.unknown()),
  ),
  context,
});
/** `turn`: one message handled. */
export const HighbarTurnRecord = /* @__PURE__ */ z.looseObject({
  v: /* @__PURE__ */ z.literal(1),
  type: /* @__PURE__ */ z.literal('turn'),
  message: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
  response: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
  context,
});
/** `hello`: the writer started. */
export const HighbarHelloRecord = /* @__PURE__ */ z.looseObject({
  v: /* @__PURE__ */ z.literal(1),
  type: /* @__PURE__ */ z.literal('hello'),
  sdk: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()),
  pid: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.int()),
  tools: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.array(/* @__PURE__ */ z.string())),
  context,
});
/** `tools`: the tools the writer records. */
export const HighbarToolsRecord = /* @__PURE__ */ z.looseObject({
  v: /* @__PURE__ */ z.literal(1),
  type: /* @__PURE__ */ z.literal('tools'),
  names: /* @__PURE__ */ z.array(/* @__PURE__ */ z.string()),
  context,
});
/** A v0 line: a tool call without `v` (or with `"v": 0`); every other field is context. */
export const HighbarV0Record = /* @__PURE__ */ z.looseObject({
  v: /* @__PURE__ */ z.optional(/* @__PURE__ */ z.literal(0)),
  fn: /* @__PURE__ */ z.string(),
  args: /* @__PURE__ */ z.optional(
    /* @__PURE__ */ z.record(/* @__PURE__ */ z.string(), /* @__PURE__ */ z.unknown()),
  ),
});
