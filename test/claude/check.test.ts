import { describe, expect, test } from 'vitest';
import { claude, convert, highbar } from '../../src/all';
import { FORMATS, type Format } from '../../src/diagnostics';
import { captures } from '../agent-suite';

// claude.check's runs are the decoder's: a system/init starts a new one, a result ends one, and a
// result with neither an init nor a turn line since the last result is a second result for one run.

const jsonl = (...records: object[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');
const findings = (text: string) => claude.check(text).map((d) => `${d.severity} ${d.message}`);

const init = (uuid: string) => ({
  type: 'system',
  subtype: 'init',
  session_id: 's',
  tools: [],
  mcp_servers: [],
  uuid,
});
const result = (uuid: string) => ({
  type: 'result',
  subtype: 'success',
  is_error: false,
  duration_ms: 0,
  num_turns: 0,
  session_id: 's',
  total_cost_usd: 0,
  uuid,
});

function deterministic() {
  let n = 0;
  return { clock: () => 1767225600000, idSource: () => `id-${++n}` };
}

describe('claude.check: one result per run', () => {
  test('two empty runs, each opened by its system/init, are two runs (no finding)', () => {
    const text = jsonl(init('i1'), result('r1'), init('i2'), result('r2'));
    expect(claude.parse(text).events.filter((e) => e.type === 'run.end')).toHaveLength(2);
    expect(findings(text)).toEqual([]);
  });

  test('a result right after a result (nothing, or only a notice, between) is still a second result', () => {
    const twice = findings(jsonl(init('i1'), result('r1'), result('r2')));
    expect(twice).toHaveLength(1);
    expect(twice[0]).toMatch(/^error line 3 \(byte \d+\): a second result for one run$/);
    const hook = { type: 'system', subtype: 'hook_started', hook_name: 'h', session_id: 's', uuid: 'h1' };
    const afterHook = findings(jsonl(init('i1'), result('r1'), hook, result('r2')));
    expect(afterHook).toHaveLength(1);
    expect(afterHook[0]).toMatch(/^error line 4 \(byte \d+\): a second result for one run$/);
  });

  test('two empty highbar turns written as Claude pass claude.check', () => {
    const two =
      '{"v": 1, "type": "turn", "ts": 1796231188.73}\n{"v": 1, "type": "turn", "ts": 1796231188.731}\n';
    expect(highbar.parse(two).events.filter((e) => e.type === 'run.end')).toHaveLength(2);
    const { output } = convert(two, { from: 'highbar', to: 'claude', ...deterministic() });
    expect(claude.parse(output).events.filter((e) => e.type === 'run.end')).toHaveLength(2);
    expect(findings(output)).toEqual([]);
  });
});

// The captures of the CLI agents, converted through every other format and then to Claude (the
// codex capture of a failed turn made two empty runs through highbar, cursor, amp and ag-ui).
const AGENTS: Array<[string, Format]> = [
  ['claude-code', 'claude'],
  ['codex', 'codex'],
  ['cursor', 'cursor'],
  ['gemini-cli', 'gemini'],
  ['opencode', 'opencode'],
];
// Every other format, as the library lists them.
const HOPS: Format[] = FORMATS.filter((f) => f !== 'claude');

describe.each(
  AGENTS.flatMap(([agent, format]) =>
    captures(agent).map(([name, bytes]) => [`${agent}/${name}`, format, bytes] as const),
  ),
)('claude.check: capture %s converted on to Claude', (_label, format, bytes) => {
  test.each(HOPS.filter((f) => f !== format))('through %s: no error', (hop) => {
    const once = convert(bytes, { from: format, to: hop, ...deterministic() }).output;
    const { output } = convert(once, { from: hop, to: 'claude', ...deterministic() });
    expect(findings(output).filter((f) => f.startsWith('error'))).toEqual([]);
  });
});
