import { describe, expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { agui } from '../../src/formats/ag-ui/index';
import { aisdk } from '../../src/formats/ai-sdk/index';
import type { AgentEvent } from '../../src/model';
import {
  cycle,
  expectRefusedAlone as expectRefusedWrites,
  type RefusedWrites,
  writeRefusing,
} from '../refused-writes';

// Found by test/fuzz/refusal.test.ts. Inside a run, the AG-UI and AI SDK writers wrote or changed
// something for an event (a step opened, a call marked open, its TOOL_CALL_END written, an id
// taken, a request held as pending or taken off) before they refused it for a value JSON cannot
// hold: the refusal left that behind. A BigInt or a cycle in a call's result or error was a
// TypeError out of JSON.stringify, not a refusal; the AI SDK wrote a failure's error with an
// Infinity in it as null. Now each event is checked before anything is written for it.

interface Written extends RefusedWrites {
  losses: string[];
}

/** The UI writers' codecs: both take an id source. */
type UiCodec = typeof agui | typeof aisdk;

function write(codec: UiCodec, events: readonly AgentEvent[]): Written {
  let n = 0;
  const diagnostics: Diagnostic[] = [];
  const e = codec.createEncoder({ idSource: () => `id${n++}`, onDiagnostic: (d) => diagnostics.push(d) });
  const losses = (): string[] => diagnostics.filter((d) => d.code === 'loss').map((d) => d.message);
  return { ...writeRefusing(e, events), losses: losses() };
}

/** `bad` refused at its own write, and the bytes and losses those of the stream without it. */
function expectRefusedAlone(codec: UiCodec, events: readonly AgentEvent[], bad: AgentEvent, why: RegExp) {
  const written = (e: readonly AgentEvent[]) => write(codec, e);
  const dirty = expectRefusedWrites(written, events, bad, why) as Written;
  // A loss names its event by index, and the stream with the refused event has one more.
  const said = (losses: string[]) => losses.map((m) => m.replace(/\(event \d+\)/, '(event)'));
  expect(said(dirty.losses)).toEqual(said(written(events.filter((e) => e !== bad)).losses));
}

const infinite = { v: Number.POSITIVE_INFINITY };
const start: AgentEvent = { type: 'run.start', input: 'go' };
const end: AgentEvent = { type: 'run.end', status: 'completed' };
const text: AgentEvent = { type: 'text.delta', text: 'hi' };
// A run's start with no prompt (the AI SDK has no place for one: a loss of its own).
const bare: AgentEvent = { type: 'run.start' };

describe.each([
  ['ag-ui', agui],
  ['ai-sdk', aisdk],
] as const)('%s: an event refused inside a run takes nothing else down', (_, codec) => {
  test("a call's start: no step opened, no call left open", () => {
    const bad: AgentEvent = { type: 'tool.start', call: 'c', name: 't', args: infinite };
    expectRefusedAlone(codec, [start, bad, text, end], bad, /tool\.start\.args\.v: Infinity/);
  });

  test("a call's end with a BigInt result: refused, its call's end and id not taken", () => {
    const call: AgentEvent = { type: 'tool.start', call: 'c', name: 't', args: {} };
    const bad: AgentEvent = { type: 'tool.end', call: 'c', name: 't', ok: true, result: { v: BigInt(7) } };
    const good: AgentEvent = { type: 'tool.end', call: 'c', name: 't', ok: true, result: { v: 7 } };
    expectRefusedAlone(codec, [start, call, bad, good, text, end], bad, /BigInt/);
  });

  test("a call's end with a cycle in its error: refused, not a TypeError", () => {
    const bad: AgentEvent = { type: 'tool.end', call: 'c', name: 't', ok: false, error: cycle() };
    expectRefusedAlone(codec, [start, bad, text, end], bad, /cycle/);
  });

  test("a call's failure with an Infinity in its error: refused, not written as null", () => {
    const bad: AgentEvent = {
      type: 'tool.end',
      call: 'c',
      name: 't',
      ok: false,
      error: { v: Number.NEGATIVE_INFINITY },
    };
    expectRefusedAlone(
      codec,
      [start, bad, text, end],
      bad,
      /tool\.end\.error\.v: -Infinity|metadata\.error\.v/,
    );
  });
});

describe('ag-ui: a request refused is no interrupt, an answer refused leaves its question open', () => {
  test('an approval request refused is not held as pending (no interrupt at the run end)', () => {
    const bad: AgentEvent = { type: 'approval.request', approval: 'a', tool: 't', args: infinite };
    expectRefusedAlone(agui, [start, text, bad, end], bad, /args\.v: Infinity/);
  });

  test('an answer refused leaves its question pending (an interrupt at the run end)', () => {
    const question: AgentEvent = { type: 'question', question: 'q', questions: [{ text: 'why?' }] };
    const bad = {
      type: 'question.answer',
      question: 'q',
      answers: { v: BigInt(1) },
    } as unknown as AgentEvent;
    expectRefusedAlone(agui, [start, question, bad, end], bad, /BigInt/);
    expect(write(agui, [start, question, bad, end]).text).toContain('"interrupt"');
  });
});

describe('ai-sdk: a loss is reported for the event that loses it', () => {
  test("a refused error's data does not use up the loss of a later fatal error's", () => {
    const bad: AgentEvent = { type: 'error', message: 'warn', fatal: false, data: { v: Number.NaN } };
    // Read from line 9 of a Codex stream: its loss names that line.
    const fatal: AgentEvent = {
      type: 'error',
      message: 'boom',
      fatal: true,
      data: { v: 1 },
      provenance: { format: 'codex', line: 9, offset: 700 },
    };
    expectRefusedAlone(aisdk, [bare, bad, fatal, end], bad, /error\.data\.v: NaN/);
    expect(write(aisdk, [bare, bad, fatal, end]).losses).toEqual([
      'error.data (codex line 9): ai-sdk has no place for data; later events with this field are not reported again',
    ]);
  });
});

// Found in round thirty: the AG-UI writer opened a subagent for an event on a lane not open yet
// (its SUBAGENT_STARTED, implied) and marked the lane open before it checked the event's values;
// refused, the lane stayed marked: a later event on it had no SUBAGENT_STARTED, and the run's end
// closed a subagent whose start was never written.
describe.each([
  ['ag-ui', agui],
  ['ai-sdk', aisdk],
] as const)('%s: an event refused on a lane not open yet leaves the lane as it was', (_, codec) => {
  test('a later event on the lane opens it', () => {
    const bad: AgentEvent = { type: 'tool.start', call: 'c', name: 't', args: infinite, lane: 'sub' };
    const later: AgentEvent = { type: 'text.delta', text: 'from the child', lane: 'sub' };
    expectRefusedAlone(codec, [start, text, bad, later, end], bad, /tool\.start\.args\.v: Infinity/);
  });

  test('with no other event on the lane, the run ends without it', () => {
    const bad: AgentEvent = { type: 'notice', kind: 'k', message: 'm', data: { v: BigInt(7) }, lane: 'sub' };
    expectRefusedAlone(codec, [start, text, bad, end], bad, /BigInt/);
  });
});
