import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, type AgentEventOf, cursor, detectFormat } from '../../src/all';
import { captureSuite, captures, fixtureSuite } from '../agent-suite';

captureSuite(cursor, 'cursor', 'cursor');

fixtureSuite(cursor, 'cursor', {
  'missing-result': ['warning order @3', 'warning order @8'],
  'tool-errors': ['error invalid_json @8'],
});

const of = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is AgentEventOf<T> => e.type === type);
const fixture = (name: string) => cursor.parse(readFileSync(`fixtures/cursor/${name}.jsonl`));
const tools = captures('cursor').find(([n]) => n.includes('tools'))![1];
const toolsText = new TextDecoder().decode(tools);

describe('Cursor: mapping', () => {
  const { events } = cursor.parse(tools);

  test('init is session.start; the prompt echo opens the run; result ends it with camelCase usage', () => {
    expect(events[0]).toMatchObject({
      type: 'session.start',
      session: 'SESSION',
      model: 'Auto',
      cwd: '/tmp/wt',
      mode: 'default',
    });
    expect(events[1]).toMatchObject({ type: 'run.start', input: expect.stringContaining('hi.txt') });
    expect(events.at(-1)).toMatchObject({
      type: 'run.end',
      status: 'completed',
      reason: 'success',
      durationMs: 16902,
      usage: { input: 17161, output: 216, cacheRead: 17088, cacheWrite: 0 },
    });
  });

  test('thinking deltas are reasoning; completed is an empty reasoning delta that ends the block', () => {
    const reasoning = of(events, 'reasoning.delta');
    expect(reasoning.map((e) => e.text).join('')).toBe(
      'Creating hi.txt with the word hello. Running git status. Stopping.Created hi.txt with hello. Ran git status. Stopped.',
    );
    expect(reasoning[3]!.text).toBe('');
  });

  test('the payload key is the tool and its kind; startedAtMs (a string) is a number in the model', () => {
    const [edit, shell] = of(events, 'tool.start');
    expect(edit).toMatchObject({ call: 'tool_1', name: 'edit', kind: 'edit', startedAt: 1786540600880 });
    expect(shell).toMatchObject({
      name: 'shell',
      kind: 'execute',
      command: 'git status',
      startedAt: 1786540600888,
    });
    const [, shellEnd] = of(events, 'tool.end');
    expect(shellEnd).toMatchObject({ ok: true, exitCode: 0, endedAt: 1786540611292 });
    expect(shellEnd!.text).toContain('On branch master');
  });

  test('an edited call keeps its payload key and writes startedAtMs as a string', () => {
    const edited = events.map((e) =>
      e.type === 'tool.start' && e.call === 'tool_2' ? { ...e, startedAt: 5 } : e,
    );
    const line = cursor.stringify(edited).split('\n')[8]!;
    expect(line).toContain('"shellToolCall":{');
    expect(JSON.parse(line).tool_call.startedAtMs).toBe('5');
    expect(
      cursor
        .stringify(edited)
        .split('\n')
        .filter((l, i) => l !== toolsText.split('\n')[i]),
    ).toHaveLength(1);
  });
});

// A field taken out of an event that kept its line (a redaction by deletion) is not written back
// from the line: it is taken out of the record, or made as a line made anew makes it.
describe('Cursor: deleted fields', () => {
  const { events } = fixture('tools');
  const without = (i: number, ...keys: string[]) =>
    cursor.stringify(
      events.map((e, j) =>
        j === i
          ? (Object.fromEntries(Object.entries(e).filter(([k]) => !keys.includes(k))) as AgentEvent)
          : e,
      ),
    );

  test("a session start's directory, model and mode", () => {
    const out = without(0, 'cwd', 'model', 'mode');
    expect(out.split('\n')[0]).not.toMatch(/"cwd"|"model"|"permissionMode"/);
    expect(cursor.parse(out).events[0]).not.toHaveProperty('cwd');
  });

  test("a call's arguments leave both its lines, and an edited call id leaves no old copy", () => {
    const i = events.findIndex((e) => e.type === 'tool.start' && e.call === 'tool_r1');
    const lines = without(i, 'args')
      .split('\n')
      .filter((l) => l.includes('"tool_r1"'));
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(JSON.parse(line).tool_call.readToolCall.args).toEqual({});
    const edited = cursor.stringify(events.map((e, j) => (j === i ? { ...e, call: 'tool_x9' } : e)));
    const line = edited.split('\n').find((l) => l.includes('"tool_x9"'))!;
    expect(line).not.toContain('tool_r1');
    expect(JSON.parse(line).tool_call.toolCallId).toBe('tool_x9');
  });

  test("a text's message id and session, and a notice's message", () => {
    const i = events.findIndex((e) => e.type === 'text.delta' && e.message !== undefined);
    const line = without(i, 'message', 'session').split('\n')[i]!;
    expect(line).not.toMatch(/"model_call_id"|"session_id"/);
    const notices = fixture('missing-result').events;
    const n = notices.findIndex((e) => e.type === 'notice');
    const out = cursor.stringify(
      notices.map((e, j) => (j === n ? ({ ...e, message: undefined } as unknown as AgentEvent) : e)),
    );
    expect(out.split('\n')[n]).toMatch(/^\{"type":"connection","session_id"/);
  });
});

describe('Cursor: --stream-partial-output', () => {
  const { events } = fixture('partial-output');

  test('token deltas are text; the snapshots repeating a segment are message.end (no text twice)', () => {
    const text = of(events, 'text.delta')
      .map((e) => e.text)
      .join('');
    expect(text).toBe('Hi! Listing the files.There is one file: a.ts.');
    expect(of(events, 'message.end')).toHaveLength(2);
    expect(of(events, 'message.end')[0]!.message).toBe('mc_41');
  });

  test('a snapshot that does not repeat the segment is text of its own', () => {
    const lines = readFileSync('fixtures/cursor/partial-output.jsonl', 'utf8').split('\n');
    lines[10] = lines[10]!.replace('There is one file: a.ts.', 'Something else.');
    const changed = cursor.parse(lines.join('\n'));
    expect(
      of(changed.events, 'text.delta')
        .map((e) => e.text)
        .join(''),
    ).toBe('Hi! Listing the files.There is one file: a.ts.Something else.');
  });
});

describe('Cursor: endings and failures', () => {
  test('no result: the run is incomplete; reconnects are notices', () => {
    const { events } = fixture('missing-result');
    expect(events.at(-1)).toMatchObject({ type: 'run.end', status: 'incomplete' });
    expect(of(events, 'notice').map((e) => `${e.kind}/${e.message}`)).toEqual([
      'connection/reconnecting',
      'retry/starting',
      'connection/reconnected',
    ]);
  });

  test('failure and rejection: ok false, exit code, denied', () => {
    const { events } = fixture('tool-errors');
    const [shell, del] = of(events, 'tool.end');
    expect(shell).toMatchObject({ ok: false, exitCode: 1, text: 'rm: build: Permission denied\n' });
    expect(del).toMatchObject({ ok: false, denied: true, text: 'User rejected the deletion' });
    expect(of(events, 'unknown')[0]!.recordType).toBe('interaction_query');
  });
});

describe('Cursor: detection', () => {
  test.each([
    [
      '{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/","session_id":"s","model":"Auto","permissionMode":"default"}\n',
      'cursor',
    ],
    ['{"type":"thinking","subtype":"delta","text":"x","session_id":"s","timestamp_ms":1}\n', 'cursor'],
    ['{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{},"session_id":"s"}\n', 'cursor'],
    [
      '{"type":"assistant","message":{"role":"assistant","content":[]},"session_id":"s","timestamp_ms":1}\n',
      'cursor',
    ],
    ['{"type":"result","subtype":"success","session_id":"s","usage":{"inputTokens":1}}\n', 'cursor'],
  ])('%s → %s', (line, format) => {
    expect(detectFormat(line)?.format).toBe(format);
  });

  test('Claude-looking records without Cursor fields are not taken for Cursor', () => {
    for (const [name, bytes] of captures('claude-code')) {
      expect(detectFormat(bytes)?.format, name).not.toBe('cursor');
    }
    // Claude Code's own records (the claude codec takes them).
    expect(
      detectFormat('{"type":"assistant","message":{"role":"assistant","content":[]},"session_id":"s"}\n')
        ?.format,
    ).toBe('claude');
    expect(
      detectFormat('{"type":"user","message":{"role":"user","content":"hi"},"session_id":"s"}\n')?.format,
    ).toBe('claude');
  });
});

describe('Cursor: events from elsewhere', () => {
  test('hand-built events become Cursor lines that decode back to the same facts', () => {
    const out = cursor.stringify([
      { type: 'session.start', session: 's1', model: 'm', cwd: '/r' },
      { type: 'run.start', input: 'go' },
      { type: 'reasoning.delta', text: 'hmm', ts: 1 },
      { type: 'text.delta', text: 'Running.', ts: 2 },
      {
        type: 'tool.start',
        call: 'c1',
        name: 'bash',
        kind: 'execute',
        args: { command: 'ls' },
        startedAt: 3,
      },
      { type: 'tool.end', call: 'c1', ok: true, text: 'a\n', exitCode: 0, endedAt: 4 },
      { type: 'run.end', status: 'completed', usage: { input: 10, output: 2, cacheRead: 5 } },
    ]);
    const { events, diagnostics } = cursor.parse(out);
    expect(diagnostics).toEqual([]);
    expect(cursor.check(out)).toEqual([]);
    expect(events.map((e) => e.type)).toEqual([
      'session.start',
      'run.start',
      'reasoning.delta',
      'reasoning.delta',
      'text.delta',
      'tool.start',
      'tool.end',
      'run.end',
    ]);
    expect(of(events, 'tool.start')[0]).toMatchObject({
      name: 'shell',
      kind: 'execute',
      command: 'ls',
      startedAt: 3,
    });
    expect(of(events, 'tool.end')[0]).toMatchObject({ ok: true, text: 'a\n', exitCode: 0, endedAt: 4 });
    expect(of(events, 'run.end')[0]).toMatchObject({
      answer: 'Running.',
      usage: { input: 10, output: 2, cacheRead: 5, cacheWrite: 0 },
    });
  });
});
