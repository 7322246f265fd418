import { describe, expect, test } from 'vitest';
import { type AgentEvent, claude } from '../../src/all';
import { loadFixture } from '../../src/node/fixtures';

// Counts edited or taken out of events that kept their lines reach the output, and only they
// change: a message's usage (on each line of the message, which all repeat it), a run's usage
// (its other keys, `service_tier`, `cache_creation`, `server_tool_use`, a model's
// `contextWindow`, stay as the line had them, in their order), a compaction's token counts, a
// run's duration, a call's time so far. A line the writer could not have produced (a count
// spelled as a string) comes back byte for byte while nothing was edited.

const S = 's-usage';
const INIT = `{"type":"system","subtype":"init","cwd":"/w","session_id":"${S}","tools":[],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"default","uuid":"u-1"}`;
const USAGE =
  '{"input_tokens":7,"cache_creation_input_tokens":300,"cache_read_input_tokens":9000,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":300},"output_tokens":12,"server_tool_use":{"web_search_requests":1,"web_fetch_requests":0},"service_tier":"standard","inference_geo":"not_available"}';
const assistant = (text: string, stop: string, uuid: string): string =>
  `{"type":"assistant","message":{"model":"claude-sonnet-4-5","id":"msg_u1","type":"message","role":"assistant","content":[{"type":"text","text":"${text}"}],"container":null,"stop_reason":${stop},"stop_sequence":null,"stop_details":null,"usage":${USAGE},"input_transformations":[],"diagnostics":null,"context_management":null},"parent_tool_use_id":null,"session_id":"${S}","uuid":"${uuid}","timestamp":"2026-10-01T09:00:02.000Z","request_id":"req_u1"}`;
const BOUNDARY = `{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"manual","pre_tokens":48210,"post_tokens":3120,"duration_ms":9120},"uuid":"u-4","session_id":"${S}"}`;
const RESULT = `{"type":"result","subtype":"success","is_error":false,"duration_ms":2100,"duration_api_ms":1900,"num_turns":1,"result":"Done.","stop_reason":"end_turn","session_id":"${S}","total_cost_usd":0.0125,"usage":{"input_tokens":7,"cache_creation_input_tokens":300,"cache_read_input_tokens":9000,"output_tokens":20,"server_tool_use":{"web_search_requests":1,"web_fetch_requests":0},"service_tier":"standard","cache_creation":{"ephemeral_1h_input_tokens":300,"ephemeral_5m_input_tokens":0},"inference_geo":"not_available","iterations":[],"speed":"standard"},"modelUsage":{"claude-sonnet-4-5":{"inputTokens":7,"outputTokens":20,"cacheReadInputTokens":9000,"cacheCreationInputTokens":300,"webSearchRequests":1,"costUSD":0.0125,"contextWindow":200000,"maxOutputTokens":64000}},"permission_denials":[],"terminal_reason":"completed","uuid":"u-5"}`;
const LINES = [
  INIT,
  assistant('Two parts.', 'null', 'u-2'),
  assistant('Done.', '"end_turn"', 'u-3'),
  BOUNDARY,
  RESULT,
];
const TEXT = `${LINES.join('\n')}\n`;

// The events of `text`, the one of `type` at `nth` replaced by `edit(event)`, written again.
function rewrite<T extends AgentEvent['type']>(
  text: string,
  type: T,
  edit: (e: Extract<AgentEvent, { type: T }>) => AgentEvent,
  nth = 0,
): string {
  const { events } = claude.parse(text);
  const at = events.map((e, i) => (e.type === type ? i : -1)).filter((i) => i >= 0)[nth]!;
  expect(at).toBeDefined();
  const edited = events.map((e, i) => (i === at ? edit(e as Extract<AgentEvent, { type: T }>) : e));
  return claude.stringify(edited, { onDiagnostic() {} });
}

// `TEXT` with each [from, to] of `swaps` done in `line` (all its occurrences there).
function expected(line: number, ...swaps: [string, string][]): string {
  return `${LINES.map((l, i) => (i === line ? swaps.reduce((t, [a, b]) => t.split(a).join(b), l) : l)).join('\n')}\n`;
}

function without<T extends object>(e: T, key: keyof T): T {
  const { [key]: _gone, ...rest } = e;
  return rest as T;
}

describe('Claude writer: edited and deleted counts of kept lines', () => {
  test('the lines come back as written when nothing is edited', () => {
    expect(claude.stringify(claude.parse(TEXT).events)).toBe(TEXT);
  });

  test("an edited count of a message's usage changes only that count, on every line of the message", () => {
    const out = rewrite(TEXT, 'usage', (e) => ({ ...e, usage: { ...e.usage, output: 40 } }));
    expect(out).toBe(
      `${LINES.map((l, i) => (i === 1 || i === 2 ? l.replace('"output_tokens":12', '"output_tokens":40') : l)).join('\n')}\n`,
    );
    // One usage for the message, the edited one: a line that kept the old figures would read
    // back as a usage of its own.
    const usages = claude.parse(out).events.filter((e) => e.type === 'usage');
    expect(usages.map((e) => e.usage.output)).toEqual([40]);
  });

  test('a cache write edited takes its split by lifetime out, which would say the old figure', () => {
    const out = rewrite(TEXT, 'usage', (e) => ({
      ...e,
      usage: { ...e.usage, cacheWrite: 100, input: 9107 },
    }));
    const line = out.split('\n')[1]!;
    expect(line).toContain(
      '"usage":{"input_tokens":7,"cache_creation_input_tokens":100,"cache_read_input_tokens":9000,"output_tokens":12,"server_tool_use":{"web_search_requests":1,"web_fetch_requests":0},"service_tier":"standard","inference_geo":"not_available"}',
    );
    expect(out.split('\n')[2]).toContain('"cache_creation_input_tokens":100,');
  });

  test("an edited run usage changes only its counts and cost: the line's other keys stay, in order", () => {
    const out = rewrite(TEXT, 'run.end', (e) => {
      const u = e.usage!;
      const m = u.byModel!['claude-sonnet-4-5']!;
      return {
        ...e,
        usage: {
          ...u,
          output: 44,
          costUsd: 0.02,
          byModel: { 'claude-sonnet-4-5': { ...m, output: 44, costUsd: 0.02 } },
        },
      };
    });
    expect(out).toBe(
      expected(
        4,
        ['"output_tokens":20', '"output_tokens":44'],
        ['"outputTokens":20', '"outputTokens":44'],
        ['"total_cost_usd":0.0125', '"total_cost_usd":0.02'],
        ['"costUSD":0.0125', '"costUSD":0.02'],
      ),
    );
  });

  test('a run usage taken out is written as none: zero counts and cost, no model', () => {
    const out = rewrite(TEXT, 'run.end', (e) => without(e, 'usage'));
    expect(out.split('\n')[4]).toContain(
      '"total_cost_usd":0,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0,"server_tool_use":{"web_search_requests":1,"web_fetch_requests":0},"service_tier":"standard","inference_geo":"not_available","iterations":[],"speed":"standard"},"modelUsage":{},',
    );
  });

  test('a duration taken out is written as 0 (a result always says one)', () => {
    expect(rewrite(TEXT, 'run.end', (e) => without(e, 'durationMs'))).toBe(
      expected(4, ['"duration_ms":2100', '"duration_ms":0']),
    );
  });

  test("a compaction's count taken out leaves its line (pre_tokens, required, as the other counts imply)", () => {
    expect(rewrite(TEXT, 'compaction.end', (e) => without(e, 'tokensAfter'))).toBe(
      expected(3, [',"post_tokens":3120', '']),
    );
    expect(rewrite(TEXT, 'compaction.end', (e) => without(without(e, 'tokensFreed'), 'tokensBefore'))).toBe(
      expected(3, ['"pre_tokens":48210', '"pre_tokens":0']),
    );
  });

  test('a count the decoder read as none (not a number) is put back as written', () => {
    const odd = TEXT.replace('"post_tokens":3120', '"post_tokens":"3120"').replace(
      '"duration_ms":2100',
      '"duration_ms":null',
    );
    const { events } = claude.parse(odd);
    expect(events.find((e) => e.type === 'compaction.end')).not.toHaveProperty('tokensAfter');
    expect(events.find((e) => e.type === 'run.end')).not.toHaveProperty('durationMs');
    expect(claude.stringify(events)).toBe(odd);
  });

  test('a streamed message: its start, its snapshots and its delta agree after an edit', () => {
    const fx = new TextDecoder().decode(loadFixture('claude', 'partial-messages').bytes);
    const before = claude.parse(fx).events.filter((e) => e.type === 'usage');
    const out = rewrite(fx, 'usage', (e) => ({ ...e, usage: { ...e.usage, output: 5 } }));
    const after = claude.parse(out).events.filter((e) => e.type === 'usage');
    // The same usages, the first edited: the snapshot lines repeat the start's, edited with it.
    expect(after.map((e) => e.usage.output)).toEqual([5, ...before.slice(1).map((e) => e.usage.output)]);
    const delta = rewrite(fx, 'usage', (e) => ({ ...e, usage: { ...e.usage, output: 70 } }), 1);
    expect(claude.parse(delta).events.filter((e) => e.type === 'usage')[1]!.usage.output).toBe(70);
  });

  test("an edited call's time so far is written (a tool_progress line's seconds)", () => {
    const fx = new TextDecoder().decode(loadFixture('claude', 'missing-result').bytes);
    const out = rewrite(fx, 'tool.liveness', (e) => ({ ...e, elapsedMs: 12345 }));
    expect(out).toBe(fx.replace('"elapsed_time_seconds":30.012', '"elapsed_time_seconds":12.345'));
    expect(claude.parse(out).events.find((e) => e.type === 'tool.liveness')).toMatchObject({
      elapsedMs: 12345,
    });
  });
});
