import { describe, expect, test } from 'vitest';
import { type AgentEvent, type AgentEventOf, claude } from '../../src/all';

// A result's `modelUsage` with a key of a later version's whose value is an object but no
// model's usage (`"zz_extra":{"a":[1,"x"]}`): the line came back, but the run's end named a model
// `zz_extra` with no figures (test/hostile/unknown-keys-wide.test.ts, open until round
// thirty-two). Now an entry is a model's only with one of the figures the model keeps; the key
// stays in its line, and in the line written for an edited usage.

const S = 's-mu';
const INIT = `{"type":"system","subtype":"init","cwd":"/w","session_id":"${S}","tools":[],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"default","uuid":"u-1"}`;
const MODEL =
  '"claude-sonnet-4-5":{"inputTokens":7,"outputTokens":20,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":0.0125,"contextWindow":200000}';
const result = (modelUsage: string): string =>
  `{"type":"result","subtype":"success","is_error":false,"duration_ms":2100,"num_turns":1,"result":"Done.","stop_reason":"end_turn","session_id":"${S}","total_cost_usd":0.0125,"usage":{"input_tokens":7,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":20},"modelUsage":${modelUsage},"uuid":"u-2"}`;
const stream = (modelUsage: string): string => `${INIT}\n${result(modelUsage)}\n`;

function endOf(events: AgentEvent[]): AgentEventOf<'run.end'> {
  const end = events.find((e) => e.type === 'run.end');
  if (end?.type !== 'run.end') throw new Error('no run.end');
  return end;
}

describe('claude: a modelUsage entry that is no model', () => {
  test('alone: the run names no model, the line comes back', () => {
    const text = stream('{"zz_extra":{"a":[1,"x"]}}');
    const { events, diagnostics } = claude.parse(text);
    expect(diagnostics).toEqual([]);
    expect(endOf(events).usage).toEqual({
      input: 7,
      output: 20,
      cacheRead: 0,
      cacheWrite: 0,
      costUsd: 0.0125,
    });
    expect(claude.stringify(events)).toBe(text);
  });

  test('beside a model: the run names that model only, the line comes back', () => {
    for (const modelUsage of [`{"zz_extra":{},${MODEL}}`, `{${MODEL},"zz_extra":{"a":[1,"x"]}}`]) {
      const text = stream(modelUsage);
      const { events } = claude.parse(text);
      expect(Object.keys(endOf(events).usage?.byModel ?? {})).toEqual(['claude-sonnet-4-5']);
      expect(claude.stringify(events)).toBe(text);
    }
  });

  test('a model whose one figure is the cost is still a model', () => {
    const { events } = claude.parse(stream('{"m":{"costUSD":1}}'));
    expect(endOf(events).usage?.byModel).toEqual({ m: { costUsd: 1 } });
  });

  test('with the usage edited, the entry stays in the line written', () => {
    const { events } = claude.parse(stream(`{${MODEL},"zz_extra":{"a":[1,"x"]}}`));
    const copy = structuredClone(events);
    const usage = endOf(copy).usage!;
    usage.costUsd = 0.5;
    usage.byModel!['claude-sonnet-4-5']!.costUsd = 0.5;
    const out = claude.stringify(copy);
    expect(out).toContain('"total_cost_usd":0.5');
    expect(out).toContain('"costUSD":0.5,"contextWindow":200000},"zz_extra":{"a":[1,"x"]}}');
  });
});
