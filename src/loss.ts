import type { DiagnosticSink, Format } from './diagnostics';
import type { AgentEvent } from './model';

/**
 * The state of a loss reporter, in one literal ({@link newLoss}): what {@link LossReporter} holds,
 * for writers whose per-event code should read no class instance (a literal's hidden class
 * outlives a full GC; docs/performance.md, "Codex writer").
 */
export interface LossState {
  readonly format: Format;
  readonly sink: DiagnosticSink;
  readonly seen: Set<string>;
  // Fields already reported, by event type: a field seen again costs a Set lookup, not the
  // field name built anew for every event of a long conversion.
  readonly seenByType: Map<string, Set<string>>;
  // Per event type, the last key list that left nothing to report (for the carried list given).
  readonly cleanKeys: Map<string, CleanKeys>;
  // The last event type looked up in `cleanKeys` and its entry: a writer's events mostly come in
  // runs of one type (a message's deltas), which then skip the map.
  lastType: string | undefined;
  lastClean: CleanKeys | undefined;
  count: number;
}

/** A key list that left nothing to report, for the carried list it was checked against. */
interface CleanKeys {
  readonly keys: string[];
  readonly carried: readonly string[];
}

/** A loss reporter's state for writers of `format` reporting to `sink`. */
export function newLoss(format: Format, sink: DiagnosticSink): LossState {
  return {
    format,
    sink,
    seen: new Set(),
    seenByType: new Map(),
    cleanKeys: new Map(),
    lastType: undefined,
    lastClean: undefined,
    count: 0,
  };
}

/** Reports every field of `event` that is set and not in `carried` ({@link LossReporter.check}). */
export function checkLoss(s: LossState, event: AgentEvent, carried: readonly string[]): void {
  s.count++;
  // Events of a type mostly come with the same keys in the same order (one producer's object
  // literal): a key list seen before with nothing left to report needs no second look.
  const type = event.type;
  const clean = type === s.lastType ? s.lastClean : s.cleanKeys.get(type);
  if (
    clean !== undefined &&
    clean.carried === carried &&
    KEYS_IN_PLACE.enabled &&
    keysInPlace(event, clean.keys)
  ) {
    s.lastType = type;
    s.lastClean = clean;
    return;
  }
  const keys = Object.keys(event);
  if (clean !== undefined && clean.carried === carried && sameKeys(keys, clean.keys)) return;
  let known = s.seenByType.get(event.type);
  if (known === undefined) s.seenByType.set(event.type, (known = new Set()));
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
    reportLoss(s, event, `${event.type}.${key}`, `${s.format} has no place for ${key}`);
  }
  if (settled) {
    const entry: CleanKeys = { keys, carried };
    s.cleanKeys.set(type, entry);
    s.lastType = type;
    s.lastClean = entry;
  }
}

/** Reports one loss, once per `field` ({@link LossReporter.report}). */
export function reportLoss(s: LossState, event: AgentEvent, field: string, why: string): void {
  if (s.seen.has(field)) return;
  s.seen.add(field);
  const where =
    event.provenance === undefined
      ? `event ${s.count}`
      : `${event.provenance.format} line ${event.provenance.line}`;
  s.sink.report({
    code: 'loss',
    severity: 'warning',
    message: `${field} (${where}): ${why}; later events with this field are not reported again`,
    format: s.format,
    field,
  });
}

/**
 * Reports `event`'s `key` as lost ({@link reportLoss} of the field `<type>.<key>`), once per event
 * type; once reported, the field's name is not built again (a writer that says the same loss for
 * every event of a type).
 */
export function reportKeyLoss(s: LossState, event: AgentEvent, key: string, why: string): void {
  let known = s.seenByType.get(event.type);
  if (known === undefined) s.seenByType.set(event.type, (known = new Set()));
  if (known.has(key)) return;
  known.add(key);
  reportLoss(s, event, `${event.type}.${key}`, why);
}

/**
 * Reports what a writer cannot carry, as `loss` diagnostics naming the field and the event.
 * Each field is reported once per stream (the first event that had it), so a long conversion
 * cannot flood the handler; nothing is dropped without one report.
 */
export class LossReporter {
  private readonly s: LossState;

  /** Creates a reporter for writers of `format`. */
  constructor(format: Format, sink: DiagnosticSink) {
    this.s = newLoss(format, sink);
  }

  /** Reports every field of `event` that is set and not in `carried`. */
  check(event: AgentEvent, carried: readonly string[]): void {
    checkLoss(this.s, event, carried);
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
    reportLoss(this.s, event, field, why);
  }
}

/**
 * Whether {@link checkLoss} compares an event's keys with the last clean key list of its type
 * by enumerating them in place (`for…in`, no array) before it takes `Object.keys`. Off, only the
 * array compare runs; test/loss.test.ts holds the two equal.
 */
export const KEYS_IN_PLACE: { enabled: boolean } = { enabled: true };

// Whether `for…in` of `o` gives exactly `keys`, in order. It gives the own enumerable keys first,
// then inherited ones: a match means every own key is one of `keys`, all of which were settled
// (carried, or reported already), so the general look would report nothing either.
function keysInPlace(o: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const k in o) {
    if (k !== keys[i]) return false;
    i++;
  }
  return i === keys.length;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
