import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics';
import { codecs } from '../../src/formats';
import { hep } from '../../src/formats/hep/index';
import type { AgentEvent } from '../../src/model';

// Issue #15 item 9: the README's Errors section says what the writers do, and they do it: a
// value JSON cannot hold is refused (`unencodable`) — except inside HEP tool arguments, where the
// reference writer's own rule writes `[unserializable]`, with a warning.
const errors = /## Errors\n([\s\S]*?)\n## /.exec(readFileSync('README.md', 'utf8'))![1]!;
const start = (args: Record<string, unknown>): AgentEvent[] => [
  { type: 'run.start' },
  { type: 'tool.start', call: 'c1', name: 'f', args },
];

test('the README names the one exception, and the HEP writer behaves so', () => {
  expect(errors).toContain('[unserializable]');
  expect(errors).toMatch(/warning/);
  for (const mode of ['summary', 'full'] as const) {
    const seen: Diagnostic[] = [];
    const out = hep.stringify(start({ n: 1n, ok: 1 }), { args: mode, onDiagnostic: (d) => seen.push(d) });
    expect(out).toContain('[unserializable]');
    expect(seen.map((d) => [d.severity, d.code])).toContainEqual(['warning', 'loss']);
    expect(seen.map((d) => d.message).join('\n')).toMatch(/BigInt.*\[unserializable\]/);
  }
});

test('every other writer refuses a BigInt in tool arguments with AgentwireError (unencodable)', () => {
  for (const [format, codec] of Object.entries(codecs)) {
    if (format === 'hep') continue;
    expect(() => codec!.stringify(start({ n: 1n })), format).toThrow(/BigInt/);
  }
});
