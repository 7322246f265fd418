import * as z from 'zod/mini';
import { FORMATS } from './diagnostics';

// Every canonical event type; defined beside the model's zod-free check (model-guard.ts), which a
// test holds equal to these schemas.
export { AGENT_EVENT_TYPES } from './model-guard';

// The canonical event model. The zod schemas are the single source of the types (`z.infer`);
// docs/model.md explains every event and how each format maps onto it.

/** Where an event came from, and what its wire record had that the model has no slot for. */
export const ProvenanceSchema = z.object({
  /** The wire format the event was decoded from. */
  format: z.enum(FORMATS),
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

/**
 * What a usage figure covers: one API `call`, one `round`, one `run`, or the `thread`'s running
 * total so far (Codex `turn.completed`: replace, never add).
 */
export const UsageScopeSchema = z.enum(['call', 'round', 'run', 'thread']);

const usageCounts = {
  /**
   * All input (prompt) tokens, cache reads and cache writes included (Claude: `input_tokens +
   * cache_read_input_tokens + cache_creation_input_tokens`; Codex: `input_tokens`).
   */
  input: z.exactOptional(z.number()),
  /** All output (completion) tokens, reasoning tokens included. */
  output: z.exactOptional(z.number()),
  /** Of `input`, the tokens read from the prompt cache. */
  cacheRead: z.exactOptional(z.number()),
  /** Of `input`, the tokens written to the prompt cache. */
  cacheWrite: z.exactOptional(z.number()),
  /** Of `output`, the reasoning (thinking) tokens. */
  reasoning: z.exactOptional(z.number()),
  /** Cost in US dollars. */
  costUsd: z.exactOptional(z.number()),
};

/** One model's share of a usage figure (Claude `modelUsage`, Gemini `stats.models`). */
export const ModelUsageSchema = z.object(usageCounts);

/**
 * Token and cost accounting. Which scope it covers depends on the event carrying it (`run.end`:
 * the run's total; `round.end`: that round's own) unless `scope` says so. See docs/model.md
 * "Usage": the rule that nobody double counts.
 */
export const UsageSchema = z.object({
  ...usageCounts,
  /** What the figure covers, when the source states it. */
  scope: z.exactOptional(UsageScopeSchema),
  /**
   * `false` for a partial snapshot that a later figure with the same `key` replaces (Claude's
   * per-content-block copies of one message's usage); absent or `true` for a final figure.
   */
  final: z.exactOptional(z.boolean()),
  /** Dedupe key: figures with the same key are one figure (Claude `message.id`). */
  key: z.exactOptional(z.string()),
  /** The model the figure is for, when it is one model's. */
  model: z.exactOptional(z.string()),
  /** Per-model breakdown, by model name, in the source's order. */
  byModel: z.exactOptional(z.record(z.string(), ModelUsageSchema)),
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
  /**
   * The child lane the event belongs to: the `child` id of the `child.start` that opened it
   * (Claude `parent_tool_use_id`, OpenCode child `sessionID`, Copilot `agentId`). Absent on the
   * main agent's own events.
   */
  lane: z.exactOptional(z.string()),
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
  /** Title, actor and mode (nativeharness `session_created`; `mode` is also a permission mode). */
  title: z.exactOptional(z.string()),
  actor: z.exactOptional(z.string()),
  mode: z.exactOptional(z.string()),
  /** The model the agent is configured with (Claude `init.model`, Gemini `init.model`). */
  model: z.exactOptional(z.string()),
  /** The agent's working directory. */
  cwd: z.exactOptional(z.string()),
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

/**
 * How a run or child ended. `incomplete`: the stream ended without the run's terminal record (the
 * process died, hit a ceiling, or is still running): never a success.
 */
export const RunStatusSchema = z.enum(['completed', 'failed', 'cancelled', 'incomplete']);

/** A run ended. `usage` here is the run's total. */
export const RunEndSchema = event('run.end', {
  status: RunStatusSchema,
  /**
   * The source's own word for how the run ended (Claude `subtype` or `terminal_reason`, Gemini
   * `status`, Codex `turn.failed`), kept as written.
   */
  reason: z.exactOptional(z.string()),
  /** Why the run failed, as text, when it did. */
  error: z.exactOptional(z.string()),
  /** Wall time of the run in ms, when the source reports it. */
  durationMs: z.exactOptional(z.number()),
  /** The user-visible answer. */
  answer: z.exactOptional(z.string()),
  /** The message the agent received (highbar `turn.message`). */
  input: z.exactOptional(z.string()),
  stopReason: z.exactOptional(z.string()),
  /** Totals for the whole run. */
  usage: z.exactOptional(UsageSchema),
});

/** A round began (formats that mark it; HEP rounds start implicitly). */
export const RoundStartSchema = event('round.start', {
  /** The model serving the round, when known. */
  model: z.exactOptional(z.string()),
});

/** A round finished normally. `usage` here is the round's own. */
export const RoundEndSchema = event('round.end', {
  /** The round's assistant text (empty for a tool-call-only round). */
  message: z.string(),
  /** The provider's stop reason (`stop`, `length`, `toolUse`, …). */
  stopReason: z.exactOptional(z.string()),
  /** This round's usage only. */
  usage: z.exactOptional(UsageSchema),
  /** The model that served the round, when known. */
  model: z.exactOptional(z.string()),
});

/** An assistant message begins. */
export const MessageStartSchema = event('message.start', {
  role: z.literal('assistant'),
  /** The source's message id (Claude `message.id`, Codex item id, Copilot `messageId`). */
  message: z.exactOptional(z.string()),
  /** The model writing the message, when known. */
  model: z.exactOptional(z.string()),
});

/** An assistant message ended (formats that mark it; otherwise the round's end ends it). */
export const MessageEndSchema = event('message.end', {
  message: z.exactOptional(z.string()),
});

/** A chunk of assistant text (never thinking). */
export const TextDeltaSchema = event('text.delta', {
  text: z.string(),
  /** The message the text belongs to, when the source has ids. */
  message: z.exactOptional(z.string()),
});

/**
 * A chunk of reasoning (thinking) text, its own stream beside the answer text. A block whose
 * text the provider withheld keeps what it sent instead: `signature` (text may be empty) or the
 * opaque `redacted` data.
 */
export const ReasoningDeltaSchema = event('reasoning.delta', {
  text: z.string(),
  message: z.exactOptional(z.string()),
  /** The provider's signature over the reasoning block. */
  signature: z.exactOptional(z.string()),
  /** The opaque data of a redacted reasoning block. */
  redacted: z.exactOptional(z.string()),
});

/** A message the user (or the harness on the user's behalf) sent into a running session. */
export const UserMessageSchema = event('user.message', {
  text: z.string(),
  /** True when the harness, not a person, wrote it (Claude `isSynthetic`). */
  synthetic: z.exactOptional(z.boolean()),
});

/** A status line: `deciding`, `running`, `reviewing`, `compacting`, `waiting`, or another word. */
export const StatusSchema = event('status', { status: z.string(), detail: z.exactOptional(z.string()) });

/**
 * What a tool does, when the source says it (Codex item types, Cursor payload keys, ACP kinds):
 * never guessed from a tool's name.
 */
export const ToolKindSchema = z.enum([
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'fetch',
  'think',
  'agent',
  'other',
]);

/** A tool call starts. */
export const ToolStartSchema = event('tool.start', {
  /** The call id; every later event of the call carries it. */
  call: z.string(),
  name: z.string(),
  /** What the tool does, when the source says it. */
  kind: z.exactOptional(ToolKindSchema),
  /** The MCP server the tool belongs to. */
  server: z.exactOptional(z.string()),
  /** The arguments as an object, when known. */
  args: z.exactOptional(z.record(z.string(), z.unknown())),
  /** The arguments as a one-line summary (HEP `args_summary`). */
  argsSummary: z.exactOptional(z.string()),
  /** For shell tools: the command line. */
  command: z.exactOptional(z.string()),
  /** When the call started, ms since the epoch. */
  startedAt: z.exactOptional(z.number()),
});

/** A chunk of a call's arguments as JSON text, streamed before `tool.start` has them whole. */
export const ToolArgsDeltaSchema = event('tool.args.delta', {
  call: z.string(),
  name: z.exactOptional(z.string()),
  text: z.string(),
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
  /** True when the call never ran because permission was denied. */
  denied: z.exactOptional(z.boolean()),
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
  /** The arguments the action would run with. */
  args: z.exactOptional(z.record(z.string(), z.unknown())),
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
  /** The tool call that asked (Claude `AskUserQuestion`). */
  call: z.exactOptional(z.string()),
});

/** The user answered a question: answers by question text or id. */
export const QuestionAnswerSchema = event('question.answer', {
  question: z.string(),
  answers: z.record(z.string(), z.unknown()),
});

/** One entry of a plan or to-do list. */
export const PlanItemSchema = z.object({
  text: z.string(),
  status: z.enum(['pending', 'in_progress', 'completed']),
});

/** The agent's plan or to-do list, whole (each event replaces the last one with the same `plan`). */
export const PlanSchema = event('plan', {
  /** The plan's id, when the source has one (Codex item id). */
  plan: z.exactOptional(z.string()),
  items: z.array(PlanItemSchema),
  /** The plan as free text, when the source writes it so. */
  text: z.exactOptional(z.string()),
});

/** One file a change touched. */
export const FileChangeItemSchema = z.object({
  path: z.string(),
  /** `add`, `delete`, `update`, or the source's own word. */
  kind: z.string(),
});

/** Files were changed (Codex `file_change`); `call` ties it to the tool call that did it. */
export const FileChangeSchema = event('file.change', {
  call: z.exactOptional(z.string()),
  changes: z.array(FileChangeItemSchema),
  /** The source's status word (`completed`, `failed`, …). */
  status: z.exactOptional(z.string()),
});

/**
 * Something worth showing that is neither an error nor progress of a call: `rate_limit`,
 * `retry` (an API call retried), `hook`, `warning`, `info`, or the source's own kind. `data`
 * keeps the source's structured facts (reset time, attempt, delay, …).
 */
export const NoticeSchema = event('notice', {
  kind: z.string(),
  message: z.exactOptional(z.string()),
  severity: z.exactOptional(z.enum(['info', 'warning'])),
  data: z.exactOptional(z.record(z.string(), z.unknown())),
});

/** A usage figure reported on its own (per API call, or a running total); see `Usage.scope`. */
export const UsageEventSchema = event('usage', { usage: UsageSchema });

/** A child agent (subagent) starts. */
export const ChildStartSchema = event('child.start', {
  /** The lane id; the child's own events carry it as `lane`. */
  child: z.string(),
  /** The child's agent type or name (Claude `subagent_type`). */
  name: z.exactOptional(z.string()),
  task: z.exactOptional(z.string()),
  /** The tool call that spawned it. */
  call: z.exactOptional(z.string()),
  /** True when the parent goes on without waiting for it. */
  background: z.exactOptional(z.boolean()),
  /** `agent` for a subagent, `shell` for a background command, or the source's own word. */
  kind: z.exactOptional(z.string()),
});

/** Progress of a running child: a summary line and its usage so far. */
export const ChildProgressSchema = event('child.progress', {
  child: z.string(),
  detail: z.exactOptional(z.string()),
  usage: z.exactOptional(UsageSchema),
});

/** A child agent finished. */
export const ChildEndSchema = event('child.end', {
  child: z.string(),
  status: RunStatusSchema,
  result: z.exactOptional(z.string()),
  /** The child's total usage, when reported. */
  usage: z.exactOptional(UsageSchema),
});

/** History compaction starts. */
export const CompactionStartSchema = event('compaction.start', {
  /** `manual` or `auto`, when the source says. */
  trigger: z.exactOptional(z.string()),
});

/** History compaction ended. */
export const CompactionEndSchema = event('compaction.end', {
  tokensFreed: z.exactOptional(z.number()),
  trigger: z.exactOptional(z.string()),
  /** Context tokens before and after, when the source says. */
  tokensBefore: z.exactOptional(z.number()),
  tokensAfter: z.exactOptional(z.number()),
});

/** Something failed. `fatal` ends the run; otherwise the run goes on. */
export const ErrorEventSchema = event('error', {
  message: z.string(),
  fatal: z.boolean(),
  code: z.exactOptional(z.string()),
  /** The error as structured data, when the source gave one (JSON inside a message, parsed). */
  data: z.exactOptional(z.unknown()),
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
  MessageEndSchema,
  TextDeltaSchema,
  ReasoningDeltaSchema,
  UserMessageSchema,
  StatusSchema,
  ToolStartSchema,
  ToolArgsDeltaSchema,
  ToolOutputSchema,
  ToolLivenessSchema,
  ToolEndSchema,
  ApprovalRequestSchema,
  ApprovalResolveSchema,
  QuestionSchema,
  QuestionAnswerSchema,
  PlanSchema,
  FileChangeSchema,
  NoticeSchema,
  UsageEventSchema,
  ChildStartSchema,
  ChildProgressSchema,
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
/** What a usage figure covers. */
export type UsageScope = z.infer<typeof UsageScopeSchema>;
/** One model's share of a usage figure. */
export type ModelUsage = z.infer<typeof ModelUsageSchema>;
/** What a tool does. */
export type ToolKind = z.infer<typeof ToolKindSchema>;
/** One entry of a plan. */
export type PlanItem = z.infer<typeof PlanItemSchema>;
/** One file a change touched. */
export type FileChangeItem = z.infer<typeof FileChangeItemSchema>;
/** How a run or child ended. */
export type RunStatus = z.infer<typeof RunStatusSchema>;
/** A choice offered with an approval or question. */
export type Choice = z.infer<typeof OptionSchema>;
/** One question to the user. */
export type QuestionItem = z.infer<typeof QuestionItemSchema>;

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
