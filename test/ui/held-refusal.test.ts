import { describe, expect, test } from 'vitest';
import { convert } from '../../src/convert';
import type { Diagnostic } from '../../src/diagnostics';
import { agui } from '../../src/formats/ag-ui/index';
import { aisdk } from '../../src/formats/ai-sdk/index';
import type { AgentEvent } from '../../src/model';

// Found by the structured fuzzer (test/fuzz/structured.test.ts). A UI protocol has no record
// outside a run: its writer holds what comes before one and writes it after the next run's
// opening record. An event held that the writer must refuse (a value JSON cannot hold: the
// `1e400` of a JSON line reads as Infinity) was refused only there, inside the run's start, and
// took the start and every other event held with it down: the stream lost its run's opening
// record and its prompt, and the only error named the run's start for a field of another event.
// Now the held event is refused at its own write, and the run starts.

// A Gemini CLI stream whose second line carries a number no double holds.
const GEMINI = [
  '{"type":"init","timestamp":"2026-03-19T10:15:30.000Z","session_id":"s","model":"m"}',
  '{"type":"weird","x":1e400}',
  '{"type":"message","timestamp":"2026-03-19T10:15:30.041Z","role":"user","content":"hi"}',
  '{"type":"result","timestamp":"2026-03-19T10:15:31.041Z","status":"success","stats":{}}',
].join('\n');

describe('an event held before a run that the writer refuses', () => {
  for (const [to, codec, start] of [
    ['ai-sdk', aisdk, 'start'],
    ['ag-ui', agui, 'RUN_STARTED'],
  ] as const) {
    test(`${to}: gemini → ${to}: the held event is refused at its own line; the run and the session held with it are written`, () => {
      const diagnostics: Diagnostic[] = [];
      const { output } = convert(GEMINI, { from: 'gemini', to, onDiagnostic: (d) => diagnostics.push(d) });
      const refusals = diagnostics.filter((d) => d.severity === 'error').map((d) => d.message);
      expect(refusals).toEqual([
        'line 2 (byte 84): the number 1e400 is beyond the range of a double (it reads as Infinity)',
        'line 2 (byte 84): unknown not written: unknown.record.x: Infinity is not a finite number; JSON cannot hold it',
      ]);
      expect(output).toContain(`"type":"${start}"`);
      const back = codec.parse(output);
      expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      // The run, and the session held with the refused event, come back.
      expect(back.events.map((e) => e.type)).toEqual(expect.arrayContaining(['session.start', 'run.start']));
    });

    test(`${to}: a tool call's arguments JSON cannot hold, before a run: refused at its own write`, () => {
      const encoder = codec.createEncoder();
      const held = {
        type: 'tool.start',
        call: 'c',
        name: 'n',
        args: { x: Number.POSITIVE_INFINITY },
      } as AgentEvent;
      expect(() => encoder.write(held)).toThrow(/tool\.start\.args\.x: Infinity is not a finite number/);
      const out =
        encoder.write({ type: 'run.start', input: 'hi' }) +
        encoder.write({ type: 'run.end', status: 'completed' });
      expect(out).toContain(`"type":"${start}"`);
      expect(codec.parse(out + encoder.end()).events.map((e) => e.type)).toContain('run.start');
    });
  }

  test('ag-ui: an unknown record JSON cannot hold is refused inside a run too, not written with null for Infinity', () => {
    const encoder = agui.createEncoder();
    encoder.write({ type: 'run.start' });
    const record = { type: 'weird', x: Number.POSITIVE_INFINITY };
    expect(() => encoder.write({ type: 'unknown', recordType: 'weird', record })).toThrow(
      /unknown\.record\.x: Infinity is not a finite number/,
    );
  });
});
