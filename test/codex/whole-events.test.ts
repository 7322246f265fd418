import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { codex } from '../../src/all';
import { CODEX_WHOLE_EVENTS } from '../../src/formats/codex/decode';
import { chunkAt } from '../golden';
import { FUZZ_RUNS } from '../runs';
import { type Decoded, decodeChunks, decodeLines } from './decode-runs';

// The shortcut maps the frequent canonical items in their usual state to events built whole
// (`CODEX_WHOLE_EVENTS`, docs/performance.md "Codex decoder"). These properties hold the decoder
// with it equal to the general path (no shortcut) and to the shortcut without it: the same
// events (key order included), the same diagnostics, the same bytes written back, on sessions
// shaped like what Codex writes (a thread or none, turns, reasoning, messages with and without a
// phase, commands started then completed with the same id, snapshots of the same item, exit codes
// and statuses that agree or not, resumed threads, unended turns), lines changed in one place,
// and every chunking.

const RUNS = FUZZ_RUNS * 2;
const q = (s: string) => JSON.stringify(s);

const words = fc.oneof(
  fc.constantFrom('', 'ls -la', 'a "quoted" word', 'two\nlines', 'x\\y', 'é😀', '\u2028'),
  fc.string({ maxLength: 30 }),
);
const phase = fc.constantFrom(undefined, 'commentary', 'final_answer', 'other');
const exitCode = fc.constantFrom<number | null>(null, 0, 1, 2, -1);
const status = fc.constantFrom('completed', 'failed', 'declined', 'in_progress');
const ids = fc.constantFrom('item_0', 'item_1', 'item_2', 'item_3');
const kind = fc.constantFrom('item.completed', 'item.completed', 'item.started', 'item.updated');

const reasoning = fc
  .tuple(kind, ids, words)
  .map(([k, i, t]) => [`{"type":"${k}","item":{"id":${q(i)},"type":"reasoning","text":${q(t)}}}`]);
const message = fc
  .tuple(kind, ids, words, phase)
  .map(([k, i, t, p]) => [
    `{"type":"${k}","item":{"id":${q(i)},"type":"agent_message","text":${q(t)}${p === undefined ? '' : `,"phase":${q(p)}`}}}`,
  ]);
const commandLine = (k: string, i: string, c: string, o: string, x: number | null, s: string) =>
  `{"type":"${k}","item":{"id":${q(i)},"type":"command_execution","command":${q(c)},"aggregated_output":${q(o)},"exit_code":${x},"status":${q(s)}}}`;
// A command as Codex runs it: started empty, maybe updated, completed; sometimes not as usual.
const command = fc
  .tuple(
    ids,
    words,
    words,
    exitCode,
    status,
    fc.boolean(),
    fc.constantFrom('same', 'same', 'same', 'other', 'none'),
    fc.constantFrom('', '', 'early'),
    fc.constantFrom<number | null>(null, null, 0),
    fc.constantFrom('in_progress', 'in_progress', 'completed'),
  )
  .map(([i, c, o, x, s, updated, start, early, earlyCode, earlyStatus]) => {
    const lines: string[] = [];
    const started = start === 'same' ? c : `${c}!`;
    if (start !== 'none') lines.push(commandLine('item.started', i, started, early, earlyCode, earlyStatus));
    if (updated) lines.push(commandLine('item.updated', i, c, o.slice(0, 3), null, 'in_progress'));
    lines.push(commandLine('item.completed', i, c, o, x, s));
    return lines;
  });
const records = fc.constantFrom(
  ['{"type":"thread.started","thread_id":"t-1"}'],
  ['{"type":"thread.started","thread_id":"t-2"}'],
  ['{"type":"turn.started"}'],
  ['{"type":"turn.completed","usage":{"input_tokens":5,"cached_input_tokens":0,"output_tokens":2}}'],
  ['{"type":"turn.completed","usage":{"input_tokens":9,"cached_input_tokens":1,"output_tokens":4}}'],
  ['{"type":"item.completed","item":{"id":"item_9","type":"file_change","changes":[],"status":"completed"}}'],
  ['{"type":"turn.failed","error":{"message":"boom"}}'],
);
// A turn's end with Codex's five counts (the whole turn end) or four; running totals that go up,
// stay or go down (the general path reports the last).
const count = fc.constantFrom(0, 1, 5, 9, 100, 12345);
const turnEnd = fc
  .tuple(count, count, count, count, count, fc.boolean())
  .map(([a, b, c, d, e, five]) => [
    `{"type":"turn.completed","usage":{"input_tokens":${a},"cached_input_tokens":${b},${five ? `"cache_write_input_tokens":${c},` : ''}"output_tokens":${d},"reasoning_output_tokens":${e}}}`,
  ]);
// A line changed in one place: the shortcut refuses it, or reads it as the general path does.
const changed = (l: string, how: number): string => {
  switch (how) {
    case 0:
      return l.replace(/\}\}$/, ',"x":1}}');
    case 1:
      return l.replace('"text":"', '"text":"\\u0041');
    case 2:
      return `${l}\r`;
    case 3:
      return l.replace('"status":"', '"status":"x","status":"');
    default:
      return l;
  }
};
const group = fc
  .tuple(
    fc.oneof(
      { weight: 2, arbitrary: reasoning },
      { weight: 2, arbitrary: message },
      { weight: 3, arbitrary: command },
      { weight: 2, arbitrary: records },
      { weight: 2, arbitrary: turnEnd },
    ),
    fc.nat({ max: 12 }),
  )
  .map(([lines, how]) => lines.map((l, i) => (i === 0 ? changed(l, how) : l)));
const session = fc
  .tuple(fc.boolean(), fc.array(group, { maxLength: 14 }))
  .map(([thread, groups]) => [
    ...(thread ? ['{"type":"thread.started","thread_id":"0199f000-c0de"}', '{"type":"turn.started"}'] : []),
    ...groups.flat(),
  ]);

// What the bench corpus (bench/corpus.mjs `codexLines`) writes: every item in its usual state.
function benchShaped(thread: boolean): string[] {
  return [
    ...(thread ? ['{"type":"thread.started","thread_id":"t"}'] : []),
    '{"type":"turn.started"}',
    '{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**x**"}}',
    '{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"a","phase":"commentary"}}',
    commandLine('item.started', 'item_2', 'ls', '', null, 'in_progress'),
    commandLine('item.completed', 'item_2', 'ls', 'out', 0, 'completed'),
    '{"type":"item.completed","item":{"id":"item_3","type":"reasoning","text":"y"}}',
    commandLine('item.started', 'item_4', 'false', '', null, 'in_progress'),
    commandLine('item.completed', 'item_4', 'false', '', 1, 'failed'),
    '{"type":"item.completed","item":{"id":"item_5","type":"agent_message","text":"b","phase":"final_answer"}}',
    '{"type":"item.completed","item":{"id":"item_6","type":"agent_message","text":"c"}}',
    '{"type":"turn.completed","usage":{"input_tokens":5,"cached_input_tokens":0,"output_tokens":2}}',
    '{"type":"turn.started"}',
    '{"type":"item.completed","item":{"id":"item_7","type":"agent_message","text":"d"}}',
    '{"type":"turn.completed","usage":{"input_tokens":9,"cached_input_tokens":1,"cache_write_input_tokens":0,"output_tokens":4,"reasoning_output_tokens":2}}',
    '{"type":"turn.started"}',
    '{"type":"turn.completed","usage":{"input_tokens":19,"cached_input_tokens":3,"cache_write_input_tokens":1,"output_tokens":5,"reasoning_output_tokens":2}}',
  ];
}

// Equal as values, as written JSON (key order, no own `undefined`) and as bytes written back.
function expectSame(a: Decoded, b: Decoded): void {
  expect(a).toStrictEqual(b);
  expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  for (let i = 0; i < a.events.length; i++)
    expect(Object.keys(a.events[i]!)).toStrictEqual(Object.keys(b.events[i]!));
  expect(codex.stringify(a.events)).toBe(codex.stringify(b.events));
}

function withoutWhole<T>(f: () => T): T {
  CODEX_WHOLE_EVENTS.enabled = false;
  try {
    return f();
  } finally {
    CODEX_WHOLE_EVENTS.enabled = true;
  }
}

afterEach(() => {
  CODEX_WHOLE_EVENTS.enabled = true;
});

describe('Codex decoder: whole events for the frequent canonical items', () => {
  test('sessions decode as the general path and as the shortcut without whole events decode them', () => {
    fc.assert(
      fc.property(session, (lines) => {
        const whole = decodeLines(lines, true);
        expectSame(whole, decodeLines(lines, false));
        expectSame(
          whole,
          withoutWhole(() => decodeLines(lines, true)),
        );
      }),
      { numRuns: RUNS, examples: [[benchShaped(true)], [benchShaped(false)]] },
    );
  });

  test('every chunking gives what the general path gives', () => {
    fc.assert(
      fc.property(session, fc.array(fc.nat(), { maxLength: 6 }), (lines, cuts) => {
        const bytes = new TextEncoder().encode(lines.map((l) => `${l}\n`).join(''));
        expectSame(decodeChunks(chunkAt(bytes, cuts), true), decodeChunks([bytes], false));
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});
