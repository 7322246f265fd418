import type { DiagnosticSink, Format } from './diagnostics';
import type { AgentEvent } from './model';

/**
 * Reports what a writer cannot carry, as `loss` diagnostics naming the field and the event.
 * Each field is reported once per stream (the first event that had it), so a long conversion
 * cannot flood the handler; nothing is dropped without one report.
 */
export class LossReporter {
  private readonly format: Format;
  private readonly sink: DiagnosticSink;
  private readonly seen = new Set<string>();
  // Fields already reported, by event type: a field seen again costs a Set lookup, not the
  // field name built anew for every event of a long conversion.
  private readonly seenByType = new Map<string, Set<string>>();
  // Per event type, the last key list that left nothing to report (for the carried list given).
  private readonly cleanKeys = new Map<string, { keys: string[]; carried: readonly string[] }>();
  private count = 0;

  /** Creates a reporter for writers of `format`. */
  constructor(format: Format, sink: DiagnosticSink) {
    this.format = format;
    this.sink = sink;
  }

  /** Reports every field of `event` that is set and not in `carried`. */
  check(event: AgentEvent, carried: readonly string[]): void {
    this.count++;
    // Events of a type mostly come with the same keys in the same order (one producer's object
    // literal): a key list seen before with nothing left to report needs no second look.
    const keys = Object.keys(event);
    const clean = this.cleanKeys.get(event.type);
    if (clean !== undefined && clean.carried === carried && sameKeys(keys, clean.keys)) return;
    let known = this.seenByType.get(event.type);
    if (known === undefined) this.seenByType.set(event.type, (known = new Set()));
    let settled = true;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (key === 'type' || key === 'provenance') continue;
      if (carried.indexOf(key) !== -1) continue;
      if (known.has(key)) continue;
      // Unset here, but the next event with these keys may set it: look again then.
      if ((event as Record<string, unknown>)[key] === undefined) {
        settled = false;
        continue;
      }
      known.add(key);
      this.report(event, `${event.type}.${key}`, `${this.format} has no place for ${key}`);
    }
    if (settled) this.cleanKeys.set(event.type, { keys, carried });
  }

  /**
   * Reports an `unknown` event that another format read (or that was built by hand): its record
   * has no `what` (`"Cursor line"`) in the format written.
   */
  foreignRecord(event: AgentEvent, what: string): void {
    this.report(
      event,
      'unknown.record',
      `a ${event.provenance?.format ?? 'hand-built'} record has no ${what}`,
    );
  }

  /** Reports one loss (once per `field`). */
  report(event: AgentEvent, field: string, why: string): void {
    if (this.seen.has(field)) return;
    this.seen.add(field);
    const where =
      event.provenance === undefined
        ? `event ${this.count}`
        : `${event.provenance.format} line ${event.provenance.line}`;
    this.sink.report({
      code: 'loss',
      severity: 'warning',
      message: `${field} (${where}): ${why}; later events with this field are not reported again`,
      format: this.format,
      field,
    });
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
