import { type ConvertOptions, encodeOptionsFor, endOrReport, writeOrReport } from '../../src/convert-stream';
import type { Diagnostic, Format } from '../../src/diagnostics';
import { codecFor } from '../../src/formats/index';
import type { AgentEvent } from '../../src/model';

/** What a writer wrote for a stream, and every diagnostic it reported. */
export interface Written {
  output: string;
  diagnostics: Diagnostic[];
}

/**
 * `events` through `to`'s writer as a conversion from `from` writes them (src/convert-stream.ts:
 * event by event, a refusal reported and the next event written), with a fixed clock and numbered
 * ids. `from` the writer's own format: no conversion defaults (a library user's own events).
 */
export function writeAsConversion(from: Format, to: Format, events: readonly AgentEvent[]): Written {
  const diagnostics: Diagnostic[] = [];
  const report = (d: Diagnostic) => diagnostics.push(d);
  let id = 0;
  const options: ConvertOptions = { to, clock: () => 1_767_225_600_000, idSource: () => `id${id++}` };
  const encoder = codecFor(to)!.createEncoder(encodeOptionsFor(from, options, report));
  const ctx = { to, report, strict: false };
  let output = '';
  for (const e of events) output += writeOrReport(encoder, e, ctx);
  output += endOrReport(encoder, ctx);
  return { output, diagnostics };
}
