import { describe, expect, test } from 'vitest';
import { agui, aisdk } from '../../src/all';
import type { AgentEvent, AgentEventOf } from '../../src/model';

// An edited field of an event the AG-UI writer read must reach the output, and read back as
// the edit, where its kept record has no place for it (test/edits-kept-structured.test.ts holds
// that for the fixtures): a call's arguments (gathered from the records before its end), a
// run's usage, the round of any event (the step it was read in); and the AI SDK writer's run
// usage (its finish's metadata).

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
  const call = sse(
    run,
    { type: 'STEP_STARTED', stepName: 'round 1' },
    { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'bash' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"command": "curl -H ' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: "'Authorization: hunter22' x\"}" },
    { type: 'TOOL_CALL_END', toolCallId: 'c1' },
    { type: 'STEP_FINISHED', stepName: 'round 1' },
    end,
  );

  test("a call's arguments: the redaction is what reads back", () => {
    expect(agui.stringify(agui.parse(call).events, quiet)).toBe(call);
    const out = editing(
      call,
      (e) => e.type === 'tool.start',
      (e) => ({ ...e, args: { command: 'curl [REDACTED]' } }) as AgentEvent,
    );
    const start = agui.parse(out).events.find((e) => e.type === 'tool.start');
    expect(start).toMatchObject({ call: 'c1', name: 'bash', args: { command: 'curl [REDACTED]' }, round: 1 });
    // Deleted, they read back as none of the kept text.
    const gone = editing(
      call,
      (e) => e.type === 'tool.start',
      (e) => {
        const { args: _args, ...rest } = e as AgentEvent & { args?: unknown };
        return rest as AgentEvent;
      },
    );
    expect(agui.parse(gone).events.find((e) => e.type === 'tool.start')).not.toHaveProperty('args.command');
  });

  test("a call's arguments edited in their pieces and at the end alike stay as read", () => {
    const out = editing(
      call,
      (e) => e.type === 'tool.start',
      (e) => ({ ...e, args: { command: "curl -H 'Authorization: hunter22' x" } }) as AgentEvent,
    );
    expect(out).toBe(call);
  });

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

  test('a round: the event reads back in the round it says, the others in theirs', () => {
    const input = sse(
      run,
      { type: 'STEP_STARTED', stepName: 'round 1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'a' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'b' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
      { type: 'STEP_FINISHED', stepName: 'round 1' },
      end,
    );
    expect(agui.stringify(agui.parse(input).events, quiet)).toBe(input);
    const rounds = (out: string) =>
      agui
        .parse(out)
        .events.filter((e) => e.type === 'text.delta' || e.type === 'round.end')
        .map((e) => [e.type, e.round]);
    const delta = editing(
      input,
      (e) => e.type === 'text.delta',
      (e) => ({ ...e, round: 7 }),
    );
    expect(rounds(delta)).toEqual([
      ['text.delta', 7],
      ['text.delta', 1],
      ['round.end', 1],
    ]);
    const start = editing(
      input,
      (e) => e.type === 'round.start',
      (e) => ({ ...e, round: 3 }),
    );
    expect(rounds(start)).toEqual([
      ['text.delta', 1],
      ['text.delta', 1],
      ['round.end', 1],
    ]);
    expect(agui.parse(start).events.find((e) => e.type === 'round.start')?.round).toBe(3);
    const roundEnd = editing(
      input,
      (e) => e.type === 'round.end',
      (e) => ({ ...e, round: 5 }),
    );
    expect(rounds(roundEnd)).toEqual([
      ['text.delta', 1],
      ['text.delta', 1],
      ['round.end', 5],
    ]);
  });
});

describe('the AI SDK writer, an edited event read from the AI SDK', () => {
  const usage = { inputTokens: 10, outputTokens: 2, totalTokens: 12 };
  const input = `${sse(
    { type: 'start', messageId: 'm1' },
    { type: 'finish', finishReason: 'stop', messageMetadata: { usage, durationMs: 40 } },
  )}data: [DONE]\n\n`;
  const editingRunEnd = (edit: (e: AgentEventOf<'run.end'>) => AgentEvent) => {
    const { events } = aisdk.parse(input);
    expect(aisdk.stringify(events, quiet)).toBe(input);
    const out = aisdk.stringify(
      events.map((e) => (e.type === 'run.end' ? edit(e) : e)),
      quiet,
    );
    return aisdk.parse(out).events.find((e) => e.type === 'run.end');
  };

  test("a run's usage edited is what reads back", () => {
    const end = editingRunEnd((e) => ({ ...e, usage: { input: 7, output: 1 } }));
    expect(end?.usage).toEqual({ input: 7, output: 1 });
    expect(end?.durationMs).toBe(40);
  });

  test("a run's usage deleted reads back as none", () => {
    const end = editingRunEnd(({ usage: _usage, ...rest }) => rest);
    expect(end).not.toHaveProperty('usage');
    expect(end?.durationMs).toBe(40);
  });
});
