import { describe, expect, test } from 'vitest';
import { type AgentEvent, convert, type Diagnostic, hep } from '../../src/all';

// Issue #16: a run's outcome and total survive HEP (round ten, bugs 2, 6, 9, 10).

const HEADER = '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}\n';
const DONE =
  '{"type":"turn_done","turn_id":1,"message":"a","tool_results":[],"usage":{"input":1,"output":2,"cost":0.5},"stop_reason":"stop"}\n';

const ends = (text: string) =>
  hep
    .parse(text)
    .events.filter((e) => e.type === 'run.end')
    .map((e) => (e as { status: string }).status);

function write(events: AgentEvent[]): { text: string; losses: string[] } {
  const diagnostics: Diagnostic[] = [];
  const text = hep.stringify(events, {
    session: 's',
    producer: '1',
    onDiagnostic: (d) => diagnostics.push(d),
  });
  return { text, losses: diagnostics.filter((d) => d.code === 'loss').map((d) => d.field ?? '') };
}

describe('HEP decoder: an input that ends with the run open ends it incomplete', () => {
  test.each([
    [
      'a round without its terminal frame',
      `${HEADER}{"type":"agent_start","turn_id":1}\n{"type":"message_delta","turn_id":1,"delta":"w"}\n`,
    ],
    ['no round at all', `${HEADER}{"type":"agent_start","turn_id":1}\n`],
    [
      'a round opened after a turn_done',
      `${HEADER}{"type":"agent_start","turn_id":1}\n${DONE}{"type":"tool_start","turn_id":2,"id":"c","name":"n","args_summary":""}\n`,
    ],
  ])('%s: a synthetic run.end(incomplete), written back as nothing', (_label, text) => {
    const { events } = hep.parse(text);
    expect(events.at(-1)).toMatchObject({
      type: 'run.end',
      status: 'incomplete',
      provenance: { synthetic: true },
    });
    expect(hep.stringify(events)).toBe(text);
  });

  test('after the last turn_done (also with a compaction after it) the run completed', () => {
    expect(ends(`${HEADER}{"type":"agent_start","turn_id":1}\n${DONE}`)).toEqual(['completed']);
    expect(
      ends(
        `${HEADER}{"type":"agent_start","turn_id":1}\n${DONE}{"type":"compaction_start","turn_id":2}\n{"type":"compaction_end","turn_id":2,"tokens_freed":3}\n`,
      ),
    ).toEqual(['completed']);
  });
});

describe('HEP writer: a run.end keeps its status', () => {
  const round: AgentEvent[] = [
    { type: 'run.start' },
    { type: 'text.delta', text: 'hi' },
    { type: 'round.end', message: 'hi', stopReason: 'stop' },
  ];

  test('failed after its last round ended: a fatal turn_error of its own, with the run error', () => {
    const { text } = write([...round, { type: 'run.end', status: 'failed', error: 'API error 500' }]);
    expect(text.split('\n').at(-2)).toBe(
      '{"type":"turn_error","turn_id":2,"error":"API error 500","fatal":true}',
    );
    expect(ends(text)).toEqual(['failed']);
  });

  test('cancelled after its last round ended: a cancelled frame', () => {
    const { text } = write([...round, { type: 'run.end', status: 'cancelled' }]);
    expect(text.split('\n').at(-2)).toBe('{"type":"cancelled","turn_id":2}');
    expect(ends(text)).toEqual(['cancelled']);
  });

  test('incomplete with its round open: no terminal frame (never an invented turn_done), read back incomplete', () => {
    const { text, losses } = write([
      { type: 'run.start' },
      { type: 'text.delta', text: 'hi' },
      { type: 'run.end', status: 'incomplete' },
    ]);
    expect(text).not.toContain('turn_done');
    expect(ends(text)).toEqual(['incomplete']);
    expect(losses).toEqual([]);
  });

  test('incomplete after a turn_done, which HEP reads as completed: a loss', () => {
    expect(write([...round, { type: 'run.end', status: 'incomplete' }]).losses).toEqual(['run.end.status']);
  });

  test('incomplete with held results: their turn_done, then an open round; kept, still incomplete, stable', () => {
    const events: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'tool.start', call: 'c', name: 'n' },
      { type: 'tool.end', call: 'c', name: 'n', ok: true, text: 'r' },
      { type: 'run.end', status: 'incomplete' },
    ];
    const held = write(events);
    expect(held.losses).toEqual([]);
    expect(held.text).toContain('"tool_results":[{"id":"c","name":"n","ok":true,"text":"r"}]');
    expect(held.text).toContain(
      '"stop_reason":"toolUse"}\n{"type":"message_start","turn_id":2,"role":"assistant"}\n',
    );
    const back = hep.parse(held.text).events;
    expect(ends(held.text)).toEqual(['incomplete']);
    expect(back.filter((e) => e.type === 'tool.end')).toMatchObject([{ call: 'c', ok: true, text: 'r' }]);
    // Written again, the same frames.
    expect(hep.stringify(back)).toBe(held.text);
    // After a round that ended, the held results still read back and the run stays incomplete.
    const after = write([...round, ...events.slice(1)]);
    expect(ends(after.text)).toEqual(['incomplete']);
    expect(after.losses).toEqual([]);
  });

  test('a recoverable error the run then fails on is written fatal (stable through Claude and back)', () => {
    const { text } = write([
      { type: 'run.start' },
      { type: 'error', message: 'overloaded', fatal: false },
      { type: 'run.end', status: 'failed' },
    ]);
    expect(text.match(/turn_error/g)).toHaveLength(1);
    expect(text).toContain('"error":"overloaded","fatal":true');
    expect(ends(text)).toEqual(['failed']);
  });
});

describe('HEP writer: usage', () => {
  test('a run total with no per-round usage goes on the last turn_done (Gemini → HEP)', () => {
    const gemini = [
      '{"type":"init","timestamp":"2026-01-01T00:00:00.000Z","session_id":"s","model":"gemini-2.5-pro"}',
      '{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","role":"user","content":"hi"}',
      '{"type":"message","timestamp":"2026-01-01T00:00:02.000Z","role":"assistant","content":"Hello","delta":true}',
      '{"type":"result","timestamp":"2026-01-01T00:00:03.000Z","status":"success","stats":{"total_tokens":3052,"input_tokens":3050,"output_tokens":2,"duration_ms":1000,"tool_calls":0}}',
      '',
    ].join('\n');
    const { output } = convert(gemini, { from: 'gemini', to: 'hep' });
    expect(hep.parse(output).events.find((e) => e.type === 'run.end')).toMatchObject({
      status: 'completed',
      usage: { input: 3050, output: 2 },
    });
  });

  test('a run total with no round left to carry it, or unlike its rounds’ sum: a loss, never zeros', () => {
    const closed: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'round.end', message: 'a' },
      { type: 'run.end', status: 'completed', usage: { input: 10, output: 2 } },
    ];
    expect(write(closed).losses).toEqual(['run.end.usage']);
    const summed: AgentEvent[] = [
      { type: 'run.start' },
      { type: 'round.end', message: 'a', usage: { input: 10, output: 2 } },
      { type: 'run.end', status: 'completed', usage: { input: 10, output: 2 } },
    ];
    expect(write(summed).losses).toEqual([]);
  });

  test('cache counts and reasoning, which HEP usage cannot hold, are a loss', () => {
    const U = { input: 100, output: 5, cacheRead: 80, cacheWrite: 10, reasoning: 2, costUsd: 0.25 };
    const { losses } = write([
      { type: 'run.start' },
      { type: 'round.end', message: 'hi', usage: U },
      { type: 'run.end', status: 'completed', usage: U },
    ]);
    expect(losses).toEqual([
      'round.end.usage.cacheRead',
      'round.end.usage.cacheWrite',
      'round.end.usage.reasoning',
      'run.end.usage.cacheRead',
      'run.end.usage.cacheWrite',
      'run.end.usage.reasoning',
    ]);
  });
});
