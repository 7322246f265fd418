import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { agui } from '../../src/formats/ag-ui/index';
import type { AgentEvent } from '../../src/model';
import { cycle, expectRefusedAlone, refusingWriter } from '../refused-writes';
import { bothPaths, RUNS_ENDED_IN_A_STEP } from './agui-paths';

// Round thirty-four. An event read from AG-UI is written from its kept record with its fields put
// back. A value JSON.stringify cannot write at all (a BigInt, a cycle), put back from the edited
// event or edited into the kept record itself, made the writer throw the TypeError of
// JSON.stringify, not an AgentwireError: it is refused now as every value JSON cannot hold is
// (`unencodable`, naming its path in the record), before the writer changes for the event.

const FIXTURES = join(__dirname, '../../fixtures/ag-ui');
const events = (file: string): AgentEvent[] => agui.parse(readFileSync(join(FIXTURES, file), 'utf8')).events;

const write = refusingWriter((options) => agui.createEncoder(options));

/** `stream` with its first event of `type` (not derived) replaced by `edit` of it; the edited event. */
function edited(
  stream: readonly AgentEvent[],
  type: AgentEvent['type'],
  edit: (e: AgentEvent) => AgentEvent,
) {
  const at = stream.findIndex((e) => e.type === type && e.provenance?.synthetic !== true);
  expect(at, `an event ${type}`).toBeGreaterThanOrEqual(0);
  const bad = edit(stream[at]!);
  return { stream: stream.map((e, i) => (i === at ? bad : e)), bad };
}

/** The event with its kept record replaced by `record` of it. */
function withRecord(
  e: AgentEvent,
  record: (r: Record<string, unknown>) => Record<string, unknown>,
): AgentEvent {
  const hints = e.provenance!.hints as { record: Record<string, unknown> };
  return {
    ...e,
    provenance: { ...e.provenance!, hints: { ...hints, record: record(hints.record) } },
  } as AgentEvent;
}

describe('AG-UI: a BigInt or a cycle in a kept record is refused, not a TypeError', () => {
  const CASES: Array<[string, string, AgentEvent['type'], (e: AgentEvent) => AgentEvent, RegExp]> = [
    [
      "a call's end given a BigInt result",
      'tool-call.sse',
      'tool.end',
      (e) => ({ ...e, result: { v: BigInt(7) } }) as AgentEvent,
      /^record\.metadata\.agentwire\.result\.v: a BigInt cannot be written as JSON/,
    ],
    [
      "a call's end given a cycle in its result",
      'tool-call.sse',
      'tool.end',
      (e) => ({ ...e, result: cycle() }) as AgentEvent,
      /^record\.metadata\.agentwire\.result\.self: the value refers to itself \(a cycle\)$/,
    ],
    [
      "a child's end (its error) given a BigInt result",
      'subagents.sse',
      'child.end',
      (e) => ({ ...e, result: BigInt(3) }) as AgentEvent,
      /^record\.message: a BigInt cannot be written as JSON/,
    ],
    [
      "a call's start given a cycle in its metadata",
      'tool-call.sse',
      'tool.start',
      (e) => ({ ...e, startedAt: cycle() }) as unknown as AgentEvent,
      /^record\.metadata\.agentwire\.startedAt\.self: the value refers to itself/,
    ],
    [
      'a kept record edited to hold a BigInt, the event unedited',
      'tool-call.sse',
      'tool.end',
      (e) => withRecord(e, (r) => ({ ...r, zz: BigInt(1) })),
      /^record\.zz: a BigInt cannot be written as JSON/,
    ],
    [
      'a kept record edited to hold a cycle, the event edited',
      'tool-call.sse',
      'tool.end',
      (e) => withRecord({ ...e, ts: 5 } as AgentEvent, (r) => ({ ...r, zz: cycle() })),
      /^record\.zz\.self: the value refers to itself/,
    ],
    [
      "a run's end that carries the steps it closed, its kept record given a BigInt",
      'carried',
      'run.end',
      (e) => withRecord({ ...e, answer: 'edited' } as AgentEvent, (r) => ({ ...r, zz: BigInt(1) })),
      /^record\.zz: a BigInt cannot be written as JSON/,
    ],
  ];

  // A run's end that carries the step it closed, which a refusal must leave unread.
  const carried = () => agui.parse(agui.stringify([...RUNS_ENDED_IN_A_STEP])).events;

  test.each(CASES)('%s', (_what, file, type, edit, why) => {
    const source = file === 'carried' ? carried() : events(file);
    const { stream, bad } = edited(source, type, edit);
    bothPaths(() => {
      expectRefusedAlone(write, stream, bad, why);
      // Another format's event after it is written as without it (the step the refusal left open).
      const more = [...stream, { type: 'text.delta', text: 'more', round: 1 } as AgentEvent];
      expectRefusedAlone(write, more, bad, why);
    });
  });
});

describe('AG-UI: an event read from AG-UI without its kept record, refused, leaves the framing', () => {
  // Round thirty-four. An event read from AG-UI whose kept record is gone (taken out by hand) is
  // written by the general path in the framing it was read in: the writer took that framing
  // before the general path's check, and kept it when the event was refused, so the events after
  // it were framed as the refused one's stream (JSON Lines here) instead of the default (SSE).
  const own = events('run-error.jsonl');

  const withoutRecord = (e: AgentEvent, edit: Partial<AgentEvent>): AgentEvent => {
    const { record: _record, ...hints } = e.provenance!.hints as Record<string, unknown>;
    expect(hints.framing).toBe('jsonl');
    return { ...e, ...edit, provenance: { ...e.provenance!, hints } } as AgentEvent;
  };

  const after: AgentEvent[] = [
    { type: 'run.start', run: 'r', session: 's' },
    { type: 'text.delta', text: 'hi', round: 1 },
    { type: 'run.end', status: 'completed' },
  ];

  test.each([
    ["a run's start, ts NaN", 'run.start', { ts: Number.NaN }, /^run\.start\.ts: NaN is not a finite/],
    ["a run's end, a BigInt duration", 'run.end', { durationMs: BigInt(1) }, /durationMs: a BigInt/],
    ['a text delta before any run, a cycle in its time', 'text.delta', { ts: cycle() }, /^text\.delta\.ts: /],
  ] as Array<[string, AgentEvent['type'], Partial<AgentEvent>, RegExp]>)('%s', (_what, type, edit, why) => {
    const at = own.findIndex((e) => e.type === type && e.provenance?.synthetic !== true);
    const source = at >= 0 ? own[at]! : ({ type, text: 'x', provenance: own[0]!.provenance } as AgentEvent);
    const bad = withoutRecord(source, edit);
    bothPaths(() => {
      const dirty = expectRefusedAlone(write, [bad, ...after], bad, why);
      expect(dirty.text.startsWith('data: ')).toBe(true);
    });
  });
});

describe("AG-UI: an edited event's text of a wrong type, put into a record after its own, is refused", () => {
  // Round thirty-five. The text of a reasoning marker's event (its kept record has no `delta`) or
  // of a call's start follows the checked record in a record of its own (`keptBack`), and a
  // call's start keeps it as the arguments read so far (`argsKept`): a BigInt there made the
  // writer throw the TypeError of JSON.stringify, a null the TypeError of the next arguments'
  // `length`, after the record was written. A caller building events by hand from JSON may send
  // any of them: refused now, naming the field, before the writer changes for the event.
  const WRONG: Array<[string, unknown, RegExp]> = [
    ['a BigInt', BigInt(5), /: a BigInt, not a string$/],
    ['null', null, /: null, not a string$/],
    ['a number', 7, /: a number, not a string$/],
    ['an object', { a: 1 }, /: an object, not a string$/],
  ];
  const CASES: Array<[string, string, number]> = [
    ["a reasoning marker's", 'reasoning-and-state.sse', 2],
    ["a call's start's", 'tool-call.sse', 6],
    ["a call's arguments'", 'tool-call.sse', 7],
  ];
  for (const [what, file, at] of CASES)
    test.each(WRONG)(`${what} text given %s`, (_kind, value, why) => {
      const source = events(file);
      const bad = { ...source[at]!, text: value } as unknown as AgentEvent;
      const stream = source.map((e, i) => (i === at ? bad : e));
      const field = new RegExp(`^${bad.type.replaceAll('.', '\\.')}\\.text${why.source}`);
      bothPaths(() => expectRefusedAlone(write, stream, bad, field));
    });
});
