import { describe, expect, test } from 'vitest';
import { type AgentEvent, amp, detectFormat, isAgentwireError } from '../../src/all';
import { AMP_MAX_LINE_BYTES } from '../../src/formats/amp/index';
import { loadFixture } from '../../src/node/fixtures';
import { fixtureSuite } from '../agent-suite';

fixtureSuite(amp, 'amp', {
  legacy: ['error unsupported_version @1'],
  'missing-terminal': ['warning order @4'],
});

const T = 'T-019e47a8-5090-7538-9035-f2fde26859b7';
const init = `{"type":"system","subtype":"init","cwd":"/w","session_id":"${T}","tools":["Bash"],"mcp_servers":[]}`;

describe('amp decoder', () => {
  test('a result ends the run with its subtype, duration, answer and the summed usage', () => {
    const { events } = amp.parse(loadFixture('amp', 'tools').bytes);
    const end = events.at(-1) as Extract<AgentEvent, { type: 'run.end' }>;
    expect(end).toMatchObject({ type: 'run.end', status: 'completed', reason: 'success', durationMs: 18422 });
    const rounds = events.filter((e) => e.type === 'round.end') as Array<
      Extract<AgentEvent, { type: 'round.end' }>
    >;
    // input is all input: input_tokens + cache_creation_input_tokens + cache_read_input_tokens.
    expect(rounds[0]!.usage).toEqual({
      input: 12 + 2310 + 14009,
      output: 61,
      cacheRead: 14009,
      cacheWrite: 2310,
    });
    const sum = (k: 'input' | 'output') => rounds.reduce((n, r) => n + (r.usage?.[k] ?? 0), 0);
    expect(end.usage).toMatchObject({ input: sum('input'), output: sum('output') });
  });

  test("a round ends after its tool results (HEP's order: the results belong to the round)", () => {
    const { events } = amp.parse(loadFixture('amp', 'tools').bytes);
    const types = events.map((e) => e.type);
    expect(types.indexOf('tool.end')).toBeLessThan(types.indexOf('round.end'));
  });

  test('an assistant line without stop_reason and usage goes on with its round only across tool results', () => {
    const prompt = `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go"}]},"parent_tool_use_id":null,"session_id":"${T}"}`;
    const call = `{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},"parent_tool_use_id":null,"session_id":"${T}"}`;
    const res = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":false}]},"parent_tool_use_id":null,"session_id":"${T}"}`;
    const said = `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"and?"}]},"parent_tool_use_id":null,"session_id":"${T}"}`;
    const end = `{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":2}},"parent_tool_use_id":null,"session_id":"${T}"}`;
    const result = `{"type":"result","subtype":"success","duration_ms":1,"is_error":false,"num_turns":1,"result":"done","session_id":"${T}"}`;
    const rounds = (lines: string[]) =>
      amp
        .parse(`${[init, prompt, ...lines, result].join('\n')}\n`)
        .events.filter((e) => e.type === 'round.end')
        .map((e) => ({ round: e.round, message: e.message, stopReason: e.stopReason }));
    // A writer split one round around tool results (a subagent's text once lanes were lost).
    expect(rounds([call, res, end])).toEqual([{ round: 1, message: 'done', stopReason: 'end_turn' }]);
    // A line written apart for another reason keeps its round: nothing between, or not only results.
    expect(rounds([call, end])).toEqual([
      { round: 1, message: '', stopReason: undefined },
      { round: 2, message: 'done', stopReason: 'end_turn' },
    ]);
    expect(rounds([call, res, said, end])).toHaveLength(2);
  });

  test('is_error makes the run failed whatever the subtype, and the result text is the error', () => {
    const line = `{"type":"result","subtype":"success","duration_ms":5,"is_error":true,"num_turns":1,"result":"API Error: 502","session_id":"${T}"}\n`;
    const end = amp.parse(`${init}\n${line}`).events.at(-1);
    expect(end).toMatchObject({
      type: 'run.end',
      status: 'failed',
      reason: 'success',
      error: 'API Error: 502',
    });
  });

  test('a stream without result ends its run incomplete (synthetic), never completed', () => {
    const end = amp.parse(loadFixture('amp', 'missing-terminal').bytes).events.at(-1)!;
    expect(end).toMatchObject({ type: 'run.end', status: 'incomplete', provenance: { synthetic: true } });
  });

  test('the legacy initial/messages output is unsupported_version once, its lines kept', () => {
    const { events, diagnostics } = amp.parse(loadFixture('amp', 'legacy').bytes);
    expect(diagnostics.map((d) => d.code)).toEqual(['unsupported_version']);
    expect(events.every((e) => e.type === 'unknown')).toBe(true);
  });

  test('bad lines are diagnostics with line and offset, and the stream goes on', () => {
    const text = `${init}\nnot json\n[1]\n{"type":"assistant"}\n\n{"type":"user","message":{"role":"user","content":"hi"},"session_id":"${T}"}\n`;
    const { events, diagnostics } = amp.parse(text);
    expect(diagnostics.map((d) => [d.code, d.line, d.offset])).toEqual([
      ['invalid_json', 2, init.length + 1],
      ['invalid_json', 3, init.length + 10],
      ['invalid_record', 4, init.length + 14],
      ['invalid_json', 5, init.length + 35],
    ]);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'unknown', 'run.start', 'run.end']);
    expect(() => amp.parse(text, { strict: true })).toThrow(/not valid JSON/);
    try {
      amp.parse(text, { strict: true });
    } catch (e) {
      expect(isAgentwireError(e)).toBe(true);
    }
  });

  test('lines up to 16 MiB are read by default; longer ones are refused and the next line read', () => {
    expect(AMP_MAX_LINE_BYTES).toBe(16 * 1024 * 1024);
    const big = 'x'.repeat(2 * 1024 * 1024);
    const line = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"${big}"}]},"parent_tool_use_id":null,"session_id":"${T}"}`;
    const { events, diagnostics } = amp.parse(`${init}\n${line}\n`);
    expect(diagnostics).toEqual([]);
    expect(events.some((e) => e.type === 'tool.end' && e.text?.length === big.length)).toBe(true);
    const small = amp.parse(`${line}\n${init}\n`, { maxLineBytes: 1024 });
    expect(small.diagnostics.map((d) => d.code)).toEqual(['line_too_long']);
    expect(small.events[0]!.type).toBe('session.start');
  });
});

describe('amp writer', () => {
  test('an edited event is written from the model; the other lines stay as they came', () => {
    const fx = loadFixture('amp', 'tools');
    const { events } = amp.parse(fx.bytes);
    const i = events.findIndex((e) => e.type === 'text.delta');
    const edited = events.map((e, j) => (j === i ? { ...e, text: 'Changed.' } : e));
    const out = amp.stringify(edited).split('\n');
    const lines = fx.text.split('\n');
    expect(out[2]).not.toBe(lines[2]);
    expect(JSON.parse(out[2]!).message.content[0]).toEqual({ type: 'text', text: 'Changed.' });
    expect(out.filter((l, j) => l !== lines[j])).toHaveLength(1);
  });

  test('events built by hand become a stream the decoder reads back the same', () => {
    const events: AgentEvent[] = [
      { type: 'session.start', session: T, cwd: '/w', tools: ['Bash'] },
      { type: 'run.start', input: 'list files' },
      { type: 'text.delta', text: 'Listing.' },
      { type: 'tool.start', call: 'toolu_1', name: 'Bash', args: { cmd: 'ls' } },
      { type: 'tool.end', call: 'toolu_1', ok: true, text: 'a\nb' },
      {
        type: 'round.end',
        message: 'Listing.',
        stopReason: 'tool_use',
        usage: { input: 30, output: 5, cacheRead: 20 },
      },
      { type: 'text.delta', text: 'Two files.' },
      { type: 'round.end', message: 'Two files.', stopReason: 'end_turn', usage: { input: 40, output: 4 } },
      { type: 'run.end', status: 'completed', answer: 'Two files.', durationMs: 900 },
    ];
    const text = amp.stringify(events);
    expect(text.split('\n')[2]).toBe(
      `{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"Listing."},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"cmd":"ls"}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"cache_read_input_tokens":20,"output_tokens":5}},"parent_tool_use_id":null,"session_id":"${T}"}`,
    );
    expect(amp.check(text)).toEqual([]);
    const back = amp.parse(text).events.map(({ provenance: _, ...e }) => e);
    expect(
      back.filter((e) => e.type !== 'run.start' && e.type !== 'session.start').map((e) => e.type),
    ).toEqual(['text.delta', 'tool.start', 'tool.end', 'round.end', 'text.delta', 'round.end', 'run.end']);
    expect(amp.stringify(amp.parse(text).events)).toBe(text);
  });

  test('what Amp cannot hold is a loss, and a value JSON cannot hold is an AgentwireError', () => {
    const losses: string[] = [];
    amp.stringify(
      [
        { type: 'session.start', session: T },
        { type: 'approval.request', approval: 'a1' },
        { type: 'run.end', status: 'cancelled' },
      ],
      { onDiagnostic: (d) => losses.push(d.field ?? '') },
    );
    expect(losses).toEqual(['approval.request', 'run.end.status']);
    expect(() => amp.stringify([{ type: 'tool.start', call: 'c', name: 'n', args: { n: 10n } }])).toThrow(
      expect.objectContaining({ code: 'unencodable' }),
    );
  });

  // The writer follows another format's runs inside its own event path (src/run-span.ts): a line
  // an Amp event writes inside such a run counts for it (the run wrote something, no loss).
  test("another format's cut-off run that an Amp event wrote a line for is no lost run", () => {
    const losses: string[] = [];
    const record = { type: 'system', subtype: 'status', session_id: T };
    amp.stringify(
      [
        { type: 'run.start', session: T },
        { type: 'unknown', record, provenance: { format: 'amp', line: 1, offset: 0 } },
        { type: 'run.end', status: 'incomplete', session: T },
      ],
      { onDiagnostic: (d) => losses.push(d.field ?? '') },
    );
    expect(losses).toEqual([]);
  });

  // A field taken out of an event that kept its line (a redaction by deletion) is not written
  // back from the line: the init line leaves out the cwd and tools its event no longer has.
  test("a session start's deleted cwd and tools leave its kept init line", () => {
    const { events } = amp.parse(loadFixture('amp', 'tools').bytes);
    const {
      cwd: _cwd,
      tools: _tools,
      ...start
    } = events[0] as Extract<AgentEvent, { type: 'session.start' }>;
    const text = amp.stringify([start, ...events.slice(1)]);
    const first = text.slice(0, text.indexOf('\n'));
    expect(first).not.toContain('/home/dev/shop');
    expect(first).not.toContain('"oracle"');
    const back = amp.parse(text).events[0] as Extract<AgentEvent, { type: 'session.start' }>;
    expect(back.cwd).toBeUndefined();
    expect(back.tools).toBeUndefined();
  });
});

describe('amp detection', () => {
  test.each([
    [init, 'amp', 'certain'],
    ['{"type":"initial","threadID":"T-286f908a-2cd8-40cc-9490-da689b2f1560"}', 'amp', 'certain'],
    ['{"type":"messages","messages":[[0,{"role":"user","content":[]}]],"toolResults":[]}', 'amp', 'likely'],
  ])('%s → %s', (line, format, confidence) => {
    expect(detectFormat(line)).toMatchObject({ format, confidence });
  });

  test('a Claude-looking line without Amp marks is not taken for Amp', () => {
    const claude =
      '{"type":"system","subtype":"init","cwd":"/w","session_id":"cc0889a2-0c59-43cc-926b-739a983888a2","tools":[],"mcp_servers":[],"model":"claude-sonnet-4","uuid":"u1"}';
    expect(detectFormat(claude)?.format).not.toBe('amp');
    expect(
      detectFormat(`{"type":"system","subtype":"init","session_id":"${T}","uuid":"u"}`)?.format,
    ).not.toBe('amp');
  });
});
