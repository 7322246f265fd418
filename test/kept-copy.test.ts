import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { copyJson, copyJsonBySpread } from '../src/kept';

// What src/kept.ts's `copyJson` promises the decoders that give an event a copy of a kept record's
// object (the Amp, Copilot, OpenCode and Cursor decoders): the value's own keys in order, a
// `__proto__` key as data, leaves as they are, and no object or array shared with the source, so
// that an edit of the event never edits the kept record. `copyJsonBySpread` (the Cursor
// decoder's copy since round twenty) is held to `copyJson` on every parsed JSON value and
// to the same promises.

// Equal in everything a caller can see: prototype, array-ness and length, own keys in order
// (`__proto__` an own data key), leaves by `Object.is`; and no container shared with `source`.
function expectSameCopy(copy: unknown, reference: unknown, source: unknown): void {
  if (typeof reference !== 'object' || reference === null) {
    expect(Object.is(copy, reference)).toBe(true);
    return;
  }
  expect(typeof copy).toBe('object');
  expect(copy).not.toBe(source);
  expect(Object.getPrototypeOf(copy)).toBe(Object.getPrototypeOf(reference));
  expect(Array.isArray(copy)).toBe(Array.isArray(reference));
  const c = copy as Record<string, unknown>;
  const r = reference as Record<string, unknown>;
  const s = source as Record<string, unknown>;
  expect(Reflect.ownKeys(c)).toEqual(Reflect.ownKeys(r));
  for (const key of Object.keys(r)) {
    expect(Object.getOwnPropertyDescriptor(c, key)).toMatchObject({
      enumerable: true,
      writable: true,
      configurable: true,
    });
    expectSameCopy(c[key], r[key], s[key]);
  }
}

// JSON texts, parsed: what the decoders copy (objects with any keys, `__proto__` and integer-like
// keys included, arrays, nesting).
const keyArb = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'toString', '0', '1', '10', 'a', 'args', 'result', ''),
  fc.string({ maxLength: 6 }),
);
// Every arm is a JSON text, so that an object's `__proto__` key is parsed as data, as the decoders
// see it.
const textArb: fc.Arbitrary<string> = fc.letrec((tie) => ({
  text: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('null', 'true', 'false', '0', '-0', '1.5', '"x"', '""'),
    fc.string({ maxLength: 8 }).map((x) => JSON.stringify(x)),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)),
    fc.array(tie('text'), { maxLength: 5 }).map((xs) => `[${xs.join(',')}]`),
    fc
      .array(fc.tuple(keyArb, tie('text')), { maxLength: 6 })
      .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  ),
})).text;

describe.each([
  ['copyJson', copyJson],
  ['copyJsonBySpread', copyJsonBySpread],
] as const)('%s', (_, copy) => {
  test('a copy equal to the value, sharing no object or array with it, for any parsed JSON value', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        const source: unknown = JSON.parse(text);
        expectSameCopy(copy(source), source, source);
      }),
      { numRuns: 2000 },
    );
  });

  test('a `__proto__` key is copied as an own data key, the copy an Object.prototype object', () => {
    const source = JSON.parse('{"a":1,"__proto__":{"polluted":true},"b":[{"__proto__":[1]}],"2":"two"}');
    const c = copy(source);
    expectSameCopy(c, source, source);
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
    expect(Object.keys(c)).toEqual(['2', 'a', '__proto__', 'b']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('an edit of the copy edits nothing in the source', () => {
    const source = JSON.parse('{"args":{"command":"ls","list":[{"x":1}]},"n":1}');
    const c = copy(source);
    c.args.list[0].x = 2;
    c.args.command = 'rm';
    expect(source).toEqual({ args: { command: 'ls', list: [{ x: 1 }] }, n: 1 });
  });

  test('a key on Object.prototype is not copied into the copy', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.injected = { evil: true };
    try {
      const source = JSON.parse('{"a":{"b":1}}');
      const c = copy(source);
      expect(Object.hasOwn(c, 'injected')).toBe(false);
      expect(Object.keys(c)).toEqual(['a']);
      expectSameCopy(c, source, source);
    } finally {
      delete proto.injected;
    }
  });
});

test('copyJsonBySpread: the same copy as copyJson, for any parsed JSON value', () => {
  fc.assert(
    fc.property(textArb, (text) => {
      const source: unknown = JSON.parse(text);
      expectSameCopy(copyJsonBySpread(source), copyJson(source), source);
    }),
    { numRuns: 2000 },
  );
});
