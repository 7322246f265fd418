import { expect, test } from 'vitest';
import {
  growthBudget,
  HEAP_GROWTH_BUDGET,
  HEAP_TARGET,
  largeObjectBudget,
  MIN_HEAP_GROWTH_BUDGET,
} from '../src/heap-budget';

// Issue #24: the CLI's peak is node, code and malloc plus its heap, which reaches what the last
// full GC left plus the growth budget. A pair that keeps more alive must not peak that much higher
// (docs/performance.md, "Round thirty"), and must not be collected at every check either.
const MiB = 1024 * 1024;

test('a small live heap keeps the whole growth budget', () => {
  expect(growthBudget(3 * MiB)).toBe(HEAP_GROWTH_BUDGET);
  expect(growthBudget(HEAP_TARGET - HEAP_GROWTH_BUDGET)).toBe(HEAP_GROWTH_BUDGET);
});

test('a larger live heap grows only to HEAP_TARGET', () => {
  for (const live of [5.5 * MiB, 7.2 * MiB, 7.9 * MiB]) expect(live + growthBudget(live)).toBe(HEAP_TARGET);
});

test('a live heap near or past HEAP_TARGET still grows by MIN_HEAP_GROWTH_BUDGET (at most twice the full GCs)', () => {
  for (const live of [HEAP_TARGET - MiB, HEAP_TARGET, 64 * MiB])
    expect(growthBudget(live)).toBe(MIN_HEAP_GROWTH_BUDGET);
  expect(MIN_HEAP_GROWTH_BUDGET * 2).toBeGreaterThanOrEqual(HEAP_GROWTH_BUDGET);
});

// Round forty-eight: Claude → nativeharness peaked on the 64 MiB line at 1 GiB; its full GCs came
// from the large-object budget (the reader's long lines and the writer's long tool outputs), and a
// convert's code and compile-thread memory sit above a decode's. A decode (Claude's at 3 × jq
// with no margin) keeps its budget and its full GCs.
test("a convert's large-object budget is half a one-codec command's", () => {
  expect(largeObjectBudget(1)).toBe(2 * MiB);
  expect(largeObjectBudget(2)).toBe(MiB);
});
