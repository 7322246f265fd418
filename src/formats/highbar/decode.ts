import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import {
  DEPTH_PRECHECK_CHARS,
  exceedsDepth,
  isJsonObject,
  isTooDeep,
  type JsonObject,
  mayHoldUnsafeNumber,
  parseJsonLine,
  resolveMaxDepth,
  setOwn,
  unsafeNumberMessage,
} from '../../json';
import type { AgentEvent, AgentEventOf, Provenance } from '../../model';
import { provenanceOf, splitRecord } from '../../record';
import { pyDumpsParsed, pyFloat, pyShape, SHAPE_PYTHON, SHAPE_TOO_DEEP, SHAPE_UNKNOWN } from './pyjson';
import {
  HIGHBAR,
  HIGHBAR_KEY_ORDER_BY_TYPE,
  HIGHBAR_TIME_FIELDS,
  HIGHBAR_V0_FIELDS,
  HIGHBAR_V0_TIME_FIELDS,
  HIGHBAR_VERSION,
  type HighbarHints,
  type HighbarRecordType,
  isHighbarRecordType,
  passesHighbarGuard,
  validateHighbarRecord,
} from './wire';

/** Options of the highbar decoder. */
export interface HighbarDecodeOptions extends DecodeOptions {}

const FORMAT = HIGHBAR;

// The line being decoded, as one object (reused: nothing keeps it past the line).
interface LineAt {
  line: number;
  offset: number;
  hints: HighbarHints;
  out: AgentEvent[];
}

// What a tool line's pair of events shares.
interface ToolPair {
  ts: number | undefined;
  startedAt: number | undefined;
  endedAt: number | undefined;
  context: JsonObject | undefined;
  provenance: Provenance;
}

function isFailure(error: unknown): boolean {
  return !(error === undefined || error === null || error === false || error === '');
}

/**
 * The highbar trace record decoder: one line → canonical events. A `tool` line becomes a
 * `tool.start` + `tool.end` pair (call id `hb-<line>`); a `turn` ends a run (`run.end`), and a
 * synthetic `run.start` opens each run before its first `tool` or `turn`; `hello` is a
 * `session.start`; `tools` is a `tools.declare`. Lines the contract skips are `info`
 * diagnostics plus `unknown` events; lines the contract calls errors are `error` diagnostics
 * (plus an `unknown` event when the line was JSON), never dropped without a trace.
 */
export class HighbarRecordDecoder implements RecordDecoder {
  private readonly sink: DiagnosticSink;
  private readonly report: LineReport;
  private readonly maxDepth: number;
  private runOpen = false;
  // The current line when the walk did not find it in Python's shape (it may need keeping as
  // written), else undefined.
  private unproven: string | undefined;
  private readonly at: LineAt = { line: 0, offset: 0, hints: {}, out: [] };

  /** Creates a decoder that reports to `sink`. */
  constructor(options: HighbarDecodeOptions, sink: DiagnosticSink) {
    this.sink = sink;
    this.report = lineReporter(sink, FORMAT);
    this.maxDepth = resolveMaxDepth(options.maxDepth);
  }

  line(text: string, line: number, offset: number, out: AgentEvent[], bytes?: number): void {
    // Parse first, then bound the depth on the value: the walk that checks the line's Python
    // shape measures the depth too, where a scan of the text would stop at every `{` and `[` in
    // the strings. Long lines are measured before they are parsed, as in every decoder (a deep
    // line costs JSON.parse time per level). A line that fails either way gets its
    // diagnostic from the checked parse.
    let record: unknown;
    let shape = SHAPE_UNKNOWN;
    let refused = text.length > DEPTH_PRECHECK_CHARS && isTooDeep(text, this.maxDepth);
    if (!refused) {
      try {
        record = JSON.parse(text);
        shape = pyShape(text, record, this.maxDepth, bytes === text.length);
      } catch {
        refused = true;
      }
    }
    if (
      refused ||
      shape === SHAPE_TOO_DEEP ||
      (shape === SHAPE_UNKNOWN && text.length > 2 * this.maxDepth && exceedsDepth(text, this.maxDepth))
    ) {
      if (text.trim().length === 0) {
        this.report('invalid_json', 'warning', line, offset, 'a blank line (no record); skipped');
        return;
      }
      const parsed = parseJsonLine(text, line, offset, this.maxDepth, FORMAT);
      if (!parsed.ok) {
        this.sink.report(parsed.diagnostic);
        return;
      }
      record = parsed.value;
      shape = SHAPE_UNKNOWN;
    }
    const hints: HighbarHints = {};
    const at = this.at;
    at.line = line;
    at.offset = offset;
    at.hints = hints;
    at.out = out;
    // A line the walk did not find in Python's shape pays for an exact comparison with its
    // re-serialisation (keepRaw, once the record's kind says which fields the writer prints as
    // time floats, as Python writes time.time()), and for the integer check: a line in Python's
    // shape holds no integer past 2^53.
    this.unproven = shape === SHAPE_PYTHON ? undefined : text;
    if (this.unproven !== undefined && mayHoldUnsafeNumber(record)) this.checkIntegers(text, line, offset);
    if (!isJsonObject(record)) {
      this.report('invalid_json', 'error', line, offset, 'not a JSON object; kept as an unknown event');
      out.push(this.unknown(record, undefined, at));
      return;
    }
    const v = record.v;
    if (v === undefined || v === 0) {
      this.v0(record, at);
      return;
    }
    if (v !== HIGHBAR_VERSION) {
      if (typeof v === 'number' && Number.isInteger(v) && v > HIGHBAR_VERSION) {
        this.report(
          'unsupported_version',
          'error',
          line,
          offset,
          `trace contract version ${v} is newer than this library reads (v${HIGHBAR_VERSION}); upgrade agentwire`,
        );
      } else {
        this.report(
          'invalid_record',
          'error',
          line,
          offset,
          `"v" is ${JSON.stringify(v)}, not a version number`,
        );
      }
      out.push(this.unknown(record, record.type, at));
      return;
    }
    const type = record.type;
    if (!isHighbarRecordType(type)) {
      const what =
        type === undefined
          ? 'a v1 record without "type"; skipped, as the contract says (highbar loses a tool call written without type)'
          : `a record of type ${JSON.stringify(type)} highbar does not know; skipped, as the contract says`;
      this.report('unknown_record', 'info', line, offset, `${what}; kept as an unknown event`);
      out.push(this.unknown(record, type, at));
      return;
    }
    const problem = passesHighbarGuard(type, record) ? undefined : validateHighbarRecord(type, record);
    if (problem !== undefined) {
      this.report('invalid_record', 'error', line, offset, `invalid ${type} record: ${problem}`);
      out.push(this.unknown(record, type, at));
      return;
    }
    this.v1(type, record, at);
  }

  end(_out: AgentEvent[]): void {
    // A run without its turn record stays open: highbar has no other end of a run.
  }

  /**
   * For a line not proven Python's: keeps it as written (`hints.raw`) unless the writer gives it
   * back, which prints the top-level fields in `floats` as Python floats and everything else as
   * data.
   */
  private keepRaw(record: unknown, floats: readonly string[] | undefined, hints: HighbarHints): void {
    const text = this.unproven;
    if (text !== undefined && pyDumpsParsed(record, floats) !== text) hints.raw = text;
  }

  // JSON.parse rounds integers past 2^53; the policy is to say so, never to round silently.
  private checkIntegers(text: string, line: number, offset: number): void {
    const message = unsafeNumberMessage(text);
    if (message !== undefined) this.report('invalid_record', 'error', line, offset, message);
  }

  private unknown(record: unknown, type: unknown, at: LineAt): AgentEventOf<'unknown'> {
    const { line, offset, hints } = at;
    this.keepRaw(record, undefined, hints);
    const e: AgentEventOf<'unknown'> = {
      type: 'unknown',
      record,
      provenance: withHints(provenanceOf(FORMAT, line, offset), hints),
    };
    if (typeof type === 'string') e.recordType = type;
    if (isJsonObject(record)) {
      if (typeof record.ts === 'number') e.ts = record.ts * 1000;
      // An invalid record still belongs to its test: keep the context for correlation.
      if (isJsonObject(record.context)) e.context = record.context;
    }
    return e;
  }

  /** Seconds → ms for a time field, with the hint that gives the written value back. */
  private time(
    record: JsonObject,
    key: 'ts' | 'started_at' | 'ended_at',
    fallback: number | undefined,
    at: LineAt,
  ): number | undefined {
    const hints = at.hints;
    const value = record[key];
    if (value === undefined) {
      (hints.absent ??= []).push(key);
      return fallback;
    }
    if (typeof value !== 'number') {
      const instead = fallback === undefined ? 'it is left out' : 'it falls back to ts';
      this.report(
        'invalid_record',
        'warning',
        at.line,
        at.offset,
        `${key} is ${JSON.stringify(value)}, not a number of seconds; ${instead}`,
      );
      (hints.invalid ??= {})[key] = value;
      return fallback;
    }
    const ms = value * 1000;
    // The writer prints ms / 1000; keep the value as written only when that does not give it
    // back. (A Python writer's float; a line with an integer here keeps its `raw` form instead.)
    // An integral value in a line found in Python's shape was written as an integer (`1.0` is not).
    if (Number.isInteger(value) && this.unproven === undefined) hints[key] = String(value);
    else if (ms / 1000 !== value) hints[key] = pyFloat(value);
    return ms;
  }

  private openRun(ts: number | undefined, context: JsonObject | undefined, at: LineAt): void {
    const { line, offset, out } = at;
    if (this.runOpen) return;
    this.runOpen = true;
    const e: AgentEventOf<'run.start'> = {
      type: 'run.start',
      provenance: { format: FORMAT, line, offset, synthetic: true },
    };
    if (ts !== undefined) e.ts = ts;
    if (context !== undefined) e.context = context;
    out.push(e);
  }

  private v0(record: JsonObject, at: LineAt): void {
    const { line, offset, hints, out } = at;
    const problem = passesHighbarGuard('v0', record) ? undefined : validateHighbarRecord('v0', record);
    if (problem !== undefined) {
      this.report('invalid_record', 'error', line, offset, `invalid v0 tool call: ${problem}`);
      out.push(this.unknown(record, undefined, at));
      return;
    }
    this.keepRaw(record, HIGHBAR_V0_TIME_FIELDS, hints);
    hints.v0 = Object.keys(record);
    let context: JsonObject | undefined;
    for (const key of hints.v0) {
      if (HIGHBAR_V0_FIELDS.indexOf(key) !== -1) continue;
      setOwn((context ??= {}), key, record[key]);
    }
    // v0 has no ts: the call's own times stand in for it.
    const startedAt = this.time(record, 'started_at', undefined, at);
    const endedAt = this.time(record, 'ended_at', undefined, at);
    delete hints.absent; // the v0 key list already says which fields the line had
    const provenance = withHints(provenanceOf(FORMAT, line, offset), hints);
    this.toolPair(record, { ts: endedAt ?? startedAt, startedAt, endedAt, context, provenance }, at);
  }

  private v1(type: HighbarRecordType, record: JsonObject, at: LineAt): void {
    const { line, offset, hints, out } = at;
    this.keepRaw(record, HIGHBAR_TIME_FIELDS, hints);
    const ts = this.time(record, 'ts', undefined, at);
    const context = record.context as JsonObject | undefined;
    const rest = splitRecord(record, HIGHBAR_KEY_ORDER_BY_TYPE.get(type)!);
    switch (type) {
      case 'tool': {
        const startedAt = this.time(record, 'started_at', ts, at);
        const endedAt = this.time(record, 'ended_at', ts, at);
        const provenance = withHints(provenanceOf(FORMAT, line, offset, rest), hints);
        this.toolPair(record, { ts, startedAt, endedAt, context, provenance }, at);
        return;
      }
      case 'turn': {
        this.openRun(ts, context, at);
        this.runOpen = false;
        const e: AgentEventOf<'run.end'> = {
          type: 'run.end',
          status: 'completed',
          provenance: withHints(provenanceOf(FORMAT, line, offset, rest), hints),
        };
        if (typeof record.message === 'string') e.input = record.message;
        if (typeof record.response === 'string') e.answer = record.response;
        stamp(e, ts, context);
        out.push(e);
        return;
      }
      case 'hello': {
        // A new writer: a run the previous one left open will never get its turn record.
        this.runOpen = false;
        const e: AgentEventOf<'session.start'> = {
          type: 'session.start',
          provenance: withHints(provenanceOf(FORMAT, line, offset, rest), hints),
        };
        if (record.sdk !== undefined) e.producer = record.sdk as string;
        if (record.pid !== undefined) e.pid = record.pid as number;
        if (record.tools !== undefined) e.tools = record.tools as string[];
        stamp(e, ts, context);
        out.push(e);
        return;
      }
      case 'tools': {
        const e: AgentEventOf<'tools.declare'> = {
          type: 'tools.declare',
          tools: record.names as string[],
          provenance: withHints(provenanceOf(FORMAT, line, offset, rest), hints),
        };
        stamp(e, ts, context);
        out.push(e);
        return;
      }
    }
  }

  private toolPair(record: JsonObject, pair: ToolPair, at: LineAt): void {
    const { ts, startedAt, endedAt, context, provenance } = pair;
    this.openRun(ts, context, at);
    const call = `hb-${at.line}`;
    const name = record.fn as string;
    const start: AgentEventOf<'tool.start'> = { type: 'tool.start', call, name, provenance };
    if (record.args !== undefined) start.args = record.args as JsonObject;
    if (startedAt !== undefined) start.startedAt = startedAt;
    stamp(start, ts, context);
    const error = record.error;
    const end: AgentEventOf<'tool.end'> = {
      type: 'tool.end',
      call,
      name,
      ok: !isFailure(error),
      provenance,
    };
    if (Object.hasOwn(record, 'result')) {
      end.result = record.result;
      if (typeof record.result === 'string') end.text = record.result;
    }
    if (Object.hasOwn(record, 'error')) end.error = error;
    if (startedAt !== undefined) end.startedAt = startedAt;
    if (endedAt !== undefined) end.endedAt = endedAt;
    stamp(end, ts, context);
    at.out.push(start, end);
  }
}

function stamp(e: AgentEvent, ts: number | undefined, context: JsonObject | undefined): void {
  if (ts !== undefined) e.ts = ts;
  if (context !== undefined) e.context = context;
}

function withHints(p: Provenance, hints: HighbarHints): Provenance {
  for (const _ in hints) {
    p.hints = hints as Record<string, unknown>;
    break;
  }
  return p;
}
