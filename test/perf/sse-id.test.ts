import fc from 'fast-check';
import { expect, test } from 'vitest';
import { nativeharness } from '../../src/formats/nativeharness';

// The decoder compares the SSE id with the envelope seq without building String(seq) per event;
// this pins that comparison to `id === String(seq)` on ids near and far from the seq.
const ids = (seq: number) =>
  fc.oneof(
    fc.constant(String(seq)),
    fc.constant(`0${seq}`),
    fc.constant(`${seq} `),
    fc.constant(`+${seq}`),
    fc.constant(`${seq}.0`),
    fc.constant(String(seq + 1)),
    fc.constant(''),
    fc.stringMatching(/^[0-9]{0,18}$/),
    fc.string({ maxLength: 6 }).filter((s) => !/[\r\n\0]/.test(s)),
  );

test('an SSE id is the seq exactly when it is String(seq)', () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.constantFrom(999_999_999_999_999, 2 ** 53 - 1)),
      fc.nat(),
      (seq, pick) => {
        const id = fc.sample(ids(seq), { seed: pick, numRuns: 1 })[0]!;
        const envelope = {
          seq,
          ts: 1,
          type: 'title',
          workspace_id: 'w',
          session_id: 's',
          turn_id: null,
          payload: { title: 't' },
        };
        const text = `id: ${id}\nevent: title\ndata: ${JSON.stringify(envelope)}\n\n`;
        const { events, diagnostics } = nativeharness.parse(text);
        const mismatch = diagnostics.some((d) => d.message.includes('is not the envelope seq'));
        expect(mismatch).toBe(id !== String(seq));
        expect(events).toHaveLength(1);
      },
    ),
    { numRuns: 300 },
  );
});
