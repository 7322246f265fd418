import fc from 'fast-check';
import { expect, test } from 'vitest';
import { AGUI_EVENT_TYPES, aguiEventType, isAguiEventType } from '../../src/formats/ag-ui/wire';
import { AISDK_CHUNK_TYPES, aiSdkChunkType, isAiSdkChunkType } from '../../src/formats/ai-sdk/wire';
import { isAgentEventType } from '../../src/framing/carry';
import { AGENT_EVENT_TYPES } from '../../src/model';
import { FUZZ_RUNS } from '../runs';

// The decoders map a parsed `type` to the module's literal (one comparison per word of its
// length) instead of testing it against a Set: the lookups must accept exactly what the Sets do,
// and give the word back unchanged.

const words = [...AGUI_EVENT_TYPES, ...AISDK_CHUNK_TYPES, ...AGENT_EVENT_TYPES];
const near = fc
  .tuple(fc.constantFrom(...words), fc.nat(), fc.string({ maxLength: 2 }))
  .map(([w, i, s]) => w.slice(0, i % (w.length + 1)) + s + w.slice((i % (w.length + 1)) + 1));
const anyType = fc.oneof(
  fc.constantFrom(...words),
  near,
  fc.constantFrom('data-', 'data-x', 'data-agentwire.tool.output', 'DATA-x', ''),
  fc.string(),
  fc.jsonValue({ maxDepth: 1 }),
);

test('the type lookups accept what the type sets accept, and give the same word', () => {
  fc.assert(
    fc.property(anyType, (t) => {
      // A fresh copy, as JSON.parse gives it.
      const v = JSON.parse(JSON.stringify(t)) as unknown;
      expect(aguiEventType(v) !== undefined).toBe(isAguiEventType(v));
      if (aguiEventType(v) !== undefined) expect(aguiEventType(v)).toBe(v);
      expect(aiSdkChunkType(v) !== undefined).toBe(isAiSdkChunkType(v));
      if (aiSdkChunkType(v) !== undefined) expect(aiSdkChunkType(v)).toBe(v);
      if (typeof v === 'string')
        expect(isAgentEventType(v)).toBe((AGENT_EVENT_TYPES as readonly string[]).includes(v));
    }),
    { numRuns: FUZZ_RUNS * 20 },
  );
});
