import { expect } from 'vitest';
import type { Codec, Encoder } from '../src/codec';
import { type Diagnostic, isAgentwireError } from '../src/diagnostics';
import { codecs } from '../src/formats/index';
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
 * `before` is told each event's index before its write (what a diagnostic handler files it under).
 */
export function writeRefusing(
  encoder: Encoder,
  events: readonly AgentEvent[],
  before?: (index: number) => void,
): RefusedWrites {
  let text = '';
  const refusals: string[] = [];
  for (const [i, event] of events.entries()) {
    before?.(i);
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

/** {@link RefusedWrites} and the losses reported, each with the index of the event whose write reported it. */
export interface RefusedWritesAndLosses extends RefusedWrites {
  losses: Array<[number, Diagnostic]>;
}

/**
 * {@link writeRefusing} with a new encoder from `create` (handed the diagnostic handler), the
 * losses it reports filed under the event whose write reported them.
 */
export function writeNotingLosses(
  create: (onDiagnostic: (d: Diagnostic) => void) => Encoder,
  events: readonly AgentEvent[],
): RefusedWritesAndLosses {
  const losses: Array<[number, Diagnostic]> = [];
  let at = 0;
  const e = create((d) => {
    if (d.code === 'loss') losses.push([at, d]);
  });
  const written = writeRefusing(e, events, (i) => {
    at = i;
  });
  return { ...written, losses };
}

/** The numbers JSON cannot hold that `JSON.stringify` writes as `null`, each with its name. */
export const NON_FINITE: ReadonlyArray<readonly [name: string, value: number]> = [
  ['Infinity', Number.POSITIVE_INFINITY],
  ['NaN', Number.NaN],
];

/** The message a writer refuses the NON_FINITE number `name` at `path` (a RegExp source) with. */
export function nonFiniteRefusal(path: string, name: string): RegExp {
  return new RegExp(`^${path}: ${name} is not a finite number; JSON cannot hold it$`);
}

/**
 * {@link refusingWriter} of `format`'s writer, a fixed clock (and `options`, e.g. a mode): the
 * writer of the refused-alone cases (test/hostile/refused-alone-*.test.ts).
 */
export function formatWriter(
  format: string,
  options: object = {},
): (events: readonly AgentEvent[]) => RefusedWrites {
  const codec = (codecs as Record<string, Codec | undefined>)[format]!;
  return refusingWriter((ids) =>
    codec.createEncoder({ ...ids, clock: () => 1_767_225_600_000, ...options } as Parameters<
      Codec['createEncoder']
    >[0]),
  );
}

/** A value of a shape the model's types do not allow (an event built by hand from JSON). */
export const wrong = <T>(v: unknown) => v as T;
