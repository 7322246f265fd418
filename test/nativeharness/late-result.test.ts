import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, convert, type Diagnostic, nativeharness } from '../../src/all';

// Issue #16, round eleven: a call's result that lands after its turn ended (a background Task's
// subagent call in Claude Code) has no tool_result: it answers a running call of its own turn only.

const capture = fileURLToPath(
  new URL(
    '../../../shared/captures/claude-code/hivemind-2.1.284-background-subagent-no-result.jsonl',
    import.meta.url,
  ),
);

function ids(): () => string {
  let n = 0;
  return () => `id-${++n}`;
}

function write(events: AgentEvent[]): { text: string; losses: Diagnostic[] } {
  const losses: Diagnostic[] = [];
  const text = nativeharness.stringify(events, {
    conform: true,
    framing: 'jsonl',
    clock: () => 1_767_225_600_000,
    idSource: ids(),
    onDiagnostic: (d) => {
      if (d.code === 'loss') losses.push(d);
    },
  });
  return { text, losses };
}

const errors = (text: string) => nativeharness.check(text).filter((d) => d.severity === 'error');

describe('a result landing in a later turn (nativeharness writer, conform)', () => {
  test('after a turn left open (incomplete): a loss, not a tool_result in the next turn', () => {
    const { text, losses } = write([
      { type: 'run.start', input: 'go' },
      { type: 'tool.start', call: 'bg', name: 'Task' },
      {
        type: 'run.end',
        status: 'incomplete',
        provenance: { format: 'claude', line: 3, offset: 0, synthetic: true },
      },
      { type: 'run.start', input: 'more' },
      { type: 'tool.end', call: 'bg', name: 'Task', ok: true, text: 'late' },
      { type: 'run.end', status: 'completed' },
    ]);
    expect(errors(text)).toEqual([]);
    expect(text).not.toContain('"output":"late"');
    expect(losses.map((d) => d.field)).toContain('tool.end');
    const back = nativeharness.parse(text).events;
    // The turn left open ends incomplete (at the log's end: turns are told apart by id).
    const ends = back.filter((e) => e.type === 'run.end').map((e) => (e as { status: string }).status);
    expect(ends.sort()).toEqual(['completed', 'incomplete']);
  });

  test('after its turn was done (its result then written as not ended): a loss, never a second result', () => {
    const { text, losses } = write([
      { type: 'run.start', input: 'go' },
      { type: 'tool.start', call: 'bg', name: 'Task' },
      { type: 'run.end', status: 'completed' },
      { type: 'run.start', input: 'more' },
      { type: 'tool.end', call: 'bg', name: 'Task', ok: true, text: 'late' },
      { type: 'run.end', status: 'completed' },
    ]);
    expect(errors(text)).toEqual([]);
    expect(text.match(/"type":"tool_result"/g)).toHaveLength(1);
    expect(losses.map((d) => d.field)).toContain('tool.end');
  });

  test('a result in its own turn is written as ever', () => {
    const { text, losses } = write([
      { type: 'run.start', input: 'go' },
      { type: 'tool.start', call: 'c', name: 'Bash' },
      { type: 'tool.end', call: 'c', name: 'Bash', ok: true, text: 'fine' },
      { type: 'run.end', status: 'completed' },
    ]);
    expect(text).toContain('"output":"fine"');
    expect(losses).toEqual([]);
  });

  test.runIf(existsSync(capture))(
    'the hivemind Claude capture converts to a log nativeharness.check accepts',
    () => {
      const { output, diagnostics } = convert(readFileSync(capture), {
        from: 'claude',
        to: 'nativeharness',
        clock: () => 1_767_225_600_000,
        idSource: ids(),
      });
      expect(errors(output)).toEqual([]);
      // The subagent's Bash call started in the first turn; its result came in the second.
      expect(diagnostics.some((d) => d.code === 'loss' && d.field === 'tool.end')).toBe(true);
      expect(output).not.toContain('"call_id":"toolu_012CZN2duNQyidfmpgSUk7eE","tool":"Bash","status"');
    },
  );
});
