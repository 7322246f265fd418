import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { AgentEvent } from '../../src/all';
import type { Diagnostic } from '../../src/diagnostics';
import { CopilotEncoder } from '../../src/formats/copilot/encode';
import { FUZZ_RUNS } from '../runs';

// A tool's end written from the model is built as one literal per shape (`toolEndData`) when
// templates are on; this holds it to `dataWith`, the general path (templates off), on tool ends
// with every field set or unset (test/copilot/writer-templates.test.ts always sets the error).

const text = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('"', '\\', '\n', '😀'));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const value = fc.oneof(text, fc.integer(), fc.constant(null), fc.jsonValue({ maxDepth: 2 }));
const toolEnd = fc
  .record({
    call: maybe(text),
    ok: maybe(fc.boolean()),
    text: maybe(text),
    result: maybe(value),
    error: maybe(value),
    lane: maybe(fc.constantFrom('child-1')),
  })
  .map((r) => {
    const event: Record<string, unknown> = { type: 'tool.end', ts: 1767225600000 };
    for (const [k, v] of Object.entries(r)) if (v !== undefined) event[k] = v;
    return event as unknown as AgentEvent;
  });

function write(
  events: AgentEvent[],
  templates: boolean,
): { text: string; error?: string; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  let n = 0;
  const e = new CopilotEncoder(
    { idSource: () => `id-${++n}`, clock: () => 1767225600000 },
    { report: (d) => diagnostics.push(d) },
    templates,
  );
  let out = '';
  try {
    for (const ev of events) out += e.write(ev);
    out += e.end();
  } catch (error) {
    return { text: out, error: String(error), diagnostics };
  }
  return { text: out, diagnostics };
}

test('property: tool ends are written the same with templates on and off', () => {
  fc.assert(
    fc.property(fc.array(toolEnd, { maxLength: 6 }), (events) => {
      expect(write(events, true)).toEqual(write(events, false));
    }),
    { numRuns: FUZZ_RUNS * 5 },
  );
});
