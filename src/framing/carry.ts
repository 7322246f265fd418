// Carrying a canonical event whole inside a protocol's extension record (AG-UI `CUSTOM`, an AI
// SDK `data-*` part) when the protocol has no slot of its own for it, and reading it back.

import type { Format } from '../diagnostics';
import { isFiniteNumber, wordLookup } from '../guards';
import { assertEncodable, isJsonObject, type JsonObject, setOwn } from '../json';
import type { AgentEvent, AgentEventType, Usage } from '../model';
import { AGENT_EVENT_TYPES, isAgentEvent } from '../model-guard';
import { HELD_MAX, HELD_TEXTS } from './carry-slots';

/** The prefix of the names under which agentwire carries a canonical event (`agentwire.plan`). */
export const CARRY_PREFIX = 'agentwire.';

// Fields the carrier's own stream states (its thread, run, step, order, time, lane): carried
// again they would contradict the stream they travel in once read back.
const NATIVE: ReadonlySet<string> = new Set([
  'type',
  'provenance',
  'ts',
  'lane',
  'session',
  'workspace',
  'run',
  'round',
  'seq',
]);

/**
 * Canonical events a UI protocol has no place for outside a run (its stream opens with the run,
 * a finished run takes nothing more): the writer holds them and writes them, carried, right after
 * the record that opens the next run; the decoder reads carried events of these types that
 * directly follow that record (before any other record of the run, on no child lane) as coming
 * before the run, as they came. Events of these types said later in the run stay in it.
 */
export const BEFORE_RUN: ReadonlySet<string> = new Set([
  'session.start',
  'session.title',
  'tools.declare',
  'usage',
  'notice',
  'user.message',
  'approval.resolve',
  'question.answer',
]);

/**
 * A writer's records of events its decoder read as before a run (see {@link BEFORE_RUN}): held
 * until the record after them (the run's opening one) is written, then written after it, so the
 * stream comes back as read. Bounded: past `max` held, a record is written where it stands. Two
 * slots ({@link newHeldRecords}) read by module functions, not a literal nor a class: an array's
 * hidden class belongs to the realm and outlives a full GC, a literal's dies with its last object
 * and takes the writer code that read it along (docs/performance.md, "AG-UI writer", round
 * fifteen).
 */
export type HeldRecords = [texts: string[], max: number];

/** Holds at most `max` records. */
export function newHeldRecords(max: number): HeldRecords {
  return [[], max];
}

/** Holds `text`; false when full (the caller writes it now). */
export function holdRecord(h: HeldRecords, text: string): boolean {
  if (h[HELD_TEXTS].length >= h[HELD_MAX]) return false;
  h[HELD_TEXTS].push(text);
  return true;
}

/** `text` followed by the records held, which are then let go. */
export function afterHeld(h: HeldRecords, text: string): string {
  if (h[HELD_TEXTS].length === 0) return text;
  const out = text + h[HELD_TEXTS].join('');
  h[HELD_TEXTS] = [];
  return out;
}

/** The fields of `event` to carry: all but its type, provenance and the carrier's envelope. */
export function carriedValue(event: AgentEvent): JsonObject {
  const value: JsonObject = {};
  for (const key of Object.keys(event)) {
    if (NATIVE.has(key)) continue;
    const v = (event as Record<string, unknown>)[key];
    if (v !== undefined) value[key] = v;
  }
  return value;
}

/**
 * Throws what writing `event` carried would throw (`unencodable`: a value JSON cannot hold), now.
 * A UI protocol's writer holds an event said before a run and writes it after the next run's
 * opening record: refused only then, the refusal would take that run's start, and every event
 * held with it, down with it. Asked before holding, the refusal is the held event's own.
 */
export function assertCarriable(event: AgentEvent, format: Format): void {
  const value = carriedValue(event);
  for (const k of Object.keys(value)) assertEncodable(value[k], `${event.type}.${k}`, undefined, format);
  if (event.ts !== undefined) assertEncodable(event.ts, `${event.type}.ts`, undefined, format);
}

/**
 * A kept carried value with `event`'s fields put back: an edited field reaches the record, the
 * value's keys stay where they were (a value that says the same is the kept line again), and a
 * key the event no longer has is taken out (a field deleted from the event, a redaction, must
 * not come back from the kept value). The carrier's envelope keys (see `NATIVE`) stay as kept:
 * they are not the event's fields.
 */
export function carriedInto(value: unknown, event: AgentEvent): JsonObject {
  const fields = carriedValue(event);
  if (!isJsonObject(value)) return fields;
  const out: JsonObject = { ...value, ...fields };
  // Every key of a kept value the decoder read is a field of its event: only an edit leaves one out.
  for (const key in value) {
    // The frequent key, the event's still, first: one look.
    if (Object.hasOwn(fields, key) || NATIVE.has(key) || !Object.hasOwn(value, key)) continue;
    delete out[key];
  }
  return out;
}

/**
 * True when {@link carriedValue} of `event` is exactly `{"call": string, "text": string}`, keys in
 * that order (a tool output as most streams have it): the writers spell that value without
 * building it. Held to carriedValue by test/ui/writer-shortcuts.test.ts.
 */
export function carriesCallText(event: AgentEvent): boolean {
  const keys = Object.keys(event);
  let n = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (NATIVE.has(key)) continue;
    const v = (event as Record<string, unknown>)[key];
    if (v === undefined) continue;
    if (typeof v !== 'string' || n > 1 || key !== (n === 0 ? 'call' : 'text')) return false;
    n++;
  }
  return n === 2;
}

const agentEventWord = /* @__PURE__ */ wordLookup(AGENT_EVENT_TYPES);

/**
 * The module's own literal of a canonical event type (`undefined` for any other value): an
 * event's `type` read from JSON is a fresh string, and a keyed lookup with it internalises it
 * first; the literal is looked up by identity ({@link wordLookup}).
 */
export function canonicalType(type: unknown): AgentEventType | undefined {
  return agentEventWord(type);
}

/** True when `type` names a canonical event type. */
export function isAgentEventType(type: string): type is AgentEventType {
  return agentEventWord(type) !== undefined;
}

/**
 * A carried `tool.output` (most of what a UI stream carries: every chunk of a call's output) that
 * its schema accepts, checked by hand: the call and text strings, a known stream, and nothing
 * else but the envelope's time and lane. Anything else is for the model's check to decide. Held to the schema
 * by a property (test/ui/carried-guard.test.ts).
 */
export function isPlainToolOutput(candidate: JsonObject): boolean {
  for (const key in candidate) {
    const v = candidate[key];
    switch (key) {
      case 'type':
        if (v !== 'tool.output') return false;
        break;
      case 'call':
      case 'text':
      case 'lane':
        if (typeof v !== 'string') return false;
        break;
      case 'stream':
        if (v !== 'stdout' && v !== 'stderr') return false;
        break;
      case 'ts':
        if (!isFiniteNumber(v)) return false;
        break;
      default:
        return false;
    }
  }
  return typeof candidate.call === 'string' && typeof candidate.text === 'string';
}

/**
 * The `call` and `text` of a carried tool output spelled exactly `{"call": string, "text": string}`
 * (the writers' spelling, keys in that order, nothing else), or `undefined`. The UI decoders build
 * such an output's event whole; anything else takes {@link eventFromCarried}.
 */
export function plainToolOutput(value: unknown): { call: string; text: string } | undefined {
  if (!isJsonObject(value)) return undefined;
  let n = 0;
  for (const key in value) {
    if ((n === 0 && key !== 'call') || (n === 1 && key !== 'text') || n === 2) return undefined;
    n++;
  }
  const { call, text } = value;
  return n === 2 && typeof call === 'string' && typeof text === 'string' ? { call, text } : undefined;
}

/**
 * True for a call's metadata (the writers' `agentwire` object) that gives its `tool.start` an
 * `argsSummary` and none of the other fields the UI decoders read from it (`kind`, `server`,
 * `command`, `startedAt`): the spelling whose event those decoders build whole.
 */
export function isArgsSummaryOnly(meta: JsonObject): boolean {
  return (
    typeof meta.argsSummary === 'string' &&
    typeof meta.kind !== 'string' &&
    typeof meta.server !== 'string' &&
    typeof meta.command !== 'string' &&
    typeof meta.startedAt !== 'number'
  );
}

/** Switch for the hand-written guard beside the model's check (tests turn it off to compare the two). */
export const carriedGuard = { enabled: true };

/**
 * The canonical event a carried value stands for (`type` without the prefix), or `undefined`
 * when it is not a well-formed event of a known type. The value is copied, never merged.
 */
export function eventFromCarried(type: string, value: unknown): AgentEvent | undefined {
  const word = agentEventWord(type);
  if (word === undefined || !isJsonObject(value) || 'provenance' in value) return undefined;
  const candidate: JsonObject = { type: word };
  for (const key of Object.keys(value)) if (key !== 'type') setOwn(candidate, key, value[key]);
  // The frequent carried event is checked by hand; the model's check decides every other one.
  if (carriedGuard.enabled && word === 'tool.output' && isPlainToolOutput(candidate))
    return candidate as AgentEvent;
  return isAgentEvent(candidate) ? (candidate as AgentEvent) : undefined;
}

/**
 * True for a usage that counts nothing: every figure 0 and no model breakdown. Formats that must
 * write a usage write this when they have none, so the UI protocols do not repeat it (a frontend
 * would show "0 tokens" for "not known").
 */
export function isZeroUsage(usage: Usage): boolean {
  if (usage.byModel !== undefined || usage.model !== undefined) return false;
  for (const k of ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning', 'costUsd'] as const) {
    const v = usage[k];
    if (v !== undefined && v !== 0) return false;
  }
  return true;
}
