import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { FORMATS } from '../src/diagnostics';
import { validateEvent } from '../src/model';
import { isAgentEvent } from '../src/model-guard';
import { HintedProvenance, LineProvenance, plain } from '../src/plain';

// What src/plain.ts promises: its objects are the literals they replace in every way a caller
// can see (prototype, constructor, own keys and their order, JSON, the model's checks).
describe('plain constructors', () => {
  test('an instance has the prototype, constructor and keys of the literal it replaces', () => {
    const p = new HintedProvenance('cursor', 3, 120, { raw: '{"a":1}', record: { a: 1 } });
    const literal = { format: 'cursor', line: 3, offset: 120, hints: { raw: '{"a":1}', record: { a: 1 } } };
    expect(Object.getPrototypeOf(p)).toBe(Object.prototype);
    expect(p.constructor).toBe(Object);
    expect(Object.getPrototypeOf(p.hints)).toBe(Object.prototype);
    expect(Object.keys(p)).toEqual(Object.keys(literal));
    expect(JSON.stringify(p)).toBe(JSON.stringify(literal));
    expect(p).toStrictEqual(literal);
    expect(structuredClone(p)).toStrictEqual(literal);
  });

  test('an event carrying them passes the model checks (zod and the zod-free guard)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FORMATS),
        fc.nat(),
        fc.nat(),
        fc.string(),
        fc.boolean(),
        (format, line, offset, raw, hinted) => {
          const provenance = hinted
            ? new HintedProvenance(format, line, offset, { raw, record: null })
            : new LineProvenance(format, line, offset);
          const event = { type: 'unknown', record: null, provenance };
          expect(validateEvent(event).success).toBe(true);
          expect(isAgentEvent(event)).toBe(true);
          expect(Object.keys(provenance)).toEqual(
            hinted ? ['format', 'line', 'offset', 'hints'] : ['format', 'line', 'offset'],
          );
        },
      ),
    );
  });

  test('plain() keeps the order the constructor assigns and shares no state between instances', () => {
    const Pair = plain(function (this: { b: number; a: string }, a: string, b: number) {
      this.b = b;
      this.a = a;
    });
    const one = new Pair('x', 1);
    const two = new Pair('y', 2);
    expect(Object.keys(one)).toEqual(['b', 'a']);
    expect(one).toStrictEqual({ b: 1, a: 'x' });
    expect(two).toStrictEqual({ b: 2, a: 'y' });
    expect(Object.getPrototypeOf(two)).toBe(Object.prototype);
  });
});
