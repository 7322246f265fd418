import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import {
  DEPTH_PRECHECK_CHARS,
  exceedsDepth,
  isJsonObject,
  isLastStringToken,
  type JsonObject,
  NOT_PARSED,
  parseRecordText,
  refuseDeepValue,
  resolveMaxDepth,
  unsafeNumberMessage,
} from '../../json';
import type { AgentEvent, AgentEventOf, Provenance, Usage } from '../../model';
import { hasExactKeys, provenanceOf, type RecordRest, splitRecord } from '../../record';
import { isPlainUint } from '../../text-reader';
import { addUsage } from '../../usage';
import {
  HEP,
  HEP_DELTA_HEAD,
  HEP_DELTA_KEY,
  HEP_TOOL_RESULT_KEYS,
  HEP_USAGE_KEYS,
  type HepFrameSpec,
  type HepHints,
  hepFrameSpec,
  isHepV1,
  validateHepFrameSpec,
} from './wire';

// turn_done nests objects of its own: fields beyond theirs (or another key order, which is rare
// and only costs a measure) leave room for depth.
function hasNestedExtras(r: JsonObject): boolean {
  const items = r.tool_results as JsonObject[];
  for (let i = 0; i < items.length; i++) if (!hasExactKeys(items[i]!, HEP_TOOL_RESULT_KEYS)) return true;
  return !hasExactKeys(r.usage as JsonObject, HEP_USAGE_KEYS);
}

/**
 * Keeps the line as written (`hints.raw`) when re-serialising its record does not give it back.
 * Fields no schema types are where a conforming (Dart `jsonEncode`) line can say what JSON.parse
 * forgets: a double's `1.0` or `-0.0` (read as 1 and 0), integer-like keys (JavaScript lists
 * them first). Called only for lines with unknown fields or unknown frames; the writer puts the
 * line back while the events still say the same. A `turn_done` also lands here for an integral
 * `cost` (`0.0`), which costs a kept string, not a wrong byte.
 */
function keepRaw(provenance: Provenance, record: JsonObject, text: string): void {
  if (JSON.stringify(record) !== text) hintsOf(provenance).raw = text;
}

// The hints of `provenance`, made on first use: what this decoder leaves for the writer.
function hintsOf(provenance: Provenance): HepHints {
  return (provenance.hints ??= {}) as HepHints;
}

function textDelta(
  text: string,
  round: number,
  provenance: Provenance,
  session: string | undefined,
): AgentEventOf<'text.delta'> {
  // Built whole, one literal per shape: an event grown field by field gets transitioned hidden
  // classes that a full GC frees, with the optimised code that embedded them.
  return session === undefined
    ? { type: 'text.delta', text, round, provenance }
    : { type: 'text.delta', text, round, provenance, session };
}

// The frame being mapped and its line, as one object (reused: the mapping keeps none of it).
// `rest`: fields beyond the reference ones (or another order); `nestedExact`: turn_done's tool
// results and usage have exactly their own keys, in order.
interface FrameAt {
  text: string;
  line: number;
  offset: number;
  out: AgentEvent[];
  rest: RecordRest | undefined;
  nestedExact: boolean;
}

/** Options of the HEP decoder. */
export interface HepDecodeOptions extends DecodeOptions {}

const FORMAT = HEP;

/**
 * The decoder's state between lines, built whole in one object literal ({@link newDecoder}): a
 * literal's hidden class is held by its allocation site and outlives a full garbage collection,
 * where a class instance's fields die with the last decoder and take the optimised code that
 * embedded them along (docs/performance.md, "HEP `createDecoder`", Round four).
 */
interface HepDecoder {
  readonly sink: DiagnosticSink;
  readonly report: LineReport;
  readonly maxDepth: number;
  readonly live: boolean;
  sawFirst: boolean;
  session: string | undefined;
  runOpen: boolean;
  answer: string | undefined;
  stopReason: string | undefined;
  usage: Usage | undefined;
  lastLine: number;
  lastOffset: number;
  readonly at: FrameAt;
}

function newDecoder(options: HepDecodeOptions, sink: DiagnosticSink): HepDecoder {
  return {
    sink,
    report: lineReporter(sink, FORMAT),
    maxDepth: resolveMaxDepth(options.maxDepth),
    live: options.live === true,
    sawFirst: false,
    session: undefined,
    runOpen: false,
    answer: undefined,
    stopReason: undefined,
    usage: undefined,
    lastLine: 0,
    lastOffset: 0,
    at: { text: '', line: 0, offset: 0, out: [], rest: undefined, nestedExact: false },
  };
}

/**
 * The HEP v1 record decoder: one frame per line → canonical events. Stateful: it stamps the
 * session id on every event, totals usage per run, and ends the run when the format implies it
 * (a fatal `turn_error`, `cancelled`, or the end of the stream after the last `turn_done`). A
 * factory over one state literal and module functions, not a class: no decoder's shape is
 * embedded in the per-line code.
 */
export function createHepRecordDecoder(options: HepDecodeOptions, sink: DiagnosticSink): RecordDecoder {
  const d = newDecoder(options, sink);
  return {
    line: (text, line, offset, out) => readLine(d, text, line, offset, out),
    end: (out) => endStream(d, out),
  };
}

function readLine(d: HepDecoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  d.lastLine = line;
  d.lastOffset = offset;
  if (text.length === 0) {
    d.report('invalid_json', 'warning', line, offset, 'an empty line (HEP has no blank lines); skipped');
    return;
  }
  const first = !d.sawFirst;
  d.sawFirst = true;
  if (!first && canonicalDelta(d, text, line, offset, out)) return;
  // Short lines are measured only when their shape leaves room for depth (below), so a
  // well-formed frame never pays for the scan.
  const record = parseRecordText(text, line, offset, d.maxDepth, FORMAT, d.sink);
  if (record === NOT_PARSED) return;
  if (!isJsonObject(record)) {
    if (!refuseDeep(d, text, record, line, offset))
      d.report('invalid_json', 'error', line, offset, 'not a JSON object');
    return;
  }
  const type = record.type;
  const spec = typeof type === 'string' ? hepFrameSpec(type) : undefined;
  const problem = spec === undefined ? undefined : validateHepFrameSpec(spec, record);
  const rest = spec === undefined || problem !== undefined ? undefined : splitRecord(record, spec.keys);
  // turn_done's tool results and usage with their own keys in order: map() need not split them.
  const nestedExact =
    spec !== undefined &&
    problem === undefined &&
    rest === undefined &&
    spec.type === 'turn_done' &&
    !hasNestedExtras(record);
  // A valid frame with only its own fields (also inside turn_done's tool results and usage)
  // is at most three levels deep: everything else is measured now.
  if (
    (spec === undefined ||
      problem !== undefined ||
      rest !== undefined ||
      (spec.type === 'turn_done' && !nestedExact)) &&
    refuseDeep(d, text, record, line, offset)
  ) {
    return;
  }
  if (first && type !== 'hep_header') {
    d.report('order', 'error', line, offset, 'the first line is not a hep_header frame');
  }
  if (spec === undefined) {
    const unknown: AgentEventOf<'unknown'> = {
      type: 'unknown',
      record,
      provenance: provenanceOf(FORMAT, line, offset),
    };
    if (typeof type === 'string') unknown.recordType = type;
    else
      d.report(
        'invalid_record',
        'warning',
        line,
        offset,
        'a record without a string "type"; kept as unknown',
      );
    stamp(d, unknown, record);
    // No schema checked this record's numbers: make sure none was rounded or overflowed.
    checkNumbers(d, text, line, offset);
    keepRaw(unknown.provenance!, record, text);
    out.push(unknown);
    return;
  }
  if (problem !== undefined) {
    d.report('invalid_record', 'error', line, offset, `invalid ${spec.type} frame: ${problem}`);
    return;
  }
  const at = d.at;
  at.text = text;
  at.line = line;
  at.offset = offset;
  at.out = out;
  at.rest = rest;
  at.nestedExact = nestedExact;
  map(d, spec, record, at);
}

function endStream(d: HepDecoder, out: AgentEvent[]): void {
  completeRun(d, d.lastLine, d.lastOffset, out);
}

// The run's synthetic end after its last turn_done: at the end of the input, or (`live`) at a
// round that ran no tool and did not stop for one.
function completeRun(d: HepDecoder, line: number, offset: number, out: AgentEvent[]): void {
  if (d.runOpen && d.answer !== undefined) {
    const end: AgentEventOf<'run.end'> = {
      type: 'run.end',
      status: 'completed',
      answer: d.answer,
      provenance: { format: FORMAT, line, offset, synthetic: true },
    };
    if (d.stopReason !== undefined) end.stopReason = d.stopReason;
    if (d.usage !== undefined) end.usage = { ...d.usage }; // a copy: later rounds must not change an event already out
    if (d.session !== undefined) end.session = d.session;
    out.push(end);
    d.runOpen = false;
  }
}

function stamp(d: HepDecoder, event: AgentEvent, record: JsonObject): void {
  if (d.session !== undefined) event.session = d.session;
  const turn = record.turn_id;
  if (typeof turn === 'number' && Number.isSafeInteger(turn)) event.round = turn;
}

function endRun(
  d: HepDecoder,
  status: 'failed' | 'cancelled',
  provenance: Provenance,
  out: AgentEvent[],
): void {
  const end: AgentEventOf<'run.end'> = {
    type: 'run.end',
    status,
    provenance: { format: FORMAT, line: provenance.line, offset: provenance.offset, synthetic: true },
  };
  if (d.usage !== undefined) end.usage = { ...d.usage }; // a copy: later rounds must not change an event already out
  if (d.session !== undefined) end.session = d.session;
  out.push(end);
  d.runOpen = false;
}

function map(d: HepDecoder, spec: HepFrameSpec, r: JsonObject, at: FrameAt): void {
  const { text, line, offset, out, rest, nestedExact } = at;
  // Unknown fields have no schema: check their numbers (rare path, only lines with extras).
  let checked = rest?.extra !== undefined;
  if (checked) checkNumbers(d, text, line, offset);
  const provenance: Provenance =
    rest === undefined ? { format: FORMAT, line, offset } : provenanceOf(FORMAT, line, offset, rest);
  // Lines with fields of their own (at any level) may hold what the model cannot tell apart.
  if (checked || (spec.type === 'turn_done' && !nestedExact)) keepRaw(provenance, r, text);
  const session = d.session;
  switch (spec.type) {
    // The frequent frames first: each case label is a string comparison.
    case 'message_delta':
      out.push(textDelta(r.delta as string, r.turn_id as number, provenance, session));
      return;
    case 'tool_delta': {
      // Built whole, as text.delta is (textDelta).
      const call = r.id as string;
      const update = r.update as string;
      const round = r.turn_id as number;
      out.push(
        session === undefined
          ? { type: 'tool.output', call, text: update, round, provenance }
          : { type: 'tool.output', call, text: update, round, provenance, session },
      );
      return;
    }
    case 'hep_header': {
      const version = r.hep as string;
      if (!isHepV1(version)) {
        d.report(
          'unsupported_version',
          'error',
          line,
          offset,
          `HEP version ${JSON.stringify(version)} is not supported (this library reads v1); upgrade agentwire`,
        );
      }
      d.session = r.session as string;
      out.push({
        type: 'session.start',
        session: d.session,
        protocol: version,
        producer: r.fah as string,
        provenance,
      });
      return;
    }
    case 'agent_start': {
      d.runOpen = true;
      d.answer = undefined;
      d.stopReason = undefined;
      d.usage = undefined;
      const e: AgentEventOf<'run.start'> = { type: 'run.start', round: r.turn_id as number, provenance };
      if (session !== undefined) e.session = session;
      out.push(e);
      return;
    }
    case 'message_start': {
      const e: AgentEventOf<'message.start'> = {
        type: 'message.start',
        role: 'assistant',
        round: r.turn_id as number,
        provenance,
      };
      if (session !== undefined) e.session = session;
      out.push(e);
      return;
    }
    case 'tool_start': {
      const summary = r.args_summary as string;
      const e: AgentEventOf<'tool.start'> = {
        type: 'tool.start',
        call: r.id as string,
        name: r.name as string,
        argsSummary: summary,
        round: r.turn_id as number,
        provenance,
      };
      const args = fullArgs(d, summary);
      if (args !== undefined) e.args = args;
      if (session !== undefined) e.session = session;
      out.push(e);
      return;
    }
    case 'tool_liveness': {
      const e: AgentEventOf<'tool.liveness'> = {
        type: 'tool.liveness',
        call: r.id as string,
        name: r.name as string,
        action: r.action as string,
        elapsedMs: r.elapsed_ms as number,
        round: r.turn_id as number,
        provenance,
      };
      if (r.output_bytes !== undefined) e.outputBytes = r.output_bytes as number;
      if (r.detail !== undefined) e.detail = r.detail as string;
      if (session !== undefined) e.session = session;
      out.push(e);
      return;
    }
    case 'turn_done': {
      const round = r.turn_id as number;
      for (const item of r.tool_results as JsonObject[]) {
        const rest = nestedExact ? undefined : splitRecord(item, HEP_TOOL_RESULT_KEYS);
        const e: AgentEventOf<'tool.end'> = {
          type: 'tool.end',
          call: item.id as string,
          name: item.name as string,
          ok: item.ok as boolean,
          text: item.text as string,
          round,
          provenance: { format: FORMAT, line, offset, synthetic: true },
        };
        if (rest?.extra !== undefined) {
          e.provenance!.extra = rest.extra;
          if (!checked) checkNumbers(d, text, line, offset);
          checked = true;
        }
        if (rest?.order !== undefined) e.provenance!.order = rest.order;
        if (session !== undefined) e.session = session;
        out.push(e);
      }
      const u = r.usage as JsonObject;
      const usage: Usage = {
        input: u.input as number,
        output: u.output as number,
        costUsd: u.cost as number,
      };
      const usageRest = nestedExact ? undefined : splitRecord(u, HEP_USAGE_KEYS);
      if (usageRest !== undefined) {
        const hints = hintsOf(provenance);
        if (usageRest.extra !== undefined) {
          hints.usageExtra = usageRest.extra;
          if (!checked) checkNumbers(d, text, line, offset);
        }
        if (usageRest.order !== undefined) hints.usageOrder = usageRest.order;
      }
      const e: AgentEventOf<'round.end'> = {
        type: 'round.end',
        message: r.message as string,
        stopReason: r.stop_reason as string,
        usage,
        round,
        provenance,
      };
      if (session !== undefined) e.session = session;
      out.push(e);
      d.answer = e.message;
      d.stopReason = e.stopReason;
      addRunUsage(d, usage);
      // Followed live, a round that ran no tool and did not stop for one ends the run: fa's
      // agent loop stops there (a finished input ends it at its end, where HEP says it ends).
      if (d.live && e.stopReason !== 'toolUse' && (r.tool_results as JsonObject[]).length === 0)
        completeRun(d, line, offset, out);
      return;
    }
    case 'turn_error': {
      const fatal = r.fatal as boolean;
      const e: AgentEventOf<'error'> = {
        type: 'error',
        message: r.error as string,
        fatal,
        round: r.turn_id as number,
        provenance,
      };
      if (session !== undefined) e.session = session;
      out.push(e);
      if (fatal) endRun(d, 'failed', provenance, out);
      return;
    }
    case 'cancelled': {
      const e: AgentEventOf<'cancel'> = { type: 'cancel', round: r.turn_id as number, provenance };
      if (session !== undefined) e.session = session;
      out.push(e);
      endRun(d, 'cancelled', provenance, out);
      return;
    }
    case 'compaction_start': {
      const e: AgentEventOf<'compaction.start'> = {
        type: 'compaction.start',
        round: r.turn_id as number,
        provenance,
      };
      if (session !== undefined) e.session = session;
      out.push(e);
      return;
    }
    case 'compaction_end': {
      const e: AgentEventOf<'compaction.end'> = {
        type: 'compaction.end',
        tokensFreed: r.tokens_freed as number,
        round: r.turn_id as number,
        provenance,
      };
      if (session !== undefined) e.session = session;
      out.push(e);
      return;
    }
  }
}

/**
 * The shortcut beside the general path: a `message_delta` line spelled exactly as the
 * reference writer spells it (`hepMessageDeltaLine` in wire.ts: N in plain digits) is
 * read without building its record: the head and the key compared as text, the delta parsed
 * alone (its cost against the full path: docs/performance.md, "HEP `createDecoder`"). Any other
 * spelling (spacing, key order, more fields, a sign or a leading zero, invalid JSON, a line long
 * enough to be measured for depth first) returns false having done nothing, and takes the full
 * path, which gives the same event for every line accepted here: the property test
 * test/hep/canonical-delta.test.ts holds the two equal.
 */
function canonicalDelta(
  d: HepDecoder,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): boolean {
  const n = text.length;
  // Two characters tell a message_delta from the other frames before any search.
  if (n > DEPTH_PRECHECK_CHARS || text.charCodeAt(9) !== 109 || text.charCodeAt(17) !== 100) return false;
  if (text.indexOf(HEP_DELTA_HEAD) !== 0) return false;
  let at = HEP_DELTA_HEAD.length;
  let round = 0;
  for (let c = text.charCodeAt(at); c >= 48 && c <= 57; c = text.charCodeAt(++at))
    round = round * 10 + c - 48;
  if (!isPlainUint(text, HEP_DELTA_HEAD.length, at)) return false;
  if (text.indexOf(HEP_DELTA_KEY, at) !== at) return false;
  at += HEP_DELTA_KEY.length;
  // The delta must be one string token that ends right before the closing brace.
  if (!isLastStringToken(text, at)) return false;
  let delta: string;
  try {
    delta = JSON.parse(text.slice(at, n - 1)) as string;
  } catch {
    return false;
  }
  out.push(textDelta(delta, round, { format: FORMAT, line, offset }, d.session));
  return true;
}

// Reports a line deeper than maxDepth, unless it was measured before it was parsed.
function refuseDeep(d: HepDecoder, text: string, value: unknown, line: number, offset: number): boolean {
  return refuseDeepValue(text, value, line, offset, d.maxDepth, FORMAT, d.sink);
}

function checkNumbers(d: HepDecoder, text: string, line: number, offset: number): void {
  const message = unsafeNumberMessage(text);
  if (message !== undefined) d.report('invalid_record', 'error', line, offset, message);
}

function addRunUsage(d: HepDecoder, u: Usage): void {
  const total = (d.usage ??= { input: 0, output: 0, costUsd: 0 });
  addUsage(total, u);
}

// events=full mode writes the arguments as compact JSON; expose them when the summary is
// exactly that (not cut at the 4000-character bound, not a key=value summary).
function fullArgs(d: HepDecoder, summary: string): Record<string, unknown> | undefined {
  if (summary.charCodeAt(0) !== 123 || summary.charCodeAt(summary.length - 1) !== 125) return undefined;
  if (summary.length > 2 * d.maxDepth && exceedsDepth(summary, d.maxDepth)) return undefined;
  try {
    const value: unknown = JSON.parse(summary);
    if (isJsonObject(value) && JSON.stringify(value) === summary) return value;
  } catch {
    // a summary that merely looks like JSON
  }
  return undefined;
}
