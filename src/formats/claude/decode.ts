import { setBounded, setBoundedKept, sharedString } from '../../bounded';
import { appendRoundText } from '../../bounds';
import type { DecodeOptions, RecordSlots } from '../../codec';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import { finiteOr, isFiniteNumber, num, str } from '../../guards';
import {
  contentPartsText,
  isJsonObject,
  type JsonObject,
  nestingTooDeep,
  refusedJson,
  resolveMaxDepth,
  sameJson,
  setOwn,
  unsafeNumberMessage,
  valueExceedsDepth,
} from '../../json';
import type { AgentEvent, AgentEventOf, Provenance, QuestionItem, Usage } from '../../model';
import { UNSET } from '../../plain';
import {
  readDigits,
  readFixed,
  readJsonTo,
  readPlainOrNull,
  readPlainString,
  readStringTo,
  skipPlainString,
  type TextReader,
  textReader,
} from '../../text-reader';
import {
  APPROVALS,
  CALLS,
  COMPACTING,
  LAST_LINE,
  LAST_OFFSET,
  MAX_DEPTH,
  MESSAGES,
  PENDING,
  PREVIOUS,
  REPORT,
  ROUND,
  RUN_OPEN,
  SESSION,
  SESSION_STARTED,
  SHARED,
  SINK,
  TASKS,
} from './slots';
import {
  byModelFromClaude,
  CLAUDE_ASSISTANT_TEXT,
  CLAUDE_CHECKED,
  CLAUDE_ENVELOPE_TEXT,
  CLAUDE_FORMAT,
  CLAUDE_NOTICE_SUBTYPES,
  CLAUDE_SESSION_STATE,
  CLAUDE_THINKING_TOKENS_TEXT,
  CLAUDE_USAGE_TEXT,
  CLAUDE_USER_TEXT,
  type ClaudeHints,
  childStatus,
  contentBlocks,
  laneOf,
  mcpServer,
  resultOutcome,
  usageFromClaude,
} from './wire';

/** Options of the Claude decoder (`maxLineBytes` defaults to 16 MiB here). */
export interface ClaudeDecodeOptions extends DecodeOptions {}

const FORMAT = CLAUDE_FORMAT;

// Bounds on what the decoder remembers across lines: call names and lanes, open approvals,
// task ids. A stream with more live calls than this forgets the oldest (a result then has no name).
const MAX_REMEMBERED = 10_000;

/**
 * One assistant message being read (one API call), per lane. Every field is there from the
 * start (`undefined` until known), so that all of them share one hidden class.
 */
interface MessageState {
  id: string;
  lane: string | undefined;
  round: number;
  /** The text of its text blocks (the round's message, for the main lane). */
  text: string;
  stopReason: string | undefined;
  model: string | undefined;
  /**
   * Usage objects already reported for this message id (copies are not reported again); the
   * canonical reader keeps the object's text instead (see {@link seenUsage}).
   */
  usages: unknown[];
  /** Content blocks announced by `stream_event`s, by index; `streamed` once a delta arrived. */
  streamed: Map<number, StreamBlock> | undefined;
  /** `message_start`'s usage, which `message_delta`'s final counts complete. */
  startUsage: JsonObject | undefined;
  /** The index the next snapshot block takes (snapshot lines come in block order). */
  snapshotIndex: number;
}

interface StreamBlock {
  type: string;
  call?: string;
  name?: string;
  streamed: boolean;
}

/**
 * What a call id is remembered with: its name alone for a call of the main agent (most calls),
 * the name and lane for a subagent's. A string, not an object per call: the map holds up to
 * MAX_REMEMBERED ids, and the names are shared (`sharedString`), so an entry adds only its id.
 */
type CallInfo = string | { name: string; lane: string };

/** The tool whose call asks the user questions (its result holds their answers). */
const QUESTION_TOOL = 'AskUserQuestion';

/** A remembered call's name (`CallInfo`). */
function callName(info: CallInfo): string {
  return typeof info === 'string' ? info : info.name;
}

/** A remembered call's lane (`CallInfo`): none for the main agent's. */
function callLane(info: CallInfo | undefined): string | undefined {
  return info === undefined || typeof info === 'string' ? undefined : info.lane;
}

/** The line being decoded: where it is, and where its events start in `out`. */
interface LineContext {
  record: JsonObject;
  text: string;
  line: number;
  offset: number;
  out: AgentEvent[];
  start: number;
  lane: string | undefined;
}

// The record's fields beside its envelope, for a notice's `data` (plain stores: a
// `defineProperty` per key was a tenth of the decoder's time; `setOwn` keeps a `__proto__` key).
function dataOf(record: JsonObject): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const key in record) {
    if (key !== 'type' && key !== 'uuid' && key !== 'session_id') setOwn(data, key, record[key]);
  }
  return data;
}

function questionsOf(input: unknown): QuestionItem[] {
  const list = isJsonObject(input) && Array.isArray(input.questions) ? input.questions : [];
  const out: QuestionItem[] = [];
  for (const q of list) {
    if (!isJsonObject(q) || typeof q.question !== 'string') continue;
    const item: QuestionItem = { text: q.question };
    if (typeof q.header === 'string') item.id = q.header;
    if (Array.isArray(q.options)) {
      item.options = q.options
        .filter((o): o is JsonObject => isJsonObject(o) && typeof o.label === 'string')
        .map((o) => ({ id: o.label as string, label: o.label as string }));
    }
    if (typeof q.multiSelect === 'boolean') item.multiple = q.multiSelect;
    out.push(item);
  }
  return out;
}

/**
 * The decoder's state ({@link newDecoder}): an array of slots (the indices below). An array's
 * hidden class belongs to the realm and outlives every GC; a literal's, made before the factory
 * has an allocation site (it runs once per decoder), dies with the last decoder and takes the
 * optimised code of every function that read it along (docs/performance.md, "Claude decoder",
 * round seven; the Codex decoder's round six).
 */
type DecoderState = [
  sink: DiagnosticSink,
  report: LineReport,
  maxDepth: number,
  session: string | undefined,
  sessionStarted: boolean,
  runOpen: boolean,
  round: number,
  messages: Map<string, MessageState>,
  calls: Map<string, CallInfo>,
  approvals: Map<string, string>,
  tasks: Map<string, { child: string; lane: string | undefined }>,
  compacting: boolean,
  // Lines that gave no event (written back before the next line that does).
  pending: string[],
  lastLine: number,
  lastOffset: number,
  // The line before this one, to tell a line read twice (`decodeLine`).
  previous: string,
  // The call names and lanes kept in `calls`, one copy each (`sharedString`).
  shared: Map<string, string>,
];

// ---------------------------------------------------------------------------------------------
// Whole events (docs/performance.md, "Claude decoder"): the frequent events built in one literal
// each, envelope and provenance included, beside the general path (`emit`), which adds them to
// a literal afterwards. A literal's hidden class is held by its allocation site and outlives a
// full GC; the added fields' transitions do not, and code that embedded them is thrown away.

// The objects of a line's events (events, provenance, hints, usage) are spread copies of module
// templates, then their fields set, one template per shape, the keys in the order the literals
// had. Not literals: a literal's allocation site can be pretenured, and then every line's objects
// and what they hold live in the old generation (src/plain.ts). Not constructors either: the
// fields a constructor adds are map transitions held weakly, so a full GC that finds no event
// alive frees the hidden classes, and every function compiled against them is thrown away. A
// copy has no allocation site, and its hidden class outlives the GC (`--trace-deopt` marks no
// function of the decoder at it: docs/performance.md, "Claude decoder", round nineteen). The
// templates' fields start `UNSET` (src/plain.ts), constant ones at their value.

/** `{ format, line, offset }`. */
const LINE_PROVENANCE: Provenance = { format: FORMAT, line: UNSET, offset: UNSET };
function newLineProvenance(line: number, offset: number): Provenance {
  const o = { ...LINE_PROVENANCE };
  o.line = line;
  o.offset = offset;
  return o;
}

/** `{ format, line, offset, hints }`. */
const HINTED_PROVENANCE: Provenance = { format: FORMAT, line: UNSET, offset: UNSET, hints: UNSET };
function newHintedProvenance(line: number, offset: number, hints: Record<string, unknown>): Provenance {
  const o = { ...HINTED_PROVENANCE };
  o.line = line;
  o.offset = offset;
  o.hints = hints;
  return o;
}

/** `{ format, line, offset, synthetic: true }`. */
const SYNTHETIC_PROVENANCE: Provenance = { format: FORMAT, line: UNSET, offset: UNSET, synthetic: true };
function newSyntheticProvenance(line: number, offset: number): Provenance {
  const o = { ...SYNTHETIC_PROVENANCE };
  o.line = line;
  o.offset = offset;
  return o;
}

/** `{ format, line, offset, synthetic: true, hints }` (the line's first event: `finishLine` sets the hints). */
const SYNTHETIC_HINTED_PROVENANCE: Provenance = {
  format: FORMAT,
  line: UNSET,
  offset: UNSET,
  synthetic: true,
  hints: UNSET,
};
function newSyntheticHintedProvenance(line: number, offset: number): Provenance {
  const o = { ...SYNTHETIC_HINTED_PROVENANCE };
  o.line = line;
  o.offset = offset;
  return o;
}

/** `{ said }`: the hints of an event with checked fields, until `finishLine`. */
const SAID_HINTS: ClaudeHints = { said: UNSET };
function newSaidHints(said: Record<string, unknown>): ClaudeHints {
  const o = { ...SAID_HINTS };
  o.said = said;
  return o;
}

/** `{ text }`: what a delta said. */
const TEXT_SAID: { text: string } = { text: UNSET };
function newTextSaid(text: string): { text: string } {
  const o = { ...TEXT_SAID };
  o.text = text;
  return o;
}

/** `{ text, signature }`: what a signed thinking block said. */
const SIGNED_SAID: { text: string; signature: string } = { text: UNSET, signature: UNSET };
function newSignedSaid(text: string, signature: string): { text: string; signature: string } {
  const o = { ...SIGNED_SAID };
  o.text = text;
  o.signature = signature;
  return o;
}

/** `{ name, args }`: what a tool call said. */
const CALL_SAID: { name: string; args: JsonObject } = { name: UNSET, args: UNSET };
function newCallSaid(name: string, args: JsonObject): { name: string; args: JsonObject } {
  const o = { ...CALL_SAID };
  o.name = name;
  o.args = args;
  return o;
}

/** `{ ok: true, text }`: what a successful tool result said. */
const RESULT_SAID: { ok: boolean; text: string } = { ok: true, text: UNSET };
function newResultSaid(text: string): { ok: boolean; text: string } {
  const o = { ...RESULT_SAID };
  o.text = text;
  return o;
}

// The line's first event's hints (`ownerHints`): `said` when there is one, the line, how many
// events it gave when more than one, the lines before it that gave none.
const RAW_HINTS: ClaudeHints = { raw: UNSET };
function newRawHints(raw: string): ClaudeHints {
  const o = { ...RAW_HINTS };
  o.raw = raw;
  return o;
}
const RAW_BEFORE_HINTS: ClaudeHints = { raw: UNSET, before: UNSET };
function newRawBeforeHints(raw: string, before: string[]): ClaudeHints {
  const o = { ...RAW_BEFORE_HINTS };
  o.raw = raw;
  o.before = before;
  return o;
}
const RAW_COUNT_HINTS: ClaudeHints = { raw: UNSET, n: UNSET };
function newRawCountHints(raw: string, n: number): ClaudeHints {
  const o = { ...RAW_COUNT_HINTS };
  o.raw = raw;
  o.n = n;
  return o;
}
const RAW_COUNT_BEFORE_HINTS: ClaudeHints = { raw: UNSET, n: UNSET, before: UNSET };
function newRawCountBeforeHints(raw: string, n: number, before: string[]): ClaudeHints {
  const o = { ...RAW_COUNT_BEFORE_HINTS };
  o.raw = raw;
  o.n = n;
  o.before = before;
  return o;
}
const SAID_RAW_HINTS: ClaudeHints = { said: UNSET, raw: UNSET };
function newSaidRawHints(said: Record<string, unknown>, raw: string): ClaudeHints {
  const o = { ...SAID_RAW_HINTS };
  o.said = said;
  o.raw = raw;
  return o;
}
const SAID_RAW_BEFORE_HINTS: ClaudeHints = { said: UNSET, raw: UNSET, before: UNSET };
function newSaidRawBeforeHints(said: Record<string, unknown>, raw: string, before: string[]): ClaudeHints {
  const o = { ...SAID_RAW_BEFORE_HINTS };
  o.said = said;
  o.raw = raw;
  o.before = before;
  return o;
}
const SAID_RAW_COUNT_HINTS: ClaudeHints = { said: UNSET, raw: UNSET, n: UNSET };
function newSaidRawCountHints(said: Record<string, unknown>, raw: string, n: number): ClaudeHints {
  const o = { ...SAID_RAW_COUNT_HINTS };
  o.said = said;
  o.raw = raw;
  o.n = n;
  return o;
}
const SAID_RAW_COUNT_BEFORE_HINTS: ClaudeHints = { said: UNSET, raw: UNSET, n: UNSET, before: UNSET };
function newSaidRawCountBeforeHints(
  said: Record<string, unknown>,
  raw: string,
  n: number,
  before: string[],
): ClaudeHints {
  const o = { ...SAID_RAW_COUNT_BEFORE_HINTS };
  o.said = said;
  o.raw = raw;
  o.n = n;
  o.before = before;
  return o;
}

// The whole events, one template per shape: `…InRound` on the main lane once a round is open,
// `…InLane` in a subagent's lane (`placeOf`).
const TEXT_IN_ROUND: AgentEventOf<'text.delta'> = {
  type: 'text.delta',
  text: UNSET,
  message: UNSET,
  session: UNSET,
  round: UNSET,
  provenance: UNSET,
};
function newTextInRound(
  text: string,
  message: string,
  session: string,
  round: number,
  provenance: Provenance,
): AgentEventOf<'text.delta'> {
  const o = { ...TEXT_IN_ROUND };
  o.text = text;
  o.message = message;
  o.session = session;
  o.round = round;
  o.provenance = provenance;
  return o;
}
const TEXT_IN_LANE: AgentEventOf<'text.delta'> = {
  type: 'text.delta',
  text: UNSET,
  message: UNSET,
  session: UNSET,
  lane: UNSET,
  provenance: UNSET,
};
function newTextInLane(
  text: string,
  message: string,
  session: string,
  lane: string,
  provenance: Provenance,
): AgentEventOf<'text.delta'> {
  const o = { ...TEXT_IN_LANE };
  o.text = text;
  o.message = message;
  o.session = session;
  o.lane = lane;
  o.provenance = provenance;
  return o;
}
const THINKING_IN_ROUND: AgentEventOf<'reasoning.delta'> = {
  type: 'reasoning.delta',
  text: UNSET,
  message: UNSET,
  session: UNSET,
  round: UNSET,
  provenance: UNSET,
};
function newThinkingInRound(
  text: string,
  message: string,
  session: string,
  round: number,
  provenance: Provenance,
): AgentEventOf<'reasoning.delta'> {
  const o = { ...THINKING_IN_ROUND };
  o.text = text;
  o.message = message;
  o.session = session;
  o.round = round;
  o.provenance = provenance;
  return o;
}
const THINKING_IN_LANE: AgentEventOf<'reasoning.delta'> = {
  type: 'reasoning.delta',
  text: UNSET,
  message: UNSET,
  session: UNSET,
  lane: UNSET,
  provenance: UNSET,
};
function newThinkingInLane(
  text: string,
  message: string,
  session: string,
  lane: string,
  provenance: Provenance,
): AgentEventOf<'reasoning.delta'> {
  const o = { ...THINKING_IN_LANE };
  o.text = text;
  o.message = message;
  o.session = session;
  o.lane = lane;
  o.provenance = provenance;
  return o;
}
const SIGNED_THINKING_IN_ROUND: AgentEventOf<'reasoning.delta'> = {
  type: 'reasoning.delta',
  text: UNSET,
  message: UNSET,
  signature: UNSET,
  session: UNSET,
  round: UNSET,
  provenance: UNSET,
};
function newSignedThinkingInRound(
  text: string,
  message: string,
  signature: string,
  session: string,
  round: number,
  provenance: Provenance,
): AgentEventOf<'reasoning.delta'> {
  const o = { ...SIGNED_THINKING_IN_ROUND };
  o.text = text;
  o.message = message;
  o.signature = signature;
  o.session = session;
  o.round = round;
  o.provenance = provenance;
  return o;
}
const SIGNED_THINKING_IN_LANE: AgentEventOf<'reasoning.delta'> = {
  type: 'reasoning.delta',
  text: UNSET,
  message: UNSET,
  signature: UNSET,
  session: UNSET,
  lane: UNSET,
  provenance: UNSET,
};
function newSignedThinkingInLane(
  text: string,
  message: string,
  signature: string,
  session: string,
  lane: string,
  provenance: Provenance,
): AgentEventOf<'reasoning.delta'> {
  const o = { ...SIGNED_THINKING_IN_LANE };
  o.text = text;
  o.message = message;
  o.signature = signature;
  o.session = session;
  o.lane = lane;
  o.provenance = provenance;
  return o;
}
const TOOL_START_IN_ROUND: AgentEventOf<'tool.start'> = {
  type: 'tool.start',
  call: UNSET,
  name: UNSET,
  args: UNSET,
  session: UNSET,
  round: UNSET,
  provenance: UNSET,
};
function newToolStartInRound(
  call: string,
  name: string,
  args: JsonObject,
  session: string,
  round: number,
  provenance: Provenance,
): AgentEventOf<'tool.start'> {
  const o = { ...TOOL_START_IN_ROUND };
  o.call = call;
  o.name = name;
  o.args = args;
  o.session = session;
  o.round = round;
  o.provenance = provenance;
  return o;
}
const TOOL_START_IN_LANE: AgentEventOf<'tool.start'> = {
  type: 'tool.start',
  call: UNSET,
  name: UNSET,
  args: UNSET,
  session: UNSET,
  lane: UNSET,
  provenance: UNSET,
};
function newToolStartInLane(
  call: string,
  name: string,
  args: JsonObject,
  session: string,
  lane: string,
  provenance: Provenance,
): AgentEventOf<'tool.start'> {
  const o = { ...TOOL_START_IN_LANE };
  o.call = call;
  o.name = name;
  o.args = args;
  o.session = session;
  o.lane = lane;
  o.provenance = provenance;
  return o;
}
const TOOL_END_IN_ROUND: AgentEventOf<'tool.end'> = {
  type: 'tool.end',
  call: UNSET,
  ok: true,
  name: UNSET,
  text: UNSET,
  result: UNSET,
  session: UNSET,
  round: UNSET,
  provenance: UNSET,
};
function newToolEndInRound(
  call: string,
  name: string,
  text: string,
  result: unknown,
  session: string,
  round: number,
  provenance: Provenance,
): AgentEventOf<'tool.end'> {
  const o = { ...TOOL_END_IN_ROUND };
  o.call = call;
  o.name = name;
  o.text = text;
  o.result = result;
  o.session = session;
  o.round = round;
  o.provenance = provenance;
  return o;
}
const TOOL_END_IN_LANE: AgentEventOf<'tool.end'> = {
  type: 'tool.end',
  call: UNSET,
  ok: true,
  name: UNSET,
  text: UNSET,
  result: UNSET,
  session: UNSET,
  lane: UNSET,
  provenance: UNSET,
};
function newToolEndInLane(
  call: string,
  name: string,
  text: string,
  result: unknown,
  session: string,
  lane: string,
  provenance: Provenance,
): AgentEventOf<'tool.end'> {
  const o = { ...TOOL_END_IN_LANE };
  o.call = call;
  o.name = name;
  o.text = text;
  o.result = result;
  o.session = session;
  o.lane = lane;
  o.provenance = provenance;
  return o;
}
const MESSAGE_START_IN_ROUND: AgentEventOf<'message.start'> = {
  type: 'message.start',
  role: 'assistant',
  message: UNSET,
  model: UNSET,
  session: UNSET,
  round: UNSET,
  provenance: UNSET,
};
function newMessageStartInRound(
  message: string,
  model: string,
  session: string,
  round: number,
  provenance: Provenance,
): AgentEventOf<'message.start'> {
  const o = { ...MESSAGE_START_IN_ROUND };
  o.message = message;
  o.model = model;
  o.session = session;
  o.round = round;
  o.provenance = provenance;
  return o;
}
const MESSAGE_START_IN_LANE: AgentEventOf<'message.start'> = {
  type: 'message.start',
  role: 'assistant',
  message: UNSET,
  model: UNSET,
  session: UNSET,
  lane: UNSET,
  provenance: UNSET,
};
function newMessageStartInLane(
  message: string,
  model: string,
  session: string,
  lane: string,
  provenance: Provenance,
): AgentEventOf<'message.start'> {
  const o = { ...MESSAGE_START_IN_LANE };
  o.message = message;
  o.model = model;
  o.session = session;
  o.lane = lane;
  o.provenance = provenance;
  return o;
}
const USAGE_IN_ROUND: AgentEventOf<'usage'> = {
  type: 'usage',
  usage: UNSET,
  session: UNSET,
  round: UNSET,
  provenance: UNSET,
};
function newUsageInRound(
  usage: Usage,
  session: string,
  round: number,
  provenance: Provenance,
): AgentEventOf<'usage'> {
  const o = { ...USAGE_IN_ROUND };
  o.usage = usage;
  o.session = session;
  o.round = round;
  o.provenance = provenance;
  return o;
}
const USAGE_IN_LANE: AgentEventOf<'usage'> = {
  type: 'usage',
  usage: UNSET,
  session: UNSET,
  lane: UNSET,
  provenance: UNSET,
};
function newUsageInLane(
  usage: Usage,
  session: string,
  lane: string,
  provenance: Provenance,
): AgentEventOf<'usage'> {
  const o = { ...USAGE_IN_LANE };
  o.usage = usage;
  o.session = session;
  o.lane = lane;
  o.provenance = provenance;
  return o;
}
const NOTICE_IN_ROUND: AgentEventOf<'notice'> = {
  type: 'notice',
  kind: UNSET,
  data: UNSET,
  session: UNSET,
  round: UNSET,
  provenance: UNSET,
};
function newNoticeInRound(
  kind: string,
  data: Record<string, unknown>,
  session: string,
  round: number,
  provenance: Provenance,
): AgentEventOf<'notice'> {
  const o = { ...NOTICE_IN_ROUND };
  o.kind = kind;
  o.data = data;
  o.session = session;
  o.round = round;
  o.provenance = provenance;
  return o;
}
const NOTICE_IN_LANE: AgentEventOf<'notice'> = {
  type: 'notice',
  kind: UNSET,
  data: UNSET,
  session: UNSET,
  lane: UNSET,
  provenance: UNSET,
};
function newNoticeInLane(
  kind: string,
  data: Record<string, unknown>,
  session: string,
  lane: string,
  provenance: Provenance,
): AgentEventOf<'notice'> {
  const o = { ...NOTICE_IN_LANE };
  o.kind = kind;
  o.data = data;
  o.session = session;
  o.lane = lane;
  o.provenance = provenance;
  return o;
}
const SAID_NOTICE_IN_ROUND: AgentEventOf<'notice'> = {
  type: 'notice',
  kind: UNSET,
  severity: UNSET,
  data: UNSET,
  message: UNSET,
  session: UNSET,
  round: UNSET,
  provenance: UNSET,
};
function newSaidNoticeInRound(
  kind: string,
  severity: 'info' | 'warning',
  data: Record<string, unknown>,
  message: string,
  session: string,
  round: number,
  provenance: Provenance,
): AgentEventOf<'notice'> {
  const o = { ...SAID_NOTICE_IN_ROUND };
  o.kind = kind;
  o.severity = severity;
  o.data = data;
  o.message = message;
  o.session = session;
  o.round = round;
  o.provenance = provenance;
  return o;
}
const SAID_NOTICE_IN_LANE: AgentEventOf<'notice'> = {
  type: 'notice',
  kind: UNSET,
  severity: UNSET,
  data: UNSET,
  message: UNSET,
  session: UNSET,
  lane: UNSET,
  provenance: UNSET,
};
function newSaidNoticeInLane(
  kind: string,
  severity: 'info' | 'warning',
  data: Record<string, unknown>,
  message: string,
  session: string,
  lane: string,
  provenance: Provenance,
): AgentEventOf<'notice'> {
  const o = { ...SAID_NOTICE_IN_LANE };
  o.kind = kind;
  o.severity = severity;
  o.data = data;
  o.message = message;
  o.session = session;
  o.lane = lane;
  o.provenance = provenance;
  return o;
}
const ROUND_END: AgentEventOf<'round.end'> = {
  type: 'round.end',
  message: UNSET,
  round: UNSET,
  model: UNSET,
  session: UNSET,
  provenance: UNSET,
};
function newRoundEnd(
  message: string,
  round: number,
  model: string,
  session: string,
  provenance: Provenance,
): AgentEventOf<'round.end'> {
  const o = { ...ROUND_END };
  o.message = message;
  o.round = round;
  o.model = model;
  o.session = session;
  o.provenance = provenance;
  return o;
}
const STOPPED_ROUND_END: AgentEventOf<'round.end'> = {
  type: 'round.end',
  message: UNSET,
  round: UNSET,
  stopReason: UNSET,
  model: UNSET,
  session: UNSET,
  provenance: UNSET,
};
function newStoppedRoundEnd(
  message: string,
  round: number,
  stopReason: string,
  model: string,
  session: string,
  provenance: Provenance,
): AgentEventOf<'round.end'> {
  const o = { ...STOPPED_ROUND_END };
  o.message = message;
  o.round = round;
  o.stopReason = stopReason;
  o.model = model;
  o.session = session;
  o.provenance = provenance;
  return o;
}
const RUN_START: AgentEventOf<'run.start'> = { type: 'run.start', provenance: UNSET };
function newRunStart(provenance: Provenance): AgentEventOf<'run.start'> {
  const o = { ...RUN_START };
  o.provenance = provenance;
  return o;
}
const SESSION_RUN_START: AgentEventOf<'run.start'> = { type: 'run.start', session: UNSET, provenance: UNSET };
function newSessionRunStart(session: string, provenance: Provenance): AgentEventOf<'run.start'> {
  const o = { ...SESSION_RUN_START };
  o.session = session;
  o.provenance = provenance;
  return o;
}

/** A call's usage as `wholeUsage` gives it: the counts (`input` their sum), then what the call was. */
const CALL_USAGE: Usage = {
  input: UNSET,
  output: UNSET,
  cacheRead: UNSET,
  cacheWrite: UNSET,
  scope: 'call',
  final: UNSET,
  key: UNSET,
  model: UNSET,
};
function newCallUsage(
  fresh: number,
  output: number,
  cacheRead: number,
  cacheWrite: number,
  final: boolean,
  key: string,
  model: string,
): Usage {
  const o = { ...CALL_USAGE };
  o.input = fresh + cacheRead + cacheWrite;
  o.output = output;
  o.cacheRead = cacheRead;
  o.cacheWrite = cacheWrite;
  o.final = final;
  o.key = key;
  o.model = model;
  return o;
}

/** `system/thinking_tokens`' data as the canonical reader reads it (the record beside its envelope). */
const THINKING_TOKENS_DATA: { subtype: string; estimated_tokens: number; estimated_tokens_delta: number } = {
  subtype: 'thinking_tokens',
  estimated_tokens: UNSET,
  estimated_tokens_delta: UNSET,
};
function newThinkingTokensData(
  tokens: number,
  delta: number,
): { subtype: string; estimated_tokens: number; estimated_tokens_delta: number } {
  const o = { ...THINKING_TOKENS_DATA };
  o.estimated_tokens = tokens;
  o.estimated_tokens_delta = delta;
  return o;
}

/**
 * Switch of the whole-event literals. Off, only the general path runs; test/claude/whole-events
 * .test.ts holds the two equal. Not part of the public API.
 */
export const CLAUDE_WHOLE_EVENTS: { enabled: boolean } = { enabled: true };

// Where a whole event goes: nowhere (the general path builds it), the main lane's round, a lane.
type Place = 0 | 1 | 2;
const GENERAL: Place = 0;
const IN_ROUND: Place = 1;
const IN_LANE: Place = 2;

// The envelope `emit` would add: the session (the whole literals need one), then the lane or,
// on the main lane once a round is open, the round.
function placeOf(d: DecoderState, ctx: LineContext): Place {
  if (!CLAUDE_WHOLE_EVENTS.enabled || d[SESSION] === undefined) return GENERAL;
  if (ctx.lane !== undefined) return IN_LANE;
  return d[ROUND] > 0 ? IN_ROUND : GENERAL;
}

// The provenance of a checked event: `hints.said` from the start, as `emit` gives it.
function saidProvenance(ctx: LineContext, said: Record<string, unknown>): Provenance {
  return newHintedProvenance(ctx.line, ctx.offset, newSaidHints(said) as Record<string, unknown>);
}

// The provenance of an event without checked fields. The line's first event gets its `hints`
// slot now (the value comes in `finishLine`, always), so the key is not added later.
function plainProvenance(ctx: LineContext): Provenance {
  if (ctx.out.length === ctx.start) return newHintedProvenance(ctx.line, ctx.offset, UNSET);
  return newLineProvenance(ctx.line, ctx.offset);
}

function syntheticProvenance(ctx: LineContext): Provenance {
  if (ctx.out.length === ctx.start) return newSyntheticHintedProvenance(ctx.line, ctx.offset);
  return newSyntheticProvenance(ctx.line, ctx.offset);
}

// The line's first event's hints, whole: `said`, then what `finishLine` adds (same key order).
function ownerHints(
  said: Record<string, unknown> | undefined,
  raw: string,
  n: number,
  before: string[] | undefined,
): ClaudeHints {
  if (said === undefined) {
    if (n > 1)
      return before === undefined ? newRawCountHints(raw, n) : newRawCountBeforeHints(raw, n, before);
    return before === undefined ? newRawHints(raw) : newRawBeforeHints(raw, before);
  }
  if (n > 1)
    return before === undefined
      ? newSaidRawCountHints(said, raw, n)
      : newSaidRawCountBeforeHints(said, raw, n, before);
  return before === undefined ? newSaidRawHints(said, raw) : newSaidRawBeforeHints(said, raw, before);
}

function pushed<E extends AgentEvent>(ctx: LineContext, e: E): E {
  ctx.out.push(e);
  return e;
}

function textDelta(d: DecoderState, ctx: LineContext, text: string, message: string): AgentEvent {
  const at = placeOf(d, ctx);
  if (at === GENERAL) return emit(d, ctx, { type: 'text.delta', text, message });
  const provenance = saidProvenance(ctx, newTextSaid(text));
  const session = d[SESSION]!;
  if (at === IN_ROUND) return pushed(ctx, newTextInRound(text, message, session, d[ROUND], provenance));
  return pushed(ctx, newTextInLane(text, message, session, ctx.lane!, provenance));
}

function thinking(
  d: DecoderState,
  ctx: LineContext,
  text: string,
  message: string,
  signature: string | undefined,
): AgentEvent {
  const at = placeOf(d, ctx);
  if (at === GENERAL) {
    const r: AgentEventOf<'reasoning.delta'> = { type: 'reasoning.delta', text, message };
    if (signature !== undefined) r.signature = signature;
    return emit(d, ctx, r);
  }
  const session = d[SESSION]!;
  const lane = ctx.lane!;
  const round = d[ROUND];
  if (signature === undefined) {
    const provenance = saidProvenance(ctx, newTextSaid(text));
    if (at === IN_ROUND) return pushed(ctx, newThinkingInRound(text, message, session, round, provenance));
    return pushed(ctx, newThinkingInLane(text, message, session, lane, provenance));
  }
  const provenance = saidProvenance(ctx, newSignedSaid(text, signature));
  if (at === IN_ROUND)
    return pushed(ctx, newSignedThinkingInRound(text, message, signature, session, round, provenance));
  return pushed(ctx, newSignedThinkingInLane(text, message, signature, session, lane, provenance));
}

// A tool call with arguments and no MCP server (the usual one); anything else, the general path.
function wholeToolStart(
  d: DecoderState,
  ctx: LineContext,
  call: string,
  name: string,
  args: JsonObject,
): AgentEvent | undefined {
  const at = placeOf(d, ctx);
  if (at === GENERAL) return undefined;
  const provenance = saidProvenance(ctx, newCallSaid(name, args));
  const session = d[SESSION]!;
  if (at === IN_ROUND)
    return pushed(ctx, newToolStartInRound(call, name, args, session, d[ROUND], provenance));
  return pushed(ctx, newToolStartInLane(call, name, args, session, ctx.lane!, provenance));
}

// A call's successful result with its name, text and `tool_use_result` (the usual one).
function wholeToolEnd(
  d: DecoderState,
  ctx: LineContext,
  call: string,
  name: string,
  text: string,
  result: unknown,
): AgentEvent | undefined {
  const at = placeOf(d, ctx);
  if (at === GENERAL) return undefined;
  const provenance = saidProvenance(ctx, newResultSaid(text));
  const session = d[SESSION]!;
  if (at === IN_ROUND)
    return pushed(ctx, newToolEndInRound(call, name, text, result, session, d[ROUND], provenance));
  return pushed(ctx, newToolEndInLane(call, name, text, result, session, ctx.lane!, provenance));
}

function messageStart(d: DecoderState, ctx: LineContext, message: string, model: string | undefined): void {
  const at = model === undefined ? GENERAL : placeOf(d, ctx);
  if (at === GENERAL) {
    const start: AgentEventOf<'message.start'> = { type: 'message.start', role: 'assistant', message };
    if (model !== undefined) start.model = model;
    emit(d, ctx, start);
    return;
  }
  const provenance = plainProvenance(ctx);
  const session = d[SESSION]!;
  if (at === IN_ROUND) pushed(ctx, newMessageStartInRound(message, model!, session, d[ROUND], provenance));
  else pushed(ctx, newMessageStartInLane(message, model!, session, ctx.lane!, provenance));
}

/** A usage object's four counts, as read (any JSON value, or `undefined` when absent). */
interface UsageCounts {
  fresh: unknown;
  cacheRead: unknown;
  cacheWrite: unknown;
  output: unknown;
}

// A call's usage with the four counts and no reasoning count, of a message with a model: whole.
function wholeUsage(
  d: DecoderState,
  ctx: LineContext,
  m: MessageState,
  counts: UsageCounts,
  final: boolean,
): boolean {
  const at = m.model === undefined ? GENERAL : placeOf(d, ctx);
  if (at === GENERAL) return false;
  const { fresh, cacheRead, cacheWrite, output } = counts;
  if (!finite(fresh) || !finite(cacheRead) || !finite(cacheWrite) || !finite(output)) return false;
  const usage = newCallUsage(fresh, output, cacheRead, cacheWrite, final, m.id, m.model!);
  const provenance = plainProvenance(ctx);
  const session = d[SESSION]!;
  if (at === IN_ROUND) pushed(ctx, newUsageInRound(usage, session, d[ROUND], provenance));
  else pushed(ctx, newUsageInLane(usage, session, ctx.lane!, provenance));
  return true;
}

// guards.ts's isFiniteNumber: a number past a double's range is counted, its line warned of.
const finite = isFiniteNumber;

// A main-lane round's end with its model (and stop reason, when known): whole.
function wholeRoundEnd(d: DecoderState, ctx: LineContext, m: MessageState): boolean {
  if (
    !CLAUDE_WHOLE_EVENTS.enabled ||
    d[SESSION] === undefined ||
    ctx.lane !== undefined ||
    m.model === undefined
  )
    return false;
  const provenance = syntheticProvenance(ctx);
  const session = d[SESSION];
  const { text: message, round, model, stopReason } = m;
  if (stopReason === undefined) pushed(ctx, newRoundEnd(message, round, model, session, provenance));
  else pushed(ctx, newStoppedRoundEnd(message, round, stopReason, model, session, provenance));
  return true;
}

// A notice of a kind, its data and severity (and message, when there is one): whole.
function notice(
  d: DecoderState,
  ctx: LineContext,
  kind: string,
  severity: 'info' | 'warning' | undefined,
  data: Record<string, unknown>,
  message: string | undefined,
): void {
  const at = placeOf(d, ctx);
  if (at === GENERAL || (severity === undefined) !== (message === undefined)) {
    const e: AgentEventOf<'notice'> =
      severity === undefined ? { type: 'notice', kind, data } : { type: 'notice', kind, severity, data };
    if (message !== undefined) e.message = message;
    emit(d, ctx, e);
    return;
  }
  const provenance = plainProvenance(ctx);
  const session = d[SESSION]!;
  if (severity === undefined) {
    if (at === IN_ROUND) pushed(ctx, newNoticeInRound(kind, data, session, d[ROUND], provenance));
    else pushed(ctx, newNoticeInLane(kind, data, session, ctx.lane!, provenance));
    return;
  }
  if (at === IN_ROUND)
    pushed(ctx, newSaidNoticeInRound(kind, severity, data, message!, session, d[ROUND], provenance));
  else pushed(ctx, newSaidNoticeInLane(kind, severity, data, message!, session, ctx.lane!, provenance));
}

/**
 * The Claude Code stream-json record decoder as slots (src/codec.ts, `RecordSlots`): one line →
 * the canonical events it means. Stateful: it opens and ends runs (`system/init`, `result`,
 * implied starts, an incomplete end at the end of input), numbers the main agent's rounds (one per
 * `message.id`), puts subagent lines in their lane, joins tool results to their calls by id,
 * counts each message's usage once, and reassembles `stream_event` partial messages without
 * repeating the snapshot lines that follow them. Every line it reads is kept for the writer (see
 * `ClaudeHints`).
 */
export function claudeRecordSlots(
  options: ClaudeDecodeOptions,
  sink: DiagnosticSink,
): RecordSlots<DecoderState> {
  // The state in an array of slots, the per-line work in module functions taking it, the same
  // for every decoder: the line splitter's optimised code, which inlines `decodeLine`'s call,
  // embeds no object made per stream. A function bound per decoder was one: a call site's
  // feedback holds its target weakly, so the code that inlined the last stream's was thrown away
  // when it died at a full GC (docs/performance.md, "Claude decoder"; round thirty-five).
  return [newDecoder(options, sink), decodeLine, endInput];
}

function newDecoder(options: ClaudeDecodeOptions, sink: DiagnosticSink): DecoderState {
  return [
    sink,
    lineReporter(sink, FORMAT),
    resolveMaxDepth(options.maxDepth),
    undefined,
    false,
    false,
    0,
    new Map(),
    new Map(),
    new Map(),
    new Map(),
    false,
    [],
    0,
    0,
    '',
    new Map(),
  ];
}

function decodeLine(d: DecoderState, text: string, line: number, offset: number, out: AgentEvent[]): void {
  d[LAST_LINE] = line;
  d[LAST_OFFSET] = offset;
  if (text.length === 0) {
    d[PENDING].push(text);
    return;
  }
  // A line equal to the one before it, uuid and all, is one record read twice (a tail that read a
  // line again, a relay that repeated one): Claude Code gives every record a uuid of its own, so it
  // is never a second record, and reading it again would give its text (or tool call) twice. It
  // gives no event and is kept for the writer. Only the line before is compared: one line held.
  if (text === d[PREVIOUS] && text.includes('"uuid":"')) {
    d[REPORT](
      'order',
      'warning',
      line,
      offset,
      'this line repeats the line before it (the same uuid): read once',
    );
    d[PENDING].push(text);
    return;
  }
  d[PREVIOUS] = text;
  if (
    CLAUDE_CANONICAL.enabled &&
    d[MAX_DEPTH] >= CANONICAL_MIN_DEPTH &&
    canonicalLine(d, text, line, offset, out)
  )
    return;
  // Parsed first at any length: V8's JSON.parse is iterative (no stack to overflow), and a
  // tool result of several MB would cost a character scan if measured as text. The parsed
  // value is measured instead, one step per object or array (a long string is one step):
  // cheaper than counting the brackets of the text, which tool output is full of.
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch (error) {
    d[SINK].report(refusedJson(text, error, line, offset, d[MAX_DEPTH], FORMAT));
    d[PENDING].push(text);
    return;
  }
  if (valueExceedsDepth(record, d[MAX_DEPTH])) {
    d[SINK].report(nestingTooDeep(line, offset, d[MAX_DEPTH], FORMAT));
    d[PENDING].push(text);
    return;
  }
  if (!isJsonObject(record)) {
    d[REPORT]('invalid_json', 'error', line, offset, 'not a JSON object');
    d[PENDING].push(text);
    return;
  }
  if (typeof record.session_id === 'string') d[SESSION] = record.session_id;
  const ctx: LineContext = { record, text, line, offset, out, start: out.length, lane: laneOf(record) };
  dispatch(d, ctx);
  finishLine(d, ctx);
}

// ------------------------------------------------------------------------------------------
// Canonical lines (docs/performance.md, "Claude decoder"): the frequent `assistant` (one
// content block), `user` (one tool result) and `system/thinking_tokens` lines spelled exactly as
// the CLI writes them (the fixed texts in wire.ts) are read piece by piece: the fixed text
// compared in place, ids and words read while they need no escape, counts in plain digits, the
// long strings and the free-form objects (`input`, `tool_use_result`) parsed alone, where they
// end found from the fixed text after them. The values then go through the same mapping as the
// general path's. Any other spelling returns false having changed nothing, and takes the general
// path: test/claude/canonical.test.ts holds the two equal.

/**
 * Switch of the canonical-line reader. Off, every line takes the general path; test/claude/
 * canonical.test.ts holds the two equal. Not part of the public API.
 */
export const CLAUDE_CANONICAL: { enabled: boolean } = { enabled: true };

// The deepest a canonical line's fixed part nests (an assistant line's `caller` object); the
// free-form values are measured alone against what is left of the bound.
const CANONICAL_MIN_DEPTH = 5;

// Where the values of a block-bearing line sit below the record: a block's fields, and the
// `tool_use_result` beside the message.
const BLOCK_DEPTH = 4;
const RESULT_DEPTH = 1;

// Records the canonical lines stand for in `LineContext.record` (no mapping reads it for them).
const NO_RECORD: JsonObject = Object.freeze({}) as JsonObject;

/** The content block of a canonical assistant line. */
type BlockKind = 0 | 1 | 2;
const TEXT_BLOCK: BlockKind = 0;
const THINKING_BLOCK: BlockKind = 1;
const TOOL_BLOCK: BlockKind = 2;

/** A canonical `usage` object: its text (for {@link seenUsage}) and its four counts. */
interface UsageRead extends UsageCounts {
  text: string;
}

/** What a canonical assistant line holds. */
interface AssistantRead {
  model: string;
  id: string;
  kind: BlockKind;
  /** The text, the thinking, or the call's id. */
  first: string;
  /** The signature, or the tool's name (`undefined` for a text block). */
  second: string | undefined;
  input: JsonObject | undefined;
  stop: string | undefined;
  usage: UsageRead;
}

/** The envelope of a canonical line. */
interface EnvelopeRead {
  lane: string | undefined;
  session: string;
}

// Whether a value read from `length` characters nests deeper than `limit`. A value `n` deep
// needs `2n` characters: a short one is not walked (the walk reads the parsed objects' hidden
// classes, and code that read them is thrown away when they die at a full GC).
function deeper(value: unknown, length: number, limit: number): boolean {
  return length > 2 * limit && valueExceedsDepth(value, limit);
}

function canonicalLine(
  d: DecoderState,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): boolean {
  // `{"type":"` then the type's first letter.
  switch (text.charCodeAt(9)) {
    case 97:
      return canonicalAssistant(d, text, line, offset, out);
    case 117:
      return canonicalUser(d, text, line, offset, out);
    case 115:
      return canonicalThinkingTokens(d, text, line, offset, out);
    default:
      return false;
  }
}

function canonicalContext(
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
  lane: string | undefined,
): LineContext {
  return { record: NO_RECORD, text, line, offset, out, start: out.length, lane };
}

function canonicalAssistant(
  d: DecoderState,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): boolean {
  const r = textReader(text);
  const a = readAssistantBody(r, d[MAX_DEPTH], d[MESSAGES].get(''));
  if (a === undefined) return false;
  const env = readEnvelope(r, true, d[SESSION]);
  if (env === undefined || !readFixed(r, '}') || r.at !== text.length) return false;
  d[SESSION] = env.session;
  const ctx = canonicalContext(text, line, offset, out, env.lane);
  // As `assistant` does for a record with a message object, one block and no error.
  ensureRun(d, ctx);
  const m = messageFor(d, ctx, a.id, a.model);
  if (a.stop !== undefined) m.stopReason = a.stop;
  canonicalUsage(d, ctx, m, a.usage, a.stop !== undefined);
  const streamed =
    m.streamed !== undefined &&
    nextStreamed(m, a.kind === TEXT_BLOCK ? 'text' : a.kind === THINKING_BLOCK ? 'thinking' : 'tool_use');
  if (a.kind === TEXT_BLOCK) {
    if (!streamed) textBlock(d, ctx, m, a.first);
  } else if (a.kind === THINKING_BLOCK) {
    if (!streamed) thinking(d, ctx, a.first, m.id, a.second);
  } else toolUse(d, ctx, a.first, a.second!, a.input);
  finishLine(d, ctx);
  return true;
}

// `{"type":"assistant","message":{…}`: everything up to the message's closing brace.
// `main`: the main lane's open message, whose model and id the line most likely repeats.
function readAssistantBody(
  r: TextReader,
  maxDepth: number,
  main: MessageState | undefined,
): AssistantRead | undefined {
  const T = CLAUDE_ASSISTANT_TEXT;
  if (!readFixed(r, T.head)) return undefined;
  const model = readPlainString(r, main?.model);
  if (model === undefined || !readFixed(r, T.id)) return undefined;
  const id = readPlainString(r, main?.id);
  if (id === undefined || !readFixed(r, T.content)) return undefined;
  const text = r.text;
  // The block ends at the first `}]` followed by a key: a value that holds one fails to parse.
  const close = text.indexOf('}],"', r.at);
  if (close === -1) return undefined;
  let kind: BlockKind;
  let first: string | undefined;
  let second: string | undefined;
  let input: JsonObject | undefined;
  if (readFixed(r, T.text)) {
    kind = TEXT_BLOCK;
    first = readStringTo(r, close);
  } else if (readFixed(r, T.thinking)) {
    kind = THINKING_BLOCK;
    const end = text.indexOf(T.signature, r.at);
    first = end === -1 || end > close ? undefined : readStringTo(r, end);
    if (first === undefined || !readFixed(r, T.signature)) return undefined;
    second = readStringTo(r, close);
    if (second === undefined) return undefined;
  } else if (readFixed(r, T.toolUse)) {
    kind = TOOL_BLOCK;
    first = readPlainString(r);
    if (first === undefined || !readFixed(r, T.name)) return undefined;
    second = readPlainString(r);
    if (second === undefined || !readFixed(r, T.input)) return undefined;
    const end = text.startsWith(T.caller, close - T.caller.length) ? close - T.caller.length : close;
    const from = r.at;
    const value = readJsonTo(r, end);
    if (!isJsonObject(value) || deeper(value, end - from, maxDepth - BLOCK_DEPTH)) return undefined;
    input = value;
    if (end !== close) r.at = close;
  } else return undefined;
  if (first === undefined || r.at !== close) return undefined;
  r.at = close + 2;
  readFixed(r, T.container);
  if (!readFixed(r, T.stopReason)) return undefined;
  const stop = readPlainOrNull(r);
  if (stop === false || !readFixed(r, T.stopSequence)) return undefined;
  readFixed(r, T.stopDetails);
  if (!readFixed(r, T.usage)) return undefined;
  const usage = readUsage(r);
  if (usage === undefined) return undefined;
  readFixed(r, T.transformations);
  readFixed(r, T.tail);
  if (!readFixed(r, '}')) return undefined;
  return { model, id, kind, first, second, input, stop, usage };
}

// `{"input_tokens":N,…}` as the CLI writes it (CLAUDE_USAGE_TEXT): the four counts.
function readUsage(r: TextReader): UsageRead | undefined {
  const U = CLAUDE_USAGE_TEXT;
  const start = r.at;
  if (!readFixed(r, U.head)) return undefined;
  const fresh = readDigits(r);
  if (fresh === undefined || !readFixed(r, U.cacheWrite)) return undefined;
  const cacheWrite = readDigits(r);
  if (cacheWrite === undefined || !readFixed(r, U.cacheRead)) return undefined;
  const cacheRead = readDigits(r);
  if (cacheRead === undefined) return undefined;
  if (readFixed(r, U.ephemeral5m)) {
    if (readDigits(r) === undefined || !readFixed(r, U.ephemeral1h)) return undefined;
    if (readDigits(r) === undefined || !readFixed(r, '}')) return undefined;
  }
  if (!readFixed(r, U.output)) return undefined;
  const output = readDigits(r);
  if (output === undefined) return undefined;
  if (readFixed(r, U.tier) && !skipPlainString(r)) return undefined;
  if (readFixed(r, U.geo) && !skipPlainString(r)) return undefined;
  if (!readFixed(r, '}')) return undefined;
  return { text: r.text.slice(start, r.at), fresh, cacheRead, cacheWrite, output };
}

// `,"parent_tool_use_id":…,"session_id":"…","uuid":"…"` and the optional ids after them (`known`:
// the session the last line said).
function readEnvelope(r: TextReader, request: boolean, known: string | undefined): EnvelopeRead | undefined {
  const E = CLAUDE_ENVELOPE_TEXT;
  let lane: string | undefined;
  if (readFixed(r, E.lane)) {
    const value = readPlainOrNull(r);
    if (value === false) return undefined;
    lane = value;
  }
  if (!readFixed(r, E.session)) return undefined;
  const session = readPlainString(r, known);
  if (session === undefined || !readFixed(r, E.uuid) || !skipPlainString(r)) return undefined;
  if (readFixed(r, E.timestamp) && !skipPlainString(r)) return undefined;
  if (request && readFixed(r, E.request) && !skipPlainString(r)) return undefined;
  return { lane, session };
}

// The usage of a canonical line: as `usage` does with the object the text spells.
function canonicalUsage(
  d: DecoderState,
  ctx: LineContext,
  m: MessageState,
  u: UsageRead,
  final: boolean,
): void {
  if (seenUsage(m, undefined, u.text)) return;
  m.usages.push(u.text);
  if (wholeUsage(d, ctx, m, u, final)) return;
  generalUsage(d, ctx, m, JSON.parse(u.text), final);
}

function canonicalUser(
  d: DecoderState,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): boolean {
  const U = CLAUDE_USER_TEXT;
  const r = textReader(text);
  if (!readFixed(r, U.head)) return false;
  const call = readPlainString(r);
  if (call === undefined || !readFixed(r, U.content)) return false;
  // The content string ends before the last `}]}` followed by a key (searched from the end: the
  // content is the long part of the line), after an `is_error` flag when there is one.
  const close = text.lastIndexOf('}]},"');
  let end = close;
  let ok = true;
  if (text.startsWith(',"is_error":false', close - 17)) end = close - 17;
  else if (text.startsWith(',"is_error":true', close - 16)) {
    end = close - 16;
    ok = false;
  }
  const content = readStringTo(r, end);
  if (content === undefined) return false;
  r.at = close + U.close.length;
  const env = readEnvelope(r, false, d[SESSION]);
  if (env === undefined || !readFixed(r, U.result) || text.charCodeAt(text.length - 1) !== 125) return false;
  const from = r.at;
  const result = readJsonTo(r, text.length - 1);
  if (result === undefined || deeper(result, text.length - 1 - from, d[MAX_DEPTH] - RESULT_DEPTH))
    return false;
  d[SESSION] = env.session;
  const ctx = canonicalContext(text, line, offset, out, env.lane);
  // As `user` does for a record with one tool_result block.
  ensureRun(d, ctx);
  toolResult(d, ctx, { call, ok, text: content, result, denied: false });
  finishLine(d, ctx);
  return true;
}

function canonicalThinkingTokens(
  d: DecoderState,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): boolean {
  const T = CLAUDE_THINKING_TOKENS_TEXT;
  const r = textReader(text);
  if (!readFixed(r, T.head)) return false;
  const tokens = readDigits(r);
  if (tokens === undefined || !readFixed(r, T.delta)) return false;
  const delta = readDigits(r);
  if (delta === undefined || !readFixed(r, CLAUDE_ENVELOPE_TEXT.session)) return false;
  const session = readPlainString(r, d[SESSION]);
  if (session === undefined || !readFixed(r, CLAUDE_ENVELOPE_TEXT.uuid) || !skipPlainString(r)) return false;
  if (!readFixed(r, '}') || r.at !== text.length) return false;
  d[SESSION] = session;
  const ctx = canonicalContext(text, line, offset, out, undefined);
  // As `system` does: the notice's data is the record beside its envelope.
  const data = newThinkingTokensData(tokens, delta);
  notice(d, ctx, 'thinking_tokens', undefined, data, undefined);
  finishLine(d, ctx);
  return true;
}

function endInput(d: DecoderState, out: AgentEvent[]): void {
  if (!d[RUN_OPEN]) return;
  const end = runEnd(d, { status: 'incomplete' });
  end.provenance = { format: FORMAT, line: d[LAST_LINE], offset: d[LAST_OFFSET], synthetic: true };
  if (d[PENDING].length > 0) {
    end.provenance.hints = { before: d[PENDING] } satisfies ClaudeHints;
    d[PENDING] = [];
  }
  out.push(end);
  d[RUN_OPEN] = false;
}

// ------------------------------------------------------------------------------------------
// Line plumbing

// The line's first event carries the line (and the lines before it that gave none).
function finishLine(d: DecoderState, ctx: LineContext): void {
  const count = ctx.out.length - ctx.start;
  if (count === 0) {
    d[PENDING].push(ctx.text);
    return;
  }
  const owner = ctx.out[ctx.start]!;
  const provenance = owner.provenance!;
  const old = provenance.hints as ClaudeHints | undefined;
  // Hints an event set itself (`block`, `state`) are kept: the general path adds to them.
  if (CLAUDE_WHOLE_EVENTS.enabled && old?.block === undefined && old?.state === undefined) {
    const before = d[PENDING].length > 0 ? d[PENDING] : undefined;
    if (before !== undefined) d[PENDING] = [];
    provenance.hints = ownerHints(old?.said, ctx.text, count, before) as Record<string, unknown>;
    return;
  }
  const hints = (provenance.hints ??= {}) as ClaudeHints;
  hints.raw = ctx.text;
  if (count > 1) hints.n = count;
  if (d[PENDING].length > 0) {
    hints.before = d[PENDING];
    d[PENDING] = [];
  }
}

// Stamps the envelope and provenance and appends the event.
function emit<E extends AgentEvent>(d: DecoderState, ctx: LineContext, event: E, synthetic = false): E {
  if (d[SESSION] !== undefined) event.session = d[SESSION];
  if (ctx.lane !== undefined) event.lane = ctx.lane;
  else if (
    d[ROUND] > 0 &&
    event.round === undefined &&
    event.type !== 'run.start' &&
    event.type !== 'run.end'
  )
    event.round = d[ROUND];
  // The provenance whole, as the whole events build it: a `hints` slot on the line's first event
  // (`finishLine` fills it), so no store adds a key to a provenance later (a map that dies at a
  // full GC, and `finishLine`'s code with it).
  const checked = synthetic ? undefined : CLAUDE_CHECKED[event.type];
  if (checked === undefined) event.provenance = synthetic ? syntheticProvenance(ctx) : plainProvenance(ctx);
  else {
    const said: Record<string, unknown> = {};
    for (const key of checked) {
      const value = (event as Record<string, unknown>)[key];
      if (value !== undefined) said[key] = value;
    }
    event.provenance = saidProvenance(ctx, said);
  }
  ctx.out.push(event);
  return event;
}

function blockHint(event: AgentEvent, index: number, count: number): void {
  if (count <= 1) return;
  const hints = (event.provenance!.hints ??= {}) as ClaudeHints;
  hints.block = index;
}

// The record types the decoder reads, each to its reader (one lookup, where a switch said
// `case type: reader(d, ctx); return;` eight times); any other type is kept as unknown.
type RecordReader = (d: DecoderState, ctx: LineContext) => void;
const RECORD_READERS: ReadonlyMap<unknown, RecordReader> = new Map<unknown, RecordReader>([
  ['system', system],
  ['assistant', assistant],
  ['user', user],
  ['result', result],
  ['stream_event', streamEvent],
  ['rate_limit_event', rateLimit],
  ['tool_progress', toolProgress],
  ['control_request', controlRequest],
]);

function dispatch(d: DecoderState, ctx: LineContext): void {
  const type = ctx.record.type;
  const read = RECORD_READERS.get(type);
  if (read !== undefined) read(d, ctx);
  else unknown(d, ctx, typeof type === 'string' ? type : undefined);
}

function unknown(d: DecoderState, ctx: LineContext, recordType: string | undefined): void {
  if (recordType === undefined)
    d[REPORT](
      'invalid_record',
      'warning',
      ctx.line,
      ctx.offset,
      'a record without a string "type"; kept as unknown',
    );
  const problem = unsafeNumberMessage(ctx.text);
  if (problem !== undefined) d[REPORT]('invalid_record', 'warning', ctx.line, ctx.offset, problem);
  const e: AgentEventOf<'unknown'> = { type: 'unknown', record: ctx.record };
  if (recordType !== undefined) e.recordType = recordType;
  emit(d, ctx, e);
}

// ------------------------------------------------------------------------------------------
// Runs and rounds

function ensureRun(d: DecoderState, ctx: LineContext): void {
  // A background subagent's lines between turns belong to its lane, not to a run of their own.
  if (d[RUN_OPEN] || ctx.lane !== undefined) return;
  // Whole (with its session when there is one), as `emit` would stamp it.
  if (!CLAUDE_WHOLE_EVENTS.enabled) emit(d, ctx, { type: 'run.start' }, true);
  else if (d[SESSION] === undefined) pushed(ctx, newRunStart(syntheticProvenance(ctx)));
  else pushed(ctx, newSessionRunStart(d[SESSION], syntheticProvenance(ctx)));
  d[RUN_OPEN] = true;
  d[ROUND] = 0;
}

function runEnd(d: DecoderState, fields: Omit<AgentEventOf<'run.end'>, 'type'>): AgentEventOf<'run.end'> {
  const e: AgentEventOf<'run.end'> = { type: 'run.end', ...fields };
  if (d[SESSION] !== undefined) e.session = d[SESSION];
  return e;
}

// Closes every open message: the main one ends its round (when the run goes on normally).
function closeMessages(d: DecoderState, ctx: LineContext, endsRound: boolean): void {
  const main = d[MESSAGES].get('');
  if (main !== undefined && endsRound) endRound(d, ctx, main);
  d[MESSAGES].clear();
}

function endRound(d: DecoderState, ctx: LineContext, m: MessageState): void {
  if (wholeRoundEnd(d, ctx, m)) return;
  const e: AgentEventOf<'round.end'> = { type: 'round.end', message: m.text, round: m.round };
  if (m.stopReason !== undefined) e.stopReason = m.stopReason;
  if (m.model !== undefined) e.model = m.model;
  emit(d, ctx, e, true);
}

// The open message of a lane with this id, or a new one (ending the lane's previous round).
function messageFor(d: DecoderState, ctx: LineContext, id: string, model: string | undefined): MessageState {
  const key = ctx.lane ?? '';
  const current = d[MESSAGES].get(key);
  if (current !== undefined && current.id === id) return current;
  if (current !== undefined && ctx.lane === undefined) endRound(d, ctx, current);
  if (ctx.lane === undefined) d[ROUND]++;
  const m: MessageState = {
    id,
    lane: ctx.lane,
    round: d[ROUND],
    text: '',
    stopReason: undefined,
    model,
    usages: [],
    streamed: undefined,
    startUsage: undefined,
    snapshotIndex: 0,
  };
  setBounded(d[MESSAGES], key, m, MAX_REMEMBERED);
  messageStart(d, ctx, id, model);
  return m;
}

// A message's usage, once per distinct figure: the per-line copies are not reported again.
function usage(d: DecoderState, ctx: LineContext, m: MessageState, raw: unknown, final: boolean): void {
  if (!isJsonObject(raw)) return;
  if (seenUsage(m, raw, undefined)) return;
  m.usages.push(raw);
  if (
    raw.output_tokens_details === undefined &&
    wholeUsage(
      d,
      ctx,
      m,
      {
        fresh: raw.input_tokens,
        cacheRead: raw.cache_read_input_tokens,
        cacheWrite: raw.cache_creation_input_tokens,
        output: raw.output_tokens,
      },
      final,
    )
  )
    return;
  generalUsage(d, ctx, m, raw, final);
}

// A usage object, once seen: as an object (`raw`) or as the canonical text of one (`text`, the
// canonical reader's). Two canonical texts say the same exactly when they are the same text
// (one spelling per value); any other pair is compared as values.
function seenUsage(m: MessageState, raw: JsonObject | undefined, text: string | undefined): boolean {
  let value: unknown = raw;
  for (const seen of m.usages) {
    if (typeof seen === 'string') {
      if (text !== undefined) {
        if (seen === text) return true;
        continue;
      }
      if (sameJson(JSON.parse(seen), value)) return true;
      continue;
    }
    value ??= JSON.parse(text!);
    if (sameJson(seen, value)) return true;
  }
  return false;
}

function generalUsage(
  d: DecoderState,
  ctx: LineContext,
  m: MessageState,
  raw: unknown,
  final: boolean,
): void {
  const usage: Usage | undefined = usageFromClaude(raw);
  if (usage === undefined) return;
  usage.scope = 'call';
  usage.final = final;
  usage.key = m.id;
  if (m.model !== undefined) usage.model = m.model;
  emit(d, ctx, { type: 'usage', usage });
}

// ------------------------------------------------------------------------------------------
// system/*

// The `system` subtypes with a reader of their own (one lookup, as `RECORD_READERS`); the others
// are read in `system`'s switch.
const SYSTEM_READERS: ReadonlyMap<unknown, RecordReader> = new Map<unknown, RecordReader>([
  ['init', init],
  ['task_started', taskStarted],
  ['task_progress', task],
  ['task_updated', task],
  ['task_notification', task],
  ['compact_boundary', compactBoundary],
  ['status', status],
  [CLAUDE_SESSION_STATE, sessionState],
]);

function system(d: DecoderState, ctx: LineContext): void {
  const r = ctx.record;
  const read = SYSTEM_READERS.get(r.subtype);
  if (read !== undefined) {
    read(d, ctx);
    return;
  }
  switch (r.subtype) {
    case 'hook_started':
    case 'hook_progress':
    case 'hook_response': {
      const e: AgentEventOf<'notice'> = { type: 'notice', kind: 'hook', data: dataOf(r) };
      const name = str(r.hook_name);
      if (name !== undefined) e.message = name;
      emit(d, ctx, e);
      return;
    }
    case 'thinking_tokens':
      notice(d, ctx, 'thinking_tokens', undefined, dataOf(r), undefined);
      return;
    case 'background_tasks_changed':
      notice(d, ctx, 'background_tasks', undefined, dataOf(r), undefined);
      return;
    case 'api_retry': {
      const e: AgentEventOf<'notice'> = {
        type: 'notice',
        kind: 'retry',
        severity: 'warning',
        data: dataOf(r),
      };
      const error = str(r.error);
      if (error !== undefined) e.message = error;
      emit(d, ctx, e);
      return;
    }
    default: {
      // What a supervisor has to see (CLAUDE_NOTICE_SUBTYPES): a notice of its subtype's name
      // with its text; an `info` one warns at `level: "warning"`.
      if (typeof r.subtype === 'string' && Object.hasOwn(CLAUDE_NOTICE_SUBTYPES, r.subtype)) {
        const severity = r.level === 'warning' ? 'warning' : CLAUDE_NOTICE_SUBTYPES[r.subtype]!;
        notice(d, ctx, r.subtype, severity, dataOf(r), str(r.message ?? r.content ?? r.text ?? r.error));
        return;
      }
      unknown(d, ctx, typeof r.subtype === 'string' ? `system/${r.subtype}` : 'system');
      return;
    }
  }
}

function init(d: DecoderState, ctx: LineContext): void {
  const r = ctx.record;
  if (d[RUN_OPEN]) {
    // A new turn without the previous one's result: that run never said how it ended.
    closeMessages(d, ctx, false);
    emit(d, ctx, runEnd(d, { status: 'incomplete' }), true);
    d[RUN_OPEN] = false;
  }
  if (!d[SESSION_STARTED]) {
    d[SESSION_STARTED] = true;
    const e: AgentEventOf<'session.start'> = { type: 'session.start' };
    const version = str(r.claude_code_version);
    if (version !== undefined) e.producer = version;
    const model = str(r.model);
    if (model !== undefined) e.model = model;
    const cwd = str(r.cwd);
    if (cwd !== undefined) e.cwd = cwd;
    const mode = str(r.permissionMode);
    if (mode !== undefined) e.mode = mode;
    if (Array.isArray(r.tools) && r.tools.every((t) => typeof t === 'string')) e.tools = r.tools as string[];
    emit(d, ctx, e);
  }
  ensureRun(d, ctx);
}

function taskStarted(d: DecoderState, ctx: LineContext): void {
  const r = ctx.record;
  const call = str(r.tool_use_id);
  const taskId = str(r.task_id);
  const child = call ?? taskId;
  if (child === undefined) {
    unknown(d, ctx, 'system/task_started');
    return;
  }
  // A task a subagent started belongs to that subagent's lane.
  if (r.owned_by_subagent === true && call !== undefined) {
    const lane = callLane(d[CALLS].get(call));
    if (lane !== undefined) ctx.lane = lane;
  }
  if (taskId !== undefined) setBounded(d[TASKS], taskId, { child, lane: ctx.lane }, MAX_REMEMBERED);
  const e: AgentEventOf<'child.start'> = { type: 'child.start', child };
  const name = str(r.subagent_type);
  if (name !== undefined) e.name = name;
  const task = str(r.description);
  if (task !== undefined) e.task = task;
  if (call !== undefined) e.call = call;
  if (typeof r.is_backgrounded === 'boolean') e.background = r.is_backgrounded;
  const type = str(r.task_type);
  if (type !== undefined) e.kind = type === 'local_agent' ? 'agent' : type === 'local_bash' ? 'shell' : type;
  emit(d, ctx, e);
}

function task(d: DecoderState, ctx: LineContext): void {
  const r = ctx.record;
  const taskId = str(r.task_id);
  const known = taskId === undefined ? undefined : d[TASKS].get(taskId);
  const child = known?.child ?? str(r.tool_use_id) ?? taskId;
  if (child === undefined) {
    unknown(d, ctx, `system/${String(r.subtype)}`);
    return;
  }
  if (known !== undefined) ctx.lane = known.lane;
  if (r.subtype === 'task_notification') {
    const e: AgentEventOf<'child.end'> = {
      type: 'child.end',
      child,
      status: childStatus(r.status) ?? 'incomplete',
    };
    const summary = str(r.summary);
    if (summary !== undefined) e.result = summary;
    emit(d, ctx, e);
    if (taskId !== undefined) d[TASKS].delete(taskId);
    return;
  }
  const e: AgentEventOf<'child.progress'> = { type: 'child.progress', child };
  const patch = r.patch;
  const detail =
    r.subtype === 'task_updated'
      ? isJsonObject(patch)
        ? str(patch.status)
        : undefined
      : (str(r.summary) ?? str(r.description));
  if (detail !== undefined) e.detail = detail;
  emit(d, ctx, e);
}

function compactBoundary(d: DecoderState, ctx: LineContext): void {
  const meta = isJsonObject(ctx.record.compact_metadata) ? ctx.record.compact_metadata : {};
  const trigger = str(meta.trigger);
  if (!d[COMPACTING]) {
    const start: AgentEventOf<'compaction.start'> = { type: 'compaction.start' };
    if (trigger !== undefined) start.trigger = trigger;
    emit(d, ctx, start, true);
  }
  d[COMPACTING] = false;
  const e: AgentEventOf<'compaction.end'> = { type: 'compaction.end' };
  if (trigger !== undefined) e.trigger = trigger;
  const before = isFiniteNumber(meta.pre_tokens) ? meta.pre_tokens : undefined;
  const after = isFiniteNumber(meta.post_tokens) ? meta.post_tokens : undefined;
  if (before !== undefined) e.tokensBefore = before;
  if (after !== undefined) e.tokensAfter = after;
  if (before !== undefined && after !== undefined) e.tokensFreed = before - after;
  emit(d, ctx, e);
}

function status(d: DecoderState, ctx: LineContext): void {
  const status = ctx.record.status;
  if (status === 'compacting') {
    d[COMPACTING] = true;
    emit(d, ctx, { type: 'compaction.start' });
    return;
  }
  emit(d, ctx, { type: 'status', status: typeof status === 'string' ? status : 'idle' });
}

// The session's state is a status too; the hint says which record it came from, so that the
// writer rebuilds that record and not a `system/status` (a state has no `null` to fall back to:
// without a string it stays unknown).
function sessionState(d: DecoderState, ctx: LineContext): void {
  const state = ctx.record.state;
  if (typeof state !== 'string') {
    unknown(d, ctx, `system/${CLAUDE_SESSION_STATE}`);
    return;
  }
  const e: AgentEventOf<'status'> = { type: 'status', status: state };
  // The line's only event, so its owner: `finishLine` adds the line to these hints.
  emit(d, ctx, e).provenance!.hints = { state: true } satisfies ClaudeHints;
}

// ------------------------------------------------------------------------------------------
// assistant

// An assistant or user record's `message` (the run opened for it), or `undefined` when it has
// no message object: then the record is kept as unknown.
function messageOf(d: DecoderState, ctx: LineContext, kind: 'assistant' | 'user'): JsonObject | undefined {
  const msg = ctx.record.message;
  if (!isJsonObject(msg)) {
    const what = `${kind === 'user' ? 'a' : 'an'} ${kind} record without a message object; kept as unknown`;
    d[REPORT]('invalid_record', 'warning', ctx.line, ctx.offset, what);
    unknown(d, ctx, kind);
    return undefined;
  }
  ensureRun(d, ctx);
  return msg;
}

function assistant(d: DecoderState, ctx: LineContext): void {
  const r = ctx.record;
  const msg = messageOf(d, ctx, 'assistant');
  if (msg === undefined) return;
  const blocks = contentBlocks(msg.content);
  if (typeof r.error === 'string') {
    // An API error the CLI wrote as a message of its own: an error, not the model's answer.
    let text = '';
    for (const b of blocks) if (typeof b.text === 'string') text += b.text;
    // It is the outcome of an API call of its own: the main agent's open round ends first.
    if (ctx.lane === undefined) {
      const main = d[MESSAGES].get('');
      if (main !== undefined) endRound(d, ctx, main);
      d[MESSAGES].delete('');
      d[ROUND]++;
    }
    emit(d, ctx, { type: 'error', message: text, fatal: false, code: r.error });
    return;
  }
  const m = messageFor(d, ctx, str(msg.id) ?? '', str(msg.model));
  const stop = str(msg.stop_reason);
  if (stop !== undefined) m.stopReason = stop;
  usage(d, ctx, m, msg.usage, stop !== undefined);
  for (let i = 0; i < blocks.length; i++) block(d, ctx, m, blocks[i]!, i, blocks.length);
}

function block(
  d: DecoderState,
  ctx: LineContext,
  m: MessageState,
  b: JsonObject,
  i: number,
  count: number,
): void {
  const streamed = m.streamed !== undefined && nextStreamed(m, typeof b.type === 'string' ? b.type : '');
  let e: AgentEvent | undefined;
  switch (b.type) {
    case 'text':
      if (streamed || typeof b.text !== 'string') return;
      e = textBlock(d, ctx, m, b.text);
      break;
    case 'thinking':
      if (streamed) return;
      e = thinking(d, ctx, str(b.thinking) ?? '', m.id, str(b.signature));
      break;
    case 'redacted_thinking':
      if (streamed) return;
      e = emit(d, ctx, { type: 'reasoning.delta', text: '', message: m.id, redacted: str(b.data) ?? '' });
      break;
    case 'tool_use': {
      const call = str(b.id);
      const name = str(b.name);
      if (call === undefined || name === undefined) return;
      e = toolUse(d, ctx, call, name, b.input);
      break;
    }
    default:
      return;
  }
  if (e !== undefined) blockHint(e, i, count);
}

// Whether the message's next snapshot block was streamed already (and its events given).
// Snapshot lines come in block order, one block each, so they are matched to the streamed blocks
// by position. A snapshot line that came twice would take the next block's place and make every
// later block's text come again: a snapshot whose type is not that of the next streamed block (or
// that has none) but is that of the block before, which was streamed, is that block's repeat. It
// gives no event (its line is kept for the writer like any line without one) and takes no place.
// (Called only once the message has streamed blocks.)
function nextStreamed(m: MessageState, type: string): boolean {
  const blocks = m.streamed!;
  const next = blocks.get(m.snapshotIndex);
  if (next?.type !== type && m.snapshotIndex > 0) {
    const before = blocks.get(m.snapshotIndex - 1);
    if (before !== undefined && before.type === type && before.streamed) return true;
  }
  m.snapshotIndex++;
  return next?.streamed === true;
}

function textBlock(d: DecoderState, ctx: LineContext, m: MessageState, text: string): AgentEvent {
  holdText(d, ctx, m, text);
  return textDelta(d, ctx, text, m.id);
}

// The message's text for its round's end, held up to MAX_ROUND_TEXT (bounds.ts).
function holdText(d: DecoderState, ctx: LineContext, m: MessageState, text: string): void {
  m.text = appendRoundText(m.text, text, d[REPORT], ctx.line, ctx.offset);
}

function toolUse(d: DecoderState, ctx: LineContext, call: string, name: string, input: unknown): AgentEvent {
  const question = name === QUESTION_TOOL;
  const kept = sharedString(name, d[SHARED]);
  const lane = ctx.lane;
  setBoundedKept(
    d[CALLS],
    call,
    lane === undefined ? kept : { name: kept, lane: sharedString(lane, d[SHARED]) },
    MAX_REMEMBERED,
  );
  const server = mcpServer(name);
  let e: AgentEvent | undefined;
  if (server === undefined && isJsonObject(input)) e = wholeToolStart(d, ctx, call, name, input);
  if (e === undefined) {
    const start: AgentEventOf<'tool.start'> = { type: 'tool.start', call, name };
    if (server !== undefined) start.server = server;
    if (isJsonObject(input)) start.args = input;
    e = emit(d, ctx, start);
  }
  if (question) {
    emit(d, ctx, { type: 'question', question: call, questions: questionsOf(input), call });
  }
  return e;
}

// ------------------------------------------------------------------------------------------
// user

function user(d: DecoderState, ctx: LineContext): void {
  const r = ctx.record;
  const msg = messageOf(d, ctx, 'user');
  if (msg === undefined) return;
  const synthetic = r.isSynthetic === true;
  if (typeof msg.content === 'string') {
    userText(d, ctx, msg.content, synthetic);
    return;
  }
  const blocks = contentBlocks(msg.content);
  let resultUsed = false;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]!;
    let e: AgentEvent | undefined;
    if (b.type === 'tool_result') {
      const call = str(b.tool_use_id);
      if (call !== undefined) {
        const result = resultUsed ? undefined : r.tool_use_result;
        const denied = deniedByMeta(r, call);
        e = toolResult(d, ctx, {
          call,
          ok: b.is_error !== true,
          text: contentPartsText(b.content),
          result,
          denied,
        });
      }
      resultUsed = true;
    } else if (b.type === 'text' && typeof b.text === 'string') {
      e = userText(d, ctx, b.text, synthetic);
    }
    if (e !== undefined) blockHint(e, i, blocks.length);
  }
}

function userText(d: DecoderState, ctx: LineContext, text: string, synthetic: boolean): AgentEvent {
  const e: AgentEventOf<'user.message'> = { type: 'user.message', text };
  if (synthetic) e.synthetic = true;
  return emit(d, ctx, e);
}

/** A `tool_result` block as read: its call, whether it failed, its text and the line's result. */
interface ToolResult {
  call: string;
  ok: boolean;
  text: string | undefined;
  result: unknown;
  denied: boolean;
}

function toolResult(d: DecoderState, ctx: LineContext, read: ToolResult): AgentEvent {
  const { call, ok, text, result, denied } = read;
  const info = d[CALLS].get(call);
  const name = info === undefined ? undefined : callName(info);
  let event: AgentEvent | undefined;
  if (ok && !denied && name !== undefined && text !== undefined && result !== undefined)
    event = wholeToolEnd(d, ctx, call, name, text, result);
  if (event === undefined) {
    const e: AgentEventOf<'tool.end'> = { type: 'tool.end', call, ok };
    if (name !== undefined) e.name = name;
    if (text !== undefined) e.text = text;
    // A failed call's `tool_use_result` is its error text ("Error: …"), not a result.
    if (!ok) e.error = typeof result === 'string' ? result : (text ?? '');
    if (result !== undefined && !(typeof result === 'string' && !ok)) e.result = result;
    if (denied) e.denied = true;
    event = emit(d, ctx, e);
  }
  const approval = d[APPROVALS].get(call);
  if (approval !== undefined) {
    d[APPROVALS].delete(call);
    emit(d, ctx, { type: 'approval.resolve', approval, decision: denied ? 'deny' : 'allow' }, true);
  }
  if (name === QUESTION_TOOL && isJsonObject(result) && isJsonObject(result.answers)) {
    emit(d, ctx, { type: 'question.answer', question: call, answers: result.answers }, true);
  }
  return event;
}

// `tool_result_meta[{id, non_execution_kind}]`: the call never ran (a permission rule, a hook).
function deniedByMeta(record: JsonObject, call: string): boolean {
  const meta = record.tool_result_meta;
  if (!Array.isArray(meta)) return false;
  for (const m of meta)
    if (isJsonObject(m) && m.id === call && typeof m.non_execution_kind === 'string') return true;
  return false;
}

// ------------------------------------------------------------------------------------------
// result

function result(d: DecoderState, ctx: LineContext): void {
  const r = ctx.record;
  ensureRun(d, ctx);
  closeMessages(d, ctx, true);
  const outcome = resultOutcome(r);
  const e = runEnd(d, { status: outcome.status });
  if (outcome.reason !== undefined) e.reason = outcome.reason;
  if (outcome.status === 'failed') {
    const errors = Array.isArray(r.errors) ? r.errors.filter((x): x is string => typeof x === 'string') : [];
    const error = errors.length > 0 ? errors.join('\n') : str(r.result);
    if (error !== undefined) e.error = error;
  }
  if (isFiniteNumber(r.duration_ms)) e.durationMs = r.duration_ms;
  const answer = str(r.result);
  if (answer !== undefined) e.answer = answer;
  const stop = str(r.stop_reason);
  if (stop !== undefined) e.stopReason = stop;
  const usage = usageFromClaude(r.usage) ?? {};
  if (isFiniteNumber(r.total_cost_usd)) usage.costUsd = r.total_cost_usd;
  const byModel = byModelFromClaude(r.modelUsage);
  if (byModel !== undefined) usage.byModel = byModel;
  if (Object.keys(usage).length > 0) e.usage = usage;
  emit(d, ctx, e);
  d[RUN_OPEN] = false;
  d[ROUND] = 0;
}

// ------------------------------------------------------------------------------------------
// stream_event (--include-partial-messages)

function streamEvent(d: DecoderState, ctx: LineContext): void {
  const ev = ctx.record.event;
  if (!isJsonObject(ev)) {
    unknown(d, ctx, 'stream_event');
    return;
  }
  ensureRun(d, ctx);
  const current = d[MESSAGES].get(ctx.lane ?? '');
  switch (ev.type) {
    case 'message_start': {
      const msg = isJsonObject(ev.message) ? ev.message : {};
      const m = messageFor(d, ctx, str(msg.id) ?? '', str(msg.model));
      m.streamed ??= new Map();
      if (isJsonObject(msg.usage)) m.startUsage = msg.usage;
      usage(d, ctx, m, msg.usage, false);
      return;
    }
    case 'content_block_start': {
      streamBlockStart(d, ctx, current, ev);
      return;
    }
    case 'content_block_delta': {
      streamDelta(d, ctx, current, ev);
      return;
    }
    case 'message_delta': {
      if (current === undefined) return;
      const delta = isJsonObject(ev.delta) ? ev.delta : {};
      const stop = str(delta.stop_reason);
      if (stop !== undefined) current.stopReason = stop;
      if (isJsonObject(ev.usage)) usage(d, ctx, current, { ...current.startUsage, ...ev.usage }, true);
      return;
    }
    case 'message_stop':
      if (current !== undefined) emit(d, ctx, { type: 'message.end', message: current.id });
      return;
    case 'content_block_stop':
    case 'ping':
      return;
    default: {
      unknown(d, ctx, typeof ev.type === 'string' ? `stream_event/${ev.type}` : 'stream_event');
      return;
    }
  }
}

function streamBlockStart(
  d: DecoderState,
  ctx: LineContext,
  m: MessageState | undefined,
  ev: JsonObject,
): void {
  const cb = ev.content_block;
  if (m === undefined || typeof ev.index !== 'number' || !isJsonObject(cb)) return;
  m.streamed ??= new Map();
  const block: StreamBlock = { type: str(cb.type) ?? '', streamed: false };
  m.streamed.set(ev.index, block);
  if (cb.type === 'tool_use') {
    const call = str(cb.id);
    const name = str(cb.name);
    if (call !== undefined) block.call = call;
    if (name !== undefined) block.name = name;
  } else if (cb.type === 'text' && typeof cb.text === 'string' && cb.text !== '') {
    block.streamed = true;
    holdText(d, ctx, m, cb.text);
    emit(d, ctx, { type: 'text.delta', text: cb.text, message: m.id });
  } else if (cb.type === 'redacted_thinking') {
    block.streamed = true;
    emit(d, ctx, { type: 'reasoning.delta', text: '', message: m.id, redacted: str(cb.data) ?? '' });
  }
}

function streamDelta(d: DecoderState, ctx: LineContext, m: MessageState | undefined, ev: JsonObject): void {
  const delta = ev.delta;
  if (m === undefined || typeof ev.index !== 'number' || !isJsonObject(delta)) return;
  let block = m.streamed?.get(ev.index);
  if (block === undefined) {
    block = { type: '', streamed: false };
    (m.streamed ??= new Map()).set(ev.index, block);
  }
  switch (delta.type) {
    case 'text_delta':
      if (typeof delta.text !== 'string') return;
      block.streamed = true;
      holdText(d, ctx, m, delta.text);
      emit(d, ctx, { type: 'text.delta', text: delta.text, message: m.id });
      return;
    case 'thinking_delta':
      if (typeof delta.thinking !== 'string') return;
      block.streamed = true;
      emit(d, ctx, { type: 'reasoning.delta', text: delta.thinking, message: m.id });
      return;
    case 'signature_delta':
      if (typeof delta.signature !== 'string') return;
      block.streamed = true;
      emit(d, ctx, { type: 'reasoning.delta', text: '', message: m.id, signature: delta.signature });
      return;
    case 'input_json_delta': {
      if (typeof delta.partial_json !== 'string' || block.call === undefined) return;
      const e: AgentEventOf<'tool.args.delta'> = {
        type: 'tool.args.delta',
        call: block.call,
        text: delta.partial_json,
      };
      if (block.name !== undefined) e.name = block.name;
      emit(d, ctx, e);
      return;
    }
    default:
      return;
  }
}

// ------------------------------------------------------------------------------------------
// Notices, heartbeats, permission requests

function rateLimit(d: DecoderState, ctx: LineContext): void {
  const info = isJsonObject(ctx.record.rate_limit_info) ? ctx.record.rate_limit_info : {};
  const status = str(info.status);
  const severity = status === undefined || status === 'allowed' ? 'info' : 'warning';
  notice(d, ctx, 'rate_limit', severity, info, status);
}

function toolProgress(d: DecoderState, ctx: LineContext): void {
  const r = ctx.record;
  const call = str(r.tool_use_id);
  if (call === undefined) {
    unknown(d, ctx, 'tool_progress');
    return;
  }
  ensureRun(d, ctx);
  // Seconds in range can be milliseconds out of it (1e306 s): the product is checked, not the input.
  const seconds = num(r.elapsed_time_seconds);
  const e: AgentEventOf<'tool.liveness'> = {
    type: 'tool.liveness',
    call,
    action: 'heartbeat',
    elapsedMs: seconds === undefined ? 0 : (finiteOr(seconds * 1000) ?? 0),
  };
  const name = str(r.tool_name);
  if (name !== undefined) e.name = name;
  emit(d, ctx, e);
}

function controlRequest(d: DecoderState, ctx: LineContext): void {
  const r = ctx.record;
  const req = r.request;
  const id = str(r.request_id);
  if (!isJsonObject(req) || req.subtype !== 'can_use_tool' || id === undefined) {
    const sub = isJsonObject(req) ? str(req.subtype) : undefined;
    unknown(d, ctx, sub === undefined ? 'control_request' : `control_request/${sub}`);
    return;
  }
  ensureRun(d, ctx);
  const e: AgentEventOf<'approval.request'> = { type: 'approval.request', approval: id };
  const call = str(req.tool_use_id);
  if (call !== undefined) {
    e.call = call;
    setBounded(d[APPROVALS], call, id, MAX_REMEMBERED);
    const lane = callLane(d[CALLS].get(call));
    if (lane !== undefined) ctx.lane = lane;
  }
  const tool = str(req.tool_name);
  if (tool !== undefined) e.tool = tool;
  const title = str(req.description) ?? str(req.display_name);
  if (title !== undefined) e.title = title;
  if (isJsonObject(req.input)) e.args = req.input;
  emit(d, ctx, e);
}
