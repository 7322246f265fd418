import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { claude } from '../../src/formats/claude/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, refusingWriter } from '../refused-writes';

// Round thirty-two: the Claude writer puts a line it read back when the line's last event comes
// (its events a group). An event refused while a group waited took the group down with it: one
// from the model (another format's) wrote the group first and then refused, the group's text gone
// with the refusal; a group's event was checked only with the group's last, which was refused
// for it (the group gone); a line's own event refused after the group before it was written.
// Now each is refused before anything is written for it, the group waiting as it did.

const write = refusingWriter((o) => claude.createEncoder({ ...o, session: 's' }));

// tools.jsonl's second line gives three events: a message's start (the line kept), its usage
// and its thinking; the third line a call's start (a line of its own).
const events = claude.parse(
  readFileSync(join(__dirname, '../../fixtures/claude/tools.jsonl'), 'utf8'),
).events;
const [start, usage, thinking, call] = [2, 3, 4, 5].map((i) => events[i]!) as [
  AgentEvent,
  AgentEvent,
  AgentEvent,
  AgentEvent,
];

describe('Claude: a refused event leaves the kept line that waits as it was', () => {
  test('the lines are the ones this test takes them for', () => {
    expect([start.type, usage.type, thinking.type, call.type]).toEqual([
      'message.start',
      'usage',
      'reasoning.delta',
      'tool.start',
    ]);
    expect(start.provenance?.line).toBe(thinking.provenance?.line);
    expect(call.provenance?.line).not.toBe(start.provenance?.line);
  });

  test("another format's event among the line's events: the group is not written for it", () => {
    const bad: AgentEvent = {
      type: 'tool.start',
      call: 'x',
      name: 'Bash',
      args: { v: Number.POSITIVE_INFINITY },
    };
    const stream = [...events.slice(0, 3), bad, ...events.slice(3)];
    const dirty = expectRefusedAlone(write, stream, bad, /tool\.start\.args\.v: Infinity/);
    expect(dirty.text).toBe(claude.stringify(events));
  });

  test("a group's event edited to what JSON cannot hold: refused at its own write", () => {
    const bad = {
      ...usage,
      usage: { ...(usage as AgentEvent & { usage: object }).usage, input: Number.NaN },
    };
    const stream = events.map((e) => (e === usage ? (bad as AgentEvent) : e));
    expectRefusedAlone(write, stream, bad as AgentEvent, /NaN is not a finite number/);
  });

  test("a line's own event refused: the group before it is written all the same", () => {
    const bad = { ...call, args: { command: Number.NaN } } as AgentEvent;
    // The thinking taken out: the message's line waits for it, until the next line.
    const stream = events.filter((e) => e !== thinking).map((e) => (e === call ? bad : e));
    expectRefusedAlone(write, stream, bad, /NaN is not a finite number/);
  });
});
