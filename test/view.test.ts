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

  test('colour only when asked', () => {
    const { events } = hep.parse(readFileSync('fixtures/hep/single-round.jsonl'));
    const plain = new TimelineRenderer();
    const coloured = new TimelineRenderer({ color: true });
    expect(events.map((e) => plain.render(e)).join('')).not.toContain('\u001b[');
    expect(events.map((e) => coloured.render(e)).join('')).toContain('\u001b[');
  });
});
