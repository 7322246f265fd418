import { expect } from 'vitest';
import type { Encoder } from '../src/codec';
import { isAgentwireError } from '../src/diagnostics';
import type { AgentEvent } from '../src/model';

/** What an encoder wrote for a stream, and the messages of the events it refused. */
export interface RefusedWrites {
  text: string;
  refusals: string[];
}

/**
 * `events` through `encoder` one by one, its end included, as a conversion writes them: an event
 * the writer refuses (an AgentwireError) is noted and the next one written. Anything else thrown
 * (a TypeError out of JSON.stringify) fails the caller's test: a refusal is an AgentwireError.
 */
export function writeRefusing(encoder: Encoder, events: readonly AgentEvent[]): RefusedWrites {
  let text = '';
  const refusals: string[] = [];
  for (const event of events) {
    try {
      text += encoder.write(event);
    } catch (error) {
      if (!isAgentwireError(error)) throw error;
      refusals.push(error.diagnostic.message);
    }
  }
  return { text: text + encoder.end(), refusals };
}

/** An object that refers to itself: JSON.stringify throws a TypeError for it. */
export function cycle(): Record<string, unknown> {
  const o: Record<string, unknown> = { a: 1 };
  o.self = o;
  return o;
}

/**
 * The promise of test/fuzz/refusal.test.ts for one stream: `write` refuses `bad` (one refusal,
 * its message matching `why`) and writes the bytes of the stream without it. The dirty writes.
 */
export function expectRefusedAlone(
  write: (events: readonly AgentEvent[]) => RefusedWrites,
  events: readonly AgentEvent[],
  bad: AgentEvent,
  why: RegExp,
): RefusedWrites {
  const dirty = write(events);
  expect(dirty.refusals).toHaveLength(1);
  expect(dirty.refusals[0]).toMatch(why);
  expect(dirty.text).toBe(write(events.filter((e) => e !== bad)).text);
  return dirty;
}

/** What a writer of numbered ids (`id0`, `id1`, …) is made with; diagnostics go nowhere. */
export interface IdOptions {
  idSource: () => string;
  onDiagnostic(): void;
}

/** {@link writeRefusing} with a new encoder from `create` for each stream, its ids numbered. */
export function refusingWriter(
  create: (options: IdOptions) => Encoder,
): (events: readonly AgentEvent[]) => RefusedWrites {
  return (events) => {
    let n = 0;
    return writeRefusing(create({ idSource: () => `id${n++}`, onDiagnostic() {} }), events);
  };
}
