import { expect, test } from 'vitest';
import { convert } from '../../src/convert';
import type { Diagnostic } from '../../src/diagnostics';
import { highbar } from '../../src/formats/highbar/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, writeRefusing } from '../refused-writes';

// Found by test/fuzz/refusal.test.ts: the highbar writer marked a tool.end's run as having
// written and forgot its call before it wrote the call's record, where a result JSON cannot hold
// is refused. A refused end then hid that a run cut off wrote nothing (the loss went unsaid) and
// took its call's start down with it (never written). Now the record comes first.

function write(events: readonly AgentEvent[]): { text: string; refusals: string[]; said: Diagnostic[] } {
  const said: Diagnostic[] = [];
  const e = highbar.createEncoder({ clock: () => 0, onDiagnostic: (d) => said.push(d) });
  return { ...writeRefusing(e, events), said };
}

const refused: AgentEvent = { type: 'tool.end', call: 'c', name: 'n', ok: true, result: { v: BigInt(7) } };

test('a refused tool.end does not count as its run having written', () => {
  const stream: AgentEvent[] = [
    { type: 'run.start', ts: 0 },
    refused,
    // Another format's stream stopped inside the run: its end came from no record.
    {
      type: 'run.end',
      status: 'incomplete',
      ts: 0,
      provenance: { format: 'claude', line: 1, offset: 0, synthetic: true },
    },
  ];
  const dirty = write(stream);
  const clean = write(stream.filter((e) => e !== refused));
  expect(dirty.refusals).toHaveLength(1);
  expect(dirty.text).toBe(clean.text);
  // The run that wrote nothing and never ended is said, as without the refused event.
  const fields = (ds: Diagnostic[]) => ds.filter((d) => d.code === 'loss').map((d) => d.field);
  expect(fields(clean.said)).toEqual(['run.start']);
  expect(fields(dirty.said)).toEqual(fields(clean.said));
});

test("a refused tool.end leaves its call's start to be written", () => {
  const stream: AgentEvent[] = [
    { type: 'run.start', input: 'a', ts: 0 },
    { type: 'tool.start', call: 'c', name: 'n', args: { a: 1 }, ts: 0 },
    refused,
    { type: 'run.end', status: 'completed', ts: 0 },
  ];
  const { text } = expectRefusedAlone(write, stream, refused, /result\.v: a BigInt/);
  expect(text).toContain('"fn": "n"');
});

// Found by test/fuzz/convert.test.ts (a damaged fixture: `"ended_at": 1795988625.5e36683`): a
// tool line whose time JSON cannot hold (kept as written, `invalid`) gave a start and an end; the
// end was refused at its line, and the start, held, was refused again at the stream's end, where
// no line says which call it was. The start is refused at its own line now.
test.each(['ts', 'started_at', 'ended_at'])(
  'a call whose kept %s JSON cannot hold is refused at its line',
  (key) => {
    let line =
      '{"v": 1, "ts": 1795988625.5, "type": "tool", "fn": "get_order", "args": {}, "result": 1, "error": null, "started_at": 1795988625.5, "ended_at": 1795988625.5}';
    line = line.replace(`"${key}": 1795988625.5`, `"${key}": 1e400`);
    const r = convert(`${line}\n`, { from: 'highbar', to: 'highbar' });
    const refusals = r.diagnostics.filter((d) => d.code === 'unencodable');
    expect(refusals.map((d) => [d.line, d.message.split(':')[0]])).toEqual([
      [1, 'line 1 (byte 0)'],
      [1, 'line 1 (byte 0)'],
    ]);
    expect(refusals.map((d) => d.message.includes('tool.start not written'))).toEqual([true, false]);
    // Nothing is said at the stream's end, and nothing without a line.
    expect(r.diagnostics.filter((d) => d.line === undefined)).toEqual([]);
  },
);

// The same for the call's arguments (the structured fuzzer: `"args": {"q": 1e400}`): the start is
// refused at its line, and the end, with no start left, is written from what it has.
test("a call whose arguments JSON cannot hold is refused at its line, the start's refusal", () => {
  const line =
    '{"v": 1, "ts": 1795988625.5, "type": "tool", "fn": "get_order", "args": {"q": 1e400}, "result": 1, "error": null, "started_at": 1795988625.5, "ended_at": 1795988625.5}';
  const r = convert(`${line}\n`, { from: 'highbar', to: 'highbar' });
  const refusals = r.diagnostics.filter((d) => d.code === 'unencodable');
  expect(refusals.map((d) => [d.line, d.message.includes('tool.start not written: args.q')])).toEqual([
    [1, true],
  ]);
  expect(r.diagnostics.filter((d) => d.line === undefined)).toEqual([]);
});
