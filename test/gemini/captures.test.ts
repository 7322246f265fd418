import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, detectFormat, gemini } from '../../src/all';

// The official Gemini CLI snapshots in ../shared/captures/gemini-cli (reference data, read at run
// time, never copied here). They hold the test harness's placeholders `"<TIMESTAMP>"` (a string)
// and an unquoted `<DURATION>` (which makes the result line invalid JSON).
const dir = fileURLToPath(new URL('../../../shared/captures/gemini-cli/', import.meta.url));

test('the capture folder is there (CI has ../shared)', () => {
  expect(existsSync(dir), `missing ${dir}`).toBe(true);
  expect(readdirSync(dir).filter((f) => f.endsWith('.jsonl')).length).toBeGreaterThanOrEqual(3);
});

const files = existsSync(dir)
  ? readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
  : [];

// Real values for the placeholders, as Gemini CLI writes them: ISO timestamps, integer ms.
function withRealValues(text: string): string {
  let ms = Date.UTC(2026, 7, 6, 9, 30, 0, 125);
  return text
    .replace(/<TIMESTAMP>/g, () => new Date((ms += 41)).toISOString())
    .replace(/<DURATION>/g, '2817');
}

function statusOf(events: AgentEvent[]) {
  const end = events.find((e) => e.type === 'run.end');
  return end?.type === 'run.end'
    ? { status: end.status, reason: end.reason, synthetic: end.provenance?.synthetic }
    : undefined;
}

describe.each(files)('capture %s', (file) => {
  const text = readFileSync(`${dir}${file}`, 'utf8');
  const lines = text.split('\n');

  test('as captured: byte-exact round trip; errors only on the placeholder lines', () => {
    const { events, diagnostics } = gemini.parse(text);
    expect(gemini.stringify(events)).toBe(text);
    const errors = diagnostics.filter((d) => d.severity !== 'info');
    expect(errors.length).toBeGreaterThan(0);
    for (const d of errors) {
      expect(d.code).toBe('invalid_json');
      expect(lines[d.line! - 1]).toContain('<DURATION>');
    }
    // The placeholder result line is kept whole; the run it would have ended is incomplete.
    expect(events.some((e) => e.type === 'unknown' && typeof e.record === 'string')).toBe(true);
    expect(statusOf(events)).toEqual({ status: 'incomplete', reason: undefined, synthetic: true });
    expect(detectFormat(text)?.format).toBe('gemini');
  });

  test('with real values: byte-exact round trip, no diagnostic at all, check() clean', () => {
    const real = withRealValues(text);
    const { events, diagnostics } = gemini.parse(real);
    expect(diagnostics).toEqual([]);
    expect(gemini.stringify(events)).toBe(real);
    expect(gemini.check(real)).toEqual([]);
    for (const e of events) expect(typeof e.ts).toBe('number');
    const end = events.at(-1)!;
    expect(end.type === 'run.end' && end.durationMs).toBe(2817);
  });
});

describe('what the snapshots say, with real values', () => {
  const read = (name: string) =>
    gemini.parse(withRealValues(readFileSync(`${dir}official-snapshot-${name}.jsonl`, 'utf8'))).events;

  test('loop detected: a warning notice, then a completed run (result success)', () => {
    const events = read('loop-detected');
    expect(events.map((e) => e.type)).toEqual(['session.start', 'run.start', 'notice', 'run.end']);
    expect(events[2]).toMatchObject({
      kind: 'warning',
      severity: 'warning',
      message: 'Loop detected, stopping execution',
    });
    expect(statusOf(events)).toMatchObject({ status: 'completed', reason: 'success' });
  });

  test('max session turns: an error (not fatal), then result success reads as a failed run', () => {
    const events = read('max-session-turns');
    expect(events.map((e) => e.type)).toEqual(['session.start', 'run.start', 'error', 'run.end']);
    expect(events[2]).toMatchObject({ fatal: false, message: 'Maximum session turns exceeded' });
    expect(events[3]).toMatchObject({
      status: 'failed',
      reason: 'success',
      error: 'Maximum session turns exceeded',
    });
  });

  test('tool round trip: deltas, the call with its name on the result, usage zero with no models', () => {
    const events = read('tool-roundtrip');
    expect(events.map((e) => e.type)).toEqual([
      'session.start',
      'run.start',
      'text.delta',
      'tool.start',
      'tool.end',
      'text.delta',
      'run.end',
    ]);
    expect(events[0]).toMatchObject({ session: 'test-session-id', model: 'test-model' });
    expect(events[1]).toMatchObject({ input: 'Stream test' });
    expect(events[4]).toMatchObject({
      call: 'tool-1',
      name: 'testTool',
      ok: true,
      text: 'Tool executed successfully',
    });
    expect(events[6]).toMatchObject({ status: 'completed', usage: { input: 0, output: 0, cacheRead: 0 } });
    expect((events[6] as { usage: object }).usage).not.toHaveProperty('byModel');
  });
});
