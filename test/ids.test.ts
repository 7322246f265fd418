import { afterEach, describe, expect, test, vi } from 'vitest';
import { copilot } from '../src/all';
import { newUuidRun, nextUuid } from '../src/ids';

// The default ids of a writer that makes one per record (Copilot): one `crypto.randomUUID()` per
// 256 ids, the run's ids counted in its last two hex digits (docs/performance.md, "Copilot
// writer, round fifteen"). They must stay valid version 4 UUIDs, never repeat, and a writer
// given an `idSource` must still take every id from it.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => vi.restoreAllMocks());

describe('nextUuid', () => {
  test('valid UUIDs, all different, across runs and between writers', () => {
    const a = newUuidRun();
    const b = newUuidRun();
    const ids: string[] = [];
    for (let i = 0; i < 1000; i++) ids.push(nextUuid(a), nextUuid(b));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('one crypto.randomUUID per 256 ids, whose last two digits are counted', () => {
    const draw = vi.spyOn(globalThis.crypto, 'randomUUID');
    const run = newUuidRun();
    const ids = Array.from({ length: 513 }, () => nextUuid(run));
    expect(draw).toHaveBeenCalledTimes(3);
    const first = draw.mock.results[0]!.value as string;
    expect(ids[0]).toBe(`${first.slice(0, 34)}00`);
    expect(ids[255]).toBe(`${first.slice(0, 34)}ff`);
    expect(ids[256]!.slice(0, 34)).toBe((draw.mock.results[1]!.value as string).slice(0, 34));
  });

  test('without Web Crypto: an id per call from the time-and-random fallback', () => {
    vi.spyOn(globalThis, 'crypto', 'get').mockReturnValue(undefined as unknown as Crypto);
    const run = newUuidRun();
    const a = nextUuid(run);
    const b = nextUuid(run);
    expect(a).toMatch(/^[0-9a-z]+-[0-9a-z]+$/);
    expect(a).not.toBe(b);
  });
});

describe('the Copilot writer’s default ids', () => {
  test('every record of a long stream has its own valid UUID', () => {
    const events = [
      { type: 'run.start' as const, input: 'go' },
      ...Array.from({ length: 700 }, (_, i) => ({ type: 'text.delta' as const, text: `t${i}` })),
      { type: 'run.end' as const, status: 'completed' as const },
    ];
    const ids = copilot
      .stringify(events)
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids.length).toBeGreaterThan(700);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('an idSource still makes every id', () => {
    let n = 0;
    const text = copilot.stringify(
      [
        { type: 'run.start', input: 'go' },
        { type: 'text.delta', text: 'a' },
        { type: 'run.end', status: 'completed' },
      ],
      { idSource: () => `id-${++n}` },
    );
    const ids = text
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids.every((id) => /^id-\d+$/.test(id))).toBe(true);
  });
});
