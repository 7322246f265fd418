import type { AgentEvent } from '../src/all';
import { codecFor } from '../src/formats/index';
import { type listFixtures, loadFixture } from '../src/node/fixtures';

// What the edits-kept tests share: a fixture's events, the fields of every event that kept its
// line, and a writer of the events with one of them replaced.

interface Hints {
  raw?: unknown;
  record?: unknown;
  [key: string]: unknown;
}

/** The event without its kept line (`raw`, `record`): what a writer writes anew. */
export function withoutKeptLine(e: AgentEvent): AgentEvent {
  const hints = e.provenance?.hints as Hints | undefined;
  if (hints === undefined) return e;
  const { raw: _raw, record: _record, ...rest } = hints;
  return { ...e, provenance: { ...e.provenance!, hints: rest } } as AgentEvent;
}

/** Whether the event kept the line it was read from. */
export function keptLine(e: AgentEvent): boolean {
  return typeof (e.provenance?.hints as Hints | undefined)?.raw === 'string';
}

type FixtureInfo = ReturnType<typeof listFixtures>[number];

/** One field of an event that kept its line. */
export interface KeptField {
  /** The event's index in the fixture. */
  i: number;
  event: AgentEvent;
  key: string;
  value: unknown;
}

/**
 * A fixture's fields that `pick` accepts, of every event that kept its line (the event's own,
 * not `type` or its provenance), and a writer of the events with the one at `i` replaced (by
 * the fixture's own codec, in its framing; losses and the like ignored).
 */
export function keptFields(info: FixtureInfo, pick: (value: unknown) => boolean) {
  const fx = loadFixture(info.format, info.name);
  const codec = codecFor(fx.format)!;
  const framing = info.path.endsWith('.sse')
    ? {}
    : { framing: info.path.endsWith('.json') ? 'json' : 'jsonl' };
  const { events } = codec.parse(fx.bytes);
  const fields: KeptField[] = [];
  events.forEach((event, i) => {
    if (!keptLine(event)) return;
    for (const [key, value] of Object.entries(event))
      if (key !== 'type' && key !== 'provenance' && pick(value)) fields.push({ i, event, key, value });
  });
  const write = (i: number, event: AgentEvent): string => {
    const edited = [...events];
    edited[i] = event;
    return codec.stringify(edited, { ...framing, onDiagnostic() {} } as never);
  };
  /** The events a written text reads back as (diagnostics ignored). */
  const parse = (text: string): AgentEvent[] => codec.parse(text, { onDiagnostic() {} } as never).events;
  return { fields, write, parse };
}
