import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { EncodeOptions } from '../../src/codec';
import type { Diagnostic, Format } from '../../src/diagnostics';
import { codecFor } from '../../src/formats/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, type RefusedWrites, writeNotingLosses } from '../refused-writes';

// Round thirty-four: a `ts` that is no finite number (NaN from arithmetic, a string from an
// untyped caller) on one event, given to the Gemini, Cursor, highbar and AI SDK writers, was
// written with nothing said: Gemini's `"timestamp":""` or an invalid date, Cursor's
// `"timestamp_ms":null` or `"abc"`, highbar's bare `NaN` seconds (a string passed its check),
// an AI SDK data part's `"ts":"abc"`. Now refused with the event, naming `<type>.ts`, as the
// OpenCode, AG-UI and Copilot writers refuse it: the writer writes the stream as if the refused
// event never came (the same bytes, the same losses), for another format's events and for its
// own decoded ones whose time is edited.

const FIXTURES = join(__dirname, '../../fixtures');

const BAD: ReadonlyArray<readonly [name: string, value: unknown, why: string]> = [
  ['NaN', Number.NaN, 'NaN is not a finite number; JSON cannot hold it'],
  ['Infinity', Number.POSITIVE_INFINITY, 'Infinity is not a finite number; JSON cannot hold it'],
  ["'abc'", 'abc', 'a string, not a number'],
];

// What each writer is made with: numbered ids, JSONL framing, a fixed clock.
function options(): EncodeOptions {
  let n = 0;
  return {
    onDiagnostic() {},
    idSource: () => `id${n++}`,
    clock: () => 1786540600000,
    framing: 'jsonl',
  } as EncodeOptions;
}

// The events' writes through a new writer of `format`, refusals and losses noted.
function writer(format: Format): (events: readonly AgentEvent[]) => RefusedWrites & { losses: string[] } {
  return (events) => {
    const written = writeNotingLosses(
      (onDiagnostic: (d: Diagnostic) => void) =>
        codecFor(format)!.createEncoder({ ...options(), onDiagnostic }),
      events,
    );
    return { ...written, losses: written.losses.map(([, d]) => d.message) };
  };
}

/** `expectRefusedAlone`, and the losses reported those of the stream without the bad event. */
function expectRefused(format: Format, events: readonly AgentEvent[], bad: AgentEvent, why: RegExp): void {
  const write = writer(format);
  const dirty = expectRefusedAlone(write, events, bad, why) as ReturnType<typeof write>;
  expect(dirty.losses).toEqual(write(events.filter((e) => e !== bad)).losses);
}

// Another format's events (HEP's), each with a time of its own.
const HEP = codecFor('hep')!
  .parse(readFileSync(join(FIXTURES, 'hep/tool-then-text.jsonl'), 'utf8'))
  .events.map((e, i) => ({ ...e, ts: 1786540600505 + i * 1000 }) as AgentEvent);

// writer × the events whose time it writes (the first of each type in HEP).
const FOREIGN: Array<[Format, AgentEvent['type']]> = [
  ['gemini', 'session.start'],
  ['gemini', 'tool.start'],
  ['gemini', 'tool.end'],
  ['gemini', 'text.delta'],
  ['gemini', 'run.end'],
  ['cursor', 'text.delta'],
  ['cursor', 'tool.start'],
  ['cursor', 'tool.end'],
  ['highbar', 'session.start'],
  ['highbar', 'tool.start'],
  ['highbar', 'tool.end'],
  ['highbar', 'run.end'],
  ['ai-sdk', 'session.start'],
  ['ai-sdk', 'tool.output'],
];

/** `events` with the first `type` event's `ts` set to `value`, and that event. */
function withTs(events: readonly AgentEvent[], at: number, value: unknown): [AgentEvent[], AgentEvent] {
  const bad = { ...events[at]!, ts: value } as AgentEvent;
  return [events.map((e, i) => (i === at ? bad : e)), bad];
}

describe("a ts that is no finite number on another format's event is refused, the stream written without it", () => {
  test.each(FOREIGN)('%s: %s', (format, type) => {
    const at = HEP.findIndex((e) => e.type === type);
    expect(at).toBeGreaterThanOrEqual(0);
    for (const [, value, why] of BAD) {
      const [stream, bad] = withTs(HEP, at, value);
      expectRefused(format, stream, bad, new RegExp(`^${type.replace('.', '\\.')}\\.ts: ${why}$`));
    }
  });
});

// The writer's own decoded events: the fixture, and the types of its events whose line writes
// their time. AI SDK's own chunks carry a time only in its data parts: its stream is HEP's
// written by it and read back.
const OWN: Array<[Format, () => string, AgentEvent['type'][]]> = [
  [
    'gemini',
    () => readFileSync(join(FIXTURES, 'gemini/tool-roundtrip.jsonl'), 'utf8'),
    ['session.start', 'text.delta', 'tool.start', 'tool.end', 'run.end'],
  ],
  [
    'cursor',
    () => readFileSync(join(FIXTURES, 'cursor/tools.jsonl'), 'utf8'),
    ['reasoning.delta', 'text.delta', 'tool.start', 'tool.end'],
  ],
  [
    'highbar',
    () => readFileSync(join(FIXTURES, 'highbar/mixed.jsonl'), 'utf8'),
    ['session.start', 'tool.start', 'tool.end', 'run.end'],
  ],
  ['ai-sdk', () => codecFor('ai-sdk')!.stringify(HEP, options()), ['session.start', 'tool.output']],
];

describe('a ts that is no finite number edited into an event of its own format is refused where its line writes it', () => {
  test.each(OWN)('%s', (format, source, types) => {
    const events = codecFor(format)!.parse(source()).events;
    for (const type of types) {
      const at = events.findIndex((e) => e.type === type && e.provenance?.synthetic !== true);
      expect(at, type).toBeGreaterThanOrEqual(0);
      expect(events[at]!.provenance?.format).toBe(format);
      for (const [, value, why] of BAD) {
        const [stream, bad] = withTs(events, at, value);
        expectRefused(format, stream, bad, new RegExp(`^${type.replace('.', '\\.')}\\.ts: ${why}$`));
      }
    }
  });
});
