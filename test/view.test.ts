import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { hep } from '../src/all';
import { neutralizeControls, TimelineRenderer } from '../src/view';
import { expectGoldenText } from './golden';

describe('view: the human timeline', () => {
  test('control sequences in model text are shown, never executed', () => {
    expect(neutralizeControls('\u001b[2J\rgone\u0007 ok\t\n')).toBe('\\x1b[2J\\x0dgone\\x07 ok\t\n');
    expect(neutralizeControls('\u009b31m \u202e evil')).toBe('\\x9b31m \\u202e evil');
    expect(neutralizeControls('<script>alert(1)</script>')).toBe('<script>alert(1)</script>');
  });

  test.each(['tool-then-text', 'provider-error', 'cancelled', 'liveness', 'compaction-preflight'])(
    'timeline of %s (golden)',
    (name) => {
      const { events } = hep.parse(readFileSync(`fixtures/hep/${name}.jsonl`));
      const r = new TimelineRenderer();
      const text = events.map((e) => r.render(e)).join('') + r.end();
      expectGoldenText(`test/view/${name}.txt`, text);
    },
  );

  test('a long tool list names what fits one line and counts the rest', () => {
    const r = new TimelineRenderer();
    const tools = Array.from({ length: 64 }, (_, i) => `mcp__server__tool_${i}`);
    const line = r.render({ type: 'session.start', session: 's1', tools } as never);
    expect(line.length).toBeLessThan(160);
    const shown = line.match(/mcp__server__tool_\d+/g)!.length;
    expect(shown).toBeGreaterThan(1);
    expect(line).toContain(`, … (${64 - shown} more)`);
    const few = new TimelineRenderer().render({ type: 'tools.declare', tools: ['Read', 'Bash'] } as never);
    expect(few).toBe('tools: Read, Bash\n');
  });

  test('colour only when asked', () => {
    const { events } = hep.parse(readFileSync('fixtures/hep/single-round.jsonl'));
    const plain = new TimelineRenderer();
    const coloured = new TimelineRenderer({ color: true });
    expect(events.map((e) => plain.render(e)).join('')).not.toContain('\u001b[');
    expect(events.map((e) => coloured.render(e)).join('')).toContain('\u001b[');
  });
});
