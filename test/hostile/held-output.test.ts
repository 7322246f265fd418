import { describe, expect, test } from 'vitest';
import type { Codec } from '../../src/codec';
import type { Diagnostic } from '../../src/diagnostics';
import { AGUI_MAX_HELD_TEXT } from '../../src/formats/ag-ui/wire';
import { AMP_JOIN_SHORTCUT } from '../../src/formats/amp/encode';
import { AMP_MAX_HELD_TEXT } from '../../src/formats/amp/wire';
import { CLAUDE_MAX_HELD_OUTPUT, CLAUDE_MAX_HELD_TEXT } from '../../src/formats/claude/wire';
import { CODEX_MAX_HELD_TEXT } from '../../src/formats/codex/wire';
import { COPILOT_MAX_HELD_TEXT } from '../../src/formats/copilot/wire';
import { CURSOR_MAX_HELD_TEXT } from '../../src/formats/cursor/wire';
import { codecs } from '../../src/formats/index';
import { OPENCODE_MAX_HELD_TEXT } from '../../src/formats/opencode/wire';
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

// What a writer writes for `list`, and the diagnostics it reports.
function write(codec: Codec, list: AgentEvent[]): { text: string; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const text = codec.stringify(list, { onDiagnostic: (d: Diagnostic) => diagnostics.push(d) });
  return { text, diagnostics };
}

// The losses reported on `field`.
const lossesOn = (diagnostics: Diagnostic[], field: string) =>
  diagnostics.filter((d) => d.code === 'loss' && d.field === field);

// The written lines that start with `head`, parsed.
function records<T>(text: string, head: string): T[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith(head))
    .map((l) => JSON.parse(l) as T);
}

describe.each(all.map((c) => [c.format, c] as const))('%s writer, endless tool output', (_format, codec) => {
  test('streams it, or holds a bounded part and reports the rest', () => {
    const { text, diagnostics } = write(codec, events());
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
  const { text, diagnostics } = write(codecs.claude!, events());
  const back = codecs.claude!.parse(text);
  const end = back.events.find((e) => e.type === 'tool.end');
  expect(end?.type === 'tool.end' && end.text).toBe(PIECE.repeat(PIECES).slice(0, CLAUDE_MAX_HELD_OUTPUT));
  expect(lossesOn(diagnostics, 'tool.output.text')).toHaveLength(1);
});

test('under the cap, the Claude writer gives the whole streamed output as the result', () => {
  const list = events().filter((e, i) => e.type !== 'tool.output' || i < 3 + 4);
  const text = codecs.claude!.stringify(list, { onDiagnostic: () => {} });
  const end = codecs.claude!.parse(text).events.find((e) => e.type === 'tool.end');
  expect(end?.type === 'tool.end' && end.text).toBe(PIECE.repeat(4));
});

// Line and SSE event bounds that a 3 Mi-character line fits in.
const LARGE = { maxLineBytes: 64 * 1024 * 1024, maxEventBytes: 64 * 1024 * 1024 };

// One message of 3 Mi characters in deltas, from a format other than Codex.
function longMessage(): AgentEvent[] {
  const list: AgentEvent[] = [
    { type: 'session.start', session: 's', protocol: 'v1' },
    { type: 'run.start', round: 1, input: 'go' },
    { type: 'message.start', role: 'assistant', round: 1, message: 'm1' },
  ];
  for (let i = 0; i < PIECES; i++) list.push({ type: 'text.delta', text: PIECE, round: 1, message: 'm1' });
  list.push({ type: 'round.end', round: 1, message: PIECE.repeat(PIECES) });
  list.push({ type: 'run.end', status: 'completed' });
  return list;
}

describe.each(all.map((c) => [c.format, c] as const))('%s writer, one long message', (_format, codec) => {
  test('its text reads back whole', () => {
    const text = codec.stringify(longMessage(), { onDiagnostic: () => {} });
    // HEP's turn_done and nativeharness's done repeat the round's message: a line past the
    // readers' default 1 MiB line bound (docs/limits.md).
    const back = codec.parse(text, LARGE);
    expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    if (codec.format === 'highbar') return; // no record for text: a loss (every-writer.test.ts)
    const deltas = back.events.flatMap((e) =>
      e.type === 'text.delta' && e.lane === undefined ? [e.text] : [],
    );
    expect(deltas.join('')).toBe(PIECE.repeat(PIECES));
  });
});

test('the Codex writer writes a message past CODEX_MAX_HELD_TEXT as several items, once reported', () => {
  const { text, diagnostics } = write(codecs.codex!, longMessage());
  const items = records<{ item: { type: string; text: string } }>(text, '{"type":"item.completed"')
    .filter((r) => r.item.type === 'agent_message')
    .map((r) => r.item.text);
  expect(items.length).toBe(3);
  for (const t of items) expect(t.length).toBeLessThanOrEqual(CODEX_MAX_HELD_TEXT);
  expect(items.join('')).toBe(PIECE.repeat(PIECES));
  expect(lossesOn(diagnostics, 'text.delta.message')).toHaveLength(1);
});

test("the Codex writer reports the part of a command's output the cap cuts, the crossing delta included", () => {
  const { text, diagnostics } = write(codecs.codex!, [
    { type: 'run.start', round: 1, input: 'go' },
    { type: 'tool.start', call: 'c1', name: 'bash', kind: 'execute', command: 'yes', args: {}, round: 1 },
    { type: 'tool.output', call: 'c1', text: 'y'.repeat(CODEX_MAX_HELD_TEXT - 10), round: 1 },
    { type: 'tool.output', call: 'c1', text: 'z'.repeat(100), round: 1 },
    { type: 'tool.end', call: 'c1', name: 'bash', ok: true, round: 1 },
    { type: 'round.end', round: 1, message: '' },
    { type: 'run.end', status: 'completed' },
  ]);
  const [item] = records<{ item: { aggregated_output: string } }>(text, '{"type":"item.completed"');
  expect(item?.item.aggregated_output).toBe(`${'y'.repeat(CODEX_MAX_HELD_TEXT - 10)}${'z'.repeat(10)}`);
  expect(lossesOn(diagnostics, 'tool.output.text')).toHaveLength(1);
});

test('the OpenCode writer writes a message past OPENCODE_MAX_HELD_TEXT as several parts of one step, read back as one message', () => {
  const { text, diagnostics } = write(codecs.opencode!, longMessage());
  const parts = records<{ part: { text: string } }>(text, '{"type":"text"').map((r) => r.part.text);
  expect(parts.length).toBe(3);
  for (const t of parts) expect(t.length).toBeLessThanOrEqual(OPENCODE_MAX_HELD_TEXT);
  const back = codecs.opencode!.parse(text, LARGE);
  const end = back.events.find((e) => e.type === 'round.end');
  expect(end?.type === 'round.end' && end.message).toBe(PIECE.repeat(PIECES));
  expect(diagnostics.filter((d) => d.field === 'text.delta.message')).toEqual([]);
});

describe('the Claude writer, a message past CLAUDE_MAX_HELD_TEXT', () => {
  const run = (extra: AgentEvent[]): AgentEvent[] => {
    const list = longMessage().slice(0, -2);
    list.push(...extra);
    list.push(
      {
        type: 'round.end',
        round: 1,
        message: PIECE.repeat(PIECES),
        stopReason: 'end_turn',
        usage: { input: 5, output: 7 },
      },
      { type: 'run.end', status: 'completed', answer: 'done' },
    );
    return list;
  };

  test('writes its text as blocks of the same message as it goes, read back as one message', () => {
    const text = codecs.claude!.stringify(run([]), { onDiagnostic: () => {} });
    const blocks = records<{ message: { id: string; content: [{ text: string }] } }>(
      text,
      '{"type":"assistant"',
    );
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const b of blocks)
      expect(b.message.content[0].text.length).toBeLessThanOrEqual(CLAUDE_MAX_HELD_TEXT);
    expect(new Set(blocks.map((b) => b.message.id)).size).toBe(1);
    const back = codecs.claude!.parse(text, LARGE);
    expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const end = back.events.find((e) => e.type === 'round.end');
    expect(end?.type === 'round.end' && [end.message === PIECE.repeat(PIECES), end.stopReason]).toEqual([
      true,
      'end_turn',
    ]);
    const runEnd = back.events.find((e) => e.type === 'run.end');
    expect(runEnd?.type === 'run.end' && runEnd.usage).toMatchObject({ input: 5, output: 7 });
  });

  test('a tool call after the cut: no empty text line, the call in order', () => {
    const text = codecs.claude!.stringify(
      run([{ type: 'tool.start', call: 'c1', name: 'bash', args: { command: 'ls' }, round: 1 }]),
      { onDiagnostic: () => {} },
    );
    expect(text).not.toContain('"content":[{"type":"text","text":""}]');
    const back = codecs.claude!.parse(text, LARGE);
    const kinds = back.events.flatMap((e) =>
      e.type === 'text.delta' || e.type === 'tool.start' ? [e.type] : [],
    );
    expect(kinds.at(-1)).toBe('tool.start');
    expect(back.events.flatMap((e) => (e.type === 'text.delta' ? [e.text] : [])).join('')).toBe(
      PIECE.repeat(PIECES),
    );
  });
});

test('the Amp writer writes a message past AMP_MAX_HELD_TEXT as several assistant lines, once reported', () => {
  const { text, diagnostics } = write(codecs.amp!, longMessage());
  const lines = records<{ message: { content: Array<{ text: string }> } }>(text, '{"type":"assistant"').map(
    (r) => r.message.content,
  );
  expect(lines.length).toBe(3);
  for (const content of lines)
    for (const b of content) expect(b.text.length).toBeLessThanOrEqual(AMP_MAX_HELD_TEXT);
  expect(lines.flatMap((c) => c.map((b) => b.text)).join('')).toBe(PIECE.repeat(PIECES));
  expect(lossesOn(diagnostics, 'text.delta.message')).toHaveLength(1);
  // The join shortcut leaves the cut to the general path: the same bytes without it.
  AMP_JOIN_SHORTCUT.enabled = false;
  try {
    expect(codecs.amp!.stringify(longMessage(), { onDiagnostic: () => {} })).toBe(text);
  } finally {
    AMP_JOIN_SHORTCUT.enabled = true;
  }
});

// One message of 3 Mi characters of reasoning, then 3 Mi of text, in deltas; neither the round's
// end nor the run's carries the text again. Whatever a writer repeats of it in a closing record
// (a message's final copy, a run's result) it must have held: no writer holds more than its
// 1 Mi-character cap, so no line it writes is longer than that and its envelope.
function longThought(answer?: string): AgentEvent[] {
  const list: AgentEvent[] = [
    { type: 'session.start', session: 's', protocol: 'v1' },
    { type: 'run.start', round: 1, input: 'go' },
    { type: 'message.start', role: 'assistant', round: 1, message: 'm1' },
  ];
  for (let i = 0; i < PIECES; i++)
    list.push({ type: 'reasoning.delta', text: PIECE, round: 1, message: 'm1' });
  for (let i = 0; i < PIECES; i++) list.push({ type: 'text.delta', text: PIECE, round: 1, message: 'm1' });
  list.push({ type: 'message.end', round: 1, message: 'm1' });
  list.push({ type: 'round.end', round: 1, message: '' });
  list.push({ type: 'run.end', status: 'completed', ...(answer === undefined ? {} : { answer }) });
  return list;
}

const HELD_LINE = 1024 * 1024 + 4096;

describe.each(all.map((c) => [c.format, c] as const))(
  '%s writer, long reasoning and text',
  (_format, codec) => {
    test('no line past the held-text cap; text and reasoning read back whole', () => {
      const { text, diagnostics } = write(codec, longThought());
      for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(HELD_LINE);
      const back = codec.parse(text, LARGE);
      expect(back.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      if (codec.format === 'highbar') return; // no record for text: a loss (every-writer.test.ts)
      const joined = (type: string) =>
        back.events.flatMap((e) => (e.type === type && 'text' in e ? [e.text] : [])).join('');
      expect(joined('text.delta')).toBe(PIECE.repeat(PIECES));
      if (lossesOn(diagnostics, 'reasoning.delta').length === 0)
        expect(joined('reasoning.delta')).toBe(PIECE.repeat(PIECES));
    });
  },
);

test('the Copilot writer writes a message past COPILOT_MAX_HELD_TEXT as several messages, once reported', () => {
  const { text, diagnostics } = write(codecs.copilot!, longThought());
  const messages = records<{
    type: string;
    data: { messageId: string; content: string; reasoningText?: string };
  }>(text, '{"id"').filter((r) => r.type === 'assistant.message');
  expect(messages.length).toBe(3);
  for (const m of messages) expect(m.data.content.length).toBeLessThanOrEqual(COPILOT_MAX_HELD_TEXT);
  expect(messages.map((m) => m.data.content).join('')).toBe(PIECE.repeat(PIECES));
  expect(new Set(messages.map((m) => m.data.messageId)).size).toBe(3);
  // The reasoning past the cap is not repeated: its deltas carry it.
  expect(messages.map((m) => m.data.reasoningText)).toEqual([undefined, undefined, undefined]);
  expect(lossesOn(diagnostics, 'text.delta.message')).toHaveLength(1);
  const back = codecs.copilot!.parse(text, LARGE);
  expect(back.events.filter((e) => e.type === 'message.end')).toHaveLength(3);
});

// `list` with only the first `n` deltas of each kind: a message well under the caps.
const firstDeltas = (list: AgentEvent[], n: number): AgentEvent[] =>
  list.filter(
    (e, i, xs) =>
      (e.type !== 'text.delta' && e.type !== 'reasoning.delta') ||
      xs.slice(0, i).filter((x) => x.type === e.type).length < n,
  );

test('under the cap, the Copilot writer repeats the message and its reasoning whole', () => {
  const small = firstDeltas(longThought(), 4);
  const { text, diagnostics } = write(codecs.copilot!, small);
  const [m, ...rest] = records<{ type: string; data: { content: string; reasoningText?: string } }>(
    text,
    '{"id"',
  ).filter((r) => r.type === 'assistant.message');
  expect(rest).toEqual([]);
  expect([m?.data.content, m?.data.reasoningText]).toEqual([PIECE.repeat(4), PIECE.repeat(4)]);
  expect(lossesOn(diagnostics, 'text.delta.message')).toEqual([]);
});

test("the Cursor writer's result repeats the run's text up to CURSOR_MAX_HELD_TEXT, then is empty and reported", () => {
  const { text, diagnostics } = write(codecs.cursor!, longThought());
  const [result] = records<{ result: string }>(text, '{"type":"result"');
  expect(result?.result).toBe('');
  expect(lossesOn(diagnostics, 'run.end.answer')).toHaveLength(1);
  // Under the cap: the run's text, nothing reported.
  const under = firstDeltas(longThought(), 4);
  const small = write(codecs.cursor!, under);
  expect(records<{ result: string }>(small.text, '{"type":"result"')[0]?.result).toBe(PIECE.repeat(4));
  expect(PIECE.length * 4).toBeLessThan(CURSOR_MAX_HELD_TEXT);
  expect(lossesOn(small.diagnostics, 'run.end.answer')).toEqual([]);
});

test("the AG-UI writer writes an answer past AGUI_MAX_HELD_TEXT as the run's result, not proved a repeat", () => {
  const whole = PIECE.repeat(PIECES);
  expect(whole.length).toBeGreaterThan(AGUI_MAX_HELD_TEXT);
  const { text, diagnostics } = write(codecs['ag-ui']!, longThought(whole));
  const [finished] = text
    .split('\n')
    .filter((l) => l.startsWith('data: {"type":"RUN_FINISHED"'))
    .map((l) => JSON.parse(l.slice(6)) as { result?: string });
  expect(finished?.result).toBe(whole);
  expect(diagnostics.filter((d) => d.code === 'loss' && d.field?.startsWith('run.end'))).toEqual([]);
  const back = codecs['ag-ui']!.parse(text, LARGE);
  const end = back.events.find((e) => e.type === 'run.end');
  expect(end?.type === 'run.end' && end.answer === whole).toBe(true);
  // Under the cap an answer that is the run's text is not repeated.
  const under = firstDeltas(longThought(PIECE.repeat(4)), 4);
  expect(write(codecs['ag-ui']!, under).text).not.toContain('"result"');
});
