import fc from 'fast-check';
import { expect, test } from 'vitest';
import { FUZZ_RUNS } from '../runs';
import { decodeLines } from './decode-runs';
import { listStream, stream } from './lines';

// The decoder builds its plan and file change events and its item provenances whole, each shape
// one literal (docs/performance.md, "Codex decoder", round twenty), where it used to add the
// thread, the extra fields, the key order and the hints one key at a time. This holds the
// literals to the order those stores gave: after a thread's start every event but that start has
// the thread, as its last key; a provenance's keys start format, line, offset (a plan's or file
// change's then extra, order, hints). Both paths, with a thread or none.

// A legacy plan item and a todo list update (a record hint), beside the generated lines.
const extra = fc.constantFrom(
  '{"type":"item.completed","item":{"id":"p1","type":"plan","text":"x"}}',
  '{"type":"item.updated","item":{"id":"p2","type":"todo_list","items":[{"text":"a","completed":true}]}}',
);

const PROVENANCE_ORDER = ['format', 'line', 'offset', 'synthetic', 'extra', 'order', 'hints'];

function expectStampOrder(events: object[], threaded: boolean): void {
  for (const e of events) {
    const keys = Object.keys(e);
    const type = (e as { type: string }).type;
    // A session's start names its thread first (it is not stamped); every other event is.
    if (type !== 'session.start' && (threaded || keys.includes('session')))
      expect(keys.at(-1)).toBe('session');
    for (const k of keys) expect((e as Record<string, unknown>)[k]).not.toBe(undefined);
    const p = (e as { provenance?: object }).provenance;
    if (p === undefined) continue;
    const pk = Object.keys(p);
    expect(pk.slice(0, 3)).toEqual(['format', 'line', 'offset']);
    // A message's phase is added to its provenance after the hints; the plan and file change
    // events' provenances are left as itemProvenance made them.
    if (type === 'plan' || type === 'file.change')
      expect(pk).toEqual(PROVENANCE_ORDER.filter((k) => pk.includes(k)));
    for (const k of pk) expect((p as Record<string, unknown>)[k]).not.toBe(undefined);
  }
}

test('every event has its thread last and its provenance keys in order, on both paths', () => {
  fc.assert(
    fc.property(
      fc.constantFrom([], ['{"type":"thread.started","thread_id":"t-1"}']),
      fc.array(
        fc.oneof(
          listStream,
          stream,
          extra.map((l) => [l]),
        ),
        { maxLength: 3 },
      ),
      (head, parts) => {
        const lines = [...head, ...parts.flat()];
        // A thread the stream starts with, and no other thread line or legacy record after it.
        const threaded =
          head.length === 1 && !lines.slice(1).some((l) => l.includes('thread') || l.includes('session.'));
        for (const shortcut of [true, false]) expectStampOrder(decodeLines(lines, shortcut).events, threaded);
      },
    ),
    { numRuns: FUZZ_RUNS * 2 },
  );
});

test('a todo list update and a file change with a thread: the keys as the stores gave them', () => {
  const { events } = decodeLines(
    [
      '{"type":"thread.started","thread_id":"t"}',
      '{"type":"turn.started"}',
      '{"type":"item.updated","item":{"id":"i1","type":"todo_list","items":[{"text":"a","completed":false}]}}',
      '{"type":"item.completed","item":{"id":"i2","type":"file_change","changes":[{"path":"p","kind":"add"}],"status":"completed"}}',
      '{"type":"item.completed","item":{"id":"i3","type":"todo_list","items":[]}}',
    ],
    true,
  );
  const shapes = events.map((e) => [Object.keys(e), Object.keys(e.provenance ?? {})]);
  expect(shapes.slice(2, 5)).toEqual([
    [
      ['type', 'plan', 'items', 'provenance', 'session'],
      ['format', 'line', 'offset', 'hints'],
    ],
    [
      ['type', 'call', 'changes', 'status', 'provenance', 'session'],
      ['format', 'line', 'offset'],
    ],
    [
      ['type', 'plan', 'items', 'provenance', 'session'],
      ['format', 'line', 'offset'],
    ],
  ]);
  expect(events[2]!.provenance!.hints).toEqual({ record: 'item.updated' });
});
