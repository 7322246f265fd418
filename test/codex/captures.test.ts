import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, codex, detectFormat } from '../../src/all';

// The real `codex exec --json` captures in ../shared/captures/codex (reference data, read at run
// time, never copied here). Three carry the capture authors' `#` comment lines, which are not
// wire output: they are stripped first.
const dir = fileURLToPath(new URL('../../../shared/captures/codex/', import.meta.url));
if (!existsSync(dir)) throw new Error(`the Codex captures are missing: expected them in ${dir}`);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();

function wire(name: string): string {
  return readFileSync(`${dir}${name}`, 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n');
}

test('the captures are there', () => {
  expect(files.length).toBeGreaterThanOrEqual(7);
});

describe.each(files)('capture %s', (name) => {
  const text = wire(name);
  const parsed = codex.parse(text);

  test('decodes without an error diagnostic', () => {
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  test('stringify(parse(x).events) === x, byte for byte', () => {
    expect(codex.stringify(parsed.events)).toBe(text);
  });

  test('is detected as codex from its first line', () => {
    expect(detectFormat(text)?.format).toBe('codex');
  });

  test('every run ends (completed, failed or incomplete), once', () => {
    const starts = parsed.events.filter((e) => e.type === 'run.start').length;
    const ends = parsed.events.filter((e) => e.type === 'run.end').length;
    expect(ends).toBeGreaterThanOrEqual(starts);
  });
});

const total = (events: AgentEvent[]) =>
  events
    .filter((e): e is Extract<AgentEvent, { type: 'run.end' }> => e.type === 'run.end')
    .reduce(
      (sum, e) => ({
        input: sum.input + (e.usage?.input ?? 0),
        cacheRead: sum.cacheRead + (e.usage?.cacheRead ?? 0),
        output: sum.output + (e.usage?.output ?? 0),
      }),
      { input: 0, cacheRead: 0, output: 0 },
    );

test('resume: the runs usage totals equal the last running total, not the sum', () => {
  const { events } = codex.parse(wire('untether-0.157.1-resume-usage.jsonl'));
  // The last turn.completed says input 32017, cached 21760, output 21: the thread's total.
  expect(total(events)).toEqual({ input: 32017, cacheRead: 21760, output: 21 });
  const rounds = events.filter((e) => e.type === 'round.end').map((e) => (e as { usage?: unknown }).usage);
  expect(rounds).toEqual([
    { input: 10656, cacheRead: 5888, cacheWrite: 0, output: 6, reasoning: 0 },
    { input: 10672, cacheRead: 5888, cacheWrite: 0, output: 7, reasoning: 0 },
    { input: 10689, cacheRead: 9984, cacheWrite: 0, output: 8, reasoning: 0 },
  ]);
  expect(events.filter((e) => e.type === 'session.start').map((e) => e.session)).toEqual([
    '0199f000-0419-7000-8000-00000000c0de',
    '0199f000-0419-7000-8000-00000000c0de',
    '0199f000-0419-7000-8000-00000000c0de',
  ]);
});

test('web search: both ids of the item are reported (the item id and the search id)', () => {
  const { events } = codex.parse(wire('untether-0.157.1-web-search.jsonl'));
  const starts = events.filter((e) => e.type === 'tool.start');
  expect(starts.map((e) => [(e as { call: string }).call, e.provenance?.extra?.id])).toEqual([
    ['item_2', 'exec-8c5b2cf1-1a6d-4c0f-a221-922c684c3c82'],
    ['item_3', 'exec-a632e1b9-dc6e-42db-9384-0d6349805f01'],
  ]);
});

test('early failure: no thread.started, two failed runs, the provider error parsed from pretty JSON', () => {
  const { events } = codex.parse(wire('untether-turn-failed-minimal-reasoning.jsonl'));
  expect(events.map((e) => e.type)).toEqual(['error', 'run.end', 'error', 'run.end']);
  const error = events[0] as Extract<AgentEvent, { type: 'error' }>;
  expect(error.message.startsWith('{\n  "type": "error"')).toBe(true);
  expect((error.data as { status: number }).status).toBe(400);
  expect(events[1]).toMatchObject({ status: 'failed', reason: 'turn.failed' });
});

test('a warning item before turn.started is a non-fatal error', () => {
  const { events } = codex.parse(wire('vincent-failure.jsonl'));
  expect(events[1]).toMatchObject({
    type: 'error',
    fatal: false,
    message: expect.stringContaining('Model metadata'),
  });
  expect(events[2]?.type).toBe('run.start');
});
