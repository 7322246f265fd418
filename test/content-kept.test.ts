import { describe, expect, test } from 'vitest';
import { codecFor, codecs } from '../src/formats';
import type { AgentEvent, Codec, Diagnostic, Format } from '../src/index';
import { convert } from '../src/index';
import { listFixtures, loadFixture } from '../src/node/fixtures';

// What a person reads of a run is never dropped or invented by a conversion without a `loss`
// saying so: for every fixture and every target format, the main agent's text and reasoning
// read back from the output are the input's, character for character, and its tool calls are
// the input's in number and outcome. Allowed, because the formats require them: a run's `answer`
// written as its text by a format that has no other place for it (Codex's agent_message), and a
// call the input left unanswered answered as interrupted (`ok: false`) by a format that answers
// every call (Claude Code, nativeharness).

const FORMATS = Object.keys(codecs) as Format[];
const T = 1767225600000;

interface Content {
  text: string;
  reasoning: string;
  answers: string;
  starts: number;
  ok: number;
  failed: number;
}

function content(events: readonly AgentEvent[]): Content {
  const c: Content = { text: '', reasoning: '', answers: '', starts: 0, ok: 0, failed: 0 };
  for (const e of events) {
    if (e.lane !== undefined) continue;
    if (e.type === 'text.delta') c.text += e.text;
    else if (e.type === 'reasoning.delta') c.reasoning += e.text;
    else if (e.type === 'run.end' && e.answer !== undefined) c.answers += e.answer;
    else if (e.type === 'tool.start') c.starts++;
    else if (e.type === 'tool.end') {
      if (e.ok) c.ok++;
      else c.failed++;
    }
  }
  return c;
}

function lost(diagnostics: readonly Diagnostic[], ...fields: string[]): boolean {
  return diagnostics.some(
    (d) => d.code === 'loss' && (fields.includes(d.field ?? '') || (d.field ?? '').endsWith('.lane')),
  );
}

const fixtures = listFixtures().filter((f) => !f.name.includes('.'));

describe.each(fixtures.map((f) => [`${f.format}/${f.name}`, f] as const))('content of %s', (_label, info) => {
  const fx = loadFixture(info.format, info.name);
  const want = content(fx.expected.events);
  test.each(FORMATS.filter((f) => f !== fx.format))('→ %s: kept, or its loss reported', (to) => {
    const r = convert(fx.bytes, { from: fx.format, to, clock: () => T });
    const back = (codecFor(to) as Codec).parse(r.output);
    expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const got = content(back.events);
    if (!lost(r.diagnostics, 'text.delta', 'text.delta.text')) {
      // The answer as the run's text, where the input had none.
      const text = want.text === '' && got.text === want.answers ? '' : got.text;
      expect(text, 'text').toBe(want.text);
    }
    if (!lost(r.diagnostics, 'reasoning.delta', 'reasoning.delta.text'))
      expect(got.reasoning, 'reasoning').toBe(want.reasoning);
    if (!lost(r.diagnostics, 'tool.start', 'tool.end', 'tool.end.ok')) {
      expect(got.starts, 'calls').toBe(want.starts);
      expect(got.ok, 'calls that succeeded').toBe(want.ok);
      const unanswered = want.starts - want.ok - want.failed;
      expect(got.failed, 'calls that failed').toBeGreaterThanOrEqual(want.failed);
      expect(got.failed, 'calls that failed').toBeLessThanOrEqual(want.failed + Math.max(0, unanswered));
    }
  });
});
