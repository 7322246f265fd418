import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, aisdk, claude, codex, cursor, type Encoder } from '../../src/all';
import { ownString, setBounded } from '../../src/bounded';

// Round twenty-nine: the decoders that read a line in place (OpenCode, Cursor, Amp) slice its
// plain strings out of the chunk's text, so a call id kept by a writer (its name by its id, an
// open call) kept the whole 64 KiB chunk alive: `convert` from OpenCode to Claude, the AI SDK or
// Codex grew the heap by about 1 MiB per MiB of input, under an entry bound of 10 000 (or 4096)
// ids. Kept ids are strings of their own now. Measured as the heap a full GC leaves (not time,
// not RSS): 200 ids cut from 256 KiB strings pin 50 MiB when kept as slices.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
setFlagsFromString('--no-expose-gc');

const CHUNK = 256 * 1024;
const IDS = 200;
const MiB = 1024 * 1024;

/** A 24-character id sliced out of a fresh 256 KiB string (as a decoder slices it from a chunk). */
function slicedId(i: number): string {
  const chunk = `${String(i).padStart(8, '0')}${'c'.repeat(CHUNK)}`;
  return chunk.slice(0, 24);
}

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Heap retained after `feed` ran with `keep` still alive. */
function retained<T>(keep: T, feed: (keep: T) => void): number {
  const before = heapAfterGc();
  feed(keep);
  const after = heapAfterGc();
  // `keep` is used after the measure, so that it is alive through it.
  expect(keep).toBeDefined();
  return after - before;
}

describe('kept ids hold nothing of the text they were cut from', () => {
  test('ownString: the same characters', () => {
    const s = 'x'.repeat(1000);
    for (const t of ['', 'short', s.slice(3, 40), `${s}é`.slice(990), '\ud800 lone'])
      expect(ownString(t)).toBe(t);
  });

  test('setBounded keeps its keys and values as strings of their own', () => {
    const map = new Map<string, string>();
    const grew = retained(map, (m) => {
      for (let i = 0; i < IDS; i++) setBounded(m, slicedId(i), slicedId(i + IDS));
    });
    expect(map.size).toBe(IDS);
    expect(grew).toBeLessThan(8 * MiB);
  });

  const writers: Array<[string, () => Encoder]> = [
    ['claude', () => claude.createEncoder({ onDiagnostic: () => {} })],
    ['ai-sdk', () => aisdk.createEncoder({ onDiagnostic: () => {} })],
    ['codex', () => codex.createEncoder({ onDiagnostic: () => {} })],
  ];
  for (const [name, make] of writers)
    test(`the ${name} writer: ${IDS} calls with sliced ids`, () => {
      const encoder = make();
      encoder.write({ type: 'run.start', input: 'go' });
      const grew = retained(encoder, (w) => {
        for (let i = 0; i < IDS; i++) {
          const call = slicedId(i);
          const start: AgentEvent = { type: 'tool.start', call, name: 'Read', args: { path: 'f' } };
          w.write(start);
          w.write({ type: 'tool.end', call, name: 'Read', ok: true, text: 'ok' });
        }
      });
      expect(grew).toBeLessThan(8 * MiB);
    });

  // The Cursor writer holds a run's text for the `result` of a run end without an answer (up to
  // CURSOR_MAX_HELD_TEXT): deltas sliced from chunks pinned every chunk of the run (copilot →
  // cursor promoted 19.9 MiB per 20 MB).
  test(`the cursor writer: a run of ${IDS} sliced text deltas`, () => {
    const encoder = cursor.createEncoder({ onDiagnostic: () => {} });
    encoder.write({ type: 'run.start', input: 'go' });
    const grew = retained(encoder, (w) => {
      for (let i = 0; i < IDS; i++) w.write({ type: 'text.delta', text: slicedId(i), message: 'm' });
    });
    expect(grew).toBeLessThan(8 * MiB);
    // The run's text comes back whole in its result.
    const end = encoder.write({ type: 'run.end', status: 'completed' });
    expect(end).toContain(slicedId(IDS - 1));
  });
});
