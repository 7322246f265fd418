import fc from 'fast-check';
import { expect, test } from 'vitest';
import { frameEach, frameJson } from '../../src/framing/json-stream';
import { formatSseJsonEvent } from '../../src/framing/sse';
import { FUZZ_RUNS } from '../runs';

// The UI writers' framing spells an SSE event itself (`data: {json}\n\n`) rather than calling the
// SSE formatter, whose `id` and `event` checks no JSON framing uses (round forty-eight: the
// formatter's refusals out of the AG-UI and AI SDK writers' bundles). Held here to the formatter
// with no `id` and no `event`, on any JSON text (what the writers frame), alone and in a list.
test('frameJson gives formatSseJsonEvent’s SSE event, and a JSON line', () => {
  fc.assert(
    fc.property(fc.array(fc.json(), { maxLength: 4 }), (texts) => {
      for (const json of texts) {
        expect(frameJson('sse', json)).toBe(formatSseJsonEvent(undefined, undefined, json));
        expect(frameJson('jsonl', json)).toBe(`${json}\n`);
      }
      expect(frameEach('sse', texts)).toBe(
        texts.map((json) => formatSseJsonEvent(undefined, undefined, json)).join(''),
      );
    }),
    { numRuns: FUZZ_RUNS },
  );
});
