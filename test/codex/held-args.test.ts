import { expect, test } from 'vitest';
import { convert } from '../../src/convert';
import type { Diagnostic } from '../../src/diagnostics';
import { codex } from '../../src/formats/codex/index';

// Found by the structured fuzzer (test/fuzz/structured.test.ts). This writer kept a call's start
// before writing it: arguments JSON cannot hold (`1e400` in the source reads as Infinity) had the
// start refused, and then its end too, which repeats the arguments (a second error, at the end's
// line, about the start's field). Now the start is refused before anything is kept of it.

const GEMINI = (end: boolean) =>
  [
    '{"type":"init","timestamp":"2026-03-19T10:14:27.962Z","session_id":"s1","model":"m"}',
    '{"type":"message","timestamp":"2026-03-19T10:14:27.999Z","role":"user","content":"go"}',
    '{"type":"tool_use","timestamp":"2026-03-19T10:14:29.258Z","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":1e400}}',
    ...(end
      ? [
          '{"type":"tool_result","timestamp":"2026-03-19T10:14:29.898Z","tool_id":"t1","status":"success","output":"ok"}',
          '{"type":"result","timestamp":"2026-03-19T10:14:31.671Z","status":"success","stats":{}}',
        ]
      : []),
  ].join('\n');

for (const end of [true, false]) {
  test(`gemini → codex, the call ${end ? 'ended' : 'never ended'}: its start is refused at its own line, nothing else`, () => {
    const diagnostics: Diagnostic[] = [];
    const { output } = convert(GEMINI(end), {
      from: 'gemini',
      to: 'codex',
      onDiagnostic: (d) => diagnostics.push(d),
    });
    const refused = diagnostics.filter((d) => d.severity === 'error' && / not written: /.test(d.message));
    expect(refused.map((d) => d.message)).toEqual([
      'line 3 (byte 172): tool.start not written: tool.start.args.command: Infinity is not a finite number; JSON cannot hold it',
    ]);
    expect(codex.parse(output).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
}
