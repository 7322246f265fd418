import { expect, test } from 'vitest';
import { type AgentEvent, convert, copilot } from '../../src/all';
import type { Diagnostic } from '../../src/diagnostics';
import { COPILOT_MAX_HELD_MESSAGES } from '../../src/formats/copilot/wire';
import { loadFixture } from '../../src/node/fixtures';

// Another format's messages that have no message.start or message.end (OpenCode names a message
// on each delta; Cursor's end only with the run): the Copilot writer opens a named delta's message
// and writes its assistant.message at the round's or the run's end (a reader of the persisted log
// takes the answer from it: the deltas are ephemeral). Messages held while another is open are
// bounded by COPILOT_MAX_HELD_MESSAGES.

interface Rec {
  type: string;
  data: Record<string, unknown>;
  agentId?: string;
}

function records(text: string): Rec[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Rec);
}

function toCopilot(format: 'opencode' | 'cursor', name: string): Rec[] {
  let n = 0;
  const fx = loadFixture(format, name);
  const { output } = convert(fx.bytes, {
    from: format,
    to: 'copilot',
    clock: () => 1767225600000,
    idSource: () => `id-${++n}`,
  });
  return records(output);
}

function write(events: AgentEvent[]): { recs: Rec[]; text: string; diagnostics: Diagnostic[] } {
  let n = 0;
  const diagnostics: Diagnostic[] = [];
  const text = copilot.stringify(events, {
    clock: () => 1767225600000,
    idSource: () => `id-${++n}`,
    onDiagnostic: (d) => diagnostics.push(d),
  });
  return { recs: records(text), text, diagnostics };
}

test("OpenCode's named messages are written as assistant.message at their round's end, in their lane", () => {
  const recs = toCopilot('opencode', 'child-session');
  const messages = recs.filter((r) => r.type === 'assistant.message');
  expect(messages.map((r) => [r.data.messageId, r.data.content, r.agentId])).toEqual([
    ['msg_k1', 'Found 2 call sites.', 'ses_4f1c2a61affe7Jd0sWq9PzYcBe'],
    ['msg_p2', 'parse() is called from two places.', undefined],
  ]);
  // Each before its round's turn end.
  for (const m of messages) {
    const next = recs[recs.indexOf(m) + 1]!;
    expect(['assistant.usage', 'assistant.turn_end']).toContain(next.type);
  }
});

test("a Cursor run's open message is written at the run's end", () => {
  const recs = toCopilot('cursor', 'tools');
  const messages = recs.filter((r) => r.type === 'assistant.message');
  expect(messages.map((r) => [r.data.messageId, r.data.content])).toEqual([
    [
      'mc_41',
      'Reading the README and running the tests.\nThe README describes a small repo; all 3 tests pass.',
    ],
  ]);
  const idle = recs.findIndex((r) => r.type === 'session.idle');
  expect(recs.indexOf(messages[0]!)).toBeLessThan(idle);
});

test('read back, the deltas and the message give the text once, and the round its message', () => {
  const fx = loadFixture('opencode', 'child-session');
  const { output } = convert(fx.bytes, { from: 'opencode', to: 'copilot', clock: () => 1767225600000 });
  const back = copilot.parse(output).events;
  const texts = back.filter((e) => e.type === 'text.delta').map((e) => e.text);
  expect(texts).toEqual(['Found 2 call sites.', 'parse() is called from two places.']);
  const main = back.filter((e) => e.type === 'round.end' && e.lane === undefined);
  expect(main.at(-1)).toMatchObject({ message: 'parse() is called from two places.' });
});

test('a message cut off with its run is not written whole: its deltas are what it got', () => {
  const { recs } = write([
    { type: 'run.start', input: 'go' },
    { type: 'text.delta', text: 'Half an ans', message: 'm1' },
    { type: 'run.end', status: 'incomplete' },
  ]);
  expect(recs.filter((r) => r.type === 'assistant.message')).toEqual([]);
});

test(`interleaved messages that never end: at most ${COPILOT_MAX_HELD_MESSAGES} held, the oldest written first`, () => {
  const count = COPILOT_MAX_HELD_MESSAGES * 3;
  const events: AgentEvent[] = [{ type: 'run.start', input: 'go' }, { type: 'round.start' }];
  // The main agent's message stays open; each lane's message is named once and never ends.
  events.push({ type: 'text.delta', text: 'main ', message: 'main' });
  for (let i = 0; i < count; i++)
    events.push({ type: 'text.delta', text: `lane ${i}`, message: `m${i}`, lane: `agent-${i}` });
  events.push({ type: 'text.delta', text: 'done', message: 'main' });
  events.push({ type: 'round.end', message: '' }, { type: 'run.end', status: 'completed' });
  const { recs, text, diagnostics } = write(events);
  const messages = recs.filter((r) => r.type === 'assistant.message');
  // Held: the open one and the latest COPILOT_MAX_HELD_MESSAGES - 1 lanes' (written at the round's
  // end: only the open one is, the others stay held as before). Every older one is written ahead,
  // oldest first, in its lane.
  const early = count - (COPILOT_MAX_HELD_MESSAGES - 1);
  expect(messages.slice(0, early).map((r) => [r.data.messageId, r.data.content, r.agentId])).toEqual(
    Array.from({ length: early }, (_, i) => [`m${i}`, `lane ${i}`, `agent-${i}`]),
  );
  expect(messages.slice(early).map((r) => [r.data.messageId, r.data.content])).toEqual([
    ['main', 'main done'],
  ]);
  const lost = diagnostics.filter((d) => d.code === 'loss' && d.message.includes('messages not ended'));
  expect(lost.length).toBeGreaterThan(0);
  // What is written reads back.
  expect(copilot.parse(text).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
});

test('messages that start and end in turn are never written early', () => {
  const events: AgentEvent[] = [{ type: 'run.start', input: 'go' }, { type: 'round.start' }];
  for (let i = 0; i < COPILOT_MAX_HELD_MESSAGES * 3; i++)
    events.push(
      { type: 'message.start', role: 'assistant', message: `m${i}` },
      { type: 'text.delta', text: `t${i}`, message: `m${i}` },
      { type: 'message.end', message: `m${i}` },
    );
  events.push({ type: 'round.end', message: '' }, { type: 'run.end', status: 'completed' });
  const { recs, diagnostics } = write(events);
  expect(recs.filter((r) => r.type === 'assistant.message').length).toBe(COPILOT_MAX_HELD_MESSAGES * 3);
  expect(diagnostics.filter((d) => d.code === 'loss')).toEqual([]);
});

test('a message.end naming an id no start or delta named writes no message, and reports nothing', () => {
  // Cursor ends the segment its deltas streamed (they name no message) with the snapshot's id.
  const { recs, diagnostics } = write([
    { type: 'run.start', input: 'go' },
    { type: 'text.delta', text: 'Listing.' },
    { type: 'tool.start', call: 'c1', name: 'ls', args: {} },
    { type: 'message.end', message: 'mc_1' },
    { type: 'tool.end', call: 'c1', name: 'ls', ok: true, text: 'a.ts' },
    { type: 'text.delta', text: ' One file.' },
    { type: 'message.end' },
    { type: 'message.end', message: 'never-named' },
    { type: 'run.end', status: 'completed' },
  ]);
  const messages = recs.filter((r) => r.type === 'assistant.message');
  expect(messages.map((r) => r.data.content)).toEqual(['Listing. One file.']);
  expect(diagnostics).toEqual([]);
});

test("a Cursor stream's snapshot ends write no empty message", () => {
  const recs = toCopilot('cursor', 'partial-output');
  const messages = recs.filter((r) => r.type === 'assistant.message');
  expect(messages.map((r) => [r.data.messageId, r.data.content])).toEqual([
    ['id-4', 'Hi! Listing the files.There is one file: a.ts.'],
  ]);
});

test('a message.end with reasoning held and no message open still writes the reasoning', () => {
  const { recs } = write([
    { type: 'run.start', input: 'go' },
    { type: 'reasoning.delta', text: 'thinking' },
    { type: 'message.end', message: 'r1' },
    { type: 'run.end', status: 'completed' },
  ]);
  expect(recs.filter((r) => r.type === 'assistant.message').map((r) => r.data)).toEqual([
    { messageId: 'r1', content: '', reasoningText: 'thinking' },
  ]);
});

test('a message written ahead (past the bound) ends with no second, empty message', () => {
  const events: AgentEvent[] = [{ type: 'run.start', input: 'go' }, { type: 'round.start' }];
  for (let i = 0; i <= COPILOT_MAX_HELD_MESSAGES; i++)
    events.push({ type: 'text.delta', text: `t${i}`, message: `m${i}`, lane: `a${i}` });
  // m0 opened (the first delta opens its message) and stays held: m1 is the oldest written ahead.
  events.push({ type: 'message.end', message: 'm1', lane: 'a1' });
  const { recs } = write(events);
  expect(recs.filter((r) => r.type === 'assistant.message' && r.data.messageId === 'm1')).toEqual([
    expect.objectContaining({ data: { messageId: 'm1', content: 't1' } }),
  ]);
});

// Copilot's own stream: its events carry their kept lines, and the writer holds each message's
// text for its assistant.message (which follows an edit of its deltas). Messages that never end
// were held without bound; now by COPILOT_MAX_HELD_MESSAGES as another format's are.
test(`a Copilot stream's interleaved messages that never end: at most ${COPILOT_MAX_HELD_MESSAGES} held`, () => {
  const count = COPILOT_MAX_HELD_MESSAGES * 3;
  const at = '2026-01-01T00:00:00.000Z';
  const lines: string[] = [];
  let id = 0;
  const line = (type: string, data: Record<string, unknown>, extra = '') => {
    const parent = id === 0 ? 'null' : `"r${id - 1}"`;
    lines.push(
      `{"id":"r${id}","parentId":${parent},"timestamp":"${at}","type":"${type}","data":${JSON.stringify(data)}${extra}}`,
    );
    id++;
  };
  line('session.start', {
    sessionId: 's',
    version: 1,
    producer: 'copilot-agent',
    copilotVersion: '1.0.0',
    startTime: at,
  });
  line('user.message', { content: 'go' });
  line('assistant.turn_start', { turnId: '0' });
  for (let i = 0; i < count; i++)
    line(
      'assistant.message_delta',
      { messageId: `m${i}`, deltaContent: `lane ${i}` },
      `,"agentId":"agent-${i}","ephemeral":true`,
    );
  line('assistant.turn_end', { turnId: '0' });
  line('session.idle', {}, ',"ephemeral":true');
  const source = `${lines.join('\n')}\n`;
  const parsed = copilot.parse(source);
  expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const { recs, text, diagnostics } = write(parsed.events);
  // Held: the latest COPILOT_MAX_HELD_MESSAGES; every older one written ahead, oldest first, in
  // its lane, with the loss said.
  const early = count - COPILOT_MAX_HELD_MESSAGES;
  const messages = recs.filter((r) => r.type === 'assistant.message');
  expect(messages.map((r) => [r.data.messageId, r.data.content, r.agentId])).toEqual(
    Array.from({ length: early }, (_, i) => [`m${i}`, `lane ${i}`, `agent-${i}`]),
  );
  expect(
    diagnostics.filter((d) => d.code === 'loss' && d.message.includes('messages not ended')),
  ).not.toEqual([]);
  // Every line of the source is written back as it was, around them.
  expect(text.split('\n').filter((l) => !l.includes('"assistant.message"'))).toEqual(source.split('\n'));
  expect(copilot.parse(text).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
});

test('a Copilot stream whose messages start and end in turn holds none past its end', () => {
  const events: AgentEvent[] = [];
  for (let i = 0; i < COPILOT_MAX_HELD_MESSAGES * 3; i++)
    events.push(
      { type: 'message.start', role: 'assistant', message: `m${i}` },
      { type: 'text.delta', text: `t${i}`, message: `m${i}` },
      { type: 'message.end', message: `m${i}` },
    );
  const text = copilot.stringify([{ type: 'run.start', input: 'go' }, ...events], { clock: () => 0 });
  const back = copilot.parse(text).events;
  const { text: again, diagnostics } = write(back);
  expect(again).toBe(text);
  expect(diagnostics.filter((d) => d.code === 'loss')).toEqual([]);
});
