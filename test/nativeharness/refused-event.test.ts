import { describe, expect, test } from 'vitest';
import { nativeharness } from '../../src/formats/nativeharness/index';
import type { AgentEvent } from '../../src/model';
import { expectRefusedAlone, type RefusedWrites, writeRefusing } from '../refused-writes';

// Found by test/fuzz/refusal.test.ts: the nativeharness writer (conform, as convert writes)
// checked a call's arguments where it wrote them, after it had written the session_created a
// first event gets (taken down with the refusal) and marked the call open (a tool_result made up
// for a call never written at its turn's done). Now the event is checked first.

function write(events: readonly AgentEvent[]): RefusedWrites {
  let n = 0;
  const e = nativeharness.createEncoder({
    conform: true,
    framing: 'jsonl',
    clock: () => 0,
    idSource: () => `id${n++}`,
    onDiagnostic() {},
  });
  return writeRefusing(e, events);
}

const refused: AgentEvent = { type: 'tool.start', call: 'c', name: 'n', args: { v: BigInt(7) } };

test('a refused first event does not take the session_created written for it down', () => {
  const stream: AgentEvent[] = [refused, { type: 'run.start', input: 'go' }];
  const { text } = expectRefusedAlone(write, stream, refused, /tool\.start\.args\.v: a BigInt/);
  expect(text).toContain('"session_created"');
});

test('a refused tool.start is not left open for a made-up result', () => {
  const stream: AgentEvent[] = [
    { type: 'run.start', input: 'go' },
    refused,
    { type: 'run.end', status: 'completed' },
  ];
  const { text } = expectRefusedAlone(write, stream, refused, /tool\.start\.args\.v: a BigInt/);
  expect(text).not.toContain('tool_result');
});

// Found by test/fuzz/refusal.test.ts (round thirty): a number nativeharness writes as an integer
// (seq, a round's number as the hop, a count, an exit code) that it cannot write exactly was
// refused where it was formatted, after the write had written the session_created a first event
// gets; and an event's round set the hop before it was refused (or on an event written without
// one), so every later token and call was refused for it. Now each is checked first.
describe('a number nativeharness cannot write exactly is refused before the write changes anything', () => {
  test.each<[AgentEvent, RegExp]>([
    [{ type: 'compaction.end', tokensFreed: 1e306 }, /compaction\.end\.tokensFreed: 1e\+306/],
    [{ type: 'tool.end', call: 'c', name: 'n', ok: false, exitCode: 1.5 }, /tool\.end\.exitCode: 1\.5/],
    [{ type: 'round.end', message: 'm', usage: { input: 2 ** 53, output: 1 } }, /round\.end\.usage\.input/],
    [{ type: 'run.end', status: 'completed', usage: { input: 1, output: 0.5 } }, /run\.end\.usage\.output/],
    [{ type: 'text.delta', text: 'x', seq: 0.5 }, /text\.delta\.seq: 0\.5/],
  ])('a first event: the session_created is not taken down (%j)', (bad, why) => {
    const stream: AgentEvent[] = [bad, { type: 'run.start', input: 'go' }];
    const { text } = expectRefusedAlone(write, stream, bad, why);
    expect(text).toContain('"session_created"');
  });

  test("an event's round is refused whatever its type: the next tokens keep their hop", () => {
    const bad: AgentEvent = { type: 'notice', kind: 'info', message: 'm', round: 1e306 };
    const stream: AgentEvent[] = [
      { type: 'run.start', input: 'go' },
      bad,
      { type: 'text.delta', text: 'hi' },
      { type: 'run.end', status: 'completed' },
    ];
    const { text } = expectRefusedAlone(write, stream, bad, /notice\.round: 1e\+306 is not a safe integer/);
    expect(text).toContain('"hop":1,"text":"hi"');
  });
});

function writeSaying(
  events: readonly AgentEvent[],
  framing: 'jsonl' | 'sse' = 'jsonl',
): RefusedWrites & { said: string[] } {
  const said: string[] = [];
  const e = nativeharness.createEncoder({
    framing,
    clock: () => 0,
    idSource: () => 'id',
    onDiagnostic: (d) => said.push(d.message.replace(/\(event \d+\)/, '(event)')),
  });
  return { ...writeRefusing(e, events), said };
}

// `bad` among a turn's events: refused alone (`why`), nothing said for it but its refusal, and its
// round (7) taken for no hop.
function expectRefusedQuietly(bad: AgentEvent, why: RegExp, framing: 'jsonl' | 'sse' = 'jsonl'): void {
  const stream: AgentEvent[] = [
    { type: 'run.start', input: 'go', seq: 3 },
    bad,
    { type: 'text.delta', text: 'hi' },
    { type: 'run.end', status: 'completed' },
  ];
  const dirty = writeSaying(stream, framing);
  const clean = writeSaying(
    stream.filter((e) => e !== bad),
    framing,
  );
  expect(dirty.refusals).toHaveLength(1);
  expect(dirty.refusals[0]).toMatch(why);
  expect(dirty.text).toBe(clean.text);
  expect(dirty.said.filter((m) => m !== dirty.refusals[0])).toEqual(clean.said);
  expect(dirty.text).not.toContain('"hop":7');
}

// Round thirty-two: a record of this format's read as `unknown` takes its record's own seq, which
// the writer refused where it framed the record, after the event's losses were reported (a field
// it has no place for) and its round taken for the hop. Now the record is checked first.
describe("an own record's stale seq is refused before the write changes anything", () => {
  const own = (record: Record<string, unknown>, more: Record<string, unknown> = {}): AgentEvent =>
    ({
      type: 'unknown',
      record,
      round: 7,
      provenance: { format: 'nativeharness', line: 1, offset: 0 },
      ...more,
    }) as AgentEvent;

  test.each<[string, AgentEvent, RegExp]>([
    [
      'a seq not above the last',
      own({ seq: 2, type: 'zz_new', payload: {} }, { label: 'x' }),
      /unknown\.record\.seq: seq 2 is not above/,
    ],
    [
      'a seq that is no safe integer',
      own({ seq: 2.5, type: 'zz_new', payload: {} }, { label: 'x' }),
      /unknown\.record\.seq: 2\.5/,
    ],
    [
      'a value JSON cannot hold',
      own({ seq: 9, type: 'zz_new', payload: { v: BigInt(1) } }, { label: 'x' }),
      /unknown\.record\.payload\.v: a BigInt/,
    ],
  ])('%s: no loss said, no hop taken', (_, bad, why) => expectRefusedQuietly(bad, why));

  test('under SSE, a record type SSE cannot name: no loss said, no seq or hop taken', () => {
    const bad = own({ seq: 9, type: 'zz\nnew', payload: {} }, { label: 'x' });
    const stream: AgentEvent[] = [
      { type: 'run.start', input: 'go', seq: 3 },
      bad,
      { type: 'text.delta', text: 'hi' },
    ];
    const dirty = writeSaying(stream, 'sse');
    const clean = writeSaying(
      stream.filter((e) => e !== bad),
      'sse',
    );
    expect(dirty.refusals).toHaveLength(1);
    expect(dirty.refusals[0]).toMatch(/event/);
    expect(dirty.text).toBe(clean.text);
    expect(dirty.said.filter((m) => m !== dirty.refusals[0])).toEqual(clean.said);
  });

  test('a record whose seq is above the last is written with its loss said', () => {
    const ok = own({ seq: 4, type: 'zz_new', payload: {} }, { label: 'x' });
    const { text, refusals, said } = writeSaying([{ type: 'run.start', input: 'go', seq: 3 }, ok]);
    expect(refusals).toEqual([]);
    expect(text).toContain('{"seq":4,"type":"zz_new","payload":{}}');
    expect(said.some((m) => m.includes('label'))).toBe(true);
  });
});

// Round thirty-three: the provenance hints of an event read from nativeharness SSE keep the SSE
// id and event name it was read with when they were not the envelope's (`sseId`, `sseEvent`). A
// hand-edited one SSE cannot hold (CR, LF, NUL) was refused where the event was framed, after its
// seq was taken, its loss said and its round taken for the hop. Now it is refused first.
describe('an SSE id or event name SSE cannot hold, kept in hints, is refused before the write changes anything', () => {
  const hinted = (event: Record<string, unknown>, hints: Record<string, unknown>): AgentEvent =>
    ({
      ...event,
      round: 7,
      label: 'x',
      provenance: { format: 'nativeharness', line: 1, offset: 0, hints },
    }) as unknown as AgentEvent;

  test.each<[string, AgentEvent, RegExp]>([
    ['an id with LF', hinted({ type: 'text.delta', text: 'a' }, { sseId: '1\nevent: x' }), /SSE id/],
    ['an id with NUL', hinted({ type: 'status', status: 's' }, { sseId: 'a\0b' }), /SSE id/],
    [
      'an event name with CR',
      hinted({ type: 'text.delta', text: 'a' }, { sseEvent: 'token\r' }),
      /SSE event/,
    ],
    [
      "an unknown record's event name with LF",
      hinted({ type: 'unknown', record: { seq: 9, type: 'zz_new', payload: {} } }, { sseEvent: 'a\nb' }),
      /SSE event/,
    ],
    [
      "an unknown record's id with CR",
      hinted({ type: 'unknown', record: { seq: 9, type: 'zz_new', payload: {} } }, { sseId: '\r' }),
      /SSE id/,
    ],
  ])('%s: no seq, loss or hop taken', (_, bad, why) => expectRefusedQuietly(bad, why, 'sse'));

  test('an id and event name SSE can hold are written as kept', () => {
    const ok = hinted({ type: 'text.delta', text: 'a' }, { sseId: 'x-1', sseEvent: 'tok', hop: 1 });
    const { text, refusals } = writeSaying([{ type: 'run.start', input: 'go', seq: 3 }, ok], 'sse');
    expect(refusals).toEqual([]);
    expect(text).toContain('id: x-1\nevent: tok\ndata: ');
  });
});
