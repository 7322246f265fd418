import { describe, expect, test } from 'vitest';
import { MAX_ROUND_TEXT } from '../../src/bounds';
import type { Codec } from '../../src/codec';
import { codecs } from '../../src/formats/index';
import type { AgentEvent } from '../../src/model';

// A round whose text runs past MAX_ROUND_TEXT. Readers whose round end does not carry the round's
// text join it from the deltas for `round.end.message`: they hold at most MAX_ROUND_TEXT
// characters of it and say so once; the text.delta events still carry all of it.

const PIECE = `${'y'.repeat(64 * 1024 - 1)}\n`;
const PIECES = 80; // 5 Mi characters
const WHOLE = PIECE.repeat(PIECES);
const LARGE = { maxLineBytes: 64 * 1024 * 1024, maxEventBytes: 64 * 1024 * 1024 };

// The readers that join the round's text themselves.
const JOINS = ['claude', 'opencode', 'ai-sdk', 'copilot', 'ag-ui'];

function events(): AgentEvent[] {
  const list: AgentEvent[] = [
    { type: 'session.start', session: 's', protocol: 'v1' },
    { type: 'run.start', round: 1, input: 'go' },
    { type: 'message.start', role: 'assistant', round: 1, message: 'm1' },
  ];
  for (let i = 0; i < PIECES; i++) list.push({ type: 'text.delta', text: PIECE, round: 1, message: 'm1' });
  list.push({ type: 'message.end', round: 1, message: 'm1' });
  list.push({ type: 'round.end', round: 1, message: '' });
  list.push({ type: 'run.end', status: 'completed', answer: 'done' });
  return list;
}

const all = Object.values(codecs).filter((c): c is Codec => c !== undefined && c.format !== 'highbar');

describe.each(all.map((c) => [c.format, c] as const))(
  '%s reader, a round past MAX_ROUND_TEXT',
  (format, codec) => {
    test('holds at most MAX_ROUND_TEXT of it for the round end, says so once, loses no delta', () => {
      const text = codec.stringify(events(), { onDiagnostic: () => {} });
      const back = codec.parse(text, LARGE);
      const all = back.diagnostics;
      expect(all.filter((d) => d.severity === 'error')).toEqual([]);
      const deltas = back.events.flatMap((e) =>
        e.type === 'text.delta' && e.lane === undefined ? [e.text] : [],
      );
      expect(deltas.join('')).toBe(WHOLE);
      const ends = back.events.flatMap((e) => (e.type === 'round.end' ? [e.message] : []));
      for (const m of ends) expect(m.length).toBeLessThanOrEqual(MAX_ROUND_TEXT);
      const warned = all.filter((d) => d.code === 'text_too_long');
      if (JOINS.includes(format)) {
        expect(ends.some((m) => m === WHOLE.slice(0, MAX_ROUND_TEXT))).toBe(true);
        expect(warned).toHaveLength(1);
        expect(warned[0]).toMatchObject({ severity: 'warning' });
        expect(warned[0]?.line).toBeGreaterThan(0);
      } else expect(warned).toEqual([]);
    });
  },
);
