import { describe, expect, test } from 'vitest';
import { agui, aisdk, type Codec } from '../../src/all';
import type { AgentEvent } from '../../src/model';

// A field deleted from an event the UI writers read must not come back from the record the event
// kept (test/edits-kept.test.ts holds that for every text field of every fixture). These are the
// records the fixtures do not have: metadata, carried values and records, records read as no
// event, and the chunks a run's end carries.

const quiet = { onDiagnostic() {} } as never;

/** The stream's events with `field` deleted from the first event `pick` accepts. */
function deleting(codec: Codec, input: string, pick: (e: AgentEvent) => boolean, field: string): string {
  const { events } = codec.parse(input);
  const i = events.findIndex(pick);
  expect(i).toBeGreaterThanOrEqual(0);
  const { [field]: _gone, ...rest } = events[i] as unknown as Record<string, unknown>;
  const edited = events.map((e, j) => (j === i ? (rest as unknown as AgentEvent) : e));
  return codec.stringify(edited, quiet);
}

const sse = (...records: object[]) => records.map((r) => `data: ${JSON.stringify(r)}\n\n`).join('');

describe('ag-ui', () => {
  const run = { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' };
  const end = { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' };

  test('records read as no event (an invalid carried one, a RAW one) are written back as read', () => {
    const input = sse(
      run,
      { type: 'CUSTOM', name: 'agentwire.bogus', value: { x: 1 } },
      { type: 'RAW', event: { type: 'zzz', secret: 'hunter22' }, source: 'x' },
      end,
    );
    expect(agui.stringify(agui.parse(input).events, quiet)).toBe(input);
    const out = deleting(agui, input, (e) => e.type === 'unknown' && e.recordType === 'zzz', 'record');
    expect(out).not.toContain('hunter22');
  });

  test("a round end's stop reason, a call start's metadata", () => {
    const input = sse(
      run,
      { type: 'STEP_STARTED', stepName: 'round 1' },
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'bash' },
      { type: 'TOOL_CALL_END', toolCallId: 'c1', metadata: { agentwire: { argsSummary: 'cat ~/.secret' } } },
      { type: 'STEP_FINISHED', stepName: 'round 1', metadata: { agentwire: { stopReason: 'end_turn-x' } } },
      end,
    );
    expect(agui.stringify(agui.parse(input).events, quiet)).toBe(input);
    const noSummary = deleting(agui, input, (e) => e.type === 'tool.start', 'argsSummary');
    expect(noSummary).not.toContain('.secret');
    expect(noSummary).toContain('{"type":"TOOL_CALL_END","toolCallId":"c1"}');
    expect(deleting(agui, input, (e) => e.type === 'round.end', 'stopReason')).not.toContain('end_turn-x');
  });

  test("a run start's input goes, its resume entries stay", () => {
    const input = sse({
      ...run,
      input: {
        threadId: 't1',
        runId: 'r1',
        messages: [{ id: 'u1', role: 'user', content: 'my password is hunter22' }],
        resume: [{ interruptId: 'i1', status: 'resolved', payload: { approved: true } }],
      },
    });
    const out = deleting(agui, input, (e) => e.type === 'run.start', 'input');
    expect(out).not.toContain('hunter22');
    expect(agui.parse(out).events.map((e) => e.type)).toContain('approval.resolve');
  });
});

describe('ai-sdk', () => {
  test("a call start's metadata, a carried event's lane", () => {
    const input = sse(
      { type: 'start', messageId: 'm1' },
      { type: 'start-step' },
      {
        type: 'tool-input-available',
        toolCallId: 'c1',
        toolName: 'bash',
        input: {},
        toolMetadata: { agentwire: { kind: 'shell-x', argsSummary: 'ls' } },
      },
      { type: 'data-agentwire.plan', data: { items: [], lane: 'lane-secret' } },
      { type: 'finish-step' },
      { type: 'finish' },
    );
    expect(aisdk.stringify(aisdk.parse(input).events, quiet)).toBe(`${input}data: [DONE]\n\n`);
    const noKind = deleting(aisdk, input, (e) => e.type === 'tool.start', 'kind');
    expect(noKind).not.toContain('shell-x');
    expect(noKind).toContain('"toolMetadata":{"agentwire":{"argsSummary":"ls"}}');
    expect(deleting(aisdk, input, (e) => e.type === 'plan', 'lane')).not.toContain('lane-secret');
  });

  test("a run's failure deleted is not written back from the error chunk its end carried", () => {
    const failure = 'quota of acct-123 exceeded';
    const events: AgentEvent[] = [
      { type: 'run.start', run: 'r1' },
      { type: 'error', message: failure, fatal: false },
      { type: 'run.end', status: 'failed', error: failure },
    ];
    const input = aisdk.stringify(events, quiet);
    // Said twice: the carried error, and the error chunk the failed run's end restates it in.
    expect(input.split(failure).length - 1).toBe(2);
    expect(aisdk.stringify(aisdk.parse(input).events, quiet)).toBe(input);
    const out = deleting(aisdk, input, (e) => e.type === 'run.end', 'error');
    expect(out.split(failure).length - 1).toBe(1);
  });
});
