import { expect, test } from 'vitest';
import type { Codec } from '../src/codec';
import { codex } from '../src/formats/codex/index';
import { highbar } from '../src/formats/highbar/index';
import type { AgentEvent } from '../src/model';
import { expectRefusedAlone, type RefusedWritesAndLosses, writeNotingLosses } from './refused-writes';

// Found by test/fuzz/refusal.test.ts once it put the event it inserts on a lane (round thirty):
// the Codex and highbar writers reported a call end's losses (its lane, which neither has a place
// for) before they built its record, where a result JSON cannot hold is refused. Each loss is
// said once per field: the refused end used up the report of a later end's, which then named no
// line of its own. The losses are reported once the record is built now.

const bad: AgentEvent = {
  type: 'tool.end',
  call: 'c1',
  name: 'n',
  ok: true,
  result: { v: BigInt(7) },
  lane: 'child',
};
const later: AgentEvent = {
  type: 'tool.end',
  call: 'c2',
  name: 'n',
  ok: true,
  text: 'done',
  lane: 'child',
};

test.each([
  ['codex', codex],
  ['highbar', highbar],
] as Array<[string, Codec]>)("%s: a refused call end's lane is no loss; a later end's is", (_, codec) => {
  const write = (events: readonly AgentEvent[]) =>
    writeNotingLosses((onDiagnostic) => {
      const options = { idSource: () => 'id', clock: () => 0, onDiagnostic };
      return codec.createEncoder(options);
    }, events);
  const stream: AgentEvent[] = [
    { type: 'run.start' },
    { type: 'tool.start', call: 'c1', name: 'n', args: {}, lane: 'child' },
    bad,
    { type: 'tool.start', call: 'c2', name: 'n', args: {}, lane: 'child' },
    later,
    { type: 'run.end', status: 'completed' },
  ];
  const { losses } = expectRefusedAlone(write, stream, bad, /BigInt/) as RefusedWritesAndLosses;
  // The end's lane is reported by the later end (index 4), not the refused one (index 2).
  expect(losses.filter(([, d]) => d.field === 'tool.end.lane').map(([at]) => at)).toEqual([4]);
});
