// agentwire: every format, the canonical model, conversion, checking and viewing. Browser-safe;
// Node-only parts are in `agentwire/node` and `agentwire/fixtures`. Every export is named: the
// README's API list says the same (test/api.test.ts holds the two together); the plumbing the
// codecs are built from (createCodec, lineChunkDecoder, the record decoders) is not exported.
export { boundSummary, boundText, isBounded } from './bounds';
export type {
  Checker,
  CheckingCodec,
  ChunkSource,
  Codec,
  DecodeOptions,
  Decoder,
  EncodeOptions,
  Encoder,
  EventSource,
  ParseResult,
} from './codec';
export { type ConvertOptions, type ConvertResult, convert, convertStream, detectFromStream } from './convert';
export { DETECT_BYTES, type Detection, detectFormat } from './detect';
export {
  AgentwireError,
  type Diagnostic,
  type DiagnosticCode,
  type DiagnosticHandler,
  FORMATS,
  type Format,
  isAgentwireError,
  type Severity,
} from './diagnostics';
export { type AguiCodec, agui } from './formats/ag-ui/index';
export { type AiSdkCodec, aisdk } from './formats/ai-sdk/index';
export { type AmpCodec, amp } from './formats/amp/index';
export { type ClaudeCodec, claude } from './formats/claude/index';
export { type CodexCodec, codex } from './formats/codex/index';
export { type CopilotCodec, copilot } from './formats/copilot/index';
export { type CursorCodec, cursor } from './formats/cursor/index';
export { type GeminiCodec, gemini } from './formats/gemini/index';
export { type HepCodec, hep } from './formats/hep/codec';
export { type HighbarCodec, highbar } from './formats/highbar/codec';
export { codecFor, codecs } from './formats/index';
export { connect } from './formats/nativeharness/client';
export { type NativeharnessCodec, nativeharness } from './formats/nativeharness/codec';
export { type OpencodeCodec, opencode } from './formats/opencode/index';
export {
  DEFAULT_MAX_LINE_BYTES,
  type IncompleteLinePolicy,
  type LineMode,
  type LineSink,
  LineSplitter,
  type LineSplitterOptions,
} from './framing/lines';
export { DEFAULT_MAX_DEPTH, DEPTH_PRECHECK_CHARS, MAX_DEPTH_CEILING } from './json';
export {
  AGENT_EVENT_TYPES,
  type AgentEvent,
  type AgentEventOf,
  AgentEventSchema,
  type AgentEventType,
  ApprovalRequestSchema,
  ApprovalResolveSchema,
  CancelSchema,
  ChildEndSchema,
  ChildProgressSchema,
  ChildStartSchema,
  type Choice,
  CompactionEndSchema,
  CompactionStartSchema,
  ErrorEventSchema,
  type FileChangeItem,
  FileChangeItemSchema,
  FileChangeSchema,
  MessageEndSchema,
  MessageStartSchema,
  type ModelUsage,
  ModelUsageSchema,
  NoticeSchema,
  OptionSchema,
  type PlanItem,
  PlanItemSchema,
  PlanSchema,
  type Provenance,
  ProvenanceSchema,
  QuestionAnswerSchema,
  type QuestionItem,
  QuestionItemSchema,
  QuestionSchema,
  ReasoningDeltaSchema,
  RoundEndSchema,
  RoundStartSchema,
  RunEndSchema,
  RunStartSchema,
  type RunStatus,
  RunStatusSchema,
  SessionStartSchema,
  SessionTitleSchema,
  StatusSchema,
  TextDeltaSchema,
  ToolArgsDeltaSchema,
  ToolEndSchema,
  type ToolKind,
  ToolKindSchema,
  ToolLivenessSchema,
  ToolOutputSchema,
  ToolStartSchema,
  ToolsDeclareSchema,
  UnknownEventSchema,
  type Usage,
  UsageEventSchema,
  UsageSchema,
  type UsageScope,
  UsageScopeSchema,
  UserMessageSchema,
  validateEvent,
} from './model';
export { addExact, addUsage, type UsageFigures } from './usage';
export { neutralizeControls, type TimelineOptions, TimelineRenderer } from './view';
