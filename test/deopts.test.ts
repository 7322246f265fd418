import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cursor } from '../src/formats/cursor';
import { CURSOR_HELD_INPUT } from '../src/formats/cursor/wire';
import { gemini } from '../src/formats/gemini';
import { GEMINI_HELD_INPUT } from '../src/formats/gemini/wire';
import { nativeharness } from '../src/formats/nativeharness';
import { NH_HELD_INPUT } from '../src/formats/nativeharness/wire';
import { opencode } from '../src/formats/opencode';
import { OPENCODE_HELD_INPUT } from '../src/formats/opencode/wire';

// Issue #24, round thirty-three: no optimised per-line or per-event code is thrown away or
// deoptimized once warmed up, stream after stream, with a full GC between streams. An object
// made per stream (a closure, a literal given its keys one by one) whose hidden class or identity
// the optimised code embedded dies at that GC, and the code goes with it: every stream then pays
// a deopt and a compilation again. bench/deopts.mjs runs each row in a child process under
// `--trace-deopt --single-threaded` (deterministic: no concurrent compiler or marker) on the
// build in dist/ and counts what happens after the warm-up rounds.

const TOOL = resolve('bench/deopts.mjs');

interface Row {
  id: string;
  error?: string;
  bailouts: number;
  discards: number;
  groups: { fn: string; inner: string; reason: string; rounds: number[] }[];
}

// `mb`: the corpus size; some per-event code is optimised (and so can be thrown away) only on a
// corpus long enough to make it hot. `warm`: the first round counted.
function deopts(rows: string[], mb = 1, warm = 5): Row[] {
  const r = spawnSync(
    process.execPath,
    [TOOL, '--only', rows.join(','), '--mb', String(mb), '--rounds', '10', '--warm', String(warm), '--json'],
    { encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row)
    .filter((row) => rows.includes(row.id));
}

function expectNone(row: Row | undefined): void {
  expect(row?.error).toBeUndefined();
  expect(row?.groups).toEqual([]);
  expect(row?.bailouts).toBe(0);
  expect(row?.discards).toBe(0);
}

// One row alone, with nothing after warm-up.
function expectRowNone(id: string, mb?: number, warm?: number): void {
  const [row] = deopts([id], mb, warm);
  expect(row?.id).toBe(id);
  expectNone(row);
}

describe('no deopt or discarded code after warm-up (bench/deopts.mjs)', () => {
  // The HEP record decoder was a literal of two closures made per decoder: the splitter's
  // optimised code inlined the last decoder's `line` and was thrown away when it died. The
  // Cursor, Gemini, OpenCode and Claude writers are classes: their instances' hidden class died
  // with the last encoder (the codec holds one now: createCodec). The AG-UI writer's run-end
  // metadata was given its keys one by one (hidden classes that died at each full GC, and
  // `assertEncodable`'s code with them), and the first entry pushed onto an empty `[]` (the
  // events waiting for a run, the run's text) changed the array's elements kind under an
  // optimised push (round thirty-four).
  test('hep, cursor-writer, gemini-writer, opencode-writer, claude-writer, agui-writer', () => {
    const ids = ['hep', 'cursor-writer', 'gemini-writer', 'opencode-writer', 'claude-writer', 'agui-writer'];
    const rows = deopts(ids);
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    for (const row of rows) expectNone(row);
  }, 180_000);

  // The Gemini decoder (a class) and its events, provenance and hints (constructors): their
  // hidden classes died with the last stream's (round thirty-three). Round thirty-five: the rest,
  // every third stream, were the hidden classes of a `tool_result` with an `error` and of a
  // `result`, and of the objects `JSON.parse` made, which no event keeps: `line` and `keep` were
  // thrown away. The codec's held lines now have both records, and their parsed values are kept
  // (`heldInput`, `holdsRecords`; it was a holder of Gemini's own).
  test('gemini: nothing thrown away after warm-up', () => {
    expectRowNone('gemini');
  }, 60_000);

  // Issue #24, round thirty-four. The SSE reader's call of its caller's event function (the UI
  // decoders' `eventRecord`, nativeharness's `sseEvent`) was given a `bind` made per stream: the
  // reader's optimised `dispatch` and `readDataBlock` (`readLastData` for nativeharness) embedded
  // it as their call target and were thrown away when it died, at every stream.
  test('agui, aisdk: the SSE reader calls the same function every stream', () => {
    const ids = ['agui', 'aisdk'];
    const rows = deopts(ids);
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    for (const row of rows) expectNone(row);
  }, 120_000);

  // The Copilot writer reports a usage's cost as lost at every usage event (once per stream
  // reaches the sink): its optimised `costLost` inlined `reportLoss` and embedded the sink's
  // `report`, a closure made per stream, and was thrown away at every stream (src/loss.ts).
  test('copilot-writer: no sink closure in per-event code', () => {
    expectRowNone('copilot-writer', 3);
  }, 60_000);

  // The OpenCode and Cursor decoders' events (and the records and hints they hold) are objects
  // given their fields one by one: their hidden classes died at a full GC when no event of them
  // was alive, and the per-line code that embedded them was thrown away every few streams. The
  // codec's held decoder now reads a few common lines and keeps their events (`heldInput`).
  test('opencode, cursor: the events of common lines are held', () => {
    const ids = ['opencode', 'cursor'];
    const rows = deopts(ids, 3);
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    for (const row of rows) expectNone(row);
  }, 120_000);

  // Issue #24, round thirty-five. The Claude decoder handed the splitter `{ line, end }` bound to
  // its state per stream: the line splitter's `recordOrBlank` (inlined into `emitRegion`) embedded
  // the last stream's bound `line` as its call target and was thrown away when it died (every fifth
  // stream). Its record decoder is slots now (`claudeRecordSlots`): module functions taking the state.
  test('claude: the splitter calls the same function every stream', () => {
    expectRowNone('claude', 4);
  }, 60_000);

  // Round thirty-five. The nativeharness decoder's events keep no part of the records
  // `JSON.parse` made: the envelope's and the payloads' hidden classes died at a full GC with the
  // last record, and `record` and the payload guards (`tool_started`) that checked them were
  // thrown away every third stream (`head` with the events' own). The codec now holds the events
  // and the parsed records of a few common envelopes (`heldInput`, `holdsRecords`).
  test('nativeharness: the records of common envelopes are held', () => {
    expectRowNone('nativeharness', 3);
  }, 60_000);

  // Round thirty-five. The AI SDK writer pushed the first event before a run onto the empty `[]`
  // it waits in, changing the array's elements kind under `foreign`'s optimised push, which met
  // an array of the kind before once, late (as the AG-UI writer's, round thirty-four).
  test('aisdk-writer: the first waiting event is a new array', () => {
    expectRowNone('aisdk-writer');
  }, 60_000);

  // Round thirty-six. The AG-UI writer's run-end metadata (`runMeta`'s literal, once per stream)
  // had its hidden class found again in the transition tree at each call until `runMeta` had a
  // feedback vector, and freed by the full GC when no object of it was alive: the check's
  // optimised `assertEncodable` met a second map at round 4 (4 MB). The codec holds one now
  // (`HELD_RUN_META`, `heldValues`).
  test('agui-writer at 4 MB from round 4: the run-end metadata held', () => {
    expectRowNone('agui-writer', 4, 4);
  }, 60_000);

  // Round thirty-six. The nativeharness writer's `strings` (a hop's calls, a result's changed
  // files) was `map` and `join`: its optimised `join` met `map`'s result of another map once,
  // after warm-up; and a hop's first call was pushed onto the empty `[]` the hop starts with,
  // changing its elements kind under `writeStarted`'s optimised push ("not a Smi"). `strings` is
  // a loop, and the first call a new array of it (`addCall`).
  test('nativeharness-writer: strings by a loop, the first call a new array', () => {
    expectRowNone('nativeharness-writer');
  }, 60_000);

  test('the held lines read without a diagnostic', () => {
    for (const [codec, input] of [
      [opencode, OPENCODE_HELD_INPUT],
      [cursor, CURSOR_HELD_INPUT],
      [nativeharness, NH_HELD_INPUT],
      [gemini, GEMINI_HELD_INPUT],
    ] as const) {
      const { events, diagnostics } = codec.parse(input);
      expect(diagnostics).toEqual([]);
      expect(events.filter((e) => e.type === 'unknown')).toEqual([]);
    }
  });

  // A held record is the map of a record read from a stream only when it is spelled as one: the
  // writer's key order and a field's representation (a time past a small integer).
  test('the held records are as the writer writes them', () => {
    const nh = nativeharness.parse(NH_HELD_INPUT).events;
    expect(nativeharness.stringify(nh, { framing: 'jsonl' })).toBe(NH_HELD_INPUT);
    expect(gemini.stringify(gemini.parse(GEMINI_HELD_INPUT).events)).toBe(GEMINI_HELD_INPUT);
  });
});
