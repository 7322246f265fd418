import { describe, expect, test } from 'vitest';
import { type AgentEvent, claude } from '../../src/all';
import { listFixtures, loadFixture } from '../../src/node/fixtures';

// A 2 MB tool result on one line, generated here (deterministic) rather than committed.
function bigResultStream(): string {
  const content = `${'x'.repeat(2 * 1024 * 1024 - 7)}\\n\\"é\\"\\t`;
  return [
    '{"type":"system","subtype":"init","cwd":"/r","session_id":"s","tools":["Read"],"mcp_servers":[],"model":"m","permissionMode":"default","uuid":"u1"}',
    '{"type":"assistant","message":{"model":"m","id":"msg_1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/r/big"}}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s","uuid":"u2"}',
    `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"${content}"}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u3"}`,
    '{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"duration_api_ms":1,"num_turns":1,"result":"ok","session_id":"s","total_cost_usd":0.001,"usage":{"input_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2},"uuid":"u4"}',
    '',
  ].join('\n');
}

describe('claude decoder', () => {
  test('a 2 MB tool result line is read whole (16 MiB default) and written back byte for byte', () => {
    const text = bigResultStream();
    const { events, diagnostics } = claude.parse(text);
    expect(diagnostics).toEqual([]);
    const end = events.find((e) => e.type === 'tool.end') as AgentEvent & { text: string; name: string };
    expect(end.text.length).toBe(2 * 1024 * 1024 - 2);
    expect(end.name).toBe('Read');
    expect(claude.stringify(events)).toBe(text);
  });

  test('with the shared 1 MiB bound the same line is line_too_long, and the stream goes on', () => {
    const { events, diagnostics } = claude.parse(bigResultStream(), { maxLineBytes: 1024 * 1024 });
    expect(diagnostics.map((d) => d.code)).toEqual(['line_too_long']);
    expect(events.some((e) => e.type === 'run.end' && e.status === 'completed')).toBe(true);
  });

  test('usage is counted once per message id: copies give no event, no copy is final', () => {
    const { events } = claude.parse(loadFixture('claude', 'tools').bytes);
    const usages = events.filter((e) => e.type === 'usage');
    const keys = usages.map((e) => e.usage.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(usages.every((e) => e.usage.scope === 'call' && e.usage.final === false)).toBe(true);
    const end = events.find((e) => e.type === 'run.end');
    expect(end?.type === 'run.end' && end.usage).toMatchObject({
      costUsd: 0.054201000000000006,
      cacheRead: 68711,
    });
  });

  test('model-not-found: subtype success with is_error true is a failed run, reason kept', () => {
    const { events } = claude.parse(loadFixture('claude', 'model-not-found').bytes);
    const end = events.find((e) => e.type === 'run.end');
    expect(end).toMatchObject({ status: 'failed', reason: 'api_error' });
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'model_not_found' });
  });

  // Claude Code 2.1.220 wrote a context-exhausted resume as a clean success whose terminal_reason
  // alone said it failed (FORMATS.md §1.2): the terminal reason decides when is_error does not.
  test.each([
    ['prompt_too_long', 'failed'],
    ['max_turns', 'failed'],
    ['budget_exhausted', 'failed'],
    ['aborted_tools', 'cancelled'],
    ['aborted_streaming', 'cancelled'],
    ['tool_deferred', 'completed'],
    ['completed', 'completed'],
  ])('a success result with is_error false and terminal_reason %s is %s', (terminal, status) => {
    const text = [
      '{"type":"system","subtype":"init","cwd":"/r","session_id":"s","tools":[],"mcp_servers":[],"model":"m","permissionMode":"default","uuid":"u1"}',
      `{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"duration_api_ms":1,"num_turns":1,"result":"Prompt is too long","stop_reason":"stop_sequence","session_id":"s","total_cost_usd":0,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0},"terminal_reason":"${terminal}","uuid":"u2"}`,
      '',
    ].join('\n');
    const { events, diagnostics } = claude.parse(text);
    expect(diagnostics).toEqual([]);
    const end = events.find((e) => e.type === 'run.end');
    expect(end).toMatchObject({ status, reason: terminal });
    expect(end?.type === 'run.end' && end.error).toBe(status === 'failed' ? 'Prompt is too long' : undefined);
    expect(claude.stringify(events)).toBe(text);
    expect(claude.stringify(JSON.parse(JSON.stringify(events)) as AgentEvent[])).toBe(text);
  });

  // Record shapes from the SDK's sdk.d.ts (SDKPermissionDeniedMessage, SDKInformationalMessage, …).
  test('system records a supervisor must see are notices of their subtype, with their text', () => {
    const env = ',"uuid":"u","session_id":"s"}';
    const text = [
      '{"type":"system","subtype":"init","cwd":"/r","session_id":"s","tools":["Bash"],"mcp_servers":[],"model":"m","permissionMode":"dontAsk","uuid":"u1"}',
      `{"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_use_id":"toolu_1","decision_reason_type":"mode","decision_reason":"dontAsk","message":"Permission to use Bash has been denied."${env}`,
      `{"type":"system","subtype":"informational","content":"Context low","level":"warning","prevent_continuation":false${env}`,
      `{"type":"system","subtype":"informational","content":"Tip","level":"suggestion"${env}`,
      `{"type":"system","subtype":"notification","key":"k","text":"Update available","priority":"low"${env}`,
      `{"type":"system","subtype":"model_refusal_fallback","trigger":"refusal","direction":"retry","original_model":"a","fallback_model":"b","request_id":null,"content":"Retrying with b"${env}`,
      `{"type":"system","subtype":"model_refusal_no_fallback","original_model":"a","request_id":"req_1","content":"The model declined."${env}`,
      `{"type":"system","subtype":"mirror_error","error":"write failed","key":{"projectKey":"p","sessionId":"s"}${env}`,
      `{"type":"system","subtype":"local_command_output","content":"Total cost: $0.00"${env}`,
      '',
    ].join('\n');
    const { events, diagnostics } = claude.parse(text);
    expect(diagnostics).toEqual([]);
    const notices = events.filter((e) => e.type === 'notice');
    expect(notices.map((e) => e.type === 'notice' && [e.kind, e.severity, e.message])).toEqual([
      ['permission_denied', 'warning', 'Permission to use Bash has been denied.'],
      ['informational', 'warning', 'Context low'],
      ['informational', 'info', 'Tip'],
      ['notification', 'info', 'Update available'],
      ['model_refusal_fallback', 'warning', 'Retrying with b'],
      ['model_refusal_no_fallback', 'warning', 'The model declined.'],
      ['mirror_error', 'warning', 'write failed'],
      ['local_command_output', 'info', 'Total cost: $0.00'],
    ]);
    expect(notices[0]).toMatchObject({ data: { tool_use_id: 'toolu_1', decision_reason: 'dontAsk' } });
    expect(events.some((e) => e.type === 'unknown')).toBe(false);
    expect(claude.stringify(events)).toBe(text);
    expect(claude.stringify(JSON.parse(JSON.stringify(events)) as AgentEvent[])).toBe(text);
  });

  test('no result at the end: a synthetic incomplete run end, never completed', () => {
    const { events } = claude.parse(loadFixture('claude', 'missing-result').bytes);
    expect(events.at(-1)).toMatchObject({
      type: 'run.end',
      status: 'incomplete',
      provenance: { synthetic: true },
    });
  });

  test('an edited event is written by patching its line; the rest stays as written', () => {
    const fx = loadFixture('claude', 'tools');
    const events = claude
      .parse(fx.bytes)
      .events.map((e) => (e.type === 'text.delta' ? { ...e, text: 'Edited.' } : e));
    const out = claude.stringify(events).split('\n');
    const original = fx.text.split('\n');
    const changed = out.map((l, i) => (l === original[i] ? -1 : i)).filter((i) => i >= 0);
    expect(changed).toHaveLength(1);
    expect(JSON.parse(out[changed[0]!]!).message.content[0].text).toBe('Edited.');
  });

  test('garbage lines are diagnosed, the stream goes on, and they are put back', () => {
    const fx = loadFixture('claude', 'api-retry');
    const text = `Warning: something\n${fx.text}`;
    const { events, diagnostics } = claude.parse(text);
    expect(diagnostics.map((d) => d.code)).toEqual(['invalid_json']);
    expect(claude.stringify(events)).toBe(text);
  });

  // With --include-partial-messages each block streams, then its snapshot line follows; snapshots
  // are matched to streamed blocks by position. A text or thinking snapshot that came twice must
  // give no event of its own and must not shift the later snapshots onto the wrong blocks (it did:
  // the next block's text came a second time). Its line is still written back.
  test('partial messages: a repeated text or thinking snapshot gives the same events', () => {
    const text = loadFixture('claude', 'partial-messages').text;
    const lines = text.split('\n');
    const plain = (events: AgentEvent[]) => events.map(({ provenance: _p, ...rest }) => rest);
    const original = plain(claude.parse(text).events);
    let repeated = 0;
    for (let i = 0; i < lines.length; i++) {
      if (!/^\{"type":"assistant".*"content":\[\{"type":"(text|thinking)"/.test(lines[i]!)) continue;
      // Right after itself (a line read twice, told by the line before: an order warning), and
      // after the line that follows it (told by the streamed block's type).
      const twice = [...lines.slice(0, i + 1), ...lines.slice(i)].join('\n');
      const parsed = claude.parse(twice);
      expect(plain(parsed.events), `line ${i + 1} twice`).toEqual(original);
      expect(parsed.diagnostics.map((d) => `${d.code} ${d.line}`)).toEqual([`order ${i + 2}`]);
      expect(claude.stringify(parsed.events)).toBe(twice);
      if (i + 2 < lines.length && lines[i + 1] !== '') {
        const later = [...lines.slice(0, i + 2), lines[i]!, ...lines.slice(i + 2)].join('\n');
        const again = claude.parse(later);
        expect(plain(again.events), `line ${i + 1} again after line ${i + 2}`).toEqual(original);
        expect(again.diagnostics).toEqual([]);
        expect(claude.stringify(again.events)).toBe(later);
      }
      repeated++;
    }
    expect(repeated).toBeGreaterThanOrEqual(3);
  });

  // Claude Code gives every record a uuid of its own: a line equal to the one before it is one
  // record read twice. It gives no event (before, its text or tool call came twice), one order
  // warning at the copy, and is written back where it was; every fixture, every line with a uuid.
  test('a line read twice (the same uuid) is read once, with an order warning', () => {
    const plain = (events: AgentEvent[]) => events.map(({ provenance: _p, ...rest }) => rest);
    let lines = 0;
    for (const { name } of listFixtures('claude')) {
      const text = loadFixture('claude', name).text;
      const original = claude.parse(text);
      const all = text.split('\n');
      for (let i = 0; i < all.length; i++) {
        if (!all[i]!.includes('"uuid":"')) continue;
        const twice = [...all.slice(0, i + 1), ...all.slice(i)].join('\n');
        const parsed = claude.parse(twice);
        expect(plain(parsed.events), `${name} line ${i + 1}`).toEqual(plain(original.events));
        const extra = parsed.diagnostics.filter(
          (d) => !original.diagnostics.some((o) => o.message === d.message),
        );
        expect(extra.map((d) => `${d.code} ${d.severity} ${d.line}`)).toEqual([`order warning ${i + 2}`]);
        // The copy is kept for the writer while a later line gives an event to carry it.
        if (parsed.events.some((e) => (e.provenance?.line ?? 0) > i + 2 && e.provenance?.synthetic !== true))
          expect(claude.stringify(parsed.events), `${name} line ${i + 1}`).toBe(twice);
        lines++;
      }
    }
    expect(lines).toBeGreaterThan(40);
  });
});
