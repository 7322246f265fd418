import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { type Diagnostic, FORMATS, type Format } from '../../src/diagnostics';
import type { AgentEvent } from '../../src/model';
import { FUZZ_RUNS } from '../runs';
import { type Written, writeAsConversion } from './writes';

// A writer's refusal takes nothing else down. A writer, fed the events of any fixture of another
// format (its golden) as a conversion feeds them (src/convert-stream.ts: event by event, a refusal
// reported and the next event written), with one event inserted at a random place whose free-form
// field holds a value JSON cannot hold (Infinity, a BigInt, a cycle, nesting past the depth bound;
// ids no fixture has, all saying `refused`), or whose number field holds a number a writer that
// writes it as an integer cannot write exactly (past 2^53, a fraction) or any writer (NaN,
// Infinity); a run's start or end among them (a writer may open a run, or a lane's, for one), and
// each may carry a workspace besides, a field many writers report lost. A writer either writes
// that field as JSON (or the number as an integer), and must refuse the event, or does not:
//   - refused: exactly one refusal, and the output bytes are those of the stream without the
//     event (it left nothing held, opened, counted or half written behind). Its diagnostics are
//     the clean stream's (nothing reported for the refused event: the refusal comes first, round
//     thirty-one), but for a loss's `(event N)` index, which counts the inserted event;
//   - not refused: it dropped the value, wrote it inside a text (a depth bound is no matter
//     there) or summarised it (HEP writes what JSON cannot hold as `[unserializable]`, as its
//     reference writer does, and says so). The weaker promise: every record but the inserted
//     event's is the one the stream with a plain value there gets. A TypeError out of
//     JSON.stringify (a BigInt, a cycle) breaks the property either way: `convert` rethrows it.
//     A number written as given has no such check: it changes what a writer derives from it.
// A number JSON cannot hold that a writer neither refuses nor says anything of, written as the
// `null` JSON.stringify makes of it, breaks the weaker promise too.
// The inserted event goes on the main agent, or on a lane (a child agent's events): one no event
// of the stream has (a writer opens it for the event, implied) or one the stream has (opened
// already, or opened by the inserted event before the stream's own first event on it).
// Found by this property: the Copilot writer's fix in CHANGELOG.md (round twenty-nine); with the
// `null` check the Amp, Copilot and Codex writers' (round thirty); the AG-UI writer's subagent
// opened for a refused event, the HEP and nativeharness writers' number refusals (round thirty);
// the AI SDK writer's run opened for a run's end on a lane, the highbar writer's losses and the
// Codex writer's held message before a refusal (round thirty-one); the writers in OPEN,
// OPEN_NUMBERS and LOSS_FIRST below are what it still finds.

interface Golden {
  from: Format;
  name: string;
  events: AgentEvent[];
}

const goldens: Golden[] = FORMATS.flatMap((format) =>
  readdirSync(`fixtures/${format}`)
    .filter((f) => f.endsWith('.golden.json'))
    .sort()
    .map((f) => ({
      from: format,
      name: `${format}/${f}`,
      events: (JSON.parse(readFileSync(`fixtures/${format}/${f}`, 'utf8')) as { events: AgentEvent[] })
        .events,
    })),
);

/** A value no writer can write as JSON, and its name for a failure message. */
type Bad = 'Infinity' | 'NaN' | 'BigInt' | 'cycle' | 'deep';

/**
 * A canonical number a writer that writes the field as an integer cannot write exactly (past
 * 2^53, a fraction) and one every writer can, to insert in a number field.
 */
type BadNumber = 'huge' | 'fraction' | 'NaN' | 'Infinity';

function badValue(bad: Bad): unknown {
  switch (bad) {
    case 'Infinity':
      return Number.POSITIVE_INFINITY;
    case 'NaN':
      return Number.NaN;
    case 'BigInt':
      return BigInt(7);
    case 'cycle': {
      const o: Record<string, unknown> = { a: 1 };
      o.self = o;
      return o;
    }
    case 'deep': {
      // Past the writers' default depth bound (64) with room for what they nest around it.
      let v: unknown = 1;
      for (let i = 0; i < 80; i++) v = { d: v };
      return v;
    }
  }
}

/** The event to insert with `v` in one of its free-form fields; ids no fixture has. */
const shapes: ReadonlyArray<(v: unknown) => AgentEvent> = [
  (v) => ({ type: 'tool.start', call: 'refused-call', name: 'refused_tool', args: { v } }),
  (v) => ({ type: 'tool.end', call: 'refused-call', name: 'refused_tool', ok: true, result: { v } }),
  (v) => ({ type: 'tool.end', call: 'refused-call', name: 'refused_tool', ok: false, error: { v } }),
  (v) => ({ type: 'unknown', recordType: 'refused', record: { type: 'refused', v } }),
  (v) => ({ type: 'notice', kind: 'refused', message: 'm', data: { v } }),
  (v) => ({ type: 'error', message: 'refused', fatal: false, data: { v } }),
  (v) => ({ type: 'approval.request', approval: 'refused-approval', tool: 'refused_tool', args: { v } }),
  (v) => ({ type: 'question.answer', question: 'refused-question', answers: { v } }) as AgentEvent,
  (v) => ({ type: 'text.delta', text: 'refused', context: { v } }) as AgentEvent,
  // Run-level events: a writer that opens a run (or a lane's) for one must not have opened it.
  (v) => ({ type: 'file.change', call: 'refused-call', changes: [{ path: 'refused', kind: 'add', v }] }),
  (v) => ({ type: 'run.start', run: 'refused-run', context: { v } }) as AgentEvent,
  (v) => ({ type: 'run.end', status: 'completed', answer: 'refused', context: { v } }) as AgentEvent,
  (v) => ({ type: 'run.end', status: 'failed', error: 'refused', context: { v } }) as AgentEvent,
  (v) => ({
    type: 'tool.end',
    call: 'refused-call',
    name: 'refused_tool',
    ok: true,
    error: 'refused',
    result: { v },
  }),
];

/** The event to insert with the number `n` in one of its number fields; ids no fixture has. */
const numberShapes: ReadonlyArray<(n: number) => AgentEvent> = [
  (n) => ({ type: 'compaction.end', tokensFreed: n, trigger: 'refused' }),
  (n) => ({ type: 'tool.liveness', call: 'refused-call', action: 'refused', elapsedMs: n }),
  (n) => ({ type: 'tool.liveness', call: 'refused-call', action: 'refused', elapsedMs: 1, outputBytes: n }),
  (n) => ({ type: 'round.end', message: 'refused', usage: { input: n, output: 1 } }),
  (n) => ({ type: 'run.end', status: 'completed', answer: 'refused', usage: { input: 1, output: n } }),
  (n) => ({ type: 'run.end', status: 'completed', answer: 'refused', durationMs: n }),
  (n) => ({ type: 'usage', usage: { input: n, key: 'refused' } }),
  (n) => ({ type: 'tool.end', call: 'refused-call', name: 'refused_tool', ok: false, exitCode: n }),
  (n) => ({ type: 'text.delta', text: 'refused', round: n }),
  (n) => ({ type: 'run.end', status: 'failed', error: 'refused', usage: { input: 1, output: n } }),
  (n) => ({ type: 'run.end', status: 'cancelled', reason: 'refused', durationMs: n }),
  (n) => ({ type: 'tool.start', call: 'refused-call', name: 'refused_tool', startedAt: n }),
  (n) => ({ type: 'tool.end', call: 'refused-call', name: 'refused_tool', ok: true, endedAt: n }),
];

const numberOf = (bad: BadNumber): number =>
  bad === 'huge' ? 1e306 : bad === 'fraction' ? 0.5 : bad === 'NaN' ? Number.NaN : Number.POSITIVE_INFINITY;

const PLAIN = 'plain';

const inserted = (events: readonly AgentEvent[], at: number, e: AgentEvent) => [
  ...events.slice(0, at),
  e,
  ...events.slice(at),
];

// A loss names the event by its index in the stream when it has no input line, and the stream
// with the inserted event has one more before it.
const said = (ds: readonly Diagnostic[]) =>
  ds.map((d) => ({ ...d, message: d.message.replace(/\(event \d+\)/, '(event)') }));

// The records of the inserted event (its ids say `refused`) aside, what a writer wrote.
const others = (output: string) => output.split('\n').filter((l) => !l.includes('refused'));

/**
 * An event to insert: its shape made with a bad value, and with a plain one (none for a number:
 * a number written as given changes what a writer derives from it, a total, in records that do
 * not say `refused`; the refused case is the promise there).
 */
interface Insert {
  bad: AgentEvent;
  plain?: AgentEvent | undefined;
  /** For a non-finite number: the shape with `null` there, what JSON.stringify would write. */
  nulled?: AgentEvent | undefined;
  what: string;
  number: boolean;
  /** It has a field many writers have no place for (a workspace) besides its bad value. */
  lossy?: boolean;
}

/** A lane no fixture has: its records say `refused` too, as the inserted event's ids do. */
const NEW_LANE = 'refused-lane';

/** The lanes (child agents) a golden's events are on, in the order they first come. */
function lanesOf(golden: Golden): string[] {
  return [...new Set(golden.events.flatMap((e) => (e.lane === undefined ? [] : [e.lane])))];
}

/** `e` on `lane` when one is given. */
function onLane(e: AgentEvent, lane: string | undefined): AgentEvent {
  return lane === undefined ? e : { ...e, lane };
}

/** The promise for one case; throws what breaks it. */
function check(golden: Golden, to: Format, at: number, insert: Insert, lane?: string): void {
  const dirty = writeAsConversion(golden.from, to, inserted(golden.events, at, onLane(insert.bad, lane)));
  const refusals = dirty.diagnostics.filter(
    (d) => d.severity === 'error' && / not written: /.test(d.message),
  );
  const on = lane === undefined ? '' : ` on lane ${lane}`;
  const what = `${golden.name} → ${to}, ${insert.what}${on} at ${at}`;
  if (refusals.length > 0) {
    expect(refusals.length, what).toBe(1);
    const clean = writeAsConversion(golden.from, to, golden.events);
    expect(dirty.output, what).toBe(clean.output);
    // Refused before anything is reported for it (a loss said for an event then refused is
    // said of an event the stream does not have): every other diagnostic is the clean stream's.
    // (A writer in LOSS_FIRST still reports the refused event's losses before it refuses it:
    // those of a field no clean event has are let pass for it.)
    const fields = new Set(clean.diagnostics.map((d) => d.field));
    const rest = dirty.diagnostics.filter(
      (d) => d !== refusals[0] && !(LOSS_FIRST.has(to) && d.code === 'loss' && !fields.has(d.field)),
    );
    expect(said(rest), what).toEqual(said(clean.diagnostics));
  } else if (insert.plain !== undefined) {
    // Not refused: the writer did not write the value as JSON. It may have dropped it, written
    // it as text (a depth bound is no matter inside a string) or summarised it (HEP writes what
    // JSON cannot hold as `[unserializable]`, as its reference writer does, and says so); every
    // other record is the one the stream with a plain value there gets.
    const plain = writeAsConversion(golden.from, to, inserted(golden.events, at, onLane(insert.plain, lane)));
    expect(others(dirty.output), what).toEqual(others(plain.output));
    if (insert.nulled !== undefined) {
      const nulled = inserted(golden.events, at, onLane(insert.nulled, lane));
      expectNotNulled(writeAsConversion(golden.from, to, nulled), dirty, plain, what);
    }
  }
}

/**
 * A number JSON cannot hold, not refused, is not written as the `null` JSON.stringify makes of it
 * with nothing said: where the value was written (the stream with a plain value there writes
 * otherwise), the stream with `null` there must write otherwise too, or say more.
 */
function expectNotNulled(nulled: Written, dirty: Written, plain: Written, what: string): void {
  if (dirty.output === plain.output) return;
  const silent =
    dirty.output === nulled.output &&
    JSON.stringify(said(dirty.diagnostics)) === JSON.stringify(said(nulled.diagnostics));
  expect(silent, `${what}: written as null, nothing said`).toBe(false);
}

// Writers the property still breaks (left for the next round; the case that shows each, with
// its golden, writer, shape and value, is what a run with this entry removed prints):
const OPEN: Partial<Record<Format, string>> = {};
const WRITERS = FORMATS.filter((f) => OPEN[f] === undefined);
// And the event types whose number a writer's refusal still takes something else down for (the
// number insertions of that type skip it; round thirty-one's numbers JSON cannot hold, NaN and
// Infinity, found most of these; every writer's were fixed in the same round: none is left):
// (Codex's round.end was one until round thirty: a round's usage past 2^53, or a fraction, went
// into the run's total and the run's end, a clean event, was refused for it; it is left out of
// the total now, said.)
const OPEN_NUMBERS: Partial<Record<Format, readonly AgentEvent['type'][]>> = {};
// The writers that still report a refused event's own losses (a field they have no place for)
// before they refuse it, or use up a later event's report so (round thirty-one made that a
// failure, and fixed it in every writer: none is left): the old promise for them, and no lossy
// insertion.
const LOSS_FIRST: ReadonlySet<Format> = new Set<Format>([]);

/** True when the case is one OPEN_NUMBERS or LOSS_FIRST skips. */
const skipped = (to: Format, insert: Insert) =>
  (insert.number && OPEN_NUMBERS[to]?.includes(insert.bad.type) === true) ||
  (insert.lossy === true && LOSS_FIRST.has(to));

/**
 * `insert` with a field many writers have no place for (a workspace), so that the event is both
 * one they report a loss for and one they refuse: the refusal must come first.
 */
const insertion = fc.tuple(insertionOf(), fc.boolean()).map(([insert, lossy]): Insert => {
  if (!lossy) return insert;
  const add = (e: AgentEvent | undefined) =>
    e === undefined ? undefined : ({ ...e, workspace: 'refused-workspace' } as AgentEvent);
  return {
    ...insert,
    bad: add(insert.bad)!,
    plain: add(insert.plain),
    nulled: add(insert.nulled),
    what: `${insert.what} with a workspace`,
    lossy: true,
  };
});

// A free-form field holding a value JSON cannot hold, or a number field one a writer may not
// write exactly (HEP and nativeharness write counts and round numbers as integers).
function insertionOf(): fc.Arbitrary<Insert> {
  return fc.oneof(
    fc
      .tuple(
        fc.nat({ max: shapes.length - 1 }),
        fc.constantFrom<Bad>('Infinity', 'NaN', 'BigInt', 'cycle', 'deep'),
      )
      .map(([shape, bad]) => ({
        bad: shapes[shape]!(badValue(bad)),
        plain: shapes[shape]!(PLAIN),
        nulled: bad === 'Infinity' || bad === 'NaN' ? shapes[shape]!(null) : undefined,
        what: `shape ${shape} with ${bad}`,
        number: false,
      })),
    fc
      .tuple(
        fc.nat({ max: numberShapes.length - 1 }),
        fc.constantFrom<BadNumber>('huge', 'fraction', 'NaN', 'Infinity'),
      )
      .map(([shape, bad]) => ({
        bad: numberShapes[shape]!(numberOf(bad)),
        what: `number shape ${shape} with ${bad}`,
        number: true,
      })),
  );
}

test('every writer: an event it refuses takes nothing else down', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...goldens),
      fc.constantFrom(...WRITERS),
      fc.nat(),
      insertion,
      fc.boolean(),
      (golden, to, pos, insert, onNewLane) => {
        // A stream written in its own format keeps its records' own sequence numbers and ids
        // (nativeharness `seq`): an event inserted into it takes a number a kept record has, and
        // that record is refused as out of order. A conversion to another format is the case.
        fc.pre(golden.from !== to && !skipped(to, insert));
        check(golden, to, pos % (golden.events.length + 1), insert, onNewLane ? NEW_LANE : undefined);
      },
    ),
    // A case is two or three short writes: scaled up, still well under a second.
    { numRuns: FUZZ_RUNS * 5 },
  );
});

// The streams with child agents: the inserted event on one of their lanes, before that lane's
// first event (the writer opens the lane for it) or after (the lane is open).
const laned = goldens.filter((g) => lanesOf(g).length > 0);

test('every writer: an event it refuses on a lane of the stream takes nothing else down', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...laned),
      fc.constantFrom(...WRITERS),
      fc.nat(),
      insertion,
      fc.nat(),
      (golden, to, pos, insert, which) => {
        fc.pre(golden.from !== to && !skipped(to, insert));
        const lanes = lanesOf(golden);
        const at = pos % (golden.events.length + 1);
        check(golden, to, at, insert, lanes[which % lanes.length]);
      },
    ),
    { numRuns: FUZZ_RUNS * 2 },
  );
});
