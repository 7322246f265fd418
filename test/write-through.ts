import { expect } from 'vitest';
import type { AgentEvent, Codec, Diagnostic, Format } from '../src/all';
import { codecFor, codecs } from '../src/formats';
import { listFixtures } from '../src/node/fixtures';

// What the "kept" tests (runs-kept, usage-kept, content-kept) share: every format as a target,
// the fixtures of every format, hand-built events through one writer, and its output read back.

/** Every format a conversion can write. */
export const FORMATS = Object.keys(codecs) as Format[];

/** The fixed clock of the hand-built events and the conversions. */
export const T = 1767225600000;

/** Every fixture of every format (the primary framing of each; `name.jsonl`, `name.sse`, …). */
export const FIXTURES = listFixtures().filter((f) => !f.name.includes('.'));

/** `events` through `to`'s writer: its output and the diagnostics (losses) it reported. */
export function writeEvents(
  to: Format,
  events: readonly AgentEvent[],
): { output: string; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const encoder = (codecFor(to) as Codec).createEncoder({
    clock: () => T,
    onDiagnostic: (d: Diagnostic) => diagnostics.push(d),
  } as Parameters<Codec['createEncoder']>[0]);
  let output = '';
  for (const e of events) output += encoder.write(e);
  output += encoder.end();
  return { output, diagnostics };
}

/** A writer's output read back by its own format, which finds no error in it. */
export function readBack(to: Format, output: string): readonly AgentEvent[] {
  const back = (codecFor(to) as Codec).parse(output);
  expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return back.events;
}
