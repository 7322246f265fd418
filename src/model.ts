import * as z from 'zod/mini';

// The canonical event model. The zod schemas are the single source of the types (`z.infer`);
// docs/model.md explains every event and how each format maps onto it.

/** Where an event came from, and what its wire record had that the model has no slot for. */
export const ProvenanceSchema = z.object({
  /** The wire format the event was decoded from. */
  format: z.enum(['hep', 'highbar', 'nativeharness']),
  /** 1-based line (JSONL) or first line of the SSE block the event came from. */
  line: z.number(),
  /** Byte offset of that line in the input. */
  offset: z.number(),
  /** Wire fields with no slot in the model, in their original order (for byte-exact rewrites). */
  extra: z.exactOptional(z.record(z.string(), z.unknown())),
  /** The wire record's key order, kept only when it differs from what the writer would produce. */
  order: z.exactOptional(z.array(z.string())),
  /** True when the event was derived (not one wire record), e.g. a run end implied by a stream end. */
  synthetic: z.exactOptional(z.boolean()),
  /** Format-private facts a writer needs to reproduce the record byte for byte. */
  hints: z.exactOptional(z.record(z.string(), z.unknown())),
});

/** Token and cost accounting. Which scope it covers depends on the event carrying it. */
export const UsageSchema = z.object({
  /** Input (prompt) tokens. */
  input: z.exactOptional(z.number()),
  /** Output (completion) tokens. */
  output: z.exactOptional(z.number()),
  /** Cost in US dollars. */
  costUsd: z.exactOptional(z.number()),
});

const envelope = {
  /** Session id (HEP `session`, nativeharness `session_id`). */
  session: z.exactOptional(z.string()),
  /** Workspace id (nativeharness `workspace_id`). */
  workspace: z.exactOptional(z.string()),
  /** Run id: one user message handled (nativeharness `turn_id`). */
  run: z.exactOptional(z.string()),
  /** Round number: one model response and its tool calls (HEP `turn_id`, nativeharness hop). */
  round: z.exactOptional(z.number()),
  /** Sequence number, strictly increasing per session (nativeharness `seq`). */
  seq: z.exactOptional(z.number()),
  /** When the event happened: milliseconds since the Unix epoch (fractions allowed). */
  ts: z.exactOptional(z.number()),
  /** Correlation context (highbar `context`, e.g. `{ test }`). */
  context: z.exactOptional(z.record(z.string(), z.unknown())),
  /** Where the event came from. Absent on events built by hand. */
  provenance: z.exactOptional(ProvenanceSchema),
};

function event<T extends string, S extends Record<string, z.core.$ZodType>>(type: T, shape: S) {
  return z.object({ type: z.literal(type), ...envelope, ...shape });
}

/** A session (conversation) exists: HEP header, highbar `hello`, nativeharness `session_created`. */
export const SessionStartSchema = event('session.start', {
  /** The writer and its version (HEP `fah`, highbar `sdk`). */
  producer: z.exactOptional(z.string()),
  /** The wire protocol version as written (HEP `hep`, e.g. `v1`). */
  protocol: z.exactOptional(z.string()),
  /** The writer's process id (highbar `pid`). */
  pid: z.exactOptional(z.number()),
  /** Tools the writer records (highbar `hello.tools`). */
  tools: z.exactOptional(z.array(z.string())),
  /** Title, actor and mode (nativeharness `session_created`). */
  title: z.exactOptional(z.string()),
  actor: z.exactOptional(z.string()),
  mode: z.exactOptional(z.string()),
});

/** The session was given (or gave itself) a title. */
export const SessionTitleSchema = event('session.title', { title: z.string() });

/** The writer declares tool names it records (highbar `tools`). */
export const ToolsDeclareSchema = event('tools.declare', { tools: z.array(z.string()) });

/** A run began: one user message is being handled. */
export const RunStartSchema = event('run.start', {
  /** The user's message, when the format carries it. */
  input: z.exactOptional(z.string()),
});

/** How a run or child ended. */
export const RunStatusSchema = z.enum(['completed', 'failed', 'cancelled']);

/** A run ended. `usage` here is the run's total. */
export const RunEndSchema = event('run.end', {
  status: RunStatusSchema,
  /** The user-visible answer. */
  answer: z.exactOptional(z.string()),
  /** The message the agent received (highbar `turn.message`). */
  input: z.exactOptional(z.string()),
  stopReason: z.exactOptional(z.string()),
  /** Totals for the whole run. */
  usage: z.exactOptional(UsageSchema),
});

/** A round began (formats that mark it; HEP rounds start implicitly). */
export const RoundStartSchema = event('round.start', {});

/** A round finished normally. `usage` here is the round's own. */
export const RoundEndSchema = event('round.end', {
  /** The round's assistant text (empty for a tool-call-only round). */
  message: z.string(),
  /** The provider's stop reason (`stop`, `length`, `toolUse`, …). */
  stopReason: z.exactOptional(z.string()),
  /** This round's usage only. */
  usage: z.exactOptional(UsageSchema),
});

/** An assistant message begins. */
export const MessageStartSchema = event('message.start', { role: z.literal('assistant') });

/** A chunk of assistant text (never thinking). */
export const TextDeltaSchema = event('text.delta', { text: z.string() });

/** A status line: `deciding`, `running`, `reviewing`, `compacting`, `waiting`, or another word. */
export const StatusSchema = event('status', { status: z.string(), detail: z.exactOptional(z.string()) });

/** A tool call starts. */
export const ToolStartSchema = event('tool.start', {
  /** The call id; every later event of the call carries it. */
  call: z.string(),
  name: z.string(),
  /** The arguments as an object, when known. */
  args: z.exactOptional(z.record(z.string(), z.unknown())),
  /** The arguments as a one-line summary (HEP `args_summary`). */
  argsSummary: z.exactOptional(z.string()),
  /** For shell tools: the command line. */
  command: z.exactOptional(z.string()),
  /** When the call started, ms since the epoch. */
  startedAt: z.exactOptional(z.number()),
});

/** Partial output of a tool call. */
export const ToolOutputSchema = event('tool.output', {
  call: z.string(),
  /** Which stream, when the format says. */
  stream: z.exactOptional(z.enum(['stdout', 'stderr'])),
  text: z.string(),
});

/** A liveness heartbeat or stuck-call follow-up for a long-running call. */
export const ToolLivenessSchema = event('tool.liveness', {
  call: z.string(),
  name: z.exactOptional(z.string()),
  /** `heartbeat`, `cancel_retry`, `background_convert`, `escalate`, `advisory`, … */
  action: z.string(),
  elapsedMs: z.number(),
  outputBytes: z.exactOptional(z.number()),
  detail: z.exactOptional(z.string()),
});

/** A tool call ended. */
export const ToolEndSchema = event('tool.end', {
  call: z.string(),
  name: z.exactOptional(z.string()),
  /** False when the call failed (also a failure the tool returned as data). */
  ok: z.boolean(),
  /** The result as text. */
  text: z.exactOptional(z.string()),
  /** The result as JSON, when the format has it (highbar `result`). */
  result: z.exactOptional(z.unknown()),
  /** Why the call failed: text, or JSON when the writer put a non-text value. */
  error: z.exactOptional(z.unknown()),
  exitCode: z.exactOptional(z.number()),
  filesChanged: z.exactOptional(z.array(z.string())),
  /** ms since the epoch. */
  startedAt: z.exactOptional(z.number()),
  /** ms since the epoch. */
  endedAt: z.exactOptional(z.number()),
});

/** One choice offered with an approval or a question. */
export const OptionSchema = z.object({
  id: z.string(),
  label: z.string(),
  /** For approvals: `allow_once`, `allow_always`, `reject_once`, `reject_always`, or another kind. */
  kind: z.exactOptional(z.string()),
});

/** The agent asks permission for an action. */
export const ApprovalRequestSchema = event('approval.request', {
  approval: z.string(),
  call: z.exactOptional(z.string()),
  tool: z.exactOptional(z.string()),
  title: z.exactOptional(z.string()),
  /** What the action would do, as lines of text. */
  effects: z.exactOptional(z.array(z.string())),
  options: z.exactOptional(z.array(OptionSchema)),
});

/** An approval was decided. */
export const ApprovalResolveSchema = event('approval.resolve', {
  approval: z.string(),
  /** `allow` or `deny` (or a format's own word). */
  decision: z.string(),
  /** Who decided: `user`, `policy`, `timeout`, … */
  by: z.exactOptional(z.string()),
  option: z.exactOptional(z.string()),
});

/** One question to the user. */
export const QuestionItemSchema = z.object({
  id: z.exactOptional(z.string()),
  text: z.string(),
  options: z.exactOptional(z.array(OptionSchema)),
  multiple: z.exactOptional(z.boolean()),
});

/** The agent asks the user questions. */
export const QuestionSchema = event('question', {
  question: z.string(),
  questions: z.array(QuestionItemSchema),
});

/** A child agent (subagent) starts. */
export const ChildStartSchema = event('child.start', {
  child: z.string(),
  name: z.exactOptional(z.string()),
  task: z.exactOptional(z.string()),
});

/** A child agent finished. */
export const ChildEndSchema = event('child.end', {
  child: z.string(),
  status: RunStatusSchema,
  result: z.exactOptional(z.string()),
});

/** History compaction starts. */
export const CompactionStartSchema = event('compaction.start', {});

/** History compaction ended. */
export const CompactionEndSchema = event('compaction.end', { tokensFreed: z.exactOptional(z.number()) });

/** Something failed. `fatal` ends the run; otherwise the run goes on. */
export const ErrorEventSchema = event('error', {
  message: z.string(),
  fatal: z.boolean(),
  code: z.exactOptional(z.string()),
});

/** The run was cancelled. */
export const CancelSchema = event('cancel', {
  /** Who stopped it: `user`, `signal`, `system`, … */
  by: z.exactOptional(z.string()),
});

/** A wire record the codec does not know, kept whole so nothing is lost. */
export const UnknownEventSchema = event('unknown', {
  /** The record's own type name, when it has one. */
  recordType: z.exactOptional(z.string()),
  /** The record as decoded. */
  record: z.unknown(),
});

/** Every canonical event, discriminated by `type`. */
export const AgentEventSchema = z.discriminatedUnion('type', [
  SessionStartSchema,
  SessionTitleSchema,
  ToolsDeclareSchema,
  RunStartSchema,
  RunEndSchema,
  RoundStartSchema,
  RoundEndSchema,
  MessageStartSchema,
  TextDeltaSchema,
  StatusSchema,
  ToolStartSchema,
  ToolOutputSchema,
  ToolLivenessSchema,
  ToolEndSchema,
  ApprovalRequestSchema,
  ApprovalResolveSchema,
  QuestionSchema,
  ChildStartSchema,
  ChildEndSchema,
  CompactionStartSchema,
  CompactionEndSchema,
  ErrorEventSchema,
  CancelSchema,
  UnknownEventSchema,
]);

/** A canonical event. */
export type AgentEvent = z.infer<typeof AgentEventSchema>;
/** The `type` of a canonical event. */
export type AgentEventType = AgentEvent['type'];
/** The event of one `type`. */
export type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;
/** An event's provenance. */
export type Provenance = z.infer<typeof ProvenanceSchema>;
/** Token and cost accounting. */
export type Usage = z.infer<typeof UsageSchema>;
/** How a run or child ended. */
export type RunStatus = z.infer<typeof RunStatusSchema>;
/** A choice offered with an approval or question. */
export type Choice = z.infer<typeof OptionSchema>;
/** One question to the user. */
export type QuestionItem = z.infer<typeof QuestionItemSchema>;

/** Every canonical event type, in the order docs/model.md lists them. */
export const AGENT_EVENT_TYPES: readonly AgentEventType[] = AgentEventSchema.def.options.map(
  (o) => o.shape.type.def.values[0],
) as AgentEventType[];

/**
 * Checks that `value` is a well-formed canonical event (for events built by hand or received
 * over a wire). Returns the zod result; the event itself is not copied on success.
 */
export function validateEvent(
  value: unknown,
): { success: true; data: AgentEvent } | { success: false; error: z.core.$ZodError } {
  const result = AgentEventSchema.safeParse(value);
  return result.success
    ? { success: true, data: value as AgentEvent }
    : { success: false, error: result.error };
}
