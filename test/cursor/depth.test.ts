import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { cursor } from '../../src/all';
import { exceedsDepth } from '../../src/json';
import { FUZZ_RUNS } from '../runs';

// The Cursor decoder measures the depth bound on the parsed record (a few objects) instead of
// sweeping the line's text for brackets (docs/performance.md, "Cursor decoder, round four"):
// the same lines are refused, with the same diagnostic at the same place, as the text measure
// says (the prompt line nests four levels: maxDepth from 4). Prose with brackets in it counts for the text pre-check only, never for the depth.

const INIT = '{"type":"system","subtype":"init","session_id":"S","model":"Auto"}\n';
const USER =
  '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"session_id":"S"}\n';
const nested = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const toolLine = (args: string, prose: string) =>
  `{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"shellToolCall":{"args":${args},"description":${JSON.stringify(prose)}},"toolCallId":"c","startedAtMs":"1"},"session_id":"S","timestamp_ms":2}`;

describe('Cursor decoder: the depth bound on the parsed record', () => {
  test('refuses exactly the lines the text measure refuses, at their line and offset', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 4, max: 14 }),
        fc.string({ unit: fc.constantFrom('{', '[', ']', '}', 'a', ' ', '"', '\\') }),
        (levels, maxDepth, prose) => {
          const line = toolLine(nested(levels), prose);
          const text = `${INIT}${USER}${line}\n`;
          const { events, diagnostics } = cursor.parse(text, { maxDepth });
          const refused = exceedsDepth(line, maxDepth);
          const deep = diagnostics.filter((d) => d.code === 'nesting_too_deep');
          expect(deep.length).toBe(refused ? 1 : 0);
          if (refused) expect(deep[0]).toMatchObject({ line: 3, offset: INIT.length + USER.length });
          expect(events.some((e) => e.type === 'tool.start')).toBe(!refused);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });
});
