import { test } from 'vitest';
import { codex } from '../../src/formats/codex/index';
import { CODEX_COMMAND_TOOL } from '../../src/formats/codex/wire';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, NON_FINITE, nonFiniteRefusal, refusingWriter } from '../refused-writes';

// Found by test/fuzz/refusal.test.ts once it checks for `null`: the Codex writer puts a failure's
// structured error (an MCP call's `error.message`, a command's output) and a command's structured
// result into a string as JSON text, and a number JSON cannot hold there (Infinity, NaN) was
// written as the `null` JSON.stringify makes of it, with nothing said. Refused now, as the same
// number in an MCP call's result (written as JSON) is.

const write = refusingWriter((options) => codex.createEncoder(options));

const cases: ReadonlyArray<[string, AgentEvent, (v: number) => AgentEvent, string]> = [
  [
    "an MCP call's failure error",
    { type: 'tool.start', call: 'c', name: 'lookup', args: { q: 'x' } },
    (v) => ({ type: 'tool.end', call: 'c', name: 'lookup', ok: false, error: { n: v } }),
    'tool\\.end\\.error\\.n',
  ],
  [
    "a command's result",
    { type: 'tool.start', call: 'c', name: CODEX_COMMAND_TOOL, args: { command: 'ls' } },
    (v) => ({ type: 'tool.end', call: 'c', name: CODEX_COMMAND_TOOL, ok: true, result: { n: v } }),
    'tool\\.end\\.result\\.n',
  ],
  [
    "a command's failure error",
    { type: 'tool.start', call: 'c', name: CODEX_COMMAND_TOOL, args: { command: 'ls' } },
    (v) => ({ type: 'tool.end', call: 'c', name: CODEX_COMMAND_TOOL, ok: false, error: { n: v } }),
    'tool\\.end\\.error\\.n',
  ],
];

for (const [what, start, make, path] of cases)
  for (const [name, value] of NON_FINITE)
    test(`${what} holding ${name} is refused, not written as null`, () => {
      const bad = make(value);
      const stream: AgentEvent[] = [
        { type: 'run.start', input: 'go' },
        start,
        bad,
        { type: 'tool.end', call: 'c', name: 'lookup', ok: true, text: 'found' },
        { type: 'run.end', status: 'completed' },
      ];
      expectRefusedAlone(write, stream, bad, nonFiniteRefusal(path, name));
    });
