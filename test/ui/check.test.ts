import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { agui, convert, highbar } from '../../src/all';
import { codecFor } from '../../src/formats';
import { listFixtures } from '../../src/node/fixtures';

// agui.check judges the order of the records as they stand on the wire. The decoder reads a
// carried event the writer puts right after RUN_STARTED (a session start, a notice, …) as coming
// before the run (hints.early), and a step the run's end closed (metadata.agentwire.closing) as no
// event of its own (hints.before on the next one): neither is an order error.

const sse = (...records: object[]) => records.map((r) => `data: ${JSON.stringify(r)}\n\n`).join('');
const findings = (text: string) => agui.check(text).map((d) => `${d.severity} ${d.message}`);

const RUN_STARTED = { type: 'RUN_STARTED', threadId: 't', runId: 'r' };
const RUN_FINISHED = { type: 'RUN_FINISHED', threadId: 't', runId: 'r' };
const SESSION_START = { type: 'CUSTOM', name: 'agentwire.session.start', value: { cwd: '/x' } };
const STEP_STARTED = { type: 'STEP_STARTED', stepName: 'round 1' };

function deterministic() {
  let n = 0;
  return { clock: () => 1767225600000, idSource: () => `id-${++n}` };
}

describe('agui.check: the order on the wire', () => {
  test('a carried session start right after RUN_STARTED (how the writer writes one) is no error', () => {
    expect(findings(sse(RUN_STARTED, SESSION_START, RUN_FINISHED))).toEqual([]);
    // and in a later run, after the first one finished
    const second = { ...RUN_STARTED, runId: 'r2' };
    const notice = { type: 'CUSTOM', name: 'agentwire.notice', value: { kind: 'hook' } };
    expect(findings(sse(RUN_STARTED, SESSION_START, RUN_FINISHED, second, notice, RUN_FINISHED))).toEqual([]);
  });

  test('a carried event before any RUN_STARTED, or after the run finished, is still an error', () => {
    expect(findings(sse(SESSION_START, RUN_STARTED, RUN_FINISHED))[0]).toMatch(
      /line 1 .*the first event must be RUN_STARTED/,
    );
    expect(findings(sse(RUN_STARTED, RUN_FINISHED, SESSION_START))).toEqual([
      'error line 5 (byte 115): an event after the run finished',
    ]);
  });

  test("a step the run's end closed (metadata.agentwire.closing) is finished; one never finished is not", () => {
    const closing = {
      type: 'STEP_FINISHED',
      stepName: 'round 1',
      metadata: { agentwire: { closing: true } },
    };
    const cancelled = { ...RUN_FINISHED, outcome: { type: 'cancelled' } };
    expect(findings(sse(RUN_STARTED, STEP_STARTED, closing, cancelled))).toEqual([]);
    expect(findings(sse(RUN_STARTED, STEP_STARTED, cancelled))).toEqual([
      'error line 5 (byte 109): the run ends with a step still open',
    ]);
  });

  test('an empty highbar turn written as AG-UI passes', () => {
    const two =
      '{"v": 1, "type": "turn", "ts": 1796231188.73}\n{"v": 1, "type": "turn", "ts": 1796231188.731}\n';
    expect(highbar.parse(two).diagnostics).toEqual([]);
    expect(findings(convert(two, { from: 'highbar', to: 'ag-ui', ...deterministic() }).output)).toEqual([]);
  });
});

// Every fixture of every format (each framing) written as AG-UI: what the writer writes, its own
// checker accepts. An AG-UI source with an error of its own is written back as read (byte for
// byte), error included: those are left out, as in peers.test.ts.
describe.each(listFixtures().map((f) => [`${f.format}/${f.name}`, f] as const))(
  'agui.check: %s written as AG-UI',
  (_label, f) => {
    const bytes = readFileSync(f.path);
    const clean = codecFor(f.format)!
      .parse(bytes)
      .diagnostics.every((d) => d.severity !== 'error');
    test.runIf(f.format !== 'ag-ui' || clean)('no error', () => {
      const { output } = convert(bytes, { from: f.format, to: 'ag-ui', ...deterministic() });
      expect(agui.check(output).filter((d) => d.severity === 'error')).toEqual([]);
    });
  },
);
