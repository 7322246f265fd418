import type { DiagnosticSink, Format, LineReport } from '../diagnostics';
import type { JsonFraming } from '../framing/json-stream';
import { missingString } from '../guards';
import { isJsonObject, type JsonObject, NOT_PARSED, parseMeasuredRecord, readDeltaRecord } from '../json';
import type { LossState } from '../loss';
import type { AgentEvent, Provenance } from '../model';

// How the two UI protocols' decoders (AG-UI events, AI SDK UI message chunks) read a line: the
// same steps in the same order, only the records' words differ. A line spelled as the writers
// spell it is read by a shortcut without parsing it whole (a text delta, then the format's
// canonical lines); anything else is parsed and measured, checked for its type and required
// fields, and mapped. The steps live here once, over the slots both decoders' states begin
// with; what differs is each format's `UiLines` table (its words, its shortcut readers, its
// mapping). The shortcuts stay switchable per format, so test/ui/delta-shortcut.test.ts and
// test/ui/canonical-lines.test.ts still hold each format's shortcuts to its general path.

/** The slots both UI decoders' states begin with, in this order (each format's own follow). */
export type UiDecoderSlots = [
  sink: DiagnosticSink,
  report: LineReport,
  maxDepth: number,
  mode: JsonFraming,
  // A run's opening events, held until a record that is not a carried event from before the run
  // (see `BEFORE_RUN`): those are read as coming first.
  held: AgentEvent[] | undefined,
  // Records with no event of their own, carried by the next event (`hints.before`).
  before: string[],
  lastLine: number,
  lastOffset: number,
];

/** A UI decoder's state as the shared reading sees it: its {@link UiDecoderSlots}, then its own. */
export type UiDecoderHead = [...UiDecoderSlots, ...own: unknown[]];

/** The slot of the diagnostic sink in {@link UiDecoderSlots}. */
export const UI_SINK = 0;
/** The slot of the line reporter. */
export const UI_REPORT = 1;
/** The slot of the greatest depth a record may have. */
export const UI_MAX_DEPTH = 2;
/** The slot of the input's framing. */
export const UI_MODE = 3;
/** The slot of the run's held opening events. */
export const UI_HELD = 4;
/** The slot of the records held for the next event. */
export const UI_BEFORE = 5;
/** The slot of the last record's line. */
export const UI_LAST_LINE = 6;
/** The slot of the last record's offset. */
export const UI_LAST_OFFSET = 7;

/** Most records without an event of their own held for the next event. */
const MAX_BEFORE = 64;

/** A record being mapped: the record, where it was read, and its provenance. */
export interface UiCx {
  /** The record. */
  r: JsonObject;
  /** Its line. */
  line: number;
  /** Its offset. */
  offset: number;
  /** The provenance its events take (hints: its text, the record, the framing). */
  provenance: Provenance;
  /** The input's framing. */
  framing: JsonFraming;
}

/** What a UI protocol's decoder tells the shared line reading ({@link readUiLine}). */
export interface UiLines<D extends UiDecoderHead> {
  /** The format, as the provenance and the diagnostics say it. */
  format: Format;
  /** What the protocol calls a record in a refusal (`invalid <type> <word>: …`). */
  word: string;
  /** The switch of the decoder's shortcuts (tests turn it off; nothing else should). */
  shortcuts: { enabled: boolean };
  /** The head of a text delta line as the writer spells it, up to its id. */
  deltaHead: string;
  /** The text delta record's type. */
  deltaType: string;
  /** The key of the text delta's id. */
  deltaId: string;
  /** The text delta record as `JSON.parse` gives it, in one literal of the format's module. */
  deltaRecord: (id: string, delta: unknown) => JsonObject;
  /** The depth of the deepest record {@link UiLines.readCanonical} reads. */
  canonicalDepth: number;
  /** The format's other canonical lines read without parsing them whole, else `undefined`. */
  readCanonical: (text: string, maxDepth: number) => JsonObject | undefined;
  /** The record's type as the module's literal, or `undefined` for a type the format lacks. */
  typeOf: (type: unknown) => string | undefined;
  /** The string fields each type requires: a record without them is refused. */
  required: Partial<Record<string, readonly string[]>>;
  /** Whether a parsed record carries an event from before the run (it keeps the held events). */
  isEarly: (value: unknown) => boolean;
  /** Told each parsed record that is an object, before its checks (e.g. its time). */
  seen: ((d: D, value: JsonObject) => void) | undefined;
  /** Maps a record of a known type to its events. */
  map: (d: D, type: string, cx: UiCx, out: AgentEvent[]) => void;
  /** Keeps a record as an `unknown` event. */
  unknown: (d: D, cx: UiCx, out: AgentEvent[]) => void;
}

/**
 * Reads one line of a UI protocol's stream. A line spelled as the writers spell it is read
 * without parsing it whole (the reader measured what can nest); anything else is parsed and
 * measured.
 */
export function readUiLine<D extends UiDecoderHead>(
  d: D,
  p: UiLines<D>,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): void {
  let value: JsonObject | undefined;
  const maxDepth = d[UI_MAX_DEPTH];
  if (p.shortcuts.enabled && maxDepth > 0) {
    value = readDeltaRecord(text, p.deltaHead, p.deltaType, p.deltaId, p.deltaRecord);
    if (value === undefined && maxDepth >= p.canonicalDepth) value = p.readCanonical(text, maxDepth);
  }
  if (value !== undefined)
    knownLine(d, p, value, lineProvenance(d, p.format, text, value, line, offset), out);
  else parsedLine(d, p, text, line, offset, out);
}

// A record a shortcut read: one of the format module's literals, whose hidden classes outlive a
// full GC. It is read at sites no parsed record reaches: a `JSON.parse` record's hidden class dies
// at a full GC, and with it the optimised code of every site that had seen it (docs/performance.md,
// "AG-UI and AI SDK codecs", round fourteen). It has its type (the module's literal), its required
// fields as strings, and no time by construction, and it is never an early one: no lookup,
// required-field, time or early check for it (held by test/ui/delta-shortcut.test.ts and
// test/ui/canonical-lines.test.ts, the shortcuts on and off). A function of its own, apart from
// `parsedLine` and from `readUiLine`: with its steps inside `readUiLine` the AG-UI decoder
// measured slower in both load orders.
function knownLine<D extends UiDecoderHead>(
  d: D,
  p: UiLines<D>,
  value: JsonObject,
  provenance: Provenance & { line: number; offset: number },
  out: AgentEvent[],
): void {
  if (d[UI_HELD] !== undefined) releaseUiHeld(d, out);
  const { line, offset } = provenance;
  p.map(d, value.type as string, { r: value, line, offset, provenance, framing: d[UI_MODE] }, out);
}

// A record `JSON.parse` read: checked for its type and required fields, then mapped.
function parsedLine<D extends UiDecoderHead>(
  d: D,
  p: UiLines<D>,
  text: string,
  line: number,
  offset: number,
  out: AgentEvent[],
): void {
  const value = parseMeasuredRecord(text, line, offset, d[UI_MAX_DEPTH], p.format, d[UI_SINK]);
  if (value === NOT_PARSED) return;
  if (d[UI_HELD] !== undefined && !p.isEarly(value)) releaseUiHeld(d, out);
  const provenance = lineProvenance(d, p.format, text, value, line, offset);
  if (!isJsonObject(value)) {
    d[UI_REPORT]('invalid_json', 'error', line, offset, 'not a JSON object; kept as an unknown event');
    out.push({ type: 'unknown', record: value, provenance });
    return;
  }
  const cx: UiCx = { r: value, line, offset, provenance, framing: d[UI_MODE] };
  // The type as the module's literal: the checks and the mapping then match it by identity.
  const type = p.typeOf(value.type);
  if (p.seen !== undefined) p.seen(d, value);
  const fields = type !== undefined ? p.required[type] : undefined;
  const problem = fields !== undefined ? missingString(value, fields) : undefined;
  if (type === undefined || problem !== undefined) {
    if (problem !== undefined)
      d[UI_REPORT]('invalid_record', 'error', line, offset, `invalid ${type} ${p.word}: ${problem}`);
    p.unknown(d, cx, out);
    return;
  }
  p.map(d, type, cx, out);
}

/** Tells a UI decoder's state the input's framing (what its hints then say). */
export function setUiFraming(d: UiDecoderHead, framing: JsonFraming): void {
  d[UI_MODE] = framing;
}

/** A line's provenance (its hints: the text, the record, the framing); the line is now the last. */
function lineProvenance(
  d: UiDecoderHead,
  format: Format,
  raw: string,
  record: unknown,
  line: number,
  offset: number,
): Provenance & { line: number; offset: number } {
  const hints = { raw, record, framing: d[UI_MODE] };
  d[UI_LAST_LINE] = line;
  d[UI_LAST_OFFSET] = offset;
  return { format, line, offset, hints: hints as Record<string, unknown> };
}

/** Puts the run's held opening events out, in their order (nothing when none are held). */
export function releaseUiHeld(d: UiDecoderHead, out: AgentEvent[]): void {
  const held = d[UI_HELD];
  if (held === undefined) return;
  for (const e of held) out.push(e);
  d[UI_HELD] = undefined;
}

/** Keeps a record that has no event of its own for the next event (false when full). */
export function keepUiRecord(d: UiDecoderHead, cx: UiCx): boolean {
  if (d[UI_BEFORE].length >= MAX_BEFORE) return false;
  d[UI_BEFORE].push(cx.provenance.hints!.raw as string);
  return true;
}

/**
 * At the stream's end: the held opening events, then the records no event followed, kept whole
 * as `unknown` events at the last record's place.
 */
export function endUiLines(d: UiDecoderHead, format: Format, out: AgentEvent[]): void {
  releaseUiHeld(d, out);
  if (d[UI_BEFORE].length === 0) return;
  for (const raw of d[UI_BEFORE]) {
    const record = JSON.parse(raw) as JsonObject;
    const hints = { raw, record, framing: d[UI_MODE] };
    out.push({
      type: 'unknown',
      recordType: record.type as string,
      record,
      provenance: {
        format,
        line: d[UI_LAST_LINE],
        offset: d[UI_LAST_OFFSET],
        hints: hints as Record<string, unknown>,
      },
    });
  }
  d[UI_BEFORE] = [];
}

// The two UI protocols' writers (AG-UI, AI SDK) begin their states alike too: the loss
// reporting, the id source, the framing and the id counter, then each format's own slots. The
// ids they make and the framing they fall back to are the same; so are the fields of the events
// both protocols have a slot for (a call's start and end, a message, a text delta, a call's
// argument chunk).

/** The slots both UI writers' states begin with, in this order (each format's own follow). */
export type UiWriterSlots = [
  loss: LossState,
  idSource: (() => string) | undefined,
  framing: JsonFraming | undefined,
  counter: number,
];

/** A UI writer's state as the shared writing sees it: its {@link UiWriterSlots}, then its own. */
export type UiWriterHead = [...UiWriterSlots, ...own: unknown[]];

/** The slot of the loss reporting in {@link UiWriterSlots}. */
export const UI_LOSS = 0;
/** The slot of the caller's id source. */
export const UI_ID_SOURCE = 1;
/** The slot of the framing (the caller's, else the one the events were read in). */
export const UI_FRAMING = 2;
/** The slot of the id counter. */
export const UI_COUNTER = 3;

/** A new id: the caller's source's, else `aw-<n>` counted per writer. */
export function newUiId(w: UiWriterHead): string {
  const source = w[UI_ID_SOURCE];
  return source !== undefined ? source() : `aw-${++w[UI_COUNTER]}`;
}

/** The writer's framing, SSE when neither the caller nor the events said one (then kept). */
export function uiFramingOf(w: UiWriterHead): JsonFraming {
  w[UI_FRAMING] ??= 'sse';
  return w[UI_FRAMING];
}

/**
 * The fields, besides the envelope, of the events both UI protocols carry in their own records
 * (what a writer reports lost is the rest).
 */
export const UI_CARRIED_FIELDS = {
  'message.start': ['role', 'message'],
  'message.end': ['message'],
  'text.delta': ['text', 'message'],
  'tool.args.delta': ['call', 'name', 'text'],
  'tool.start': ['call', 'name', 'kind', 'server', 'args', 'argsSummary', 'command', 'startedAt'],
  'tool.end': [
    'call',
    'name',
    'ok',
    'text',
    'result',
    'error',
    'exitCode',
    'filesChanged',
    'denied',
    'startedAt',
    'endedAt',
  ],
} as const satisfies Partial<Record<AgentEvent['type'], readonly string[]>>;
