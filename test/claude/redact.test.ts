import { expect, test } from 'vitest';
import type { AgentEvent } from '../../src/all';
import { claude } from '../../src/formats/claude/index';
import { listFixtures, loadFixture } from '../../src/node/fixtures';

// A tool's output, redacted in its `tool.end` event, leaves no trace in the line written back:
// Claude Code repeats the output at the top level of the result line (`tool_use_result`: the
// text, `Error: <text>`, or a structured copy such as a Read's file), and a patched tool_result
// block alone would leave the secret there.

const fixtures = listFixtures('claude');

test.each(fixtures.map((f) => [f.name, f] as const))(
  '%s: a redacted tool output is gone from its result line',
  (_name, info) => {
    const { events } = claude.parse(loadFixture('claude', info.name).bytes);
    events.forEach((e, i) => {
      if (e.type !== 'tool.end' || e.text === undefined || e.text.length < 8) return;
      const edited: AgentEvent[] = [...events];
      edited[i] = { ...e, text: 'REDACTED' };
      const out = claude.stringify(edited, { onDiagnostic() {} });
      const lines = out.split('\n').filter((l) => l.includes(`"tool_use_id":${JSON.stringify(e.call)}`));
      expect(lines.length).toBeGreaterThan(0);
      const secret = JSON.stringify(e.text).slice(1, -1);
      for (const line of lines) {
        if (!line.includes('"tool_result"')) continue;
        expect(line).toContain('REDACTED');
        expect(line).not.toContain(secret);
      }
    });
  },
);

test('the fixtures have tool outputs to redact', () => {
  let n = 0;
  for (const f of fixtures)
    for (const e of claude.parse(loadFixture('claude', f.name).bytes).events)
      if (e.type === 'tool.end' && e.text !== undefined && e.text.length >= 8) n++;
  expect(n).toBeGreaterThan(5);
});
