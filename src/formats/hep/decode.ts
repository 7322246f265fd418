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
  refuseTooDeep,
  resolveMaxDepth,
  unsafeNumberMessage,
  valueTooDeep,
} from '../../json';
import type { AgentEvent, AgentEventOf, Provenance, Usage } from '../../model';
import { hasExactKeys, provenanceOf, type RecordRest, splitRecord } from '../../record';
import { isPlainUint } from '../../text-reader';
import { addUsage } from '../../usage';
import {
  ANSWER,
  LAST_LINE,
  LAST_OFFSET,
  LINE,
  LIVE,
  MAX_DEPTH,
  NESTED_EXACT,
  OFFSET,
  OUT,
  REPORT,
  REST,
  ROUND_OPEN,
  RUN_OPEN,
  SAW_FIRST,
  SESSION,
  SINK,
  STOP_REASON,
  TEXT,
  USAGE,
} from './slots';
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

/** Options of the HEP decoder. */
export interface HepDecodeOptions extends DecodeOptions {}

const FORMAT = HEP;

/**
 * The decoder's state between lines and the frame being mapped with its line: an array of named
 * slots, not a class or a literal. An array's hidden class belongs to the realm and outlives
 * every garbage collection, where a literal's (made before its factory has an allocation site)
 * dies with the last decoder at a forced GC and takes the optimised per-line code that embedded
 * it along (docs/performance.md, "HEP `createDecoder`", Round seven). The frame slots are reused:
 * the mapping keeps none of them. `rest`: fields beyond the reference ones (or another order);
 * `nestedExact`: turn_done's tool results and usage have exactly their own keys, in order.
 */
type HepDecoder = [
  sink: DiagnosticSink,
  report: LineReport,
  maxDepth: number,
  live: boolean,
  sawFirst: boolean,
  session: string | undefined,
  runOpen: boolean,
  answer: string | undefined,
  stopReason: string | undefined,
  usage: Usage | undefined,
  lastLine: number,
  lastOffset: number,
  // The frame being mapped.
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
  rest: RecordRest | undefined,
  nestedExact: boolean,
  // A frame of a round came after the last terminal frame: the input ending now ends the run
  // incomplete, not completed (compaction and unknown frames open no round).
  roundOpen: boolean,
];

// The decoder as the frame being mapped (after readLine fills the frame slots): the same array.
type FrameAt = HepDecoder;

function newDecoder(options: HepDecodeOptions, sink: DiagnosticSink): HepDecoder {
  return [
    sink,
    lineReporter(sink, FORMAT),
    resolveMaxDepth(options.maxDepth),
    options.live === true,
    false,
    undefined,
    false,
    undefined,
    undefined,
    undefined,
    0,
    0,
    '',
    0,
    0,
    [],
    undefined,
    false,
    false,
  ];
}

/**
 * The HEP v1 record decoder: one frame per line → canonical events. Stateful: it stamps the
 * session id on every event, totals usage per run, and ends the run when the format implies it
 * (a fatal `turn_error`, `cancelled`, or the end of the stream after the last `turn_done`). The
 * state in element 0 and `line` and `end` on the prototype (the Codex record decoder's shape):
 * every decoder has the class's initial hidden class and one `line`, so the splitter's call site
 * keeps its target and its optimised code across decoders and full GCs. A literal of two
 * closures made per decoder was a new call target with each one, and the per-line code that
 * inlined the last one was thrown away when it died (docs/performance.md, "Round thirty-three").
 */
export class HepRecordDecoder implements RecordDecoder {
  declare private readonly 0: HepDecoder;

  /** Creates a decoder that reports to `sink`. */
  constructor(options: HepDecodeOptions, sink: DiagnosticSink) {
    (this as unknown as { 0: HepDecoder })[0] = newDecoder(options, sink);
  }

  /** Decodes one line (see {@link RecordDecoder}). */
  line(text: string, line: number, offset: number, out: AgentEvent[]): void {
    readLine(this[0], text, line, offset, out);
  }

  /** Ends the stream (see {@link RecordDecoder}). */
  end(out: AgentEvent[]): void {
    endStream(this[0], out);
  }
}

/** A {@link HepRecordDecoder} reporting to `sink`. */
export function createHepRecordDecoder(options: HepDecodeOptions, sink: DiagnosticSink): RecordDecoder {
  return new HepRecordDecoder(options, sink);
}

function readLine(d: HepDecoder, text: string, line: number, offset: number, out: AgentEvent[]): void {
  d[LAST_LINE] = line;
  d[LAST_OFFSET] = offset;
  if (text.length === 0) {
    d[REPORT]('invalid_json', 'warning', line, offset, 'an empty line (HEP has no blank lines); skipped');
    return;
  }
  const first = !d[SAW_FIRST];
  d[SAW_FIRST] = true;
  if (!first && canonicalDelta(d, text, line, offset, out)) return;
  // Short lines are measured only when their shape leaves room for depth (below), so a
  // well-formed frame never pays for the scan.
  const record = parseRecordText(text, line, offset, d[MAX_DEPTH], FORMAT, d[SINK]);
  if (record === NOT_PARSED) return;
  if (!isJsonObject(record)) {
    if (!refuseDeep(d, text, record, line, offset))
      d[REPORT]('invalid_json', 'error', line, offset, 'not a JSON object');
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
    d[REPORT]('order', 'error', line, offset, 'the first line is not a hep_header frame');
  }
  if (spec === undefined) {
    const unknown: AgentEventOf<'unknown'> = {
      type: 'unknown',
      record,
      provenance: provenanceOf(FORMAT, line, offset),
    };
    if (typeof type === 'string') unknown.recordType = type;
    else
      d[REPORT](
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
    d[REPORT]('invalid_record', 'error', line, offset, `invalid ${spec.type} frame: ${problem}`);
    return;
  }
  d[TEXT] = text;
  d[LINE] = line;
  d[OFFSET] = offset;
  d[OUT] = out;
  d[REST] = rest;
  d[NESTED_EXACT] = nestedExact;
  map(d, spec, record, d);
}

// The input ended: a run whose last round ended with turn_done completed; a run still open
// otherwise (a round without its terminal frame, or no round at all: the process died or is still
// running) ends incomplete, never completed (docs/model.md, "Run outcome").
function endStream(d: HepDecoder, out: AgentEvent[]): void {
  if (!d[RUN_OPEN]) return;
  if (d[ANSWER] !== undefined && !d[ROUND_OPEN]) completeRun(d, d[LAST_LINE], d[LAST_OFFSET], out);
  else endRun(d, 'incomplete', d[LAST_LINE], d[LAST_OFFSET], out);
}

// The run's synthetic end after its last turn_done: at the end of the input, or (`live`) at a
// round that ran no tool and did not stop for one.
function completeRun(d: HepDecoder, line: number, offset: number, out: AgentEvent[]): void {
  if (d[RUN_OPEN] && d[ANSWER] !== undefined) {
    const end: AgentEventOf<'run.end'> = {
      type: 'run.end',
      status: 'completed',
      answer: d[ANSWER],
      provenance: { format: FORMAT, line, offset, synthetic: true },
    };
    if (d[STOP_REASON] !== undefined) end.stopReason = d[STOP_REASON];
    if (d[USAGE] !== undefined) end.usage = { ...d[USAGE] }; // a copy: later rounds must not change an event already out
    if (d[SESSION] !== undefined) end.session = d[SESSION];
    out.push(end);
    d[RUN_OPEN] = false;
  }
}

function stamp(d: HepDecoder, event: AgentEvent, record: JsonObject): void {
  if (d[SESSION] !== undefined) event.session = d[SESSION];
  const turn = record.turn_id;
  if (typeof turn === 'number' && Number.isSafeInteger(turn)) event.round = turn;
}

// A synthetic run.end at `line`: after a fatal turn_error or cancelled, or (incomplete) at the
// end of an input that left the run open. The usage is the total of the rounds that ended.
function endRun(
  d: HepDecoder,
  status: 'failed' | 'cancelled' | 'incomplete',
  line: number,
  offset: number,
  out: AgentEvent[],
): void {
  d[ROUND_OPEN] = false;
  const end: AgentEventOf<'run.end'> = {
    type: 'run.end',
    status,
    provenance: { format: FORMAT, line, offset, synthetic: true },
  };
  if (d[USAGE] !== undefined) end.usage = { ...d[USAGE] }; // a copy: later rounds must not change an event already out
  if (d[SESSION] !== undefined) end.session = d[SESSION];
  out.push(end);
  d[RUN_OPEN] = false;
}

function map(d: HepDecoder, spec: HepFrameSpec, r: JsonObject, at: FrameAt): void {
  const text = at[TEXT];
  const line = at[LINE];
  const offset = at[OFFSET];
  const out = at[OUT];
  const rest = at[REST];
  const nestedExact = at[NESTED_EXACT];
  // Unknown fields have no schema: check their numbers (rare path, only lines with extras).
  let checked = rest?.extra !== undefined;
  if (checked) checkNumbers(d, text, line, offset);
  const provenance: Provenance =
    rest === undefined ? { format: FORMAT, line, offset } : provenanceOf(FORMAT, line, offset, rest);
  // Lines with fields of their own (at any level) may hold what the model cannot tell apart.
  if (checked || (spec.type === 'turn_done' && !nestedExact)) keepRaw(provenance, r, text);
  const session = d[SESSION];
  switch (spec.type) {
    // The frequent frames first: each case label is a string comparison.
    case 'message_delta':
      d[ROUND_OPEN] = true;
      out.push(textDelta(r.delta as string, r.turn_id as number, provenance, session));
      return;
    case 'tool_delta': {
      // Built whole, as text.delta is (textDelta).
      const call = r.id as string;
      const update = r.update as string;
      const round = r.turn_id as number;
      d[ROUND_OPEN] = true;
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
        d[REPORT](
          'unsupported_version',
          'error',
          line,
          offset,
          `HEP version ${JSON.stringify(version)} is not supported (this library reads v1); upgrade agentwire`,
        );
      }
      d[SESSION] = r.session as string;
      out.push({
        type: 'session.start',
        session: d[SESSION],
        protocol: version,
        producer: r.fah as string,
        provenance,
      });
      return;
    }
    case 'agent_start': {
      d[RUN_OPEN] = true;
      d[ROUND_OPEN] = false;
      d[ANSWER] = undefined;
      d[STOP_REASON] = undefined;
      d[USAGE] = undefined;
      const type = 'run.start';
      const round = r.turn_id as number;
      out.push(session === undefined ? { type, round, provenance } : { type, round, provenance, session });
      return;
    }
    case 'message_start': {
      d[ROUND_OPEN] = true;
      const type = 'message.start';
      const role = 'assistant';
      const round = r.turn_id as number;
      out.push(
        session === undefined
          ? { type, role, round, provenance }
          : { type, role, round, provenance, session },
      );
      return;
    }
    case 'tool_start': {
      d[ROUND_OPEN] = true;
      const type = 'tool.start';
      const argsSummary = r.args_summary as string;
      const call = r.id as string;
      const name = r.name as string;
      const round = r.turn_id as number;
      const args = fullArgs(d, argsSummary);
      out.push(
        args === undefined
          ? session === undefined
            ? { type, call, name, argsSummary, round, provenance }
            : { type, call, name, argsSummary, round, provenance, session }
          : session === undefined
            ? { type, call, name, argsSummary, round, provenance, args }
            : { type, call, name, argsSummary, round, provenance, args, session },
      );
      return;
    }
    case 'tool_liveness': {
      d[ROUND_OPEN] = true;
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
        const type = 'tool.end';
        const call = item.id as string;
        const name = item.name as string;
        const ok = item.ok as boolean;
        const itemText = item.text as string;
        const p: Provenance = { format: FORMAT, line, offset, synthetic: true };
        if (rest?.extra !== undefined) {
          p.extra = rest.extra;
          if (!checked) checkNumbers(d, text, line, offset);
          checked = true;
        }
        if (rest?.order !== undefined) p.order = rest.order;
        out.push(
          session === undefined
            ? { type, call, name, ok, text: itemText, round, provenance: p }
            : { type, call, name, ok, text: itemText, round, provenance: p, session },
        );
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
      const type = 'round.end';
      const message = r.message as string;
      const stopReason = r.stop_reason as string;
      out.push(
        session === undefined
          ? { type, message, stopReason, usage, round, provenance }
          : { type, message, stopReason, usage, round, provenance, session },
      );
      d[ANSWER] = message;
      d[STOP_REASON] = stopReason;
      d[ROUND_OPEN] = false;
      addRunUsage(d, usage);
      // Followed live, a round that ran no tool and did not stop for one ends the run: fa's
      // agent loop stops there (a finished input ends it at its end, where HEP says it ends).
      if (d[LIVE] && stopReason !== 'toolUse' && (r.tool_results as JsonObject[]).length === 0)
        completeRun(d, line, offset, out);
      return;
    }
    case 'turn_error': {
      const fatal = r.fatal as boolean;
      const type = 'error';
      const message = r.error as string;
      const round = r.turn_id as number;
      out.push(
        session === undefined
          ? { type, message, fatal, round, provenance }
          : { type, message, fatal, round, provenance, session },
      );
      d[ROUND_OPEN] = false;
      if (fatal) endRun(d, 'failed', line, offset, out);
      return;
    }
    case 'cancelled': {
      const type = 'cancel';
      const round = r.turn_id as number;
      out.push(session === undefined ? { type, round, provenance } : { type, round, provenance, session });
      endRun(d, 'cancelled', line, offset, out);
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
  d[ROUND_OPEN] = true;
  out.push(textDelta(delta, round, { format: FORMAT, line, offset }, d[SESSION]));
  return true;
}

// Reports a line deeper than maxDepth, unless it was measured before it was parsed.
function refuseDeep(d: HepDecoder, text: string, value: unknown, line: number, offset: number): boolean {
  return (
    valueTooDeep(text, value, d[MAX_DEPTH]) && refuseTooDeep(d[SINK], line, offset, d[MAX_DEPTH], FORMAT)
  );
}

function checkNumbers(d: HepDecoder, text: string, line: number, offset: number): void {
  const message = unsafeNumberMessage(text);
  if (message !== undefined) d[REPORT]('invalid_record', 'error', line, offset, message);
}

function addRunUsage(d: HepDecoder, u: Usage): void {
  const total = (d[USAGE] ??= { input: 0, output: 0, costUsd: 0 });
  addUsage(total, u);
}

// events=full mode writes the arguments as compact JSON; expose them when the summary is
// exactly that (not cut at the 4000-character bound, not a key=value summary).
function fullArgs(d: HepDecoder, summary: string): Record<string, unknown> | undefined {
  if (summary.charCodeAt(0) !== 123 || summary.charCodeAt(summary.length - 1) !== 125) return undefined;
  if (summary.length > 2 * d[MAX_DEPTH] && exceedsDepth(summary, d[MAX_DEPTH])) return undefined;
  try {
    const value: unknown = JSON.parse(summary);
    if (isJsonObject(value) && JSON.stringify(value) === summary) return value;
  } catch {
    // a summary that merely looks like JSON
  }
  return undefined;
}
