import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Codec, Encoder } from '../../src/codec';
import { isAgentwireError } from '../../src/diagnostics';
import { codecs } from '../../src/formats/index';
import type { AgentEvent } from '../../src/model';
import { type RefusedWrites, refusingWriter, writeRefusing } from '../refused-writes';

// What the sweeps of hand-built events spoiled one field at a time share (wrong-type.test.ts,
// missing-field.test.ts): every fixture's golden events, every writer, a path into an event.

const FIXTURES = join(__dirname, '../../fixtures');

/** Fields that hold any JSON value (arguments, results, a kept record), and the provenance. */
export const FREE: ReadonlySet<string> = new Set([
  'provenance',
  'context',
  'args',
  'result',
  'error',
  'answers',
  'data',
  'record',
]);

/** Where a value sits in an event: keys and indices from its root. */
export type Path = ReadonlyArray<string | number>;

/** Kept wire facts of the provenance: any JSON, as a writer's own decoder made it. */
const KEPT = new Set(['extra', 'hints', 'order']);

/**
 * The paths of every property of `value` (an event), outside the values of the fields in FREE
 * (the provenance's own fields listed, its kept wire facts not entered).
 */
export function propertyPaths(value: unknown, path: Path, out: Path[]): Path[] {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) propertyPaths(value[i], [...path, i], out);
  } else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) {
      out.push([...path, k]);
      if (path.length === 0 && k === 'provenance') {
        for (const p of Object.keys(v as object)) if (!KEPT.has(p)) out.push([k, p]);
      } else if (!(path.length === 0 && FREE.has(k))) propertyPaths(v, [...path, k], out);
    }
  return out;
}

/** `value` with the value at `path` replaced by `v` (copies along the path only). */
export function withAt(value: unknown, path: Path, v: unknown): unknown {
  if (path.length === 0) return v;
  const [k, ...rest] = path;
  if (Array.isArray(value)) return value.map((x, i) => (i === k ? withAt(x, rest, v) : x));
  const o = value as Record<string, unknown>;
  return { ...o, [k!]: withAt(o[k!], rest, v) };
}

/** Every fixture's golden (its file as `<format>/<name>`) and its events. */
export const goldens: ReadonlyArray<readonly [string, AgentEvent[]]> = readdirSync(FIXTURES).flatMap((dir) =>
  readdirSync(join(FIXTURES, dir))
    .filter((f) => f.endsWith('.golden.json'))
    .map((f) => {
      const golden = JSON.parse(readFileSync(join(FIXTURES, dir, f), 'utf8')) as { events: AgentEvent[] };
      return [`${dir}/${f}`, golden.events] as const;
    }),
);

/** Every codec of this build (each has a writer). */
export const writers: readonly Codec[] = Object.values(codecs).filter((c): c is Codec => c !== undefined);

function encoderOf(codec: Codec) {
  return (options: Parameters<Parameters<typeof refusingWriter>[0]>[0]) =>
    codec.createEncoder({ ...options, clock: () => 1_767_225_600_000 } as Parameters<
      Codec['createEncoder']
    >[0]);
}

/** The writes of `events` (ids numbered, a fixed clock), or what was thrown that is no AgentwireError. */
export function writer(codec: Codec): (events: readonly AgentEvent[]) => RefusedWrites {
  return refusingWriter(encoderOf(codec));
}

/** {@link RefusedWrites} and the indices of the events the writer refused. */
export interface RefusedAt extends RefusedWrites {
  refused: number[];
}

/** {@link writer} that notes which events it refused. */
export function writerNotingRefused(
  codec: Codec,
  options: object = {},
): (events: readonly AgentEvent[]) => RefusedAt {
  const create = encoderOf(codec);
  return (events) => {
    let n = 0;
    let at = -1;
    const refused: number[] = [];
    const encoder = create({ idSource: () => `id${n++}`, onDiagnostic() {}, ...options });
    const noting: Encoder = {
      write(event) {
        try {
          return encoder.write(event);
        } catch (error) {
          refused.push(at);
          throw error;
        }
      },
      end: () => encoder.end(),
    };
    const written = writeRefusing(noting, events, (i) => {
      at = i;
    });
    return { ...written, refused };
  };
}

/** `write(events)`, or what it threw that is no AgentwireError (an AgentwireError is rethrown). */
export function thrownBy<W>(
  write: (events: readonly AgentEvent[]) => W,
  events: readonly AgentEvent[],
): { writes: W; error?: undefined } | { writes?: undefined; error: unknown } {
  try {
    return { writes: write(events) };
  } catch (error) {
    if (isAgentwireError(error)) throw error;
    return { error };
  }
}
