import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { claude } from '../../src/formats/claude/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, refusingWriter } from '../refused-writes';

// Round thirty-three: two checks of the Claude writer answered for a state the write never meets.
// (a) An event from the model, with a kept line's group waiting, is checked up front
// (`assertAhead`) against the writer as it is before the group is written, but the group's write
// first ends every message the model left open (it writes what was queued before it): a round's
// end with no text, whose usage is written only into its lane's open message, was refused for a
// usage JSON cannot hold although no message was left to write it into (said lost instead).
// (b) A kept result line whose structured copy (`tool_use_result`) repeats what a redaction took
// out of its call's arguments is written without the copy; the copy was checked all the same and
// refused the event although it is never written.

const write = refusingWriter((o) => claude.createEncoder({ ...o, session: 's' }));
const fixture = (name: string): AgentEvent[] =>
  claude.parse(readFileSync(join(__dirname, `../../fixtures/claude/${name}`), 'utf8')).events;

describe("(a) a round's end from the model, with a kept line waiting", () => {
  // tools.jsonl's second line gives three events (a message's start, its usage, its thinking):
  // after the first, the line waits for the other two.
  const events = fixture('tools.jsonl');
  const start = events[2]!;
  const roundEnd = (input: number): AgentEvent => ({
    type: 'round.end',
    message: '',
    usage: { input, output: 1 },
  });
  const stream = (end: AgentEvent): AgentEvent[] => [
    ...events.slice(0, 2),
    // Another format's message, open in the main lane (queued, its round not ended).
    { type: 'message.start', role: 'assistant', message: 'm-x' },
    { type: 'text.delta', message: 'm-x', text: 'hello' },
    start,
    end,
    ...events.slice(3),
  ];

  test('the lines are the ones this test takes them for', () => {
    expect(start.type).toBe('message.start');
    expect(events[3]!.provenance?.line).toBe(start.provenance?.line);
  });

  test('a line rebuilt from the model opens its message again: the usage is refused then', () => {
    // A model no line says: the line is written from the model, its message open in the lane.
    const rebuilt = { ...start, model: 'zz-other-model' } as AgentEvent;
    const bad = roundEnd(Number.NaN);
    const events2 = stream(bad).map((e) => (e === start ? rebuilt : e));
    expectRefusedAlone(write, events2, bad, /record\.message\.usage\.input_tokens: NaN/);
  });

  test('a usage JSON cannot hold is not refused: no message is left open to carry it', () => {
    const dirty = write(stream(roundEnd(Number.NaN)));
    expect(dirty.refusals).toEqual([]);
    expect(dirty.text).toBe(write(stream(roundEnd(1))).text);
  });
});

describe('(b) a structured result copy the write leaves out', () => {
  // An Edit's result repeats its arguments (its oldString and newString).
  const events = fixture('tools.jsonl');
  const startAt = events.findIndex((e) => e.type === 'tool.start' && e.name === 'Edit');
  const start = events[startAt] as AgentEvent & { type: 'tool.start' };
  const endAt = events.findIndex((e) => e.type === 'tool.end' && e.call === start.call);
  const end = events[endAt] as AgentEvent & { type: 'tool.end' };
  const secret = (start.args as { old_string: string }).old_string;

  const edited = (extra: number): AgentEvent[] => {
    const out = [...events];
    out[startAt] = { ...start, args: { ...start.args, old_string: 'REDACTED' } };
    out[endAt] = { ...end, result: { ...(end.result as object), extra } };
    return out;
  };

  test('the lines are the ones this test takes them for', () => {
    expect(startAt).toBeGreaterThan(-1);
    expect(JSON.stringify(end.result)).toContain(JSON.stringify(secret).slice(1, -1));
  });

  test('a value JSON cannot hold in the copy is not refused: the copy is not written', () => {
    const dirty = write(edited(Number.NaN));
    expect(dirty.refusals).toEqual([]);
    expect(dirty.text).toBe(write(edited(1)).text);
    const line = dirty.text
      .split('\n')
      .find((l) => l.includes(`"tool_use_id":${JSON.stringify(end.call)}`) && l.includes('"tool_result"'));
    expect(line).toBeDefined();
    expect(line).not.toContain('"tool_use_result"');
  });
});
