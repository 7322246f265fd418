import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { AgentEvent } from '../../src/all';
import { claude } from '../../src/formats/claude/index';
import { FUZZ_RUNS } from '../runs';

// The writer reads a kept line's `session_id` once, from the line's end (`lineSession`, a string
// token read in place), to tell an event whose session was kept from one whose session was taken
// out or changed. These hold it on session ids of any spelling (quotes, backslashes, line
// separators, lone surrogates, `\u` escapes of plain letters): kept, the lines come back byte for
// byte; taken out or changed, no line says the old one.

const session = fc.string({
  unit: fc.constantFrom('a', '-', '"', '\\', '/', '\n', '\u2028', 'é', '\ud800', '\udc00', '\u0001'),
  minLength: 1,
  maxLength: 10,
});
// As JSON.stringify spells it, or with its first `a` as a `\u` escape (the same string).
const spelled = fc
  .tuple(session, fc.boolean())
  .map(
    ([s, escaped]) => [s, escaped ? JSON.stringify(s).replace('a', '\\u0061') : JSON.stringify(s)] as const,
  );

function lines(s: string): string {
  return [
    `{"type":"system","subtype":"init","cwd":"/r","session_id":${s},"tools":[],"mcp_servers":[],"model":"m","permissionMode":"default","uuid":"i1"}`,
    `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null,"session_id":${s},"uuid":"u1"}`,
    `{"type":"assistant","message":{"model":"m","id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"yo"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}},"parent_tool_use_id":null,"session_id":${s},"uuid":"a1"}`,
    '',
  ].join('\n');
}

test('a kept line whose session is kept comes back byte for byte, whatever its spelling', () => {
  fc.assert(
    fc.property(spelled, ([, s]) => {
      const text = lines(s);
      const { events } = claude.parse(text);
      expect(claude.stringify(events, { onDiagnostic() {} })).toBe(text);
    }),
    { numRuns: FUZZ_RUNS },
  );
});

test('a session taken out of or changed in a kept line is not written back', () => {
  fc.assert(
    fc.property(spelled, fc.boolean(), ([value, s], remove) => {
      const { events } = claude.parse(lines(s));
      const edited = events.map((e): AgentEvent => {
        if (e.session === undefined) return e;
        if (!remove) return { ...e, session: 'edited' };
        const { session: _gone, ...rest } = e;
        return rest as AgentEvent;
      });
      const out = claude.stringify(edited, { onDiagnostic() {}, idSource: () => 'w', session: 'w' });
      expect(out).not.toContain(`"session_id":${s}`);
      expect(out).not.toContain(`"session_id":${JSON.stringify(value)}`);
    }),
    { numRuns: FUZZ_RUNS },
  );
});
