import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HEP_KEY_ORDER, hepFrameSpec, isHepFrameType } from '../../src/formats/hep/wire';
import { isNhEventType, NH_EVENT_TYPES, nhEventSpec } from '../../src/formats/nativeharness/wire';

// isHepFrameType and isNhEventType read the key-order tables the decoders' spec maps are built
// from, not the maps (so that a bundle that only sniffs leaves the maps out): they must name the
// same strings as the maps, prototype keys included.
const NEAR = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '', 'valueOf', 'TOKEN'];

describe('the type predicates and the spec maps name the same types', () => {
  it('HEP: isHepFrameType(t) exactly when hepFrameSpec(t) is found', () => {
    const types = Object.keys(HEP_KEY_ORDER);
    const text = fc.oneof(fc.constantFrom(...types, ...NEAR), fc.string());
    fc.assert(
      fc.property(text, (t) => {
        expect(isHepFrameType(t)).toBe(hepFrameSpec(t) !== undefined);
      }),
    );
    for (const t of types) expect(hepFrameSpec(t)?.type).toBe(t);
  });

  it('nativeharness: isNhEventType(t) exactly when nhEventSpec(t) is found', () => {
    const text = fc.oneof(fc.constantFrom(...NH_EVENT_TYPES, ...NEAR), fc.string());
    fc.assert(
      fc.property(text, (t) => {
        expect(isNhEventType(t)).toBe(nhEventSpec(t) !== undefined);
      }),
    );
    for (const t of NH_EVENT_TYPES) expect(nhEventSpec(t)?.type).toBe(t);
  });
});
