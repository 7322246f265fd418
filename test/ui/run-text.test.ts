import fc from 'fast-check';
import { expect, test } from 'vitest';
import { agui } from '../../src/all';
import { AGUI_WRITER_SHORTCUTS } from '../../src/formats/ag-ui/encode';
import type { AgentEvent } from '../../src/model';
import { FUZZ_RUNS } from '../runs';

// The AG-UI writer keeps the main agent's text of the run (a run's answer equal to it is not
// written again) as each ended message's text joined, then the open message's pieces. Held to
// its definition: the concatenation of every non-empty main-agent text delta of the run, in
// order, whatever messages, rounds, reasoning, calls and subagent text come between, with the
// writer's shortcuts on and off.

const text = fc.oneof(
  fc.constantFrom('', 'a', 'hi "there"\n', '\\', '😀', 'x'.repeat(40)),
  fc.string({ maxLength: 6, unit: 'grapheme' }),
);
const id = fc.constantFrom('m1', 'm2', 'm3');
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

const between: fc.Arbitrary<AgentEvent> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      { type: fc.constant('text.delta'), text, message: maybe(id) },
      { requiredKeys: ['type', 'text'] },
    ),
  },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('text.delta'), text, lane: fc.constant('k1') }) },
  {
    weight: 2,
    arbitrary: fc.record(
      { type: fc.constant('message.start'), role: fc.constant('assistant'), message: maybe(id) },
      { requiredKeys: ['type', 'role'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      { type: fc.constant('message.end'), message: maybe(id) },
      { requiredKeys: ['type'] },
    ),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('reasoning.delta'), text }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('round.start') }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('round.end') }) },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant('tool.start'), call: id, name: fc.constant('read') }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('tool.end'), call: id, ok: fc.boolean(), text }) },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('child.end'),
      child: fc.constant('k1'),
      status: fc.constant('completed'),
    }),
  },
) as fc.Arbitrary<AgentEvent>;

function runResult(events: AgentEvent[]): unknown {
  const e = agui.createEncoder({ framing: 'jsonl' });
  let out = '';
  for (const ev of events) out += e.write(ev);
  out += e.end();
  const finished = out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((r) => r.type === 'RUN_FINISHED');
  expect(finished).toBeDefined();
  return finished!.result;
}

test('ag-ui: an answer is left out exactly when it is the run’s main-agent text', () => {
  const was = AGUI_WRITER_SHORTCUTS.enabled;
  try {
    fc.assert(
      fc.property(
        fc.array(between, { maxLength: 40 }),
        fc.constantFrom('same', 'extra', 'short', 'empty'),
        fc.boolean(),
        (events, kind, shortcuts) => {
          AGUI_WRITER_SHORTCUTS.enabled = shortcuts;
          let runText = '';
          for (const ev of events)
            if (ev.type === 'text.delta' && ev.lane === undefined && ev.text !== '') runText += ev.text;
          const answer =
            kind === 'same'
              ? runText
              : kind === 'extra'
                ? `${runText}x`
                : kind === 'short'
                  ? runText.slice(0, -1)
                  : '';
          const result = runResult([
            { type: 'run.start' },
            ...events,
            { type: 'run.end', status: 'completed', answer },
          ]);
          expect(result).toBe(answer === '' || answer === runText ? undefined : answer);
        },
      ),
      { numRuns: FUZZ_RUNS * 5 },
    );
  } finally {
    AGUI_WRITER_SHORTCUTS.enabled = was;
  }
});
