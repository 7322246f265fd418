import { describe, expect, test } from 'vitest';
import { agui } from '../../src/all';
import type { AgentEvent } from '../../src/model';

// An edited field of an event the AG-UI writer read must reach the output, and read back as
// the edit, where its kept record has no place for it (test/edits-kept-structured.test.ts holds
// that for the fixtures): a call's arguments (gathered from the records before its end), a
// run's usage, the round of any event (the step it was read in).

const quiet = { onDiagnostic() {} } as never;

const sse = (...records: object[]) => records.map((r) => `data: ${JSON.stringify(r)}\n\n`).join('');

/** The stream's events with the first event `pick` accepts changed by `edit`, written. */
function editing(input: string, pick: (e: AgentEvent) => boolean, edit: (e: AgentEvent) => AgentEvent) {
  const { events } = agui.parse(input);
  const i = events.findIndex(pick);
  expect(i).toBeGreaterThanOrEqual(0);
  return agui.stringify(
    events.map((e, j) => (j === i ? edit(e) : e)),
    quiet,
  );
}

const run = { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' };
const end = { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' };

describe('the AG-UI writer, an edited event read from AG-UI', () => {
  test("a run's usage", () => {
    const input = sse(run, {
      ...end,
      usage: [{ provider: 'openai', model: 'gpt-5', inputTokens: 10, outputTokens: 2, totalTokens: 12 }],
    });
    expect(agui.stringify(agui.parse(input).events, quiet)).toBe(input);
    const out = editing(
      input,
      (e) => e.type === 'run.end',
      (e) => ({ ...e, usage: { input: 7, output: 1, model: 'gpt-5' } }) as AgentEvent,
    );
    expect(agui.parse(out).events.find((e) => e.type === 'run.end')?.usage).toEqual({
      input: 7,
      output: 1,
      model: 'gpt-5',
    });
  });
});
