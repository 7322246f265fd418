import { expect, test } from 'vitest';
import { convert } from '../../src/convert';
import type { Diagnostic } from '../../src/diagnostics';
import { claude } from '../../src/formats/claude/index';
import type { AgentEvent } from '../../src/model';

// Found by the structured fuzzer (test/fuzz/structured.test.ts). The Claude writer holds an
// assistant message's blocks until the message ends and checked a call's arguments only when it
// wrote the message: arguments JSON cannot hold (`1e400` in the source reads as Infinity) were
// refused at a later event's write or at the end, where a conversion does not catch a writer's
// refusal: `convert` threw (not strict), and every line still held was lost with it. Now the
// call's arguments are checked when its `tool.start` is written: that event alone is refused,
// reported at its line, and the rest is written.

// An Amp stream whose one tool call has an argument past a double's range.
const AMP = [
  '{"type":"system","subtype":"init","cwd":"/w","session_id":"T-1","tools":["Bash"],"mcp_servers":[]}',
  '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go"}]},"parent_tool_use_id":null,"session_id":"T-1"}',
  '{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"Running."},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"cmd":1e400}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"T-1"}',
  '{"type":"result","subtype":"success","duration_ms":10,"is_error":false,"num_turns":1,"result":"done","session_id":"T-1"}',
].join('\n');

test('amp → claude: a call whose arguments JSON cannot hold is refused at its line; the conversion goes on', () => {
  const diagnostics: Diagnostic[] = [];
  const { output } = convert(AMP, { from: 'amp', to: 'claude', onDiagnostic: (d) => diagnostics.push(d) });
  const refused = diagnostics.filter((d) => d.severity === 'error' && /not written/.test(d.message));
  expect(refused.map((d) => [d.line, d.message])).toEqual([
    [
      3,
      'line 3 (byte 226): tool.start not written: tool.start.args.cmd: Infinity is not a finite number; JSON cannot hold it',
    ],
  ]);
  const back = claude.parse(output);
  expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  // The message's text and the run's end are written.
  expect(back.events.map((e) => e.type)).toEqual(expect.arrayContaining(['text.delta', 'run.end']));
});

test('claude writer: the refusal is the tool.start write, not the end', () => {
  const encoder = claude.createEncoder();
  const start: AgentEvent = { type: 'run.start', session: 's', input: 'go' };
  let out = encoder.write(start);
  out += encoder.write({ type: 'text.delta', text: 'Running.', message: 'm1' });
  expect(() =>
    encoder.write({ type: 'tool.start', call: 'c1', name: 'Bash', args: { cmd: Number.POSITIVE_INFINITY } }),
  ).toThrow(/tool\.start\.args\.cmd: Infinity is not a finite number/);
  out += encoder.write({ type: 'run.end', status: 'completed' });
  expect(() => (out += encoder.end())).not.toThrow();
  expect(claude.parse(out).events.map((e) => e.type)).toContain('text.delta');
});

// The same for an event outside any run, which the writer holds for the next run's start or end
// (a Claude reader takes what follows an `init` for a run): refused only there, it took the
// run's start or end down with it (nativeharness → claude: "run.end not written:
// tool.start.args.agent").
test('claude writer: a call outside any run is refused at its own write, not at the run it waits for', () => {
  for (const next of ['run.start', 'run.end'] as const) {
    const encoder = claude.createEncoder();
    const held: AgentEvent = { type: 'tool.start', call: 'c1', name: 'Task', args: { agent: Number.NaN } };
    expect(() => encoder.write(held)).toThrow(/tool\.start\.args\.agent: NaN is not a finite number/);
    const event: AgentEvent =
      next === 'run.start'
        ? { type: 'run.start', session: 's', input: 'go' }
        : { type: 'run.end', status: 'completed' };
    let out = '';
    expect(() => {
      out = encoder.write(event) + encoder.end();
    }).not.toThrow();
    expect(claude.parse(out).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  }
});
