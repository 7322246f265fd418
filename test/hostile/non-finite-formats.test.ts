import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Diagnostic, Format } from '../../src/diagnostics';
import { codecFor } from '../../src/formats/index';

// Every format, a record of one of its fixtures with one numeric field it reads set to 1e400
// (valid JSON, which JSON.parse reads as Infinity, a number the model does not hold): the field is
// left out of the event, never silently. A decoder that reads the record warns once for its line
// (`left out`); a format whose guards refuse the record says so with an error (the formats marked
// `refuses`), as it did before, and, where a guard turned the number down, the warning says why
// (`refuses, warns`). In whole and chunked decoding alike, and `check` says it too.

const FIXTURES = join(__dirname, '../../fixtures');

// format: the fixture, the key whose first number is set to 1e400, what the decoder does.
const RECORDS: Array<[Format, string, string, 'warns' | 'refuses' | 'refuses, warns']> = [
  ['ag-ui', 'tool-call.sse', 'inputTokens', 'warns'],
  ['ai-sdk', 'chat.sse', 'inputTokens', 'warns'],
  ['amp', 'error.jsonl', 'duration_ms', 'warns'],
  ['claude', 'api-retry.jsonl', 'total_cost_usd', 'warns'],
  ['codex', 'collab.jsonl', 'input_tokens', 'refuses'],
  ['copilot', 'subagent.jsonl', 'outputTokens', 'warns'],
  ['cursor', 'partial-output.jsonl', 'duration_ms', 'warns'],
  ['gemini', 'banner-lines.jsonl', 'duration_ms', 'refuses, warns'],
  ['hep', 'compaction-preflight.jsonl', 'cost', 'refuses, warns'],
  ['highbar', 'mixed.jsonl', 'ts', 'refuses, warns'],
  ['nativeharness', 'approvals.sse', 'ts', 'refuses, warns'],
  ['opencode', 'tool-then-text.jsonl', 'exit', 'warns'],
];

const RANGE = /past a double's range|past any time in milliseconds/;

/** The fixture with the first number of `key` set to 1e400, and the line and byte offset of its record. */
function mutated(format: Format, file: string, key: string): { text: string; line: number; offset: number } {
  const text = readFileSync(join(FIXTURES, format, file), 'utf8');
  const m = new RegExp(`"${key}"\\s*:\\s*(-?[\\d.]+)`).exec(text)!;
  const at = m.index + m[0].length - m[1]!.length;
  const out = `${text.slice(0, at)}1e400${text.slice(at + m[1]!.length)}`;
  // The record's place: its line, or for SSE the first line of its event (after a blank line).
  let start = text.lastIndexOf('\n', at) + 1;
  if (file.endsWith('.sse'))
    while (start > 0 && text.lastIndexOf('\n', start - 2) !== start - 2)
      start = text.lastIndexOf('\n', start - 2) + 1;
  const line = text.slice(0, start).split('\n').length;
  return { text: out, line, offset: Buffer.byteLength(text.slice(0, start)) };
}

function chunked(format: Format, text: string, size: number): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const decoder = codecFor(format)!.createDecoder({ onDiagnostic: (d) => diagnostics.push(d) });
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) decoder.push(bytes.subarray(i, i + size));
  decoder.end();
  return diagnostics;
}

describe('a numeric field of 1e400 in a record of every format is reported, never left out silently', () => {
  test.each(RECORDS)('%s: %s, %s', (format, file, key, does) => {
    const codec = codecFor(format)!;
    const { text, line, offset } = mutated(format, file, key);
    const before = codec.parse(readFileSync(join(FIXTURES, format, file), 'utf8')).diagnostics;
    const { diagnostics } = codec.parse(text);
    const atLine = diagnostics.filter((d) => d.line === line);
    const warnings = atLine.filter((d) => d.severity === 'warning' && RANGE.test(d.message));
    const errors = atLine.filter((d) => d.severity === 'error');
    if (does === 'warns') {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ code: 'invalid_record', format, line, offset });
      expect(warnings[0]!.message).toContain(`${key}: 1e400 is past a double's range`);
      expect(errors).toEqual([]);
      // Nothing else changed: the stream's other diagnostics are the fixture's own.
      expect(diagnostics.filter((d) => d !== warnings[0])).toEqual(before);
    } else {
      expect(errors.length).toBeGreaterThan(0);
      expect(warnings).toHaveLength(does === 'refuses' ? 0 : 1);
    }
    // Chunked decoding says the same, and so does the checker.
    for (const size of [1, 7, 64]) expect(chunked(format, text, size)).toEqual(diagnostics);
    const { check } = codec as unknown as { check(input: string): Diagnostic[] };
    if (does === 'warns') expect(check(text)).toContainEqual(warnings[0]);
  });
});
