import { expect } from 'vitest';
import type { AgentEvent, Codec } from '../src/all';

// What the whole-event properties share (test/<format>/whole-events.test.ts): a decoder with its
// whole-event literals switched on or off, pushed in the chunks the property drew, and the checks
// that hold the two paths equal (docs/performance.md, "Round four").

/** What one decoding path gave: the events as JSON text (so key order counts), the rest as text. */
export interface Decoded {
  json: string;
  diagnostics: string;
  written: string;
  events: AgentEvent[];
}

/** A codec with its whole-event switch, and how its written bytes are compared. */
export interface WholeEventsCase {
  codec: Codec;
  whole: { enabled: boolean };
  /** The bytes written back from the events (a writer that draws ids or clocks is given fixed ones). */
  write: (events: AgentEvent[]) => string;
}

/**
 * Decodes `input` with the whole-event literals `whole` (on or off), pushed at the byte offsets
 * `cuts` (taken modulo the input's length, in order); the switch is back on afterwards.
 */
export function decodeWith(c: WholeEventsCase, input: string, whole: boolean, cuts: number[] = []): Decoded {
  c.whole.enabled = whole;
  try {
    const bytes = Buffer.from(input);
    const d = c.codec.createDecoder();
    const events: AgentEvent[] = [];
    let at = 0;
    for (const cut of [...cuts.map((n) => n % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
      events.push(...d.push(bytes.subarray(at, Math.max(at, cut))));
      at = Math.max(at, cut);
    }
    events.push(...d.end());
    const diagnostics = JSON.stringify(c.codec.parse(input).diagnostics);
    c.whole.enabled = true;
    return { json: JSON.stringify(events), diagnostics, written: c.write(events), events };
  } finally {
    c.whole.enabled = true;
  }
}

// Own properties whose value is `undefined`, anywhere in `value` (the public shape has none).
function collectUndefined(value: unknown, path: string, found: string[]): void {
  if (typeof value !== 'object' || value === null) return;
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) found.push(`${path}.${k}`);
    else collectUndefined(v, `${path}.${k}`, found);
  }
}

/** Every own property set to `undefined`, at any depth, as `type.path`. */
export function undefinedFields(events: readonly AgentEvent[]): string[] {
  const found: string[] = [];
  for (const e of events) collectUndefined(e, e.type, found);
  return found;
}

/**
 * The property's check: the general path (switch off, one chunk) and the whole literals (switch
 * on, chunked at `cuts`) give the same events, diagnostics and bytes, and no own `undefined`.
 */
export function expectSamePaths(c: WholeEventsCase, input: string, cuts: number[]): void {
  const general = decodeWith(c, input, false);
  const whole = decodeWith(c, input, true, cuts);
  expect(whole.json).toBe(general.json);
  expect(whole.diagnostics).toBe(general.diagnostics);
  expect(whole.written).toBe(general.written);
  expect(undefinedFields(whole.events)).toEqual([]);
}
