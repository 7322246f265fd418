import type { DecodeOptions, RecordDecoder } from '../../codec';
import { type DiagnosticSink, type LineReport, lineReporter } from '../../diagnostics';
import {
  DEPTH_PRECHECK_CHARS,
  isJsonObject,
  isTooDeep,
  type JsonObject,
  parseJsonLine,
  resolveMaxDepth,
  setOwn,
  unsafeNumberMessage,
} from '../../json';
import type { AgentEvent, AgentEventOf, Provenance } from '../../model';
import { provenanceOf, splitRecord } from '../../record';
import { pyFloat } from './pyjson';
import {
  HIGHBAR,
  HIGHBAR_KEY_ORDER_BY_TYPE,
  HIGHBAR_V0_FIELDS,
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
  // The current line.
  private text = '';
  private readonly at: LineAt = { line: 0, offset: 0, hints: {}, out: [] };

  /** Creates a decoder that reports to `sink`. */
  constructor(options: HighbarDecodeOptions, sink: DiagnosticSink) {
    this.sink = sink;
    this.report = lineReporter(sink, FORMAT);
    this.maxDepth = resolveMaxDepth(options.maxDepth);
  }

  line(text: string, line: number, offset: number, out: AgentEvent[], _bytes?: number): void {
    // Long lines have their depth measured before JSON.parse sees them (a deep line costs
    // JSON.parse time per level); shorter ones are parsed first and measured on the value, in
    // the walk that looks for integers JSON.parse rounded. A line that fails either way gets its
    // diagnostic from the checked parse.
    let record: unknown;
    let refused = text.length > DEPTH_PRECHECK_CHARS && isTooDeep(text, this.maxDepth);
    let numbers = VALUE_PLAIN;
    if (!refused) {
      try {
        record = JSON.parse(text);
        numbers = valueCheck(record, 1, this.maxDepth);
        if (numbers === VALUE_TOO_DEEP) refused = true;
      } catch {
        refused = true;
      }
    }
    if (refused) {
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
      numbers = VALUE_UNSAFE; // not walked: let the text say
    }
    // The line itself is what the writer needs to give it back byte for byte: it decides there,
    // when (and only if) the line is written, whether its own text is the line (docs/protocols/
    // highbar.md, "Byte-exact"). Deciding here cost every line a walk of its text.
    const hints: HighbarHints = { raw: text };
    const at = this.at;
    at.line = line;
    at.offset = offset;
    at.hints = hints;
    at.out = out;
    this.text = text;
    if (numbers === VALUE_UNSAFE) this.checkIntegers(text, line, offset);
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

  // JSON.parse rounds integers past 2^53; the policy is to say so, never to round silently.
  private checkIntegers(text: string, line: number, offset: number): void {
    const message = unsafeNumberMessage(text);
    if (message !== undefined) this.report('invalid_record', 'error', line, offset, message);
  }

  private unknown(record: unknown, type: unknown, at: LineAt): AgentEventOf<'unknown'> {
    const { line, offset, hints } = at;
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
    // An integral value written as an integer (Python's `int`, not `1.0`; in the range where
    // Python's `json.dumps` and `pyNumber` print integers) keeps that spelling: an edited event is
    // written from the model, with the integer still an integer.
    if (Number.isInteger(value) && Math.abs(value) < 1e16 && spelledAsInteger(this.text, key, value)) {
      hints[key] = String(value);
    } else if (ms / 1000 !== value) hints[key] = pyFloat(value);
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

const VALUE_PLAIN = 0;
const VALUE_UNSAFE = 1;
const VALUE_TOO_DEEP = 2;

// One walk of a parsed value (containers and numbers only; no allocation but Object.keys): nesting
// deeper than `max` (outermost container = 1), else whether a number may have been rounded by
// JSON.parse (an integer past 2^53, or a non-finite one).
function valueCheck(value: unknown, depth: number, max: number): number {
  if (typeof value === 'number') {
    return Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))
      ? VALUE_PLAIN
      : VALUE_UNSAFE;
  }
  if (typeof value !== 'object' || value === null) return VALUE_PLAIN;
  if (depth > max) return VALUE_TOO_DEEP;
  let verdict = VALUE_PLAIN;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item !== 'object' && typeof item !== 'number') continue;
      const v = valueCheck(item, depth + 1, max);
      if (v === VALUE_TOO_DEEP) return v;
      if (v === VALUE_UNSAFE) verdict = v;
    }
    return verdict;
  }
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const item = (value as Record<string, unknown>)[keys[i]!];
    if (typeof item !== 'object' && typeof item !== 'number') continue;
    const v = valueCheck(item, depth + 1, max);
    if (v === VALUE_TOO_DEEP) return v;
    if (v === VALUE_UNSAFE) verdict = v;
  }
  return verdict;
}

// True when the line spells the top-level `key` as the integer `value` (Python's separators).
function spelledAsInteger(text: string, key: string, value: number): boolean {
  const head = `"${key}": ${value}`;
  const at = text.indexOf(head);
  if (at === -1) return false;
  const next = text.charCodeAt(at + head.length);
  return next === 44 || next === 125;
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
