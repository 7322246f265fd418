import { describe, expect, test } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { baselineDrift, summary, targetRows } from '../../bench/three.mjs';

// bench/three.mjs reads the rows with a target out of each run's page; a row it misses would
// drop out of the "Targets across three runs" table without a word.
describe('bench:three reads the target rows of a run page', () => {
  const page = [
    '# Benchmarks',
    '',
    '## HEP decode, ASCII, 64 KiB chunks',
    '',
    '| pipeline | MB/s | events/s | vs baseline | vs peer | target | |',
    '|---|---:|---:|---:|---:|---|---|',
    '| bare | 387 | 1.45 M | 1.00 | 1.50 (ndjson) |  |  |',
    '| hep.createDecoder().push | 379 | 1.49 M | 0.964 | 1.451 (ndjson) | ≥ 0.85 × bare | pass |',
    '| hep.decoderStream() (Web) | 210 | 0.82 M | 0.540 | 0.798 (ndjson) | ≥ 0.6 × bare | **FAIL** |',
    '',
    '## memory and time bounds',
    '',
    '| measure | value | target | |',
    '|---|---|---|---|',
    '| peak RSS growth | 14.6 MB | < 64 MB | pass |',
    '| no target here | 3 | | |',
  ].join('\n');

  test('every row with a verdict, with its ratio or value, target and verdict', () => {
    expect(targetRows(page)).toEqual([
      {
        section: 'HEP decode, ASCII, 64 KiB chunks',
        pipeline: 'hep.createDecoder().push',
        ratio: '0.964',
        target: '≥ 0.85 × bare',
        pass: true,
        baseline: 387,
      },
      {
        section: 'HEP decode, ASCII, 64 KiB chunks',
        pipeline: 'hep.decoderStream() (Web)',
        ratio: '0.540',
        target: '≥ 0.6 × bare',
        pass: false,
        baseline: 387,
      },
      {
        section: 'memory and time bounds',
        pipeline: 'peak RSS growth',
        ratio: '14.6 MB',
        target: '< 64 MB',
        pass: true,
      },
    ]);
  });
});

// A run whose baseline ran at half its speed doubles every ratio of its section (round
// twenty-seven: one process's JSON.stringify baselines at 131 MB/s against 249 and 261): the
// table flags such a run's cells.
describe('bench:three flags a run whose baseline strayed', () => {
  const run = (baseline: number | undefined) =>
    baseline === undefined ? undefined : { ratio: '1.0', pass: true, baseline };

  test('a run at half the median speed is flagged with its share', () => {
    expect(baselineDrift([run(249), run(261), run(131)])).toEqual([undefined, undefined, 131 / 249]);
  });

  test('within 20 % of the median: nothing flagged', () => {
    expect(baselineDrift([run(249), run(261), run(205)])).toEqual([undefined, undefined, undefined]);
  });

  test('a fast baseline is flagged too (it lowers the ratio)', () => {
    expect(baselineDrift([run(100), run(100), run(130)])).toEqual([undefined, undefined, 1.3]);
  });

  test('rows without a baseline, or a single run, are never flagged', () => {
    expect(baselineDrift([run(undefined), run(100), undefined])).toEqual([undefined, undefined, undefined]);
    expect(baselineDrift([{ ratio: '14.6 MB', pass: true }, undefined, undefined])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  test('the table marks the cell and explains the mark; the verdict is unchanged', () => {
    const page = (speed: number, ratio: string, verdict: string) =>
      [
        '## amp writer',
        '',
        '| pipeline | MB/s | events/s | vs baseline | vs peer | target | |',
        '|---|---:|---:|---:|---:|---|---|',
        `| JSON.stringify(amp record) + "\\n" | ${speed} | 0.2 M | 1.00 |  |  |  |`,
        `| amp.createEncoder().write | 238 | 0.2 M | ${ratio} |  | ≥ 0.9 × bare | ${verdict} |`,
      ].join('\n');
    const table: string = summary([
      page(249, '0.871', '**FAIL**'),
      page(261, '0.870', '**FAIL**'),
      page(131, '1.049', 'pass'),
    ]);
    expect(table).toContain(
      '| amp writer | amp.createEncoder().write | ≥ 0.9 × bare | 0.871 ✗ | 0.870 ✗ | 1.049 † 53 % | **no** |',
    );
    expect(table).toContain('† The section');
    expect(summary([page(249, '0.95', 'pass')])).not.toContain('†');
  });
});
