import { describe, expect, test } from 'vitest';
import type { Codec } from '../../src/codec';
import type { Diagnostic } from '../../src/diagnostics';
import { CLAUDE_MAX_HELD_OUTPUT } from '../../src/formats/claude/wire';
import { codecs } from '../../src/formats/index';
import type { AgentEvent } from '../../src/model';

// A command that never stops printing: its streamed output (`tool.output`) must not grow a writer
// without bound. Every writer either streams the output as it comes (it reads back whole), holds
// it up to a cap for the call's result and reports the rest as a `loss`, or has no place for it
// and reports that. Nothing is dropped silently, and what is written reads back without error.

const PIECE = `${'x'.repeat(64 * 1024 - 1)}\n`;
const PIECES = 48; // 3 Mi characters, three times the Claude writer's cap

function events(): AgentEvent[] {
  const list: AgentEvent[] = [
    { type: 'session.start', session: 's', protocol: 'v1' },
    { type: 'run.start', round: 1, input: 'go' },
    { type: 'tool.start', call: 'c1', name: 'bash', args: { command: 'yes' }, round: 1 },
  ];
  for (let i = 0; i < PIECES; i++) list.push({ type: 'tool.output', call: 'c1', text: PIECE, round: 1 });
  list.push({ type: 'tool.end', call: 'c1', name: 'bash', ok: true, round: 1 });
  list.push({ type: 'round.end', round: 1, message: '' });
  list.push({ type: 'run.end', status: 'completed' });
  return list;
}

const all = Object.values(codecs).filter((c): c is Codec => c !== undefined);

describe.each(all.map((c) => [c.format, c] as const))('%s writer, endless tool output', (_format, codec) => {
  test('streams it, or holds a bounded part and reports the rest', () => {
    const diagnostics: Diagnostic[] = [];
    const text = codec.stringify(events(), { onDiagnostic: (d: Diagnostic) => diagnostics.push(d) });
    const back = codec.parse(text);
    expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const total = PIECE.length * PIECES;
    let streamed = 0;
    for (const e of back.events) if (e.type === 'tool.output') streamed += e.text.length;
    const result = back.events.flatMap((e) => (e.type === 'tool.end' ? [e.text ?? ''] : []))[0] ?? '';
    const lost = diagnostics.some((d) => d.code === 'loss' && (d.field ?? '').startsWith('tool.output'));
    if (streamed === total) {
      expect(lost).toBe(false);
      return;
    }
    // Not streamed: a loss says so, and what is held for the result stays under 1 Mi characters.
    expect(lost).toBe(true);
    expect(result.length).toBeLessThanOrEqual(CLAUDE_MAX_HELD_OUTPUT);
  });
});

test('the Claude writer holds the first CLAUDE_MAX_HELD_OUTPUT characters for the result, once reported', () => {
  const diagnostics: Diagnostic[] = [];
  const text = codecs.claude!.stringify(events(), { onDiagnostic: (d: Diagnostic) => diagnostics.push(d) });
  const back = codecs.claude!.parse(text);
  const end = back.events.find((e) => e.type === 'tool.end');
  expect(end?.type === 'tool.end' && end.text).toBe(PIECE.repeat(PIECES).slice(0, CLAUDE_MAX_HELD_OUTPUT));
  expect(diagnostics.filter((d) => d.code === 'loss' && d.field === 'tool.output.text')).toHaveLength(1);
});

test('under the cap, the Claude writer gives the whole streamed output as the result', () => {
  const list = events().filter((e, i) => e.type !== 'tool.output' || i < 3 + 4);
  const text = codecs.claude!.stringify(list, { onDiagnostic: () => {} });
  const end = codecs.claude!.parse(text).events.find((e) => e.type === 'tool.end');
  expect(end?.type === 'tool.end' && end.text).toBe(PIECE.repeat(4));
});
