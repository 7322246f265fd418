import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  MAX_REMEMBERED_IDS,
  ownString,
  setBounded,
  setBoundedKept,
  setBoundedOwn,
  sharedString,
} from '../src/bounded';

describe('ownString and sharedString', () => {
  // `ownString` joins two pieces of a longer string into a new one: the same code units whatever
  // they are (a pair split between the pieces, a lone surrogate), cut from any place of a text.
  test('the same string, from anywhere in any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), fc.nat(), fc.nat(), (text, i, j) => {
        const from = i % (text.length + 1);
        const s = text.slice(from, from + (j % (text.length - from + 1)));
        expect(ownString(s)).toBe(s);
        const shared = new Map<string, string>();
        expect(sharedString(s, shared)).toBe(s);
        expect(sharedString(s, shared)).toBe(s);
      }),
    );
  });
});

describe('setBounded', () => {
  test('keeps the newest `max` keys, the oldest forgotten first', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 200 }),
        fc.integer({ min: 1, max: 10 }),
        (keys, max) => {
          const map = new Map<number, number>();
          // The model: insertion order of first appearance, a key set again keeps its place.
          const order: number[] = [];
          for (const [i, k] of keys.entries()) {
            setBounded(map, k, i, max);
            if (!order.includes(k)) {
              if (order.length >= max) order.shift();
              order.push(k);
            }
            expect(map.size).toBeLessThanOrEqual(max);
            expect([...map.keys()]).toEqual(order);
            expect(map.get(k)).toBe(i);
          }
        },
      ),
    );
  });

  // The Claude writer gives `setBoundedOwn` the one copy of a call id it keeps elsewhere too: the
  // same entries, in the same order, as `setBoundedKept` (which makes the copy itself).
  test('setBoundedOwn given an own copy keeps what setBoundedKept keeps', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 20 }), { maxLength: 200 }),
        fc.integer({ min: 1, max: 10 }),
        (keys, max) => {
          const kept = new Map<string, number>();
          const own = new Map<string, number>();
          for (const [i, k] of keys.entries()) {
            setBoundedKept(kept, k, i, max);
            setBoundedOwn(own, ownString(k), i, max);
            expect([...own.entries()]).toEqual([...kept.entries()]);
          }
        },
      ),
    );
  });

  // The oldest key is found by an iterator kept across calls and a full map is compacted now and
  // then (`forgetOldest`): the same keys, in the same order, whatever else the map's user does.
  test('keeps the newest `max` keys with deletes and clears between', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            { weight: 8, arbitrary: fc.integer({ min: 0, max: 60 }).map((k) => ({ op: 'set' as const, k })) },
            {
              weight: 1,
              arbitrary: fc.integer({ min: 0, max: 60 }).map((k) => ({ op: 'delete' as const, k })),
            },
            { weight: 1, arbitrary: fc.constant({ op: 'clear' as const, k: 0 }) },
          ),
          { maxLength: 400 },
        ),
        fc.integer({ min: 1, max: 20 }),
        (ops, max) => {
          const map = new Map<number, number>();
          const order: number[] = [];
          for (const [i, { op, k }] of ops.entries()) {
            if (op === 'clear') {
              map.clear();
              order.length = 0;
            } else if (op === 'delete') {
              map.delete(k);
              if (order.includes(k)) order.splice(order.indexOf(k), 1);
            } else {
              setBounded(map, k, i, max);
              if (!order.includes(k)) {
                if (order.length >= max) order.shift();
                order.push(k);
              }
              expect(map.get(k)).toBe(i);
            }
            expect([...map.keys()]).toEqual(order);
          }
        },
      ),
    );
  });

  test('the default bound', () => {
    const map = new Map<string, number>();
    for (let i = 0; i < MAX_REMEMBERED_IDS + 5; i++) setBounded(map, `c${i}`, i);
    expect(map.size).toBe(MAX_REMEMBERED_IDS);
    expect(map.has('c0')).toBe(false);
    expect(map.has(`c${MAX_REMEMBERED_IDS + 4}`)).toBe(true);
  });
});
