import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { claude, detectFormat } from '../../src/all';

// The real captures in ../shared/captures/claude-code/ (reference data, never copied here).
const dir = fileURLToPath(new URL('../../../shared/captures/claude-code/', import.meta.url));

test('the capture folder exists (../shared/captures/claude-code)', () => {
  expect(existsSync(dir), `missing ${dir}: the Claude capture tests need ../shared`).toBe(true);
});

const files = existsSync(dir)
  ? readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
  : [];

describe.each(files)('capture %s', (name) => {
  const bytes = new Uint8Array(readFileSync(`${dir}${name}`));
  const text = new TextDecoder().decode(bytes);
  const parsed = claude.parse(bytes);

  test('decodes with no error diagnostic', () => {
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  test('stringify(parse(x).events) === x, byte for byte', () => {
    expect(claude.stringify(parsed.events)).toBe(text);
  });

  test('is detected as claude', () => {
    expect(detectFormat(bytes)?.format).toBe('claude');
  });

  test('ends every run: a result, or a synthetic incomplete end', () => {
    const ends = parsed.events.filter((e) => e.type === 'run.end');
    const starts = parsed.events.filter((e) => e.type === 'run.start');
    expect(ends.length).toBe(starts.length);
  });
});
