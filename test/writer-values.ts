import fc from 'fast-check';
import type { AgentEvent, Diagnostic, Encoder } from '../src/all';

// What the writer properties share: the values their random events carry (HEP, nativeharness),
// and the harness that writes a stream, with a shortcut switch on or off (HEP, nativeharness, Amp).

/** A text: short strings, escapes and non-ASCII, lone surrogates, and values no writer can hold. */
export const text = fc.oneof(
  { weight: 24, arbitrary: fc.string({ maxLength: 6 }) },
  {
    weight: 12,
    arbitrary: fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0001', 'é', 'a', '😀'), maxLength: 4 }),
  },
  { weight: 2, arbitrary: fc.constantFrom<unknown>('\ud83d', '\u2028') },
  // what no record can hold: the write throws, with the same error on both paths
  { weight: 1, arbitrary: fc.constantFrom<unknown>(7, null, undefined) },
);

/** A token count: integers up to 2^40, absent or -0, and values a count may not be. */
export const count = fc.oneof(
  { weight: 30, arbitrary: fc.integer({ min: 0, max: 2 ** 40 }) },
  { weight: 3, arbitrary: fc.constantFrom<unknown>(undefined, -0) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(1.5, 2 ** 53, Number.NaN, '12') },
);

/** A cost in USD: figures whose shortest spelling matters, doubles, and values a cost may not be. */
export const cost = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.constantFrom<unknown>(undefined, 0, -0, 3, 0.0123, 1e-7, 0.037570000000000006),
  },
  { weight: 12, arbitrary: fc.double({ min: 0, max: 10, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(Number.POSITIVE_INFINITY, 'x') },
);

/** A usage object with any of its figures. */
export const usage = fc.record(
  { input: count, output: count, costUsd: cost, cacheRead: fc.constantFrom<unknown>(undefined, 5) },
  { requiredKeys: [] },
);

/** What a stream wrote, and the diagnostics (losses) its writer reported. */
export interface Written {
  text: string;
  diagnostics: Diagnostic[];
}

/**
 * `events` through the encoder `create` makes: the text of every event followed by `|`, then the
 * end, or `threw …` where a write threw; and the diagnostics it reported.
 */
export function writeStream(
  create: (onDiagnostic: (d: Diagnostic) => void) => Encoder,
  events: readonly AgentEvent[],
): Written {
  const diagnostics: Diagnostic[] = [];
  const e = create((d) => diagnostics.push(d));
  let text = '';
  try {
    for (const ev of events) text += `${e.write(ev)}|`;
    text += e.end();
  } catch (error) {
    text += `threw ${String(error)}`;
  }
  return { text, diagnostics };
}

/** {@link writeStream} with `shortcut.enabled` set to `on` for the stream and back to `true` after it. */
export function writeSwitched(
  shortcut: { enabled: boolean },
  on: boolean,
  create: (onDiagnostic: (d: Diagnostic) => void) => Encoder,
  events: readonly AgentEvent[],
): Written {
  shortcut.enabled = on;
  try {
    return writeStream(create, events);
  } finally {
    shortcut.enabled = true;
  }
}
