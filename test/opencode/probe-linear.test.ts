import { test } from 'vitest';
import { opencode } from '../../src/formats/opencode/index';
import type { AgentEvent } from '../../src/model';
import { expectLinear } from '../fuzz/linear';

// Round thirty-three: the OpenCode writer asks a copy of itself (its open calls and steps copied)
// first when a line it rebuilds may write a `null` for a number of it. Its sieve said yes to any
// integer past 2^53 too, which JSON.stringify writes as digits (never `null`): a stream of such
// lines with calls held open made every line copy every open call, a cost quadratic in the
// stream. The sieve says yes now only to a number that is not finite (`1e400` on the line).
// Timed by test/fuzz/linear.test.ts's harness (test/fuzz/linear.ts): an input of size n and of
// size 8n in CPU time, the ratio of medians far from the 64 of a quadratic cost.

const SESSION = 'ses_1';
const BIG = '9007199254740993';

// `n` calls whose ends were taken out (held to the run's end), `n` child agents' text (a step
// each), then `n` lines of a type this writer does not know, each holding `big`; `big` in the
// calls' input too.
function events(n: number, big: string): AgentEvent[] {
  const lines: string[] = [];
  for (let i = 0; i < n; i++)
    lines.push(
      `{"type":"tool_use","timestamp":${i},"sessionID":"${SESSION}","part":{"id":"p${i}","sessionID":"${SESSION}","messageID":"m","type":"tool","callID":"c${i}","tool":"t","state":{"status":"completed","input":{"id":${big}},"output":"o","title":"t","metadata":{},"time":{"start":${i},"end":${i}}}}}`,
    );
  for (let i = 0; i < n; i++)
    lines.push(
      `{"type":"text","timestamp":${i},"sessionID":"${SESSION}","part":{"id":"q${i}","sessionID":"ses_c${i}","messageID":"m","type":"text","text":"t","time":{"start":${i},"end":${i}}}}`,
    );
  for (let i = 0; i < n; i++)
    lines.push(`{"type":"mystery","timestamp":${n + i},"sessionID":"${SESSION}","big":${big},"i":${i}}`);
  return opencode.parse(lines.join('\n')).events.filter((e) => e.type !== 'tool.end');
}

test.each([
  ['an integer past 2^53 (no probe)', BIG, 250],
  ["a number past a double's range (a probe that copies only what the event's write reads)", '1e400', 1000],
] as const)('lines holding %s, calls and steps held open: the write time is linear', (_what, big, start) => {
  expectLinear((n) => {
    const es = events(n, big);
    return () => {
      const e = opencode.createEncoder({ clock: () => 0, onDiagnostic() {} });
      for (const x of es) e.write(x);
      e.end();
    };
  }, start);
});
