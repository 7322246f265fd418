import { expect, test } from 'vitest';
import { isAgentwireError } from '../../src/diagnostics';
import { gemini } from '../../src/formats/gemini/index';

// Found by test/fuzz/structured.test.ts (codex → gemini): the writer holds an event said outside
// a run and writes it at the next run's start. A value JSON cannot hold in it (`1e400` read as
// Infinity) was refused only then, as the run's start's refusal, which took the start down with
// it. Now the held event is refused at its own write, and the run's start is written.
test('an event held outside a run is refused at its own write, not at the run start', () => {
  const e = gemini.createEncoder({ onDiagnostic() {} });
  e.write({ type: 'session.start', session: 's1' });
  let thrown: unknown;
  try {
    e.write({ type: 'tool.end', call: 't1', name: 'x', ok: true, result: { n: Number.POSITIVE_INFINITY } });
  } catch (error) {
    thrown = error;
  }
  expect(isAgentwireError(thrown) && thrown.diagnostic.message).toContain('tool.end.result.n');
  const start = e.write({ type: 'run.start', input: 'go' });
  expect(start).toContain('"role":"user","content":"go"');
});
