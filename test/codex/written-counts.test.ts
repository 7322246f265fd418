import { expect, test } from 'vitest';
import { convert } from '../../src/convert';
import type { Diagnostic } from '../../src/diagnostics';
import { codex } from '../../src/formats/codex/index';

// Found by the structured fuzzer (test/fuzz/structured.test.ts). Codex counts tokens in
// non-negative integers, and its reader takes a `turn.completed` with any other count as no usage
// (an error: "usage.input_tokens is not a non-negative integer"). The writer spelled whatever
// count another format's usage had (Amp's `-1`, a fraction), writing a line its own reader
// refuses. Now it refuses the run's end instead, reported at the end's line.

const AMP = (input: string) =>
  [
    '{"type":"system","subtype":"init","cwd":"/w","session_id":"T-1","tools":["Bash"],"mcp_servers":[]}',
    '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go"}]},"parent_tool_use_id":null,"session_id":"T-1"}',
    `{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":${input},"output_tokens":3}},"parent_tool_use_id":null,"session_id":"T-1"}`,
    '{"type":"result","subtype":"success","duration_ms":10,"is_error":false,"num_turns":1,"result":"done","session_id":"T-1"}',
  ].join('\n');

for (const input of ['-1', '1.5']) {
  test(`amp → codex, an input count of ${input}: refused by the writer, not written for the reader to refuse`, () => {
    const diagnostics: Diagnostic[] = [];
    const { output } = convert(AMP(input), {
      from: 'amp',
      to: 'codex',
      onDiagnostic: (d) => diagnostics.push(d),
    });
    const errors = diagnostics.filter((d) => d.severity === 'error').map((d) => d.message);
    expect(errors).toEqual([
      `line 4 (byte ${input === '-1' ? 453 : 454}): run.end not written: run.end.usage: the thread's input_tokens would be ${input}, and Codex counts tokens in non-negative integers`,
    ]);
    expect(codex.parse(output).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
}

// The same for a command's exit code, an integer or null in Codex: another format's `1.5` was
// spelled as it was. Now it is written as null, with a `loss`.
const OPENCODE = (exit: string) =>
  [
    '{"type":"step_start","timestamp":1767225600137,"sessionID":"ses_1","part":{"id":"prt_1","sessionID":"ses_1","messageID":"msg_1","type":"step-start"}}',
    `{"type":"tool_use","timestamp":1767225600274,"sessionID":"ses_1","part":{"id":"prt_2","sessionID":"ses_1","messageID":"msg_1","type":"tool","callID":"call_1","tool":"bash","state":{"status":"completed","input":{"command":"dir"},"output":"ok","title":"List","metadata":{"output":"ok","exit":${exit}},"time":{"start":1767225600147,"end":1767225600227}}}}`,
  ].join('\n');

test('opencode → codex, an exit code of 1.5: written as null with a loss, read back without an error', () => {
  const diagnostics: Diagnostic[] = [];
  const { output } = convert(OPENCODE('1.5'), {
    from: 'opencode',
    to: 'codex',
    onDiagnostic: (d) => diagnostics.push(d),
  });
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(diagnostics.map((d) => d.field)).toContain('tool.end.exitCode');
  expect(output).toContain('"exit_code":null');
  expect(codex.parse(output).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
});
