import { describe, expect, test } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { targetRows } from '../../bench/three.mjs';

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
      },
      {
        section: 'HEP decode, ASCII, 64 KiB chunks',
        pipeline: 'hep.decoderStream() (Web)',
        ratio: '0.540',
        target: '≥ 0.6 × bare',
        pass: false,
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
