import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { agui } from '../../src/formats/ag-ui/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, type RefusedWrites, refusingWriter } from '../refused-writes';
import { FUZZ_RUNS } from '../runs';
import { bothPaths, RUNS_ENDED_IN_A_STEP } from './agui-paths';

// Round thirty-three. The AG-UI writer wrote an event edited on a kept line that holds a number
// past a double's range (`1e400`, which `JSON.parse` reads as Infinity) with the `null`
// JSON.stringify makes of it, nothing said (round thirty-two refused it by writing each such line
// first with a copy of the writer's state, quadratic over a stream of them, and was reverted). It
// is refused now, the record built and checked before the writer changes for it: the output is
// that of the stream without the event, its ids too (`refusingWriter` numbers them). The line
// unedited is written as it came (test/hostile/non-finite-kept.test.ts). And an event whose `ts`
// is NaN or ±Infinity, from AG-UI or from another format, was written with no timestamp, nothing
// said: refused, as the other writers refuse such a time.

const FIXTURES = join(__dirname, '../../fixtures/ag-ui');
const fixture = (file: string) => readFileSync(join(FIXTURES, file), 'utf8');

const write = refusingWriter((options) => agui.createEncoder(options));

/** `text` with `"zz":<n>,` put before the first match of `before`. */
function withNumber(text: string, before: RegExp, n: string): string {
  const m = before.exec(text)!;
  return `${text.slice(0, m.index)}"zz":${n},${text.slice(m.index)}`;
}

/** The index of the first event not derived whose kept line holds `text`. */
function onLine(events: readonly AgentEvent[], text: string, type?: AgentEvent['type']): number {
  return events.findIndex(
    (e) =>
      (type === undefined || e.type === type) &&
      e.provenance?.synthetic !== true &&
      String((e.provenance?.hints as { raw?: unknown } | undefined)?.raw).includes(text),
  );
}

/** `events` with the one at `at` replaced by `edit` of it; the edited event. */
function edited(events: readonly AgentEvent[], at: number, edit: (e: AgentEvent) => AgentEvent) {
  const bad = edit(events[at]!);
  return { stream: events.map((e, i) => (i === at ? bad : e)), bad };
}

const later = (e: AgentEvent) => ({ ...e, ts: (e.ts ?? 0) + 1 }) as AgentEvent;

// fixture, what holds the number, the text before which `"zz":1e400,` is put, the event type
// edited (its line holds the number), the path of the refusal.
const PLACES: Array<[string, string, RegExp, AgentEvent['type'], string]> = [
  [
    'tool-call.sse',
    'a step start of its own',
    /(?<=data: \{)"type":"STEP_STARTED"/,
    'round.start',
    'record\\.zz',
  ],
  ['tool-call.sse', "a run's input", /(?<="input":\{)/, 'run.start', 'record\\.input\\.zz'],
  [
    'tool-call.sse',
    "a call's start",
    /(?<=data: \{)"type":"TOOL_CALL_START"/,
    'tool.args.delta',
    'record\\.zz',
  ],
  ['tool-call.sse', "a call's end", /(?<=data: \{)"type":"TOOL_CALL_END"/, 'tool.start', 'record\\.zz'],
  ['tool-call.sse', "a call's result", /(?<=data: \{)"type":"TOOL_CALL_RESULT"/, 'tool.end', 'record\\.zz'],
  [
    'subagents.sse',
    "a child's start",
    /(?<=data: \{)"type":"SUBAGENT_STARTED"/,
    'child.start',
    'record\\.zz',
  ],
  ['subagents.sse', "a child's end", /(?<=data: \{)"type":"SUBAGENT_FINISHED"/, 'child.end', 'record\\.zz'],
  [
    'reasoning-and-state.sse',
    'a reasoning record',
    /(?<=data: \{)"type":"REASONING_MESSAGE_CONTENT"/,
    'reasoning.delta',
    'record\\.zz',
  ],
];

describe("AG-UI: an edited event on a line with a number past a double's range is refused", () => {
  test.each(PLACES)('%s: %s', (file, _what, before, type, path) => {
    for (const n of ['1e400', '-1e400']) {
      const events = agui.parse(withNumber(fixture(file), before, n)).events;
      const at = onLine(events, '"zz"', type);
      expect(at, `an event ${type} on the line`).toBeGreaterThanOrEqual(0);
      const { stream, bad } = edited(events, at, later);
      const sign = n.startsWith('-') ? '-' : '';
      bothPaths(() =>
        expectRefusedAlone(
          write,
          stream,
          bad,
          new RegExp(`^${path}: ${sign}Infinity is not a finite number; JSON cannot hold it$`),
        ),
      );
      // Unedited, the line is written as it came.
      expect(write(events).text).toContain(`"zz":${n},`);
    }
  });

  test("a run's start given an input with no user message takes no id for the message when refused", () => {
    // The kept input has no user message: the edited input adds one, which takes an id.
    const source = fixture('tool-call.sse').replace(
      /"messages":\[\{"id":"msg_u1","role":"user","content":"What is the weather in Oslo\?"\}\]/,
      '"messages":[],"zz":1e400',
    );
    const events = agui.parse(source).events;
    const at = events.findIndex((e) => e.type === 'run.start');
    expect(events[at]!.type === 'run.start' && events[at]!.input).toBeUndefined();
    const { stream, bad } = edited(events, at, (e) => ({ ...e, input: 'new' }) as AgentEvent);
    bothPaths(() => expectRefusedAlone(write, stream, bad, /^record\.input\.zz: Infinity is not a finite/));
    // Given the input on a line without the number, it is written with the id the writer takes.
    const plain = agui.parse(source.replace('"zz":1e400', '"zz":1')).events;
    const withInput = edited(plain, at, (e) => ({ ...e, input: 'new' }) as AgentEvent).stream;
    expect(write(withInput).text).toContain('{"id":"id0","role":"user","content":"new"}');
  });

  test('a refused event that carries records before it (steps its run closed) leaves them unread', () => {
    const text = agui.stringify([...RUNS_ENDED_IN_A_STEP]);
    const source = text.replace('"durationMs":5', '"durationMs":5,"zz":1e400');
    const events = agui.parse(source).events;
    const at = onLine(events, '"zz"', 'run.end');
    expect((events[at]!.provenance!.hints as { before?: unknown }).before).toBeDefined();
    const { stream, bad } = edited(events, at, (e) => ({ ...e, answer: 'edited' }) as AgentEvent);
    // Another format's text after it goes into the step the refused end did not close.
    const more = [...stream.slice(0, at + 1), { type: 'text.delta', text: 'more', round: 1 } as AgentEvent];
    for (const s of [stream, more])
      bothPaths(() =>
        expectRefusedAlone(write, s, bad, /^record\.metadata\.agentwire\.zz: Infinity is not a finite/),
      );
  });

  test('an edit that holds a number JSON cannot hold is refused on a line without one', () => {
    const events = agui.parse(fixture('tool-call.sse')).events;
    const at = events.findIndex((e) => e.type === 'run.end');
    const { stream, bad } = edited(
      events,
      at,
      (e) => ({ ...e, durationMs: Number.POSITIVE_INFINITY }) as AgentEvent,
    );
    bothPaths(() => expectRefusedAlone(write, stream, bad, /Infinity is not a finite number/));
  });

  test('property: any line given `"zz":1e400`, any event of it edited, is refused alone or written without a null for it', () => {
    const files = ['tool-call.sse', 'subagents.sse', 'reasoning-and-state.sse', 'interrupt-resume.sse'];
    fc.assert(
      fc.property(
        fc.constantFrom(...files),
        fc.nat(),
        fc.nat(),
        fc.constantFrom('1e400', '-1e400', '1e20'),
        fc.constantFrom<'ts' | 'text' | 'none'>('ts', 'text', 'none'),
        (file, line, pick, n, how) => {
          const source = fixture(file);
          const starts = [...source.matchAll(/^data: \{/gm)].map((m) => m.index + 7);
          const cut = starts[line % starts.length]!;
          const text = `${source.slice(0, cut)}"zz":${n},${source.slice(cut)}`;
          const events = agui.parse(text).events;
          const on = events.flatMap((e, i) =>
            e.provenance?.synthetic !== true &&
            String((e.provenance?.hints as { raw?: unknown } | undefined)?.raw).includes('"zz"')
              ? [i]
              : [],
          );
          fc.pre(on.length > 0);
          const at = on[pick % on.length]!;
          const edit = (e: AgentEvent): AgentEvent =>
            how === 'ts'
              ? later(e)
              : how === 'text' && typeof (e as { text?: unknown }).text === 'string'
                ? ({ ...e, text: `${(e as { text: string }).text}!` } as AgentEvent)
                : ({ ...e } as AgentEvent);
          const { stream, bad } = edited(events, at, edit);
          const dirty: RefusedWrites = write(stream);
          if (dirty.refusals.length > 0)
            expectRefusedAlone(write, stream, bad, /Infinity is not a finite number/);
          // Written, the number is as the line spelled it, never `null`.
          else expect(dirty.text).not.toContain('"zz":null');
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });
});

describe('AG-UI: an event whose ts JSON cannot hold, or that is no number, is refused', () => {
  // Round thirty-four: a `ts` that is no number at all (a string, an object, a BigInt, `null`:
  // from an untyped caller) was left out of another format's records, nothing said, and written
  // as the `timestamp` of an AG-UI event's kept record. Refused now, as the OpenCode writer
  // refuses it. Each time, and how its refusal ends (after `<type>.ts: `).
  const TIMES: Array<[string, unknown, string]> = [
    ['NaN', Number.NaN, 'NaN is not a finite number'],
    ['Infinity', Number.POSITIVE_INFINITY, 'Infinity is not a finite number'],
    ['-Infinity', Number.NEGATIVE_INFINITY, '-Infinity is not a finite number'],
    ['a string', '1767225600000', 'a string, not a number$'],
    // Round thirty-six: said as every wrong type is (`wrongType`): `an object`, `null`, a
    // BigInt's digits left out, its way out kept.
    ['an object', { ms: 1 }, 'an object, not a number$'],
    ['a BigInt', BigInt(5), 'a BigInt, not a number; convert it with Number\\(\\)'],
    ['null', null, 'null, not a number$'],
  ];

  test.each(TIMES)("another format's event, ts %s, on every path", (_name, ts, tail) => {
    const base: AgentEvent[] = [
      { type: 'run.start', run: 'r', session: 's' },
      { type: 'message.start', message: 'm', role: 'assistant', round: 1 },
      { type: 'text.delta', text: 'a', message: 'm', round: 1 },
      { type: 'tool.start', call: 'c', name: 'n', args: {}, round: 1 },
      { type: 'tool.end', call: 'c', name: 'n', ok: true, text: 't', round: 1 },
      { type: 'notice', kind: 'k', message: 'm', round: 1 },
      { type: 'round.end', message: 'a', round: 1 },
      { type: 'run.end', status: 'completed' },
    ];
    const streams: Array<[AgentEvent[], AgentEvent]> = base.map((e, i) => {
      const bad = { ...e, ts } as AgentEvent;
      return [base.map((x, j) => (i === j ? bad : x)), bad];
    });
    // A text delta of the open message (the writer's shortcut), and one before any run (it
    // waits for one).
    for (const [at, bad] of [
      [3, { type: 'text.delta', text: 'b', message: 'm', round: 1, ts }],
      [0, { type: 'text.delta', text: 'early', ts }],
    ] as Array<[number, AgentEvent]>)
      streams.push([[...base.slice(0, at), bad, ...base.slice(at)], bad]);
    for (const [stream, bad] of streams) {
      const why = new RegExp(`^${bad.type.replace('.', '\\.')}\\.ts: ${tail}`);
      bothPaths(() => expectRefusedAlone(write, stream, bad, why));
    }
  });

  test.each(TIMES)('an event read from AG-UI, its ts made %s, on any line', (_name, ts, tail) => {
    for (const file of ['tool-call.sse', 'subagents.sse', 'reasoning-and-state.sse']) {
      const events = agui.parse(fixture(file)).events;
      for (const [i, e] of events.entries()) {
        if (e.provenance?.synthetic === true) continue;
        const { stream, bad } = edited(events, i, (x) => ({ ...x, ts }) as AgentEvent);
        const dirty = write(stream);
        // A part of a record written by another event's (nothing written for it) is not refused.
        if (dirty.refusals.length === 0) expect(dirty.text).toBe(write(events).text);
        else
          expectRefusedAlone(write, stream, bad, new RegExp(`^${e.type.replace('.', '\\.')}\\.ts: ${tail}`));
      }
    }
  });
});
