// Pieces the JSON Lines agent codecs (Amp, Copilot) share: reading one record per line with the
// bounds applied, writing JSON a caller handed in, totalling usage, and the checkers' findings.

import {
  AgentwireError,
  type Diagnostic,
  type DiagnosticSink,
  diagnosticAt,
  type Format,
} from './diagnostics';
import {
  assertEncodable,
  DEPTH_PRECHECK_CHARS,
  isJsonObject,
  isTooDeep,
  type JsonObject,
  NOT_PARSED,
  nestingTooDeep,
  parseRecordText,
  unsafeNumberMessage,
} from './json';
import type { AgentEvent, ModelUsage } from './model';

/** Where {@link readObjectLine} reports and how deep a record may nest. */
export interface LineReader {
  format: Format;
  sink: DiagnosticSink;
  maxDepth: number;
}

/**
 * One line as a JSON object, or `undefined` after reporting why not: a blank line (a warning),
 * nesting deeper than `maxDepth` (measured before `JSON.parse`, by a bracket count), invalid JSON,
 * or a value that is not an object. Never throws (except through a strict sink).
 */
export function readObjectLine(
  reader: LineReader,
  text: string,
  line: number,
  offset: number,
): JsonObject | undefined {
  const { format, sink, maxDepth } = reader;
  if (text.trim().length === 0) {
    sink.report(
      diagnosticAt(
        'invalid_json',
        'warning',
        line,
        offset,
        'an empty line (the stream has none); skipped',
        format,
      ),
    );
    return undefined;
  }
  // Short lines are measured too: a bracket count with indexOf, before JSON.parse builds anything.
  if (text.length <= DEPTH_PRECHECK_CHARS && isTooDeep(text, maxDepth)) {
    sink.report(nestingTooDeep(line, offset, maxDepth, format));
    return undefined;
  }
  const record = parseRecordText(text, line, offset, maxDepth, format, sink);
  if (record === NOT_PARSED) return undefined;
  if (!isJsonObject(record)) {
    sink.report(diagnosticAt('invalid_json', 'error', line, offset, 'not a JSON object', format));
    return undefined;
  }
  return record;
}

/** Reports a number in `text` that `JSON.parse` could not keep exactly (records without a schema). */
export function reportUnsafeNumbers(reader: LineReader, text: string, line: number, offset: number): void {
  const message = unsafeNumberMessage(text);
  if (message !== undefined)
    reader.sink.report(diagnosticAt('invalid_record', 'error', line, offset, message, reader.format));
}

/** `AgentwireError` (`unencodable`) for a value a writer cannot put out. */
export function unencodable(message: string, format: Format): never {
  throw new AgentwireError({ code: 'unencodable', severity: 'error', message, format });
}

/** JSON text of a value handed to a writer; what JSON cannot hold is an `AgentwireError` naming `field`. */
export function writeJson(value: unknown, field: string, format: Format): string {
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text;
  } catch {
    // assertEncodable below names the path of the value that cannot be written
  }
  assertEncodable(value, field, undefined, format);
  return unencodable(`${field}: the value cannot be written as JSON`, format);
}

/** `n` when it is absent or finite; a count JSON cannot hold is an `AgentwireError`. */
export function finiteCount(n: number | undefined, field: string, format: Format): number | undefined {
  if (n !== undefined && !Number.isFinite(n))
    unencodable(`${field}: ${n} is not a finite number; JSON cannot hold it`, format);
  return n;
}

const COUNTS = ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'] as const;

/** Adds the token counts of `u` into `total` (created when absent) and returns it. */
export function addCounts<T extends ModelUsage>(total: T | undefined, u: ModelUsage): T {
  const t = total ?? ({} as T);
  for (const k of COUNTS) if (u[k] !== undefined) t[k] = (t[k] ?? 0) + u[k];
  return t;
}

/**
 * A checker's finding about a decoded event: an `order` diagnostic at the event's line, pushed
 * onto `out`.
 */
export function orderFindings(
  format: Format,
  out: Diagnostic[],
): (e: AgentEvent, severity: Diagnostic['severity'], message: string) => void {
  return (e, severity, message) => {
    const p = e.provenance;
    const d: Diagnostic = { code: 'order', severity, message, format };
    if (p !== undefined) {
      d.message = `line ${p.line} (byte ${p.offset}): ${message}`;
      d.line = p.line;
      d.offset = p.offset;
    }
    out.push(d);
  };
}

/** The JSON object `record[key]`, or `undefined`. */
export function objectAt(record: JsonObject | undefined, key: string): JsonObject | undefined {
  const v = record?.[key];
  return isJsonObject(v) ? v : undefined;
}

/** An event being built by a decoder: its type, and fields set as the record gives them. */
export type EventDraft = { type: AgentEvent['type'] } & Record<string, unknown>;

/** `v` when it is a number, else `undefined`. */
export function numberOr(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}
