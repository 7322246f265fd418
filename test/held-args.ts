import { expect, test } from 'vitest';
import { convert } from '../src/convert';
import type { Diagnostic, Format } from '../src/diagnostics';
import { codecs } from '../src/formats/index';

// The shared case of the `held-args` tests (found by test/fuzz/structured.test.ts): a Gemini
// stream whose one call has arguments JSON cannot hold (`1e400` reads as Infinity), its call
// ended or never ended, converted to a writer that writes (or keeps) a call's start for later.
// The start alone is refused, at its own line, and the output reads back without an error.

function gemini(end: boolean): string {
  return [
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
}

/** One test per `ends` case: gemini → `to`, the call's start refused at its own line, nothing else. */
export function startRefusedAlone(to: Format, ends: readonly boolean[] = [true, false]): void {
  for (const end of ends) {
    test(`gemini → ${to}, the call ${end ? 'ended' : 'never ended'}: its start is refused at its own line, nothing else`, () => {
      const diagnostics: Diagnostic[] = [];
      const { output } = convert(gemini(end), {
        from: 'gemini',
        to,
        onDiagnostic: (d) => diagnostics.push(d),
      });
      const refused = diagnostics.filter((d) => d.severity === 'error' && / not written: /.test(d.message));
      expect(refused.map((d) => d.message)).toEqual([
        'line 3 (byte 172): tool.start not written: tool.start.args.command: Infinity is not a finite number; JSON cannot hold it',
      ]);
      expect(codecs[to]!.parse(output).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    });
  }
}
