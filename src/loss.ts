import type { DiagnosticSink, Format } from './diagnostics';
import { CLEAN, COUNT, FORMAT, LAST_CLEAN, LAST_TYPE, SEEN, SEEN_BY_TYPE, SINK } from './loss-slots';
import type { AgentEvent } from './model';
import { aOr } from './words';

/**
 * The state of a loss reporter ({@link newLoss}): what {@link LossReporter} holds, for writers
 * whose per-event code should read no class instance. An array of slots (the `LOSS_` indices),
 * not a literal: an array's hidden class belongs to the realm and outlives every GC, where a
 * literal's, made before its factory has an allocation site, dies with the last reporter and
 * takes the per-event code that checked it along (docs/performance.md, "Codex writer").
 */
export type LossState = [
  format: Format,
  sink: DiagnosticSink,
  seen: Set<string>,
  // Fields already reported, by event type: a field seen again costs a Set lookup, not the
  // field name built anew for every event of a long conversion.
  seenByType: Map<string, Set<string>>,
  // Per event type, the last key list that left nothing to report and the carried list it was
  // checked against (a pair as an array, for the reason the state is one).
  clean: Map<string, CleanKeys>,
  // The last event type looked up in `clean` and its entry: a writer's events mostly come in
  // runs of one type (a message's deltas), which then skip the map.
  lastType: string | undefined,
  lastClean: CleanKeys | undefined,
  count: number,
];

/** A key list that left nothing to report, and the carried list it was checked against. */
type CleanKeys = [keys: string[], carried: readonly string[]];

/** A loss reporter's state for writers of `format` reporting to `sink`. */
export function newLoss(format: Format, sink: DiagnosticSink): LossState {
  return [format, sink, new Set(), new Map(), new Map(), undefined, undefined, 0];
}

/** Reports every field of `event` that is set and not in `carried` ({@link LossReporter.check}). */
export function checkLoss(s: LossState, event: AgentEvent, carried: readonly string[]): void {
  s[COUNT]++;
  // Events of a type mostly come with the same keys in the same order (one producer's object
  // literal): a key list seen before with nothing left to report needs no second look.
  const type = event.type;
  const clean = type === s[LAST_TYPE] ? s[LAST_CLEAN] : s[CLEAN].get(type);
  if (clean !== undefined && clean[1] === carried && KEYS_IN_PLACE.enabled && keysInPlace(event, clean[0])) {
    s[LAST_TYPE] = type;
    s[LAST_CLEAN] = clean;
    return;
  }
  const keys = Object.keys(event);
  if (clean !== undefined && clean[1] === carried && sameKeys(keys, clean[0])) return;
  let known = s[SEEN_BY_TYPE].get(type);
  if (known === undefined) s[SEEN_BY_TYPE].set(type, (known = new Set()));
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
    reportLoss(s, event, `${type}.${key}`, `${s[FORMAT]} has no place for ${key}`);
  }
  if (settled) {
    const entry: CleanKeys = [keys, carried];
    s[CLEAN].set(type, entry);
    s[LAST_TYPE] = type;
    s[LAST_CLEAN] = entry;
  }
}

/** Whether `field` was reported already: a writer skips building a report's words then. */
export function lossReported(s: LossState, field: string): boolean {
  return s[SEEN].has(field);
}

/** How many events {@link checkLoss} has looked at (the event number a report names). */
export function lossCount(s: LossState): number {
  return s[COUNT];
}

/** Reports one loss, once per `field` ({@link LossReporter.report}). */
export function reportLoss(s: LossState, event: AgentEvent, field: string, why: string): void {
  if (s[SEEN].has(field)) return;
  sendLoss(s, event, field, why);
}

// The report itself, once per field and stream, in a function of its own: a writer that asks
// for the same loss at every event (the Copilot writer's cost) has `reportLoss` inlined into
// its optimised code, and the sink's `report` (a closure made per stream) would be embedded there
// as the call target, to die with the stream and take that code along. A call this rare is not
// inlined, so the code embeds only this function.
function sendLoss(s: LossState, event: AgentEvent, field: string, why: string): void {
  s[SEEN].add(field);
  const where =
    event.provenance === undefined
      ? `event ${s[COUNT]}`
      : `${event.provenance.format} line ${event.provenance.line}`;
  s[SINK].report({
    code: 'loss',
    severity: 'warning',
    message: `${field} (${where}): ${why}; later events with this field are not reported again`,
    format: s[FORMAT],
    field,
  });
}

/**
 * Reports `event`'s `key` as lost ({@link reportLoss} of the field `<type>.<key>`), once per event
 * type; once reported, the field's name is not built again (a writer that says the same loss for
 * every event of a type).
 */
export function reportKeyLoss(s: LossState, event: AgentEvent, key: string, why: string): void {
  let known = s[SEEN_BY_TYPE].get(event.type);
  if (known === undefined) s[SEEN_BY_TYPE].set(event.type, (known = new Set()));
  if (known.has(key)) return;
  known.add(key);
  reportLoss(s, event, `${event.type}.${key}`, why);
}

/** {@link LossReporter.foreignRecord} on a loss state. */
export function reportForeignRecord(s: LossState, event: AgentEvent, what: string): void {
  reportLoss(
    s,
    event,
    'unknown.record',
    `${aOr(event.provenance?.format ?? 'hand-built')} record has no ${what}`,
  );
}

/**
 * For a writer of records that carry a tool call's arguments (Cursor, OpenCode), on an event of
 * another format: every field of `event` its record has no place for reported lost, by
 * `carried` (the type's fields), or for a `tool.start` with arguments by `withArgs` (those and
 * `argsSummary`, which the arguments written stand for). One check for both writers, so that
 * they report the same fields alike.
 */
export function checkCarried(
  loss: LossReporter,
  event: AgentEvent,
  carried: readonly string[],
  withArgs: readonly string[],
): void {
  loss.check(event, event.type === 'tool.start' && event.args !== undefined ? withArgs : carried);
}

/**
 * For a writer that writes an `unknown` event of its own format back as the record it holds
 * (Cursor, OpenCode): true for such an event (`own`); for another format's, or a hand-built one,
 * false, its record reported lost ({@link LossReporter.foreignRecord}; `what` names the writer's
 * record, `"Cursor line"`). One answer for both, so that they drop and report alike.
 */
export function writesOwnRecord(loss: LossReporter, event: AgentEvent, own: boolean, what: string): boolean {
  if (!own) loss.foreignRecord(event, what);
  return own;
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
    reportForeignRecord(this.s, event, what);
  }

  /** Reports one loss (once per `field`). */
  report(event: AgentEvent, field: string, why: string): void {
    reportLoss(this.s, event, field, why);
  }

  /** The state behind this reporter, for the function helpers that take one (`run-span.ts`). */
  get state(): LossState {
    return this.s;
  }
}

/**
 * Whether {@link checkLoss} compares an event's keys with the last clean key list of its type
 * by enumerating them in place (`for…in`, no array) before it takes `Object.keys`. Off, only the
 * array compare runs; test/loss.test.ts holds the two equal.
 */
export const KEYS_IN_PLACE: { enabled: boolean } = { enabled: true };

/**
 * Whether `for…in` of `o` gives exactly `keys`, in order. It gives the own enumerable keys first,
 * then inherited ones: a match means `o`'s own enumerable keys are `keys`, in that order, and no
 * inherited one shows. Here, every key was settled (carried, or reported already), so the general
 * look would report nothing either; a writer also asks it whether `JSON.stringify` of an object it
 * built writes those keys alone (none an integer index).
 */
export function keysInPlace(o: object, keys: readonly string[]): boolean {
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
