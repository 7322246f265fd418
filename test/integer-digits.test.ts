import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type AgentEvent, nativeharness } from '../src/all';
import { integerDigits } from '../src/json';
import { FUZZ_RUNS as RUNS } from './runs';

// `integerDigits` spells a safe integer from a table of two-digit pieces instead of `String(n)`,
// which enters every new number's text in V8's number-to-string cache (docs/performance.md,
// "Round twenty-seven: the nativeharness writer"). These hold the two equal.

describe('integerDigits', () => {
  test('is String of every integer from -20,000 to 20,000', () => {
    for (let n = -20_000; n <= 20_000; n++) expect(integerDigits(n)).toBe(String(n));
  });

  test('is String of any safe integer, and of -0', () => {
    const edge = fc.constantFrom(
      -0,
      99,
      100,
      101,
      1_000_000,
      1_764_892_800_000,
      10 ** 15,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
    );
    fc.assert(
      fc.property(fc.oneof(fc.maxSafeInteger(), fc.integer(), edge), (n) => {
        expect(integerDigits(n)).toBe(String(n));
      }),
      { numRuns: RUNS * 20 },
    );
  });
});

describe('the nativeharness writer spells its numbers as String does', () => {
  test('seqs counted on from a startSeq that is no integer, timestamps, counts, -0', () => {
    const events: AgentEvent[] = [
      { type: 'run.start', run: 't1', ts: 1.5 },
      { type: 'text.delta', text: 'a', round: 1, ts: -0 },
      { type: 'tool.end', call: 'c', ok: false, exitCode: -0, round: 1, ts: 1_764_892_800_123 },
      { type: 'round.end', message: 'm', round: 1, usage: { input: -0, output: 10 ** 15, costUsd: 0.1 } },
    ];
    const lines = (startSeq: number) => {
      const e = nativeharness.createEncoder({ framing: 'jsonl', session: 's', clock: () => 7, startSeq });
      return events
        .map((ev) => e.write(ev))
        .join('')
        .split('\n')
        .filter((l) => l !== '');
    };
    const at = (l: string, key: string) => l.slice(l.indexOf(`"${key}":`)).split(/[,}]/)[0];
    expect(lines(1.5).map((l) => at(l, 'seq'))).toEqual(['"seq":1.5', '"seq":2.5', '"seq":3.5', '"seq":4.5']);
    const written = lines(98);
    expect(written.map((l) => at(l, 'seq'))).toEqual(['"seq":98', '"seq":99', '"seq":100', '"seq":101']);
    expect(written.map((l) => at(l, 'ts'))).toEqual(['"ts":1.5', '"ts":0', '"ts":1764892800123', '"ts":7']);
    expect(at(written[2]!, 'exit_code')).toBe('"exit_code":0');
    expect(written[3]).toContain(
      '"usage":{"input_tokens":0,"output_tokens":1000000000000000,"cost_usd":0.1}',
    );
  });
});
