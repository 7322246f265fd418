import type { EncodeOptions, Encoder } from '../../codec';
import type { DiagnosticSink } from '../../diagnostics';
import { randomId } from '../../ids';
import {
  assertEncodable,
  assertNumber,
  assertText,
  encodeJson,
  encodeJsonText,
  isJsonObject,
  type JsonObject,
  jsonString,
  jsonText,
  rawIfSame,
  requireObject,
  requireText,
} from '../../json';
import { isStableJson, keptRecord, sameAsKept } from '../../kept';
import { checkLoss, keysInPlace, type LossState, lossReported, newLoss, reportLoss } from '../../loss';
import type { AgentEvent, AgentEventOf, Usage } from '../../model';
import { newRunSpan, type RunSpan, SPAN_WROTE, spanAfter, spanBefore } from '../../run-span';
import {
  AMP_ASSISTANT_LINE_HEAD,
  AMP_MAX_HELD_TEXT,
  AMP_SUCCESS,
  AMP_TEXT_BLOCK_HEAD,
  AMP_USER_LINE_HEAD,
  type AmpHints,
  isAmpToolList,
  isMappedAssistantBlock,
  isMappedUserBlock,
  mergeBlocks,
} from './wire';

/** Options of the Amp writer. */
export interface AmpEncodeOptions extends EncodeOptions {
  /** `session_id` for events without `session`. Default `T-` and an id from `idSource`. */
  session?: string;
  /** Makes the thread id when none is given. Default `crypto.randomUUID()`. */
  idSource?: () => string;
}

const FORMAT = 'amp' as const;

const json = (value: unknown, field: string): string => encodeJson(value, field, FORMAT);
// A count JSON cannot hold (not finite) is an AgentwireError naming the field.
function count(n: number | undefined, field: string): number | undefined {
  if (n !== undefined && !Number.isFinite(n)) assertEncodable(n, field, undefined, FORMAT);
  return n;
}

// Fields each event type carries into Amp; anything else present is reported as a loss.
const ENV = ['session', 'lane', 'round'];
const CARRIED: Partial<Record<AgentEvent['type'], readonly string[]>> = {
  'session.start': [...ENV, 'cwd', 'tools'],
  'run.start': [...ENV, 'input'],
  'run.end': [...ENV, 'status', 'reason', 'durationMs', 'answer', 'error', 'usage'],
  'round.end': [...ENV, 'message', 'stopReason', 'usage'],
  usage: [...ENV, 'usage'],
  'message.start': [...ENV, 'role'],
  'message.end': ENV,
  'text.delta': [...ENV, 'text'],
  'reasoning.delta': [...ENV, 'text', 'signature', 'redacted'],
  'user.message': [...ENV, 'text'],
  'tool.start': [...ENV, 'call', 'name', 'args'],
  'tool.end': [...ENV, 'call', 'name', 'ok', 'text', 'result', 'error'],
  'child.start': [...ENV, 'child', 'call', 'name'],
  'child.end': [...ENV, 'child', 'status', 'result'],
  unknown: [...ENV, 'record', 'recordType'],
};

const TEXT_CARRIED = CARRIED['text.delta'] as readonly string[];
const MESSAGE_START_CARRIED = CARRIED['message.start'] as readonly string[];

/**
 * Whether another format's text deltas that extend the text block the last delta left are
 * joined by the shortcut (`joinDelta`) instead of the general path. Off, only the general path
 * runs; the property test in test/amp/writer-join.test.ts holds the two equal.
 */
export const AMP_JOIN_SHORTCUT: { enabled: boolean } = { enabled: true };

/**
 * Whether an assistant line built from the model (no kept record) is spelled from templates
 * (`assistantTemplate`) instead of `JSON.stringify` of the record. Off, only the general path
 * runs; the property test in test/amp/writer-templates.test.ts holds the two equal.
 */
export const AMP_TEMPLATES: { enabled: boolean } = { enabled: true };

/**
 * Whether another format's events that write nothing here (`message.start`, implied by an
 * assistant line, and `tool.output`, which Amp has no record for) skip the general path's lookups
 * and dispatch (`quietEvent`). Off, only the general path runs; the property test in
 * test/amp/writer-templates.test.ts ("quiet events") holds the two equal.
 */
export const AMP_QUIET_SHORTCUT: { enabled: boolean } = { enabled: true };

/**
 * Whether a `user` or `assistant` line gathered from this format's events is written as the
 * decoder kept it (`hints.raw`) when the record the general path would rebuild says what the
 * kept record says (`keptAssistant`, `keptResults`), without rebuilding and stringifying it.
 * Off, only the general path runs; test/amp/kept-lines.test.ts holds the two equal
 * (docs/performance.md, "Kept lines" and "Amp writer, round seventeen").
 */
export const AMP_KEPT_LINES: { enabled: boolean } = { enabled: true };

/** A `user` or `assistant` line being gathered from the events of one record. */
interface Pending {
  kind: 'user' | 'assistant';
  blocks: JsonObject[];
  /** The line the events came from (events of this format), or undefined (built from the model). */
  line: number | undefined;
  hints: AmpHints | undefined;
  lane: string | undefined;
  session: string | undefined;
  /** For assistant lines: the round's end, which carries the stop reason and usage. */
  end: AgentEventOf<'round.end'> | undefined;
  /**
   * The text block built last from another format's deltas (the writer's own `{type, text}`
   * literal), which the next delta extends while it is the last block. A field of the line, not a
   * `WeakSet` of such blocks: blocks are only ever appended, so the last one made is the only one
   * that can be last, and the test is a compare, not a weak-table lookup (whose table a GC walks).
   */
  joinable: JsonObject | undefined;
  /**
   * Characters of another format's reasoning and text blocks the line holds, counted as each
   * block is added (the joinable block's growth has its own cap): past AMP_MAX_HELD_TEXT the
   * line is written before the next block.
   */
  held: number;
}

/**
 * A lane's gathered lines: its assistant message and the tool results that follow it. An array
 * of slots (the `SLOT_` indices), not a literal: a lane's slot is made once or twice a stream, so
 * its factory has no allocation site for the first several encoders, and a literal's hidden
 * class would die at a full GC with the code that read it (as the writer's state, below).
 */
type Slot = [
  assistant: Pending | undefined,
  results: Pending | undefined,
  // The lane's message was written before its round ended (another lane's lines came).
  early: boolean,
  // Another format's call usage was written on its own line since the lane's last round.
  usageSaid: boolean,
];

const SLOT_ASSISTANT = 0;
const SLOT_RESULTS = 1;
const SLOT_EARLY = 2;
const SLOT_USAGE_SAID = 3;

function newSlot(results: Pending | undefined): Slot {
  return [undefined, results, false, false];
}

/**
 * The writer's state ({@link newWriter}): an array of slots (the indices below), not a literal.
 * An array's hidden class belongs to the realm and outlives every GC; a literal's, made before
 * the factory has an allocation site (a factory called once per encoder gets one only after
 * several encoders), dies with the last writer at a full GC and takes the per-event code that
 * read it along (docs/performance.md, "Amp writer, round seven"). Its slots and pending lines are
 * literals made many times per stream, whose allocation sites hold their hidden classes.
 */
type Writer = [
  options: AmpEncodeOptions,
  loss: LossState,
  session: string | undefined,
  // The lines being gathered, per lane ('' for the main agent): a subagent's lines interleave
  // with its parent's, and each lane's message and results are written in their own order.
  slots: Map<string, Slot>,
  callOf: Map<string, string>,
  rounds: number,
  // The input and output the run's assistant lines carried (its result's total is the sum).
  lineInput: number,
  lineOutput: number,
  // Text a call made while gathering must put out before whatever the event writes.
  before: string,
  // The text block the last event (another format's text delta) left last in its lane's gathered
  // message, with nothing else gathered anywhere: the next delta of that lane extends it without
  // the general path's look at every lane (`joinDelta`). Cleared by any other event.
  joinTo: JsonObject | undefined,
  joinLane: string | undefined,
  // The end of the last main-lane line built from the model (`lineTail`) and the session it names.
  tailSession: string | undefined,
  tail: string,
  // Another format's runs: Amp says one was cut off only where the stream ends.
  span: RunSpan,
  // The lanes that have had a line (made with their first gathered slot), and another format's
  // subagents followed: a reader knows a subagent only by its lines (see `Children`).
  laneLines: Set<string> | undefined,
  children: Children | undefined,
  // The session the last kept main-lane line was checked against, and the end such a line has
  // (`keptNullLane`).
  keptSession: string | undefined,
  keptTail: string,
];

const OPTIONS = 0;
const LOSS = 1;
const SESSION = 2;
const SLOTS = 3;
const CALL_OF = 4;
const ROUNDS = 5;
const LINE_INPUT = 6;
const LINE_OUTPUT = 7;
const BEFORE = 8;
const JOIN_TO = 9;
const JOIN_LANE = 10;
const TAIL_SESSION = 11;
const TAIL = 12;
const SPAN = 13;
const LANE_LINES = 14;
const CHILDREN = 15;
const KEPT_SESSION = 16;
const KEPT_TAIL = 17;

/**
 * Another format's subagents, as a reader will see them: Amp has no record for a subagent's
 * start or end. A reader opens one at its first line (`parent_tool_use_id` its spawning call)
 * and ends it at that call's `tool_result`, failed when `is_error`. So a subagent without a line
 * of its own is not read back at all, one whose call was answered before its first line (a
 * background subagent) never ends, and one whose end says otherwise than its call's answer
 * reads back with the answer's status: each a `loss`.
 */
interface Children {
  /** The subagent each spawning call started, until the call's answer. */
  byCall: Map<string, string>;
  /**
   * Per subagent: its end once it came, the status its call's answer gives, and whether that
   * answer came before its first line.
   */
  state: Map<string, { end?: AgentEventOf<'child.end'>; read?: string; early?: boolean }>;
}

function newWriter(options: AmpEncodeOptions, sink: DiagnosticSink): Writer {
  return [
    options,
    newLoss(FORMAT, sink),
    undefined,
    new Map(),
    new Map(),
    0,
    0,
    0,
    '',
    undefined,
    undefined,
    undefined,
    '',
    newRunSpan(),
    undefined,
    undefined,
    undefined,
    '',
  ];
}

/**
 * The Amp stream-json writer: canonical events → `system`/`user`/`assistant`/`result` lines.
 * The events of one line (the content blocks of an assistant message, the tool results of a user
 * message) are gathered and written as that line when the next line's events begin; lines read
 * from Amp come back byte for byte while their events are unchanged.
 */
export function createAmpEncoder(options: AmpEncodeOptions, sink: DiagnosticSink): Encoder {
  return new AmpEncoder(newWriter(options, sink));
}

/**
 * The encoder: the writer's state in its element 0, `write` and `end` on the prototype. With no
 * named property of its own, every encoder has the class's initial hidden class, which the class
 * holds: a caller's loop optimised around one encoder's `write` keeps its code at the next
 * encoder and across a full GC (a literal `{w, write, end}` made once per encoder had a hidden
 * class the GC freed between encoders; a closure per encoder is a new call target each time:
 * docs/performance.md, "Amp writer, round six" and "round seven").
 */
class AmpEncoder implements Encoder {
  declare readonly 0: Writer;

  constructor(w: Writer) {
    (this as { 0: Writer })[0] = w;
  }

  write(event: AgentEvent): string {
    return writeEvent(this[0], event);
  }

  end(): string {
    return endWrite(this[0]);
  }
}

function writeEvent(w: Writer, event: AgentEvent): string {
  const p = event.provenance;
  // Another format's event (or one built by hand): a text delta that extends the block the last
  // one left, or an event that writes nothing here, takes its shortcut. The provenance is read
  // once for both (an Amp event ends any join). Neither is a run's start or end, and neither
  // writes a byte: another format's runs (run-span.ts) are not concerned.
  if (p?.format !== FORMAT) {
    if (w[JOIN_TO] !== undefined && joinDelta(w, event)) return '';
    if (AMP_QUIET_SHORTCUT.enabled && w[BEFORE] === '' && quietEvent(w, event)) return '';
  } else w[JOIN_TO] = undefined;
  const own = p !== undefined && p.format === FORMAT;
  // What the event's line would refuse, refused before anything is said, gathered, opened or
  // written for it (a derived event writes nothing of its own: not refused). A call's end's
  // content is made here once. After the shortcuts, which write nothing (a joined delta's text
  // is a string: `joinDelta`) and change only the join's cache, which the general path fills.
  const content = own && p.synthetic === true ? '' : assertWritable(w, event, own);
  // Another format's runs are followed here (run-span.ts), as the highbar writer does, not in a
  // wrapper around this function (docs/performance.md, "Amp writer, round thirteen"); a run's
  // start before this event's own losses are said, as the run before it ends there.
  if (!own) spanBefore(w[SPAN], w[LOSS], event, FORMAT);
  const carried = CARRIED[event.type];
  if (carried !== undefined) checkLoss(w[LOSS], event, carried);
  // Derived on reading (a run nobody announced, a subagent lane, a round's end after its tool
  // results, a stream without result): the lines they came from are written by their own events.
  if (own && p.synthetic === true) {
    if (event.type !== 'round.end') return '';
    // A derived round end carries its line's usage: the main lane's count toward the sum the
    // run's total is checked against (`result`), as a round end written from the model does.
    countLine(w, event.usage, event.lane);
    // It still closes the round being gathered (its lines are complete).
    return wrote(w, flush(w));
  }
  const hints = own ? (p.hints as AmpHints | undefined) : undefined;
  const line = own ? p.line : undefined;
  const head = own ? flushOther(w, line) : '';
  const text = dispatch(w, event, own, line, hints, content);
  // Most events write nothing and flush nothing: no concatenation of empty strings then.
  let out = text;
  if (head !== '' || w[BEFORE] !== '') {
    out = head + w[BEFORE] + text;
    w[BEFORE] = '';
  }
  if (own) return wrote(w, out);
  spanAfter(w[SPAN], w[LOSS], event, out, FORMAT);
  return out;
}

// A byte written counts for the open run (run-span.ts `spanAfter`, for an event that is not
// another format's run end).
function wrote(w: Writer, text: string): string {
  if (text !== '') w[SPAN][SPAN_WROTE] = true;
  return text;
}

function dispatch(
  w: Writer,
  event: AgentEvent,
  own: boolean,
  line: number | undefined,
  hints: AmpHints | undefined,
  // A call's end's `tool_result` content (`assertWritable`).
  content: string,
): string {
  let text = '';
  switch (event.type) {
    case 'session.start':
      return text + flush(w) + init(w, event, hints);
    case 'run.start':
      w[ROUNDS] = 0;
      w[LINE_INPUT] = 0;
      w[LINE_OUTPUT] = 0;
      if (event.input === undefined) return text;
      return text + flush(w) + userText(w, event, event.input, hints);
    case 'user.message':
      if (own) {
        pending(w, event, line, hints).blocks.push(block(hints, { type: 'text', text: event.text }));
        return text;
      }
      return text + flush(w) + userText(w, event, event.text, undefined);
    case 'text.delta': {
      let a = pendingAssistant(w, event, line, hints);
      let last = a.blocks[a.blocks.length - 1];
      // Held text at the cap: the line so far is written before this delta starts the next.
      if (
        !own &&
        last !== undefined &&
        last === a.joinable &&
        (last.text as string).length >= AMP_MAX_HELD_TEXT
      ) {
        text += cutAssistant(w, event);
        a = pendingAssistant(w, event, line, hints);
        last = undefined;
      }
      // Amp writes a message's text whole, one block: another format's deltas are joined.
      if (!own && last !== undefined && last === a.joinable) {
        last.text = `${last.text as string}${event.text}`;
        w[JOIN_TO] = last;
        w[JOIN_LANE] = event.lane;
        return text;
      }
      if (own) {
        a.blocks.push(block(hints, { type: 'text', text: event.text }));
        return text;
      }
      if (a.held >= AMP_MAX_HELD_TEXT) {
        text += cutAssistant(w, event);
        a = pendingAssistant(w, event, line, hints);
      }
      const b: JsonObject = { type: 'text', text: event.text as string };
      a.held += event.text.length;
      a.blocks.push(b);
      a.joinable = b;
      w[JOIN_TO] = b;
      w[JOIN_LANE] = event.lane;
      return text;
    }
    case 'reasoning.delta': {
      const b: JsonObject =
        event.redacted !== undefined
          ? { type: 'redacted_thinking', data: event.redacted }
          : { type: 'thinking', thinking: event.text };
      if (event.redacted === undefined && event.signature !== undefined) b.signature = event.signature;
      let a = pendingAssistant(w, event, line, hints);
      if (!own) {
        if (a.held >= AMP_MAX_HELD_TEXT) {
          text += cutAssistant(w, event);
          a = pendingAssistant(w, event, line, hints);
        }
        a.held += (event.redacted ?? event.text).length;
      }
      a.blocks.push(block(hints, b));
      return text;
    }
    case 'tool.start': {
      if (!own && event.args !== undefined) assertEncodable(event.args, 'tool.start.args', undefined, FORMAT);
      const b: JsonObject = { type: 'tool_use', id: event.call, name: event.name, input: event.args ?? {} };
      pendingAssistant(w, event, line, hints).blocks.push(block(hints, b));
      return text;
    }
    case 'tool.end': {
      errorLeftOut(w, event, content);
      if (!own && w[CHILDREN] !== undefined) callAnswered(w, w[CHILDREN], event);
      pending(w, event, line, hints).blocks.push(toolResult(hints, event.call, content, !event.ok));
      return text;
    }
    case 'round.end': {
      // Tool results gathered before a round's end are that round's: they follow its message.
      const slot = lane(w, event, own);
      if (slot[SLOT_USAGE_SAID]) {
        // A subagent round's usage sums its calls' usage, which had their lines: not said twice.
        slot[SLOT_USAGE_SAID] = false;
        if (slot[SLOT_ASSISTANT] === undefined && event.lane !== undefined && !own)
          return text + flushResults(w, slot);
      }
      if (slot[SLOT_ASSISTANT] === undefined && slot[SLOT_EARLY]) {
        slot[SLOT_EARLY] = false;
        if (event.usage !== undefined || event.stopReason !== undefined)
          reportLoss(
            w[LOSS],
            event,
            'round.end.usage',
            `${FORMAT} wrote the round's message before its end (a subagent's lines came between): its usage and stop reason have no line left`,
          );
        return text + flushResults(w, slot);
      }
      slot[SLOT_ASSISTANT] ??= start(w, 'assistant', event, line, hints);
      slot[SLOT_ASSISTANT].end = event;
      return text + flushSlot(w, slot);
    }
    case 'run.end':
      return text + flush(w) + result(w, event, hints);
    case 'unknown':
      return text + flush(w) + unknown(w, event, own, hints);
    case 'usage':
      // A subagent line's call usage: the line it came from is written by its blocks.
      if (own) return text;
      // A subagent's call usage ends its message (a subagent has no rounds of its own).
      if (event.lane !== undefined && event.usage.scope !== 'thread') {
        const slot = lane(w, event, false);
        if (slot[SLOT_ASSISTANT] !== undefined) {
          // The reader keeps a subagent line's usage as an event only from a line that says
          // nothing else: on the message's line it would stay in the line, lost when read back.
          // A running count (`final: false`, said as a message starts) stays on the line.
          let lines = text;
          if (slot[SLOT_ASSISTANT].blocks.length > 0 && event.usage.final !== false) {
            lines += flushAssistant(w, slot);
            slot[SLOT_ASSISTANT] = start(w, 'assistant', event, undefined, undefined);
          }
          slot[SLOT_ASSISTANT].end = { type: 'round.end', message: '', usage: event.usage };
          slot[SLOT_USAGE_SAID] = true;
          return lines + flushAssistant(w, slot);
        }
      }
      reportLoss(w[LOSS], event, 'usage', `${FORMAT} has usage only on assistant lines (round.end.usage)`);
      return text;
    case 'message.start':
    case 'message.end':
      // Implied: an assistant line is one message.
      return text;
    case 'child.start':
      // A lane another format names by its own id is written as the spawning call's (Amp's).
      if (!own) {
        if (event.call !== undefined) w[CALL_OF].set(event.child, event.call);
        followChild(w, event);
      }
      return text;
    case 'child.end':
      // Amp has no record for them: a subagent's lines carry its lane as parent_tool_use_id.
      if (!own) childEnded(w, event);
      return text;
    default:
      // Reported once: the words are put together only the first time.
      if (!lossReported(w[LOSS], event.type))
        reportLoss(w[LOSS], event, event.type, `${FORMAT} has no record for ${event.type}`);
      return text;
  }
}

/**
 * Refuses (an AgentwireError naming the field, as the write would) what the event's line would
 * refuse, before a loss is reported, a run's span followed, a line gathered or written, or a
 * session id taken for it: a refused event leaves the writer as if it had never been given
 * (test/fuzz/refusal.test.ts). Only what the write would write is refused: a usage reported lost
 * (a round's whose message was written early, a main-lane `usage`) or a run's total the lines
 * add up to (not written) is not. Returns a call's end's `tool_result` content ('' otherwise).
 */
function assertWritable(w: Writer, event: AgentEvent, own: boolean): string {
  switch (event.type) {
    // A text field read as text that holds no string (an event built by hand from JSON) would
    // throw a TypeError mid-write: refused here, in the one switch every write takes
    // (docs/performance.md, round thirty-five). A field a gathered line holds is written only
    // when the line is (a later event's write, the end), which the refusal would take down with
    // it: refused here too (round thirty-seven).
    // (A delta's text is required: missing, it is refused too.)
    case 'text.delta':
      assertIds(event);
      requireText(event.text, event, 'text', FORMAT);
      return '';
    case 'reasoning.delta':
      assertIds(event);
      requireText(event.text, event, 'text', FORMAT);
      assertText(event.signature, event, 'signature', FORMAT);
      assertText(event.redacted, event, 'redacted', FORMAT);
      return '';
    case 'user.message':
      assertIds(event);
      requireText(event.text, event, 'text', FORMAT);
      return '';
    case 'run.start':
      assertIds(event);
      assertText(event.input, event, 'input', FORMAT);
      return '';
    case 'session.start':
      // Written after the lines gathered so far are (`flush`): refused before them.
      assertIds(event);
      assertText(event.cwd, event, 'cwd', FORMAT);
      if (event.tools !== undefined) assertEncodable(event.tools, 'session.start.tools', undefined, FORMAT);
      return '';
    case 'tool.start':
      assertIds(event);
      requireText(event.call, event, 'call', FORMAT);
      requireText(event.name, event, 'name', FORMAT);
      if (!own && event.args !== undefined) assertEncodable(event.args, 'tool.start.args', undefined, FORMAT);
      return '';
    case 'tool.end':
      assertIds(event);
      requireText(event.call, event, 'call', FORMAT);
      assertText(event.text, event, 'text', FORMAT);
      return resultContent(event);
    case 'round.end':
      assertIds(event);
      assertText(event.stopReason, event, 'stopReason', FORMAT);
      if (roundWritesLine(w[SLOTS].get(event.lane ?? ''), event, own ? event.provenance?.line : OTHER))
        assertLineUsage(event, event.usage);
      return '';
    case 'usage':
      // Left out (or no object), its figures would be read off nothing: a TypeError.
      requireObject(event.usage, event, 'usage', FORMAT);
      assertIds(event);
      // A subagent's call usage ends its gathered message (`dispatch`); any other is a loss.
      if (
        !own &&
        event.lane !== undefined &&
        event.usage.scope !== 'thread' &&
        w[SLOTS].get(event.lane)?.[SLOT_ASSISTANT] !== undefined
      )
        assertLineUsage(event, event.usage);
      return '';
    case 'run.end':
      assertText(event.reason, event, 'reason', FORMAT);
      if (event.status === 'incomplete') return '';
      assertIds(event);
      // The result's text, written after the lines gathered so far are (`flush`).
      assertText(event.answer, event, 'answer', FORMAT);
      assertText(event.error, event, 'error', FORMAT);
      assertNumber(event.durationMs, event, 'durationMs', FORMAT);
      count(event.durationMs, 'run.end.durationMs');
      // (Its figures are compared with the lines' sum whether or not it is written.)
      if (event.usage !== undefined) requireObject(event.usage, event, 'usage', FORMAT);
      if (totalWritten(w, event.usage, keptTotal(own ? (event.provenance?.hints as AmpHints) : undefined)))
        assertCounts(event.usage);
      return '';
    case 'child.start':
      // Its call names the subagent's lane in the lines after (`start`).
      requireText(event.child, event, 'child', FORMAT);
      assertText(event.call, event, 'call', FORMAT);
      return '';
    case 'child.end':
      requireText(event.child, event, 'child', FORMAT);
      return '';
    default:
      return '';
  }
}

/**
 * The envelope's ids of an event that gathers or writes a line: the session every line names
 * (`sessionOf`, kept for the lines after), the lane a line is gathered under and names. Held in
 * a gathered line, one JSON cannot hold (a BigInt) was refused only when the line was written,
 * at a later event's write or the end. (The events that gather nothing do not read them.)
 */
function assertIds(event: AgentEvent): void {
  assertText(event.session, event, 'session', FORMAT);
  assertText(event.lane, event, 'lane', FORMAT);
}

/**
 * A usage a gathered assistant line writes (and counts towards the run's sum): an object (`null`
 * was read off nothing when the line was written, a `TypeError`), then the counts JSON can hold.
 * (A count of another kind is written as `JSON.stringify` writes it: one with a `toJSON` of its
 * own, as test/amp/writer-templates.test.ts holds.)
 */
function assertLineUsage(event: AgentEventOf<'round.end' | 'usage'>, u: Usage | undefined): void {
  if (u === undefined) return;
  requireObject(u, event, 'usage', FORMAT);
  assertCounts(u);
}

/** `line` of {@link roundWritesLine} for another format's event. */
const OTHER = -1;

/**
 * Whether a round's end writes its lane's assistant line (with the round's usage), as `dispatch`
 * takes it, from the lane's slot before the event (none yet: a new one, which does): not after
 * a subagent's call usage was said on its own line, nor after its message was written early.
 * `line`: the event's line when it is this format's (whose other lines' messages `flushOther`
 * writes first), else OTHER.
 */
function roundWritesLine(
  slot: Slot | undefined,
  event: AgentEventOf<'round.end'>,
  line: number | undefined,
): boolean {
  if (slot === undefined) return true;
  const a = slot[SLOT_ASSISTANT];
  if (a !== undefined && (line === OTHER || a.line === line)) return true;
  if (slot[SLOT_USAGE_SAID] && event.lane !== undefined && line === OTHER) return false;
  return !slot[SLOT_EARLY];
}

// The counts `usage` and `usageText` write, checked in their order (the same field named).
function assertCounts(u: Usage | undefined): void {
  // (A usage that is no object: the write's own error.)
  if (typeof u !== 'object' || u === null) return;
  count(u.cacheRead, 'usage.cacheRead');
  count(u.cacheWrite, 'usage.cacheWrite');
  count(u.input, 'usage.input');
  count(u.output, 'usage.output');
}

// A kept `result` record's usage (the run's total as read).
function keptTotal(hints: AmpHints | undefined): JsonObject | undefined {
  const kept = hints?.record;
  return kept !== undefined && kept.type === 'result' && isJsonObject(kept.usage) ? kept.usage : undefined;
}

// Whether a run's end writes its total: a kept one, or one the main lane's lines do not add up to.
function totalWritten(w: Writer, total: Usage | undefined, kept: JsonObject | undefined): total is Usage {
  return (
    total !== undefined &&
    (kept !== undefined || (total.input ?? 0) !== w[LINE_INPUT] || (total.output ?? 0) !== w[LINE_OUTPUT])
  );
}

/**
 * The `content` of a call's `tool_result`: its text, else its result as JSON text (a number JSON
 * cannot hold is refused, not written as `null`), else its error: text as it is, any other value
 * (`{ code, message }`) as JSON text, as a result is (a reader takes it back as the call's text).
 */
function resultContent(event: AgentEventOf<'tool.end'>): string {
  const result = event.result;
  if (event.text !== undefined) return event.text;
  if (result !== undefined && result !== null) return encodeJsonText(result, 'tool.end.result', FORMAT);
  const error = event.error;
  // (A null error says there is none, as a null result does: highbar's `error: null`.)
  if (error === undefined || error === null) return '';
  return typeof error === 'string' ? error : encodeJsonText(error, 'tool.end.error', FORMAT);
}

// An error beside a text or a result: the one content holds that, and the error is lost unless it
// says the same (a text error the content holds, or ends with: Claude's `Error: …` of its text).
function errorLeftOut(w: Writer, event: AgentEventOf<'tool.end'>, content: string): void {
  const error = event.error;
  if (error === undefined || error === null) return;
  if (event.text === undefined && (event.result === undefined || event.result === null)) return;
  if (typeof error === 'string' && (content.includes(error) || (content !== '' && error.endsWith(content))))
    return;
  reportLoss(
    w[LOSS],
    event,
    'tool.end.error',
    `${FORMAT} has one content for a call's answer, and it holds the call's ${event.text === undefined ? 'result' : 'text'}`,
  );
}

// Another format's `message.start` or `tool.output` with nothing held to put out (the caller
// checked both): what the general path does for them (the loss check, or the loss said once; no
// line, no flush), without the lookup of the carried fields and the dispatch. The type's length
// is compared first: a decoder's `JSON.parse` leaves these two words uninternalised, and every
// compare of such a string with a constant reads its characters.
function quietEvent(w: Writer, event: AgentEvent): boolean {
  const type = event.type;
  // (A hand-built event without a type has no length: it takes the general path.)
  const n = (type as string | undefined)?.length;
  if (n === 13 && type === 'message.start') {
    checkLoss(w[LOSS], event, MESSAGE_START_CARRIED);
    return true;
  }
  if (n !== 11 || type !== 'tool.output') return false;
  if (!lossReported(w[LOSS], type)) reportLoss(w[LOSS], event, type, `${FORMAT} has no record for ${type}`);
  return true;
}

function endWrite(w: Writer): string {
  w[JOIN_TO] = undefined;
  // A subagent whose end came and whose call was never answered: a reader never ends it.
  for (const c of w[CHILDREN]?.state.values() ?? [])
    if (c.end !== undefined && c.read === undefined)
      reportLoss(
        w[LOSS],
        c.end,
        'child.end',
        `${FORMAT} ends a subagent at its call's answer, and its call has none`,
      );
  return flush(w);
}

// Another format's subagent starts (see `Children`).
function followChild(w: Writer, event: AgentEventOf<'child.start'>): void {
  const children = (w[CHILDREN] ??= { byCall: new Map(), state: new Map() });
  children.byCall.set(event.call ?? event.child, event.child);
  children.state.set(event.child, {});
}

// The answer to a call that started a subagent: where a reader ends it, with the answer's status.
function callAnswered(w: Writer, children: Children, event: AgentEventOf<'tool.end'>): void {
  const child = children.byCall.get(event.call);
  if (child === undefined) return;
  children.byCall.delete(event.call);
  const c = children.state.get(child);
  // (Already said to be lost: it ended without a line.)
  if (c === undefined) return;
  // No line of the subagent yet: its lines, when they come, open a lane nothing ends.
  if (!w[LANE_LINES]?.has(child)) {
    c.early = true;
    return;
  }
  c.read = event.ok ? 'completed' : 'failed';
  if (c.end !== undefined) {
    children.state.delete(child);
    if (c.end.status !== c.read) statusLoss(w, c.end);
  }
}

// Another format's subagent ends: what a reader will make of it (see `Children`).
function childEnded(w: Writer, event: AgentEventOf<'child.end'>): void {
  const c = w[CHILDREN]?.state.get(event.child);
  if (!w[LANE_LINES]?.has(event.child)) {
    w[CHILDREN]?.state.delete(event.child);
    reportLoss(
      w[LOSS],
      event,
      'child.start',
      `${FORMAT} knows a subagent only by its lines (their parent_tool_use_id), and this one has none`,
    );
    return;
  }
  if (c === undefined) return;
  if (c.early) {
    w[CHILDREN]!.state.delete(event.child);
    reportLoss(
      w[LOSS],
      event,
      'child.end',
      `${FORMAT} ends a subagent at its call's answer, which came before its lines`,
    );
    return;
  }
  c.end = event;
  if (c.read === undefined) return;
  w[CHILDREN]!.state.delete(event.child);
  if (event.status !== c.read) statusLoss(w, event);
}

function statusLoss(w: Writer, end: AgentEventOf<'child.end'>): void {
  reportLoss(
    w[LOSS],
    end,
    'child.end.status',
    `${FORMAT} reads a subagent's status from its call's answer (is_error), which says otherwise`,
  );
}

// Another format's text delta right after one that left `joinTo` last in the same lane: what
// the general path would do (no other lane holds anything, this lane gathers no results, the
// last block is the joinable text), without looking. The event is checked for losses still.
function joinDelta(w: Writer, event: AgentEvent): boolean {
  const to = w[JOIN_TO];
  w[JOIN_TO] = undefined;
  // Another format's event (the caller checked the provenance).
  if (
    to === undefined ||
    event.type !== 'text.delta' ||
    // Text that is no string is refused on the general path (`assertWritable`).
    typeof event.text !== 'string' ||
    event.lane !== w[JOIN_LANE] ||
    !AMP_JOIN_SHORTCUT.enabled ||
    // Held text at the cap cuts the line: the general path's work.
    (to.text as string).length >= AMP_MAX_HELD_TEXT
  )
    return false;
  checkLoss(w[LOSS], event, TEXT_CARRIED);
  to.text = `${to.text as string}${event.text}`;
  w[JOIN_TO] = to;
  return true;
}

// Another format's text held at AMP_MAX_HELD_TEXT: the lane's assistant line so far is written,
// and the text goes on in the next line (a reader's next round).
function cutAssistant(w: Writer, event: AgentEventOf<'text.delta' | 'reasoning.delta'>): string {
  reportLoss(
    w[LOSS],
    event,
    `${event.type}.message`,
    `a message past ${AMP_MAX_HELD_TEXT} characters is written as several assistant lines; a reader takes each for a round`,
  );
  w[JOIN_TO] = undefined;
  return flushAssistant(w, slotOf(w, event.lane));
}

function sessionOf(w: Writer, event: AgentEvent): string {
  w[SESSION] =
    event.session ?? w[SESSION] ?? w[OPTIONS].session ?? `T-${(w[OPTIONS].idSource ?? randomId)()}`;
  return w[SESSION];
}

function slotOf(w: Writer, key: string | undefined): Slot {
  const k = key ?? '';
  let slot = w[SLOTS].get(k);
  if (slot === undefined) {
    slot = newSlot(undefined);
    w[SLOTS].set(k, slot);
    if (key !== undefined) (w[LANE_LINES] ??= new Set()).add(key);
  }
  return slot;
}

// An event of this format from another line: the lines gathered so far are complete.
function flushOther(w: Writer, line: number | undefined): string {
  let text = '';
  for (const slot of w[SLOTS].values()) {
    if (slot[SLOT_ASSISTANT] !== undefined && slot[SLOT_ASSISTANT].line !== line)
      text += flushAssistant(w, slot);
    if (slot[SLOT_RESULTS] !== undefined && slot[SLOT_RESULTS].line !== line) text += flushResults(w, slot);
  }
  return text;
}

function flushSlot(w: Writer, slot: Slot): string {
  return flushAssistant(w, slot) + flushResults(w, slot);
}

function flush(w: Writer): string {
  let text = '';
  for (const slot of w[SLOTS].values()) text += flushSlot(w, slot);
  w[SLOTS].clear();
  return text;
}

/**
 * The slot of an event's lane. Another format's events of one lane mean the other lanes' lines
 * so far are complete (Amp writes a lane's lines where they happen): those are written first.
 */
function lane(w: Writer, event: AgentEvent, own: boolean): Slot {
  const slot = slotOf(w, event.lane);
  // One slot is this lane's own: there is no other lane to look at (and no iterator to make).
  if (own || w[SLOTS].size === 1) return slot;
  for (const other of w[SLOTS].values()) {
    if (other === slot || (other[SLOT_ASSISTANT] === undefined && other[SLOT_RESULTS] === undefined))
      continue;
    if (other[SLOT_ASSISTANT] !== undefined) other[SLOT_EARLY] = true;
    w[BEFORE] += flushSlot(w, other);
  }
  return slot;
}

function pending(
  w: Writer,
  event: AgentEvent,
  line: number | undefined,
  hints: AmpHints | undefined,
): Pending {
  const slot = lane(w, event, line !== undefined);
  slot[SLOT_RESULTS] ??= start(w, 'user', event, line, hints);
  return slot[SLOT_RESULTS];
}

// A new assistant message: tool results gathered before it answered the one before.
function pendingAssistant(
  w: Writer,
  event: AgentEvent,
  line: number | undefined,
  hints: AmpHints | undefined,
): Pending {
  const slot = lane(w, event, line !== undefined);
  // Another format without rounds (or with several messages a round): content after tool
  // results is the next message, the one before is complete (its round's end, if one comes,
  // lands on the last).
  if (line === undefined && slot[SLOT_ASSISTANT] !== undefined && slot[SLOT_RESULTS] !== undefined) {
    w[BEFORE] += flushAssistant(w, slot);
  }
  if (slot[SLOT_ASSISTANT] === undefined) {
    slot[SLOT_EARLY] = false;
    w[BEFORE] += flushResults(w, slot);
    slot[SLOT_ASSISTANT] = start(w, 'assistant', event, line, hints);
  }
  return slot[SLOT_ASSISTANT];
}

function start(
  w: Writer,
  kind: Pending['kind'],
  event: AgentEvent,
  line: number | undefined,
  hints: AmpHints | undefined,
): Pending {
  const l = event.lane === undefined ? undefined : (w[CALL_OF].get(event.lane) ?? event.lane);
  return {
    kind,
    blocks: [],
    line,
    hints,
    lane: l,
    session: sessionOf(w, event),
    end: undefined,
    joinable: undefined,
    held: 0,
  };
}

/** A content block: the kept one with the model's fields set (its own others in place). */
function block(hints: AmpHints | undefined, b: JsonObject): JsonObject {
  const kept = hints?.block;
  if (kept === undefined || kept.type !== b.type) return b;
  const out: JsonObject = { ...kept };
  for (const k of Object.keys(b)) out[k] = b[k];
  return out;
}

function toolResult(
  hints: AmpHints | undefined,
  call: string,
  content: string,
  isError: boolean,
): JsonObject {
  const kept = hints?.block;
  if (kept !== undefined && kept.type === 'tool_result') {
    const out: JsonObject = { ...kept, tool_use_id: call };
    // Content given as text blocks stays blocks while it says the same text.
    const same =
      typeof kept.content === 'string'
        ? kept.content === content
        : Array.isArray(kept.content) &&
          kept.content.map((x) => (isJsonObject(x) && typeof x.text === 'string' ? x.text : '')).join('') ===
            content;
    if (!same) out.content = content;
    if (kept.is_error !== undefined || isError) out.is_error = isError;
    return out;
  }
  return { type: 'tool_result', tool_use_id: call, content, is_error: isError };
}

function flushAssistant(w: Writer, slot: Slot): string {
  const a = slot[SLOT_ASSISTANT];
  if (a === undefined) return '';
  slot[SLOT_ASSISTANT] = undefined;
  if (a.lane === undefined) w[ROUNDS]++;
  if (a.hints === undefined) {
    if (AMP_TEMPLATES.enabled) {
      const line = assistantTemplate(w, a);
      if (line !== undefined) return line;
    }
  } else if (AMP_KEPT_LINES.enabled) {
    const line = keptAssistant(w, a);
    if (line !== undefined) return line;
  }
  const kept = isJsonObject(a.hints?.record?.message) ? (a.hints.record.message as JsonObject) : undefined;
  const message: JsonObject = kept === undefined ? { type: 'message', role: 'assistant' } : { ...kept };
  message.content = Array.isArray(kept?.content)
    ? mergeBlocks(kept.content, a.blocks, isMappedAssistantBlock)
    : a.blocks;
  const end = a.end;
  if (end !== undefined) {
    if (end.stopReason !== undefined) message.stop_reason = end.stopReason;
    else if (kept === undefined || kept.stop_reason !== null) delete message.stop_reason;
    if (end.usage !== undefined) {
      message.usage = usage(w, end.usage, isJsonObject(kept?.usage) ? kept.usage : undefined);
      countLine(w, end.usage, a.lane);
    } else delete message.usage;
  }
  return line(a, 'assistant', message);
}

/**
 * The assistant line of a message built from the model (no kept record), spelled from
 * templates (`AMP_ASSISTANT_LINE_HEAD` in wire.ts): a joined text block from its text, every
 * other block and the usage by `JSON.stringify` alone; the bytes `JSON.stringify` of the
 * whole record gives (test/amp/writer-templates.test.ts). Undefined (nothing counted or
 * reported yet) when a field is of a type the template does not spell or a value throws: the
 * general path then writes the line, or names the field that cannot be written.
 */
function assistantTemplate(w: Writer, a: Pending): string | undefined {
  const session = a.session;
  const laneId = a.lane;
  if (typeof session !== 'string' || (laneId !== undefined && typeof laneId !== 'string')) return undefined;
  const end = a.end;
  const u = end?.usage;
  if (end !== undefined) {
    if (end.stopReason !== undefined && typeof end.stopReason !== 'string') return undefined;
    if (u !== undefined && !plainUsage(u)) return undefined;
  }
  let out = AMP_ASSISTANT_LINE_HEAD;
  try {
    const blocks = a.blocks;
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i] as JsonObject;
      if (i > 0) out += ',';
      const t = b.text;
      // A joined block is a rope of its deltas, spelled alone (`jsonText`: most prose has a line
      // break, which `jsonString`'s escape test finds only to call `JSON.stringify` after it).
      out +=
        typeof t === 'string' && b === a.joinable
          ? `${AMP_TEXT_BLOCK_HEAD}${jsonText(t)}}`
          : (toolUseText(b) ?? JSON.stringify(b));
    }
  } catch {
    return undefined;
  }
  out += ']';
  if (end !== undefined) {
    if (end.stopReason !== undefined) out += `,"stop_reason":${jsonString(end.stopReason)}`;
    if (u !== undefined) {
      out += `,"usage":${usageText(w, u)}`;
      countLine(w, u, laneId);
    }
  }
  return `${out}}${lineTail(w, laneId, session)}`;
}

// `JSON.stringify(usage(w, u, undefined))` (the same checks and loss, in the same order), spelled
// from the counts: the object `usage` grows from `{}` has hidden classes a full GC frees.
/**
 * Counts a written line's usage toward the sum the reader totals the run from when no `result`
 * gives a total: the main lane's lines only (a subagent's usage is its own). Every path that
 * writes an assistant line with usage, or a derived round end that stands for one, counts here,
 * so the writer can tell a run's edited total from the lines' sum.
 */
function countLine(w: Writer, u: Usage | undefined, lane: string | undefined): void {
  if (u === undefined || lane !== undefined) return;
  w[LINE_INPUT] += u.input ?? 0;
  w[LINE_OUTPUT] += u.output ?? 0;
}

function usageText(w: Writer, u: Usage): string {
  const read = count(u.cacheRead, 'usage.cacheRead');
  const write = count(u.cacheWrite, 'usage.cacheWrite');
  const input = count(u.input, 'usage.input');
  const output = count(u.output, 'usage.output');
  // Each count after the separator the one before left (no leading comma cut off afterwards: a
  // slice of the joined pieces would flatten them first).
  let text = '{';
  let sep = '';
  if (input !== undefined) {
    text += `"input_tokens":${numberText(input - (read ?? 0) - (write ?? 0))}`;
    sep = ',';
  }
  if (write !== undefined) {
    text += `${sep}"cache_creation_input_tokens":${numberText(write)}`;
    sep = ',';
  }
  if (read !== undefined) {
    text += `${sep}"cache_read_input_tokens":${numberText(read)}`;
    sep = ',';
  }
  if (output !== undefined) text += `${sep}"output_tokens":${numberText(output)}`;
  // Reported once: the event the report names is built only the first time.
  if (u.costUsd !== undefined && !lossReported(w[LOSS], COST_FIELD))
    reportLoss(w[LOSS], { type: 'usage', usage: u }, COST_FIELD, `${FORMAT} reports no cost`);
  if (u.reasoning !== undefined && !lossReported(w[LOSS], REASONING_FIELD))
    reportLoss(w[LOSS], { type: 'usage', usage: u }, REASONING_FIELD, REASONING_WHY);
  return `${text}}`;
}

const COST_FIELD = 'usage.costUsd';
// Claude's usage, which Amp writes, counts reasoning inside `output_tokens` with no field of its own.
const REASONING_FIELD = 'usage.reasoning';
const REASONING_WHY = `${FORMAT} has no reasoning count (it stays in output_tokens)`;

// `JSON.stringify` of a number: its shortest decimal spelling (the one `String` gives), `null`
// when it is not finite (a difference of two finite counts can overflow).
function numberText(n: number): string {
  return Number.isFinite(n) ? `${n}` : 'null';
}

// Usage whose counts are numbers (or absent): `usageText` spells each count alone, which is what
// JSON.stringify writes inside the record for anything but a value with a `toJSON` of its own
// (it would see another key).
function plainUsage(u: Usage): boolean {
  return (
    (u.input === undefined || typeof u.input === 'number') &&
    (u.output === undefined || typeof u.output === 'number') &&
    (u.cacheRead === undefined || typeof u.cacheRead === 'number') &&
    (u.cacheWrite === undefined || typeof u.cacheWrite === 'number')
  );
}

function flushResults(w: Writer, slot: Slot): string {
  const u = slot[SLOT_RESULTS];
  if (u === undefined) return '';
  slot[SLOT_RESULTS] = undefined;
  if (u.hints === undefined) {
    if (AMP_TEMPLATES.enabled) {
      const line = userTemplate(w, u);
      if (line !== undefined) return line;
    }
  } else if (AMP_KEPT_LINES.enabled) {
    const line = keptResults(w, u);
    if (line !== undefined) return line;
  }
  const kept = isJsonObject(u.hints?.record?.message) ? (u.hints.record.message as JsonObject) : undefined;
  const message: JsonObject = kept === undefined ? { role: 'user' } : { ...kept };
  // A prompt written as a plain string stays one while it is one text block.
  const only = u.blocks.length === 1 ? u.blocks[0]! : undefined;
  if (typeof kept?.content === 'string' && only?.type === 'text' && Object.keys(only).length === 2)
    message.content = only.text;
  else
    message.content = Array.isArray(kept?.content)
      ? mergeBlocks(kept.content, u.blocks, isMappedUserBlock)
      : u.blocks;
  return line(u, 'user', message);
}

/**
 * The user line of tool results (or a prompt) built from the model (no kept record), spelled
 * from its template (`AMP_USER_LINE_HEAD` in wire.ts) and `JSON.stringify` of each block alone:
 * the bytes `JSON.stringify` of the whole record gives, without the record and message objects
 * (test/amp/writer-templates.test.ts). Undefined when a field is of a type the template does not
 * spell or a block is not spelled alone as inside the record: the general path writes the line
 * then, or names the value that cannot be written.
 */
function userTemplate(w: Writer, u: Pending): string | undefined {
  const session = u.session;
  const laneId = u.lane;
  if (typeof session !== 'string' || (laneId !== undefined && typeof laneId !== 'string')) return undefined;
  let out = AMP_USER_LINE_HEAD;
  const blocks = u.blocks;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i] as JsonObject;
    const b = toolResultText(block) ?? blockText(block);
    if (b === undefined) return undefined;
    out += i > 0 ? `,${b}` : b;
  }
  return `${out}]}${lineTail(w, laneId, session)}`;
}

// The end of a line built from the model after its message (`AMP_MESSAGE_LINE_KEYS`): the lane,
// the session, the brace and the line feed. A main-lane line of the session the last one named
// (every line of a run, mostly) reuses that line's end instead of testing the session for escapes
// and joining the pieces again.
function lineTail(w: Writer, laneId: string | undefined, session: string): string {
  if (laneId === undefined && session === w[TAIL_SESSION]) return w[TAIL];
  const tail = `,"parent_tool_use_id":${laneId === undefined ? 'null' : jsonString(laneId)},"session_id":${jsonString(session)}}\n`;
  if (laneId === undefined) {
    w[TAIL_SESSION] = session;
    w[TAIL] = tail;
  }
  return tail;
}

// `JSON.stringify` of a `tool_use` block as the writer builds it (`type`, `id`, `name`, `input`,
// in that order, as data), spelled from its fields: `JSON.stringify` of an object walks its keys
// and values generically, a few times what the template and the input's own call cost. Undefined
// for any other block, or an input that is no object or has a `toJSON` of its own (alone, it would
// see another key); `JSON.stringify` of the block then spells it, or throws.
function toolUseText(b: JsonObject): string | undefined {
  const id = b.id;
  const name = b.name;
  const input = b.input as JsonObject | null;
  if (
    b.type !== 'tool_use' ||
    typeof id !== 'string' ||
    typeof name !== 'string' ||
    typeof input !== 'object' ||
    input === null ||
    input.toJSON !== undefined ||
    b.toJSON !== undefined ||
    !keysInPlace(b, TOOL_USE_KEYS)
  )
    return undefined;
  return `{"type":"tool_use","id":${jsonString(id)},"name":${jsonString(name)},"input":${JSON.stringify(input)}}`;
}

// `JSON.stringify` of a `tool_result` block as the writer builds it from another format's call
// end (`type`, `tool_use_id`, `content` text, `is_error`, in that order, as data), spelled from
// its fields (see `toolUseText`); undefined for any other block.
function toolResultText(b: JsonObject): string | undefined {
  const id = b.tool_use_id;
  const content = b.content;
  const isError = b.is_error;
  if (
    b.type !== 'tool_result' ||
    typeof id !== 'string' ||
    typeof content !== 'string' ||
    typeof isError !== 'boolean' ||
    b.toJSON !== undefined ||
    !keysInPlace(b, TOOL_RESULT_KEYS)
  )
    return undefined;
  return `{"type":"tool_result","tool_use_id":${jsonString(id)},"content":${jsonText(content)},"is_error":${isError}}`;
}

// Their keys, in the order the writer's literals give them (`keysInPlace`: the block's own keys
// are these, none inherited shows, and `JSON.stringify` writes them in this order).
const TOOL_USE_KEYS: readonly string[] = ['type', 'id', 'name', 'input'];
const TOOL_RESULT_KEYS: readonly string[] = ['type', 'tool_use_id', 'content', 'is_error'];

// `JSON.stringify` of a content block alone, when that is how it is spelled inside the record:
// not for a block with a `toJSON` of its own (inside the record it sees its index as the key;
// without one, an object is always spelled), nor one that throws.
function blockText(b: JsonObject): string | undefined {
  if (b.toJSON !== undefined) return undefined;
  try {
    return JSON.stringify(b);
  } catch {
    return undefined;
  }
}

/**
 * The kept assistant line, when the record `flushAssistant` would rebuild from it says what it
 * says (key order aside, as `rawIfSame` sees it): the mapped blocks the events built, the stop
 * reason and usage of the round's end, the lane and the session each hold the kept value, and
 * every kept value the rebuild copies is stable JSON (src/kept.ts). Then the general path would
 * stringify that record and give the line back. The same side effects (the run's line totals);
 * undefined, with none, for anything else (a usage with a loss to say, a count it would refuse).
 */
function keptAssistant(w: Writer, a: Pending): string | undefined {
  const t = keptRecord(a.hints);
  if (t === undefined || t.type !== 'assistant') return undefined;
  const m = t.message;
  if (
    !isJsonObject(m) ||
    !Array.isArray(m.content) ||
    !sameBlocks(m.content, a.blocks, isMappedAssistantBlock)
  )
    return undefined;
  const end = a.end;
  const u = end?.usage;
  if (end === undefined) {
    if (!stableBeside(m, 'content', 'content', 'content')) return undefined;
  } else {
    // The general path sets the end's stop reason and usage, or deletes the kept ones (a
    // `null` stop reason it keeps is refused: after a JSON copy it may have been a number).
    if (end.stopReason !== undefined ? !sameAsKept(end.stopReason, m.stop_reason) : 'stop_reason' in m)
      return undefined;
    if (u !== undefined ? !sameUsage(u, m.usage) : 'usage' in m) return undefined;
    if (!stableBeside(m, 'content', 'stop_reason', 'usage')) return undefined;
  }
  const raw = keptEnvelope(w, a, t);
  if (raw === undefined) return undefined;
  countLine(w, u, a.lane);
  return `${raw}\n`;
}

/** The kept user line (tool results or a prompt), as {@link keptAssistant} for `flushResults`. */
function keptResults(w: Writer, u: Pending): string | undefined {
  const t = keptRecord(u.hints);
  if (t === undefined || t.type !== 'user') return undefined;
  const m = t.message;
  if (!isJsonObject(m)) return undefined;
  const c = m.content;
  if (typeof c === 'string') {
    // A prompt written as a plain string: one text block of the same text.
    const only = u.blocks.length === 1 ? u.blocks[0]! : undefined;
    if (only?.type !== 'text' || Object.keys(only).length !== 2 || !sameAsKept(only.text, c))
      return undefined;
  } else if (!Array.isArray(c) || !sameBlocks(c, u.blocks, isMappedUserBlock)) return undefined;
  if (!stableBeside(m, 'content', 'content', 'content')) return undefined;
  const raw = keptEnvelope(w, u, t);
  return raw === undefined ? undefined : `${raw}\n`;
}

// `mergeBlocks(kept, built, mapped)` says what `kept` says: each mapped kept block the next one
// built, as many built as mapped, the others stable.
function sameBlocks(
  kept: readonly unknown[],
  built: readonly JsonObject[],
  mapped: (b: unknown) => boolean,
): boolean {
  let j = 0;
  for (let i = 0; i < kept.length; i++) {
    const b = kept[i];
    if (!mapped(b)) {
      if (!isStableJson(b)) return false;
    } else if (j >= built.length || !sameAsKept(built[j++], b)) return false;
  }
  return j === built.length;
}

// `usage(w, u, kept)` says what `kept` says, with no loss to report and no count to refuse.
function sameUsage(u: Usage, kept: unknown): boolean {
  // (A usage that is no object: the general path's error, not a refusal here.)
  if (typeof u !== 'object' || u === null || !isJsonObject(kept)) return false;
  if (u.costUsd !== undefined || u.reasoning !== undefined) return false;
  const { input, output, cacheRead: read, cacheWrite: write } = u;
  if (!finiteOrUnset(input) || !finiteOrUnset(output) || !finiteOrUnset(read) || !finiteOrUnset(write))
    return false;
  if (
    !sameCount(kept, 'input_tokens', input === undefined ? undefined : input - (read ?? 0) - (write ?? 0)) ||
    !sameCount(kept, 'cache_creation_input_tokens', write) ||
    !sameCount(kept, 'cache_read_input_tokens', read) ||
    !sameCount(kept, 'output_tokens', output)
  )
    return false;
  for (const k in kept)
    if (Object.hasOwn(kept, k) && !USAGE_SET.has(k) && !isStableJson(kept[k])) return false;
  return true;
}

const USAGE_SET: ReadonlySet<string> = new Set([
  'input_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'output_tokens',
]);

function finiteOrUnset(n: unknown): boolean {
  return n === undefined || (typeof n === 'number' && Number.isFinite(n));
}

// A count the general path sets (or deletes when unset) holds the kept value.
function sameCount(kept: JsonObject, key: string, n: number | undefined): boolean {
  return n === undefined ? !(key in kept) : kept[key] === n;
}

// Every own value of `o` but the three keys named (checked apart) is stable JSON.
function stableBeside(o: JsonObject, a: string, b: string, c: string): boolean {
  for (const k in o)
    if (Object.hasOwn(o, k) && k !== a && k !== b && k !== c && !isStableJson(o[k])) return false;
  return true;
}

/**
 * The kept line, when `line` would rebuild the kept record's envelope as it is: the lane and the
 * session it sets hold the kept values, and the rest is stable JSON. A kept `null` lane is taken
 * only when the line ends with it and the session (`keptNullLane`): after a JSON copy a `null` may
 * have been a number the line spells otherwise.
 */
function keptEnvelope(w: Writer, p: Pending, t: JsonObject): string | undefined {
  const raw = (p.hints as AmpHints).raw as string;
  if (p.lane !== undefined) {
    if (!sameAsKept(p.lane, t.parent_tool_use_id)) return undefined;
  } else if ('parent_tool_use_id' in t && !keptNullLane(w, raw, t)) return undefined;
  if ('session_id' in t && !sameAsKept(p.session, t.session_id)) return undefined;
  return stableBeside(t, 'message', 'parent_tool_use_id', 'session_id') ? raw : undefined;
}

// The kept record's lane is `null` and the line says so: it ends with `"parent_tool_use_id":null`
// then its session (a string), as Amp writes every main-lane line. Outside any string there (each
// quote of the end unescaped), those are the record's last two members, which `JSON.parse` reads.
function keptNullLane(w: Writer, raw: string, t: JsonObject): boolean {
  const session = t.session_id;
  if (t.parent_tool_use_id !== null || typeof session !== 'string') return false;
  if (session !== w[KEPT_SESSION]) {
    w[KEPT_SESSION] = session;
    w[KEPT_TAIL] = `,"parent_tool_use_id":null,"session_id":${jsonString(session)}}`;
  }
  return raw.endsWith(w[KEPT_TAIL]);
}

/** Writes a `user`/`assistant` line: the kept record with its message replaced. */
function line(p: Pending, type: 'user' | 'assistant', message: JsonObject): string {
  const kept = p.hints?.record;
  let record: JsonObject;
  if (kept !== undefined && kept.type === type) {
    record = { ...kept, message };
    if ('parent_tool_use_id' in kept || p.lane !== undefined) record.parent_tool_use_id = p.lane ?? null;
    if ('session_id' in kept) record.session_id = p.session;
  } else {
    record = { type, message, parent_tool_use_id: p.lane ?? null, session_id: p.session };
  }
  return out(record, p.hints);
}

function out(record: JsonObject, hints: AmpHints | undefined): string {
  return `${rawIfSame(hints?.raw, json(record, String(record.type)))}\n`;
}

function usage(w: Writer, u: Usage, kept: JsonObject | undefined): JsonObject {
  const read = count(u.cacheRead, 'usage.cacheRead');
  const write = count(u.cacheWrite, 'usage.cacheWrite');
  const input = count(u.input, 'usage.input');
  const own: Array<[string, number | undefined]> = [
    ['input_tokens', input === undefined ? undefined : input - (read ?? 0) - (write ?? 0)],
    ['cache_creation_input_tokens', write],
    ['cache_read_input_tokens', read],
    ['output_tokens', count(u.output, 'usage.output')],
  ];
  const o: JsonObject = kept === undefined ? {} : { ...kept };
  for (const [k, v] of own) {
    if (v === undefined) delete o[k];
    else o[k] = v;
  }
  if (u.costUsd !== undefined)
    reportLoss(w[LOSS], { type: 'usage', usage: u }, 'usage.costUsd', `${FORMAT} reports no cost`);
  if (u.reasoning !== undefined)
    reportLoss(w[LOSS], { type: 'usage', usage: u }, REASONING_FIELD, REASONING_WHY);
  return o;
}

function init(w: Writer, event: AgentEventOf<'session.start'>, hints: AmpHints | undefined): string {
  const kept = hints?.record;
  const session = sessionOf(w, event);
  if (kept !== undefined && kept.type === 'system') {
    const record: JsonObject = { ...kept, session_id: session };
    // A field the line says (as the decoder reads it) that the event no longer has was taken
    // out: it leaves the record too, or the kept line's value (a redacted path) comes back.
    if (event.cwd !== undefined) record.cwd = event.cwd;
    else if (typeof kept.cwd === 'string') delete record.cwd;
    if (event.tools !== undefined) record.tools = event.tools;
    else if (isAmpToolList(kept.tools)) delete record.tools;
    return out(record, hints);
  }
  const record: JsonObject = {
    type: 'system',
    subtype: 'init',
    cwd: event.cwd ?? '',
    session_id: session,
    tools: event.tools ?? [],
    mcp_servers: [],
  };
  return out(record, undefined);
}

function userText(w: Writer, event: AgentEvent, text: string, hints: AmpHints | undefined): string {
  const p = start(w, 'user', event, undefined, hints);
  const keptMessage = isJsonObject(hints?.record?.message) ? hints.record.message : undefined;
  const keptBlock = Array.isArray(keptMessage?.content)
    ? keptMessage.content.find((b) => isJsonObject(b) && b.type === 'text')
    : undefined;
  p.blocks.push(block(isJsonObject(keptBlock) ? { block: keptBlock } : undefined, { type: 'text', text }));
  return flushResults(w, newSlot(p));
}

function result(w: Writer, event: AgentEventOf<'run.end'>, hints: AmpHints | undefined): string {
  if (event.status === 'incomplete') return '';
  if (event.status === 'cancelled')
    reportLoss(
      w[LOSS],
      event,
      'run.end.status',
      `${FORMAT} has no cancelled result: written as an error result`,
    );
  const ok = event.status === 'completed';
  const kept = hints?.record;
  const record: JsonObject = kept !== undefined && kept.type === 'result' ? { ...kept } : {};
  // Amp's own words only (`success`, `error_*`): another format's reason would read as another outcome.
  const ampWord =
    event.reason !== undefined &&
    (kept?.subtype === event.reason ||
      ((event.reason === AMP_SUCCESS) === ok && (ok || event.reason.startsWith('error'))));
  if (event.reason !== undefined && !ampWord)
    reportLoss(w[LOSS], event, 'run.end.reason', `${FORMAT} has only success and error_* subtypes`);
  const subtype = ampWord ? event.reason : ok ? AMP_SUCCESS : 'error_during_execution';
  const text = ok ? (event.answer ?? '') : (event.error ?? event.answer ?? '');
  const set: Array<[string, unknown]> = [
    ['type', 'result'],
    ['subtype', subtype],
    [
      'duration_ms',
      // A kept duration the decoder read (a number) and the event no longer has was taken out:
      // written as anew (0, the field being required), not as kept.
      count(event.durationMs, 'run.end.durationMs') ??
        (kept === undefined || typeof record.duration_ms === 'number' ? 0 : record.duration_ms),
    ],
    ['is_error', !ok],
    ['num_turns', kept === undefined ? w[ROUNDS] : record.num_turns],
  ];
  // An error result the SDK spelled with `error` keeps it; the sample lines have `result`.
  if (!ok && typeof record.error === 'string') set.push(['error', text]);
  else set.push(['result', text]);
  set.push(['session_id', sessionOf(w, event)]);
  // A run's total that the main lane's assistant lines do not add up to (another format has
  // usage per run only, or rounds without it, or the total was edited): the SDK's optional
  // `result.usage`, which the decoder takes instead of the lines' sum. A kept `result.usage` is
  // the total as read: written from the event (an edit reaches it, a deletion takes it out), in
  // the kept object's key order.
  const total = event.usage;
  const keptUsage = isJsonObject(record.usage) ? record.usage : undefined;
  if (totalWritten(w, total, keptUsage)) set.push(['usage', usage(w, total, keptUsage)]);
  else if (keptUsage !== undefined) set.push(['usage', undefined]);
  for (const [k, v] of set) {
    if (v === undefined) delete record[k];
    else record[k] = v;
  }
  w[ROUNDS] = 0;
  w[LINE_INPUT] = 0;
  w[LINE_OUTPUT] = 0;
  return out(record, hints);
}

function unknown(
  w: Writer,
  event: AgentEventOf<'unknown'>,
  own: boolean,
  hints: AmpHints | undefined,
): string {
  if (!own || !isJsonObject(event.record)) {
    reportLoss(w[LOSS], event, 'unknown', `${FORMAT} writes back only records read from ${FORMAT}`);
    return '';
  }
  return out(event.record, hints);
}
