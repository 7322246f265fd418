// agentwire: the canonical model, diagnostics, detection, conversion with the codecs passed in
// (`convertWith`), the line splitter and the timeline.
// Browser-safe and small (scripts/size-budget.json holds it under issue #16's 30 KB): no codec is
// bundled here. Each format is its own entry (`agentwire/hep`, `agentwire/claude`, ...), and
// `agentwire/all` adds every codec, `convert` between any two, `codecFor` and `codecs` (which need
// every format). Node-only parts are in `agentwire/node` and `agentwire/fixtures`. Every export is
// named: the README's API list says the same (test/api.test.ts holds the two together); the
// plumbing the codecs are built from (createCodec, createReader, createWriter, lineChunkDecoder,
// the record decoders) is not exported.
export { boundSummary, boundText, isBounded } from './bounds';
export type {
  Checker,
  CheckingCodec,
  CheckingReader,
  ChunkSource,
  Codec,
  CodecReader,
  CodecWriter,
  DecodeOptions,
  Decoder,
  EncodeOptions,
  Encoder,
  EventSource,
  ParseResult,
} from './codec';
export type { ConvertOptions } from './convert-stream';
export {
  type ConvertResult,
  type ConvertWithOptions,
  convertStreamWith,
  convertWith,
} from './convert-with';
export { DETECT_BYTES, type Detection, detectFormat } from './detect';
export { detectFromStream } from './detect-stream';
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
